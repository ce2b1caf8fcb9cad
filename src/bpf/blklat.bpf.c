// SPDX-License-Identifier: GPL-2.0
/* blklat.bpf.c: block-layer latency per process, per disk, per direction.
 *
 * A request is timed from issue (handed to the driver) to completion and
 * charged to the process that submitted it. Who submitted it is learnt at
 * the first of these the running kernel has, in the submitter's context:
 *   block_io_start (6.5+; fired when the request is made from a bio),
 *   block_rq_insert (when it goes into the scheduler's queue),
 *   block_rq_issue (direct issue runs in the submitter; otherwise it may be
 *                   kblockd, and that is then what is charged).
 * User space turns off the programs whose tracepoint the kernel lacks, and
 * tells the others which stage owns the request (owner_stage). One map
 * entry per request carries the owner, the times and the disk from the
 * first stage to completion.
 *
 * A write of page-cache data is charged to the process that dirtied it,
 * whoever issues it (a flusher kworker, sync, another's fsync): the
 * dirtier of each file is noted when it dirties a page (writeback_dirty_folio,
 * in its own context), and a write request's first page leads back to
 * its file. A bio that merges into a request made already (block_bio_*merge,
 * in its submitter's context) has its own owner noted, and the request's
 * completion charges its bytes to that owner (merged). Writes of a block
 * device's own pages (a filesystem's journal
 * and metadata) and of pages no known process dirtied stay with the one
 * that issued them; their bytes are counted (unattributed). A loop
 * device's file data reaches the disk below it as a second request with
 * the same pages: it is charged there too, and marked as the same bytes
 * (passes_through), so user space counts each byte once.
 *
 * Only the few fields read are declared, with preserve_access_index, so
 * CO-RE relocates them against the running kernel's BTF; no vmlinux.h is
 * needed to build this. */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "blklat_maps.h"

struct gendisk {
	int major;
	int first_minor;
} __attribute__((preserve_access_index));

struct block_device {
	struct gendisk *bd_disk;
} __attribute__((preserve_access_index));

struct request_queue {
	struct gendisk *disk;
} __attribute__((preserve_access_index));

struct bvec_iter {
	unsigned long long bi_sector;
	unsigned int bi_size;
} __attribute__((preserve_access_index));

struct bio_vec;
struct bio {
	struct bio *bi_next;
	unsigned short bi_vcnt;
	struct bio_vec *bi_io_vec;
	struct block_device *bi_bdev;
	unsigned int bi_opf;
	struct bvec_iter bi_iter;
} __attribute__((preserve_access_index));

struct request {
	struct request_queue *q;
	unsigned int cmd_flags;
	unsigned int __data_len;
	struct bio *bio;
	struct bio *biotail;
} __attribute__((preserve_access_index));

struct super_block {
	unsigned int s_dev;
	unsigned long s_magic;
	struct block_device *s_bdev;
} __attribute__((preserve_access_index));

struct inode {
	unsigned long i_ino;
	struct super_block *i_sb;
} __attribute__((preserve_access_index));

struct address_space {
	struct inode *host;
} __attribute__((preserve_access_index));

struct page {
	struct address_space *mapping;
	unsigned long compound_head; /* bit 0 set: a tail page, the rest its head's address */
} __attribute__((preserve_access_index));

/* A page's flags word: a plain unsigned long until 6.17 or so, then a
 * one-member struct (memdesc_flags_t); CO-RE tells which. */
struct page___flat {
	unsigned long flags;
} __attribute__((preserve_access_index));

struct page___desc {
	struct {
		unsigned long f;
	} flags;
} __attribute__((preserve_access_index));

/* The running kernel decides the bit (CO-RE): any value will do here. */
enum pageflags {
	PG_writeback = 3,
};

struct bio_vec {
	struct page *bv_page;
} __attribute__((preserve_access_index));

struct folio;

struct task_struct {
	unsigned int flags;
	struct task_struct *group_leader;
	unsigned long long start_boottime;
} __attribute__((preserve_access_index));

/* Request flags whose bit the running kernel decides (CO-RE relocates the
 * values: any will do here). */
enum req_flag_bits {
	__REQ_RAHEAD = 11,
	__REQ_IDLE = 14,
	__REQ_SWAP = 17,
};

#define PF_KTHREAD 0x00200000
#define BDEVFS_MAGIC 0x62646576 /* a block device's own pages: journal, metadata */

/* Before 5.12 a bio named its disk, not its block device. */
struct bio___old {
	struct gendisk *bi_disk;
} __attribute__((preserve_access_index));

