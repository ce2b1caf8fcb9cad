/* blklatread: the block-latency programs' maps drained into a struct
 * blk_reading (blklat_read): each histogram key's growth since the last
 * reading, per process and disk and summed per process; the requests in
 * flight from the mapped slots; what probe reads waited behind; the
 * unattributed bytes and the per-CPU counts. The entries of processes
 * that have exited are deleted here once read. Also a process's name as
 * the programs saw it (blklat_name). Loading is blklat.c's. */
#include "bpf/blklat.h"

#ifdef HAVE_BPF

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blklatparts.h"
#include "base/util.h"

_Static_assert(BLKMAP_BUCKETS == HIST_BUCKETS, "the BPF histogram must use hist.h's buckets");
_Static_assert(BLKMAP_STATS == BLK_STATS_MAX && (1u << BLKMAP_SLOT_BITS_MAX) == BLK_REQS_MAX,
	       "a replay keeps what a live reading can hold");

static int key_cmp(const struct blkmap_key *x, const struct blkmap_key *y)
{
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return (x->dev > y->dev) - (x->dev < y->dev);
}

static int seen_cmp(const void *a, const void *b)
{
	return key_cmp(&((const struct seen *)a)->key, &((const struct seen *)b)->key);
}

/* /sys/dev/block/MAJ:MIN links to the disk's sysfs directory. */
static const char *dev_name(struct blklat *b, unsigned dev)
{
	for (size_t i = 0; i < b->nnames; i++)
		if (b->names[i].dev == dev)
			return b->names[i].name;
	struct devname *nn = realloc(b->names, (b->nnames + 1) * sizeof *nn);
	if (!nn)
		return "?";
	b->names = nn;
	struct devname *d = &b->names[b->nnames++];
	d->dev = dev;
	char path[64], target[256];
	util_fmt(path, sizeof path, "/sys/dev/block/%u:%u", dev >> 20, dev & 0xfffff);
	ssize_t n = readlink(path, target, sizeof target - 1);
	if (n > 0) {
		target[n] = '\0';
		const char *slash = strrchr(target, '/');
		util_strlcpy(d->name, slash ? slash + 1 : target, sizeof d->name);
	} else {
		util_fmt(d->name, sizeof d->name, "%u:%u", dev >> 20, dev & 0xfffff);
	}
	return d->name;
}

/* Every key of the histogram map, sorted (a key made during the walk may
 * be missed or seen twice: duplicates are dropped). */
static int list_keys(int fd, struct blkmap_key **keys, size_t *n)
{
	size_t cap = 0;
	*n = 0;
	*keys = NULL;
	struct blkmap_key k, next;
	const void *prev = NULL;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			struct blkmap_key *nk = realloc(*keys, cap * sizeof *nk);
			if (!nk)
				return -ENOMEM;
			*keys = nk;
		}
		(*keys)[(*n)++] = next;
		k = next;
		prev = &k;
	}
	if (*n)
		qsort(*keys, *n, sizeof **keys, (int (*)(const void *, const void *))key_cmp);
	size_t w = 0;
	for (size_t i = 0; i < *n; i++)
		if (w == 0 || key_cmp(&(*keys)[w - 1], &(*keys)[i]) != 0)
			(*keys)[w++] = (*keys)[i];
	*n = w;
	return 0;
}

static enum blk_op op_of(const struct blkmap_key *k)
{
	return k->op == BLKMAP_WRITE ? BLK_WRITE : BLK_READ;
}

/* Bytes, journal bytes and stacked bytes a key gained since its last
 * reading. */
struct gained { uint64_t bytes, journal, stacked, cgroup_id; };

/* What a key's histogram cur gained since its last reading (old: none,
 * a new key: all of it). */
static struct gained gained_since(const struct seen *old, const struct blkmap_hist *cur)
{
	if (!old)
		return (struct gained){cur->bytes, cur->journal, cur->stacked, cur->cgroup_id};
	return (struct gained){
		cur->bytes >= old->h.bytes ? cur->bytes - old->h.bytes : cur->bytes,
		cur->journal >= old->h.journal ? cur->journal - old->h.journal : cur->journal,
		cur->stacked >= old->h.stacked ? cur->stacked - old->h.stacked : cur->stacked,
		cur->cgroup_id,
	};
}

