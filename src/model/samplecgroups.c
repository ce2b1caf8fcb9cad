/* samplecgroups: the interval's figures per cgroup v2 (sampleparts.h).
 * The bytes come from the process rows, each of which knows its cgroup
 * (procs.h): what /proc/PID/io counted, and TO-DISK, the writes that
 * reached the disks for each dirtier (BPF), charged to the dirtier's
 * cgroup, after it ended too. The cgroup's own files add what the rows
 * cannot say: io.pressure (every v2 cgroup has one), and where the io
 * controller is on v2 (not on hybrid machines, where it is bound to v1's
 * blkio), io.stat (whole disks only, so a byte written through dm or a
 * loop device is counted once, as atop does), io.weight and
 * io.bfq.weight. Only the busiest SAMPLE_CGROUPS_MAX are read: a
 * container host has thousands of cgroups. None of it runs unless an
 * output writes cgroups or the full screen's units pane is open
 * (sampler_reads_cgroups): at 10,000 tasks, reading every new task's
 * /proc/PID/cgroup and summing the rows cost the full screen 5-12 % more
 * CPU for a pane nobody had opened. */
#include "sampleparts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/cgroup.h"

/* One cgroup while the rows are summed. */
struct group {
	const char *path;   /* a row's (NULL: not known) */
	size_t hash;
	int procs;
	double read_Bps, write_Bps, to_disk_Bps;
	int to_disk_known;
	double wait_pct;    /* its processes' block I/O wait, summed */
	int wait_known;     /* a row had delay accounting's figure */
	double throttled_pct; /* its processes' pauses for dirty pages, summed */
	int throttled_known;  /* a row had the BPF part's figure */
	unsigned srcs;      /* 1 << enum proc_cgsrc of the rows that gave bytes */
};

struct groups {
	struct group *v;
	size_t n, cap;
	size_t *slots;      /* index + 1 into v; open addressing, a power of two */
	size_t nslots;
};

static int same_path(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static int rehash(struct groups *g)
{
	size_t ns = g->nslots ? g->nslots * 2 : 64;
	size_t *slots = calloc(ns, sizeof *slots);
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < g->n; i++) {
		size_t k = g->v[i].hash & (ns - 1);
		while (slots[k])
			k = (k + 1) & (ns - 1);
		slots[k] = i + 1;
	}
	free(g->slots);
	g->slots = slots;
	g->nslots = ns;
	return 0;
}

/* The group of path, made the first time; NULL: out of memory. */
static struct group *group_of(struct groups *g, const char *path)
{
	if ((g->n + 1) * 2 > g->nslots && rehash(g) < 0)
		return NULL;
	size_t h = (size_t)util_hash_text(path), k = h & (g->nslots - 1);
	for (; g->slots[k]; k = (k + 1) & (g->nslots - 1))
		if (g->v[g->slots[k] - 1].hash == h && same_path(g->v[g->slots[k] - 1].path, path))
			return &g->v[g->slots[k] - 1];
	if (util_grow((void **)&g->v, &g->cap, g->n + 1, sizeof *g->v) < 0)
		return NULL;
	g->slots[k] = g->n + 1;
	g->v[g->n] = (struct group){.path = path, .hash = h};
	return &g->v[g->n++];
}

/* Row r into its group: a live process counts as one of its processes
 * (thread rows: the main thread's); its bytes count in the interval it
 * moved them, an ended one's only in the interval its row is of. */
static void add_row(struct groups *g, struct group **last, const struct proc_row *r)
{
	int counts = !r->exited || !r->ended_ago;
	int live = !r->exited && r->tid == r->pid;
	double to_disk = r->to_disk_Bps > 0 ? r->to_disk_Bps : 0;
	if (!live && (!counts || (r->read_Bps <= 0 && r->write_Bps <= 0 && to_disk <= 0)))
		return;
	struct group *x = *last && (*last)->path == r->cgroup ? *last : group_of(g, r->cgroup);
	if (!x)
		return;
	*last = x;
	x->procs += live;
	if (!counts)
		return;
	x->read_Bps += r->read_Bps > 0 ? r->read_Bps : 0;
	x->write_Bps += r->write_Bps > 0 ? r->write_Bps : 0;
	x->to_disk_Bps += to_disk;
	x->to_disk_known |= r->to_disk_Bps >= 0;
	if (r->wait == WAIT_OK)
		x->wait_pct += r->io_wait_pct;
	x->wait_known |= r->wait == WAIT_OK || r->wait == WAIT_NONE || r->wait == WAIT_NA;
	x->throttled_pct += r->throttled_pct > 0 ? r->throttled_pct : 0;
	x->throttled_known |= r->throttled_pct >= 0;
	if (r->read_Bps > 0 || r->write_Bps > 0 || to_disk > 0)
		x->srcs |= 1u << r->cgroup_src;
}

static double bytes_of(const struct group *x)
{
	return x->read_Bps + (x->to_disk_Bps > x->write_Bps ? x->to_disk_Bps : x->write_Bps);
}

/* The busiest first: by bytes, then processes, then path (a stable order). */
static int busiest_first(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	double bx = bytes_of(x), by = bytes_of(y);
	if (bx != by)
		return bx < by ? 1 : -1;
	if (x->procs != y->procs)
		return y->procs - x->procs;
	return strcmp(x->path ? x->path : "", y->path ? y->path : "");
}

