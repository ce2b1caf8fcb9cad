/* extswitch: a scheduler switch made outside the tool (echo in another
 * terminal, a udev rule, another admin, another instance) is a switch all
 * the same: the user wants it on the chart, compared before and after, and
 * counted, above all where the tool only watches (--read-only exporters).
 * Each collection compares every disk's active scheduler with the one last
 * seen. The tool's own switches are told apart by its pending changes and
 * by its events (extswitch_note); since a switch of the tool's can end
 * between the session's look at its pending changes and the sysfs read,
 * a change is only called external once two collections in a row saw it
 * with nothing of the tool's to explain it. */
#ifndef IOSCHED_EXTSWITCH_H
#define IOSCHED_EXTSWITCH_H

#include <stddef.h>

#include "read/disk.h"
#include "base/event.h"

struct pending_change; /* sample.h */

struct extswitch_seen {
	char disk[DISK_NAME_MAX];
	char sched[48];            /* last seen, or set by the tool */
	char cand[48];             /* a change seen once, not yet called external */
	double cand_mono, cand_ts;
};

struct extswitch {
	struct extswitch_seen *v;
	size_t n;
};

/* Look at the disks; fill out with an event for each external switch now
 * confirmed (at most max). Returns how many, or -ENOMEM. */
int extswitch_check(struct extswitch *x, const struct disk_info *disks, size_t n, const struct pending_change *pend,
		    size_t npend, double mono, double ts, struct event *out, size_t max);

/* The tool switched disk to sched (its own event): not external. */
void extswitch_note(struct extswitch *x, const char *disk, const char *sched);

void extswitch_free(struct extswitch *x);

#endif