static void stat_from(struct blk_stat *st, const struct blkmap_key *k, const char *disk, const struct hist *h,
		      struct gained g)
{
	st->tgid = (int)k->tgid;
	st->start = k->start;
	util_strlcpy(st->disk, disk, sizeof st->disk);
	st->op = op_of(k);
	st->n = h->n;
	st->bytes = g.bytes;
	st->journal_bytes = g.journal;
	st->stacked_bytes = g.stacked;
	st->p50_ns = hist_quantile(h, 0.50);
	st->p99_ns = hist_quantile(h, 0.99);
	st->max_ns = h->max_ns;
}

/* The figures of group k's (process, direction) summed in b->group, into
 * the process's entry of r (the last one, or a new one: the keys come in
 * process order); the group is emptied for the next. */
static int group_end(struct blklat *b, struct blk_reading *r, const struct blkmap_key *k, struct gained g)
{
	int tgid = (int)k->tgid, err = 0;
	enum blk_op op = op_of(k);
	if (b->group.n == 0 && !g.bytes)
		return 0;
	if (!r->nprocs || r->procs[r->nprocs - 1].tgid != tgid || r->procs[r->nprocs - 1].start != k->start) {
		err = util_grow((void **)&r->procs, &r->procs_cap, r->nprocs + 1, sizeof *r->procs);
		if (!err)
			r->procs[r->nprocs++] = (struct blk_proc){.tgid = tgid, .start = k->start};
	}
	if (!err) {
		struct blk_proc *p = &r->procs[r->nprocs - 1];
		p->n[op] = b->group.n;
		/* each byte once: at the top of a stack (a copy racing the
		 * program may see stacked ahead of bytes for a moment) */
		p->bytes[op] = g.bytes > g.stacked ? g.bytes - g.stacked : 0;
		if (op == BLK_WRITE) {
			p->journal_bytes = g.journal;
			p->to_disk_bytes = p->bytes[op]; /* until the sample settles it */
		}
		if (g.cgroup_id)
			p->cgroup_id = g.cgroup_id;
		p->p50_ns[op] = hist_quantile(&b->group, 0.50);
		p->p99_ns[op] = hist_quantile(&b->group, 0.99);
	}
	hist_reset(&b->group);
	return err;
}

/* The name a pooled reader goes by: its comm now, else the one the
 * programs saw, else its pid. */
static void pool_comm(struct blklat *b, int tgid, char *comm, size_t len)
{
	char path[64], buf[32];
	util_fmt(path, sizeof path, "/proc/%d/comm", tgid);
	if (util_read_small(path, buf, sizeof buf) > 0) {
		util_strlcpy(comm, util_trim(buf), len);
		return;
	}
	if (blklat_name(b, tgid, 0, comm, len, NULL) < 0)
		util_fmt(comm, len, "pid %d", tgid);
}

/* A key's delta into the pool, when it is a read of the pooled disk by
 * a process that is no probe reader. */
static void pool_add(struct blklat *b, const struct blkmap_key *k, const struct hist *delta, uint64_t bytes)
{
	if (op_of(k) != BLK_READ || strcmp(dev_name(b, k->dev), b->pool_disk) != 0)
		return;
	for (size_t w = 0; w < b->nwatched; w++)
		if (b->watched[w] == (int)k->tgid)
			return;
	char comm[16];
	pool_comm(b, (int)k->tgid, comm, sizeof comm);
	blkpool_add(b->pool, comm, delta, bytes);
}

/* The pool's map emptied (entries from before are not this run's). */
static void pool_clear(struct blklat *b)
{
	int fds[] = {bpf_map__fd(b->skel->maps.pool_hists), bpf_map__fd(b->skel->maps.pool_names)};
	__u32 k;
	for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
		while (bpf_map_get_next_key(fds[i], NULL, &k) == 0 && bpf_map_delete_elem(fds[i], &k) == 0)
			;
}

/* The pooled reads timed from submission: the submission program
 * attached and told the disk. 0, or a negative errno (no such disk, or
 * the program cannot run here: the pool then times from issue). */
