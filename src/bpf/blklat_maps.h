/* blklat_maps: the layout of the maps the block-latency BPF program
 * (src/bpf/blklat.bpf.c) shares with user space (its loader src/bpf/blklat.c and
 * reader src/bpf/blklatread.c).
 * Plain C types only: this header is compiled for the BPF target too. */
#ifndef IOSCHED_BLKMAPS_H
#define IOSCHED_BLKMAPS_H

/* The same log-linear buckets as hist.h (64 sub-buckets per power of two),
 * so percentiles are read the same way as the probe's. hist.h's range is
 * kept: a request slower than 2^42 ns lands in the last bucket. */
#define BLKMAP_SUB_BITS 6
#define BLKMAP_MAX_BITS 42
#define BLKMAP_BUCKETS ((BLKMAP_MAX_BITS - BLKMAP_SUB_BITS + 1) << BLKMAP_SUB_BITS)

/* The bucket of a value in ns: hist_bucket() of src/probe/hist.c
 * without a loop or __builtin_clzll, which the BPF target lacks. A unit
 * test holds the two to the same answer. */
static inline __attribute__((always_inline)) unsigned int blkmap_bucket(unsigned long long ns)
{
	if (ns < (1u << BLKMAP_SUB_BITS))
		return (unsigned int)ns;
	unsigned long long v = ns;
	unsigned int msb = 0, shift;
	shift = (v > 0xffffffffULL) << 5; v >>= shift; msb |= shift;
	shift = (v > 0xffff) << 4; v >>= shift; msb |= shift;
	shift = (v > 0xff) << 3; v >>= shift; msb |= shift;
	shift = (v > 0xf) << 2; v >>= shift; msb |= shift;
	shift = (v > 0x3) << 1; v >>= shift; msb |= shift;
	msb |= (unsigned int)(v >> 1);
	if (msb >= BLKMAP_MAX_BITS)
		return BLKMAP_BUCKETS - 1;
	shift = msb - BLKMAP_SUB_BITS;
	return ((shift + 1) << BLKMAP_SUB_BITS) + (unsigned int)((ns >> shift) - (1u << BLKMAP_SUB_BITS));
}

enum blkmap_op { BLKMAP_READ = 0, BLKMAP_WRITE = 1 };

/* Histograms: one per (process, disk, direction), counting since the
 * entry was made. User space reads them each refresh and subtracts the
 * previous reading, so nothing is lost to a read racing an update. A
 * process is its tgid and its start time: a pid is reused, and the bytes
 * of an ended dirtier's pages written later are not the new process's. */
struct blkmap_key {
	unsigned int tgid;
	unsigned int dev;          /* the whole disk, as the kernel's MKDEV: major << 20 | minor */
	unsigned int op;           /* enum blkmap_op */
	unsigned int start;        /* the process's start, as /proc/PID/stat's field 22 (clock
				    * ticks after boot), modulo 2^32 */
};

/* A process as the programs remember it (a file's dirtier, a loop
 * device's page's writer): its tgid and start (as blkmap_key's). */
struct blkmap_owner {
	unsigned int tgid;
	unsigned int start;
};

/* Processes whose reads the live A/B's pool keeps apart between two
 * readings (blklat.bpf.c's pool_hists; drained each reading). */
#define BLKMAP_POOL_PROCS 1024

/* A submitter's name as the pool saw it (blklat.bpf.c's pool_names). */
struct blkmap_comm {
	char comm[16];
};

struct blkmap_hist {
	unsigned long long bytes;   /* bytes of the requests */
	unsigned long long journal; /* of which journal and metadata (BLKMAP_JOURNAL) */
	unsigned long long stacked; /* of which the same bytes as a write to a loop device
				     * stacked above (its file data, passed down) */
	unsigned long long cgroup_id; /* the v2 cgroup its requests were issued from, as last
				       * seen (0: none seen: all charged to it as a dirtier) */
	unsigned int count[BLKMAP_BUCKETS];
};

/* In-flight requests live in an array of slots, not a hash map: a hash
 * update took ~200 ns a request here (bpf_stats), a slot costs a few
 * memory writes. A request may use one of two slots chosen from its
 * address; it claims one by swapping its address into rq, and gives it
 * back by writing 0 there (both taken: the request goes untimed). The
 * array is mmap'd read-only by user space for the "waiting longest" list,
 * which scans it every refresh: user space sizes it before load from the
 * disks' request tags (blkmap_slot_bits), 2^12 to 2^16 slots of 64 bytes,
 * instead of always 4 MiB. */
#define BLKMAP_SLOT_BITS_MIN 12
#define BLKMAP_SLOT_BITS_MAX 16

/* Per (process, disk, kind) histograms kept at once: a reading's stats. */
#define BLKMAP_STATS 4096

/* Four slots per request that can be in flight at once (tags), as a power
 * of two within the bounds: with two choices per request the chance that
 * both are taken stays below (1/4)^2 even with every tag in use. */
static inline __attribute__((always_inline)) unsigned int blkmap_slot_bits(unsigned long long tags)
{
	unsigned int bits = BLKMAP_SLOT_BITS_MIN;
	while (bits < BLKMAP_SLOT_BITS_MAX && (1ull << bits) < 4 * tags)
		bits++;
	return bits;
}

