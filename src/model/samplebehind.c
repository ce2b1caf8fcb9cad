/* samplebehind: what the probe's reads waited behind: each probed disk's
 * window of block requests, the slowest reads and their company, by kind
 * (sampleparts.h); and the same for the reads of the unit whose details
 * are open (sampler_watch_unit, sample.h). */
#include "model/sample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sampleparts.h"
#include "base/util.h"
#include "read/cgroup.h"


/* The probe's readers, watched by the BPF part (what their reads wait
 * behind is counted). */
static void watch_readers(struct sampler *s, double now)
{
	int pids[SAMPLER_WATCH_MAX];
	size_t n = 0;
	for (size_t i = 0; i < s->nprobes && n < SAMPLER_WATCH_MAX; i++) {
		struct probe_status st;
		if (!s->probes[i].p)
			continue;
		probe_get_status(s->probes[i].p, util_mono_now(), &st);
		if (st.reader_pid <= 0)
			continue;
		pids[n++] = st.reader_pid;
		if (s->probes[i].watched_since == 0)
			s->probes[i].watched_since = now; /* watched from this refresh on */
	}
	blklat_watch(s->blk, pids, n);
}

/* A 10 s window of what reads waited behind, per interval: entries older
 * than 10 s dropped, this interval's (ne of e; those of disk only, unless
 * NULL) added. */
static void window_add(struct behind_tick **w, size_t *n, size_t *cap, const struct blk_behind *e, size_t ne,
		       const char *disk, double now)
{
	size_t k = 0;
	for (size_t i = 0; i < *n; i++)
		if ((*w)[i].mono > now - 10.0)
			(*w)[k++] = (*w)[i];
	*n = k;
	for (size_t i = 0; i < ne; i++)
		if ((!disk || strcmp(e[i].disk, disk) == 0) && util_grow((void **)w, cap, *n + 1, sizeof **w) == 0)
			(*w)[(*n)++] = (struct behind_tick){.mono = now, .e = e[i]};
}

/* A process's name as the sample has it, else as the BPF part noted it. */
static void name_of(struct sampler *s, const struct sample *out, int pid, char *comm, size_t len)
{
	for (size_t i = 0; i < out->nprocs; i++)
		if (out->procs[i].pid == pid) {
			util_strlcpy(comm, out->procs[i].comm, len);
			return;
		}
	if (blklat_name(s->blk, pid, 0, comm, len, NULL) < 0)
		util_fmt(comm, len, "pid %d", pid);
}

/* A window of what reads waited behind: its entries, and the disk they
 * are counted for (NULL: every entry is the disk's). */
struct window {
	const struct behind_tick *t;
	size_t n;
	const char *disk;
};

/* The window's entries of intervals that ended in (from, to], summed by
 * owner and kind: the largest max of them into top, largest first, with
 * their shares of the total. Returns how many; *total gets the sum. */
static int behind_top(struct sampler *s, const struct sample *out, struct window w, double from, double to,
		      struct probe_ahead *top, int max, uint64_t *total)
{
	struct probe_ahead all[64];
	size_t n = 0;
	int got = 0;
	*total = 0;
	for (size_t i = 0; i < w.n; i++) {
		const struct blk_behind *e = &w.t[i].e;
		if (!(w.t[i].mono > from && w.t[i].mono <= to) || (w.disk && strcmp(e->disk, w.disk) != 0))
			continue;
		size_t k = 0;
		while (k < n && !(all[k].pid == e->tgid && all[k].kind == e->kind))
			k++;
		if (k == n && n < sizeof all / sizeof all[0])
			all[n++] = (struct probe_ahead){.pid = e->tgid, .kind = e->kind};
		if (k < n)
			all[k].bytes += e->bytes;
		*total += e->bytes;
	}
	while (got < max && *total) {
		size_t best = n;
		for (size_t k = 0; k < n; k++)
			if (all[k].bytes && (best == n || all[k].bytes > all[best].bytes))
				best = k;
		if (best == n)
			break;
		struct probe_ahead *a = &top[got++];
		*a = all[best];
		a->share = (double)a->bytes / (double)*total;
		name_of(s, out, a->pid, a->comm, sizeof a->comm);
		all[best].bytes = 0;
	}
	return got;
}

/* Whether second sec is part of a read already listed (a read that spans
 * seconds is the slowest of each of them). */
static int listed(const struct latwin_point *const *chosen, int n, const struct latwin_point *p)
{
	for (int i = 0; i < n; i++)
		if (chosen[i]->max_ns == p->max_ns && llabs(chosen[i]->sec - p->sec) <= (long long)(p->max_ns / 1000000000u) + 1)
			return 1;
	return 0;
}

/* The slowest reads of the last 10 s (d->chart's seconds) since the
 * probe's reader is watched, each with what the disk served most in the
 * intervals that overlap its second (a second before the watch began has
 * no such figure: it is left out, not shown as "nothing"). */
