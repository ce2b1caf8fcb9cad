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
 * bounded walk of the v2 tree, at most PROCCGROUP_WALKS a refresh.
 * Paths nothing points at any more are forgotten (proccgroup_forget): a
 * machine that makes and removes cgroups all day (systemd-run --scope per
 * job, a CI runner, a user's delegated subtree) filled the store once,
 * and from then on every new cgroup was "not known". */
#include "procparts.h"

#include <stdlib.h>
#include <string.h>

#include "read/cgroup.h"

/* Paths kept at most at once: past it, a new path is "not known" until
 * the next forgetting makes room (only a machine with this many cgroups
 * in use at once, or made within one refresh, comes here). */
#define PATHS_MAX 16384
/* Forgetting starts once the store holds this many paths and twice as
 * many as the last forgetting kept (so its cost, a pass over the tasks
 * and rows, is paid once per that many new paths). */
#define FORGET_MIN 1024
/* An id's path is kept this long after it was last noted or asked for,
 * though nothing points at it any more: a writer's pages may be written
 * 30 s and more after it and its cgroup are gone. */
#define ID_KEEP_S 120.0
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

/* Paths kept once each, in blocks that never move: a row's pointer stays
 * good until the path is forgotten, and the same path is the same pointer. */
struct pathstore {
	struct util_texts texts;
	const char **slots;           /* open addressing, a power of two */
	size_t nslots, n;
};

struct proccgroups {
	struct pathstore store;
	size_t live;                  /* paths the last forgetting kept */
	struct ended { int tgid; const char *cgroup; } ended[ENDED_KEPT];
	unsigned next_ended;
	/* id -> kept path, open addressing, a power of two (id 0: free);
	 * used: the uptime it was last noted or asked for */
	struct idpath { uint64_t id; const char *path; double used; } *ids;
	size_t nids_slots, nids, live_ids;
	char mount[1024];             /* the v2 mount ("": none) */
	int mount_tried;
	double walked_up;             /* the refresh (its uptime) of the last walk */
	unsigned walks;               /* walks made in that refresh */
	uint64_t missed[MISSED_KEPT];
	unsigned next_missed;
};

static int store_grow(struct pathstore *s)
{
	size_t ns = s->nslots ? s->nslots * 2 : 256;
	const char **slots = calloc(ns, sizeof *slots);
	if (!slots)
		return -1;
	for (size_t i = 0; i < s->nslots; i++) {
		if (!s->slots[i])
			continue;
		size_t k = (size_t)util_hash_text(s->slots[i]) & (ns - 1);
		while (slots[k])
			k = (k + 1) & (ns - 1);
		slots[k] = s->slots[i];
	}
	free(s->slots);
	s->slots = slots;
	s->nslots = ns;
	return 0;
}

/* The kept copy of path, or NULL. */
static const char *store_find(const struct pathstore *s, const char *path)
{
	if (!s->nslots)
		return NULL;
	for (size_t k = (size_t)util_hash_text(path) & (s->nslots - 1); s->slots[k]; k = (k + 1) & (s->nslots - 1))
		if (strcmp(s->slots[k], path) == 0)
			return s->slots[k];
	return NULL;
}

/* The kept copy of path, made the first time (*added set then); NULL
 * when out of room. */
static const char *store_keep(struct pathstore *s, const char *path, int *added)
{
	const char *kept = store_find(s, path);
	if (kept)
		return kept;
	if ((s->n + 1) * 2 > s->nslots && (s->n >= PATHS_MAX || store_grow(s) < 0))
		return NULL;
	size_t k = (size_t)util_hash_text(path) & (s->nslots - 1);
	while (s->slots[k])
		k = (k + 1) & (s->nslots - 1);
	kept = util_texts_keep(&s->texts, path, strlen(path));
	if (kept) {
		s->slots[k] = kept;
		s->n++;
		*added = 1;
	}
	return kept;
}

static void store_free(struct pathstore *s)
{
	util_texts_free(&s->texts);
	free(s->slots);
	*s = (struct pathstore){0};
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

/* id names path from now on, at uptime now (a cgroup made again under
 * the same path has a new id: both name it). */
static void id_note(struct proccgroups *g, uint64_t id, const char *path, double now)
{
	if (!id || ((g->nids + 1) * 2 > g->nids_slots && (g->nids >= 2 * PATHS_MAX || ids_grow(g) < 0)))
		return;
	size_t k = id_hash(id) & (g->nids_slots - 1);
	for (; g->ids[k].id; k = (k + 1) & (g->nids_slots - 1))
		if (g->ids[k].id == id) {
			g->ids[k].path = path;
			g->ids[k].used = now;
			return;
		}
	g->ids[k] = (struct idpath){id, path, now};
	g->nids++;
}

/* id's path, its use at uptime now noted; NULL: not noted. */
static const char *id_find(struct proccgroups *g, uint64_t id, double now)
{
	if (!g->nids_slots)
		return NULL;
	for (size_t k = id_hash(id) & (g->nids_slots - 1); g->ids[k].id; k = (k + 1) & (g->nids_slots - 1))
		if (g->ids[k].id == id) {
			g->ids[k].used = now;
			return g->ids[k].path;
		}
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
static void note_id_of(struct proccgroups *g, const char *kept, double now)
{
	uint64_t id;
	if (mount_known(g) && cgroup_id_of(g->mount, kept, &id) == 0)
		id_note(g, id, kept, now);
}

const char *proccgroup_keep(struct procs *p, const char *path)
{
	if (!p->cg && !(p->cg = calloc(1, sizeof *p->cg)))
		return NULL;
	int added = 0;
	const char *kept = store_keep(&p->cg->store, path, &added);
	if (added)
		note_id_of(p->cg, kept, p->prev_up);
	return kept;
}

/* e's cgroup read now, at uptime up (a task that ended meanwhile keeps
 * the path it had). */
static void read_now(struct procs *p, int pid, int tid, int threads, double up, struct proc_seen *e)
{
	char path[CGROUP_PATH_MAX];
	e->cgroup_at = up > 0 ? (float)up : 1e-9f;
	if (procfiles_read_cgroup(pid, tid, threads, path, sizeof path) == 0)
		e->cgroup = proccgroup_keep(p, path);
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
	const char *path = id_find(g, id, p->prev_up);
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
	path = proccgroup_keep(p, f.path);
	if (path)
		id_note(g, id, path, p->prev_up);
	return path;
}

/* Every place outside the store that points at a kept path, given to fn
 * in turn (the reader's tasks, the ended ring, the rows of ended
 * processes still shown, and rows, the reading just made); stops at the
 * first fn that fails. p->settled is made afresh each reading, before it
 * is read: it holds nothing between readings. */
static int each_holder(struct procs *p, struct proc_row *rows, size_t n, int (*fn)(const char **, void *), void *ctx)
{
	struct proccgroups *g = p->cg;
	int rc = 0;
	for (size_t i = 0; i < p->nprev && !rc; i++)
		rc = fn(&p->prev[i].cgroup, ctx);
	for (size_t i = 0; i < p->ncur && !rc; i++)
		rc = fn(&p->cur[i].cgroup, ctx);
	for (unsigned i = 0; i < ENDED_KEPT && i < g->next_ended && !rc; i++)
		rc = fn(&g->ended[i].cgroup, ctx);
	for (size_t i = 0; i < p->ngone && !rc; i++)
		rc = fn(&p->gone[i].cgroup, ctx);
	for (size_t i = 0; i < n && !rc; i++)
		rc = fn(&rows[i].cgroup, ctx);
	return rc;
}

/* Into the new store: the path a holder points at (-1: out of room). */
static int copy_held(const char **held, void *ctx)
{
	int added = 0;
	return !*held || store_keep(ctx, *held, &added) ? 0 : -1;
}

/* A holder pointed at its path's copy in the new store. */
static int point_at_copy(const char **held, void *ctx)
{
	if (*held)
		*held = store_find(ctx, *held);
	return 0;
}

/* The ids whose paths the new store keeps, or that were used within
 * ID_KEEP_S of now (their paths copied too); the others forgotten.
 * Returns 0, or -1 (out of room: nothing changed). */
static int copy_ids(struct proccgroups *g, struct pathstore *to, double now)
{
	for (size_t i = 0; i < g->nids_slots; i++) {
		struct idpath *x = &g->ids[i];
		int added = 0;
		if (x->id && !store_find(to, x->path) && now - x->used <= ID_KEEP_S && !store_keep(to, x->path, &added))
			return -1;
	}
	return 0;
}

static void keep_ids(struct proccgroups *g, const struct pathstore *to)
{
	struct idpath *old = g->ids;
	size_t nold = g->nids_slots;
	g->ids = NULL;
	g->nids_slots = g->nids = 0;
	for (size_t i = 0; i < nold; i++) {
		const char *path = old[i].id ? store_find(to, old[i].path) : NULL;
		if (path)
			id_note(g, old[i].id, path, old[i].used);
	}
	free(old);
	g->live_ids = g->nids;
}

void proccgroup_forget(struct procs *p, struct proc_row *rows, size_t n)
{
	struct proccgroups *g = p->cg;
	if (!g || ((g->store.n < FORGET_MIN || g->store.n < 2 * g->live) &&
		   (g->nids < FORGET_MIN || g->nids < 2 * g->live_ids)))
		return;
	struct pathstore to = {0};
	if (each_holder(p, rows, n, copy_held, &to) < 0 || copy_ids(g, &to, p->prev_up) < 0) {
		store_free(&to); /* out of memory: the old store stands */
		return;
	}
	each_holder(p, rows, n, point_at_copy, &to);
	keep_ids(g, &to);
	store_free(&g->store);
	g->store = to;
	g->live = to.n;
}

size_t proccgroup_kept(const struct procs *p)
{
	return p->cg ? p->cg->store.n : 0;
}

void proccgroup_free(struct procs *p)
{
	if (!p->cg)
		return;
	store_free(&p->cg->store);
	free(p->cg->ids);
	free(p->cg);
	p->cg = NULL;
}
