/* record: see include/record.h
 *
 * Numbers are written with 17 significant digits, so a replay prints
 * exactly what the live run printed. Chart points are written once, when
 * their second is new (the newest second again, as it may still grow). */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "safefile.h"
#include "util.h"

#define RECORD_DISKS_MAX 64

struct recorder {
	FILE *f;
	int header_done;
	struct {
		char name[DISK_NAME_MAX];
		int64_t last_sec;      /* the newest chart second written */
	} disks[RECORD_DISKS_MAX];
	size_t ndisks;
};

int record_open(struct recorder **out, const char *path, char *err, size_t len)
{
	*out = NULL;
	/* 0600: a recording holds every process's command line */
	char why[300];
	struct safefile_dir d;
	int fd = safefile_dir_open(&d, path, why, sizeof why);
	if (fd == 0) {
		fd = safefile_create(&d, 0600, why, sizeof why);
		safefile_dir_close(&d);
	}
	if (fd < 0) {
		util_fmt(err, len, "--record %s: %s", path, why);
		return fd;
	}
	struct recorder *r = calloc(1, sizeof *r);
	FILE *f = fdopen(fd, "w");
	if (!r || !f) {
		free(r);
		if (f)
			fclose(f);
		else
			close(fd);
		util_fmt(err, len, "--record %s: out of memory", path);
		return -ENOMEM;
	}
	r->f = f;
	*out = r;
	return 0;
}

static void num(FILE *f, const char *key, double v)
{
	fprintf(f, ",\"%s\":%.17g", key, v);
}

static void u64(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, ",\"%s\":%llu", key, (unsigned long long)v);
}

static void i64(FILE *f, const char *key, long long v)
{
	fprintf(f, ",\"%s\":%lld", key, v);
}

static void str(FILE *f, const char *key, const char *v)
{
	fprintf(f, ",\"%s\":", key);
	json_write_string(f, v);
}

static void summary(FILE *f, const char *key, const struct probe_summary *p)
{
	fprintf(f, ",\"%s\":[%llu,%llu,%llu,%llu,%llu,%llu,%.17g,%llu]", key, (unsigned long long)p->n,
		(unsigned long long)p->p50_ns, (unsigned long long)p->p90_ns, (unsigned long long)p->p99_ns,
		(unsigned long long)p->p999_ns, (unsigned long long)p->max_ns, p->mean_ns, (unsigned long long)p->flagged);
}

/* The interval's probe histogram as [bucket, count] pairs: a few dozen at
 * most, and any window's percentiles can be computed from them. */
static void hist_sparse(FILE *f, const struct hist *h)
{
	fputs(",\"hist\":[", f);
	int first = 1;
	for (unsigned b = 0; b < HIST_BUCKETS && h->n; b++)
		if (h->count[b]) {
			fprintf(f, "%s[%u,%u]", first ? "" : ",", b, h->count[b]);
			first = 0;
		}
	fputc(']', f);
	u64(f, "hist_min", h->min_ns);
	u64(f, "hist_max", h->max_ns);
	u64(f, "hist_sum", h->sum_ns);
}

static int64_t *last_sec_of(struct recorder *r, const char *name)
{
	for (size_t i = 0; i < r->ndisks; i++)
		if (strcmp(r->disks[i].name, name) == 0)
			return &r->disks[i].last_sec;
	if (r->ndisks == RECORD_DISKS_MAX)
		return NULL;
	util_strlcpy(r->disks[r->ndisks].name, name, sizeof r->disks[0].name);
	r->disks[r->ndisks].last_sec = INT64_MIN;
	return &r->disks[r->ndisks++].last_sec;
}

static void chart_points(struct recorder *r, FILE *f, const struct disk_sample *d)
{
	int64_t *last = last_sec_of(r, d->info.name), newest = INT64_MIN;
	fputs(",\"chart\":[", f);
	int first = 1;
	for (size_t i = 0; i < CHART_SECONDS; i++) {
		const struct latwin_point *p = &d->chart[i];
		if (p->n == 0 || (last && p->sec < *last))
			continue;
		fprintf(f, "%s[%lld,%u,%llu,%llu,%llu]", first ? "" : ",", (long long)p->sec, p->n,
			(unsigned long long)p->p50_ns, (unsigned long long)p->p99_ns, (unsigned long long)p->max_ns);
		first = 0;
		if (p->sec > newest)
			newest = p->sec;
	}
	fputc(']', f);
	if (last && newest > *last)
		*last = newest;
}

