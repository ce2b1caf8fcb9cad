/* promcgroups: the cgroups' counters of --prometheus-textfile (prom.h):
 * bytes read, written and written to disks, and seconds stalled on I/O,
 * per cgroup for the PROM_CGROUPS busiest of the last minutes, the rest
 * as cgroup="other". Every counter only grows: the interval's figures go
 * to the series the cgroup has while they are counted, "other"'s while it
 * has none, and a cgroup that leaves the top keeps its value. */
#include "out/prom.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* The entry of label text key, made while there is room (then one that
 * never had a series makes room: the least recent); NULL when none can. */
static struct prom_cgroup *cgroup_of(struct prom_state *st, const char *key)
{
	for (size_t i = 0; i < st->ncgs; i++)
		if (strcmp(st->cgs[i].path, key) == 0)
			return &st->cgs[i];
	struct prom_cgroup *c = NULL;
	if (st->ncgs < PROM_CGROUPS_KEPT) {
		if (util_grow((void **)&st->cgs, &st->cgs_cap, st->ncgs + 1, sizeof *st->cgs) == 0)
			c = &st->cgs[st->ncgs++];
	} else {
		c = prom_weakest(st->cgs, st->ncgs, sizeof *st->cgs);
		for (int k = 0; c && k < PCG_N; k++) /* its interval so far: "other"'s */
			st->cg_other[k] += c->now[k];
	}
	if (c) {
		memset(c, 0, sizeof *c);
		util_strlcpy(c->path, key, sizeof c->path);
	}
	return c;
}

/* c's label: its path, relative to the v2 root; the tool's own buckets
 * are "unknown" (rows whose cgroup is not known) and "other" (the rest),
 * so a top-level cgroup of either name is labelled by its absolute path
 * ("/other"): its bytes no longer merge into the bucket's series. */
static void label_of(const struct cgroup_sample *c, char *key, size_t len)
{
	if (!c->path[0])
		util_strlcpy(key, "unknown", len);
	else if (!strcmp(c->path, "other") || !strcmp(c->path, "unknown"))
		util_fmt(key, len, "/%s", c->path);
	else
		util_safe_text(key, len, c->path);
}

/* One cgroup of the sample: its interval's figures into its entry. */
static void count_one(struct prom_state *st, const struct cgroup_sample *c, double dt, double walk_s)
{
	char key[sizeof st->cgs[0].path];
	label_of(c, key, sizeof key);
	/* (/proc's figures are rates over the time between walks) */
	double v[PCG_N] = {c->read_Bps * walk_s, c->write_Bps * walk_s, c->to_disk_Bps > 0 ? c->to_disk_Bps * dt : 0,
			   c->have_psi && c->some_pct > 0 ? c->some_pct / 100 * dt : 0,
			   c->have_psi && c->full_pct > 0 ? c->full_pct / 100 * dt : 0,
			   c->throttled_pct > 0 ? c->throttled_pct / 100 * dt : 0};
	struct prom_cgroup *e = cgroup_of(st, key);
	for (int k = 0; k < PCG_N; k++) {
		if (!(v[k] > 0))
			continue;
		if (e)
			e->now[k] += v[k];
		else
			st->cg_other[k] += v[k];
	}
	if (e)
		e->sr.recent += v[PCG_READ] + (v[PCG_TO_DISK] > v[PCG_WRITE] ? v[PCG_TO_DISK] : v[PCG_WRITE]);
}