static int pool_from_submission(struct blklat *b, const char *disk)
{
	char path[300], text[32];
	unsigned maj, min;
	util_fmt(path, sizeof path, "/sys/block/%s/dev", disk);
	if (!b->can_submit || util_read_small(path, text, sizeof text) <= 0 || sscanf(text, "%u:%u", &maj, &min) != 2)
		return -ENOTSUP;
	pool_clear(b);
	if (!b->pool_link) {
		struct bpf_link *l = bpf_program__attach(b->skel->progs.on_bio_queue);
		if (libbpf_get_error(l))
			return -ENOTSUP;
		b->pool_link = l;
	}
	__atomic_store_n(&b->skel->bss->pool_dev, maj << 20 | min, __ATOMIC_RELEASE);
	return 0;
}

int blklat_pool(struct blklat *b, const char *disk)
{
	if (!b)
		return -ENOTSUP;
	if (!disk) {
		__atomic_store_n(&b->skel->bss->pool_dev, 0, __ATOMIC_RELEASE);
		bpf_link__destroy(b->pool_link);
		b->pool_link = NULL;
		pool_clear(b);
		free(b->pool);
		b->pool = NULL;
		return 0;
	}
	if (!b->pool && !(b->pool = calloc(1, sizeof *b->pool)))
		return -ENOMEM;
	util_strlcpy(b->pool_disk, disk, sizeof b->pool_disk);
	b->pool->from_submission = pool_from_submission(b, disk) == 0;
	return 0;
}

int blklat_pool_from_submission(const struct blklat *b)
{
	return b && b->pool && b->pool->from_submission;
}

/* The pool's histograms since the last reading, drained from the map:
 * each entry deleted once read, so a process that ended keeps no place
 * (an update racing the delete loses a read or two at most). */
static void pool_drain(struct blklat *b)
{
	if (!b->pool || !b->pool->from_submission)
		return; /* no pool, or one timed from issue: pool_add fed it */
	int fd = bpf_map__fd(b->skel->maps.pool_hists);
	__u32 keys[BLKMAP_POOL_PROCS], k, *prev = NULL;
	size_t n = 0;
	while (n < BLKMAP_POOL_PROCS && bpf_map_get_next_key(fd, prev, &k) == 0) {
		keys[n] = k;
		prev = &keys[n++];
	}
	struct blkmap_hist cur;
	for (size_t i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(fd, &keys[i], &cur) != 0 || bpf_map_delete_elem(fd, &keys[i]) != 0)
			continue;
		int probe = 0;
		for (size_t w = 0; w < b->nwatched; w++)
			probe |= b->watched[w] == (int)keys[i];
		if (probe)
			continue;
		char comm[16];
		struct blkmap_comm seen;
		blklat_diff(NULL, cur.count, BLKMAP_BUCKETS, &b->delta);
		/* its name at submission: it may have ended since */
		if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.pool_names), &keys[i], &seen) == 0 && seen.comm[0])
			util_fmt(comm, sizeof comm, "%.15s", seen.comm);
		else
			pool_comm(b, (int)keys[i], comm, sizeof comm);
		blkpool_add(b->pool, comm, &b->delta, cur.bytes);
	}
}

void blklat_pool_take(struct blklat *b, struct blk_pool *out)
{
	if (!b || !b->pool) {
		memset(out, 0, sizeof *out);
		return;
	}
	*out = *b->pool;
	int from = b->pool->from_submission;
	memset(b->pool, 0, sizeof *b->pool);
	b->pool->from_submission = from;
}

static int req_cmp(const void *a, const void *b)
{
	const struct blk_req *x = a, *y = b;
	return (x->age_ns > y->age_ns) - (x->age_ns < y->age_ns);
}

/* Requests in flight now, from the slots, read through a read-only
 * mapping (no system call). The scan takes a while, so a request seen
 * early may have completed by the time a newer one is seen further on:
 * a second pass keeps only the slots that still hold what the first saw. */
