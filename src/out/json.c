/* json: see src/out/json.h */
#include "json.h"

#include <stdlib.h>
#include <string.h>

#include "out/detail.h"
#include "out/outputs.h"
#include "model/proccols.h"
#include "base/util.h"

static void int_or_null(FILE *f, const char *key, long long v)
{
	fprintf(f, ",\"%s\":", key);
	if (v >= 0)
		fprintf(f, "%lld", v);
	else
		fputs("null", f);
}

/* A quantile, or null when too few samples stand behind it. */
static void quantile(FILE *f, const char *key, const struct probe_summary *p, double q, uint64_t ns)
{
	jsonv_write_num_or_null(f, key, (double)ns / 1e3, hist_enough(p->n, q));
}

/* What the probe's reads waited behind over the last 10 s (BPF). */
static void write_slow(FILE *f, const struct probe_slow *sl)
{
	fprintf(f, ",\"slow\":{\"reads\":%llu", (unsigned long long)sl->reads);
	jsonv_write_key_number(f, "threshold_us", PROBE_SLOW_US, 0);
	jsonv_write_key_number(f, "worst_us", sl->worst_us, 3);
	fprintf(f, ",\"bytes\":%llu,\"ahead\":[", (unsigned long long)sl->total);
	for (int i = 0; i < sl->n && i < PROBE_AHEAD_MAX; i++) {
		const struct probe_ahead *a = &sl->ahead[i];
		fputs(i ? ",{\"comm\":" : "{\"comm\":", f);
		jsonv_write_string(f, a->comm);
		fprintf(f, ",\"pid\":%d,\"kind\":\"%s\",\"bytes\":%llu", a->pid, blk_kind_name(a->kind),
			(unsigned long long)a->bytes);
		jsonv_write_key_number(f, "share", a->share, 4);
		fputc('}', f);
	}
	fputs("],\"slowest\":[", f);
	for (int i = 0; i < sl->nslowest && i < PROBE_SLOWEST_MAX; i++) {
		const struct probe_slowest *w = &sl->slowest[i];
		fputs(i ? ",{\"ts\":" : "{\"ts\":", f);
		jsonv_write_number(f, w->ts, 0);
		jsonv_write_key_number(f, "us", w->us, 3);
		fputs(",\"behind\":", f);
		if (!w->top.bytes) {
			fputs("null}", f);
			continue;
		}
		fputs("{\"comm\":", f);
		jsonv_write_string(f, w->top.comm);
		fprintf(f, ",\"pid\":%d,\"kind\":\"%s\"", w->top.pid, blk_kind_name(w->top.kind));
		jsonv_write_key_number(f, "share", w->top.share, 4);
		fputs("}}", f);
	}
	fputs("]}", f);
}

/* slow: what the reads waited behind (NULL: not said here) */
static void write_probe(FILE *f, const char *key, const struct disk_sample *d, const struct probe_summary *p,
			const struct probe_slow *slow)
{
	const struct probe_status *st = &d->probe_st;
	fprintf(f, ",\"%s\":{\"mode\":", key);
	jsonv_write_string(f, probe_mode_name(st->state == PROBE_ENDED ? PROBE_MODE_OFF : st->mode));
	fputs(",\"why\":", f);
	jsonv_write_string(f, st->why);
	if (st->path[0] && st->state != PROBE_ENDED && st->mode != PROBE_MODE_OFF) {
		fputs(",\"path\":", f); /* what is read: the node, the probe file, the largest of the files */
		jsonv_write_string(f, st->path);
	}
	jsonv_write_key_number(f, "rate_hz", st->rate_hz, 3);
	fprintf(f, ",\"n\":%llu", (unsigned long long)p->n);
	quantile(f, "p50_us", p, 0.50, p->p50_ns);
	quantile(f, "p90_us", p, 0.90, p->p90_ns);
	quantile(f, "p99_us", p, 0.99, p->p99_ns);
	quantile(f, "p999_us", p, 0.999, p->p999_ns);
	jsonv_write_num_or_null(f, "max_us", (double)p->max_ns / 1e3, p->n > 0);
	jsonv_write_num_or_null(f, "mean_us", p->mean_ns / 1e3, p->n > 0);
	jsonv_write_key_number(f, "in_flight_ms", st->in_flight_ms, 3);
	fprintf(f, ",\"flagged\":%llu,\"missed\":%llu", (unsigned long long)p->flagged,
		(unsigned long long)st->missed);
	if (st->state == PROBE_PREPARING && st->mode == PROBE_MODE_FILE)
		fprintf(f, ",\"preparing_pct\":%d", st->prep_pct);
	if (st->mode == PROBE_MODE_FILES && st->state != PROBE_ENDED) /* what the read-only file mode reads */
		fprintf(f, ",\"files\":%llu,\"span_bytes\":%llu", (unsigned long long)st->files,
			(unsigned long long)st->span_bytes);
	if (slow)
		write_slow(f, slow);
	fputc('}', f);
}

