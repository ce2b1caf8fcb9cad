/* batch: see include/out/batch.h */
#include "out/batch.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/columns.h"
#include "out/detail.h"
#include "model/proccols.h"
#include "json.h"
#include "session.h"
#include "base/util.h"

static void write_header(FILE *f, const struct sample *s)
{
	char clock[16];
	util_clock(s->ts, clock, sizeof clock);
	char host[256], kernel[256];
	util_safe_text(host, sizeof host, s->host);
	util_safe_text(kernel, sizeof kernel, s->kernel);
	fprintf(f, "%s  %s  %s  interval %.2fs", clock, host, kernel, s->interval_s);
	if (s->psi_err == 0)
		fprintf(f, "  io pressure some %.2f%% full %.2f%% (avg10)", s->psi.some.avg10,
			s->psi.have_full ? s->psi.full.avg10 : 0.0);
	fputc('\n', f);
}

/* The process columns of the pane (proccols.c), all of them: the block
 * latency ones when the BPF part is on. */
static int shown(const struct sample *s, enum pcol c)
{
	return !proccols_get(c)->blk || s->blk_on;
}

/* One cell at its column's width (COMMAND last, as long as it is), made
 * safe to print: a name can hold an ESC sequence, and a replay's figures
 * are the recording's. */
static void text_cell(FILE *f, enum pcol c, const char *raw)
{
	const struct proccol *col = proccols_get(c);
	char v[1024];
	util_safe_text(v, sizeof v, raw);
	if (!col->width) {
		fputs(v, f);
		return;
	}
	if (!col->left)
		util_fit_figure(v, col->width); /* never a figure without its unit */
	fprintf(f, col->left ? "%-*.*s " : "%*.*s ", col->width, col->width, v);
}

static void write_proc_text(FILE *f, const struct sample *s, const struct proc_row *r)
{
	const struct proccols_mode mode = {0};
	char raw[512];
	for (int c = 0; c < PC_COUNT; c++) {
		if (!shown(s, (enum pcol)c))
			continue;
		proccols_cell((enum pcol)c, r, &mode, raw, sizeof raw);
		text_cell(f, (enum pcol)c, raw);
	}
	fputc('\n', f);
}

/* The rows of up to max processes that did I/O in the interval, busiest
 * (read + write) first, as in JSON: a handful is a selection enough. A row
 * that ended is listed in the interval it ended in only. Returns the
 * indexes in s->procs (to free; NULL when none), their count in *n. */
static size_t *busiest(const struct sample *s, size_t max, size_t *n)
{
	*n = 0;
	size_t *rows = max && s->nprocs ? calloc(max < s->nprocs ? max : s->nprocs, sizeof *rows) : NULL;
	char *done = rows ? calloc(s->nprocs, 1) : NULL;
	while (done && *n < max && *n < s->nprocs) {
		int best = -1;
		for (size_t i = 0; i < s->nprocs; i++) {
			const struct proc_row *r = &s->procs[i];
			if (r->exited && r->ended_ago)
				continue;
			if (!done[i] && (best < 0 || r->read_Bps + r->write_Bps > s->procs[best].read_Bps + s->procs[best].write_Bps))
				best = (int)i;
		}
		if (best < 0 || s->procs[best].read_Bps + s->procs[best].write_Bps <= 0)
			break;
		done[best] = 1;
		rows[(*n)++] = (size_t)best;
	}
	free(done);
	return rows;
}

