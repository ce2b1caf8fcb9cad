/* blklat: see include/bpf/blklat.h */
#include "bpf/blklat.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blklat_maps.h"
#include "bpfready.h"
#include "base/util.h"

_Static_assert(BLKMAP_BUCKETS == HIST_BUCKETS, "the BPF histogram must use hist.h's buckets");

const char *blk_kind_name(enum blk_kind k)
{
	static const char *const names[] = {"direct", "writeback", "journal", "read", "readahead", "swap"};
	return k < BLK_NKINDS ? names[k] : "?";
}

const char *blk_op_name(enum blk_op op)
{
	return op == BLK_WRITE ? "write" : "read";
}

void blklat_diff(const uint32_t *prev, const uint32_t *cur, size_t nbuckets, struct hist *out)
{
	hist_reset(out);
	int first = -1, last = -1;
	for (size_t b = 0; b < nbuckets && b < HIST_BUCKETS; b++) {
		uint32_t d = prev && cur[b] >= prev[b] ? cur[b] - prev[b] : cur[b];
		out->count[b] = d;
		out->n += d;
		if (d) {
			if (first < 0)
				first = (int)b;
			last = (int)b;
		}
	}
	if (first >= 0) {
		uint64_t lo, hi;
		hist_bucket_range((unsigned)first, &out->min_ns, &hi);
		hist_bucket_range((unsigned)last, &lo, &out->max_ns);
	}
}

void blklat_format_pair(uint64_t n, uint64_t p50_ns, uint64_t p99_ns, char *buf, size_t len)
{
	if (!hist_enough(n, 0.50)) {
		util_strlcpy(buf, "-", len);
		return;
	}
	char lo[24], hi[24] = "-";
	util_format_latency(p50_ns, lo, sizeof lo);
	if (hist_enough(n, 0.99))
		util_format_latency(p99_ns, hi, sizeof hi);
	util_fmt(buf, len, "%s/%s", lo, hi);
}

