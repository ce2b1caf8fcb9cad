/* disk: discovery of whole disks (libudev, sysfs fallbacks) and their
 * queue settings. Partitions are never disks; a loop device with no backing
 * file (size 0) is hidden. Nothing here fails because a udev property is
 * missing: without a udev daemon ID_MODEL/ID_BUS are absent, so sysfs fills in. */
#ifndef IOSCHED_DISK_H
#define IOSCHED_DISK_H

#include <stddef.h>
#include <stdint.h>

#include "read/sched.h"

struct udev;

enum disk_kind {
	DISK_NVME,
	DISK_SCSI,     /* sata/scsi */
	DISK_VIRTIO,
	DISK_USB,
	DISK_MMC,
	DISK_LOOP,
	DISK_DM,
	DISK_MD,
	DISK_ZRAM,
	DISK_OTHER,
};

#define DISK_NAME_MAX 32

struct disk_info {
	char name[DISK_NAME_MAX];
	enum disk_kind kind;
	char model[64];            /* "" when unknown */
	int rotational;            /* 1, 0, or -1 unknown */
	uint64_t size_bytes;
	unsigned logical_block;    /* bytes; 0 unknown */
	struct sched_list sched;
	int64_t nr_requests;       /* -1 where the queue has no such file */
	int64_t read_ahead_kb;
	int64_t wbt_lat_usec;
	int zoned;                 /* queue/zoned is host-managed or host-aware */
	char hidden[48];           /* why it is left out by default (disk_why_hidden), "" when shown */
	char below[DISK_NAME_MAX]; /* a loop device: the whole disk under its backing file (set by the
				    * sampler: sampledisks); "" when none (tmpfs, FUSE) or not known */
	int loop_dio;              /* a loop device: direct I/O on when below was settled */
};

/* Why a disk is left out of the default listing, into why ("" when it is
 * shown): a loop device that is read-only or whose backing file is a
 * squashfs image (snaps, live systems: a laptop has a dozen), a RAM disk
 * or zram, a dm or md device (stacked on disks that are shown; the
 * scheduler is theirs). readonly: the device's ro attribute; backing: a
 * loop device's backing file, or NULL. Returns whether it is hidden. */
int disk_why_hidden(const struct disk_info *d, int readonly, const char *backing, char *why, size_t len);

/* Virtual disks (loop, dm, md, zram, RAM) sort after real ones. */
int disk_is_virtual(const struct disk_info *d);

/* "nvme", "sata/scsi", "virtio", ... as shown and in JSON. */
const char *disk_kind_name(enum disk_kind k);

/* Decide the kind from what is known; any argument but name may be NULL.
 * driver: the parent device's driver; id_bus: udev's ID_BUS; syspath: the
 * device's resolved sysfs path (a "/usb" component there means USB). */
enum disk_kind disk_classify(const char *name, const char *driver, const char *id_bus,
			     const char *syspath);

/* Enumerate whole disks, sorted by name (natural order). *out is malloc'd.
 * Returns 0 or a negative errno. */
int disk_scan(struct udev *udev, struct disk_info **out, size_t *n);

/* Re-read the queue settings that can change at run time (scheduler,
 * nr_requests, read_ahead_kb, wbt_lat_usec, size). Returns 0, or -ENOENT
 * when the disk has gone. */
int disk_refresh(struct disk_info *d);

/* When name is a partition, write its whole disk's name to parent and
 * return 1; 0 when it is not a partition; negative errno when no such device. */
int disk_partition_parent(const char *name, char *parent, size_t len);

#endif
