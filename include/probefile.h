/* probefile: the probe's file fallback. Where a disk's device node cannot
 * be opened (EPERM/EACCES: locked-down kernels, containers, some VMs' root
 * disks) the probe reads a file on a filesystem that lives on that disk.
 * This module maps filesystems to whole disks (through partitions and the
 * slaves of dm/md stacks) and creates such a file safely: in a directory the
 * tool owns, O_EXCL|O_NOFOLLOW, filled with random data and fsync'd before
 * use (a sparse region answers in microseconds and would lie), bounded in
 * size, refused when free space is short, reused across runs. */
#ifndef IOSCHED_PROBEFILE_H
#define IOSCHED_PROBEFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The whole disk a block device number belongs to (sda2 -> sda; dm-0 ->
 * the disk under it, first slave first). Returns 0 or a negative errno. */
int probefile_whole_disk(dev_t dev, char *disk, size_t len);

/* The whole disk holding the filesystem that path is on. */
int probefile_disk_of_path(const char *path, char *disk, size_t len);

/* Choose where the probe file for disk goes: /var/tmp/iosched-top when
 * /var/tmp is on that disk, else "<mountpoint>/.iosched-top" of the first
 * writable mount on it. Writes the full file path. Returns 0, or -ENOENT
 * with a reason in why. */
int probefile_locate(const char *disk, char *path, size_t len, char *why, size_t wlen);

/* The first read-write filesystem (mount point) that lives on disk.
 * Returns 0, or -ENOENT when there is none. */
int probefile_mount_of_disk(const char *disk, char *dir, size_t len);

/* Progress callback for probefile_prepare: percent done. A non-zero
 * return cancels the preparation (the partial file is removed). */
typedef int (*probefile_progress)(void *ctx, int pct);

/* Make sure path is a complete probe file of at least size bytes, creating
 * it when missing (its directory is created 0700 when it is the tool's
 * own). Returns 0, or a negative errno with the reason in why. */
int probefile_prepare(const char *path, uint64_t size, int own_dir, probefile_progress cb,
		      void *ctx, char *why, size_t wlen);

/* Check that an existing file can serve as a probe file: regular, not
 * sparse, at least min bytes. Returns 0 or -EINVAL with why. */
int probefile_check(const char *path, uint64_t min, char *why, size_t wlen);

#endif