/* What the rows say of where their cgroups came from. */
static void rows_source(unsigned srcs, int to_disk_known, int wait_known, char *buf, size_t len)
{
	util_fmt(buf, len, "bytes: /proc/PID/io of its processes; to_disk: %s; io_wait: %s",
		 to_disk_known ? "the block layer (BPF), charged to the dirtier's cgroup" : "not known (no BPF)",
		 wait_known ? "delay accounting of its processes (taskstats)"
			    : "not known (delay accounting is off, or was turned on after its processes started)");
	if (srcs & (1u << CGSRC_LAST))
		util_fmt(buf + strlen(buf), len - strlen(buf), "; ended processes: the cgroup they were last seen in");
	if (srcs & (1u << CGSRC_PARENT))
		util_fmt(buf + strlen(buf), len - strlen(buf), "; processes that ended unseen: their parent's cgroup");
	if (srcs & (1u << CGSRC_DIRTIER))
		util_fmt(buf + strlen(buf), len - strlen(buf),
			 "; ended writers: the cgroup they dirtied the pages in (BPF)");
	if (srcs & (1u << CGSRC_ISSUER))
		util_fmt(buf + strlen(buf), len - strlen(buf),
			 "; processes that ended unseen: the cgroup they issued block requests from (BPF)");
}

static void fill_one(const struct group *x, struct cgroup_sample *c)
{
	memset(c, 0, sizeof *c);
	util_strlcpy(c->path, x->path ? x->path : "", sizeof c->path);
	if (x->path) {
		cgroup_unit_name(x->path, c->unit, sizeof c->unit);
		cgroup_parent(x->path, c->parent, sizeof c->parent);
	} else {
		util_strlcpy(c->unit, "?", sizeof c->unit);
	}
	c->procs = x->procs;
	c->read_Bps = x->read_Bps;
	c->write_Bps = x->write_Bps;
	c->to_disk_Bps = x->to_disk_known ? x->to_disk_Bps : -1;
	c->io_wait_pct = x->wait_known ? x->wait_pct : -1;
	c->throttled_pct = x->throttled_known ? x->throttled_pct : -1;
	c->some_pct = c->full_pct = c->stat_read_Bps = c->stat_write_Bps = -1;
	c->bfq_weight = c->io_weight = -1;
	if (x->path)
		rows_source(x->srcs, x->to_disk_known, x->wait_known, c->source, sizeof c->source);
	else
		util_fmt(c->source, sizeof c->source,
			 "processes whose cgroup is not known (they ended before any reading saw them, "
			 "or /proc/PID/cgroup could not be read)");
}

size_t samplecgroups_aggregate(const struct proc_row *rows, size_t n, struct cgroup_sample *out, size_t max,
			       struct cgroup_rest *rest)
{
	struct groups g = {0};
	struct group *last = NULL;
	for (size_t i = 0; i < n; i++)
		add_row(&g, &last, &rows[i]);
	if (g.n)
		qsort(g.v, g.n, sizeof *g.v, busiest_first);
	size_t kept = g.n < max ? g.n : max;
	for (size_t i = 0; i < kept; i++)
		fill_one(&g.v[i], &out[i]);
	*rest = (struct cgroup_rest){0};
	for (size_t i = kept; i < g.n; i++) {
		rest->n++;
		rest->read_Bps += g.v[i].read_Bps;
		rest->write_Bps += g.v[i].write_Bps;
		rest->to_disk_Bps += g.v[i].to_disk_Bps;
	}
	free(g.v);
	free(g.slots);
	return kept;
}

void samplecgroups_fill(struct sampler *s, struct sample *out)
{
	out->ncgroups = 0;
	out->cgroups_rest = (struct cgroup_rest){0};
	out->cgroups_why[0] = '\0';
	if (!out->have_procs) {
		util_strlcpy(out->cgroups_why, "no cgroups: processes are not read (--procs 0)", sizeof out->cgroups_why);
		return;
	}
	if (!sampler_reads_cgroups(s)) {
		util_strlcpy(out->cgroups_why, "cgroups are read only while shown or written", sizeof out->cgroups_why);
		return;
	}
	if (util_grow((void **)&out->cgroups, &out->cgroups_cap, SAMPLE_CGROUPS_MAX, sizeof *out->cgroups) < 0)
		return;
	out->ncgroups = samplecgroups_aggregate(out->procs, out->nprocs, out->cgroups, SAMPLE_CGROUPS_MAX,
						&out->cgroups_rest);
	samplecgfiles_read(s, out);
}

int sampler_reads_cgroups(const struct sampler *s)
{
	return s->cfg.cgroups || s->show_cgroups;
}

void sampler_show_cgroups(struct sampler *s, struct sample *out, int on)
{
	int was = sampler_reads_cgroups(s);
	s->show_cgroups = on;
	if (!s->procs || s->replay || !out->have_procs || was || !on)
		return;
	procs_use_cgroups(s->procs, 1);
	for (size_t i = 0; i < out->nprocs; i++)
		procs_cgroup_now(s->procs, &out->procs[i]);
	samplecgroups_fill(s, out);
}
