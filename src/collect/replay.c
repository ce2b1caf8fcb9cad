/* replay: see include/replay.h */
#include "replay.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonv.h"
#include "record.h"
#include "util.h"

#define REPLAY_DISKS_MAX 64
#define LINE_MAX_BYTES (64u << 20)

/* The chart seconds seen so far of one disk (a recording writes each
 * second once; the sample wants the last CHART_SECONDS of them). */
struct chart_hist {
	char name[DISK_NAME_MAX];
	struct latwin_point pts[CHART_SECONDS];   /* ring by second */
};

struct replay {
	FILE *f;
	char path[256];
	long line;
	char *buf;
	size_t cap;
	struct chart_hist charts[REPLAY_DISKS_MAX];
	size_t ncharts;
	struct event recent[EVENTLOG_RECENT];
	size_t nrecent;             /* total seen */
};

/* Times in a recording are seconds: a value past these (1e300, -9.2e18)
 * would overflow the int64 seconds the chart computes with. */
#define TIME_MAX_S 1e11

static int time_ok(double v)
{
	return isfinite(v) && v >= 0 && v < TIME_MAX_S;
}

/* One line, bounded before it is kept: getline would grow its buffer
 * for as long as the file has no newline (/dev/zero grew the tool to
 * 2.7 GB). Returns 1 with the line, 0 at the end, -E2BIG for a line over
 * LINE_MAX_BYTES, -ENOMEM, or -errno of the read. */
