/* sampleprobes: the probes a sampler runs, one per probed disk: started
 * and stopped as disks come and go, read into each disk's figures, the
 * before/after comparison of a switch, and the fresh reader's jobs
 * (sampleparts.h). */
#include "model/sample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sampleparts.h"
#include "base/util.h"

/* Faster than any disk answers a 4 KiB read that reached it (the fastest
 * NVMe devices take about 7 us): such a sample came from a cache or a hole. */
#define MIN_PLAUSIBLE_NS 5000

struct sampler_probe *sampleprobes_find(struct sampler *s, const char *disk)
{
	for (size_t i = 0; i < s->nprobes; i++)
		if (strcmp(s->probes[i].disk, disk) == 0)
			return &s->probes[i];
	return NULL;
}

void sampleprobes_post_event(struct sampler *s, const char *disk, int ok, const char *msg)
{
	struct event e = {.ts = util_real_now(), .mono = util_mono_now(), .ok = ok};
	e.type = EV_PROBE;
	util_strlcpy(e.disk, disk, sizeof e.disk);
	util_strlcpy(e.error, msg, sizeof e.error);
	eventlog_add(&s->events, &e);
}

static void start_probe(struct sampler *s, const struct disk_info *d)
{
	struct sampler_probe *grown = realloc(s->probes, (s->nprobes + 1) * sizeof *grown);
	if (!grown)
		return;
	s->probes = grown;
	struct sampler_probe *sp = &s->probes[s->nprobes++];
	memset(sp, 0, sizeof *sp);
	util_strlcpy(sp->disk, d->name, sizeof sp->disk);
	sp->started = util_mono_now();

	struct probe_config pc = {0};
	util_strlcpy(pc.disk, d->name, sizeof pc.disk);
	pc.io_size = s->cfg.probe_size;
	pc.rate_hz = s->cfg.probe_rate_hz;
	/* Per disk, so two disks do not read the same offsets in step. */
	pc.seed = (s->cfg.have_seed ? s->cfg.seed : (uint64_t)getpid() ^ (uint64_t)(util_real_now() * 1e6)) ^
		  util_hash_text(d->name);
	pc.min_plausible_ns = d->kind == DISK_ZRAM ? 0 : MIN_PLAUSIBLE_NS;
	pc.file_size = s->cfg.probe_file_size;
	pc.write_file = s->cfg.probe_file_write;
	if (s->cfg.probe_file_disk && strcmp(s->cfg.probe_file_disk, d->name) == 0) {
		util_strlcpy(pc.file, s->cfg.probe_file, sizeof pc.file);
		pc.file_is_users = 1;
	}
	char err[256] = "";
	if (d->logical_block && pc.io_size % d->logical_block)
		util_fmt(err, sizeof err, "--probe-size %u is not a multiple of %s's logical block (%u)",
			 pc.io_size, d->name, d->logical_block);
	else if (probe_start(&pc, &sp->p, err, sizeof err) == 0)
		return;
	sp->p = NULL;
	sp->failed.mode = PROBE_MODE_OFF;
	sp->failed.state = PROBE_ENDED;
	sp->failed.rate_hz = pc.rate_hz;
	util_strlcpy(sp->failed.why, err, sizeof sp->failed.why);
	sp->last_state = PROBE_ENDED;
	sampleprobes_post_event(s, d->name, 0, err);
}

/* Stop the probes of disks that are gone, start those of new disks. */
void sampleprobes_sync(struct sampler *s, const struct disk_info *disks, size_t n)
{
	for (size_t i = 0; i < s->nprobes;) {
		size_t k;
		for (k = 0; k < n && strcmp(disks[k].name, s->probes[i].disk) != 0; k++)
			;
		/* kept while its disk is there and wanted (not held by an A/B,
		 * not stopped with O) */
		if (k < n && sampler_wants_probe(s, &disks[k])) {
			i++;
			continue;
		}
		if (k == n && s->probes[i].last_state != PROBE_ENDED)
			sampleprobes_post_event(s, s->probes[i].disk, 0, "disk gone; probe stopped");
		probe_stop(s->probes[i].p);
		free(s->probes[i].behind);
		s->probes[i] = s->probes[--s->nprobes];
	}
	for (size_t i = 0; i < n; i++)
		if (sampledisks_shown(s, &disks[i]) && sampler_wants_probe(s, &disks[i]) && !sampleprobes_find(s, disks[i].name))
			start_probe(s, &disks[i]);
}


