/* procs: per-process (or per-thread) I/O — bytes and syscalls per second
 * from /proc/PID/io through libproc2, block-I/O wait from taskstats, I/O
 * priority, and kernel writeback threads told apart from the processes
 * that dirtied the pages. System-wide: the kernel does not say which disk
 * a process's I/O went to. */
#ifndef IOSCHED_PROCS_H
#define IOSCHED_PROCS_H

#include <stddef.h>
#include <stdint.h>

#include "procs/procread.h"

enum proc_wait {
	WAIT_OFF,      /* no figure: delay accounting off or taskstats not allowed */
	WAIT_NONE,     /* no I/O and no waits in the interval */
	WAIT_NA,       /* moved bytes but no synchronous waits (async I/O): "n/a" */
	WAIT_OK,       /* waits measured */
	WAIT_BEFORE,   /* started before delay accounting was on: the kernel keeps no delays for it */
};

/* PROC_SELF: this tool and its child processes (iosched-reader issues the
 * probe's reads, iosched-switch a scheduler switch), whose probe reads
 * would otherwise look like a reader of their own. */
enum proc_kind { PROC_NORMAL, PROC_WRITEBACK, PROC_LOOP, PROC_SELF, PROC_JOURNAL };

/* Where a row's cgroup came from: its /proc/PID/cgroup (read when the
 * task was first seen, and again at most every PROCS_CGROUP_REREAD_S
 * while it does I/O); the last one read before it ended (an exit record's
 * row, a writer whose pages were written after it ended); its parent's,
 * for a process that ended before any listing saw it (forked into its
 * parent's cgroup, where it nearly always stays); the one it dirtied its
 * pages in, as the BPF part noted it (a writer whose pages were written
 * after it ended); the one it issued block requests from, as the BPF part
 * saw it (a process that ended unseen: better than its parent's, which a
 * process that moved itself, as systemd-run --scope does, is not in); or
 * not known. Recordings keep it by name. */
enum proc_cgsrc { CGSRC_LIVE, CGSRC_LAST, CGSRC_PARENT, CGSRC_DIRTIER, CGSRC_ISSUER, CGSRC_UNKNOWN };
#define PROCS_CGROUP_REREAD_S 5.0


struct proc_row {
	int pid, tid, ppid;        /* tid == pid in process mode */
	unsigned uid;
	/* The owner's name, at most PROCS_USER_MAX - 1 bytes; NULL: not
	 * known (procs_row_user says "?"). Points at its reader's names, as
	 * cmdline does (procs.c keeps one per uid for its lifetime): 32
	 * bytes inline in every row were 0.3 MiB at 10,000 tasks. */
	const char *user;
	char comm[PROCS_COMM_MAX];
	/* The command line, arguments joined by blanks, at most
	 * PROCS_CMDLINE_MAX - 1 bytes; NULL: none (a kernel thread, an ended
	 * process) or not read (procs_name), shown as comm
	 * (procs_row_cmdline). Not the row's own: it points into its reader's
	 * memory (procs.c for a live reading, replay.c for a replayed one)
	 * and lasts until that reader's next reading, as the rows do. A copy
	 * inline cost 256 bytes a row. */
	const char *cmdline;
	char state;
	int nice;
	unsigned long long start;  /* clock ticks after boot */
	int io_readable;           /* /proc/PID/io could be read */
	enum proc_kind kind;
	int ioprio;                /* raw ioprio_get value; -1 unknown */
	enum proc_wait wait;       /* here, in a hole beside ioprio: a row's size is 10,000 times */
	double read_Bps, write_Bps, read_calls, write_calls;
	struct proc_counters total;/* since first seen by this run */
	double io_wait_pct, avg_wait_us;
	int partial;               /* started before this run turned delay accounting on:
				    * the kernel allocates a task's delay record at fork,
				    * so such a task has no waits at all (WAIT_BEFORE) */
	int moved;                 /* any I/O this interval */
	int exited;                /* ended (taskstats exit records): the I/O of the interval it ended in */
	int count;                 /* exited: how many of the same command and parent ended in it */
	int ended_ago;             /* exited: refreshes since (0: in this interval); shown a few times,
				    * counted (JSON, the top writer) only at 0 */
	enum proc_cgsrc cgroup_src; /* where cgroup (below) came from; here, in a hole */
	/* block-layer latency of the process's requests, [0] read, [1] write
	 * (BPF, procblk.c; blk_n 0: no requests or no BPF) */
	uint64_t blk_n[2], blk_p50_ns[2], blk_p99_ns[2], blk_bytes[2];
	/* Bytes a second written to disks on its behalf: its own write
	 * requests plus the writeback of pages it dirtied, whoever issued
	 * them (BPF; -1: not known, the BPF part off) */
	double to_disk_Bps;
	uint64_t to_disk_total;    /* the same in bytes, since this run first saw it (when to_disk_Bps >= 0) */
	/* Share of the interval (%) it was paused in dirty-page throttling:
	 * it dirtied pages faster than its disks take them and the kernel
	 * made it sleep (balance_dirty_pages, the wait a buffered writer
	 * feels; it is not block I/O, so IO-WAIT does not show it). Summed
	 * over its threads. -1: not known (the BPF part off or without it,
	 * a thread's row: the BPF part keys by process). */
	double throttled_pct;
	/* The disk it moved most bytes on in the interval (blklat_top_disk;
	 * procblk.c, and a replay from the recorded block stats): a name in the sample's block stats, which live as long as
	 * its rows. NULL: no block requests, the BPF part off, or a thread's
	 * row (the BPF part keys by process). */
	const char *disk;
	/* Its cgroup v2 path relative to the v2 root ("system.slice/cron.service";
	 * "/" the root), at most CGROUP_PATH_MAX - 1 bytes; NULL: not known
	 * (no cgroup v2, an unreadable file, cgroup_src). Points at its
	 * reader's store of paths (each path once: the same path is the same
	 * pointer; good until the next procs_collect, which may forget paths
	 * nothing points at and move the rest; a replay's in the sample's
	 * texts). */
	const char *cgroup;
};