static int proc_by_tgid(const void *a, const void *b)
{
	const struct blk_proc *x = a, *y = b;
	return (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

const struct blk_proc *blklat_find_proc(const struct blk_reading *r, int tgid)
{
	struct blk_proc key = {.tgid = tgid};
	return r->nprocs ? bsearch(&key, r->procs, r->nprocs, sizeof key, proc_by_tgid) : NULL;
}

/* A disk's bytes of tgid's stats from the first, both directions. */
static uint64_t disk_bytes(const struct blk_reading *r, size_t first, int tgid, const char *disk)
{
	uint64_t sum = 0;
	for (size_t j = first; j < r->nstats; j++) {
		const struct blk_stat *st = &r->stats[j];
		if (st->tgid == tgid && !strcmp(st->disk, disk))
			sum += st->bytes - (st->stacked_bytes < st->bytes ? st->stacked_bytes : st->bytes);
	}
	return sum;
}

const char *blklat_top_disk(const struct blk_reading *r, int tgid)
{
	/* A process has a few entries (disks x 2 directions): a scan of the
	 * reading, not a map, also for a replay's stats in any order. */
	const char *best = NULL;
	uint64_t most = 0;
	for (size_t i = 0; i < r->nstats; i++) {
		if (r->stats[i].tgid != tgid)
			continue;
		uint64_t b = disk_bytes(r, i, tgid, r->stats[i].disk);
		if (b > most) {
			most = b;
			best = r->stats[i].disk;
		}
	}
	return best;
}

static int wait_cmp(const void *a, const void *b)
{
	const struct blk_wait *x = a, *y = b;
	return (x->oldest_ns < y->oldest_ns) - (x->oldest_ns > y->oldest_ns);
}

size_t blklat_waiting(const struct blk_reading *r, const char *disk, unsigned long long in_flight,
		      struct blk_wait *out, size_t max)
{
	struct blk_wait w[64];
	size_t n = 0;
	unsigned long long issued = 0;
	/* Youngest first: the issued ones past the kernel's count are the
	 * oldest, the leftovers. */
	for (size_t i = 0; i < r->nreqs; i++) {
		const struct blk_req *q = &r->reqs[i];
		if (strcmp(q->disk, disk) != 0 || (q->issued && ++issued > in_flight))
			continue;
		size_t k = 0;
		while (k < n && w[k].tgid != q->tgid)
			k++;
		if (k == n) {
			if (n == sizeof w / sizeof w[0])
				continue;
			w[n++] = (struct blk_wait){.tgid = q->tgid};
		}
		w[k].inflight++;
		if (q->age_ns > w[k].oldest_ns)
			w[k].oldest_ns = q->age_ns;
	}
	qsort(w, n, sizeof w[0], wait_cmp);
	if (n > max)
		n = max;
	memcpy(out, w, n * sizeof w[0]);
	return n;
}

void blk_reading_free(struct blk_reading *r)
{
	free(r->stats);
	free(r->procs);
	free(r->reqs);
	free(r->behind);
	free(r->unattr);
	memset(r, 0, sizeof *r);
}

#ifndef HAVE_BPF

int blklat_open(struct blklat **out, char *why, size_t len)
{
	*out = NULL;
	util_strlcpy(why, "built without BPF (make found no clang, bpftool or libbpf)", len);
	return -ENOTSUP;
}

const char *blklat_owner_stage(const struct blklat *b)
{
	(void)b;
	return "";
}

int blklat_read(struct blklat *b, struct blk_reading *r)
{
	(void)b;
	(void)r;
	return -ENOTSUP;
}

void blklat_watch(struct blklat *b, const int *tgids, size_t n)
{
	(void)b;
	(void)tgids;
	(void)n;
}

int blklat_name(struct blklat *b, int tgid, char *comm, size_t len)
{
	(void)b;
	(void)tgid;
	(void)comm;
	(void)len;
	return -ENOENT;
}

void blklat_close(struct blklat *b)
{
	(void)b;
}

#else

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <limits.h>
#include <sys/mman.h>
#include <time.h>

#include "blklat.skel.h"

/* The last reading of one histogram entry, to subtract from the next. */
struct seen {
	struct blkmap_key key;
	struct blkmap_hist h;
	int live;                  /* present in the latest reading */
	int moved;                 /* ... and grew since the one before */
};

/* A device number resolved to a disk name. */
struct devname {
	unsigned dev;
	char name[DISK_NAME_MAX];
};

struct blklat {
	struct blklat_bpf *skel;
	int stage;                 /* 0 io_start, 1 insert, 2 issue (as owner_stage) */
	struct seen *seen;
	size_t nseen, cap;
	struct devname *names;
	size_t nnames;
	/* One reading's delta of one key, and the sum over the disks of one
	 * (process, direction): the keys come sorted by process, direction
	 * and disk, so one of each does (a histogram per key was 9.5 KiB a
	 * key, for as long as the process did I/O). */
	struct hist delta, group;
	const struct blkmap_inflight *slots; /* the in-flight array, mapped read-only */
	size_t slots_len;
	unsigned nslots;
	struct found { unsigned slot; struct blkmap_inflight f; } *found; /* read_reqs' first pass */
	size_t nfound, found_cap;
	/* "waited behind": the last reading of each key, and the probe readers watched */
	struct behind_seen { struct blkmap_behind_key k; uint64_t bytes; } *bseen;
	size_t nbseen, bseen_cap;
	int watched[BLKMAP_WATCHED];
	size_t nwatched;
};

static const char *const stage_names[] = {"block_io_start", "block_rq_insert", "block_rq_issue"};

const char *blklat_owner_stage(const struct blklat *b)
{
	return b ? stage_names[b->stage] : "";
}

/* Which block tracepoints this kernel has, from its BTF (a raw
 * tracepoint NAME has the type btf_trace_NAME). */
struct tracepoints {
	int complete;              /* block_rq_issue and block_rq_complete */
	int io_start, insert, merge;
	int dirty;                 /* writeback_dirty_folio: writeback charged to the dirtier */
};

static int tracepoint_in(const struct btf *vm, const char *name)
{
#ifdef BLKLAT_TEST_NO_IO_START
	/* A test build: act as a kernel before 6.5, which lacks block_io_start. */
	if (strcmp(name, "block_io_start") == 0)
		return 0;
#endif
	char type[64];
	util_fmt(type, sizeof type, "btf_trace_%s", name);
	return btf__find_by_name_kind(vm, type, BTF_KIND_TYPEDEF) > 0;
}

/* One parse of the kernel's BTF answers all five questions. It is 5 MiB
 * and takes about 0.25 s to parse (5 s under valgrind); asking through
 * libbpf_find_vmlinux_btf_id parsed it again for each name, which made
 * block latency come on a second later, and 25 s later under valgrind.
 * libbpf parses it once more for the load: it takes a path, not a parsed
 * BTF. Returns 0 or a negative errno. */
static int tracepoints_find(struct tracepoints *tp)
{
	struct btf *vm = btf__load_vmlinux_btf();
	int err = libbpf_get_error(vm);
	if (err)
		return err < 0 ? err : -err;
	tp->complete = tracepoint_in(vm, "block_rq_issue") && tracepoint_in(vm, "block_rq_complete");
	tp->io_start = tracepoint_in(vm, "block_io_start");
	tp->insert = tracepoint_in(vm, "block_rq_insert");
	tp->merge = tracepoint_in(vm, "block_rq_merge");
	tp->dirty = tracepoint_in(vm, "writeback_dirty_folio");
	btf__free(vm);
	return 0;
}

/* How many requests can be in flight on the disks there are now: per
 * disk, its hardware queues times the larger of their driver tags and
 * nr_requests (the scheduler's tags). A disk plugged in later has none
 * counted: a fuller array only means more requests left untimed. Nor has
 * a disk of size 0 (a detached loop device, a reader without a card): it
 * can have no request until it gets a medium, and counting the 40-odd
 * idle loop devices a system keeps made the array (which the tool scans
 * every refresh, so all of it is resident) 1.3 MiB instead of 160 KiB. */
static unsigned long long count_tags(void)
{
	unsigned long long total = 0;
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[PATH_MAX];
		uint64_t per = 0, v = 0, hctx = 0;
		if (util_pathf(path, sizeof path, "/sys/block/%s/size", e->d_name) < 0 ||
		    util_read_u64(path, &v) < 0 || v == 0)
			continue;
		if (util_pathf(path, sizeof path, "/sys/block/%s/queue/nr_requests", e->d_name) == 0 &&
		    util_read_u64(path, &v) == 0)
			per = v;
		if (util_pathf(path, sizeof path, "/sys/block/%s/mq/0/nr_tags", e->d_name) == 0 &&
		    util_read_u64(path, &v) == 0 && v > per)
			per = v;
		DIR *q = util_pathf(path, sizeof path, "/sys/block/%s/mq", e->d_name) == 0 ? opendir(path) : NULL;
		struct dirent *h;
		while (q && (h = readdir(q)))
			hctx += h->d_name[0] != '.';
		if (q)
			closedir(q);
		total += per * (hctx ? hctx : 1);
	}
	if (d)
		closedir(d);
	return total;
}

static int fail(struct blklat *b, int err, char *why, size_t len, const char *what)
{
	util_fmt(why, len, "%s: %s", what, strerror(err > 0 ? err : -err));
	blklat_close(b);
	return err > 0 ? -err : err;
}

int blklat_open(struct blklat **out, char *why, size_t len)
{
	*out = NULL;
	int ready = bpfready_check(why, len);
	if (ready < 0)
		return ready;
	struct tracepoints tp = {0};
	int err = tracepoints_find(&tp);
	if (err) {
		util_fmt(why, len, "cannot read the kernel's BTF: %s", strerror(-err));
		return err;
	}
	if (!tp.complete) {
		util_strlcpy(why, "the kernel has no block_rq_issue/complete tracepoints", len);
		return -ENOENT;
	}
	struct blklat *b = calloc(1, sizeof *b);
	if (!b) {
		util_strlcpy(why, "out of memory", len);
		return -ENOMEM;
	}
	b->skel = blklat_bpf__open();
	if (!b->skel)
		return fail(b, errno ? errno : EINVAL, why, len, "BPF open failed");
	/* The owner comes from the earliest tracepoint this kernel has; the
	 * programs of the others are not loaded at all. */
	b->stage = tp.io_start ? 0 : tp.insert ? 1 : 2;
	b->skel->rodata->owner_stage = b->stage;
	bpf_program__set_autoload(b->skel->progs.on_io_start, b->stage == 0);
	bpf_program__set_autoload(b->skel->progs.on_insert, b->stage == 1);
	bpf_program__set_autoload(b->skel->progs.on_merge, tp.merge);
	/* Before 5.17 (writeback_dirty_page): writeback stays with the flusher. */
	bpf_program__set_autoload(b->skel->progs.on_dirty, tp.dirty);
	unsigned bits = blkmap_slot_bits(count_tags());
	b->nslots = 1u << bits;
	b->skel->rodata->slot_bits = bits;
	err = bpf_map__set_max_entries(b->skel->maps.inflight, b->nslots);
#ifdef BLKLAT_TEST_DIRTIERS
	/* A test build: a map of dirtied files small enough to overflow. */
	if (!err)
		err = bpf_map__set_max_entries(b->skel->maps.dirtier, BLKLAT_TEST_DIRTIERS);
#endif
	if (!err)
		err = blklat_bpf__load(b->skel);
	if (err)
		return fail(b, err, why, len, "BPF load failed");
	b->slots_len = b->nslots * sizeof *b->slots;
	void *m = mmap(NULL, b->slots_len, PROT_READ, MAP_SHARED, bpf_map__fd(b->skel->maps.inflight), 0);
	if (m == MAP_FAILED)
		return fail(b, errno, why, len, "BPF map mmap failed");
	b->slots = m;
	err = blklat_bpf__attach(b->skel);
	if (err)
		return fail(b, err, why, len, "BPF attach failed");
	*out = b;
	why[0] = '\0';
	return 0;
}

static int key_cmp(const struct blkmap_key *x, const struct blkmap_key *y)
{
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
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
struct gained { uint64_t bytes, journal, stacked; };

static void stat_from(struct blk_stat *st, const struct blkmap_key *k, const char *disk, const struct hist *h,
		      struct gained g)
{
	st->tgid = (int)k->tgid;
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
	if (b->group.n == 0)
		return 0;
	if (!r->nprocs || r->procs[r->nprocs - 1].tgid != tgid) {
		err = util_grow((void **)&r->procs, &r->procs_cap, r->nprocs + 1, sizeof *r->procs);
		if (!err)
			r->procs[r->nprocs++] = (struct blk_proc){.tgid = tgid};
	}
	if (!err) {
		struct blk_proc *p = &r->procs[r->nprocs - 1];
		p->n[op] = b->group.n;
		/* each byte once: at the top of a stack (a copy racing the
		 * program may see stacked ahead of bytes for a moment) */
		p->bytes[op] = g.bytes > g.stacked ? g.bytes - g.stacked : 0;
		if (op == BLK_WRITE)
			p->journal_bytes = g.journal;
		p->p50_ns[op] = hist_quantile(&b->group, 0.50);
		p->p99_ns[op] = hist_quantile(&b->group, 0.99);
	}
	hist_reset(&b->group);
	return err;
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
		int gone = !s->live || (!s->moved && kill((pid_t)s->key.tgid, 0) != 0 && errno == ESRCH);
		if (gone && s->live)
			bpf_map_delete_elem(fd, &s->key);
		if (!gone)
			b->seen[w++] = *s;
	}
	b->nseen = w;
}

static int same_set(const int *a, size_t na, const int *b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++) {
		size_t k = 0;
		while (k < nb && b[k] != a[i])
			k++;
		if (k == nb)
			return 0;
	}
	return 1;
}