static void summarize(const struct hist *h, uint64_t flagged, struct probe_summary *out)
{
	out->n = h->n;
	out->p50_ns = hist_quantile(h, 0.50);
	out->p90_ns = hist_quantile(h, 0.90);
	out->p99_ns = hist_quantile(h, 0.99);
	out->p999_ns = hist_quantile(h, 0.999);
	out->max_ns = h->max_ns;
	out->mean_ns = hist_mean_ns(h);
	out->flagged = flagged;
}

/* The time-based figures of the last 10 s (the window latwin_window gives:
 * nine whole seconds and the current one so far). */
static void time_figures(const struct sampler_probe *sp, const struct hist *last10, double now, struct disk_sample *d)
{
	double secs = 9 + (now - floor(now));
	if (now - sp->started < secs)
		secs = now - sp->started;
	/* Only the figures the screen shows: no percentiles walked twice on
	 * the refresh path (summarize has them). */
	d->probe_rps_10s = secs > 0.5 ? (double)last10->n / secs : 0;
	d->probe_stall10_10s = secs > 0.5 ? fmin(1, (double)hist_sum_above(last10, 10000000) / 1e9 / secs) : 0;
	d->probe_stall100_10s = secs > 0.5 ? fmin(1, (double)hist_sum_above(last10, 100000000) / 1e9 / secs) : 0;
}

/* The fresh jobs on sp's disk that ended in (from, to]: how many, and
 * their median time (0 when none). */
static int fresh_in(const struct sampler_probe *sp, double from, double to, double *median_ms)
{
	double v[FRESH_KEPT];
	int n = 0;
	unsigned kept = sp->nfresh < FRESH_KEPT ? sp->nfresh : FRESH_KEPT;
	for (unsigned i = 0; i < kept; i++)
		if (sp->fresh_mono[i] > from && sp->fresh_mono[i] <= to)
			v[n++] = sp->fresh_ms[i];
	*median_ms = n == 0 ? 0 : util_median(v, n);
	return n;
}

/* The after window of the last switch fills for 10 s, then stays. */
static void compare_after(struct sampler_probe *sp, const struct hist *since_change, uint64_t flagged, double now)
{
	if (sp->cmp.state != 1)
		return;
	summarize(since_change, flagged, &sp->cmp.after);
	sp->cmp.after_s = now - sp->cmp.mono;
	sp->cmp.fresh_after_n = fresh_in(sp, sp->cmp.mono, sp->cmp.mono + 10, &sp->cmp.fresh_after_ms);
	if (sp->cmp.after_s >= 10)
		sp->cmp.state = 2;
}

void sampleprobes_read(struct sampler *s, struct sampler_probe *sp, double now, struct disk_sample *d)
{
	d->probed = 1;
	if (!sp->p) {
		d->probe_st = sp->failed;
		return;
	}
	/* About 30 KB of histograms: on the heap, not the stack. */
	struct probe_reading *r = malloc(sizeof *r);
	if (!r)
		return;
	probe_read(sp->p, now, r);
	d->probe_st = r->st;
	summarize(&r->interval, r->flagged_interval, &d->probe);
	d->probe_hist = r->interval;
	summarize(&r->last10, r->flagged_10s, &d->probe_10s);
	summarize(&r->since_change, r->flagged_change, &d->probe_change);
	d->slow.reads = r->last10.n - hist_count_upto(&r->last10, (uint64_t)(PROBE_SLOW_US * 1e3));
	d->slow.worst_us = d->probe_10s.n ? (double)d->probe_10s.max_ns / 1e3 : 0;
	time_figures(sp, &r->last10, now, d);
	compare_after(sp, &r->since_change, r->flagged_change, now);
	d->cmp = sp->cmp;
	int64_t sec = (int64_t)floor(now);
	probe_chart(sp->p, sec - CHART_SECONDS + 1, sec, d->chart);
	if (r->st.state == PROBE_ENDED && sp->last_state != PROBE_ENDED)
		sampleprobes_post_event(s, sp->disk, 0, r->st.why);
	sp->last_state = r->st.state;
	free(r);
}

