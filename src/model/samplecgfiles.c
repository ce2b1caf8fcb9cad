/* samplecgfiles: what a cgroup's own files say (sampleparts.h), for the
 * cgroups of a sample's list: io.pressure (avg10, and the share of the
 * interval from total='s delta), io.stat's bytes per second over whole
 * physical disks, io.weight and io.bfq.weight, io.max and io.latency; and, once per run, where
 * the v2 hierarchy is and whether the io controller is on it (on hybrid
 * machines it is bound to v1's blkio: then no io.stat nor weights, and
 * every cgroup says why). The earlier readings are kept for the deltas. */
#include "sampleparts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/cgroup.h"

/* Earlier readings kept: the list's cgroups and those lately in it. */
#define PREV_MAX 128
#define DEVS_MAX 64

struct cg_prev {
	char path[CGROUP_PATH_MAX];
	double mono;
	int have_psi, have_stat;
	uint64_t some_us, full_us, rbytes, wbytes;
};

struct samplecg {
	int tried;
	int have_v2;
	char mount[1024];
	int io_on_v2;
	char why[160];             /* what this machine lacks, or "" */
	char stat_why[160];        /* why no cgroup has io.stat, or "" */
	struct cg_prev *prev, *next;
	size_t nprev, nnext;
	struct dev_take { unsigned major, minor; int take; } devs[DEVS_MAX];
	size_t ndevs;
};

/* Once a run: the v2 mount and what it offers. */
static void probe_machine(struct samplecg *g)
{
	char text[2048];
	g->tried = 1;
	if (cgroup_v2_mount(g->mount, sizeof g->mount) < 0) {
		util_fmt(g->why, sizeof g->why, "no cgroup v2 hierarchy is mounted: no cgroups");
		return;
	}
	g->have_v2 = 1;
	char path[1100];
	util_fmt(path, sizeof path, "%s/cgroup.controllers", g->mount);
	g->io_on_v2 = util_read_text(path, text, sizeof text) >= 0 && cgroup_has_controller(text, "io");
	if (g->io_on_v2)
		return;
	int v1 = util_read_text("/proc/cgroups", text, sizeof text) >= 0 && cgroup_parse_v1_bound(text, "blkio");
	util_fmt(g->stat_why, sizeof g->stat_why, "%s",
		 v1 ? "the io controller is bound to cgroup v1 on this machine"
		    : "the io controller is not available on cgroup v2 here");
	util_fmt(g->why, sizeof g->why, "io.stat, io.weight, io.bfq.weight: %s", g->stat_why);
}

/* Whether directory path has no entries (or cannot be read). */
static int dir_empty(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return 1;
	const struct dirent *e;
	int empty = 1;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

/* io.stat's lines counted: whole physical disks (not a partition, not a
 * device stacked on others, as dm and md are, not a loop device), so a
 * byte is counted once. */
static int whole_disk(unsigned major, unsigned minor, void *ctx)
{
	struct samplecg *g = ctx;
	for (size_t i = 0; i < g->ndevs; i++)
		if (g->devs[i].major == major && g->devs[i].minor == minor)
			return g->devs[i].take;
	char p[96];
	struct stat st;
	int take = major != 7;
	util_fmt(p, sizeof p, "/sys/dev/block/%u:%u/partition", major, minor);
	take = take && stat(p, &st) != 0;
	util_fmt(p, sizeof p, "/sys/dev/block/%u:%u/slaves", major, minor);
	take = take && dir_empty(p);
	if (g->ndevs < DEVS_MAX)
		g->devs[g->ndevs++] = (struct dev_take){major, minor, take};
	return take;
}

static const struct cg_prev *find(const struct cg_prev *a, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(a[i].path, path) == 0)
			return &a[i];
	return NULL;
}

static double share_pct(uint64_t now, uint64_t before, double dt)
{
	return now >= before && dt > 0 ? (double)(now - before) / (dt * 1e6) * 100.0 : -1;
}

/* io.pressure, and its share of the interval against old. */
static void read_psi(const char *dir, const struct cg_prev *old, double mono, struct cgroup_sample *c)
{
	char path[1400];
	struct psi p;
	util_fmt(path, sizeof path, "%s/io.pressure", dir);
	if (psi_read(path, &p) < 0)
		return;
	c->have_psi = 1;
	c->some_avg10 = p.some.avg10;
	c->full_avg10 = p.have_full ? p.full.avg10 : 0;
	c->some_total_us = p.some.total_us;
	c->full_total_us = p.have_full ? p.full.total_us : 0;
	if (old && old->have_psi) {
		c->some_pct = share_pct(c->some_total_us, old->some_us, mono - old->mono);
		c->full_pct = share_pct(c->full_total_us, old->full_us, mono - old->mono);
	}
}

static int read_weight(const char *dir, const char *file)
{
	char path[1400], text[512];
	util_fmt(path, sizeof path, "%s/%s", dir, file);
	return util_read_text(path, text, sizeof text) >= 0 ? cgroup_parse_weight(text) : -1;
}

/* A device's kernel name ("vda") from /sys/dev/block, for io.max lines. */
struct dev_name { char name[64]; };

static const char *name_of_dev(unsigned major, unsigned minor, void *ctx)
{
	struct dev_name *d = ctx;
	char link[64], target[256];
	util_fmt(link, sizeof link, "/sys/dev/block/%u:%u", major, minor);
	ssize_t n = readlink(link, target, sizeof target - 1);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	const char *base = strrchr(target, '/');
	util_strlcpy(d->name, base ? base + 1 : target, sizeof d->name);
	return d->name;
}

/* io.max and io.latency (absent at the root and where the controller is
 * not in the parent's subtree_control: have_* stays 0). */
