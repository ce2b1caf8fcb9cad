/* taskiter_maps: what the task iterator (src/bpf/taskiter.bpf.c) hands user
 * space (src/bpf/taskiter.c): shared by both, so the layout is one. */
#ifndef IOSCHED_TASKMAPS_H
#define IOSCHED_TASKMAPS_H

/* Every task visited writes a header; a task whose counters, state or
 * name changed since the last walk (or that is new) writes the whole
 * record, which starts with the header. */
struct taskmap_head {
	unsigned int tid;
	unsigned int full;           /* 0: unchanged, only this header; 1: a taskmap_rec */
};

struct taskmap_io {
	unsigned long long rbytes, wbytes, syscr, syscw; /* read_bytes, write_bytes, syscr, syscw */
};

struct taskmap_rec {
	struct taskmap_head h;
	unsigned int tgid, ppid, euid;
	int nice;
	unsigned int pf;             /* task flags (PF_KTHREAD...) */
	char state;                  /* as /proc/PID/stat says it: R S D T t X Z P I */
	char pad[3];
	unsigned long long start_ns; /* since boot (start_boottime) */
	struct taskmap_io own;       /* this thread's counters */
	struct taskmap_io dead;      /* a group leader's: the group's ended threads (signal->ioac) */
	char comm[16];
};

/* What the walk remembers of a task, to tell a change. */
struct taskmap_seen {
	unsigned long long sum;      /* of the task's own counters */
	unsigned long long dead_sum; /* a group leader's: of its ended threads' (signal->ioac) */
	unsigned long long start_ns;
	unsigned long long comm[2];
	unsigned int state;          /* the raw state bits (state | exit_state) */
	unsigned int forks;          /* a leader's: its slot of task starts when last looked */
	unsigned int kin;            /* a leader's: TASKMAP_KIN_* when last looked */
	unsigned int pad;
};

#define TASKMAP_KIN_THREADS 1u       /* it had other threads */
#define TASKMAP_KIN_CHILDREN 2u      /* it had children */

/* Task starts are counted per process in this many slots (by tgid; two
 * processes may share one, which only makes the walk read more). */
#define TASKMAP_FORK_SLOTS 4096

#define TASKMAP_SEEN_MIN 4096
#define TASKMAP_SEEN_MAX (1u << 18)

#endif