/* In the order sampler_wants_probe decides: the first that applies is
 * the reason, with the way out where there is one. */
void sampler_unprobed_why(const struct sampler *s, const struct disk_info *d, char *buf, size_t len)
{
	if (s->held[0] && strcmp(s->held, d->name) == 0)
		util_fmt(buf, len, "held off while the A/B run measures it with its own readers");
	else if (d->sched.n == 0)
		util_fmt(buf, len, "no I/O scheduler on this queue (a stacked device: probe the disks under it)");
	else if (d->size_bytes == 0)
		util_fmt(buf, len, "size 0: no medium, or a loop device with nothing attached");
	else if (!s->cfg.probe)
		util_fmt(buf, len, "--no-probe (O probes it)");
	else if (s->cfg.probe_only)
		util_fmt(buf, len, "not named with --probe (--probe %s, or O)", d->name);
	else
		util_fmt(buf, len, "%s disks are probed only when named: --probe %s, --disk %s, or O",
			 disk_kind_name(d->kind), d->name, d->name);
}

int sampler_probe_add(struct sampler *s, const struct disk_info *d, char *err, size_t len)
{
	for (size_t i = 0; i < s->nasked; i++)
		if (strcmp(s->asked[i], d->name) == 0) { /* O again: the probe it added stops */
			memmove(s->asked[i], s->asked[i + 1], (s->nasked - i - 1) * sizeof s->asked[0]);
			s->nasked--;
			return 1;
		}
	if (sampleprobes_find(s, d->name)) {
		util_fmt(err, len, "%s is probed already (by --probe or by default: O stops only a probe O started)",
			 d->name);
		return -1;
	}
	if (d->sched.n == 0 || d->size_bytes == 0) {
		sampler_unprobed_why(s, d, err, len);
		return -1;
	}
	if (s->nasked == SAMPLER_ASKED_MAX) {
		util_fmt(err, len, "%d disks probed on request already", SAMPLER_ASKED_MAX);
		return -1;
	}
	util_strlcpy(s->asked[s->nasked++], d->name, sizeof s->asked[0]);
	return 0;
}

/* Why a disk has no probe, for the JSON and the screen. */
void sampleprobes_unprobed(const struct sampler *s, const struct disk_info *d, struct probe_status *st)
{
	memset(st, 0, sizeof *st);
	st->mode = PROBE_MODE_OFF;
	st->rate_hz = s->cfg.probe_rate_hz;
	sampler_unprobed_why(s, d, st->why, sizeof st->why);
}

int sampler_fresh_start(struct sampler *s, const char *disk, uint32_t reads, char *err, size_t len)
{
	if (s->fresh.started) {
		util_fmt(err, len, "a fresh reader is still running on %s", s->fresh_disk);
		return -1;
	}
	struct sampler_probe *sp = sampleprobes_find(s, disk);
	struct probe_status st = {0};
	if (sp && sp->p)
		probe_get_status(sp->p, util_mono_now(), &st);
	if (st.state != PROBE_RUNNING) {
		util_fmt(err, len, "%s has no running probe: a fresh reader reads what the probe reads", disk);
		return -1;
	}
	uint64_t seed = (uint64_t)getpid() ^ (uint64_t)(util_real_now() * 1e6);
	if (freshjob_start(&s->fresh, st.path, st.mode != PROBE_MODE_DEVICE, s->cfg.probe_size, reads, seed, err, len) < 0)
		return -1;
	util_strlcpy(s->fresh_disk, disk, sizeof s->fresh_disk);
	return 0;
}