/* Before 5.17 the disk hung off the request itself. */
struct request___old {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

#define REQ_OP_MASK 0xff
#define REQ_OP_READ 0
#define REQ_OP_WRITE 1
#define MINORBITS 20

enum owner_stage { OWNER_IO_START = 0, OWNER_INSERT = 1, OWNER_ISSUE = 2 };

/* Set by user space before load. */
const volatile int owner_stage = OWNER_IO_START;
const volatile unsigned int slot_bits = BLKMAP_SLOT_BITS_MAX; /* and inflight's max_entries to match */
/* The kernel's jiffy in ns (user space: the coarse clocks' resolution):
 * balance_dirty_pages gives its pause in jiffies. */
const volatile __u64 ns_per_jiffy = 0;
/* A clock tick of /proc/PID/stat's start time in ns (user space:
 * 1e9 / sysconf(_SC_CLK_TCK)). */
const volatile __u64 ns_per_tick = 10000000;

/* See blkmaps.h: two candidate slots per request, claimed with a
 * compare-and-swap; block_rq_merge gives back the slot of a request merged
 * into another (it is freed without a completion). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1u << BLKMAP_SLOT_BITS_MAX);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct blkmap_inflight);
} inflight SEC(".maps");

/* Entries are ~9 KiB: made on demand, not preallocated. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BLKMAP_STATS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct blkmap_key);
	__type(value, struct blkmap_hist);
} hists SEC(".maps");

/* Who last dirtied each file (LRU: a file not dirtied for long gives way),
 * and the name and cgroup of each dirtier, for when it has exited by the
 * time its pages are written. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BLKMAP_DIRTIERS);
	__type(key, struct blkmap_file);
	__type(value, struct blkmap_owner);
} dirtier SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BLKMAP_NAMES);
	__type(key, __u32);
	__type(value, struct blkmap_name);
} names SEC(".maps");

/* The probe's readers (user space keeps the set), how many of their reads
 * are in flight per disk, and what the disk served meanwhile. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BLKMAP_WATCHED);
	__type(key, __u32);
	__type(value, __u32);
} watched SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BLKMAP_WATCHED);
	__type(key, __u32);
	__type(value, __s64);
} waiting SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BLKMAP_BEHIND);
	__type(key, struct blkmap_behind_key);
	__type(value, __u64);
} behind SEC(".maps");

/* Files whose pages a loop device wrote lately, and which loop device
 * (see passes_through). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BLKMAP_PASSED);
	__type(key, struct blkmap_file);
	__type(value, __u32);
} passed SEC(".maps");

/* Pages a process wrote to a loop device from its own memory (a direct
 * write to the device, or through a filesystem on it), by address, with
 * who and when (see direct_owner). */
struct loop_page {
	__u64 ns;
	__u32 tgid;
	__u32 start;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BLKMAP_LOOP_PAGES);
	__type(key, __u64);
	__type(value, struct loop_page);
} loop_pages SEC(".maps");

/* Reads of the watched cgroup in flight per disk (see watched_cgroup). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BLKMAP_WATCHED);
	__type(key, __u32);
	__type(value, __s64);
} unit_waiting SEC(".maps");

/* Bytes of file-data writes whose dirtier was not known, per disk. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BLKMAP_DISKS);
	__type(key, __u32);
	__type(value, __u64);
} unattributed SEC(".maps");

/* enum blkmap_count: what user space shows of the attribution's gaps. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BLKMAP_NCOUNTS);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline void count(__u32 which, __u64 v)
{
	__u64 *c = bpf_map_lookup_elem(&counts, &which);
	if (c)
		*c += v;
}

/* A zeroed value to create hists entries from: the BPF stack (512 bytes)
 * cannot hold one. Never written. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blkmap_hist);
} zero SEC(".maps");

/* The live A/B's pool (blklat_pool): the reads of one disk timed from
 * their submission (block_bio_queue) to completion, per process: what a
 * program waited for, the scheduler's queue and a wait for a tag
 * included (the histograms above start at issue, which leaves both out:
 * on a shallow queue most of the wait is there). pool_dev 0: off (the
 * submission program is attached only while a pool runs). */
__u32 pool_dev;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);   /* the bio's address */
	__type(value, __u64); /* ns at submission */
} bio_start SEC(".maps");

/* A bio merged into a request after the request's owner was known (the
 * flusher's plug joins the next file's pages to the request of the file
 * before it; a scheduler joins another process's adjacent write), or the
 * bios of a request merged into another: whose bytes they are, so that
 * the request's completion charges them to their own owner, not to the
 * owner of its first page. Found again by the bio's address, and checked
 * by its sector and age (a bio's memory is reused). */
struct blkmap_merged {
	__u32 tgid, start, kind;
	__u8 stacked, unattributed;
	__u64 cgroup_id;
	__u64 bytes, sector, ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64); /* the bio's address */
	__type(value, struct blkmap_merged);
} merged SEC(".maps");

/* Bios of a request looked at, at most, and how old a note may be to
 * count. A request can hold more (up to the device's max_segments: 254 on
 * virtio, 128 on loop), but each step of the walk costs the verifier
 * time at every start (256 made the BPF part load a second later here);
 * the rest of a longer one is counted as no one's: its first owner's
 * would let a user charge a victim by merging behind its page. */
#define MERGED_WALK 64
#define MERGED_STALE_NS 30000000000ull

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BLKMAP_POOL_PROCS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);   /* tgid of the request's owner */
	__type(value, struct blkmap_hist);
} pool_hists SEC(".maps");

/* The submitters' names, taken at submission: a short-lived reader (a
 * dd, a compiler) has often ended before user space reads its figures. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4 * BLKMAP_POOL_PROCS);
	__type(key, __u32);
	__type(value, struct blkmap_comm);
} pool_names SEC(".maps");

/* tp_btf programs may read kernel structures directly (the verifier
 * knows their types): cheaper than bpf_probe_read_kernel per field. */
static __always_inline struct gendisk *disk_of(struct request *rq)
{
	if (bpf_core_field_exists(((struct request___old *)rq)->rq_disk))
		return ((struct request___old *)rq)->rq_disk;
	return rq->q->disk;
}

static __always_inline __u32 disk_dev(struct request *rq)
{
	struct gendisk *disk = disk_of(rq);
	if (!disk)
		return 0;
	return ((__u32)disk->major << MINORBITS) | (__u32)disk->first_minor;
}

/* The running process's start as /proc/PID/stat gives it (its main
 * thread's, in clock ticks after boot; blkmap_key's start). */
static __always_inline __u32 my_start(void)
{
	/* direct loads (the verifier knows current's type): cheaper than
	 * probe reads, and this runs for every request */
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 ns = t->group_leader->start_boottime, tick = ns_per_tick;
	return tick ? (__u32)(ns / tick) : 0;
}

/* The verifier allows no arithmetic on a kernel pointer, and the slot
 * is found by hashing the request's address: the address goes through
 * a per-CPU scratch word and comes back as a plain number (root or
 * CAP_PERFMON may do this). volatile keeps clang from skipping the trip.
 * One word per program: a completion in an interrupt may run in the
 * middle of another program on the same CPU, and a shared word was
 * overwritten under it (seen here: requests never found at completion).
 * The same program does not nest: the kernel skips a recursive run. */
