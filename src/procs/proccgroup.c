/* proccgroup: each task's cgroup v2 path (procparts.h). Reading
 * /proc/PID/cgroup for every task at every refresh would be 10,000 more
 * files a second on a busy machine, for a path that almost never changes:
 * it is read when a task is first seen, and again only for a task that
 * moved bytes, at most every PROCS_CGROUP_REREAD_S (a process moved to
 * another unit while it works, as systemd-run --scope or a container's
 * exec do, shows there within that). Paths are kept once each (a machine
 * has a few hundred cgroups for thousands of tasks), so a row holds a
 * pointer, not 256 bytes. Only while cgroups are wanted (procs_use_cgroups):
 * off, nothing is read and new tasks have none.
 * Each kept path's cgroup id (its directory's inode number) is noted when
 * it is first kept, so the BPF part's id of a writer that ended unseen
 * names its cgroup (proccgroup_of_id), even once the cgroup is removed, as
 * a transient unit's is right after it stops; an id not noted sends a
 * bounded walk of the v2 tree, at most once a refresh. */
#include "procparts.h"

#include <stdlib.h>
#include <string.h>

#include "read/cgroup.h"

/* Paths kept at most: past it, a new path is "not known" (a machine that
 * made and removed this many cgroups while the tool ran; each is kept for
 * the tool's lifetime because rows of past readings point at it). */
#define PATHS_MAX 16384
/* Processes that ended, remembered with their cgroup (a ring): a writer's
 * pages may be written up to dirty_expire_centisecs (30 s) and more after
 * it ended; at a few hundred exits a second the oldest go first. */
#define ENDED_KEPT 1024
/* The walk for an id not noted: a v2 tree is a few levels deep and a few
 * hundred cgroups (a container host: thousands); past these it stops. */
#define WALK_DEPTH 16
#define WALK_DIRS 20000
/* Ids a walk did not find (cgroups gone before their path was kept), not
 * walked for again while they are remembered. */
#define MISSED_KEPT 16

struct proccgroups {
	struct util_texts texts;
	const char **slots;           /* open addressing, a power of two */
	size_t nslots, n;
	struct ended { int tgid; const char *cgroup; } ended[ENDED_KEPT];
	unsigned next_ended;
	/* id -> kept path, open addressing, a power of two (id 0: free) */
	struct idpath { uint64_t id; const char *path; } *ids;
	size_t nids_slots, nids;
	char mount[1024];             /* the v2 mount ("": none) */
	int mount_tried;
	double walked_up;             /* the refresh (its uptime) of the last walk */
	unsigned walks;               /* walks made in that refresh */
	uint64_t missed[MISSED_KEPT];
	unsigned next_missed;
};

static int grow(struct proccgroups *g)
{
	size_t ns = g->nslots ? g->nslots * 2 : 256;
	const char **slots = calloc(ns, sizeof *slots);
	if (!slots)
		return -1;
	for (size_t i = 0; i < g->nslots; i++) {
		if (!g->slots[i])
			continue;
		size_t k = (size_t)util_hash_text(g->slots[i]) & (ns - 1);
		while (slots[k])
			k = (k + 1) & (ns - 1);
		slots[k] = g->slots[i];
	}
	free(g->slots);
	g->slots = slots;
	g->nslots = ns;
	return 0;
}

static size_t id_hash(uint64_t id)
{
	return (size_t)(id * 0x9E3779B97F4A7C15ull);
}

static int ids_grow(struct proccgroups *g)
{
	size_t ns = g->nids_slots ? g->nids_slots * 2 : 256;
	struct idpath *ids = calloc(ns, sizeof *ids);
	if (!ids)
		return -1;
	for (size_t i = 0; i < g->nids_slots; i++) {
		if (!g->ids[i].id)
			continue;
		size_t k = id_hash(g->ids[i].id) & (ns - 1);
		while (ids[k].id)
			k = (k + 1) & (ns - 1);
		ids[k] = g->ids[i];
	}
	free(g->ids);
	g->ids = ids;
	g->nids_slots = ns;
	return 0;
}