/* The busiest processes under the disk table, like iotop -b. */
static void write_procs_text(FILE *f, const struct sample *s, size_t max)
{
	if (!s->have_procs || max == 0)
		return;
	char who[320], missing[4 * sizeof s->pstat.missing];
	detail_writers(s, who, sizeof who);
	util_safe_text(missing, sizeof missing, s->pstat.missing); /* a replay's is the recording's */
	fprintf(f, "%s, Dirty %llu kB, Writeback %llu kB%s%s", who,
		(unsigned long long)s->wb.dirty_kB, (unsigned long long)s->wb.writeback_kB,
		missing[0] ? "; I/O wait: " : "", missing);
	char why[160];
	detail_unreadable(&s->pstat, why, sizeof why);
	if (why[0])
		fprintf(f, "; %s", why);
	fputc('\n', f);
	for (int c = 0; c < PC_COUNT; c++)
		if (shown(s, (enum pcol)c))
			text_cell(f, (enum pcol)c, proccols_header((enum pcol)c, 0));
	char blk_why[4 * sizeof s->blk_why];
	util_safe_text(blk_why, sizeof blk_why, s->blk_why); /* a replay's is the recording's */
	if (s->blk_on)
		fputc('\n', f);
	else
		fprintf(f, "  (block latency off: %s)\n", blk_why);
	size_t n, *rows = busiest(s, max, &n);
	for (size_t k = 0; k < n; k++)
		write_proc_text(f, s, &s->procs[rows[k]]);
	free(rows);
}

void batch_write_text(FILE *f, const struct sample *s, size_t max_procs)
{
	size_t ncols;
	const struct column *cols = columns_table(&ncols);
	char cell[160];
	write_header(f, s);
	char line[1024];
	size_t used = 0;
	for (size_t c = 0; c < ncols; c++) {
		columns_header(&cols[c], cell, sizeof cell);
		used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", c ? " " : "", cell);
	}
	fprintf(f, "%s\n", util_trim(line));
	for (size_t i = 0; i < s->ndisks; i++) {
		used = 0;
		for (size_t c = 0; c < ncols && used < sizeof line; c++) {
			columns_cell(&cols[c], &s->disks[i], cell, sizeof cell);
			used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", c ? " " : "", cell);
		}
		/* The last column is text: no blanks after it. */
		size_t n = strlen(line);
		while (n && line[n - 1] == ' ')
			line[--n] = '\0';
		fprintf(f, "%s\n", line);
	}
	if (s->nhidden)
		fprintf(f, "%s hidden (--all-disks shows them)\n", s->hidden_what);
	write_procs_text(f, s, max_procs);
	for (size_t i = 0; i < s->nevents; i++) {
		char raw[400], what[400];
		event_describe(&s->events[i], raw, sizeof raw);
		util_safe_text(what, sizeof what, raw);
		const struct event *e = &s->events[i];
		util_safe_text(raw, sizeof raw, e->disk); /* a replayed name is the recording's */
		if (e->pid > 0)
			fprintf(f, "event: pid %d %s\n", e->pid, what);
		else
			fprintf(f, "event: %s %s\n", raw, what);
	}
	fputc('\n', f);
}

/* CSV fields: quoted only when they hold a comma, a quote or a newline
 * (RFC 4180); a figure that does not exist is an empty field. A text cell
 * (a name, a command line: text set) that starts with = + - @, a tab or a
 * carriage return gets a ' first, as OWASP advises against formula
 * injection: a spreadsheet would run "=HYPERLINK(...)" or "+cmd|calc" as a
 * formula. Figures are never text cells: -1.5 stays a number; nor is a
 * lone "-" (a figure not read) a formula: it stays "-". */
static void csv_text(FILE *f, const char *raw, int text)
{
	char v[512];
	v[0] = '\'';
	/* no control character, not even a newline, reaches a row */
	util_safe_text(v + 1, sizeof v - 1, raw);
	int formula = v[1] && strchr("=+-@\t\r", v[1]) && strcmp(v + 1, "-") != 0;
	const char *cell = text && formula ? v : v + 1;
	if (!strpbrk(cell, ",\"\n\r")) {
		fputs(cell, f);
		return;
	}
	fputc('"', f);
	for (const char *c = cell; *c; c++) {
		if (*c == '"')
			fputc('"', f);
		fputc(*c, f);
	}
	fputc('"', f);
}

static void csv_num(FILE *f, double v, int present)
{
	if (present && isfinite(v)) /* a replay's null is a NaN: an empty field */
		fprintf(f, ",%.3f", v);
	else
		fputc(',', f);
}