static int read_reqs(struct blklat *b, struct blk_reading *r)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	r->nreqs = 0;
	b->nfound = 0;
	for (unsigned s = 0; s < b->nslots; s++) {
		if (!b->slots[s].rq)
			continue;
		if (util_grow((void **)&b->found, &b->found_cap, b->nfound + 1, sizeof *b->found) < 0)
			return -ENOMEM;
		b->found[b->nfound].slot = s;
		b->found[b->nfound++].f = b->slots[s];
	}
	for (size_t k = 0; k < b->nfound; k++) {
		const struct blkmap_inflight *f = &b->found[k].f, *now_there = &b->slots[b->found[k].slot];
		if (now_there->rq != f->rq || now_there->start_ns != f->start_ns || !f->dev)
			continue; /* completed during the scan, or no disk known */
		/* From when it was made: time queued in the scheduler is waiting too. */
		uint64_t since = f->start_ns ? f->start_ns : f->issue_ns;
		uint64_t age = now > since ? now - since : 0;
		if (age > BLKMAP_STALE_NS)
			continue; /* a leftover (see blkmaps.h) */
		if (util_grow((void **)&r->reqs, &r->reqs_cap, r->nreqs + 1, sizeof *r->reqs) < 0)
			return -ENOMEM;
		struct blk_req *q = &r->reqs[r->nreqs++];
		q->tgid = (int)f->tgid;
		util_strlcpy(q->disk, dev_name(b, f->dev), sizeof q->disk);
		q->issued = f->issue_ns != 0;
		q->age_ns = age;
	}
	if (r->nreqs)
		qsort(r->reqs, r->nreqs, sizeof *r->reqs, req_cmp);
	return 0;
}

/* Entries of processes that have exited: their last figures have been
 * read, so the map and the memory of them can go, once an interval has
 * added nothing to them. An exited process's pages are still being
 * written for a while (charged to it): its entry goes on growing, and a
 * delete then would lose what completes between the read and the
 * delete. */
static void forget_gone(struct blklat *b, int fd)
{
	size_t w = 0;
	for (size_t i = 0; i < b->nseen; i++) {
		struct seen *s = &b->seen[i];
		/* a later start under its pid (b->seen is sorted by pid, then
		 * start): the pid is another process's now */
		size_t j = i + 1;
		while (j < b->nseen && b->seen[j].key.tgid == s->key.tgid && b->seen[j].key.start == s->key.start)
			j++;
		int replaced = j < b->nseen && b->seen[j].key.tgid == s->key.tgid;
		int gone = !s->live ||
			   (!s->moved && (replaced || (kill((pid_t)s->key.tgid, 0) != 0 && errno == ESRCH)));
		if (gone && s->live)
			bpf_map_delete_elem(fd, &s->key);
		if (!gone)
			b->seen[w++] = *s;
	}
	b->nseen = w;
}

/* When the table of (process, start, disk, op) entries is three quarters
 * full, entries idle for EVICT_IDLE readings go, down to half of it: else
 * a user's thousands of processes that each did one request and sleep
 * hold it, and the requests of every process started after are only
 * counted as uncounted. An entry let go that grows again comes back from
 * zero and is counted whole at its next reading (it is not in b->seen);
 * what a request adds between the reading and the delete is lost, which
 * an entry idle for two readings makes rare. */
#define EVICT_IDLE 2

static void let_go_idle(struct blklat *b, int fd)
{
	size_t room = bpf_map__max_entries(b->skel->maps.hists);
	if (b->nseen <= room * 3 / 4)
		return;
	unsigned *idle = malloc(b->nseen * sizeof *idle);
	unsigned char *pick = malloc(b->nseen);
	if (idle && pick) {
		for (size_t i = 0; i < b->nseen; i++)
			idle[i] = b->seen[i].idle;
		blklat_pick_idle(idle, b->nseen, room / 2, EVICT_IDLE, pick);
		size_t w = 0;
		for (size_t i = 0; i < b->nseen; i++) {
			if (pick[i])
				bpf_map_delete_elem(fd, &b->seen[i].key);
			else
				b->seen[w++] = b->seen[i];
		}
		b->nseen = w; /* (still sorted) */
	}
	free(idle);
	free(pick);
}

static int bkey_cmp(const void *x, const void *y)
{
	return memcmp(&((const struct behind_seen *)x)->k, &((const struct behind_seen *)y)->k,
		      sizeof(struct blkmap_behind_key));
}

/* A new entry of what the probe's reads waited behind, or the watched
 * cgroup's (unit); NULL out of memory. */
static struct blk_behind *behind_slot(struct blk_reading *r, int unit)
{
	struct blk_behind **v = unit ? &r->unit_behind : &r->behind;
	size_t *n = unit ? &r->nunit_behind : &r->nbehind, *cap = unit ? &r->unit_behind_cap : &r->behind_cap;
	if (util_grow((void **)v, cap, *n + 1, sizeof **v) < 0)
		return NULL;
	return &(*v)[(*n)++];
}