/* The two slots of a request address (Fibonacci hashing spreads the
 * addresses of a tag set's requests, which are a fixed stride apart):
 * blkmap_slot and blkmap_slot ^ 1. */
static inline __attribute__((always_inline)) unsigned int blkmap_slot(unsigned long long rq, unsigned int bits)
{
	return (unsigned int)((rq * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

/* A request from when its owner is known (made, inserted or issued) to
 * its completion. */
struct blkmap_inflight {
	unsigned long long rq;       /* the request's address; 0: the slot is free */
	unsigned long long start_ns; /* when the owner was noted (bpf_ktime_get_ns, CLOCK_MONOTONIC) */
	unsigned long long issue_ns; /* when it went to the driver; 0: still queued */
	unsigned int tgid;
	unsigned int dev;
	unsigned int op;
	unsigned int bytes;
	unsigned int kind;           /* enum blkmap_kind */
	unsigned int start;          /* the owner's start (blkmap_key's) */
	unsigned short probe;        /* enum blkmap_watch: a read of the probe's (its reader
				      * is watched) or of the watched cgroup */
	unsigned char unattributed;  /* file data whose dirtier was not known: counted at
				      * completion, at the request's final size */
	unsigned char stacked;       /* file data a loop device above this disk wrote first:
				      * its bytes were counted there */
	unsigned long long cgroup_id; /* the submitter's v2 cgroup where it owns the request;
				       * 0 where a dirtier does (its cgroup is in names) */
};

/* What a request is, for "waited behind": whose data and why it moved. */
enum blkmap_kind {
	BLKMAP_DIRECT,             /* a process's own write (O_DIRECT, or no page cache) */
	BLKMAP_WRITEBACK,          /* page-cache data written back */
	BLKMAP_JOURNAL,            /* a block device's own pages: journal, metadata */
	BLKMAP_READ_OWN,           /* a read (its own) */
	BLKMAP_READAHEAD,
	BLKMAP_SWAP,
	BLKMAP_NKINDS
};

/* The bytes a disk served while a probe read was waiting on it, by owner
 * and kind: what the probe waited behind. The same for the reads of one
 * cgroup user space watches (watched_cgroup: a unit whose details are
 * open), told apart by who. */
enum blkmap_who { BLKMAP_FOR_PROBE, BLKMAP_FOR_UNIT };

struct blkmap_behind_key {
	unsigned int dev;
	unsigned int tgid;
	unsigned int kind;
	unsigned int who;          /* enum blkmap_who */
};

/* What a request in flight is to "waited behind" (blkmap_inflight.probe):
 * a read of the probe's or of the watched cgroup, noted, then issued
 * (counted among the waiting once it goes to the driver). */
enum blkmap_watch {
	BLKMAP_NOT_WATCHED,
	BLKMAP_PROBE_NOTED,
	BLKMAP_PROBE_ISSUED,
	BLKMAP_UNIT_NOTED,
	BLKMAP_UNIT_ISSUED,
};

#define BLKMAP_WATCHED 256          /* probe readers (one per probed disk) */
#define BLKMAP_WATCH_WORDS 64       /* watched_bits: 4096 bits, a tgid's bit is tgid % 4096 */
#define BLKMAP_BEHIND 4096
#define BLKMAP_DISKS 1024          /* disks with unattributed bytes (a hash, dev -> bytes) */

/* Writeback charged to the dirtier (blklat.bpf.c): the file a page
 * belongs to, who last dirtied it, and each dirtier's name. */
#define BLKMAP_DIRTIERS 16384
#define BLKMAP_NAMES 4096
#define BLKMAP_PASSED 1024         /* files written through loop devices lately */
#define BLKMAP_LOOP_PAGES 16384    /* pages written to loop devices from a process's memory lately */

struct blkmap_file {
	unsigned int dev;          /* the filesystem's s_dev */
	unsigned int pad;
	unsigned long long ino;
};

/* A dirtier as it was when it dirtied pages: its v2 cgroup's id (the
 * cgroup directory's inode number, bpf_get_current_cgroup_id()), its
 * name and its start (a later process under its pid is not it). 32
 * bytes, 8-byte aligned: the id first. */
struct blkmap_name {
	unsigned long long cgroup_id;
	char comm[16];
	unsigned int start;
	unsigned int pad;
};

/* Time a process spent paused in dirty-page throttling (its writes went
 * faster than its disk takes them: balance_dirty_pages), by tgid, since
 * the first pause the program saw. */
#define BLKMAP_THROTTLED 4096
struct blkmap_throttle {
	unsigned long long ns;     /* the pauses' sum */
	unsigned long long pauses;
};

/* Counters (a per-CPU array, summed by user space). */
enum blkmap_count {
	BLKMAP_UNATTRIBUTED,       /* bytes of file-data writes whose dirtier was not known */
	BLKMAP_UNTIMED,            /* requests issued while both their slots were taken */
	BLKMAP_UNCOUNTED,          /* completions left out: the hists map was full */
	BLKMAP_NCOUNTS
};

/* A claimed slot older than this is taken for a leftover (a request
 * freed on a path that neither completes nor merges it) and may be taken
 * over. Drivers time requests out after 30 s. */
#define BLKMAP_STALE_NS (600ull * 1000000000ull)

#endif