static void read_limits(const char *dir, struct cgroup_sample *c)
{
	char path[1400], text[4096];
	struct dev_name d;
	util_fmt(path, sizeof path, "%s/io.max", dir);
	c->have_io_max = util_read_text(path, text, sizeof text) >= 0 &&
			 cgroup_parse_limits(text, name_of_dev, &d, c->io_max, sizeof c->io_max) >= 0;
	util_fmt(path, sizeof path, "%s/io.latency", dir);
	c->have_io_latency = util_read_text(path, text, sizeof text) >= 0 &&
			     cgroup_parse_limits(text, name_of_dev, &d, c->io_latency, sizeof c->io_latency) >= 0;
}

/* io.stat and the weights, where the io controller is on v2; what is
 * missing said in its source. */
static void read_io(struct samplecg *g, const char *dir, const struct cg_prev *old, double mono,
		    struct cgroup_sample *c)
{
	char path[1400], text[8192], *src = c->source;
	size_t len = sizeof c->source;
	if (!g->io_on_v2) {
		util_fmt(src + strlen(src), len - strlen(src), "; io.stat, weights: %s", g->stat_why);
		return;
	}
	util_fmt(path, sizeof path, "%s/io.stat", dir);
	struct cgroup_io io;
	long rc = util_read_text(path, text, sizeof text);
	if (rc >= 0 && (rc = cgroup_parse_io_stat(text, whole_disk, g, &io)) >= 0) {
		c->have_stat = 1;
		c->stat_rbytes = io.rbytes;
		c->stat_wbytes = io.wbytes;
		if (old && old->have_stat && mono > old->mono && io.rbytes >= old->rbytes && io.wbytes >= old->wbytes) {
			c->stat_read_Bps = (double)(io.rbytes - old->rbytes) / (mono - old->mono);
			c->stat_write_Bps = (double)(io.wbytes - old->wbytes) / (mono - old->mono);
		}
		util_fmt(src + strlen(src), len - strlen(src), "; io.stat: whole physical disks");
	} else if (rc == -ENOENT) {
		util_fmt(src + strlen(src), len - strlen(src),
			 "; io.stat: none (the io controller is not in its parent's cgroup.subtree_control)");
	} else {
		util_fmt(src + strlen(src), len - strlen(src), "; io.stat: not read (%s)",
			 rc == -EINVAL ? "not io.stat's format" : strerror((int)-rc));
	}
	c->io_weight = read_weight(dir, "io.weight");
	c->bfq_weight = read_weight(dir, "io.bfq.weight");
	read_limits(dir, c);
	if (c->bfq_weight < 0)
		util_fmt(src + strlen(src), len - strlen(src), "; bfq_weight: %s",
			 strcmp(c->path, "/") == 0 ? "the root cgroup has none" : "no io.bfq.weight (bfq not loaded)");
}

/* The readings of c kept for the next interval's deltas. */
static void keep(struct samplecg *g, const struct cgroup_sample *c, double mono)
{
	if (g->nnext == PREV_MAX)
		return;
	struct cg_prev *k = &g->next[g->nnext++];
	util_strlcpy(k->path, c->path, sizeof k->path);
	k->mono = mono;
	k->have_psi = c->have_psi;
	k->have_stat = c->have_stat;
	k->some_us = c->some_total_us;
	k->full_us = c->full_total_us;
	k->rbytes = c->stat_rbytes;
	k->wbytes = c->stat_wbytes;
}

/* The list's cgroups first, then those read lately, up to PREV_MAX. */
static void rotate(struct samplecg *g)
{
	for (size_t i = 0; i < g->nprev && g->nnext < PREV_MAX; i++)
		if (!find(g->next, g->nnext, g->prev[i].path))
			g->next[g->nnext++] = g->prev[i];
	struct cg_prev *t = g->prev;
	g->prev = g->next;
	g->nprev = g->nnext;
	g->next = t;
	g->nnext = 0;
}

void samplecgfiles_read(struct sampler *s, struct sample *out)
{
	if (!s->cg && !(s->cg = calloc(1, sizeof *s->cg)))
		return;
	struct samplecg *g = s->cg;
	if (!g->tried) {
		probe_machine(g);
		g->prev = calloc(PREV_MAX, sizeof *g->prev);
		g->next = calloc(PREV_MAX, sizeof *g->next);
	}
	util_strlcpy(out->cgroups_why, g->why, sizeof out->cgroups_why);
	if (!g->have_v2 || !g->prev || !g->next) {
		out->ncgroups = 0;
		return;
	}
	for (size_t i = 0; i < out->ncgroups; i++) {
		struct cgroup_sample *c = &out->cgroups[i];
		if (!c->path[0] || strstr(c->path, ".."))
			continue; /* not known; ".." never comes from the kernel */
		char dir[1400];
		util_fmt(dir, sizeof dir, "%s%s%s", g->mount, strcmp(c->path, "/") ? "/" : "", strcmp(c->path, "/") ? c->path : "");
		const struct cg_prev *old = find(g->prev, g->nprev, c->path);
		read_psi(dir, old, out->mono, c);
		util_fmt(c->source + strlen(c->source), sizeof c->source - strlen(c->source), "; pressure: %s",
			 c->have_psi ? "io.pressure" : "no io.pressure (the cgroup is gone, or a kernel without PSI)");
		read_io(g, dir, old, out->mono, c);
		keep(g, c, out->mono);
	}
	rotate(g);
}

void samplecgfiles_free(struct sampler *s)
{
	if (!s->cg)
		return;
	free(s->cg->prev);
	free(s->cg->next);
	free(s->cg);
	s->cg = NULL;
}