/* id names path from now on (a cgroup made again under the same path has
 * a new id: both name it). */
static void id_note(struct proccgroups *g, uint64_t id, const char *path)
{
	if (!id || ((g->nids + 1) * 2 > g->nids_slots && (g->nids >= 2 * PATHS_MAX || ids_grow(g) < 0)))
		return;
	size_t k = id_hash(id) & (g->nids_slots - 1);
	for (; g->ids[k].id; k = (k + 1) & (g->nids_slots - 1))
		if (g->ids[k].id == id) {
			g->ids[k].path = path;
			return;
		}
	g->ids[k] = (struct idpath){id, path};
	g->nids++;
}

static const char *id_find(const struct proccgroups *g, uint64_t id)
{
	if (!g->nids_slots)
		return NULL;
	for (size_t k = id_hash(id) & (g->nids_slots - 1); g->ids[k].id; k = (k + 1) & (g->nids_slots - 1))
		if (g->ids[k].id == id)
			return g->ids[k].path;
	return NULL;
}

/* Whether the v2 mount is known (looked for once). */
static int mount_known(struct proccgroups *g)
{
	if (!g->mount_tried) {
		g->mount_tried = 1;
		if (cgroup_v2_mount(g->mount, sizeof g->mount) < 0)
			g->mount[0] = '\0';
	}
	return g->mount[0] != '\0';
}

/* The id of kept, a path just kept: its directory's inode number, while
 * the cgroup is there to be looked at. */
static void note_id_of(struct proccgroups *g, const char *kept)
{
	uint64_t id;
	if (mount_known(g) && cgroup_id_of(g->mount, kept, &id) == 0)
		id_note(g, id, kept);
}

/* The kept copy of path (made the first time); NULL when out of room. */
static const char *intern(struct procs *p, const char *path)
{
	if (!p->cg && !(p->cg = calloc(1, sizeof *p->cg)))
		return NULL;
	struct proccgroups *g = p->cg;
	if ((g->n + 1) * 2 > g->nslots && (g->n >= PATHS_MAX || grow(g) < 0))
		return NULL;
	size_t k = (size_t)util_hash_text(path) & (g->nslots - 1);
	for (; g->slots[k]; k = (k + 1) & (g->nslots - 1))
		if (strcmp(g->slots[k], path) == 0)
			return g->slots[k];
	const char *kept = util_texts_keep(&g->texts, path, strlen(path));
	if (kept) {
		g->slots[k] = kept;
		g->n++;
		note_id_of(g, kept);
	}
	return kept;
}

/* e's cgroup read now, at uptime up (a task that ended meanwhile keeps
 * the path it had). */
static void read_now(struct procs *p, int pid, int tid, int threads, double up, struct proc_seen *e)
{
	char path[CGROUP_PATH_MAX];
	e->cgroup_at = up > 0 ? (float)up : 1e-9f;
	if (procfiles_read_cgroup(pid, tid, threads, path, sizeof path) == 0)
		e->cgroup = intern(p, path);
}

void proccgroup_fill(struct procs *p, const struct reading *rd, const struct proc_seen *old, struct proc_seen *e,
		     int moved, struct proc_row *r)
{
	int same = old && old->start == e->start && old->cgroup_at > 0;
	if (!same)
		e->cgroup = NULL, e->cgroup_at = 0;
	if (p->cg_on && (!same || (moved && rd->up - e->cgroup_at >= PROCS_CGROUP_REREAD_S)))
		read_now(p, r->pid, r->tid, rd->threads, rd->up, e);
	r->cgroup = e->cgroup;
	r->cgroup_src = e->cgroup ? CGSRC_LIVE : CGSRC_UNKNOWN;
}

void procs_use_cgroups(struct procs *p, int on)
{
	p->cg_on = on;
}