static void disk_info(FILE *f, const struct disk_info *i)
{
	fputs("{\"name\":", f);
	json_write_string(f, i->name);
	i64(f, "kind", i->kind);
	str(f, "model", i->model);
	i64(f, "rot", i->rotational);
	u64(f, "size", i->size_bytes);
	u64(f, "lb", i->logical_block);
	i64(f, "active", i->sched.active);
	fputs(",\"scheds\":[", f);
	for (int k = 0; k < i->sched.n; k++) {
		if (k)
			fputc(',', f);
		json_write_string(f, i->sched.names[k]);
	}
	fputc(']', f);
	i64(f, "nr", i->nr_requests);
	i64(f, "ra", i->read_ahead_kb);
	i64(f, "wbt", i->wbt_lat_usec);
	i64(f, "zoned", i->zoned);
}

static void disk(struct recorder *r, FILE *f, const struct disk_sample *d)
{
	disk_info(f, &d->info);
	const struct iostat_rates *io = &d->io;
	i64(f, "have_rates", d->have_rates);
	fprintf(f, ",\"io\":[%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g]", io->r_s, io->w_s, io->rkB_s, io->wkB_s,
		io->r_await_ms, io->w_await_ms, io->aqu_sz, io->util_pct);
	u64(f, "in_flight", d->in_flight);
	i64(f, "probed", d->probed);
	const struct probe_status *st = &d->probe_st;
	fprintf(f, ",\"pst\":{\"mode\":%d,\"state\":%d", st->mode, st->state);
	str(f, "why", st->why);
	str(f, "path", st->path);
	num(f, "rate", st->rate_hz);
	num(f, "in_flight_ms", st->in_flight_ms);
	u64(f, "missed", st->missed);
	i64(f, "prep", st->prep_pct);
	fputc('}', f);
	summary(f, "p", &d->probe);
	summary(f, "p10", &d->probe_10s);
	summary(f, "pc", &d->probe_change);
	num(f, "rps10", d->probe_rps_10s);
	num(f, "st10", d->probe_stall10_10s);
	num(f, "st100", d->probe_stall100_10s);
	const struct switch_compare *c = &d->cmp;
	if (c->state) {
		fprintf(f, ",\"cmp\":{\"state\":%d", c->state);
		str(f, "from", c->from);
		str(f, "to", c->to);
		num(f, "ts", c->ts);
		num(f, "rate", c->rate_hz);
		num(f, "bs", c->before_s);
		num(f, "as", c->after_s);
		summary(f, "b", &c->before);
		summary(f, "a", &c->after);
		if (c->fresh_before_n || c->fresh_after_n) {
			fprintf(f, ",\"fbn\":%d,\"fan\":%d", c->fresh_before_n, c->fresh_after_n);
			num(f, "fbm", c->fresh_before_ms);
			num(f, "fam", c->fresh_after_ms);
		}
		fputc('}', f);
	}
	hist_sparse(f, &d->probe_hist);
	chart_points(r, f, d);
	const struct disk_pending *pd = &d->pending;
	fprintf(f, ",\"pending\":{\"jobs\":%d,\"running\":%d", pd->jobs, pd->running);
	str(f, "key", pd->key);
	str(f, "to", pd->to);
	num(f, "secs", pd->secs);
	fputc('}', f);
	num(f, "last_switch_ms", d->last_switch_ms);
	str(f, "warning", d->warning);
	fputc('}', f);
}

static void event(FILE *f, const struct event *e)
{
	fprintf(f, "{\"ts\":%.17g", e->ts);
	num(f, "mono", e->mono);
	str(f, "type", event_type_name(e->type));
	str(f, "disk", e->disk);
	if (e->pid > 0)
		i64(f, "pid", e->pid);
	str(f, "key", e->key);
	str(f, "from", e->from);
	str(f, "to", e->to);
	num(f, "ms", e->ms);
	i64(f, "ok", e->ok);
	str(f, "error", e->error);
	fputc('}', f);
}

