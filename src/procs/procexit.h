/* procexit: processes that ended, from the kernel's taskstats exit records
 * (taskstats.h), turned into exact accounting.
 *
 * /proc/PID/io counts a process's own I/O plus the whole total of every
 * child it reaped (wait_task_zombie folds the child's counters and those
 * of the child's own reaped children into the parent). A shell that runs
 * 200 short dd processes between two refreshes thus looks like a writer of
 * their bytes. An exit record carries one task's own I/O only. Summing the
 * records of a process's threads gives its own total; what it brought into
 * its parent at reaping (its "jump") is that plus what it had reaped
 * itself. procexit keeps the exited processes until /proc shows them
 * reaped, then hands each one's jump to its parent (to take out of the
 * parent's rate) and reports the exited process with the I/O of its last
 * interval, under its own name.
 *
 * Exact for processes that started while the records were being taken;
 * for one that predates it, the children it reaped before are unknown, and
 * its last interval may read low (at worst as without exit records: the
 * last interval goes to the parent). */
#ifndef IOSCHED_PROCEXIT_H
#define IOSCHED_PROCEXIT_H

#include <stddef.h>
#include <stdint.h>

#include "procs/procs.h"
#include "read/taskstats.h"

/* A process that exited: its threads' records summed. A pid is given out
 * again, so a process is its pid and when it started: each record bounds
 * the start (when its task ended, less the process's age in it), and the
 * records of one process agree. */
struct procexit_proc {
	int pid;                   /* the thread group */
	int ppid;
	unsigned uid;
	char comm[32];
	struct proc_counters own;  /* rbytes, wbytes, syscr, syscw of all its threads */
	struct proc_counters folded; /* jumps of children it reaped after its last reading */
	double start_lo, start_hi; /* mono seconds: its first thread started between these */
	int named;                 /* the leader's record came (ppid, uid, comm are its) */
	int complete;              /* its last task's record came: the process is over */
	unsigned order;            /* completion order: a child completes before the parent that reaped it */
	int reaped;                /* complete and gone from the listing: settled now (procexit_settle) */
	double since;              /* mono time of its first record */
};

struct procexit {
	struct procexit_proc *v;
	size_t n, cap;
	unsigned next;
	long hz;                   /* clock ticks a second: listings' start times are in them */
	double boot_off;           /* CLOCK_BOOTTIME less CLOCK_MONOTONIC now (time suspended) */
};

/* What procexit_settle reports of one process that ended and was reaped. */
struct procexit_row {
	int pid, ppid;
	unsigned long long start;  /* in ticks, as /proc's: its last reading's, else its bounds' tick; 0 unknown */
	unsigned uid;
	char comm[32];
	struct proc_counters last; /* its own I/O since its last reading (or its life, if never read) */
	const char *cgroup;        /* its last reading's cgroup, else its parent's (cgroup_src says which) */
	enum proc_cgsrc cgroup_src;
};

/* Take one task's exit record (a per-task one: not the thread group's
 * delay-only record), with when it ended (ended_after, read_at). now: mono
 * seconds. Returns 0 or -ENOMEM. */
int procexit_add(struct procexit *x, const struct ts_record *r, double now);

/* Settle what was reaped by now: each complete exited process not in cur
 * (sorted by id; a listed process is the exited one when its pid is and
 * its start time falls in the exited one's bounds: x->hz and x->boot_off
 * set), in completion order. Its jump goes to its
 * parent: into cur's entry (procexit_reaped_add) when the parent lives,
 * else into the parent's own exited entry (folded). prev (sorted by id):
 * the last readings, used for the process's own last interval and marked
 * settled so the fallback correction leaves them. Up to max rows go to out
 * (x->n is always enough); the rest stay for the next call. Returns how
 * many. Incomplete entries older than stale_s whose process is
 * gone are dropped (a lost last record). */
size_t procexit_settle(struct procexit *x, struct proc_seen *cur, size_t ncur, struct proc_seen *prev, size_t nprev,
		       double now, double stale_s, struct procexit_row *out, size_t max);

void procexit_free(struct procexit *x);

/* A reaped process whose parent ppid ended: its jump (what its reaping
 * added to its reaper's counters) taken out of each listed ancestor of
 * ppid whose counters moved since prev by at least it, and out of the
 * namespace's init (pid 1) if it did: the kernel gives the children of a
 * process that ends to the nearest subreaper above it, else to init.
 * folded: the jump was folded into ppid's exited entry, which brings it to
 * the first listed ancestor: that one is left out. x (may be NULL):
 * exited entries, whose parents also say the way up. */
void procexit_reaped_above(struct procexit *x, int ppid, int folded, const struct proc_io *jump,
			   struct proc_seen *cur, size_t ncur, const struct proc_seen *prev, size_t nprev);

/* Add by to what e's reaped children brought (this interval and since
 * first read). Returns 0, or -ENOMEM (then it is not counted). */
int procexit_reaped_add(struct proc_seen *e, const struct proc_io *by);

/* What e's reaped children brought this interval, and since first read. */
struct proc_io procexit_reaped_now(const struct proc_seen *e);
struct proc_io procexit_reaped_cum(const struct proc_seen *e);

/* Free the records of reaped children that n entries hold. */
void procexit_free_reaped(struct proc_seen *a, size_t n);

#endif