#define PROCS_CMDLINE_MAX 256
#define PROCS_USER_MAX 32

/* The row's owner's name, or "?" without one. */
const char *procs_row_user(const struct proc_row *r);

/* What a row shows as its full command: cmdline, or comm without one. */
const char *procs_row_cmdline(const struct proc_row *r);

/* Whether a row says more than that its task exists: it did I/O in the
 * interval, waited on it, had block requests (BPF), or is this tool's.
 * A recording keeps such rows, and their command lines are read at once. */
int procs_row_notable(const struct proc_row *r);

/* Tasks whose /proc files do not answer named in the status, at most. */
#define PROCS_STUCK_NAMED 3

struct procs_status {
	int threads;               /* rows are threads */
	int taskstats;             /* 0: no taskstats (why in missing) */
	int delayacct;             /* kernel.task_delayacct */
	char missing[200];         /* what permission or setting is missing, or "" */
	size_t unreadable;         /* rows whose /proc/PID/io could not be read */
	size_t stuck;              /* tasks whose /proc files do not answer (timedread.h), skipped */
	size_t given_up;           /* reads given up on in this reading (a task held for a while), or at
				    * least the io reads skipped for a task stuck since an earlier one */
	int stuck_pid[PROCS_STUCK_NAMED]; /* the first of them */
	int as_root;               /* read as root: an unreadable row is not for want of root */
	int exits;                 /* exit records on: short-lived processes under their own names */
	unsigned long exits_lost;  /* refreshes at which the kernel had dropped exit records (buffer full) */
	long exit_records_lost;    /* exit records the kernel dropped since the start (socket full); -1: unknown */
	int from_iter;             /* tasks and counters from the kernel's task walk (BPF), not /proc */
	char iter_why[96];         /* why not, or "" */
	double walk_s;             /* seconds the rows' rates cover: since the last walk */
};

/* Descriptors below the soft RLIMIT_NOFILE that the process reader
 * leaves for the rest of the tool: it keeps the others' worth of
 * /proc/PID/io files open between readings (procs.c says why). */
#define PROCS_IO_FDS_SPARE 256

struct procs;

int procs_new(struct procs **out);

/* The BPF part's reading of the interval (blklat.h), taken before the rows
 * are made, for the figures it gives them: their block requests, TO-DISK
 * and its totals (kept here, by process), the kind of a kernel thread
 * that wrote, the disk used most, and rows for processes that ended
 * before their pages were written. */
struct blk_reading;
struct blklat;
struct procs_blk {
	const struct blk_reading *r; /* NULL: no figures this interval (TO-DISK not known) */

	double mono;                 /* the sample's time, the totals' clock */
};

/* Read every process (or thread) and compute rates over interval_s.
 * delayacct_since: uptime (s) when this run turned delay accounting on, or
 * 0. blk: the block layer's reading, or NULL without one. rows is
 * reallocated as needed; their cmdline pointers last until the next call.
 * Every figure of a row is set here: nothing edits a row after. The
 * notable rows (procs_row_notable, their block requests included) are
 * named (procs_name), and every row whose task was named before has its
 * command line. Returns 0 or a negative errno, with no rows (*n 0). */
int procs_collect(struct procs *p, int threads, double interval_s, double delayacct_since, const struct procs_blk *blk,
		  struct proc_row **rows, size_t *n, size_t *cap, struct procs_status *st);