static void proc_row(FILE *f, const struct proc_row *p)
{
	fprintf(f, "{\"pid\":%d", p->pid);
	i64(f, "tid", p->tid);
	i64(f, "ppid", p->ppid);
	u64(f, "uid", p->uid);
	str(f, "user", p->user);
	str(f, "comm", p->comm);
	str(f, "cmdline", p->cmdline);
	i64(f, "state", p->state);
	i64(f, "nice", p->nice);
	u64(f, "start", p->start);
	i64(f, "readable", p->io_readable);
	i64(f, "kind", p->kind);
	i64(f, "ioprio", p->ioprio);
	fprintf(f, ",\"rates\":[%.17g,%.17g,%.17g,%.17g]", p->read_Bps, p->write_Bps, p->read_calls, p->write_calls);
	const struct proc_counters *t = &p->total;
	fprintf(f, ",\"total\":[%llu,%llu,%llu,%llu,%llu,%llu]", (unsigned long long)t->rbytes,
		(unsigned long long)t->wbytes, (unsigned long long)t->syscr, (unsigned long long)t->syscw,
		(unsigned long long)t->blkio_count, (unsigned long long)t->blkio_ns);
	i64(f, "wait", p->wait);
	num(f, "io_wait_pct", p->io_wait_pct);
	num(f, "avg_wait_us", p->avg_wait_us);
	i64(f, "partial", p->partial);
	if (p->exited) {
		i64(f, "exited", p->exited);
		i64(f, "count", p->count);
		i64(f, "ago", p->ended_ago);
	}
	i64(f, "moved", p->moved);
	fprintf(f, ",\"blk\":[%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu]", (unsigned long long)p->blk_n[0],
		(unsigned long long)p->blk_n[1], (unsigned long long)p->blk_p50_ns[0], (unsigned long long)p->blk_p50_ns[1],
		(unsigned long long)p->blk_p99_ns[0], (unsigned long long)p->blk_p99_ns[1],
		(unsigned long long)p->blk_bytes[0], (unsigned long long)p->blk_bytes[1]);
	fputc('}', f);
}

/* Which rows to keep: what did I/O or waited, and the busiest. */
static int keep_row(const struct proc_row *p)
{
	return p->moved || p->kind == PROC_SELF || p->blk_n[0] || p->blk_n[1] ||
	       (p->wait == WAIT_OK && p->io_wait_pct > 0);
}

static void procs(FILE *f, const struct sample *s, size_t max_procs)
{
	char *keep = calloc(s->nprocs ? s->nprocs : 1, 1);
	size_t *top = malloc((max_procs ? max_procs : 1) * sizeof *top);
	if (!keep || !top) {
		free(keep);
		free(top);
		fputs(",\"procs\":[]", f);
		return;
	}
	size_t ntop = json_busiest(s, max_procs, top);
	for (size_t i = 0; i < ntop; i++)
		keep[top[i]] = 1;
	/* In the live order: a replay then ranks ties the same way. */
	fputs(",\"procs\":[", f);
	int first = 1;
	for (size_t i = 0; i < s->nprocs; i++) {
		if (!keep[i] && !keep_row(&s->procs[i]))
			continue;
		if (!first)
			fputc(',', f);
		first = 0;
		proc_row(f, &s->procs[i]);
	}
	fputc(']', f);
	free(keep);
	free(top);
	const struct procs_status *ps = &s->pstat;
	fprintf(f, ",\"pstat\":{\"threads\":%d,\"taskstats\":%d,\"delayacct\":%d", ps->threads, ps->taskstats,
		ps->delayacct);
	str(f, "missing", ps->missing);
	u64(f, "unreadable", ps->unreadable);
	i64(f, "exits", ps->exits);
	i64(f, "root", ps->as_root);
	u64(f, "exits_lost", ps->exits_lost);
	fputc('}', f);
	i64(f, "top_writer", s->top_writer >= 0 ? s->procs[s->top_writer].tid : -1);
}