void prom_count_cgroups(struct prom_state *st, const struct sample *s)
{
	if (!s->ncgroups || !(s->interval_s > 0))
		return;
	st->have_cgroups = 1;
	double dt = s->interval_s, decay = exp(-dt / PROM_RECENT_S);
	for (size_t i = 0; i < st->ncgs; i++)
		st->cgs[i].sr.recent *= decay;
	for (size_t i = 0; i < s->ncgroups; i++) {
		st->cg_to_disk |= s->cgroups[i].to_disk_Bps >= 0;
		st->cg_throttled |= s->cgroups[i].throttled_pct >= 0;
		count_one(st, &s->cgroups[i], dt, s->pstat.walk_s > 0 ? s->pstat.walk_s : dt);
	}
	/* the cgroups the sample left out */
	double walk_s = s->pstat.walk_s > 0 ? s->pstat.walk_s : dt;
	st->cg_other[PCG_READ] += s->cgroups_rest.read_Bps * walk_s;
	st->cg_other[PCG_WRITE] += s->cgroups_rest.write_Bps * walk_s;
	st->cg_other[PCG_TO_DISK] += s->cgroups_rest.to_disk_Bps * dt;
	prom_elect(st->cgs, st->ncgs, sizeof *st->cgs, PROM_CGROUPS);
	for (size_t i = 0; i < st->ncgs; i++) {
		struct prom_cgroup *c = &st->cgs[i];
		for (int k = 0; k < PCG_N; k++) {
			if (c->sr.named)
				c->v[k] += c->now[k];
			else
				st->cg_other[k] += c->now[k];
			c->now[k] = 0;
		}
	}
}

static void series(FILE *f, const char *name, const char *key, const char *extra, double v)
{
	fprintf(f, "%s{cgroup=\"", name);
	prom_label(f, key);
	fprintf(f, "\"%s} %.*f\n", extra, v == floor(v) ? 0 : 6, v);
}

/* One metric: a series per named cgroup, and "other". */
static void metric(FILE *f, const struct prom_state *st, const char *name, int k, const char *extra)
{
	for (size_t i = 0; i < st->ncgs; i++)
		if (st->cgs[i].sr.named)
			series(f, name, st->cgs[i].path, extra, st->cgs[i].v[k]);
	series(f, name, "other", extra, st->cg_other[k]);
}

void prom_format_cgroups(FILE *f, const struct prom_state *st)
{
	if (!st->have_cgroups)
		return;
	static const struct {
		const char *name, *help;
		int k;
	} m[] = {
		{"iosched_cgroup_read_bytes_total", "Bytes read by the processes of each cgroup v2 since the tool started "
		 "(/proc/PID/io); the 16 cgroups of the most bytes lately, the rest as \"other\".", PCG_READ},
		{"iosched_cgroup_write_bytes_total", "Bytes written by the processes of each cgroup v2 since the tool "
		 "started (/proc/PID/io: when pages are dirtied); the 16 cgroups of the most bytes lately, the rest as "
		 "\"other\".", PCG_WRITE},
		{"iosched_cgroup_to_disk_bytes_total", "Bytes written to disks for the processes of each cgroup v2 since "
		 "the tool started: their own writes and the writeback of pages they dirtied (BPF).", PCG_TO_DISK},
		{"iosched_cgroup_throttled_seconds_total", "Seconds the processes of each cgroup v2 were paused for "
		 "dirty pages since the tool started, summed over them: they wrote faster than the disks take it "
		 "(BPF).", PCG_THROTTLED},
	};
	for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
		if ((m[i].k == PCG_TO_DISK && !st->cg_to_disk) || (m[i].k == PCG_THROTTLED && !st->cg_throttled))
			continue;
		fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", m[i].name, m[i].help, m[i].name);
		metric(f, st, m[i].name, m[i].k, "");
	}
	const char *p = "iosched_cgroup_io_pressure_seconds_total";
	fprintf(f, "# HELP %s Seconds the tasks of each cgroup v2 were stalled on I/O since the tool started, from its "
		   "io.pressure: some (at least one task) and full (all of them).\n# TYPE %s counter\n", p, p);
	metric(f, st, p, PCG_SOME, ",kind=\"some\"");
	metric(f, st, p, PCG_FULL, ",kind=\"full\"");
}

void prom_free_cgroups(struct prom_state *st)
{
	free(st->cgs);
	st->cgs = NULL;
	st->ncgs = st->cgs_cap = 0;
}
