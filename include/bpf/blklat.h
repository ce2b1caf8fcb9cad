/* blklat: block-layer latency per process, per disk, per direction, from
 * the optional BPF program (src/bpf/blklat.bpf.c). Every request is timed
 * from issue to completion and charged to the process that submitted it,
 * or for writeback to the process that dirtied the pages; what this leaves
 * out (a loop device's backing file is read by its worker) is said in the
 * man page. It also says what the probe's reads waited behind. Without BPF support in the build, without privileges or
 * kernel BTF, or when loading fails, blklat_open says why in one line and
 * the rest of the tool runs as before. */
#ifndef IOSCHED_BLKLAT_H
#define IOSCHED_BLKLAT_H

#include <stddef.h>
#include <stdint.h>

#include "read/disk.h"
#include "probe/hist.h"

enum blk_op { BLK_READ = 0, BLK_WRITE = 1 };

/* "read", "write". */
const char *blk_op_name(enum blk_op op);

/* Why a request moved (blkmaps.h's enum blkmap_kind, the same values). */
enum blk_kind { BLK_DIRECT, BLK_WRITEBACK, BLK_JOURNAL, BLK_READ_OWN, BLK_READAHEAD, BLK_SWAP, BLK_NKINDS };

/* "direct", "writeback", "journal", "read", "readahead", "swap". */
const char *blk_kind_name(enum blk_kind k);

/* Bytes a disk served, over the interval, while a probe read waited on
 * it: one owner and kind. */
struct blk_behind {
	int tgid;
	char disk[DISK_NAME_MAX];
	enum blk_kind kind;
	uint64_t bytes;
};

/* One process on one disk in one direction, over the interval. */
struct blk_stat {
	int tgid;
	uint32_t start;                   /* the process's start (blk_proc's) */
	char disk[DISK_NAME_MAX];
	enum blk_op op;
	uint64_t n, bytes;
	uint64_t journal_bytes;           /* of bytes, journal and metadata (BLK_JOURNAL) */
	uint64_t stacked_bytes;           /* of bytes, the same bytes as a write to a device stacked
					   * above this disk (counted once: there) */
	uint64_t p50_ns, p99_ns, max_ns;  /* quantiles: see hist_enough */
};

/* One process over every disk, per direction (the process pane's columns).
 * Each byte is counted once: bytes[BLK_WRITE] leaves out what a disk
 * wrote for a device stacked on it (blk_stat.stacked_bytes). */
struct blk_proc {
	int tgid;
	/* its start, as /proc/PID/stat's field 22 (clock ticks after boot)
	 * modulo 2^32: a later process under the same pid is another entry
	 * (0: not known, as in a replay) */
	uint32_t start;
	uint64_t n[2], bytes[2];
	/* its TO-DISK: of its writes, those on the disks "to disks" counts
	 * (the sample settles it: sample_settle_to_disk; a stack's bottom,
	 * where bytes[BLK_WRITE] counts its top); bytes[BLK_WRITE] as read */
	uint64_t to_disk_bytes;
	uint64_t journal_bytes;           /* of bytes[BLK_WRITE], journal and metadata */
	uint64_t cgroup_id;               /* the v2 cgroup it issued requests from (0: not seen) */
	uint64_t p50_ns[2], p99_ns[2];
	/* a writer's name and v2 cgroup id when it dirtied its pages, for one
	 * that has ended by the time they are written (blklat_name; "" and
	 * 0: not known) */
	char dirtier_comm[16];
	uint64_t dirtier_cgroup_id;
};

/* A disk's bytes of file-data writes since start whose dirtier was not
 * known (they stay with who issued them). */
struct blk_unattr {
	char disk[DISK_NAME_MAX];
	uint64_t bytes;
};

/* One request in flight at the reading (from the BPF program's slots). */
struct blk_req {
	int tgid;
	char disk[DISK_NAME_MAX];
	int issued;                       /* handed to the driver (else queued in the scheduler) */
	uint64_t age_ns;                  /* since it was made */
};

/* A process with requests in flight on a disk. */
struct blk_wait {
	int tgid;
	unsigned inflight;
	uint64_t oldest_ns;               /* age of its oldest request */
};

/* What one reading gives; arrays are reused from reading to reading.
 * stats are sorted by tgid, op, device; procs by tgid; reqs youngest
 * first. */