enum scratch_word { W_OWNER, W_ISSUE, W_MERGE, W_COMPLETE, W_BIO, W_BIO_DONE, W_BIO_MERGE, W_COUNT };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, W_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} scratch SEC(".maps");

static __always_inline __u64 addr_of(struct request *rq, __u32 word)
{
	__u64 *w = bpf_map_lookup_elem(&scratch, &word);
	if (!w)
		return 0;
	*(volatile __u64 *)w = (__u64)rq;
	return *(volatile __u64 *)w;
}

/* The same for a bio's address (the live A/B's pool keys its start on it). */
static __always_inline __u64 bio_addr(struct bio *bio, __u32 word)
{
	__u64 *w = bpf_map_lookup_elem(&scratch, &word);
	if (!w)
		return 0;
	*(volatile __u64 *)w = (__u64)bio;
	return *(volatile __u64 *)w;
}

static __always_inline struct blkmap_inflight *slot_at(__u32 i)
{
	return bpf_map_lookup_elem(&inflight, &i);
}

/* The slot rq holds, or NULL. */
static __always_inline struct blkmap_inflight *slot_find(__u64 rq)
{
	__u32 i = blkmap_slot(rq, slot_bits);
	struct blkmap_inflight *f = slot_at(i);
	if (f && f->rq == rq)
		return f;
	f = slot_at(i ^ 1);
	return f && f->rq == rq ? f : NULL;
}

/* Claim a free (or stale) slot for rq; NULL when both are busy, and the
 * request then goes untimed. */
static __always_inline struct blkmap_inflight *slot_claim(__u64 rq, __u64 now)
{
	__u32 i = blkmap_slot(rq, slot_bits);
	for (int k = 0; k < 2; k++) {
		struct blkmap_inflight *f = slot_at(i ^ k);
		if (!f)
			continue;
		__u64 old = f->rq, since = f->start_ns;
		/* Taken, and not stale; a start_ns after our now (set on
		 * another CPU a moment ago) is fresh, not a wrapped age. */
		if (old && (since >= now || now - since < BLKMAP_STALE_NS))
			continue;
		if (__sync_val_compare_and_swap(&f->rq, old, rq) == old)
			return f;
	}
	return NULL;
}

static __always_inline struct blkmap_inflight *slot_get(__u64 rq, __u64 now)
{
	struct blkmap_inflight *f = slot_find(rq);
	return f ? f : slot_claim(rq, now);
}

/* Give back every slot rq holds: two stages racing on two CPUs could
 * each have claimed one. */
static __always_inline void slot_release(__u64 rq)
{
	__u32 i = blkmap_slot(rq, slot_bits);
	for (int k = 0; k < 2; k++) {
		struct blkmap_inflight *f = slot_at(i ^ k);
		if (f && f->rq == rq)
			__sync_val_compare_and_swap(&f->rq, rq, 0);
	}
}

/* The file a mapping holds, or 0 when it is not a file's (a block device's
 * own pages: journal and metadata). Read with probe reads: the mapping may
 * come from a tail page's head (an address, not a typed pointer). */
static __always_inline int file_of(struct address_space *m, struct blkmap_file *k)
{
	struct inode *ino = m ? BPF_CORE_READ(m, host) : 0;
	struct super_block *sb = ino ? BPF_CORE_READ(ino, i_sb) : 0;
	if (!sb || BPF_CORE_READ(sb, s_magic) == BDEVFS_MAGIC)
		return 0;
	k->dev = BPF_CORE_READ(sb, s_dev);
	k->pad = 0;
	k->ino = BPF_CORE_READ(ino, i_ino);
	return 1;
}

/* The head page of pg's folio (pg itself when it is not a tail page): a
 * large folio's mapping and flags are its head's, and a bio may start in
 * the middle of one. */
static __always_inline struct page *head_of(struct page *pg)
{
	if (!bpf_core_field_exists(pg->compound_head))
		return pg;
	unsigned long ch = BPF_CORE_READ(pg, compound_head);
	return ch & 1 ? (struct page *)(ch - 1) : pg;
}

/* Whether a (head) page is being written back: set by the filesystem
 * before it submits the page and cleared when the write completes. */
static __always_inline int page_under_writeback(struct page *head)
{
	unsigned long fl = 0;
	__u32 off;
	if (bpf_core_field_exists(((struct page___desc *)head)->flags))
		off = bpf_core_field_offset(struct page___desc, flags);
	else if (bpf_core_field_exists(((struct page___flat *)head)->flags))
		off = bpf_core_field_offset(struct page___flat, flags);
	else
		return 1; /* cannot tell: as before, the file's */
	if (!bpf_core_enum_value_exists(enum pageflags, PG_writeback) ||
	    bpf_probe_read_kernel(&fl, sizeof fl, (char *)head + off))
		return 1;
	return (fl >> bpf_core_enum_value(enum pageflags, PG_writeback)) & 1;
}

/* Who a request is charged to: its submitter, or for a write of file
 * data the process that dirtied the file. An anonymous page (swap, a
 * direct write's user buffer) has the low bit of its mapping set. */
static __always_inline int has_flag(__u32 flags, unsigned int bit)
{
	return bit < 32 && (flags >> bit) & 1;
}

/* What owner_of needs of a request, or of a bio merged into one: its
 * first bio, its flags (cmd_flags, bi_opf: the op in the low bits, then
 * the REQ_ flags) and its whole disk. */
struct io_of {
	struct bio *bio;
	__u32 flags;
	__u32 dev;
	__u32 nbios;               /* its bios from bio on (a merged bio: 1) */
};

/* Whether a request with a file's page (head) is that file's writeback:
 * the page is being written back, and the request is not a direct write
 * (REQ_IDLE: every direct I/O path sets it on a write; writeback never
 * does), unless a kernel thread made it (a loop device's worker passes
 * its file's pages, under writeback above, down as direct I/O). A direct
 * write whose buffer is a mapping of a file (or pages spliced from it)
 * hands the block layer that file's pages too: the writer's own data, not
 * the file's last dirtier's, even while they are being written back
 * (anyone who may read a file can start its writeback: sync_file_range
 * needs no write access), or anyone could charge a file's dirtier with
 * their writes. */
