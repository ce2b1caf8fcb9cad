/* detailunit: a unit's detail panel (detail.h): what its figures are,
 * per disk where the block layer says, where each came from and why any
 * is missing. */
#include "out/detail.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"

#define DISKS_MAX 16

static void size_of(double v, char *b, size_t n)
{
	if (v < 0)
		util_strlcpy(b, "-", n);
	else
		util_format_size(util_to_u64(v), b, n);
}

const struct cgroup_sample *detail_find_unit(const struct sample *s, const char *path)
{
	for (size_t i = 0; i < s->ncgroups; i++)
		if (strcmp(s->cgroups[i].path, path) == 0)
			return &s->cgroups[i];
	return NULL;
}

void detail_unit_weight_why(const struct sample *s, const struct cgroup_sample *c, char *buf, size_t len)
{
	const char *v1 = strstr(s->cgroups_why, "io.bfq.weight: ");
	if (c->bfq_weight >= 0)
		buf[0] = '\0';
	else if (!c->path[0])
		util_fmt(buf, len, "processes of no known cgroup have no io.bfq.weight");
	else if (strcmp(c->path, "/") == 0)
		util_fmt(buf, len, "the root cgroup has no io.bfq.weight");
	else if (v1)
		util_fmt(buf, len, "io.bfq.weight: %s", v1 + strlen("io.bfq.weight: "));
	else
		util_fmt(buf, len, "no io.bfq.weight: bfq is not the scheduler of its disks, or the io controller is "
				   "not in its parent's cgroup.subtree_control");
}

/* Whether process tgid is in the unit at path (a row of the sample). */
static int in_unit(const struct sample *s, int tgid, const char *path)
{
	for (size_t i = 0; s->have_procs && i < s->nprocs; i++)
		if (s->procs[i].pid == tgid && s->procs[i].cgroup && strcmp(s->procs[i].cgroup, path) == 0)
			return 1;
	return 0;
}

/* Its processes' block requests per disk and direction (BPF). */
static void add_disks(char *buf, size_t len, const struct sample *s, const struct cgroup_sample *c)
{
	struct per { const char *disk; double bytes[2]; } d[DISKS_MAX];
	size_t nd = 0;
	double dt = s->interval_s > 0 ? s->interval_s : 1;
	for (size_t i = 0; i < s->blk.nstats; i++) {
		const struct blk_stat *st = &s->blk.stats[i];
		if (!in_unit(s, st->tgid, c->path))
			continue;
		size_t k = 0;
		while (k < nd && strcmp(d[k].disk, st->disk) != 0)
			k++;
		if (k == nd && nd == DISKS_MAX)
			continue;
		if (k == nd)
			d[nd++] = (struct per){st->disk, {0, 0}};
		d[k].bytes[st->op == BLK_WRITE] += (double)st->bytes / dt;
	}
	detail_line(buf, len, "%s", "");
	detail_line(buf, len, "Per disk, the block requests its processes issued (BPF; their writeback is in TO-DISK/s):");
	if (!s->blk_on) {
		detail_line(buf, len, "  not known: block-layer figures are off (%s)", s->blk_why);
		return;
	}
	if (!nd)
		detail_line(buf, len, "%s", "  none in the interval");
	for (size_t k = 0; k < nd; k++) {
		char r[16], w[16];
		size_of(d[k].bytes[0], r, sizeof r);
		size_of(d[k].bytes[1], w, sizeof w);
		detail_line(buf, len, "  %-12s read %8s/s  write %8s/s", d[k].disk, r, w);
	}
}

/* The unit a process of the sample is in ("" not known). */
static const char *unit_of(const struct sample *s, int pid)
{
	for (size_t i = 0; s->have_procs && i < s->nprocs; i++) {
		const struct proc_row *r = &s->procs[i];
		if (r->pid != pid || !r->cgroup)
			continue;
		const struct cgroup_sample *c = detail_find_unit(s, r->cgroup);
		return c ? c->unit : r->cgroup;
	}
	return "";
}

/* What its reads waited behind, per disk (the BPF part watches the reads
 * of the unit whose details are open: sampler_watch_unit). */
static void add_behind(char *buf, size_t len, const struct sample *s, const struct cgroup_sample *c)
{
	const struct unit_behind *ub = &s->unit_behind;
	detail_line(buf, len, "%s", "");
	if (strcmp(ub->path, c->path) != 0) {
		detail_line(buf, len, "%s", "What its reads waited behind: from the next refresh");
		return;
	}
	detail_line(buf, len, "What its reads waited behind (BPF: what each disk served while one was in flight; "
			      "the last %.0f s):", ub->secs);
	if (ub->why[0]) {
		detail_line(buf, len, "  %s", ub->why);
		return;
	}
	if (!ub->ndisks)
		detail_line(buf, len, "%s", "  nothing: no read of its waited behind another request");
	for (int k = 0; k < ub->ndisks; k++) {
		const struct unit_behind_disk *d = &ub->disks[k];
		char sz[16], comm[64], unit[160];
		util_format_size(d->total, sz, sizeof sz);
		detail_line(buf, len, "  %s, %s in all:", d->disk, sz);
		for (int i = 0; i < d->ntop && i < PROBE_AHEAD_MAX; i++) {
			const struct probe_ahead *a = &d->top[i];
			util_safe_text(comm, sizeof comm, a->comm);
			util_safe_text(unit, sizeof unit, unit_of(s, a->pid));
			util_format_size(a->bytes, sz, sizeof sz);
			detail_line(buf, len, "    %3.0f%% %-9s %8s  %s (%d)%s%s", a->share * 100, blk_kind_name(a->kind), sz,
				    comm, a->pid, unit[0] ? " in " : "", unit);
		}
	}
}