/* The most a live reading holds (the BPF maps' sizes, blklat_maps.h): a
 * replayed one keeps no more, whatever a recording's line lists. */
#define BLK_STATS_MAX 4096
#define BLK_REQS_MAX 65536

struct blk_reading {
	struct blk_stat *stats;
	size_t nstats, stats_cap;
	struct blk_proc *procs;
	size_t nprocs, procs_cap;
	/* What the attribution lost since start (the BPF maps are bounded):
	 * bytes of file-data writes whose dirtier was not known (dirtied
	 * before the start, or forgotten by the LRU map of dirtied files);
	 * requests not timed (no free slot); completions not counted (the
	 * per-process map full). */
	uint64_t unattributed, untimed, uncounted;
	struct blk_unattr *unattr;         /* unattributed, per disk */
	size_t nunattr, unattr_cap;
	struct blk_behind *behind;
	size_t nbehind, behind_cap;
	/* The same for the reads of the watched cgroup (blklat_watch_cgroup) */
	struct blk_behind *unit_behind;
	size_t nunit_behind, unit_behind_cap;
	struct blk_req *reqs;
	size_t nreqs, reqs_cap;
	/* Each process's disk of most bytes (blklat_settle_tops), by tgid */
	struct blk_top { int tgid; const char *disk; } *tops;
	size_t ntops, tops_cap;
	/* Time each process spent paused in dirty-page throttling in the
	 * interval (balance_dirty_pages: it dirtied pages faster than its
	 * disks write them), by tgid, only the ones paused; throttle_on 0:
	 * not measured (the kernel's tracepoint has another shape) */
	struct blk_throttle { int tgid; uint64_t ns; } *throttled;
	size_t nthrottled, throttled_cap;
	int throttle_on;
};

struct blklat;

/* The probe's reader processes (their reads are what "waited behind" is
 * about): exactly these from now on. */
void blklat_watch(struct blklat *b, const int *tgids, size_t n);

/* The cgroup v2 id (its directory's inode number) whose reads are
 * watched from now on: what the disks serve while one of them waits is
 * read into unit_behind. 0: none (a request then pays nothing for it). */
void blklat_watch_cgroup(struct blklat *b, uint64_t id);

/* The name a process had when it dirtied pages (for a writer that has
 * exited by the time its pages are written; with start not 0, only if
 * the process noted under tgid started then), and into *cgroup_id (when
 * not NULL) the id of the v2 cgroup it dirtied them in (the cgroup
 * directory's inode number; 0: none). Returns 0, or -ENOENT. */
int blklat_name(struct blklat *b, int tgid, uint32_t start, char *comm, size_t len, uint64_t *cgroup_id);

/* The reads of one disk by the programs on it, pooled (the live A/B's
 * figure: what its user's programs waited for, from each read's
 * submission to its completion where the kernel allows, see
 * from_submission):
 * once blklat_pool names a disk, each blklat_read adds that disk's reads,
 * none of the watched probe readers' (blklat_watch), to a pool, in all and
 * per process name (the first BLK_POOL_NAMES names; later ones count in
 * other_n). blklat_pool_take hands the pool over and empties it. */
#define BLK_POOL_NAMES 8
struct blk_pool_name {
	char comm[16];                    /* "pid N" for a process gone before its name was read */
	struct hist h;
	uint64_t bytes;
};
struct blk_pool {
	struct hist all;
	uint64_t bytes;
	struct blk_pool_name name[BLK_POOL_NAMES];
	size_t nnames;
	uint64_t other_n;                 /* reads of processes past the named ones */
	int from_submission;              /* timed from each read's submission (the wait for the
					   * scheduler and for a tag in it); 0: from issue to the
					   * driver, as the other block figures (a kernel before 5.11) */
};

/* One process name's reads (delta, bytes) into the pool; with the table
 * full, a name with more reads in this delta than the table's least
 * takes its place (that one's reads go to other_n). */
void blkpool_add(struct blk_pool *p, const char *comm, const struct hist *delta, uint64_t bytes);

/* Pool disk's reads from the next reading on (NULL: stop). Returns 0,
 * -ENOMEM, or -ENOTSUP without the BPF part. */
int blklat_pool(struct blklat *b, const char *disk);
void blklat_pool_take(struct blklat *b, struct blk_pool *out);