static __always_inline int is_writeback(__u32 flags, struct page *head)
{
	if (!page_under_writeback(head))
		return 0;
	if (bpf_get_current_task_btf()->flags & PF_KTHREAD)
		return 1;
	return !(bpf_core_enum_value_exists(enum req_flag_bits, __REQ_IDLE) &&
		 has_flag(flags, bpf_core_enum_value(enum req_flag_bits, __REQ_IDLE)));
}

/* A read's kind, or a write's that no page explains. */
static __always_inline __u32 plain_kind(__u32 flags, int write)
{
	if (write)
		return bpf_core_enum_value_exists(enum req_flag_bits, __REQ_SWAP) &&
		       has_flag(flags, bpf_core_enum_value(enum req_flag_bits, __REQ_SWAP)) ? BLKMAP_SWAP : BLKMAP_DIRECT;
	return bpf_core_enum_value_exists(enum req_flag_bits, __REQ_RAHEAD) &&
	       has_flag(flags, bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD)) ? BLKMAP_READAHEAD : BLKMAP_READ_OWN;
}

#define LOOP_MAJOR 7

/* The whole disk a file's filesystem lives on (0: none known). */
static __always_inline __u32 file_disk(struct address_space *m)
{
	struct inode *ino = BPF_CORE_READ(m, host);
	struct super_block *sb = ino ? BPF_CORE_READ(ino, i_sb) : 0;
	struct block_device *bd = sb ? BPF_CORE_READ(sb, s_bdev) : 0;
	struct gendisk *d = bd ? BPF_CORE_READ(bd, bd_disk) : 0;
	return d ? ((__u32)BPF_CORE_READ(d, major) << MINORBITS) | (__u32)BPF_CORE_READ(d, first_minor) : 0;
}

/* Whether a write of file data repeats bytes already counted on a loop
 * device above this disk: a loop device with direct I/O hands its
 * filesystem's pages down to the disk under its backing file, and the
 * same bytes make a request on each layer. The first loop device a file's
 * pages reach (the top: its filesystem's own, or under a dm device, which
 * makes no requests) notes the file in `passed`; a request for that file
 * on a disk its filesystem is not on, and not that loop device, is a layer
 * below. A device-mapper or md device is bio-based: its bytes count where
 * they land, once. The common case (a filesystem on its own disk, not a
 * loop device) costs no lookup. */
static __always_inline int passes_through(__u32 disk, struct address_space *m, struct blkmap_file *k)
{
	__u32 fd = file_disk(m);
	int is_loop = (disk >> MINORBITS) == LOOP_MAJOR;
	if (fd == disk && !is_loop)
		return 0;
	__u32 *via = bpf_map_lookup_elem(&passed, k);
	__u32 top = via ? *via : 0;
	if (is_loop && top != disk && (fd == disk || !top))
		bpf_map_update_elem(&passed, k, &disk, BPF_ANY);
	return fd != disk && top && top != disk;
}

/* Bios of a loop device's request, and pages of each, noted at most. */
#define LOOP_NOTE_BIOS 4
#define LOOP_NOTE_VECS 256

/* Every page of a loop device's request (each bio_vec's, the kernel's
 * size of one: CO-RE), noted with its writer: the loop device's worker
 * writes them to the disk below in bios of its own, cut where the backing
 * file's extents and the disk's limits cut them, each starting at one of
 * these pages. */
static __always_inline void note_loop_pages(struct bio *first, __u32 nbios, __u32 word, __u32 me, __u32 start,
					    __u64 now)
{
	struct loop_page v = {.ns = now, .tgid = me, .start = start};
	__u64 stride = bpf_core_type_size(struct bio_vec), at = bpf_core_field_offset(struct bio_vec, bv_page);
	struct bio *b = first;
	for (__u32 k = 0; k < LOOP_NOTE_BIOS && k < nbios && b; k++) {
		__u64 vec = addr_of((struct request *)b->bi_io_vec, word);
		__u32 n = b->bi_vcnt;
		for (__u32 i = 0; i < LOOP_NOTE_VECS && i < n; i++) {
			__u64 page = 0;
			if (bpf_probe_read_kernel(&page, sizeof page, (void *)(vec + i * stride + at)) || !page)
				break;
			bpf_map_update_elem(&loop_pages, &page, &v, BPF_ANY);
		}
		b = b->bi_next;
	}
}

/* The writer a loop device's request noted with page pg, a second ago at
 * most (a page is reused), for the loop device's worker writing it to the
 * disk below; f marks those bytes as the loop device's (stacked). 0: none. */
static __always_inline __u32 noted_writer(struct page *pg, __u32 word, struct blkmap_inflight *f)
{
	__u64 key = addr_of((struct request *)pg, word), now = bpf_ktime_get_ns();
	struct loop_page *v = bpf_map_lookup_elem(&loop_pages, &key);
	if (!v || now - v->ns > 1000000000ull)
		return 0;
	f->stacked = 1;
	f->start = v->start;
	return v->tgid;
}

/* A direct write: of a process's own pages (no file's: O_DIRECT to a
 * block device or a file), or of a file's pages (its mapping as the
 * buffer: the writer's own data, not that file's writeback). On a loop
 * device its pages are noted with the writer: a loop device with direct
 * I/O hands the same pages to the disk under its file, where its worker
 * (a kernel thread) writes them at once; there they are the writer's, and
 * the same bytes as the loop device's (stacked), also a layer further down
 * (noted again). Without this, anyone who may write to a filesystem on a
 * loop device could lead with another's page under writeback, which the
 * writeback rule lets a kernel thread through with, and charge its
 * dirtier. wb: the page is being written back (is_writeback). Returns the
 * owner, or 0 for writeback (the dirtier's). Not swap, and not a note a
 * second old: a page is reused. */
