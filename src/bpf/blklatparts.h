/* blklatparts: the loader's state, which the block-latency part's two
 * halves share: blklat.c loads, attaches, configures and closes the
 * programs, and blklatread.c drains their maps into a struct blk_reading.
 * Private to them: everything else uses bpf/blklat.h. Only in a build
 * with BPF (HAVE_BPF). */
#ifndef IOSCHED_BLKLATPARTS_H
#define IOSCHED_BLKLATPARTS_H

#include "bpf/blklat.h"

#include <stddef.h>
#include <stdint.h>

#include "blklat_maps.h"
#include "blklat.skel.h"

/* The last reading of one histogram entry, to subtract from the next. */
struct seen {
	struct blkmap_key key;
	struct blkmap_hist h;
	int live;                  /* present in the latest reading */
	int moved;                 /* ... and grew since the one before */
	unsigned idle;             /* readings in a row it did not grow */
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
	struct found { unsigned slot; struct blkmap_inflight f; } *found; /* blklatread.c's read_reqs: its first pass */
	size_t nfound, found_cap;
	/* "waited behind": the last reading of each key, and the probe readers watched */
	struct behind_seen { struct blkmap_behind_key k; uint64_t bytes; } *bseen;
	size_t nbseen, bseen_cap;
	int watched[BLKMAP_WATCHED];
	size_t nwatched;
	/* the live A/B's pool of one disk's reads (blklat_pool); NULL: none */
	struct blk_pool *pool;
	char pool_disk[DISK_NAME_MAX];
	int can_submit;             /* on_bio_queue was loaded (this kernel's block_bio_queue takes a bio) */
	struct bpf_link *pool_link; /* on_bio_queue attached: the pool times reads from submission */
	/* dirty-page throttling: a program loaded for it, and the last
	 * reading of each process's pauses (blklatthrottle.c), by tgid */
	int throttle_on;
	struct throttle_seen { int tgid; uint64_t ns; } *tseen;
	size_t ntseen, tseen_cap;
};

/* The pauses of the interval into r->throttled (blklatthrottle.c).
 * Returns 0 or a negative errno. */
int blklat_read_throttled(struct blklat *b, struct blk_reading *r);

#endif