/* Give r, a row of the last procs_collect, its task's command line. It is
 * read from /proc the first time the task is named and kept with the task
 * from then on, so /proc/PID/cmdline is read only for what someone looks
 * at: the notable rows, the rows a screen shows, every row while a filter
 * matches command lines; at 10,000 idle tasks, a few dozen. Rows of tasks
 * that ended are left as they are. */
void procs_name(struct procs *p, struct proc_row *r);

void procs_free(struct procs *p);

/* Read the tasks through the kernel's task walk (taskiter.h) when it
 * loads, from the third reading on; off: /proc, as without BPF. */
void procs_use_iter(struct procs *p, int on);

/* Read each task's cgroup (proc_row's cgroup) from its next reading on,
 * or not: 10,000 tasks are 10,000 more files when they are first seen,
 * so they are read only while someone shows or writes cgroups. Off, rows
 * keep what was read before (NULL for tasks seen since). */
void procs_use_cgroups(struct procs *p, int on);

/* Give r, a row of the last procs_collect, its task's cgroup now (read
 * the first time; kept with the task): for a pane opened between two
 * readings, which then shows every row's at once. Only while cgroups are
 * read; rows of tasks that ended are left as they are. */
void procs_cgroup_now(struct procs *p, struct proc_row *r);

/* Forget the I/O priorities read so far (after this tool changed one):
 * the next reading asks the kernel for every task again. */
void procs_forget_ioprio(struct procs *p);

/* "be/4", "rt/0", "idle", as iotop prints a priority; nice gives the level
 * of a task that has none of its own (class "none"). */
void procs_format_ioprio(int ioprio, int nice, char *buf, size_t len);

/* Kernel threads that write on others' behalf: writeback flushers and
 * btrfs workers (PROC_WRITEBACK); jbd2 and xfsaild, which write the
 * journal and metadata (PROC_JOURNAL); loop device workers (PROC_LOOP). */
enum proc_kind procs_classify(const char *comm, int ppid, int pid);

/* "process", "writeback", "loop", "self", "journal": as JSON and recordings say. */
const char *procs_kind_name(enum proc_kind k);

/* "live", "last_known", "parent", "dirtier", "issuer", "unknown": as JSON
 * and recordings say. */
const char *procs_cgsrc_name(enum proc_cgsrc c);

/* "off", "none", "n/a", "ok", "before_delayacct". */
const char *procs_wait_name(enum proc_wait w);

/* Children that vanished between prev and cur (both sorted by id) brought
 * their totals into their parent's /proc/PID/io: note them in the
 * parent's cur entry, so its rate leaves them out. Without exit records
 * this is all there is (their last reading, not their last interval);
 * entries settled from exit records (procexit.h) are left alone. */
void procs_charge_reaped(const struct proc_seen *prev, size_t nprev, struct proc_seen *cur, size_t ncur);

/* The rates of r from its previous reading old (NULL: first seen) to e over
 * dt seconds; a different start time means a new task under a reused pid,
 * with no rates yet. wait_known: taskstats delays are valid. */
void procs_rates(const struct proc_seen *old, struct proc_seen *e, double dt, int wait_known, struct proc_row *r);

/* Parse the fields used here from a /proc/PID/stat line: comm (between the
 * first '(' and the last ')', which may hold blanks and parentheses),
 * state, ppid, nice and start time. Returns 0 or -EINVAL. */
int procs_parse_stat(const char *text, struct proc_seen *e);

/* A read of a stat line (n: timedread's bytes or -errno; text) parsed
 * into e: 0, -ESRCH (gone or unreadable), -ETIMEDOUT (held in execve: it
 * did not answer), or what kept it from being read (-EBUSY: too many
 * stuck; -ENOMEM, -EAGAIN): not a sign the process is gone. */
int procs_stat_rc(long n, const char *text, struct proc_seen *e);

/* The stat lines of processes pids[0..n) into out[i], each one's rc[i]
 * as procs_stat_rc says, read in batches through tr (timedread.h; NULL:
 * one made for this call). */
struct timedread;
void procs_read_stats(struct timedread *tr, const int *pids, size_t n, struct proc_seen *out, int *rc);

/* Parse /proc/PID/io text into c (read_bytes, write_bytes, syscr, syscw).
 * Returns 0 or -EINVAL. */
int procs_parse_io(const char *text, struct proc_counters *c);

/* Rate arithmetic, exposed for tests: the delta of one counter pair from
 * prev to cur, less what reaped children brought in (children), never
 * negative. */
uint64_t procs_delta(uint64_t prev, uint64_t cur, uint64_t children);

#endif