static __always_inline __u32 direct_owner(const struct io_of *io, struct page *pg, int wb, __u32 word, __u32 me,
					  struct blkmap_inflight *f)
{
	__u32 writer = f->kind != BLKMAP_SWAP && (bpf_get_current_task_btf()->flags & PF_KTHREAD)
			       ? noted_writer(pg, word, f)
			       : 0;
	if (!writer && wb)
		return 0;
	if (!writer)
		writer = me;
	if ((io->dev >> MINORBITS) == LOOP_MAJOR)
		note_loop_pages(io->bio, io->nbios, word, writer, f->start, bpf_ktime_get_ns());
	return writer;
}

/* (and sets f->start to the owner's start) */
static __always_inline __u32 owner_of(const struct io_of *io, __u32 word, struct blkmap_inflight *f)
{
	f->unattributed = f->stacked = 0;
	f->start = my_start(); /* until another is the owner */
	__u32 me = (__u32)(bpf_get_current_pid_tgid() >> 32);
	int write = (io->flags & REQ_OP_MASK) == REQ_OP_WRITE;
	f->kind = plain_kind(io->flags, write);
	if (!write || !io->bio || !io->bio->bi_io_vec)
		return me;
	struct page *pg = io->bio->bi_io_vec->bv_page;
	struct page *head = pg ? head_of(pg) : 0;
	struct address_space *m = head ? BPF_CORE_READ(head, mapping) : 0;
	if (!m) {
		/* A page of no file written by a kernel thread: the journal's
		 * own buffers (jbd2 writes copies of metadata blocks). */
		if (f->kind == BLKMAP_DIRECT && (bpf_get_current_task_btf()->flags & PF_KTHREAD))
			f->kind = BLKMAP_JOURNAL;
		return me;
	}
	if (addr_of((struct request *)m, word) & 1) /* an anonymous page */
		return direct_owner(io, pg, 0, word, me, f);
	struct blkmap_file k;
	if (!file_of(m, &k)) {
		f->kind = BLKMAP_JOURNAL;
		return me;
	}
	__u32 writer = direct_owner(io, pg, is_writeback(io->flags, head), word, me, f);
	if (writer)
		return writer;
	f->kind = BLKMAP_WRITEBACK;
	f->stacked = passes_through(io->dev, m, &k);
	struct blkmap_owner *who = bpf_map_lookup_elem(&dirtier, &k);
	if (who) {
		f->start = who->start;
		return who->tgid;
	}
	f->unattributed = !f->stacked; /* counted, if at all, above */
	return me;
}

/* A write of file data whose dirtier was not known: counted, overall and
 * for its disk, at completion (its merged bios apart, by their own). */
static __always_inline void count_unattributed(__u32 dev, __u64 len)
{
	count(BLKMAP_UNATTRIBUTED, len);
	__u64 *u = bpf_map_lookup_elem(&unattributed, &dev);
	if (u)
		__sync_fetch_and_add(u, len);
	else
		bpf_map_update_elem(&unattributed, &dev, &len, BPF_NOEXIST);
}

/* A bit per tgid (modulo its size) of the probe's readers, set by user
 * space before it adds a reader to watched and recomputed after it takes
 * one out: a clear bit says "not a reader" without a hash lookup, which
 * nearly every request would otherwise pay. */
__u64 watched_bits[BLKMAP_WATCH_WORDS];

/* Probe reads in flight on all disks: while none is, a completion need
 * not look up its disk's count. */
__s64 probes_waiting;

/* The v2 cgroup id whose reads user space watches (a unit whose details
 * are open: what its reads waited behind), 0 for none; and how many of
 * its reads are in flight on all disks. Read on every request: a global,
 * not a map, so a request pays a load when none is watched. */
__u64 watched_cgroup;
__s64 unit_reads_waiting;

/* Whether tgid is one of the probe's readers. */
static __always_inline __u32 is_probe(__u32 tgid)
{
	__u32 w = (tgid / 64) % BLKMAP_WATCH_WORDS;
	if (!(watched_bits[w] & (1ull << (tgid % 64))))
		return 0;
	return bpf_map_lookup_elem(&watched, &tgid) != 0;
}

/* One more (or one fewer) watched read in flight on dev: in all (total)
 * and in the map of counts per disk (per_disk: waiting for the probe's
 * reads, unit_waiting for the watched cgroup's). */
static __always_inline void count_waiting(void *per_disk, __s64 *total, __u32 dev, __s64 by)
{
	__sync_fetch_and_add(total, by);
	__s64 *n = bpf_map_lookup_elem(per_disk, &dev);
	if (!n) {
		__s64 zero = 0;
		bpf_map_update_elem(per_disk, &dev, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(per_disk, &dev);
	}
	if (n)
		__sync_fetch_and_add(n, by);
}

/* The submitter's v2 cgroup when it owns the request (owner: its tgid),
 * else 0: the dirtier owns it, whose cgroup was noted when it dirtied the
 * pages. So a process that ends before any listing sees it is still
 * counted in the unit it issued from. */
static __always_inline __u64 issuer_cgroup(__u32 owner)
{
	return owner == (__u32)(bpf_get_current_pid_tgid() >> 32) ? bpf_get_current_cgroup_id() : 0;
}

/* What a request is to "waited behind", in its submitter's context: a
 * probe read, a read of the watched cgroup, or neither. */
static __always_inline unsigned short watch_of(struct request *rq, __u32 tgid)
{
	if (is_probe(tgid))
		return BLKMAP_PROBE_NOTED;
	__u64 cg = watched_cgroup;
	if (cg && (rq->cmd_flags & REQ_OP_MASK) == REQ_OP_READ && bpf_get_current_cgroup_id() == cg)
		return BLKMAP_UNIT_NOTED;
	return BLKMAP_NOT_WATCHED;
}

/* The bytes of a completed request into "waited behind" for whom, when
 * reads of whom wait on its disk (waiting: their count there). */
static __always_inline void add_behind(__s64 *waiting_there, struct blkmap_key *k, __u32 kind, __u32 who, __u64 bytes)
{
	if (!waiting_there || *waiting_there <= 0)
		return;
	struct blkmap_behind_key bk = {.dev = k->dev, .tgid = k->tgid, .kind = kind, .who = who};
	__u64 *v = bpf_map_lookup_elem(&behind, &bk);
	if (v)
		__sync_fetch_and_add(v, bytes);
	else
		bpf_map_update_elem(&behind, &bk, &bytes, BPF_NOEXIST);
}

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BLKMAP_THROTTLED);
	__type(key, __u32);
	__type(value, struct blkmap_throttle);
} throttled SEC(".maps");