/* A fresh reader's job that ended becomes an event (the chart marks it). */
void sampleprobes_poll_fresh(struct sampler *s)
{
	if (!s->fresh.started)
		return;
	double ms;
	char err[200] = "";
	uint32_t reads = s->fresh.reads;
	int rc = freshjob_poll(&s->fresh, &ms, err, sizeof err);
	if (rc == 0)
		return;
	struct event e = {.ts = util_real_now(), .mono = util_mono_now(), .ok = rc == 1, .ms = rc == 1 ? ms : 0};
	struct sampler_probe *sp = sampleprobes_find(s, s->fresh_disk);
	if (sp && rc == 1) {
		sp->fresh_mono[sp->nfresh % FRESH_KEPT] = e.mono;
		sp->fresh_ms[sp->nfresh % FRESH_KEPT] = ms;
		sp->nfresh++;
	}
	e.type = EV_FRESH;
	util_strlcpy(e.disk, s->fresh_disk, sizeof e.disk);
	util_fmt(e.to, sizeof e.to, "%u reads", reads);
	util_strlcpy(e.error, err, sizeof e.error);
	eventlog_add(&s->events, &e);
}

/* What the probe's reads waited behind, by kind, over (from, to]. */
void sampleprobes_behind_kinds(const struct sampler_probe *sp, double from, double to, struct blk_kind_bytes *kinds)
{
	*kinds = (struct blk_kind_bytes){0};
	for (size_t i = 0; i < sp->nbehind; i++)
		if (sp->behind[i].mono > from && sp->behind[i].mono <= to && sp->behind[i].e.kind < BLK_NKINDS)
			kinds->b[sp->behind[i].e.kind] += sp->behind[i].e.bytes;
}

/* A switch ended: the 10 whole seconds before it began are the before
 * window (fewer when the probe is younger, or when a slow switch pushed
 * some out of the probe's 16 s memory); the after window starts now. */
void sampleprobes_compare_before(const struct sampler *s, struct sampler_probe *sp, const struct event *e)
{
	struct hist *h = malloc(sizeof *h);
	if (!h)
		return;
	int64_t now_sec = (int64_t)floor(e->mono);
	int64_t end = (int64_t)floor(e->mono - e->ms / 1e3) - 1;
	int64_t lo = end - 9;
	if (lo < now_sec - LATWIN_SLOTS + 1)
		lo = now_sec - LATWIN_SLOTS + 1;
	if ((double)lo < ceil(sp->started))
		lo = (int64_t)ceil(sp->started);
	uint64_t flagged = probe_window(sp->p, end, 10, h);
	struct switch_compare *c = &sp->cmp;
	memset(c, 0, sizeof *c);
	summarize(h, flagged, &c->before);
	c->before_s = end >= lo ? (double)(end - lo + 1) : 0;
	int half = (int)(c->before_s / 2);
	if (half >= 2) {
		flagged = probe_window(sp->p, end - half, half, h);
		summarize(h, flagged, &c->half1);
		flagged = probe_window(sp->p, end, half, h);
		summarize(h, flagged, &c->half2);
		c->half_s = half;
	}
	double began = e->mono - e->ms / 1e3;
	c->fresh_before_n = fresh_in(sp, began - 10, began, &c->fresh_before_ms);
	sampleprobes_behind_kinds(sp, began - 10, began, &c->behind_before);
	c->state = 1;
	c->mono = e->mono;
	c->ts = e->ts;
	c->rate_hz = s->cfg.probe_rate_hz;
	util_strlcpy(c->from, e->from, sizeof c->from);
	util_strlcpy(c->to, e->to, sizeof c->to);
	free(h);
}

void sampler_hold_probe(struct sampler *s, const char *disk)
{
	util_strlcpy(s->held, disk ? disk : "", sizeof s->held);
}

void sampler_set_probe_rate(struct sampler *s, double hz)
{
	s->cfg.probe_rate_hz = hz;
	for (size_t i = 0; i < s->nprobes; i++)
		if (s->probes[i].p)
			probe_set_rate(s->probes[i].p, hz);
}