void procs_cgroup_now(struct procs *p, struct proc_row *r)
{
	if (r->cgroup || r->exited || !p->cg_on)
		return;
	struct proc_seen *e = procseen_lookup(p->prev, p->nprev, r->tid);
	if (!e || e->start != r->start)
		return;
	if (!e->cgroup)
		read_now(p, r->pid, r->tid, p->threads, util_boot_now(), e);
	r->cgroup = e->cgroup;
	r->cgroup_src = e->cgroup ? CGSRC_LIVE : CGSRC_UNKNOWN;
}

static void remember(struct proccgroups *g, int tgid, const char *cgroup)
{
	g->ended[g->next_ended++ % ENDED_KEPT] = (struct ended){tgid, cgroup};
}

void proccgroup_note_ended(struct procs *p)
{
	if (!p->cg || !p->cg_on || p->threads)
		return;
	/* both sorted by id: one walk */
	size_t k = 0;
	for (size_t i = 0; i < p->nprev; i++) {
		const struct proc_seen *o = &p->prev[i];
		while (k < p->ncur && p->cur[k].id < o->id)
			k++;
		int lives = k < p->ncur && p->cur[k].id == o->id && p->cur[k].start == o->start;
		if (!lives && o->cgroup)
			remember(p->cg, o->id, o->cgroup);
	}
}

/* A writer that lived between two listings dirties pages that are
 * written after it ended, often a whole refresh or more later (a sync,
 * the 30 s expiry): without this its TO-DISK had no cgroup. */
void proccgroup_note_exit(struct procs *p, int tgid, const char *cgroup)
{
	if (p->cg && p->cg_on && !p->threads && cgroup)
		remember(p->cg, tgid, cgroup);
}

const char *proccgroup_last(const struct procs *p, int tgid)
{
	if (!p->cg)
		return NULL;
	const struct proccgroups *g = p->cg;
	unsigned n = g->next_ended < ENDED_KEPT ? g->next_ended : ENDED_KEPT;
	for (unsigned i = 1; i <= n; i++) { /* the latest first: a pid reused */
		const struct ended *x = &g->ended[(g->next_ended - i) % ENDED_KEPT];
		if (x->tgid == tgid)
			return x->cgroup;
	}
	return NULL;
}

/* A walk's search for one id. */
struct idfind {
	uint64_t id;
	int found;
	char path[CGROUP_PATH_MAX];
};

static int match_id(uint64_t id, const char *path, void *ctx)
{
	struct idfind *f = ctx;
	if (id != f->id)
		return 0;
	util_strlcpy(f->path, path, sizeof f->path);
	f->found = 1;
	return 1;
}

static int was_missed(const struct proccgroups *g, uint64_t id)
{
	for (unsigned i = 0; i < MISSED_KEPT; i++)
		if (g->missed[i] == id)
			return 1;
	return 0;
}

const char *proccgroup_of_id(struct procs *p, uint64_t id)
{
	if (!id || !p->cg_on || (!p->cg && !(p->cg = calloc(1, sizeof *p->cg))))
		return NULL;
	struct proccgroups *g = p->cg;
	const char *path = id_find(g, id);
	if (g->walked_up != p->prev_up)
		g->walks = 0;
	if (path || was_missed(g, id) || g->walks >= PROCCGROUP_WALKS || !mount_known(g))
		return path;
	g->walked_up = p->prev_up;
	g->walks++;
	struct idfind f = {.id = id};
	if (cgroup_walk_ids(g->mount, WALK_DEPTH, WALK_DIRS, match_id, &f) < 0 || !f.found) {
		g->missed[g->next_missed++ % MISSED_KEPT] = id;
		return NULL;
	}
	path = intern(p, f.path);
	if (path)
		id_note(g, id, path);
	return path;
}

void proccgroup_free(struct procs *p)
{
	if (!p->cg)
		return;
	util_texts_free(&p->cg->texts);
	free(p->cg->ids);
	free(p->cg->slots);
	free(p->cg);
	p->cg = NULL;
}
