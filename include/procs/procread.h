/* procread: one reading of a task, as the process reader (procs.c) and
 * the exit records' accounting (procexit.c) share it: the counters of
 * /proc/PID/io and the delays, and what is remembered of a task between
 * two readings. Its own header so that neither of the two depends on the
 * other's API for these types. */
#ifndef IOSCHED_PROCREAD_H
#define IOSCHED_PROCREAD_H

#include <stdint.h>

/* Room for a task's name as /proc/PID/stat shows it: 15 characters, or
 * for a workqueue worker its name, '-' or '+' and its work item's (at
 * most 31, WORKER_DESC_LEN), 47 in all. Every task has two copies
 * (reading and row): a size of 64 cost 320 KiB at 10,000 tasks. */
#define PROCS_COMM_MAX 48

struct proc_counters {
	uint64_t rbytes, wbytes, syscr, syscw;
	uint64_t blkio_count, blkio_ns;
};

/* The I/O counters alone, for what is kept per task besides the last
 * reading (10,000 tasks keep two readings each). */
struct proc_io {
	uint64_t rbytes, wbytes, syscr, syscw;
};

/* c's I/O counters, without the delays. */
static inline struct proc_io procread_io_of(const struct proc_counters *c)
{
	return (struct proc_io){c->rbytes, c->wbytes, c->syscr, c->syscw};
}

/* a += b */
static inline void procread_io_add(struct proc_io *a, const struct proc_io *b)
{
	a->rbytes += b->rbytes;
	a->wbytes += b->wbytes;
	a->syscr += b->syscr;
	a->syscw += b->syscw;
}

/* What a process's reaped children brought into its counters (a child's
 * totals join its parent's /proc/PID/io when it is reaped): in this
 * interval, and since the process was first read (this interval's
 * included). Made only for a process that reaped one: most never do,
 * and the 64 bytes inline in every task's reading were 0.6 MiB at 10,000
 * tasks. */
struct proc_reaped {
	struct proc_io children;
	struct proc_io cum;
};

/* What is remembered of a task between two readings. */
struct proc_seen {
	int id;                     /* pid, or tid in thread mode */
	int ppid;
	unsigned long long start;   /* with id, tells a reused pid from the old task */
	struct proc_counters c;     /* the last reading */
	struct proc_io base;        /* the first reading (for totals) */
	struct proc_reaped *reaped; /* what reaped children brought; NULL: none (procexit_reaped_add
				     * makes it, procs.c hands it on like cmdline) */
	signed char settled;        /* gone, and accounted from its exit records (procexit.h) */
	signed char readable;       /* -1 not checked yet */
	signed char waiting;        /* waited last interval: ask taskstats again */
	signed char cmdline_read;   /* /proc/PID/cmdline was read into cmdline (procs_name) */
	int ioprio;
	char comm[PROCS_COMM_MAX];  /* from /proc/PID/stat, re-read when the task does I/O */
	char state;
	signed char io_held;        /* io_fd is held open (below) */
	/* state, ppid, nice, start and comm came with the kernel's task walk
	 * (1), or did but comm is a workqueue worker's, whose /proc name
	 * says its current work item (2); 0: read from /proc/PID/stat */
	signed char from_walk;
	signed char stat_ok;         /* stat read into this entry in this reading */
	int nice;
	/* Read once, the first time the task's row is named (procs_name),
	 * and handed from one reading to the next (procs.c owns it); read
	 * again when named after the task's name changed (an exec). Two
	 * arrays of entries with 256 bytes inline each cost half a MiB at
	 * 1,000 tasks. NULL: not read, or empty or unreadable (a kernel
	 * thread): the row shows comm. */
	char *cmdline;
	/* /proc/PID/io kept open for the next reading (io_held), which reads
	 * it again at offset 0: handed on like cmdline. */
	int io_fd;
	/* The uptime its cgroup was read at (0: not read yet). A float, and
	 * the two flags above as chars, so that the cgroup costs these
	 * entries nothing: two arrays of them at 10,000 tasks. */
	float cgroup_at;
	/* Its v2 cgroup (interned by the reader: procs.c); carried from
	 * reading to reading. Read only while someone shows or writes
	 * cgroups (procs_use_cgroups). */
	const char *cgroup;
};

#endif