/* One window of a switch's comparison; behind: the bytes served while
 * probe reads waited, by kind (NULL: the BPF part is off). */
static void compare_side(FILE *f, const char *key, const struct probe_summary *p, double secs, int fresh_n,
			 double fresh_ms, const struct blk_kind_bytes *behind)
{
	fprintf(f, ",\"%s\":{\"seconds\":", key);
	jsonv_write_number(f, secs, 3);
	fprintf(f, ",\"n\":%llu", (unsigned long long)p->n);
	jsonv_write_num_or_null(f, "reads_per_s", secs > 0 ? (double)p->n / secs : 0, secs > 0);
	quantile(f, "p50_us", p, 0.50, p->p50_ns);
	quantile(f, "p99_us", p, 0.99, p->p99_ns);
	fprintf(f, ",\"fresh_runs\":%d", fresh_n);
	jsonv_write_num_or_null(f, "fresh_job_ms_median", fresh_ms, fresh_n > 0);
	if (behind) {
		fputs(",\"behind_bytes\":{", f);
		for (int k = 0; k < BLK_NKINDS; k++)
			fprintf(f, "%s\"%s\":%llu", k ? "," : "", blk_kind_name((enum blk_kind)k),
				(unsigned long long)behind->b[k]);
		fputc('}', f);
	}
	fputc('}', f);
}

/* The last switch's before/after comparison (the screen's line), or null. */
static void write_compare(FILE *f, const struct switch_compare *c, int blk_on)
{
	fputs(",\"switch_compare\":", f);
	if (c->state == 0) {
		fputs("null", f);
		return;
	}
	fputs("{\"from\":", f);
	jsonv_write_string(f, c->from);
	fputs(",\"to\":", f);
	jsonv_write_string(f, c->to);
	fputs(",\"profile\":", f);
	jsonv_write_string(f, detail_profile(c->rate_hz));
	jsonv_write_key_number(f, "ts", c->ts, 3);
	fprintf(f, ",\"complete\":%s", c->state == 2 ? "true" : "false");
	compare_side(f, "before", &c->before, c->before_s, c->fresh_before_n, c->fresh_before_ms,
		     blk_on ? &c->behind_before : NULL);
	compare_side(f, "after", &c->after, c->after_s, c->fresh_after_n, c->fresh_after_ms,
		     blk_on ? &c->behind_after : NULL);
	fputc('}', f);
}

static void write_event(FILE *f, const struct event *e)
{
	fputs("{\"ts\":", f);
	jsonv_write_number(f, e->ts, 3);
	fputs(",\"type\":", f);
	jsonv_write_string(f, event_type_name(e->type));
	fputs(",\"disk\":", f);
	jsonv_write_string(f, e->disk);
	if (e->pid > 0)
		fprintf(f, ",\"pid\":%d", e->pid);
	/* Changes carry what was changed; probe, cleanup and A/B events only
	 * their text; disk events from and to ("absent", "present"). */
	int change = e->type != EV_PROBE && e->type != EV_CLEANUP && e->type != EV_AB && e->type != EV_UDEV &&
		     e->type != EV_NOTE;
	if (change && e->type != EV_SCHEDULER && e->type != EV_DISK) {
		fputs(",\"key\":", f);
		jsonv_write_string(f, e->key);
	}
	if (e->type == EV_SCHEDULER)
		fprintf(f, ",\"external\":%s", !strcmp(e->key, EVENT_KEY_EXTERNAL) ? "true" : "false");
	if (e->cause[0]) {
		fputs(",\"cause\":", f);
		jsonv_write_string(f, e->cause);
	}
	if (change) {
		fputs(",\"from\":", f);
		jsonv_write_string(f, e->from);
		fputs(",\"to\":", f);
		jsonv_write_string(f, e->to);
		jsonv_write_key_number(f, "ms", e->ms, 3);
	}
	fprintf(f, ",\"ok\":%s,\"error\":", e->ok ? "true" : "false");
	if (e->error[0])
		jsonv_write_string(f, e->error);
	else
		fputs("null", f);
	fputc('}', f);
}