/* The programs' quick test of "a probe reader?" (watched_bits in
 * blklat.bpf.c): with add, tgids' bits are set beside the ones there;
 * without, the words become exactly tgids' bits. */
static void watch_bits(struct blklat *b, const int *tgids, size_t n, int add)
{
	__u64 bits[BLKMAP_WATCH_WORDS] = {0};
	for (size_t i = 0; i < n; i++) {
		__u32 t = (__u32)tgids[i];
		bits[(t / 64) % BLKMAP_WATCH_WORDS] |= 1ull << (t % 64);
	}
	for (size_t w = 0; w < BLKMAP_WATCH_WORDS; w++) {
		__u64 v = add ? b->skel->bss->watched_bits[w] | bits[w] : bits[w];
		__atomic_store_n(&b->skel->bss->watched_bits[w], v, __ATOMIC_RELEASE);
	}
}

void blklat_watch(struct blklat *b, const int *tgids, size_t n)
{
	if (!b || same_set(b->watched, b->nwatched, tgids, n))
		return; /* the usual tick: no system call */
	int fd = bpf_map__fd(b->skel->maps.watched);
	__u32 one = 1;
	watch_bits(b, tgids, n, 1); /* a new reader's bit before its entry */
	for (size_t i = 0; i < b->nwatched; i++) { /* gone from the set: out of the map */
		size_t k = 0;
		while (k < n && tgids[k] != b->watched[i])
			k++;
		if (k == n) {
			__u32 t = (__u32)b->watched[i];
			bpf_map_delete_elem(fd, &t);
		}
	}
	b->nwatched = 0;
	for (size_t i = 0; i < n && b->nwatched < BLKMAP_WATCHED; i++) {
		__u32 t = (__u32)tgids[i];
		bpf_map_update_elem(fd, &t, &one, BPF_ANY);
		b->watched[b->nwatched++] = tgids[i];
	}
	watch_bits(b, b->watched, b->nwatched, 0); /* and a gone one's bit after its entry */
}