/* A writer paused for dirty pages: the tracepoint fires just before the
 * task sleeps for pause jiffies (killable, so only a fatal signal ends
 * it sooner); pause <= 0 is the event of a writer let through unpaused. */
static __always_inline void note_pause(long pause)
{
	if (pause <= 0)
		return;
	__u32 me = (__u32)(bpf_get_current_pid_tgid() >> 32);
	__u64 ns = (__u64)pause * ns_per_jiffy;
	struct blkmap_throttle *t = bpf_map_lookup_elem(&throttled, &me);
	if (t) {
		__sync_fetch_and_add(&t->ns, ns);
		__sync_fetch_and_add(&t->pauses, 1);
		return;
	}
	struct blkmap_throttle n = {.ns = ns, .pauses = 1};
	bpf_map_update_elem(&throttled, &me, &n, BPF_NOEXIST);
}

/* The tracepoint's arguments since 6.11 or so (the dirty-throttle
 * control passed whole); user space loads the one program of the two
 * that matches the kernel's (blklat.c). */
SEC("tp_btf/balance_dirty_pages")
int BPF_PROG(on_throttle, void *wb, void *dtc, unsigned long dirty_ratelimit, unsigned long task_ratelimit,
	     unsigned long dirtied, unsigned long period, long pause, unsigned long start_time)
{
	note_pause(pause);
	return 0;
}

/* ... and before (6.1): the thresholds one by one. */
SEC("tp_btf/balance_dirty_pages")
int BPF_PROG(on_throttle_wide, void *wb, unsigned long thresh, unsigned long bg_thresh, unsigned long dirty,
	     unsigned long bdi_thresh, unsigned long bdi_dirty, unsigned long dirty_ratelimit,
	     unsigned long task_ratelimit, unsigned long dirtied, unsigned long period, long pause,
	     unsigned long start_time)
{
	note_pause(pause);
	return 0;
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(on_dirty, struct folio *folio, struct address_space *mapping)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct blkmap_file k;
	if (!file_of(mapping, &k))
		return 0;
	if (t->flags & PF_KTHREAD) {
		/* a kernel thread (a loop device's worker writing its backing
		 * file through the page cache) dirties for a process it cannot
		 * name: the file's last dirtier is not who asked, and is not
		 * charged for this writeback (a user who once wrote a shared
		 * backing file was charged for another's writes through it) */
		if (bpf_map_lookup_elem(&dirtier, &k))
			bpf_map_delete_elem(&dirtier, &k);
		return 0;
	}
	struct blkmap_owner me = {.tgid = (__u32)(bpf_get_current_pid_tgid() >> 32), .start = my_start()};
	struct blkmap_owner *who = bpf_map_lookup_elem(&dirtier, &k);
	if (who && who->tgid == me.tgid && who->start == me.start)
		return 0; /* the common case: a file written page after page */
	bpf_map_update_elem(&dirtier, &k, &me, BPF_ANY);
	/* the cgroup too, for when the dirtier has ended unseen: its
	 * writeback lands on its unit (a new pair only, so off the fast path) */
	struct blkmap_name n = {.cgroup_id = bpf_get_current_cgroup_id(), .start = me.start};
	bpf_get_current_comm(n.comm, sizeof n.comm);
	bpf_map_update_elem(&names, &me.tgid, &n, BPF_ANY);
	return 0;
}

/* The owner goes into the request's slot; issue completes the slot in
 * place. */
static __always_inline void note_owner(struct request *rq)
{
	__u64 a = addr_of(rq, W_OWNER), now = bpf_ktime_get_ns();
	struct blkmap_inflight *f = a ? slot_get(a, now) : NULL;
	if (!f)
		return;
	f->start_ns = now;
	f->issue_ns = 0;
	struct io_of io = {rq->bio, rq->cmd_flags, disk_dev(rq), LOOP_NOTE_BIOS};
	f->tgid = owner_of(&io, W_OWNER, f);
	f->cgroup_id = issuer_cgroup(f->tgid);
	f->probe = watch_of(rq, f->tgid);
	f->dev = disk_dev(rq); /* so a request still queued shows among the waiting */
}

