/* tune: the actuator that changes a disk's queue settings — for now its
 * I/O scheduler. Every change is described by an event (from, to, how long
 * the kernel took, ok or why not) so it can be shown, recorded and undone. */
#ifndef IOSCHED_TUNE_H
#define IOSCHED_TUNE_H

#include "event.h"

/* Switch disk to scheduler sched by writing queue/scheduler. Fills ev
 * (type "scheduler") whatever happens. Writing the scheduler freezes and
 * drains the queue: under load this can take long; callers that must not
 * block run it off their thread. Returns 0 or a negative errno. */
int tune_set_scheduler(const char *disk, const char *sched, struct event *ev);

#endif
