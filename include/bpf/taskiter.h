/* taskiter: every task's ids, state and I/O counters from the kernel's
 * task iterator (BPF, src/bpf/taskiter.bpf.c), in one read per refresh.
 * The kernel writes a whole record only for a task that is new or whose
 * counters, state or name changed since the last read, and its id alone
 * for the others; this module keeps the table of what each task was last
 * seen as, so a reading costs in proportion to the tasks that moved, not
 * to every task on the machine. Without BPF support in the build, without
 * privileges, or when loading fails, taskiter_open says why and the
 * process reader stays on /proc. */
#ifndef IOSCHED_TASKITER_H
#define IOSCHED_TASKITER_H

#include <stddef.h>
#include <stdint.h>

/* One task (thread) as last seen. */
struct task_info {
	int tid, tgid, ppid;
	unsigned euid;
	int nice;
	char state;                /* as /proc/PID/stat: R S D T t X Z P I */
	char comm[16];
	unsigned pf;               /* task flags */
	unsigned long long start_ns; /* since boot */
	/* What /proc/PID/task/TID/io shows (own), and for a group leader
	 * what its ended threads left (dead; /proc/PID/io adds it) */
	uint64_t rbytes, wbytes, syscr, syscw;
	uint64_t dead_rbytes, dead_wbytes, dead_syscr, dead_syscw;
};

struct taskiter;

/* Load the iterator. On failure returns a negative errno, and why says in
 * a few words what is missing. */
int taskiter_open(struct taskiter **out, char *why, size_t len);

/* Walk every task once: *tasks (sorted by tid, valid until the next call)
 * are the tasks alive now, each as last known. Returns 0 or a negative
 * errno. */
int taskiter_read(struct taskiter *t, const struct task_info **tasks, size_t *n);

void taskiter_close(struct taskiter *t);

#endif
