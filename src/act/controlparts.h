/* controlparts: the control's state (include/act/control.h), private to
 * its sources (src/act/control*.c) and to the unit tests that look inside
 * it; everything else holds an opaque struct control. */
#ifndef IOSCHED_CONTROLPARTS_H
#define IOSCHED_CONTROLPARTS_H

#include "act/control.h"
#include "act/sysctlhold.h"
#include "act/undo.h"
#include "act/worker.h"

struct control {
	const struct tune_sysfs *sysfs; /* NULL: the real /sys (tests give a fake) */
	struct worker *w;
	struct undo_log undo;
	struct eventlog out;         /* finished changes, not yet taken (control_take_events) */
	double delayacct_since;      /* uptime when this run turned delay accounting on, or 0 */
	struct sysctl_hold delayacct; /* this run's hold on kernel.task_delayacct (shared with other runs) */
	int restoring;               /* restores are queued: exit must wait for them */
	int restore_due;             /* a restore waits for the worker to be idle */
	size_t restore_base;         /* ... of the changes after this many log entries */
	/* Undos that succeeded: changes; queue attributes a switch had reset;
	 * files of a scheduler a switch had dropped, written back. */
	size_t undone, undone_resets, undone_own;
	size_t undone_ended;       /* I/O priorities of processes that had ended: not put back */
	char last[256];              /* the last result, for the status line */
	char first_failed[256];      /* --restore at exit: the first undo that failed, for the report */
	int last_ok;
	double last_mono;
};

/* Start a control in place (control_new's work; the tests keep one in a
 * fixture). */
int control_init(struct control *c, const struct tune_sysfs *sysfs);

#endif