static int bkey_cmp(const void *x, const void *y)
{
	return memcmp(&((const struct behind_seen *)x)->k, &((const struct behind_seen *)y)->k,
		      sizeof(struct blkmap_behind_key));
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
	r->nbehind = 0;
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
		if (!d || util_grow((void **)&r->behind, &r->behind_cap, r->nbehind + 1, sizeof *r->behind) < 0)
			continue;
		struct blk_behind *e = &r->behind[r->nbehind++];
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
		struct gained g = {
			old && cur.bytes >= old->h.bytes ? cur.bytes - old->h.bytes : cur.bytes,
			old && cur.journal >= old->h.journal ? cur.journal - old->h.journal : cur.journal,
			old && cur.stacked >= old->h.stacked ? cur.stacked - old->h.stacked : cur.stacked,
		};
		if (old) {
			old->h = cur;
			old->live = 1;
			old->moved = b->delta.n > 0;
		} else if (util_grow((void **)&b->seen, &b->cap, b->nseen + 1, sizeof *b->seen) == 0) {
			b->seen[b->nseen++] = (struct seen){.key = keys[i], .h = cur, .live = 1, .moved = 1};
		}
		if (b->delta.n == 0)
			continue;
		stat_from(&r->stats[r->nstats++], &keys[i], dev_name(b, keys[i].dev), &b->delta, g);
		if (keys[i].tgid != at.tgid || keys[i].op != at.op) {
			int e = group_end(b, r, &at, group);
			err = err ? err : e;
			at = keys[i];
			group = (struct gained){0};
		}
		hist_merge(&b->group, &b->delta);
		group.bytes += g.bytes;
		group.journal += g.journal;
		group.stacked += g.stacked;
	}
	int e = group_end(b, r, &at, group);
	err = err ? err : e;
	free(keys);
	if (b->nseen)
		qsort(b->seen, b->nseen, sizeof *b->seen, seen_cmp);
	forget_gone(b, fd);
	r->unattributed = count_of(b, BLKMAP_UNATTRIBUTED);
	r->untimed = count_of(b, BLKMAP_UNTIMED);
	r->uncounted = count_of(b, BLKMAP_UNCOUNTED);
	read_unattributed(b, r);
	read_behind(b, r);
	return err ? err : read_reqs(b, r);
}

int blklat_name(struct blklat *b, int tgid, char *comm, size_t len)
{
	struct blkmap_name n;
	__u32 k = (__u32)tgid;
	if (!b || bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.names), &k, &n) != 0)
		return -ENOENT;
	n.comm[sizeof n.comm - 1] = '\0';
	util_strlcpy(comm, n.comm, len);
	return 0;
}

void blklat_close(struct blklat *b)
{
	if (!b)
		return;
	if (b->slots)
		munmap((void *)b->slots, b->slots_len);
	blklat_bpf__destroy(b->skel);
	free(b->seen);
	free(b->names);
	free(b->found);
	free(b->bseen);
	free(b);
}

#endif
