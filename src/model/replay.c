/* replay: see include/model/replay.h */
#include "model/replay.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/beneath.h"
#include "base/jsonv.h"
#include "model/recfmt.h"
#include "base/util.h"

#define REPLAY_DISKS_MAX 64
#define REPLAY_TICK_DISKS 1024
#define LINE_MAX_BYTES (64u << 20)
/* The most JSON values a line may make (jsonv_parse_max), so a hostile
 * line cannot make a tree of 20 million values (a 64 MiB line of [], took
 * 8 GB). Measured: a disk is 87 values without the probe, about 220 with
 * it (its interval's histogram as [bucket,count] pairs); a process row 41;
 * a tick of one disk and 3,068 processes (--procs 100000) 126,000. The
 * largest tick this reader takes, 1,024 disks and 100,000 rows (--procs at
 * its most), would be about 4.4 million: the limit leaves that twice over,
 * and a real line of today 60 times. At about 56 bytes a value, the tree
 * stays under about 450 MiB. */
#define LINE_MAX_NODES 8000000u

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
	struct rf_read rf;          /* the file's version; what a tick had out of range */
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
	/* only a regular file is a recording, and nothing else is opened (a
	 * FIFO's open would release its writer, a device's would act) */
	int fd = beneath_open_file(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, NULL);
	int e = fd < 0 ? -fd : 0;
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
	if (jsonv_parse_max(r->buf, n, LINE_MAX_NODES, &v, perr, sizeof perr) < 0) {
		util_fmt(err, len, "%s:1: not a recording (%s)", path, perr);
		replay_close(r);
		return -EINVAL;
	}
	struct recfmt_header h;
	recfmt_read(&v, recfmt_header, &h, &r->rf);
	jsonv_free(&v);
	const char *fmt = h.format;
	int64_t ver = h.version;
	r->rf.version = ver > 0 && ver <= RECORD_VERSION ? (int)ver : RECORD_VERSION;
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

/* Range-checked before the cast: a value no counter can hold (1e30, a
 * negative count) is 0, not undefined behaviour. */
static uint64_t atu(const struct jsonv *a, size_t i)
{
	return util_to_u64(at(a, i));
}