/* io.max or io.latency, where the cgroup has the file. */
static void add_limits(char *buf, size_t len, const char *file, int have, const char *text)
{
	char t[CGROUP_LIMITS_MAX];
	if (!have)
		return;
	util_safe_text(t, sizeof t, text);
	detail_line(buf, len, "%s: %s", file, t[0] ? t : "no limit");
}

/* Its own files: io.pressure, io.stat, the weights; what is missing, why. */
static void add_files(char *buf, size_t len, const struct sample *s, const struct cgroup_sample *c)
{
	if (c->have_psi && c->some_pct >= 0)
		detail_line(buf, len, "io.pressure: some %.1f%%, full %.1f%% (avg10); of this interval %.1f%%, %.1f%%",
		    c->some_avg10, c->full_avg10, c->some_pct, c->full_pct);
	else if (c->have_psi)
		detail_line(buf, len, "io.pressure: some %.1f%%, full %.1f%% (avg10)", c->some_avg10, c->full_avg10);
	else
		detail_line(buf, len, "%s", "io.pressure: not read");
	char a[16], b[16], why[200];
	if (c->have_stat && c->stat_read_Bps >= 0) {
		size_of(c->stat_read_Bps, a, sizeof a);
		size_of(c->stat_write_Bps, b, sizeof b);
		detail_line(buf, len, "io.stat (whole physical disks): read %s/s, write %s/s (the rows above: from its processes)", a,
		    b);
	} else if (!c->have_stat) {
		const char *v = strstr(c->source, "io.stat");
		detail_line(buf, len, "io.stat: %s", v && strchr(v, ':') ? strchr(v, ':') + 2 : "not read");
	}
	detail_unit_weight_why(s, c, why, sizeof why);
	if (c->bfq_weight >= 0)
		detail_line(buf, len, "io.bfq.weight: %d (w changes it)", c->bfq_weight);
	else
		detail_line(buf, len, "%s", why);
	if (c->io_weight >= 0)
		detail_line(buf, len, "io.weight: %d", c->io_weight);
	add_limits(buf, len, "io.max", c->have_io_max, c->io_max);
	add_limits(buf, len, "io.latency", c->have_io_latency, c->io_latency);
}

void detail_unit(const struct sample *s, const char *path, const char *unit, char *buf, size_t len)
{
	buf[0] = '\0';
	const struct cgroup_sample *c = detail_find_unit(s, path);
	char name[160], where[CGROUP_PATH_MAX + 16];
	util_safe_text(name, sizeof name, c ? c->unit : unit);
	util_safe_text(where, sizeof where, path[0] ? path : "(not known)");
	detail_line(buf, len, "%s: the cgroup %s over the last %.1f s", name, where, s->interval_s);
	if (!c) {
		detail_line(buf, len, "%s", "(not among the busiest units in this interval, or gone)");
		return;
	}
	char r[16], w[16], d[16];
	size_of(c->read_Bps, r, sizeof r);
	size_of(c->write_Bps, w, sizeof w);
	size_of(c->to_disk_Bps, d, sizeof d);
	util_safe_text(where, sizeof where, c->parent[0] ? c->parent : "-");
	detail_line(buf, len, "slice: %s; %d process%s", where, c->procs, c->procs == 1 ? "" : "es");
	detail_line(buf, len, "its processes: read %s/s, write %s/s (dirtied); to disk %s/s (its writeback too)", r, w, d);
	if (c->io_wait_pct >= 0)
		detail_line(buf, len, "their I/O wait (delay accounting, summed): %.0f%% (100%% = one process waiting all the time)",
			    c->io_wait_pct);
	else
		detail_line(buf, len, "%s", "their I/O wait: not known (kernel.task_delayacct is off, or was turned on after they started)");
	if (c->throttled_pct > 0)
		detail_line(buf, len, "their pauses for dirty pages (THROTTLED, summed): %.0f%% (writing faster than the "
			    "disks take it)", c->throttled_pct);
	add_files(buf, len, s, c);
	add_disks(buf, len, s, c);
	add_behind(buf, len, s, c);
	detail_line(buf, len, "%s", "");
	char src[CGROUP_SOURCE_MAX * 4];
	util_safe_text(src, sizeof src, c->source);
	detail_line(buf, len, "%s", "Sources:");
	for (char *p = src, *end; p && *p; p = end ? end + 2 : NULL) { /* one a line */
		end = strstr(p, "; ");
		if (end)
			*end = '\0';
		detail_line(buf, len, "  %s", p);
	}
}
