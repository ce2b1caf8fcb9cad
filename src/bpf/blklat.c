/* blklat: see include/bpf/blklat.h. The loader: the checks before a
 * load, the tracepoints this kernel has (the owner of a request from the
 * earliest of block_io_start, block_rq_insert, block_rq_issue; merges
 * and dirtiers when there), the in-flight array sized to the disks' tags,
 * the programs loaded and attached (or why not, in one line), the probe
 * readers they watch, and the close. Its two test builds (the Makefile's
 * noiostart and smallmaps) compile this file with BLKLAT_TEST_*. The
 * maps are read in blklatread.c, a reading asked in blklatquery.c. */
#include "bpf/blklat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Built without BPF: the whole API answers here (blklatread.c's calls
 * too), the part off and saying why. */
#ifndef HAVE_BPF

/* A process's start in /proc/PID/stat's ticks (USER_HZ), so the start
 * the programs key a process by is the one procs reads. */
static void tick_setup(struct blklat *b)
{
	long hz = sysconf(_SC_CLK_TCK);
	b->skel->rodata->ns_per_tick = hz > 0 ? (uint64_t)(1000000000L / hz) : 0;
}

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

void blklat_watch_cgroup(struct blklat *b, uint64_t id)
{
	(void)b;
	(void)id;
}

int blklat_name(struct blklat *b, int tgid, uint32_t start, char *comm, size_t len, uint64_t *cgroup_id)
{
	(void)b;
	(void)tgid;
	(void)start;
	(void)comm;
	(void)len;
	(void)cgroup_id;
	return -ENOENT;
}

void blklat_close(struct blklat *b)
{
	(void)b;
}

int blklat_pool(struct blklat *b, const char *disk)
{
	(void)b;
	(void)disk;
	return -ENOTSUP;
}

void blklat_pool_take(struct blklat *b, struct blk_pool *out)
{
	(void)b;
	memset(out, 0, sizeof *out);
}

int blklat_pool_from_submission(const struct blklat *b)
{
	(void)b;
	return 0;
}

#else

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <limits.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "blklatparts.h"
#include "bpfready.h"

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
	int bio_queue;             /* block_bio_queue(bio) (5.11 on; before, it took the queue too) */
	int throttle_args;         /* balance_dirty_pages's: 8 (dtc), 12 (thresholds), or another count */
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

/* How many arguments tracepoint name passes (its btf_trace_ typedef is a
 * pointer to a function whose first parameter is the context); -1 when
 * the kernel has none of that name. */
static int tracepoint_args(const struct btf *vm, const char *name)
{
	char type[64];
	util_fmt(type, sizeof type, "btf_trace_%s", name);
	int id = btf__find_by_name_kind(vm, type, BTF_KIND_TYPEDEF);
	const struct btf_type *t = id > 0 ? btf__type_by_id(vm, id) : NULL;
	t = t ? btf__type_by_id(vm, t->type) : NULL;
	t = t && btf_is_ptr(t) ? btf__type_by_id(vm, t->type) : NULL;
	return t && btf_is_func_proto(t) ? (int)btf_vlen(t) - 1 : -1;
}

/* One parse of the kernel's BTF answers all six questions. It is 5 MiB
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
	tp->bio_queue = tracepoint_args(vm, "block_bio_queue") == 1;
	tp->throttle_args = tracepoint_args(vm, "balance_dirty_pages");
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

/* The kernel's jiffy in ns: the coarse clocks tick once a jiffy, and
 * their resolution says how long one is (4 ms at HZ 250). 0: not known. */
static uint64_t jiffy_ns(void)
{
	struct timespec res;
	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) < 0 || res.tv_sec || res.tv_nsec < 1000000)
		return 0; /* not a tick (HZ is 100 to 1000) */
	return (uint64_t)res.tv_nsec;
}

/* Dirty-page throttling's pauses: the program whose arguments match this
 * kernel's tracepoint, none where it has neither shape or the jiffy is
 * not known (then no throttled figures). */
static void throttle_setup(struct blklat *b, const struct tracepoints *tp)
{
	uint64_t ns = jiffy_ns();
	b->throttle_on = ns && (tp->throttle_args == 8 || tp->throttle_args == 12);
	b->skel->rodata->ns_per_jiffy = ns;
	bpf_program__set_autoload(b->skel->progs.on_throttle, b->throttle_on && tp->throttle_args == 8);
	bpf_program__set_autoload(b->skel->progs.on_throttle_wide, b->throttle_on && tp->throttle_args == 12);
}

/* A process's start in /proc/PID/stat's ticks (USER_HZ), so the start
 * the programs key a process by is the one procs reads. */
static void tick_setup(struct blklat *b)
{
	long hz = sysconf(_SC_CLK_TCK);
	b->skel->rodata->ns_per_tick = hz > 0 ? (uint64_t)(1000000000L / hz) : 0;
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
	/* Every bio passes it: attached only while a live A/B pools a disk. */
	b->can_submit = tp.bio_queue;
	bpf_program__set_autoload(b->skel->progs.on_bio_queue, tp.bio_queue);
	bpf_program__set_autoattach(b->skel->progs.on_bio_queue, false);
	throttle_setup(b, &tp);
	tick_setup(b);
	unsigned bits = blkmap_slot_bits(count_tags());
	b->nslots = 1u << bits;
	b->skel->rodata->slot_bits = bits;
	err = bpf_map__set_max_entries(b->skel->maps.inflight, b->nslots);
#ifdef BLKLAT_TEST_DIRTIERS
	/* A test build: a map of dirtied files small enough to overflow. */
	if (!err)
		err = bpf_map__set_max_entries(b->skel->maps.dirtier, BLKLAT_TEST_DIRTIERS);
#endif
#ifdef BLKLAT_TEST_STATS
	/* ... and a table of (process, disk, op) entries a few processes fill */
	if (!err)
		err = bpf_map__set_max_entries(b->skel->maps.hists, BLKLAT_TEST_STATS);
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
void blklat_watch_cgroup(struct blklat *b, uint64_t id)
{
	if (b)
		__atomic_store_n(&b->skel->bss->watched_cgroup, id, __ATOMIC_RELEASE);
}

void blklat_close(struct blklat *b)
{
	if (!b)
		return;
	if (b->slots)
		munmap((void *)b->slots, b->slots_len);
	bpf_link__destroy(b->pool_link);
	blklat_bpf__destroy(b->skel);
	free(b->seen);
	free(b->names);
	free(b->found);
	free(b->bseen);
	free(b->tseen);
	free(b->pool);
	free(b);
}

#endif