static uint32_t atu32(const struct jsonv *a, size_t i)
{
	double d = at(a, i);
	return d > 0 && d <= 4294967295.0 ? (uint32_t)d : 0;
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
		*slot = (struct latwin_point){.sec = sec, .n = atu32(p, 1), .p50_ns = atu(p, 2),
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
}

static void disk(struct replay *r, const struct jsonv *o, double mono, struct disk_sample *d)
{
	memset(d, 0, sizeof *d);
	hist(o, &d->probe_hist); /* its buckets: the table reads its min, max and sum */
	recfmt_read(o, recfmt_disk, d, &r->rf);
	struct disk_info *i = &d->info;
	const struct jsonv *sc = jsonv_arr(o, r->rf.version < 3 ? "scheds" : "schedulers");
	for (size_t k = 0; sc && k < sc->n && k < SCHED_MAX; k++)
		if (sc->kids[k].type == JV_STR)
			util_strlcpy(i->sched.names[i->sched.n++], sc->kids[k].str, SCHED_NAME_MAX);
	int active = i->sched.active; /* as the table read it: an index into the list */
	i->sched.active = active >= 0 && active < i->sched.n ? active : -1;
	chart(r, o, mono, d);
}

/* One recorded event; 0, or -1 for a type this version does not know (a
 * newer recording's: left out, the rest of the tick is read). A time out
 * of range puts the event off the chart (0), not an overflow in it. */
static int event(struct replay *r, const struct jsonv *o, struct event *e)
{
	memset(e, 0, sizeof *e);
	int bad = r->rf.bad_times;
	recfmt_read(o, recfmt_event, e, &r->rf);
	r->rf.bad_times = bad;
	return (unsigned)e->type < EV_NTYPES ? 0 : -1;
}

static void proc_row(struct replay *r, const struct jsonv *o, struct proc_row *p)
{
	memset(p, 0, sizeof *p);
	recfmt_read(o, recfmt_proc, p, &r->rf);
	if (!jsonv_get(o, "tid"))
		p->tid = p->pid; /* process mode */
}

/* The rows' command lines are the sample's own texts (sample_free lets
 * them go): a replayed sample stands alone, as the tests keep several.
 * The last tick's go only here, with the rows that point at them: a tick
 * that fails earlier (a time out of range) leaves the last rows whole, and
 * the full screen goes on drawing them. */
static int procs(struct replay *r, const struct jsonv *o, struct sample *out)
{
	out->nprocs = 0;
	util_texts_free(&out->texts);
	out->top_writer = -1;
	const struct jsonv *rows = jsonv_arr(o, "procs");
	if (!out->have_procs || !rows)
		return 0;
	if (util_grow((void **)&out->procs, &out->procs_cap, rows->n ? rows->n : 1, sizeof *out->procs) < 0)
		return -ENOMEM;
	r->rf.texts = &out->texts; /* for the rows only: they are what holds texts */
	int top = (int)jsonv_int(o, "top_writer", -1);
	for (size_t i = 0; i < rows->n; i++) {
		proc_row(r, &rows->kids[i], &out->procs[out->nprocs]);
		if (out->procs[out->nprocs].tid == top && top > 0)
			out->top_writer = (int)out->nprocs;
		out->nprocs++;
	}
	r->rf.texts = NULL;
	recfmt_read(jsonv_get(o, "pstat"), recfmt_pstat, &out->pstat, &r->rf);
	return 0;
}

/* The cgroups' list (none in a recording made before cgroups were). */
static int cgroups(struct replay *r, const struct jsonv *o, struct sample *out)
{
	const struct jsonv *c = jsonv_get(o, "cgroups");
	c = c && c->type == JV_OBJ ? c : NULL;
	recfmt_read(c, recfmt_cgroups, out, &r->rf);
	const struct jsonv *list = c ? jsonv_arr(c, "list") : NULL;
	size_t n = list ? list->n : 0;
	out->ncgroups = 0;
	if (n > SAMPLE_CGROUPS_MAX)
		n = SAMPLE_CGROUPS_MAX; /* a hand-made file: no more than a live run keeps */
	if (n && util_grow((void **)&out->cgroups, &out->cgroups_cap, n, sizeof *out->cgroups) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		recfmt_read(&list->kids[i], recfmt_cgroup, &out->cgroups[out->ncgroups++], &r->rf);
	return 0;
}

static int blk(struct replay *rp, const struct jsonv *o, struct sample *out)
{
	const struct jsonv *b = jsonv_get(o, "blk");
	recfmt_read(b && b->type == JV_OBJ ? b : NULL, recfmt_blk, out, &rp->rf);
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
	/* what the probe waited behind and the unattributed bytes: recorded per disk */
	r->nstats = r->nreqs = r->nprocs = r->nbehind = r->nunattr = 0;
	/* a hand-made line: no more than a live reading holds */
	size_t nst = st ? (st->n < BLK_STATS_MAX ? st->n : BLK_STATS_MAX) : 0;
	size_t nrq = rq ? (rq->n < BLK_REQS_MAX ? rq->n : BLK_REQS_MAX) : 0;
	if (st && util_grow((void **)&r->stats, &r->stats_cap, nst ? nst : 1, sizeof *r->stats) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < nst; i++) {
		struct blk_stat *x = &r->stats[r->nstats++];
		memset(x, 0, sizeof *x);
		recfmt_read_tuple(&st->kids[i], recfmt_blk_stat, x, &rp->rf);
	}
	if (rq && util_grow((void **)&r->reqs, &r->reqs_cap, nrq ? nrq : 1, sizeof *r->reqs) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < nrq; i++) {
		struct blk_req *q = &r->reqs[r->nreqs++];
		memset(q, 0, sizeof *q);
		recfmt_read_tuple(&rq->kids[i], recfmt_blk_req, q, &rp->rf);
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
	/* The tick's own fields into a copy first: a tick refused for its
	 * times must leave the sample as it was (a screen goes on drawing
	 * it), not with this tick's top_disk against the last tick's disks. */
	struct sample *head = malloc(sizeof *head);
	if (!head)
		return -ENOMEM;
	*head = *out;
	r->rf.bad_times = 0;
	recfmt_read(o, recfmt_tick, head, &r->rf);
	if (!r->rf.bad_times)
		*out = *head; /* the tick's fields are values: its arrays are still out's */
	free(head);
	if (r->rf.bad_times)
		return -ERANGE;
	const struct jsonv *disks = jsonv_arr(o, "disks");
	size_t nd = disks ? disks->n : 0;
	/* A disk's sample is about 20 KB: a tick of "{}"s must not make a
	 * few bytes of file cost gigabytes; more disks than this are dropped */
	if (nd > REPLAY_TICK_DISKS)
		nd = REPLAY_TICK_DISKS;
	if (util_grow((void **)&out->disks, &out->cap, nd ? nd : 1, sizeof *out->disks) < 0)
		return -ENOMEM;
	out->ndisks = 0;
	for (size_t i = 0; i < nd; i++)
		disk(r, &disks->kids[i], out->mono, &out->disks[out->ndisks++]);
	const struct jsonv *ev = jsonv_arr(o, "events");
	out->nevents = 0;
	for (size_t i = 0; ev && i < ev->n && out->nevents < EVENTLOG_PENDING; i++) {
		if (event(r, &ev->kids[i], &out->events[out->nevents]) == 0)
			recent_add(r, &out->events[out->nevents++]);
	}
	size_t keep = r->nrecent < EVENTLOG_RECENT ? r->nrecent : EVENTLOG_RECENT;
	for (size_t i = 0; i < keep; i++)
		out->recent[i] = r->recent[(r->nrecent - keep + i) % EVENTLOG_RECENT];
	out->nrecent = keep;
	if (procs(r, o, out) < 0)
		return -ENOMEM;
	if (out->top_disk >= (int)out->ndisks)
		out->top_disk = -1;
	if (blk(r, o, out) < 0 || cgroups(r, o, out) < 0)
		return -ENOMEM;
	/* Each row's disk, from the block stats as the live run found it
	 * (not recorded: it is theirs). */
	if (blklat_settle_tops(&out->blk) < 0)
		return -ENOMEM;
	sample_settle_waiting(out);
	for (size_t i = 0; i < out->nprocs; i++) {
		struct proc_row *p = &out->procs[i];
		p->disk = p->tid == p->pid ? blklat_top_disk(&out->blk, p->pid) : NULL;
	}
	return 0;
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
	if (jsonv_parse_max(r->buf, n, LINE_MAX_NODES, &v, perr, sizeof perr) < 0) {
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