static void csv_quantile(FILE *f, const struct probe_summary *p, double q, uint64_t ns, int probed)
{
	csv_num(f, (double)ns / 1e3, probed && hist_enough(p->n, q));
}

void batch_write_csv(FILE *f, const struct sample *s, int header)
{
	if (header)
		fputs("ts,disk,kind,scheduler,r_s,w_s,rkB_s,wkB_s,r_await_ms,w_await_ms,aqu_sz,util_pct,"
		      "probe_n_10s,probe_p50_us_10s,probe_p99_us_10s,switches\n", f);
	for (size_t i = 0; i < s->ndisks; i++) {
		const struct disk_sample *d = &s->disks[i];
		const char *act = sched_active(&d->info.sched);
		int switches = 0;
		for (size_t k = 0; k < s->nevents; k++)
			switches += s->events[k].ok && s->events[k].type == EV_SCHEDULER &&
				    strcmp(s->events[k].disk, d->info.name) == 0;
		fprintf(f, "%.3f,", s->ts);
		csv_text(f, d->info.name, 1);
		fputc(',', f);
		csv_text(f, disk_kind_name(d->info.kind), 1);
		fputc(',', f);
		csv_text(f, act ? act : "", 1);
		const struct iostat_rates *io = &d->io;
		const double v[] = {io->r_s, io->w_s, io->rkB_s, io->wkB_s, io->r_await_ms, io->w_await_ms, io->aqu_sz,
				    io->util_pct};
		for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
			csv_num(f, v[k], d->have_rates);
		if (d->probed)
			fprintf(f, ",%llu", (unsigned long long)d->probe_10s.n);
		else
			fputc(',', f);
		csv_quantile(f, &d->probe_10s, 0.50, d->probe_10s.p50_ns, d->probed);
		csv_quantile(f, &d->probe_10s, 0.99, d->probe_10s.p99_ns, d->probed);
		fprintf(f, ",%d\n", switches);
	}
}

void batch_write_csv_procs(FILE *f, const struct sample *s, size_t max_procs, int header)
{
	if (header) {
		fputs("ts", f);
		for (int c = 0; c < PC_COUNT; c++)
			fprintf(f, ",%s", proccols_get((enum pcol)c)->csv);
		fputc('\n', f);
	}
	if (!s->have_procs)
		return;
	size_t n, *rows = busiest(s, max_procs, &n);
	for (size_t k = 0; k < n; k++) {
		fprintf(f, "%.3f", s->ts);
		for (int c = 0; c < PC_COUNT; c++) {
			char v[512];
			proccols_csv((enum pcol)c, &s->procs[rows[k]], v, sizeof v);
			fputc(',', f);
			csv_text(f, v, !proccols_get((enum pcol)c)->unit[0]); /* a column without a unit is text */
		}
		fputc('\n', f);
	}
	free(rows);
}

void batch_write_csv_cgroups(FILE *f, const struct sample *s, int header)
{
	if (header)
		fputs("ts,path,unit,parent,procs,read_Bps,write_Bps,to_disk_Bps,io_some_pct,io_full_pct,io_some_avg10,"
		      "io_full_avg10,stat_read_Bps,stat_write_Bps,bfq_weight,io_weight,io_max,io_latency,io_wait_pct,throttled_pct,source\n", f);
	for (size_t i = 0; i < s->ncgroups; i++) {
		const struct cgroup_sample *c = &s->cgroups[i];
		fprintf(f, "%.3f,", s->ts);
		csv_text(f, c->path, 1);
		fputc(',', f);
		csv_text(f, c->unit, 1);
		fputc(',', f);
		csv_text(f, c->parent, 1);
		fprintf(f, ",%d", c->procs);
		csv_num(f, c->read_Bps, 1);
		csv_num(f, c->write_Bps, 1);
		csv_num(f, c->to_disk_Bps, c->to_disk_Bps >= 0);
		csv_num(f, c->some_pct, c->have_psi && c->some_pct >= 0);
		csv_num(f, c->full_pct, c->have_psi && c->full_pct >= 0);
		csv_num(f, c->some_avg10, c->have_psi);
		csv_num(f, c->full_avg10, c->have_psi);
		csv_num(f, c->stat_read_Bps, c->have_stat && c->stat_read_Bps >= 0);
		csv_num(f, c->stat_write_Bps, c->have_stat && c->stat_write_Bps >= 0);
		csv_num(f, c->bfq_weight, c->bfq_weight > 0);
		csv_num(f, c->io_weight, c->io_weight > 0);
		fputc(',', f);
		csv_text(f, c->have_io_max ? c->io_max : "", 1);
		fputc(',', f);
		csv_text(f, c->have_io_latency ? c->io_latency : "", 1);
		csv_num(f, c->io_wait_pct, c->io_wait_pct >= 0);
		csv_num(f, c->throttled_pct, c->throttled_pct >= 0);
		fputc(',', f);
		csv_text(f, c->source, 1);
		fputc('\n', f);
	}
}