/* Whether the pool times its reads from their submission (1) or from
 * issue to the driver (0: before 5.11, or no pool). */
int blklat_pool_from_submission(const struct blklat *b);

/* Load and attach the program. On failure returns a negative errno and
 * why says in a few words what is missing ("needs root or
 * cap_bpf,cap_perfmon", "built without BPF", ...). */
int blklat_open(struct blklat **out, char *why, size_t len);

/* Which tracepoint names the owner of a request: "block_io_start",
 * "block_rq_insert" or "block_rq_issue". */
const char *blklat_owner_stage(const struct blklat *b);

/* Read what happened since the last reading (the first reading counts from
 * blklat_open). Returns 0 or a negative errno. */
int blklat_read(struct blklat *b, struct blk_reading *r);

void blklat_close(struct blklat *b);
void blk_reading_free(struct blk_reading *r);

/* The histogram of what a counter set gained from prev to cur (prev NULL:
 * from zero), bucket by bucket; n is the sum of the bucket deltas, and min
 * and max are the bounds of the lowest and highest bucket that gained.
 * A bucket that went backwards (an entry made anew) counts as cur. */
void blklat_diff(const uint32_t *prev, const uint32_t *cur, size_t nbuckets, struct hist *out);

/* Which of n table entries to let go when the table fills: those idle for
 * at least min_idle readings, the longest idle first, until n - low are
 * picked or none is left (pick[i] set to 1, else 0). Returns how many. A
 * user's thousands of processes that each did one request and sleep
 * would otherwise hold the table for good. */
size_t blklat_pick_idle(const unsigned *idle, size_t n, size_t low, unsigned min_idle, unsigned char *pick);

/* The processes waiting longest on disk, oldest first, at most max of
 * them in out; returns how many. Requests still queued all count; of
 * those issued, only the youngest in_flight do, in_flight being the
 * kernel's own count for the disk (diskstats): the kernel now and then
 * completes a request without the program seeing it, and its slot would
 * otherwise look like a request stuck for ever. */
size_t blklat_waiting(const struct blk_reading *r, const char *disk, unsigned long long in_flight,
		      struct blk_wait *out, size_t max);

/* "p50/p99", each with its unit ("120us/4.50ms"), as the process columns
 * show it; "-" where there are too few requests for p50, "p50/-" for p99. */
void blklat_format_pair(uint64_t n, uint64_t p50_ns, uint64_t p99_ns, char *buf, size_t len);

/* The blk_proc of the process tgid that started at start (ticks after
 * boot, as its row has it) in r, or NULL (r->procs sorted by tgid and
 * start). An entry whose start is not known (0, as in a replay) is any
 * process's of that pid; looked for with start 0 (a row of an exit
 * record: its start is not known), the latest of that pid: an earlier
 * one is a writer that ended before it started. */
const struct blk_proc *blklat_find_proc(const struct blk_reading *r, int tgid, unsigned long long start);

/* Whether an entry's start (have, modulo 2^32; 0: not known) may be the
 * process's that started at want (ticks after boot; 0: not known): the
 * rule blklat_find_proc matches by. */
int blklat_same_start(uint32_t have, unsigned long long want);

/* Whether st is of the process pid that started at start: the blk_proc
 * blklat_find_proc gives it is st's (a reading without processes, as a
 * replay's: st's pid is pid). */
int blklat_stat_of(const struct blk_reading *r, const struct blk_stat *st, int pid, unsigned long long start);

/* Nanoseconds process tgid was paused for dirty pages in r's interval:
 * 0 when it was not, -1 when r does not measure it (throttle_on 0). */
int64_t blklat_throttled_ns(const struct blk_reading *r, int tgid);

/* The disk each process moved most bytes on in r (reads and writes; on a
 * stack, the bytes that repeat a write to a device above are left out, so
 * a loop device's writer is named with the loop device, not the disk
 * under its file; a tie goes to the disk listed first), found once for
 * every process when r's stats are complete: one sort of the stats, where
 * a scan per row cost 8.5 s a tick for a replayed line of 40,000 stats of
 * one process. Returns 0 or -ENOMEM (then no process has a disk).
 * blklat_top_disk: tgid's, a name in r->stats, or NULL when it made no
 * requests. */
int blklat_settle_tops(struct blk_reading *r);
const char *blklat_top_disk(const struct blk_reading *r, int tgid);

#endif
