/* probefile: the probe's file fallback. Where a disk's device node cannot
 * be opened (EPERM/EACCES: locked-down kernels, containers, some VMs' root
 * disks) the probe reads a file on a filesystem that lives on that disk.
 * This module maps filesystems to whole disks (through partitions and the
 * slaves of dm/md stacks) and creates such a file safely: in a directory the
 * tool owns, O_EXCL|O_NOFOLLOW, filled with random data and fsync'd before
 * use (a sparse region answers in microseconds and would lie), bounded in
 * size, refused when free space is short, reused across runs. The file is
 * written under a temporary name (".NAME.PID.tmp", locked while written:
 * scratch.h) and renamed when whole, so only temporaries can be stale. */
#ifndef IOSCHED_PROBEFILE_H
#define IOSCHED_PROBEFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/scratch.h"

/* The whole disk a block device number belongs to (sda2 -> sda; dm-0 ->
 * the disk under it, first slave first). Returns 0 or a negative errno. */
int probefile_whole_disk(dev_t dev, char *disk, size_t len);

/* The whole disk holding the filesystem that path is on. */
int probefile_disk_of_path(const char *path, char *disk, size_t len);

/* Choose where the probe file for disk goes: /var/tmp/iosched-top-UID when
 * /var/tmp is on that disk, else "<mountpoint>/.iosched-top-UID" of the first
 * writable mount on it. Writes the full file path. Returns 0, or -ENOENT
 * with a reason in why. */
int probefile_locate(const char *disk, char *path, size_t len, char *why, size_t wlen);

/* The first read-write filesystem (mount point) that lives on disk.
 * Returns 0, or -ENOENT when there is none. */
int probefile_mount_of_disk(const char *disk, char *dir, size_t len);

/* Called with a mount point, the whole disk its filesystem is on, the
 * st_dev its files have, and whether it is mounted read-only. */
typedef void (*probefile_mount_fn)(void *ctx, const char *point, const char *disk, dev_t fsdev, int readonly);

/* Call fn for every mount of a whole filesystem on a block device
 * (read-only ones too when with_readonly), from /proc/self/mountinfo and
 * sysfs alone: no mount point is touched, so a hung network or FUSE
 * mount cannot stall the caller. Returns 0 or a negative errno. */
int probefile_each_mount(probefile_mount_fn fn, void *ctx, int with_readonly);

/* The probe file is written at idle I/O priority and at most this fast
 * (bytes per second); while others write to its disk, at most a tenth of
 * their rate, but never slower than the minimum. */
#define PROBEFILE_RATE_MAX (50.0 * 1e6)
#define PROBEFILE_RATE_MIN (4.0 * 1e6)
/* A file this small (a start file) is written at PROBEFILE_RATE_MAX
 * whatever others write: it takes seconds. */
#define PROBEFILE_START_MAX (64ull << 20)

/* Progress callback for probefile_prepare: percent done, after every MiB
 * written. A non-zero return cancels the preparation (the partial file is
 * removed). */
typedef int (*probefile_progress)(void *ctx, int pct);

/* Make sure path is a complete probe file of at least size bytes, creating
 * it when missing (its directory is created 0700 when it is the tool's
 * own). Returns 0, or a negative errno with the reason in why. */
int probefile_prepare(const char *path, uint64_t size, int own_dir, probefile_progress cb,
		      void *ctx, char *why, size_t wlen);

/* Whether path, in the tool's own directory, is a whole probe file of at
 * least size bytes already (no write needed). */
int probefile_whole(const char *path, uint64_t size);

/* The exit while path is being written (probefile_prepare still running
 * in a thread that cannot be waited for): its temporary is removed now,
 * so only a run killed with SIGKILL leaves one behind. */
void probefile_abandon(const char *path);

/* Remove a file of the tool's own at path (a start file at the end of the
 * run that made it): only from a private directory of this user's, only a
 * regular file of this user's. */
void probefile_discard(const char *path);

/* Remove the temporaries that runs killed while writing a probe file
 * left beside path: in the tool's own directory (own_dir) any probe
 * file's, and the private directories of killed runs beside it
 * (probefile_private_dir); in a user's directory only path's. Each is
 * reported. Returns how many were removed. */
int probefile_sweep(const char *path, int own_dir, scratch_report report, void *ctx);

/* Where the tool's own directory for path was made by someone else (in
 * /var/tmp any user can make "iosched-top-0" first, to turn root's probe
 * off), a fresh private directory beside it for this run only: DIR.XXXXXX
 * (scratch.h: random name, 0700, locked while in use), with path's file
 * name in it, into out. Returns the lock's descriptor, to hand to
 * probefile_private_remove when the probe ends; or a negative errno with
 * why. A killed run's directory goes in the next run's probefile_sweep. */
int probefile_private_dir(const char *path, char *out, size_t len, char *why, size_t wlen);

/* Remove the probe file at path, its private directory, and the lock. */
void probefile_private_remove(const char *path, int lock_fd);

/* Open an existing probe file for reading: its directory as every path
 * root writes (safefile_open_dir: no symbolic link on the way, no
 * directory another user controls), the file itself not followed if a
 * link, opened without blocking (a FIFO), and taken only when a regular
 * file of root's or of the user running the tool (safefile_caller_uid),
 * not sparse, at least min bytes; direct: for O_DIRECT reads. Returns the
 * descriptor, or a negative errno with why (which tells nothing of a file
 * it refuses for its owner). */
int probefile_open_read(const char *path, uint64_t min, int direct, char *why, size_t wlen);

/* Check that an existing file can serve as a probe file
 * (probefile_open_read). Returns 0 or a negative errno with why. */
int probefile_check(const char *path, uint64_t min, char *why, size_t wlen);

#endif