int batch_print(FILE *f, enum output_format fmt, size_t max_procs, const struct sample *s, int header)
{
	if (fmt == OUT_JSON) {
		json_write_sample(f, s, max_procs); /* its strings: jsonv_write_string */
	} else {
		/* Text and CSV: written whole, then every line escaped on its way
		 * out (util_safe_write), whatever a writer above forgot. */
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (!m)
			return -ENOMEM;
		if (fmt == OUT_CSV)
			batch_write_csv(m, s, header);
		else if (fmt == OUT_CSV_PROCS)
			batch_write_csv_procs(m, s, max_procs, header);
		else if (fmt == OUT_CSV_CGROUPS)
			batch_write_csv_cgroups(m, s, header);
		else
			batch_write_text(m, s, max_procs);
		int rc = fclose(m) != 0 ? -ENOMEM : util_safe_write(f, buf, len);
		free(buf);
		if (rc < 0)
			return rc;
	}
	return util_flush_check(f);
}

/* A replay goes as fast as it can unless --replay-speed paces it by the
 * recorded intervals; a live run waits --delay. */
static double next_wait(const struct options *o, const struct session *sess, const struct sample *s)
{
	if (!session_replaying(sess))
		return o->delay_s;
	return o->replay_speed > 0 ? s->interval_s / o->replay_speed : 0;
}

int batch_run(const struct options *o, struct session *sess, volatile sig_atomic_t *stop)
{
	struct sample s = {0};
	int rc = session_prime(sess), out_rc = 0;
	double next = util_mono_now(), wait = session_replaying(sess) ? 0 : o->delay_s;
	for (long i = 0; rc == 0 && (o->iterations == 0 || i < o->iterations);) {
		/* Absolute deadlines: the interval does not drift by the time
		 * spent sampling and printing. */
		next += wait;
		double now = util_mono_now();
		if (next < now - wait)
			next = now; /* fell far behind (stopped, suspended): do not burst */
		while (!*stop && util_sleep_until(next) == -EINTR)
			;
		if (*stop)
			break;
		rc = session_collect(sess, &s);
		if (rc == -ENODATA) { /* the recording ended */
			if (session_replay_msg(sess)[0])
				util_complain("%s\n", session_replay_msg(sess));
			rc = 0;
			break;
		}
		if (rc < 0)
			break;
		int w = batch_print(stdout, o->format, (size_t)o->procs, &s, i == 0);
		if (w < 0) {
			/* said here; the caller cleans up as for q */
			util_complain_write("the output", w);
			out_rc = 1;
			break;
		}
		if (session_write_outputs(sess, &s) < 0) {
			/* a recording or metrics file that cannot be written any
			 * more ends the run: nobody watches a batch run's stderr for
			 * the moment its data stopped */
			util_complain("%s; stopped\n", session_error(sess));
			out_rc = 1;
			break;
		}
		wait = next_wait(o, sess, &s);
		i++;
	}
	sample_free(&s);
	return rc < 0 ? rc : out_rc;
}