static int read_line(struct replay *r, size_t *len)
{
	size_t n = 0;
	int c = 0;
	errno = 0;
	while ((c = getc(r->f)) != EOF) {
		if (n + 2 > r->cap) {
			if (r->cap >= LINE_MAX_BYTES)
				return -E2BIG;
			size_t cap = r->cap ? r->cap * 2 : 65536;
			if (cap > LINE_MAX_BYTES)
				cap = LINE_MAX_BYTES;
			char *b = realloc(r->buf, cap);
			if (!b)
				return -ENOMEM;
			r->buf = b;
			r->cap = cap;
		}
		r->buf[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (c == EOF && ferror(r->f))
		return errno ? -errno : -EIO;
	if (n == 0)
		return 0;
	r->buf[n] = '\0';
	r->line++;
	*len = n;
	return 1;
}

int replay_open(struct replay **out, const char *path, char *err, size_t len)
{
	*out = NULL;
	struct replay *r = calloc(1, sizeof *r);
	if (!r) {
		util_fmt(err, len, "--replay %s: out of memory", path);
		return -ENOMEM;
	}
	util_strlcpy(r->path, path, sizeof r->path);
	/* O_NONBLOCK: a FIFO must not hang the open; only a regular file is
	 * a recording (a directory read as empty, a FIFO blocked for ever) */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	int e = fd < 0 ? errno : fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
	if (!e && fcntl(fd, F_SETFL, 0) != 0)
		e = errno;
	if (e || !(r->f = fdopen(fd, "re"))) {
		e = e ? e : errno;
		util_fmt(err, len, "--replay %s: %s", path, e == EINVAL ? "not a regular file" : strerror(e));
		if (fd >= 0)
			close(fd);
		free(r);
		return -e;
	}
	size_t n;
	struct jsonv v;
	char perr[128];
	int got = read_line(r, &n);
	if (got <= 0) {
		if (got == 0)
			util_fmt(err, len, "%s:1: empty: not a recording (make one with --record)", path);
		else
			util_fmt(err, len, "%s:1: %s: not a recording", path,
				 got == -E2BIG ? "a line over 64 MiB" : strerror(-got));
		replay_close(r);
		return got == 0 ? -EINVAL : got;
	}
	if (jsonv_parse(r->buf, n, &v, perr, sizeof perr) < 0) {
		util_fmt(err, len, "%s:1: not a recording (%s)", path, perr);
		replay_close(r);
		return -EINVAL;
	}
	char fmt[64];
	jsonv_str(&v, "format", fmt, sizeof fmt);
	int64_t ver = jsonv_int(&v, "version", -1);
	jsonv_free(&v);
	if (strcmp(fmt, RECORD_FORMAT) != 0 || ver < 1) {
		util_fmt(err, len, "%s:1: not a recording of iosched-top (no \"format\":\"%s\" header)", path, RECORD_FORMAT);
		replay_close(r);
		return -EINVAL;
	}
	if (ver > RECORD_VERSION) {
		util_fmt(err, len, "%s:1: recording format version %lld is newer than this program reads (%d): use a newer iosched-top",
			 path, (long long)ver, RECORD_VERSION);
		replay_close(r);
		return -EPROTONOSUPPORT;
	}
	*out = r;
	return 0;
}

long replay_line(const struct replay *r)
{
	return r->line;
}

/* Element i of array a as a number (0 when missing). */
static double at(const struct jsonv *a, size_t i)
{
	return a && i < a->n && (a->kids[i].type == JV_NUM || a->kids[i].type == JV_BOOL) ? a->kids[i].num : 0;
}

static uint64_t atu(const struct jsonv *a, size_t i)
{
	double d = at(a, i);
	return d > 0 ? (uint64_t)d : 0;
}

static void summary(const struct jsonv *o, const char *key, struct probe_summary *p)
{
	const struct jsonv *a = jsonv_arr(o, key);
	p->n = atu(a, 0);
	p->p50_ns = atu(a, 1);
	p->p90_ns = atu(a, 2);
	p->p99_ns = atu(a, 3);
	p->p999_ns = atu(a, 4);
	p->max_ns = atu(a, 5);
	p->mean_ns = at(a, 6);
	p->flagged = atu(a, 7);
}

static struct chart_hist *chart_of(struct replay *r, const char *name)
{
	for (size_t i = 0; i < r->ncharts; i++)
		if (strcmp(r->charts[i].name, name) == 0)
			return &r->charts[i];
	if (r->ncharts == REPLAY_DISKS_MAX)
		return NULL;
	struct chart_hist *c = &r->charts[r->ncharts++];
	memset(c, 0, sizeof *c);
	util_strlcpy(c->name, name, sizeof c->name);
	return c;
}

/* New chart seconds into the disk's ring, then the window the live
 * sampler would have shown: [floor(mono) - CHART_SECONDS + 1, floor(mono)]. */
static void chart(struct replay *r, const struct jsonv *o, double mono, struct disk_sample *d)
{
	struct chart_hist *c = chart_of(r, d->info.name);
	const struct jsonv *pts = jsonv_arr(o, "chart");
	for (size_t i = 0; c && pts && i < pts->n; i++) {
		const struct jsonv *p = &pts->kids[i];
		if (!time_ok(at(p, 0)))
			continue; /* a second no live run could have charted */
		int64_t sec = (int64_t)at(p, 0);
		struct latwin_point *slot = &c->pts[((sec % CHART_SECONDS) + CHART_SECONDS) % CHART_SECONDS];
		*slot = (struct latwin_point){.sec = sec, .n = (uint32_t)at(p, 1), .p50_ns = atu(p, 2),
					      .p99_ns = atu(p, 3), .max_ns = atu(p, 4)};
	}
	int64_t to = (int64_t)floor(mono);
	for (int i = 0; i < CHART_SECONDS; i++) {
		int64_t sec = to - CHART_SECONDS + 1 + i;
		const struct latwin_point *p = c ? &c->pts[((sec % CHART_SECONDS) + CHART_SECONDS) % CHART_SECONDS] : NULL;
		d->chart[i] = p && p->sec == sec && p->n ? *p : (struct latwin_point){.sec = sec};
	}
}

static void hist(const struct jsonv *o, struct hist *h)
{
	hist_reset(h);
	const struct jsonv *pairs = jsonv_arr(o, "hist");
	for (size_t i = 0; pairs && i < pairs->n; i++) {
		uint64_t b = atu(&pairs->kids[i], 0), n = atu(&pairs->kids[i], 1);
		if (b < HIST_BUCKETS) {
			h->count[b] = (uint32_t)n;
			h->n += n;
		}
	}
	h->min_ns = (uint64_t)jsonv_int(o, "hist_min", 0);
	h->max_ns = (uint64_t)jsonv_int(o, "hist_max", 0);
	h->sum_ns = (uint64_t)jsonv_int(o, "hist_sum", 0);
}

static void disk(struct replay *r, const struct jsonv *o, double mono, struct disk_sample *d)
{
	memset(d, 0, sizeof *d);
	struct disk_info *i = &d->info;
	jsonv_str(o, "name", i->name, sizeof i->name);
	i->kind = (enum disk_kind)jsonv_int(o, "kind", DISK_OTHER);
	jsonv_str(o, "model", i->model, sizeof i->model);
	i->rotational = (int)jsonv_int(o, "rot", -1);
	i->size_bytes = (uint64_t)jsonv_int(o, "size", 0);
	i->logical_block = (unsigned)jsonv_int(o, "lb", 0);
	const struct jsonv *sc = jsonv_arr(o, "scheds");
	for (size_t k = 0; sc && k < sc->n && k < SCHED_MAX; k++)
		if (sc->kids[k].type == JV_STR)
			util_strlcpy(i->sched.names[i->sched.n++], sc->kids[k].str, SCHED_NAME_MAX);
	i->sched.active = (int)jsonv_int(o, "active", -1);
	if (i->sched.active >= i->sched.n)
		i->sched.active = -1;
	i->nr_requests = jsonv_int(o, "nr", -1);
	i->read_ahead_kb = jsonv_int(o, "ra", -1);
	i->wbt_lat_usec = jsonv_int(o, "wbt", -1);
	i->zoned = (int)jsonv_int(o, "zoned", 0);
	d->have_rates = (int)jsonv_int(o, "have_rates", 0);
	const struct jsonv *io = jsonv_arr(o, "io");
	d->io = (struct iostat_rates){at(io, 0), at(io, 1), at(io, 2), at(io, 3), at(io, 4), at(io, 5), at(io, 6), at(io, 7)};
	d->in_flight = (unsigned long long)jsonv_int(o, "in_flight", 0);
	d->probed = (int)jsonv_int(o, "probed", 0);
	const struct jsonv *st = jsonv_get(o, "pst");
	d->probe_st.mode = (enum probe_mode)jsonv_int(st, "mode", PROBE_MODE_OFF);
	d->probe_st.state = (enum probe_state)jsonv_int(st, "state", PROBE_ENDED);
	jsonv_str(st, "why", d->probe_st.why, sizeof d->probe_st.why);
	jsonv_str(st, "path", d->probe_st.path, sizeof d->probe_st.path);
	d->probe_st.rate_hz = jsonv_num(st, "rate", 0);
	d->probe_st.in_flight_ms = jsonv_num(st, "in_flight_ms", 0);
	d->probe_st.missed = (uint64_t)jsonv_int(st, "missed", 0);
	d->probe_st.prep_pct = (int)jsonv_int(st, "prep", 0);
	summary(o, "p", &d->probe);
	summary(o, "p10", &d->probe_10s);
	summary(o, "pc", &d->probe_change);
	d->probe_rps_10s = jsonv_num(o, "rps10", 0);
	d->probe_stall10_10s = jsonv_num(o, "st10", 0);
	d->probe_stall100_10s = jsonv_num(o, "st100", 0);
	const struct jsonv *c = jsonv_get(o, "cmp");
	if (c) {
		d->cmp.state = (int)jsonv_int(c, "state", 0);
		jsonv_str(c, "from", d->cmp.from, sizeof d->cmp.from);
		jsonv_str(c, "to", d->cmp.to, sizeof d->cmp.to);
		d->cmp.ts = jsonv_num(c, "ts", 0);
		d->cmp.rate_hz = jsonv_num(c, "rate", 0);
		d->cmp.before_s = jsonv_num(c, "bs", 0);
		d->cmp.after_s = jsonv_num(c, "as", 0);
		summary(c, "b", &d->cmp.before);
		summary(c, "a", &d->cmp.after);
		d->cmp.fresh_before_n = (int)jsonv_int(c, "fbn", 0);
		d->cmp.fresh_after_n = (int)jsonv_int(c, "fan", 0);
		d->cmp.fresh_before_ms = jsonv_num(c, "fbm", 0);
		d->cmp.fresh_after_ms = jsonv_num(c, "fam", 0);
	}
	hist(o, &d->probe_hist);
	chart(r, o, mono, d);
	const struct jsonv *pd = jsonv_get(o, "pending");
	d->pending.jobs = (int)jsonv_int(pd, "jobs", 0);
	d->pending.running = (int)jsonv_int(pd, "running", 0);
	jsonv_str(pd, "key", d->pending.key, sizeof d->pending.key);
	jsonv_str(pd, "to", d->pending.to, sizeof d->pending.to);
	d->pending.secs = jsonv_num(pd, "secs", 0);
	d->last_switch_ms = jsonv_num(o, "last_switch_ms", -1);
	jsonv_str(o, "warning", d->warning, sizeof d->warning);
}

/* One recorded event; 0, or -1 for a type this version does not know (a
 * newer recording's: left out, the rest of the tick is read). */
static int event(const struct jsonv *o, struct event *e)
{
	memset(e, 0, sizeof *e);
	char type[32];
	jsonv_str(o, "type", type, sizeof type);
	if (event_type_parse(type, &e->type) < 0)
		return -1;
	e->ts = jsonv_num(o, "ts", 0);
	e->mono = jsonv_num(o, "mono", 0);
	if (!time_ok(e->ts))
		e->ts = 0;
	if (!time_ok(e->mono))
		e->mono = 0; /* off the chart, not an overflow in it */
	jsonv_str(o, "disk", e->disk, sizeof e->disk);
	e->pid = (int)jsonv_int(o, "pid", 0);
	jsonv_str(o, "key", e->key, sizeof e->key);
	jsonv_str(o, "from", e->from, sizeof e->from);
	jsonv_str(o, "to", e->to, sizeof e->to);
	e->ms = jsonv_num(o, "ms", 0);
	e->ok = (int)jsonv_int(o, "ok", 0);
	jsonv_str(o, "error", e->error, sizeof e->error);
	return 0;
}

static void proc_row(const struct jsonv *o, struct proc_row *p)
{
	memset(p, 0, sizeof *p);
	p->pid = (int)jsonv_int(o, "pid", 0);
	p->tid = (int)jsonv_int(o, "tid", p->pid);
	p->ppid = (int)jsonv_int(o, "ppid", 0);
	p->uid = (unsigned)jsonv_int(o, "uid", 0);
	jsonv_str(o, "user", p->user, sizeof p->user);
	jsonv_str(o, "comm", p->comm, sizeof p->comm);
	jsonv_str(o, "cmdline", p->cmdline, sizeof p->cmdline);
	p->state = (char)jsonv_int(o, "state", '?');
	p->nice = (int)jsonv_int(o, "nice", 0);
	p->start = (unsigned long long)jsonv_int(o, "start", 0);
	p->io_readable = (int)jsonv_int(o, "readable", 0);
	p->kind = (enum proc_kind)jsonv_int(o, "kind", PROC_NORMAL);
	p->ioprio = (int)jsonv_int(o, "ioprio", -1);
	const struct jsonv *rt = jsonv_arr(o, "rates");
	p->read_Bps = at(rt, 0);
	p->write_Bps = at(rt, 1);
	p->read_calls = at(rt, 2);
	p->write_calls = at(rt, 3);
	const struct jsonv *t = jsonv_arr(o, "total");
	p->total = (struct proc_counters){atu(t, 0), atu(t, 1), atu(t, 2), atu(t, 3), atu(t, 4), atu(t, 5)};
	p->wait = (enum proc_wait)jsonv_int(o, "wait", WAIT_OFF);
	p->io_wait_pct = jsonv_num(o, "io_wait_pct", 0);
	p->avg_wait_us = jsonv_num(o, "avg_wait_us", 0);
	p->partial = (int)jsonv_int(o, "partial", 0);
	p->exited = (int)jsonv_int(o, "exited", 0);
	p->count = (int)jsonv_int(o, "count", 0);
	p->ended_ago = (int)jsonv_int(o, "ago", 0);
	p->moved = (int)jsonv_int(o, "moved", 0);
	const struct jsonv *b = jsonv_arr(o, "blk");
	for (int k = 0; k < 2; k++) {
		p->blk_n[k] = atu(b, (size_t)k);
		p->blk_p50_ns[k] = atu(b, 2 + (size_t)k);
		p->blk_p99_ns[k] = atu(b, 4 + (size_t)k);
		p->blk_bytes[k] = atu(b, 6 + (size_t)k);
	}
}

static int procs(const struct jsonv *o, struct sample *out)
{
	out->have_procs = (int)jsonv_int(o, "have_procs", 0);
	out->nprocs = 0;
	out->top_writer = -1;
	const struct jsonv *rows = jsonv_arr(o, "procs");
	if (!out->have_procs || !rows)
		return 0;
	if (util_grow((void **)&out->procs, &out->procs_cap, rows->n ? rows->n : 1, sizeof *out->procs) < 0)
		return -ENOMEM;
	int top = (int)jsonv_int(o, "top_writer", -1);
	for (size_t i = 0; i < rows->n; i++) {
		proc_row(&rows->kids[i], &out->procs[out->nprocs]);
		if (out->procs[out->nprocs].tid == top && top > 0)
			out->top_writer = (int)out->nprocs;
		out->nprocs++;
	}
	const struct jsonv *ps = jsonv_get(o, "pstat");
	out->pstat.threads = (int)jsonv_int(ps, "threads", 0);
	out->pstat.taskstats = (int)jsonv_int(ps, "taskstats", 0);
	out->pstat.delayacct = (int)jsonv_int(ps, "delayacct", 0);
	jsonv_str(ps, "missing", out->pstat.missing, sizeof out->pstat.missing);
	out->pstat.unreadable = (size_t)jsonv_int(ps, "unreadable", 0);
	out->pstat.exits = (int)jsonv_int(ps, "exits", 0);
	out->pstat.as_root = (int)jsonv_int(ps, "root", 0);
	out->pstat.exits_lost = (unsigned long)jsonv_int(ps, "exits_lost", 0);
	return 0;
}

static int blk(const struct jsonv *o, struct sample *out)
{
	const struct jsonv *b = jsonv_get(o, "blk");
	out->blk_on = (int)jsonv_int(b, "on", 0);
	jsonv_str(b, "why", out->blk_why, sizeof out->blk_why);
	/* blk_stage points at static names in the live run: keep the text. */
	static const char *const stages[] = {"block_io_start", "block_rq_insert", "block_rq_issue", ""};
	char stage[32];
	jsonv_str(b, "stage", stage, sizeof stage);
	out->blk_stage = "";
	for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++)
		if (strcmp(stage, stages[i]) == 0)
			out->blk_stage = stages[i];
	struct blk_reading *r = &out->blk;
	const struct jsonv *st = jsonv_arr(b, "stats"), *rq = jsonv_arr(b, "reqs");
	r->nstats = r->nreqs = r->nprocs = 0;
	if (st && util_grow((void **)&r->stats, &r->stats_cap, st->n ? st->n : 1, sizeof *r->stats) < 0)
		return -ENOMEM;
	for (size_t i = 0; st && i < st->n; i++) {
		const struct jsonv *a = &st->kids[i];
		struct blk_stat *x = &r->stats[r->nstats++];
		memset(x, 0, sizeof *x);
		x->tgid = (int)at(a, 0);
		if (a->n > 1 && a->kids[1].type == JV_STR)
			util_strlcpy(x->disk, a->kids[1].str, sizeof x->disk);
		x->op = at(a, 2) == BLK_WRITE ? BLK_WRITE : BLK_READ;
		x->n = atu(a, 3);
		x->bytes = atu(a, 4);
		x->p50_ns = atu(a, 5);
		x->p99_ns = atu(a, 6);
		x->max_ns = atu(a, 7);
	}
	if (rq && util_grow((void **)&r->reqs, &r->reqs_cap, rq->n ? rq->n : 1, sizeof *r->reqs) < 0)
		return -ENOMEM;
	for (size_t i = 0; rq && i < rq->n; i++) {
		const struct jsonv *a = &rq->kids[i];
		struct blk_req *q = &r->reqs[r->nreqs++];
		memset(q, 0, sizeof *q);
		q->tgid = (int)at(a, 0);
		if (a->n > 1 && a->kids[1].type == JV_STR)
			util_strlcpy(q->disk, a->kids[1].str, sizeof q->disk);
		q->issued = (int)at(a, 2);
		q->age_ns = atu(a, 3);
	}
	return 0;
}

static void recent_add(struct replay *r, const struct event *e)
{
	r->recent[r->nrecent % EVENTLOG_RECENT] = *e;
	r->nrecent++;
}

static int fill(struct replay *r, const struct jsonv *o, struct sample *out)
{
	out->ts = jsonv_num(o, "ts", 0);
	out->mono = jsonv_num(o, "mono", 0);
	out->interval_s = jsonv_num(o, "interval_s", 0);
	if (!time_ok(out->ts) || !time_ok(out->mono) || !time_ok(out->interval_s))
		return -ERANGE;
	jsonv_str(o, "host", out->host, sizeof out->host);
	jsonv_str(o, "kernel", out->kernel, sizeof out->kernel);
	out->psi_err = (int)jsonv_int(o, "psi_err", -ENOENT);
	const struct jsonv *p = jsonv_arr(o, "psi");
	out->psi = (struct psi){(int)at(p, 0), (int)at(p, 1), {at(p, 2), at(p, 3), at(p, 4), atu(p, 5)},
				{at(p, 6), at(p, 7), at(p, 8), atu(p, 9)}};
	out->have_load = (int)jsonv_int(o, "have_load", 0);
	const struct jsonv *l = jsonv_arr(o, "load");
	for (int i = 0; i < 3; i++)
		out->load[i] = at(l, (size_t)i);
	out->probe_rate_hz = jsonv_num(o, "probe_rate_hz", 0);
	const struct jsonv *disks = jsonv_arr(o, "disks");
	size_t nd = disks ? disks->n : 0;
	if (util_grow((void **)&out->disks, &out->cap, nd ? nd : 1, sizeof *out->disks) < 0)
		return -ENOMEM;
	out->ndisks = 0;
	for (size_t i = 0; i < nd; i++)
		disk(r, &disks->kids[i], out->mono, &out->disks[out->ndisks++]);
	const struct jsonv *ev = jsonv_arr(o, "events");
	out->nevents = 0;
	for (size_t i = 0; ev && i < ev->n && out->nevents < EVENTLOG_PENDING; i++) {
		if (event(&ev->kids[i], &out->events[out->nevents]) == 0)
			recent_add(r, &out->events[out->nevents++]);
	}
	size_t keep = r->nrecent < EVENTLOG_RECENT ? r->nrecent : EVENTLOG_RECENT;
	for (size_t i = 0; i < keep; i++)
		out->recent[i] = r->recent[(r->nrecent - keep + i) % EVENTLOG_RECENT];
	out->nrecent = keep;
	if (procs(o, out) < 0)
		return -ENOMEM;
	const struct jsonv *w = jsonv_arr(o, "wb");
	out->wb = (struct writeback_info){(int)at(w, 0), atu(w, 1), atu(w, 2), (long)at(w, 3), (long)at(w, 4), atu(w, 5),
					  atu(w, 6)};
	out->write_MBps = jsonv_num(o, "write_MBps", 0);
	out->dirty_MBps = jsonv_num(o, "dirty_MBps", 0);
	out->top_disk = (int)jsonv_int(o, "top_disk", -1);
	if (out->top_disk >= (int)out->ndisks)
		out->top_disk = -1;
	return blk(o, out);
}

int replay_next(struct replay *r, struct sample *out, char *msg, size_t len)
{
	size_t n;
	msg[0] = '\0';
	int got = read_line(r, &n);
	if (got == 0)
		return 0;
	if (got < 0) {
		util_fmt(msg, len, "%s:%ld: %s; the replay stops here", r->path, r->line + 1,
			 got == -E2BIG ? "a line over 64 MiB" : strerror(-got));
		return got == -ENOMEM ? -ENOMEM : 0;
	}
	int cut = n == 0 || r->buf[n - 1] != '\n';
	struct jsonv v;
	char perr[128];
	if (jsonv_parse(r->buf, n, &v, perr, sizeof perr) < 0) {
		util_fmt(msg, len, "%s:%ld: %s (%s); the replay stops here", r->path, r->line,
			 cut ? "cut short (the recording ended mid-line)" : "not a valid tick", perr);
		return 0;
	}
	if (v.type != JV_OBJ || !jsonv_arr(&v, "disks") || !jsonv_get(&v, "ts")) {
		util_fmt(msg, len, "%s:%ld: not a tick of a recording (no \"ts\" or \"disks\"); the replay stops here",
			 r->path, r->line);
		jsonv_free(&v);
		return 0;
	}
	int rc = fill(r, &v, out);
	jsonv_free(&v);
	if (rc == -ERANGE) {
		util_fmt(msg, len, "%s:%ld: a time out of range (ts, mono, interval_s, a chart second); the replay stops here",
			 r->path, r->line);
		return 0;
	}
	if (rc < 0) {
		/* not an end of file: the status says it (exit 1) */
		util_fmt(msg, len, "%s:%ld: out of memory", r->path, r->line);
		return -ENOMEM;
	}
	return 1;
}

void replay_close(struct replay *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	free(r->buf);
	free(r);
}