SEC("tp_btf/block_io_start")
int BPF_PROG(on_io_start, struct request *rq)
{
	if (owner_stage == OWNER_IO_START)
		note_owner(rq);
	return 0;
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(on_insert, struct request *rq)
{
	if (owner_stage == OWNER_INSERT)
		note_owner(rq);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(on_issue, struct request *rq)
{
	unsigned int op = rq->cmd_flags & REQ_OP_MASK;
	__u64 a = addr_of(rq, W_ISSUE);
	if (!a)
		return 0;
	if (op != REQ_OP_READ && op != REQ_OP_WRITE) {
		/* flushes, discards: not reads or writes of data */
		slot_release(a);
		return 0;
	}
	__u64 now = bpf_ktime_get_ns();
	struct blkmap_inflight *f = slot_find(a);
	if (!f) {
		/* No earlier stage saw it: whoever issues it owns it. */
		f = slot_claim(a, now);
		if (!f) {
			count(BLKMAP_UNTIMED, 1);
			return 0;
		}
		f->start_ns = now;
		f->dev = 0; /* the last holder's */
		struct io_of io = {rq->bio, rq->cmd_flags, disk_dev(rq), LOOP_NOTE_BIOS};
		f->tgid = owner_of(&io, W_ISSUE, f);
		f->cgroup_id = issuer_cgroup(f->tgid);
		f->probe = watch_of(rq, f->tgid);
	}
	f->issue_ns = now; /* a requeued request is timed from its last issue */
	if (!f->dev) /* else note_owner or an earlier issue (a requeue) found it */
		f->dev = disk_dev(rq);
	if (f->probe == BLKMAP_PROBE_NOTED) { /* a probe read goes to the disk: counted once, requeued or not */
		f->probe = BLKMAP_PROBE_ISSUED;
		count_waiting(&waiting, &probes_waiting, f->dev, 1);
	} else if (f->probe == BLKMAP_UNIT_NOTED) {
		f->probe = BLKMAP_UNIT_ISSUED;
		count_waiting(&unit_waiting, &unit_reads_waiting, f->dev, 1);
	}
	f->op = op == REQ_OP_READ ? BLKMAP_READ : BLKMAP_WRITE;
	f->bytes = rq->__data_len;
	return 0;
}

static __always_inline __u32 bio_dev(struct bio *bio)
{
	struct gendisk *disk;
	if (bpf_core_field_exists(((struct bio___old *)bio)->bi_disk))
		disk = ((struct bio___old *)bio)->bi_disk;
	else
		disk = bio->bi_bdev ? bio->bi_bdev->bd_disk : 0;
	if (!disk)
		return 0;
	return ((__u32)disk->major << MINORBITS) | (__u32)disk->first_minor;
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(on_bio_queue, struct bio *bio)
{
	__u32 dev = pool_dev;
	if (!dev || (bio->bi_opf & REQ_OP_MASK) != REQ_OP_READ || bio_dev(bio) != dev)
		return 0;
	__u64 a = bio_addr(bio, W_BIO), now = bpf_ktime_get_ns();
	if (a)
		bpf_map_update_elem(&bio_start, &a, &now, BPF_ANY);
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	if (!bpf_map_lookup_elem(&pool_names, &tgid)) {
		struct blkmap_comm c;
		bpf_get_current_comm(c.comm, sizeof c.comm);
		bpf_map_update_elem(&pool_names, &tgid, &c, BPF_NOEXIST);
	}
	return 0;
}

/* A bio joined a request already made: its owner, noted apart. */
static __always_inline void note_merged(struct bio *bio)
{
	__u32 op = bio->bi_opf & REQ_OP_MASK;
	if (op != REQ_OP_READ && op != REQ_OP_WRITE)
		return;
	struct blkmap_inflight f = {};
	struct io_of io = {bio, bio->bi_opf, bio_dev(bio), 1};
	__u32 tgid = owner_of(&io, W_BIO_MERGE, &f);
	struct blkmap_merged m = {.tgid = tgid, .start = f.start, .kind = f.kind, .stacked = f.stacked,
				  .unattributed = f.unattributed, .cgroup_id = issuer_cgroup(tgid),
				  .bytes = bio->bi_iter.bi_size, .sector = bio->bi_iter.bi_sector, .ns = bpf_ktime_get_ns()};
	__u64 a = bio_addr(bio, W_BIO_MERGE);
	if (a)
		bpf_map_update_elem(&merged, &a, &m, BPF_ANY);
}

SEC("tp_btf/block_bio_backmerge")
int BPF_PROG(on_backmerge, struct bio *bio)
{
	note_merged(bio);
	return 0;
}

SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(on_frontmerge, struct bio *bio)
{
	note_merged(bio);
	return 0;
}

/* A read of the pooled disk completed: from its first bio's submission
 * to now, into its owner's pool histogram. A bio seen by no submission
 * (queued before the pool began, or split from another) is left out. */
static __always_inline void pool_count(struct request *rq, __u32 tgid, __u64 now)
{
	__u64 a = bio_addr(rq->bio, W_BIO_DONE);
	__u64 *t0 = a ? bpf_map_lookup_elem(&bio_start, &a) : 0;
	if (!t0)
		return;
	__u64 ns = now > *t0 ? now - *t0 : 0;
	bpf_map_delete_elem(&bio_start, &a);
	struct blkmap_hist *h = bpf_map_lookup_elem(&pool_hists, &tgid);
	if (!h) {
		__u32 z = 0;
		struct blkmap_hist *empty = bpf_map_lookup_elem(&zero, &z);
		if (!empty)
			return;
		bpf_map_update_elem(&pool_hists, &tgid, empty, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&pool_hists, &tgid);
		if (!h)
			return;
	}
	unsigned int b = blkmap_bucket(ns);
	barrier_var(b);
	if (b >= BLKMAP_BUCKETS)
		return;
	__sync_fetch_and_add(&h->count[b], 1);
	__sync_fetch_and_add(&h->bytes, rq->__data_len);
}

/* rq was merged into another request and is about to be freed: its bios
 * (those not noted as merged into it) are its owner's. */
SEC("tp_btf/block_rq_merge")
int BPF_PROG(on_merge, struct request *rq)
{
	__u64 a = addr_of(rq, W_MERGE);
	struct blkmap_inflight *f = a ? slot_find(a) : NULL;
	if (!f)
		return 0;
	struct blkmap_merged m = {.tgid = f->tgid, .start = f->start, .kind = f->kind, .stacked = f->stacked,
				  .unattributed = f->unattributed, .cgroup_id = f->cgroup_id, .ns = bpf_ktime_get_ns()};
	int noted = f->dev != 0;
	slot_release(a);
	struct bio *b = rq->bio;
	for (int i = 0; noted && i < MERGED_WALK && b; i++) {
		__u64 k = bio_addr(b, W_MERGE);
		if (k && !bpf_map_lookup_elem(&merged, &k)) {
			m.bytes = b->bi_iter.bi_size;
			m.sector = b->bi_iter.bi_sector;
			bpf_map_update_elem(&merged, &k, &m, BPF_ANY);
		}
		b = b->bi_next;
	}
	return 0;
}

/* k's histogram, made if it is not there yet (NULL: the map is full). */
static __always_inline struct blkmap_hist *hist_of(struct blkmap_key *k)
{
	struct blkmap_hist *h = bpf_map_lookup_elem(&hists, k);
	if (h)
		return h;
	__u32 z = 0;
	struct blkmap_hist *empty = bpf_map_lookup_elem(&zero, &z);
	if (!empty)
		return 0;
	bpf_map_update_elem(&hists, k, empty, BPF_NOEXIST);
	h = bpf_map_lookup_elem(&hists, k);
	if (!h)
		count(BLKMAP_UNCOUNTED, 1);
	return h;
}

/* bytes of k's: its data, its journal's, those counted above it. */
static __always_inline void add_bytes(struct blkmap_hist *h, __u32 kind, __u32 stacked, __u64 cgroup_id, __u64 bytes)
{
	__sync_fetch_and_add(&h->bytes, bytes);
	if (kind == BLKMAP_JOURNAL)
		__sync_fetch_and_add(&h->journal, bytes);
	if (stacked)
		__sync_fetch_and_add(&h->stacked, bytes);
	if (cgroup_id && h->cgroup_id != cgroup_id)
		h->cgroup_id = cgroup_id; /* (a plain store: the same value from every CPU) */
}

/* The bios merged into rq after its owner was known, each to its own
 * owner (bytes only: the request counts once, for its owner). Returns
 * the bytes that went so, at most total; *beyond: those of the bios past
 * the walk, whose owners were not looked at. */
static __always_inline __u64 charge_merged(struct request *rq, __u32 dev, __u32 op, __u64 total, __u64 *beyond)
{
	*beyond = 0;
	if (rq->bio == rq->biotail)
		return 0; /* one bio: nothing merged */
	__u64 taken = 0, walked = 0, now = bpf_ktime_get_ns();
	struct bio *b = rq->bio;
	for (int i = 0; i < MERGED_WALK && b; i++) {
		walked += b->bi_iter.bi_size;
		__u64 a = bio_addr(b, W_COMPLETE);
		struct blkmap_merged *m = a ? bpf_map_lookup_elem(&merged, &a) : 0;
		if (m) {
			struct blkmap_key k = {.tgid = m->tgid, .dev = dev, .op = op, .start = m->start};
			__u64 n = m->bytes, cgroup_id = m->cgroup_id;
			__u32 kind = m->kind, stacked = m->stacked, unattributed = m->unattributed;
			int fresh = m->sector == b->bi_iter.bi_sector && now - m->ns < MERGED_STALE_NS;
			bpf_map_delete_elem(&merged, &a);
			if (fresh && taken + n <= total) {
				/* Not the request owner's, even when its own owner
				 * has no entry (the table full: counted uncounted):
				 * then no one's, or a user who fills the table would
				 * have their bios merged behind a victim's page
				 * charged to the victim. */
				struct blkmap_hist *h = hist_of(&k);
				if (!h || unattributed)
					count_unattributed(dev, n);
				if (h)
					add_bytes(h, kind, stacked, cgroup_id, n);
				taken += n;
			}
		}
		b = b->bi_next;
	}
	if (b && walked < total)
		*beyond = total - walked; /* (taken is within walked) */
	return taken;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(on_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	__u64 a = addr_of(rq, W_COMPLETE);
	struct blkmap_inflight *f = a ? slot_find(a) : NULL;
	if (!f)
		return 0;
	__u64 issued = f->issue_ns;
	struct blkmap_key k = {.tgid = f->tgid, .dev = f->dev, .op = f->op, .start = f->start};
	__u64 bytes = f->bytes;
	__u32 kind = f->kind, probe = f->probe, unattributed = f->unattributed, stacked = f->stacked;
	__u64 cgroup_id = f->cgroup_id;
	/* Read first, then give the slot back with an atomic (a full
	 * barrier): a plain store could be moved before the loads above, and
	 * another request could then take the slot and write over them. */
	slot_release(a);
	if (!issued)
		return 0; /* completed without an issue seen */
	__u64 beyond;
	bytes -= charge_merged(rq, k.dev, k.op, bytes, &beyond);
	if (beyond) {
		count_unattributed(k.dev, beyond);
		bytes -= beyond;
	}
	if (unattributed)
		count_unattributed(k.dev, bytes);
	/* Served while a probe read (or a watched cgroup's) waited on this
	 * disk: what it waited behind. */
	if (probe == BLKMAP_PROBE_ISSUED)
		count_waiting(&waiting, &probes_waiting, k.dev, -1);
	else if (probes_waiting > 0)
		add_behind(bpf_map_lookup_elem(&waiting, &k.dev), &k, kind, BLKMAP_FOR_PROBE, bytes);
	if (probe == BLKMAP_UNIT_ISSUED)
		count_waiting(&unit_waiting, &unit_reads_waiting, k.dev, -1);
	else if (unit_reads_waiting > 0)
		add_behind(bpf_map_lookup_elem(&unit_waiting, &k.dev), &k, kind, BLKMAP_FOR_UNIT, bytes);
	__u64 now = bpf_ktime_get_ns();
	__u64 ns = now > issued ? now - issued : 0;
	if (pool_dev && k.dev == pool_dev && k.op == BLKMAP_READ)
		pool_count(rq, k.tgid, now);

	struct blkmap_hist *h = hist_of(&k);
	if (!h)
		return 0;
	unsigned int b = blkmap_bucket(ns);
	/* The verifier cannot follow blkmap_bucket's arithmetic, and clang
	 * drops a check it can prove: hide b from it so the check stays. */
	barrier_var(b);
	if (b >= BLKMAP_BUCKETS)
		return 0;
	/* Only the buckets and the bytes: user space counts n from the
	 * buckets, and each atomic add is paid on every request. */
	__sync_fetch_and_add(&h->count[b], 1);
	add_bytes(h, kind, stacked, cgroup_id, bytes);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