/* What the disks served while probe reads waited, since the last reading:
 * each key's bytes less what the last reading saw (an entry the LRU map
 * dropped and made again starts over: counted whole). */
static int read_behind(struct blklat *b, struct blk_reading *r)
{
	int fd = bpf_map__fd(b->skel->maps.behind);
	struct blkmap_behind_key k, next, *prev = NULL;
	struct behind_seen *now = NULL;
	size_t nnow = 0, cap = 0;
	r->nbehind = r->nunit_behind = 0;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		k = next;
		prev = &k;
		__u64 v;
		if (bpf_map_lookup_elem(fd, &k, &v) != 0)
			continue;
		if (util_grow((void **)&now, &cap, nnow + 1, sizeof *now) < 0)
			break;
		now[nnow++] = (struct behind_seen){.k = k, .bytes = v};
	}
	for (size_t i = 0; i < nnow; i++) {
		struct behind_seen *old = b->nbseen ? bsearch(&now[i], b->bseen, b->nbseen, sizeof *now, bkey_cmp) : NULL;
		uint64_t d = old && now[i].bytes >= old->bytes ? now[i].bytes - old->bytes : now[i].bytes;
		struct blk_behind *e = d ? behind_slot(r, now[i].k.who == BLKMAP_FOR_UNIT) : NULL;
		if (!e)
			continue;
		e->tgid = (int)now[i].k.tgid;
		util_strlcpy(e->disk, dev_name(b, now[i].k.dev), sizeof e->disk);
		e->kind = now[i].k.kind < BLK_NKINDS ? (enum blk_kind)now[i].k.kind : BLK_DIRECT;
		e->bytes = d;
	}
	if (nnow)
		qsort(now, nnow, sizeof *now, bkey_cmp);
	free(b->bseen);
	b->bseen = now;
	b->nbseen = nnow;
	b->bseen_cap = cap;
	return 0;
}

/* The unattributed bytes per disk, since start. */
static void read_unattributed(struct blklat *b, struct blk_reading *r)
{
	int fd = bpf_map__fd(b->skel->maps.unattributed);
	__u32 k, next, *prev = NULL;
	r->nunattr = 0;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		k = next;
		prev = &k;
		__u64 v;
		if (bpf_map_lookup_elem(fd, &k, &v) != 0 ||
		    util_grow((void **)&r->unattr, &r->unattr_cap, r->nunattr + 1, sizeof *r->unattr) < 0)
			continue;
		struct blk_unattr *u = &r->unattr[r->nunattr++];
		util_strlcpy(u->disk, dev_name(b, k), sizeof u->disk);
		u->bytes = v;
	}
}

/* A per-CPU counter, summed. */
static uint64_t count_of(struct blklat *b, enum blkmap_count which)
{
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0 || ncpu > 4096)
		return 0;
	uint64_t v[ncpu], sum = 0;
	/* Zeroed first: the kernel fills every CPU's value, but valgrind
	 * knows a per-CPU map's lookup writes only the first. */
	memset(v, 0, sizeof v);
	__u32 k = which;
	if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.counts), &k, v) != 0)
		return 0;
	for (int i = 0; i < ncpu; i++)
		sum += v[i];
	return sum;
}

/* Each writer's name and cgroup as the programs noted them when it
 * dirtied its pages: the reading carries them, so whoever makes the rows
 * of writers that have ended needs no handle on the programs. */
static void name_writers(struct blklat *b, struct blk_reading *r)
{
	for (size_t i = 0; i < r->nprocs; i++) {
		struct blk_proc *p = &r->procs[i];
		p->dirtier_comm[0] = '\0';
		p->dirtier_cgroup_id = 0;
		if (p->bytes[BLK_WRITE])
			blklat_name(b, p->tgid, p->start, p->dirtier_comm, sizeof p->dirtier_comm, &p->dirtier_cgroup_id);
	}
}

/* The reading's last steps, whatever came before (err): the writers'
 * names, the pauses for dirty pages (a reading must not keep the last
 * one's), then the requests in flight. */
static int read_tail(struct blklat *b, struct blk_reading *r, int err)
{
	name_writers(b, r);
	int t = blklat_read_throttled(b, r);
	if (!err)
		err = read_reqs(b, r);
	return err ? err : t;
}