static void blk(FILE *f, const struct sample *s)
{
	fprintf(f, ",\"blk\":{\"on\":%d", s->blk_on);
	str(f, "why", s->blk_why);
	str(f, "stage", s->blk_stage ? s->blk_stage : "");
	fputs(",\"stats\":[", f);
	for (size_t i = 0; i < s->blk.nstats; i++) {
		const struct blk_stat *b = &s->blk.stats[i];
		fprintf(f, "%s[%d,", i ? "," : "", b->tgid);
		json_write_string(f, b->disk);
		fprintf(f, ",%d,%llu,%llu,%llu,%llu,%llu]", b->op, (unsigned long long)b->n, (unsigned long long)b->bytes,
			(unsigned long long)b->p50_ns, (unsigned long long)b->p99_ns, (unsigned long long)b->max_ns);
	}
	fputs("],\"reqs\":[", f);
	for (size_t i = 0; i < s->blk.nreqs; i++) {
		const struct blk_req *q = &s->blk.reqs[i];
		fprintf(f, "%s[%d,", i ? "," : "", q->tgid);
		json_write_string(f, q->disk);
		fprintf(f, ",%d,%llu]", q->issued, (unsigned long long)q->age_ns);
	}
	fputs("]}", f);
}

static void header(struct recorder *r, const struct sample *s)
{
	fprintf(r->f, "{\"format\":\"%s\",\"version\":%d", RECORD_FORMAT, RECORD_VERSION);
	str(r->f, "program", "iosched-top " IOSCHED_VERSION);
	str(r->f, "host", s->host);
	str(r->f, "kernel", s->kernel);
	num(r->f, "start", s->ts);
	fputs("}\n", r->f);
	r->header_done = 1;
}

int record_write(struct recorder *r, const struct sample *s, size_t max_procs)
{
	FILE *f = r->f;
	if (!r->header_done)
		header(r, s);
	fprintf(f, "{\"ts\":%.17g", s->ts);
	num(f, "mono", s->mono);
	num(f, "interval_s", s->interval_s);
	str(f, "host", s->host);
	str(f, "kernel", s->kernel);
	i64(f, "psi_err", s->psi_err);
	const struct psi *p = &s->psi;
	fprintf(f, ",\"psi\":[%d,%d,%.17g,%.17g,%.17g,%llu,%.17g,%.17g,%.17g,%llu]", p->have_some, p->have_full,
		p->some.avg10, p->some.avg60, p->some.avg300, (unsigned long long)p->some.total_us, p->full.avg10,
		p->full.avg60, p->full.avg300, (unsigned long long)p->full.total_us);
	i64(f, "have_load", s->have_load);
	fprintf(f, ",\"load\":[%.17g,%.17g,%.17g]", s->load[0], s->load[1], s->load[2]);
	num(f, "probe_rate_hz", s->probe_rate_hz);
	fputs(",\"disks\":[", f);
	for (size_t i = 0; i < s->ndisks; i++) {
		if (i)
			fputc(',', f);
		disk(r, f, &s->disks[i]);
	}
	fputs("],\"events\":[", f);
	for (size_t i = 0; i < s->nevents; i++) {
		if (i)
			fputc(',', f);
		event(f, &s->events[i]);
	}
	fputc(']', f);
	i64(f, "have_procs", s->have_procs);
	if (s->have_procs)
		procs(f, s, max_procs);
	const struct writeback_info *w = &s->wb;
	fprintf(f, ",\"wb\":[%d,%llu,%llu,%ld,%ld,%llu,%llu]", w->ok, (unsigned long long)w->dirty_kB,
		(unsigned long long)w->writeback_kB, w->dirty_ratio, w->dirty_background_ratio,
		(unsigned long long)w->dirty_bytes, (unsigned long long)w->dirty_background_bytes);
	num(f, "write_MBps", s->write_MBps);
	num(f, "dirty_MBps", s->dirty_MBps);
	i64(f, "top_disk", s->top_disk);
	blk(f, s);
	fputs("}\n", f);
	/* One tick at most is lost to a crash or a power cut. */
	if (fflush(f) != 0 || fdatasync(fileno(f)) != 0)
		return -errno;
	return 0;
}

void record_close(struct recorder *r)
{
	if (!r)
		return;
	fclose(r->f);
	free(r);
}
