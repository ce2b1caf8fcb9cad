/* undo: the log of changes the tool made, newest last. `u` walks it back
 * one change at a time; --restore walks all of it back at exit; without
 * --restore the exit report prints it with a command line that reverts it.
 * Plain data, no I/O: the control module applies what it says. */
#ifndef IOSCHED_UNDO_H
#define IOSCHED_UNDO_H

#include <stddef.h>

#include "base/event.h"
#include "act/tune.h"

#define UNDO_MAX 256

struct undo_entry {
	struct tune_req back;        /* the request that puts the old value back */
	char applied[TUNE_VALUE_MAX];/* the value the change set */
	double ts;
	/* A switch: the queue attributes it made the kernel reset, with their
	 * values before it, put back right after the switch back succeeds
	 * (one entry, so that nothing can split them from their switch). */
	struct tune_reset resets[TUNE_RESETS_MAX];
	size_t nresets;
};

struct undo_log {
	/* Grown as changes come (most runs make none or a few): UNDO_MAX
	 * entries inline were 240 KiB, all of it resident from the first
	 * memset. Zeroed memory is an empty log; undo_free lets it go. */
	struct undo_entry *e;
	size_t n, cap;
	size_t dropped;              /* oldest entries pushed out when full (or out of memory) */
	size_t lost;                 /* changes not recorded at all: no memory for one entry */
};

/* Free the entries (the log is empty after). */
void undo_free(struct undo_log *l);

/* Record a successful change made by request r (ev: its event, whose
 * "from" is the old value). A change with no known old value cannot be
 * undone, and a switch to the scheduler already in force changed nothing
 * (the kernel keeps its files): neither is recorded, returns -1. */
int undo_push(struct undo_log *l, const struct tune_req *r, const struct event *ev);

/* Put an entry back (an undo that failed, to be tried again). */
void undo_repush(struct undo_log *l, const struct undo_entry *e);

/* Give the newest entry (a switch just pushed) the n queue attributes it
 * reset. */
void undo_attach_resets(struct undo_log *l, const struct tune_reset *rs, size_t n);

/* Take the newest entry. Returns 0, or -1 when the log is empty. */
int undo_pop(struct undo_log *l, struct undo_entry *out);

/* A shell command line that reverts every logged change, newest first
 * ("echo mq-deadline > /sys/block/sda/queue/scheduler; ..."), or "" when
 * there is nothing to revert. Returns how many changes it reverts: fewer
 * than l->n when buf had no room for all, and then the newest ones, each
 * whole (a switch with all its resets; never a cut command). */
size_t undo_script(const struct undo_log *l, char *buf, size_t len);

#endif
