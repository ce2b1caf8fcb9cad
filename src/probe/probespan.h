/* probespan: what the probe reads in file mode without writing anything.
 *
 * Where a disk's device node cannot be opened, the probe can read the
 * data already on the disk: large files the user may read (libraries,
 * packages, the user's own big files), at offsets inside extents that
 * are real blocks of that disk. FIEMAP (allowed without privilege) says
 * which: holes, inline data, unwritten (fallocated), delayed, encoded or
 * encrypted extents and extents of unknown place are never kept, since a
 * read there would not reach the disk, or would reach it elsewhere.
 *
 * The set is chosen by a bounded walk that stays on one filesystem (never
 * crossing into another mount, so a hung network mount cannot stall it),
 * kept as paths with the identity each file had when it was mapped; a
 * read opens the file again and uses it only when it is still that file
 * (device, inode, size, modification time): a file replaced or changed
 * since (a package upgrade) is dropped, not read.
 *
 * Root's probe walks directories other users own, so what they put there
 * must not steer it: every directory and file is opened beneath the
 * filesystem's top with no symbolic link followed on the way
 * (base/beneath.h), a file only after an O_PATH look says it is a regular
 * file (opening a device can act); a file is kept once whatever its names
 * (hard links) and a block once whatever its files (reflinks); the files
 * of one user give at most owner_cap bytes. Private to src/probe. */
#ifndef IOSCHED_PROBESPAN_H
#define IOSCHED_PROBESPAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

struct fiemap_extent;
struct prng;

/* One file of the set, as it was when mapped. */
struct probespan_file {
	char *path;
	size_t top_len;       /* path[0, top_len) is the walk's top, opened again for each
			       * read; the rest is opened beneath it (0: beneath /) */
	ino_t top_ino;        /* the top's inode, checked on each open (0: not checked) */
	dev_t dev;
	ino_t ino;
	uid_t uid;
	off_t size;
	/* mtime its owner can set back (utimensat); ctime and the blocks
	 * allocated no one but the kernel sets: a hole punched, then the
	 * mtime put back, still shows */
	struct timespec mtime, ctime;
	blkcnt_t blocks;
	int dropped;          /* changed or gone since: never read again */
};

/* One kept range of a file: [lo, hi) in the file, aligned; phys: where
 * lo is on the disk. */
struct probespan_range {
	uint32_t file;
	uint64_t lo, hi;
	uint64_t phys;
};

struct probespan {
	struct probespan_file *files;
	size_t nfiles, files_cap;
	struct probespan_range *ranges;
	size_t nranges, ranges_cap;
	uint64_t *cum;        /* cum[i]: bytes of ranges [0, i], dropped files' as 0 */
	uint64_t span;        /* bytes that can be read (the last cum) */
	uint64_t io_size;     /* every read is this long, at offsets aligned to it */
	size_t visited;       /* directory entries looked at by the walk */
	size_t refused;       /* files whose extents were all refused */
	size_t repeats;       /* files left out as another name of a file (or of blocks) kept */
	size_t capped;        /* files left out as their owner had given enough */
};

/* What a walk looks for. */
struct probespan_want {
	dev_t dev;            /* the filesystem: st_dev of its files */
	const char *top;      /* the directory every root is under (its mount point): the walk and
			       * each read open nothing but what is beneath it; NULL: each root */
	const char *const *roots; /* directories to walk, in order (on that filesystem; one
				   * inside another is walked once, as itself) */
	size_t nroots;
	const char *const *skip;  /* directories never walked (scratch space that changes) */
	size_t nskip;
	const char *subuid;   /* the subordinate uids' file (NULL: /etc/subuid) */
	uint64_t bytes;       /* stop once this many bytes are kept */
	uint64_t min_file;    /* files smaller than this are passed over */
	uint64_t io_size;     /* the probe's read size (a power of two, >= 512) */
	size_t max_visit;     /* the walk's budget of directory entries */
	size_t max_files;     /* at most this many files in the set */
	uint64_t owner_cap;   /* bytes the files of one owner other than root and the system
			       * accounts may give (0: no cap): a user cannot choose what root's
			       * probe measures by filling a home with files */
};

/* Owners below this uid are root and the system accounts (Debian's and
 * systemd's SYS_UID_MAX is 999): users cannot make files owned by them. */
#define PROBESPAN_SYSTEM_UIDS 1000

/* Whether FIEMAP extent e is real data on the disk that a read of
 * io_size at an offset aligned to io_size can reach, and the aligned
 * range [*lo, *hi) of it inside a file of size bytes. 1: kept; 0: not. */
int probespan_keep(const struct fiemap_extent *e, uint64_t size, uint64_t io_size, uint64_t *lo, uint64_t *hi);

/* Add the file open as fd (a regular file at path, as fstat says st) to
 * ps: its extents are mapped and the kept ones become ranges. Returns the
 * bytes kept (0: none), or a negative errno (FIEMAP unsupported: -EOPNOTSUPP). */
long long probespan_add_file(struct probespan *ps, int fd, const char *path, const struct stat *st);

/* Walk want's roots and fill ps (emptied first). Returns 0 (ps->span may
 * still be short of want->bytes: the caller says so), or a negative errno
 * with why. */
int probespan_build(struct probespan *ps, const struct probespan_want *want, char *why, size_t wlen);

/* The set made ready to pick from once its files and ranges are in (what
 * probespan_build does at its end): blocks that two ranges share kept
 * once (the range met first keeps them), files left with no range
 * dropped, the index of ranges made. Returns 0 or -ENOMEM. */
int probespan_settle(struct probespan *ps);
/* Move what from holds into to (from is left empty). Returns 0 or -ENOMEM
 * (to is as it was, from emptied). */
int probespan_merge(struct probespan *to, struct probespan *from);

/* A random read: the file (index into ps->files) and the offset. Returns
 * 0, or -ENOENT when nothing is left to read. */
int probespan_pick(const struct probespan *ps, struct prng *rng, size_t *file, uint64_t *off);
/* The same, with where on the disk the read at *off was mapped (*phys). */
int probespan_pick_phys(const struct probespan *ps, struct prng *rng, size_t *file, uint64_t *off, uint64_t *phys);

/* Open file i of ps for a read (read-only, O_DIRECT when direct, no link
 * followed, not blocking on a FIFO swapped in). A file that is not the
 * one mapped any more is dropped (its ranges no longer picked) and
 * -ESTALE returned; the caller picks again. Returns the descriptor or a
 * negative errno. */
int probespan_open(struct probespan *ps, size_t i, int direct);

/* Whether file i, open as fd, is still as it was mapped (after a read: a
 * change during it means the read measured something else). */
int probespan_unchanged(const struct probespan *ps, size_t i, int fd);

/* Whether the len bytes at off of the file open as fd are still where the
 * walk found them on the disk (phys). A dedupe (FIDEDUPERANGE, which the
 * owner of a file may run on XFS and btrfs) moves a range onto other
 * blocks and changes none of its times, size or block count. */
int probespan_still_at(int fd, uint64_t off, uint64_t len, uint64_t phys);

/* Drop file i: its ranges are not picked any more. */
void probespan_drop(struct probespan *ps, size_t i);

/* How many files are still in the set. */
size_t probespan_live_files(const struct probespan *ps);

void probespan_free(struct probespan *ps);

#endif