static void slowest_of(struct sampler *s, const struct sample *out, const struct sampler_probe *sp, double now,
		       struct disk_sample *d)
{
	struct probe_slow *sl = &d->slow;
	double ts0 = out->ts - now; /* unix seconds = mono + ts0 */
	int64_t from = (int64_t)floor(now) - 9;
	if (from < (int64_t)ceil(sp->watched_since))
		from = (int64_t)ceil(sp->watched_since);
	const struct latwin_point *chosen[PROBE_SLOWEST_MAX];
	sl->nslowest = 0;
	while (sl->nslowest < PROBE_SLOWEST_MAX) {
		const struct latwin_point *best = NULL;
		for (int i = 0; i < CHART_SECONDS; i++) {
			const struct latwin_point *p = &d->chart[i];
			if (p->n == 0 || p->sec < from || (double)p->max_ns < PROBE_SLOW_US * 1e3 ||
			    listed(chosen, sl->nslowest, p))
				continue;
			if (!best || p->max_ns > best->max_ns)
				best = p;
		}
		if (!best)
			break;
		chosen[sl->nslowest] = best;
		struct probe_slowest *w = &sl->slowest[sl->nslowest++];
		*w = (struct probe_slowest){.ts = (double)best->sec + ts0, .us = (double)best->max_ns / 1e3};
		uint64_t total;
		double iv = out->interval_s > 0 ? out->interval_s : 1;
		behind_top(s, out, (struct window){sp->behind, sp->nbehind, NULL}, (double)best->sec,
			   (double)best->sec + 1 + iv, &w->top, 1, &total);
	}
}

/* --- the watched unit's reads ------------------------------------------- */

void sampler_watch_unit(struct sampler *s, const char *path)
{
	struct sampler_unit *u = &s->unit;
	if (strcmp(u->path, path) == 0)
		return;
	util_strlcpy(u->path, path, sizeof u->path);
	u->n = 0;
	u->id = 0;
	u->since = util_mono_now();
	u->why[0] = '\0';
	/* The BPF part is told at the next tick, after that tick's reading
	 * (the last unit's), and the reads of the last unit still in flight
	 * then are counted as they complete, in the reading after: two
	 * readings that are not this unit's. */
	u->skip = 2;
	char mount[1024];
	if (path[0] && cgroup_v2_mount(mount, sizeof mount) == 0 && cgroup_id_of(mount, path, &u->id) < 0)
		util_fmt(u->why, sizeof u->why, "the cgroup is gone");
}

/* The unit's figures per disk (the disks in its window, first seen first). */
static void unit_fill(struct sampler *s, struct sample *out, double now)
{
	struct sampler_unit *u = &s->unit;
	struct unit_behind *ub = &out->unit_behind;
	*ub = (struct unit_behind){0};
	if (s->blk) /* every tick: the BPF part may have loaded after the watch began (a store, no system call) */
		blklat_watch_cgroup(s->blk, u->id);
	util_strlcpy(ub->path, u->path, sizeof ub->path);
	if (!u->path[0])
		return;
	ub->secs = now - u->since < 10.0 ? now - u->since : 10.0;
	if (!s->blk || !out->blk_on) {
		util_fmt(ub->why, sizeof ub->why, "not known: block-layer figures are off (%s)", out->blk_why);
		return;
	}
	util_strlcpy(ub->why, u->why, sizeof ub->why);
	if (u->skip > 0)
		u->skip--;
	else
		window_add(&u->w, &u->n, &u->cap, out->blk.unit_behind, out->blk.nunit_behind, NULL, now);
	for (size_t i = 0; i < u->n && ub->ndisks < UNIT_BEHIND_DISKS; i++) {
		int k = 0;
		while (k < ub->ndisks && strcmp(ub->disks[k].disk, u->w[i].e.disk) != 0)
			k++;
		if (k < ub->ndisks)
			continue;
		struct unit_behind_disk *d = &ub->disks[ub->ndisks++];
		util_strlcpy(d->disk, u->w[i].e.disk, sizeof d->disk);
		d->ntop = behind_top(s, out, (struct window){u->w, u->n, d->disk}, -INFINITY, INFINITY, d->top,
				     PROBE_AHEAD_MAX, &d->total);
	}
}

void samplebehind_fill(struct sampler *s, struct sample *out, double now)
{
	unit_fill(s, out, now);
	if (!s->blk || !out->blk_on)
		return;
	watch_readers(s, now);
	for (size_t i = 0; i < out->ndisks; i++) {
		struct sampler_probe *sp = sampleprobes_find(s, out->disks[i].info.name);
		struct disk_sample *d = &out->disks[i];
		if (!sp)
			continue;
		window_add(&sp->behind, &sp->nbehind, &sp->behind_cap, out->blk.behind, out->blk.nbehind, sp->disk, now);
		d->slow.n = behind_top(s, out, (struct window){sp->behind, sp->nbehind, NULL}, -INFINITY, INFINITY,
				       d->slow.ahead, PROBE_AHEAD_MAX, &d->slow.total);
		slowest_of(s, out, sp, now, d);
		/* the after window's part, while its intervals are all kept */
		if (sp->cmp.state >= 1 && now <= sp->cmp.mono + 10.0 + out->interval_s) {
			sampleprobes_behind_kinds(sp, sp->cmp.mono, sp->cmp.mono + 10.0, &sp->cmp.behind_after);
			d->cmp.behind_after = sp->cmp.behind_after;
		}
	}
}

