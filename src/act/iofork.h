/* iofork: forks in flight, for an undo of an I/O priority (iofam.c). A
 * child takes its parent's I/O priority before it has a pid in /proc; a
 * fork held there (a fault on the pidfd's page, served slowly by the
 * owner's own FUSE file system) hides a child that comes out at the
 * tool's value after an undo that looked everywhere /proc shows. The
 * kernel shows the parent's thread inside the fork call instead. */
#ifndef IOSCHED_ACT_IOFORK_H
#define IOSCHED_ACT_IOFORK_H

#include "iofam.h"

/* Threads inside a fork call (clone, clone3, fork; a vfork parent waiting
 * for its child, which is in /proc already, left out) of the processes
 * that may carry t's value: t's own, its owner's (any start time: one
 * can set its own value back while its fork is held) and those started
 * since the change. Their count; 0: none. One that runs rather than
 * blocks is not seen (it attaches its child within microseconds). */
int iofork_in_flight(const struct iofam_target *t);

/* The pids in /proc now, on the heap (*n of them); NULL when /proc cannot
 * be listed. */
int *iofork_list_pids(size_t *n);

#endif
