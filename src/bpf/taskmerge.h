/* taskmerge: one reading of the task walk merged into the last one's
 * table in place.
 *
 * The walk hands each task in tid order, whole (new or changed) or as its
 * tid alone (unchanged: the table's entry stands). A task's new entry is
 * written where an ended or already merged one was, so a refresh touches
 * no new memory; only a new task that would overwrite an entry not merged
 * yet moves the rest of the reading to a new table. */
#ifndef TASKMERGE_H
#define TASKMERGE_H

#include <stddef.h>

#include "bpf/taskiter.h"

/* Told of a tid the table no longer holds: ended, or unchanged but not
 * known here (its walk must send it whole next time). */
typedef void (*taskmerge_forget_fn)(void *ctx, int tid);

struct taskmerge {
	struct task_info *tab;   /* by tid: the last reading; while one is merged, its
				  * first w entries are the new reading's */
	size_t n, cap;
	struct task_info *fresh; /* non-NULL: the rest of this reading goes here */
	size_t fresh_cap;
	size_t nold, at, w;      /* while merging: the old entries, the next old one
				  * not merged yet, the new ones written */
	taskmerge_forget_fn forget;
	void *ctx;
};

/* Start merging a reading. */
void taskmerge_begin(struct taskmerge *m);

/* The walk's next task: whole (full non-NULL) or unchanged (NULL).
 * Returns 0, or -ENOMEM. */
int taskmerge_add(struct taskmerge *m, int tid, const struct task_info *full);

/* The reading is over (ok) or failed: on success the table is the new
 * reading, sorted by tid; a failed one leaves it empty. */
void taskmerge_end(struct taskmerge *m, int ok);

void taskmerge_free(struct taskmerge *m);

#endif
