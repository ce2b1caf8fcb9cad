/* iofam: the I/O priority of a process's whole family, for tune.c: every
 * thread (the kernel call sets one), and on an undo the processes it
 * started since the change, which inherited the tool's value. */
#ifndef IOSCHED_ACT_IOFAM_H
#define IOSCHED_ACT_IOFAM_H

#include <stddef.h>

#include "procs/procread.h"

struct timedread;

/* Passes over a process's threads, or rounds over /proc for its
 * children, before an undo gives up on a family that keeps starting
 * tasks at the tool's value faster than they are put back. */
#define IOFAM_PASSES 50

/* The process an undo acts for: pid and start time name it; since is
 * when the change was made (processes started since inherited its value). */
struct iofam_target {
	int pid;
	int alive;                  /* still the process the change was made to */
	unsigned long long start;   /* its start time: alive is checked again each round */
	unsigned long long since;   /* clock ticks after boot, as /proc's start times */
	unsigned uid;               /* its owner (real uid) when the change was made */
	/* the undo's reads of stat and syscall, which give up on a task
	 * held in execve (timedread.h); NULL: iofam_undo makes one for the
	 * undo */
	struct timedread *tr;
};


#define IOFAM_OTHERS 4 /* strays of other owners named in a report */

/* What an undo did: threads it left (their owner changed them since) and
 * other processes of the family it put back. */
struct iofam_undo {
	int kept;
	int procs;
	/* Processes started since with the (realtime) value, outside the
	 * family tree, which could not have taken it and have no ancestor
	 * with it, of another owner than the process's: they may have it
	 * from the change (a double fork and a change of user) or from
	 * another grant; not touched, named (the first IOFAM_OTHERS). */
	int others;
	int other_pid[IOFAM_OTHERS];
	int stuck_pid;              /* -ETIMEDOUT: a process at the value held in execve (its stat does not answer) */
};

/* A process's real uid: 0 or -ESRCH. */
int iofam_uid(int pid, unsigned *uid);

/* A process's start time (clock ticks after boot): 0 or -ESRCH. */
int iofam_start(int pid, unsigned long long *start);

/* Clock ticks after boot now, on the clock of /proc's start times. */
unsigned long long iofam_ticks_now(void);

/* The live threads' I/O priority: *prio the first one's, and where another
 * live thread has another, that thread's tid (its value in *its); 0 when
 * all agree, -1 when no live thread was read. */
int iofam_threads_differ(int pid, long *prio, long *its);

/* Set every thread of pid to prio: 0 or a negative errno. */
int iofam_set(int pid, int prio);

/* iofam_set, checked: a process that shares an I/O context with one of
 * pid's threads (clone with CLONE_IO) would take the value too, where no
 * undo could follow it (it started before, and outlives the thread): its
 * pid in *sharer, pid put back to before, -EBUSY. A process that set
 * itself to prio in between reads as a sharer too (a refusal, nothing
 * changed). */
int iofam_set_alone(int pid, int prio, int before, int *sharer);

/* Put every task of t's family still at applied back to prio: its own
 * threads (if alive), the processes started since that descend from it,
 * and, for a realtime value, strays of its owner (started since outside
 * the tree, at the value, which they could not have taken themselves nor
 * have from an ancestor: a double fork); strays of other owners are
 * named in out->others. Repeats until a round finds none left. 0,
 * -ESRCH (nothing of it left), -EAGAIN (still tasks at the value after
 * IOFAM_PASSES), -ETIMEDOUT (a process at the value is held in execve,
 * where its stat does not answer, so it cannot be placed in the family:
 * out->stuck_pid; one not at the value is left out), -EBUSY (too many
 * processes held so for their stat to be read at all), or a failed
 * set's or read's errno (-ENOMEM, -EAGAIN: never taken for a process
 * gone). */
int iofam_undo(const struct iofam_target *t, int prio, int applied, struct iofam_undo *out);

#endif
