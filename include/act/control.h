/* control: the actuators' front — what keys and --set ask for goes
 * through here. Requests are checked, then carried out on the worker
 * thread; results become events (taken with control_take_events: the
 * session hands them to the sampler) and, when they succeed, entries in
 * the undo log. At exit every change is either put back (--restore) or
 * reported with a command line that reverts it. */
#ifndef IOSCHED_CONTROL_H
#define IOSCHED_CONTROL_H

#include <stdio.h>

#include "model/sample.h"
#include "act/tune.h"

/* The control: opaque (src/act/controlparts.h holds its state). */
struct control;

/* Make a control and start its worker thread into *out. sysfs: NULL for
 * the real /sys; every request made through this control is carried out
 * there. Returns 0 or a negative errno (*out NULL). control_free frees
 * it after control_finish (NULL: nothing). */
int control_new(struct control **out, const struct tune_sysfs *sysfs);
void control_free(struct control *c);

/* What a session reads between ticks: when this run turned delay
 * accounting on (uptime, or 0); how many changes the undo log holds; the
 * last result, when it came after *seen (which it then moves on; NULL
 * when none is newer); whether a change is queued or in the kernel. */
double control_delayacct_since(const struct control *c);
size_t control_changes(const struct control *c);
const char *control_result_since(const struct control *c, double *seen);
int control_busy(const struct control *c);
/* The last result when it came at or after since (mono time) into *text:
 * 1 it succeeded, 0 it failed (*text says why); -1 none came since. */
int control_result_after(const struct control *c, double since, const char **text);

/* The events of changes that finished (and of delay accounting turned on
 * or off) since the last call, oldest first, into out (up to max).
 * Returns how many. */
size_t control_take_events(struct control *c, struct event *out, size_t max);

/* The changes queued or in the kernel now, for samples (up to max). */
size_t control_pending(struct control *c, struct pending_change *out, size_t max);

/* Check r and queue it. Returns 0 with what happens in msg, or -1 with
 * why not (and what to do) in msg. */
int control_request(struct control *c, const struct tune_req *r, char *msg, size_t len);

/* Queue the undo of the newest change. Returns 0 or -1 (message in msg). */
int control_undo(struct control *c, char *msg, size_t len);

/* Put back what was changed since the undo log had base entries, in as few
 * changes as possible: per setting only the oldest value (the one before
 * all of them; an A/B's many switches become one). The files of the
 * scheduler in force first (those of schedulers no longer in force went
 * with them), then schedulers, then queue attributes. Queued, once no
 * change is queued or in the kernel any more (control_poll queues it
 * then); returns how many were queued now. */
size_t control_restore_to(struct control *c, size_t base);

/* Collect finished changes: events to the outbox, successes to the undo
 * log (a failed undo goes back on it); then queue a restore that waited for
 * the worker to be idle. Returns how many finished. */
size_t control_poll(struct control *c);

/* Carry out requests now and wait for them (--set at start). When one
 * fails, those already made are put back. Returns 0, or -1 with the
 * failure in err. */
int control_apply_now(struct control *c, const struct tune_req *r, size_t n, char *err, size_t len);

/* Turn kernel.task_delayacct on or off (an event; undone at exit whatever
 * --restore says: it costs every task a little). The setting is shared
 * with other runs of the tool (act/sysctlhold.h): off is refused while
 * another run uses it, and at exit it goes back to what it was before the
 * first of them only when the last one ends. Returns 0 or -1 with why in
 * msg. */
int control_delayacct(struct control *c, int on, char *msg, size_t len);

/* At exit. restore: put every change back (waiting up to wait_s for the
 * kernel), and say what was restored; otherwise list what was changed and
 * print one command line that would revert it. Queued restores (an A/B's)
 * are waited for too; any other change still in the kernel is not: exit
 * does not hang on a stuck disk. Returns 0, or 1 when a change could not be
 * put back. */
int control_finish(struct control *c, int restore, double wait_s, FILE *f);

#endif