int blklat_read(struct blklat *b, struct blk_reading *r)
{
	int fd = bpf_map__fd(b->skel->maps.hists);
	struct blkmap_key *keys;
	size_t nkeys;
	int err = list_keys(fd, &keys, &nkeys);
	if (err == 0 && util_grow((void **)&r->stats, &r->stats_cap, nkeys, sizeof *r->stats) < 0)
		err = -ENOMEM;
	if (err) {
		free(keys);
		return err;
	}
	for (size_t i = 0; i < b->nseen; i++)
		b->seen[i].live = 0;
	/* The previous readings of the keys, found while b->seen is still
	 * sorted: new keys are appended only after the walk (appending during
	 * it broke the binary search, and a key not found was counted whole
	 * again: seen in CI as twice fio's count). */
	size_t nold = b->nseen;
	r->nstats = 0;
	r->nprocs = 0;
	hist_reset(&b->group);
	struct blkmap_key at = {0};   /* the group being summed */
	struct gained group = {0};
	struct blkmap_hist cur;
	/* Every key is walked even after an error: one left out of b->seen
	 * would be counted whole at the next reading. */
	for (size_t i = 0; i < nkeys; i++) {
		if (bpf_map_lookup_elem(fd, &keys[i], &cur) != 0)
			continue;
		struct seen key = {.key = keys[i]};
		struct seen *old = nold ? bsearch(&key, b->seen, nold, sizeof key, seen_cmp) : NULL;
		blklat_diff(old ? old->h.count : NULL, cur.count, BLKMAP_BUCKETS, &b->delta);
		struct gained g = gained_since(old, &cur);
		if (old) {
			old->h = cur;
			old->live = 1;
			old->moved = b->delta.n > 0 || g.bytes > 0;
			old->idle = old->moved ? 0 : old->idle + 1;
		} else if (util_grow((void **)&b->seen, &b->cap, b->nseen + 1, sizeof *b->seen) == 0) {
			b->seen[b->nseen++] = (struct seen){.key = keys[i], .h = cur, .live = 1, .moved = 1};
		}
		/* bytes with no request of its own: bios merged into another's
		 * request (charged to their own owner apart) */
		if (b->delta.n == 0 && !g.bytes)
			continue;
		stat_from(&r->stats[r->nstats++], &keys[i], dev_name(b, keys[i].dev), &b->delta, g);
		if (b->pool && !b->pool->from_submission)
			pool_add(b, &keys[i], &b->delta, g.bytes);
		if (keys[i].tgid != at.tgid || keys[i].start != at.start || keys[i].op != at.op) {
			int e = group_end(b, r, &at, group);
			err = err ? err : e;
			at = keys[i];
			group = (struct gained){0};
		}
		hist_merge(&b->group, &b->delta);
		group.bytes += g.bytes;
		group.journal += g.journal;
		group.stacked += g.stacked;
		if (g.cgroup_id)
			group.cgroup_id = g.cgroup_id;
	}
	int e = group_end(b, r, &at, group);
	err = err ? err : e;
	free(keys);
	if (b->nseen)
		qsort(b->seen, b->nseen, sizeof *b->seen, seen_cmp);
	forget_gone(b, fd);
	let_go_idle(b, fd);
	pool_drain(b);
	r->unattributed = count_of(b, BLKMAP_UNATTRIBUTED);
	r->untimed = count_of(b, BLKMAP_UNTIMED);
	r->uncounted = count_of(b, BLKMAP_UNCOUNTED);
	read_unattributed(b, r);
	read_behind(b, r);
	if (blklat_settle_tops(r) < 0)
		err = err ? err : -ENOMEM;
	return read_tail(b, r, err);
}

int blklat_name(struct blklat *b, int tgid, uint32_t start, char *comm, size_t len, uint64_t *cgroup_id)
{
	struct blkmap_name n;
	__u32 k = (__u32)tgid;
	if (!b || bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.names), &k, &n) != 0 || (start && n.start != start))
		return -ENOENT; /* (another process under that pid dirtied since) */
	n.comm[sizeof n.comm - 1] = '\0';
	util_strlcpy(comm, n.comm, len);
	if (cgroup_id)
		*cgroup_id = n.cgroup_id;
	return 0;
}

#endif
