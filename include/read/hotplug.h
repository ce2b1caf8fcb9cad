/* hotplug: notice whole disks coming and going, from the kernel's uevents
 * (a libudev monitor on the "kernel" source, which needs no udev daemon).
 * There a loop attach or detach arrives as "change", LOOP_CTL_ADD/REMOVE
 * and USB or NVMe hot-plug as "add"/"remove". The sampler keeps its list
 * of disks and enumerates them again only when an event came (or, as a
 * safety net, now and then), instead of walking every disk's sysfs at each
 * refresh; a disk appears or goes within one refresh either way. */
#ifndef IOSCHED_HOTPLUG_H
#define IOSCHED_HOTPLUG_H

#include <stddef.h>

#include "read/disk.h"

struct udev;
struct hotplug;

/* Listen for block-disk uevents. Returns 0, or a negative errno (then the
 * caller enumerates at every refresh, as without a monitor). */
int hotplug_open(struct udev *udev, struct hotplug **out);

/* Read every pending event without blocking. Returns how many there were
 * (0: nothing changed), or a negative errno when events may have been lost
 * (the socket's buffer overflowed): enumerate again in either case but 0. */
int hotplug_drain(struct hotplug *h);

void hotplug_close(struct hotplug *h);

/* A disk that is in one list and not in the other (by name and size: a
 * loop device attached to another file of another size is a new disk). */
struct hotplug_change {
	char name[DISK_NAME_MAX];
	int added; /* 1: in cur only; 0: in old only */
};

/* Compare two disk lists sorted by name (disk_scan's order). Writes up to
 * max changes; returns how many there are in all. */
size_t hotplug_diff(const struct disk_info *old, size_t nold, const struct disk_info *cur, size_t ncur,
		    struct hotplug_change *out, size_t max);

#endif