/* The processes waiting longest on the disk now (block layer, BPF). */
static void write_waiting(FILE *f, const struct sample *s, const struct disk_sample *d)
{
	fputs(",\"blk_waiting\":", f);
	if (!s->blk_on) {
		fputs("null", f);
		return;
	}
	const struct blk_wait *w = d->waiting;
	size_t n = d->nwaiting;
	fputc('[', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s{\"pid\":%d,\"inflight\":%u,\"oldest_us\":%.1f}", i ? "," : "", w[i].tgid, w[i].inflight,
			(double)w[i].oldest_ns / 1e3); /* from an integer: finite */
	fputc(']', f);
}

static void write_disk(FILE *f, const struct disk_sample *d, const struct sample *s)
{
	const struct disk_info *i = &d->info;
	fputs("{\"name\":", f);
	jsonv_write_string(f, i->name);
	fputs(",\"kind\":", f);
	jsonv_write_string(f, disk_kind_name(i->kind));
	fputs(",\"model\":", f);
	if (i->model[0])
		jsonv_write_string(f, i->model);
	else
		fputs("null", f);
	fprintf(f, ",\"rotational\":%s", i->rotational < 0 ? "null" : i->rotational ? "true" : "false");
	fprintf(f, ",\"size_bytes\":%llu", (unsigned long long)i->size_bytes);
	fputs(",\"scheduler\":", f);
	const char *act = sched_active(&i->sched);
	if (act)
		jsonv_write_string(f, act);
	else
		fputs("null", f);
	fputs(",\"schedulers\":[", f);
	for (int k = 0; k < i->sched.n; k++) {
		if (k)
			fputc(',', f);
		jsonv_write_string(f, i->sched.names[k]);
	}
	fputc(']', f);
	int_or_null(f, "nr_requests", i->nr_requests);
	int_or_null(f, "read_ahead_kb", i->read_ahead_kb);
	int_or_null(f, "wbt_lat_usec", i->wbt_lat_usec);
	jsonv_write_num_or_null(f, "r_s", d->io.r_s, d->have_rates);
	jsonv_write_num_or_null(f, "w_s", d->io.w_s, d->have_rates);
	jsonv_write_num_or_null(f, "rkB_s", d->io.rkB_s, d->have_rates);
	jsonv_write_num_or_null(f, "wkB_s", d->io.wkB_s, d->have_rates);
	jsonv_write_num_or_null(f, "r_await_ms", d->io.r_await_ms, d->have_rates);
	jsonv_write_num_or_null(f, "w_await_ms", d->io.w_await_ms, d->have_rates);
	jsonv_write_num_or_null(f, "aqu_sz", d->io.aqu_sz, d->have_rates);
	jsonv_write_num_or_null(f, "util_pct", d->io.util_pct, d->have_rates);
	/* Unprobed disks too: mode "off" and why. */
	write_probe(f, "probe", d, &d->probe, s->blk_on && d->probed ? &d->slow : NULL);
	write_probe(f, "probe_10s", d, &d->probe_10s, NULL);
	/* The time-based figures of the same 10 s (readfig.h). */
	jsonv_write_num_or_null(f, "probe_reads_per_s_10s", d->probe_rps_10s, d->probed && d->probe_st.state == PROBE_RUNNING);
	jsonv_write_num_or_null(f, "probe_stall_10ms_10s", d->probe_stall10_10s, d->probed && d->probe_st.state == PROBE_RUNNING);
	jsonv_write_num_or_null(f, "probe_stall_100ms_10s", d->probe_stall100_10s, d->probed && d->probe_st.state == PROBE_RUNNING);
	write_compare(f, &d->cmp, s->blk_on);
	write_waiting(f, s, d);
	if (s->blk_on)
		fprintf(f, ",\"blk_unattributed_bytes\":%llu", (unsigned long long)d->blk_unattributed);
	else
		fputs(",\"blk_unattributed_bytes\":null", f);
	fputc('}', f);
}

/* A process row: whether its /proc/PID/io could be read, then each
 * column's fields (proccols.c). */
static void write_proc(FILE *f, const struct proc_row *r, const struct sample *s)
{
	fprintf(f, "{\"readable\":%s", r->io_readable ? "true" : "false");
	proccols_json(f, r, s);
	fputc('}', f);
}

/* The busiest rows first: read + write bytes, then syscalls, then waits. */
static double busy(const struct proc_row *r)
{
	return r->read_Bps + r->write_Bps + (double)(r->blk_bytes[0] + r->blk_bytes[1]) +
	       (r->read_calls + r->write_calls) * 1e-3 + r->io_wait_pct * 1e-6;
}

struct ranked {
	double busy;
	size_t idx;
};

static int by_busy(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->busy != y->busy)
		return x->busy < y->busy ? 1 : -1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

size_t json_busiest(const struct sample *s, size_t max, size_t *idx)
{
	struct ranked *rk = malloc((s->nprocs ? s->nprocs : 1) * sizeof *rk);
	if (!rk)
		return 0;
	/* A process that ended is in the line of the interval it ended in
	 * only: the screen keeps showing it a while, a stream must not count
	 * it again. */
	size_t m = 0;
	for (size_t i = 0; i < s->nprocs; i++)
		if (!(s->procs[i].exited && s->procs[i].ended_ago))
			rk[m++] = (struct ranked){busy(&s->procs[i]), i};
	qsort(rk, m, sizeof *rk, by_busy);
	size_t n = 0;
	for (; n < max && n < m; n++)
		idx[n] = rk[n].idx;
	free(rk);
	return n;
}

/* What processes ask for and what disks do, apart (detail_writers), and
 * where the tasks were read from. */
static void write_writers(FILE *f, const struct sample *s)
{
	fputs(",\"writers\":{\"dirtying_MBps\":", f);
	jsonv_write_number(f, s->dirty_MBps, 3);
	fputs(",\"dirtying_top\":", f);
	const struct proc_row *t = sample_top_writer(s);
	const struct disk_sample *td = sample_top_disk(s);
	if (t) {
		fprintf(f, "{\"pid\":%d,\"comm\":", t->pid);
		jsonv_write_string(f, t->comm);
		jsonv_write_key_number(f, "write_Bps", t->write_Bps, 0);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	jsonv_write_key_number(f, "to_disks_MBps", s->write_MBps, 3);
	fputs(",\"to_disks_top\":", f);
	if (td) {
		fputs("{\"disk\":", f);
		jsonv_write_string(f, td->info.name);
		jsonv_write_key_number(f, "write_MBps", td->io.wkB_s / 1024, 3);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	const struct proc_row *tp = sample_top_to_disk(s);
	fputs(",\"to_disks_top_process\":", f);
	if (tp) {
		fprintf(f, "{\"pid\":%d,\"comm\":", tp->pid);
		jsonv_write_string(f, tp->comm);
		jsonv_write_key_number(f, "to_disk_Bps", tp->to_disk_Bps, 3);
		jsonv_write_key_number(f, "part_Bps", sample_to_disks_part_Bps(s, tp), 3);
		fprintf(f, ",\"exited\":%s}", tp->exited ? "true" : "false");
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\"taskstats\":%s,\"exit_records\":%s,\"exit_record_overflows\":%lu",
		s->pstat.taskstats ? "true" : "false", s->pstat.exits ? "true" : "false", s->pstat.exits_lost);
	int_or_null(f, "exit_records_lost", s->pstat.exits ? s->pstat.exit_records_lost : -1); /* -1: unknown */
	fprintf(f, ",\"delayacct\":%s,\"missing\":", s->pstat.delayacct ? "true" : "false");
	if (s->pstat.missing[0])
		jsonv_write_string(f, s->pstat.missing);
	else
		fputs("null", f);
	/* where the tasks and their counters came from, and why not the walk */
	/* the seconds the processes' rates cover (since the walk before):
	 * rate x walk_s is the bytes, as rate x interval_s is for a disk's */
	fputs(",\"walk_s\":", f);
	if (s->pstat.walk_s > 0)
		fprintf(f, "%.6f", s->pstat.walk_s);
	else
		fputs("null", f);
	fprintf(f, ",\"tasks_from\":\"%s\",\"task_walk_why\":", s->pstat.from_iter ? "bpf" : "proc");
	if (s->pstat.from_iter)
		fputs("null", f);
	else
		jsonv_write_string(f, s->pstat.iter_why);
	fputc('}', f);
}

static void write_procs(FILE *f, const struct sample *s, size_t max)
{
	fputs(",\"procs\":[", f);
	size_t *idx = malloc((max ? max : 1) * sizeof *idx);
	size_t n = idx ? json_busiest(s, max, idx) : 0;
	for (size_t k = 0; k < n; k++) {
		if (k)
			fputc(',', f);
		write_proc(f, &s->procs[idx[k]], s);
	}
	free(idx);
	fputc(']', f);
	const struct writeback_info *w = &s->wb;
	fputs(",\"writeback\":", f);
	if (w->ok)
		fprintf(f, "{\"dirty_kB\":%llu,\"writeback_kB\":%llu,\"dirty_ratio\":%ld,\"dirty_background_ratio\":%ld,"
			   "\"dirty_bytes\":%llu,\"dirty_background_bytes\":%llu}",
			(unsigned long long)w->dirty_kB, (unsigned long long)w->writeback_kB, w->dirty_ratio,
			w->dirty_background_ratio, (unsigned long long)w->dirty_bytes,
			(unsigned long long)w->dirty_background_bytes);
	else
		fputs("null", f);
	write_writers(f, s);
	fprintf(f, ",\"blk\":{\"on\":%s,\"why\":", s->blk_on ? "true" : "false");
	if (s->blk_on) {
		fputs("null,\"owner\":", f);
		jsonv_write_string(f, s->blk_stage);
		fprintf(f, ",\"unattributed_bytes\":%llu,\"untimed_requests\":%llu,\"uncounted_requests\":%llu",
			(unsigned long long)s->blk.unattributed, (unsigned long long)s->blk.untimed,
			(unsigned long long)s->blk.uncounted);
	} else {
		jsonv_write_string(f, s->blk_why);
	}
	fputc('}', f);
}

void json_write_sample(FILE *f, const struct sample *s, size_t max_procs)
{
	fprintf(f, "{\"version\":%d,\"ts\":", OUTPUTS_JSON_VERSION);
	jsonv_write_number(f, s->ts, 3);
	jsonv_write_key_number(f, "interval_s", s->interval_s, 3);
	fputs(",\"host\":", f);
	jsonv_write_string(f, s->host);
	fputs(",\"kernel\":", f);
	jsonv_write_string(f, s->kernel);
	fputs(",\"psi_io\":", f);
	if (s->psi_err == 0) {
		fputs("{\"some_avg10\":", f);
		jsonv_write_number(f, s->psi.some.avg10, 2);
		jsonv_write_num_or_null(f, "full_avg10", s->psi.full.avg10, s->psi.have_full);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fputs(",\"loadavg\":", f);
	if (s->have_load) {
		for (int k = 0; k < 3; k++) {
			fputc(k ? ',' : '[', f);
			jsonv_write_number(f, s->load[k], 2);
		}
		fputc(']', f);
	} else {
		fputs("null", f);
	}
	/* how many disks the default listing left out (snap loops, zram...) */
	fprintf(f, ",\"disks_hidden\":%zu", s->nhidden);
	fputs(",\"disks\":[", f);
	for (size_t i = 0; i < s->ndisks; i++) {
		if (i)
			fputc(',', f);
		write_disk(f, &s->disks[i], s);
	}
	fputc(']', f);
	if (s->have_procs)
		write_procs(f, s, max_procs);
	json_write_cgroups(f, s);
	fputs(",\"events\":[", f);
	for (size_t i = 0; i < s->nevents; i++) {
		if (i)
			fputc(',', f);
		write_event(f, &s->events[i]);
	}
	fputs("]}\n", f);
}
