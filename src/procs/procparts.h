/* procparts: how the process reader's files (src/procs/proc*.c) share
 * the reader and call one another. Private to procs/: everything else
 * uses procs/procs.h. procs_collect (procs.c) takes the task listing
 * (procwalk.c), settles the exit records (procgone.c), and makes each row
 * from its task's reading and the one before (procseen.c): /proc's files
 * (procfiles.c), the waits (procwaits.c), the rates (procrates.c), the
 * I/O priority (procprio.c), the names (procname.c), and the block
 * layer's figures (procblk.c): every figure of a row is set here, as the
 * row is made; nothing outside procs/ edits a row after (only replay.c
 * makes rows of its own, from a recording; tests/static/
 * test_row_writers.sh). None of them calls procs.c. */
#ifndef IOSCHED_PROCPARTS_H
#define IOSCHED_PROCPARTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "procs/procs.h"
#include "read/proc2.h"
#include "procexit.h"
#include "base/util.h"

/* How many refreshes a process that ended stays listed (dimmed). */
#define EXIT_LINGER 3
/* An exited process whose leader record never came is let go after this. */
#define EXIT_STALE_S 5.0

/* Descriptors of /proc/PID/io stay open from one reading to the next:
 * opening and closing the file was over a third of the tool's CPU with
 * 1,000 processes (perf: the path walk and /proc's revalidation of the
 * pid), the read itself half that. Each open one costs the kernel about
 * 3.5 KiB (a file and seq_file's page; Slab grew 2.9-3.8 MiB for 912). As many as the soft RLIMIT_NOFILE
 * allows less PROCS_IO_FDS_SPARE, left for everything else the tool
 * opens; past that a task's file is opened and closed each time. Never
 * more than this many (a machine with 100,000 threads): */
#define IO_FDS_MAX 16384

struct taskstats_conn;
struct taskstats_listener;
struct taskiter;
struct pids_info;

struct procs {
	struct proc2 lib;            /* loaded while the /proc way is used */
	struct pids_info *info;
	/* The last reading (kept between refreshes) and, while a refresh
	 * runs, the new one: its array is freed once it is the last, so
	 * only one is resident between refreshes. */
	struct proc_seen *prev, *cur;
	size_t nprev, ncur, prev_cap, cur_cap;
	size_t io_held, io_max;      /* descriptors kept open; how many may be */
	size_t io_skipped;           /* io reads of this refresh skipped: their task's read was stuck */
	struct taskstats_conn *ts;
	int ts_err;                 /* why taskstats is unavailable, or 0 */
	int threads;                /* the mode prev was read in */
	int self;                   /* this process's pid */
	long hz;
	double prev_up;             /* uptime (s) when prev was read; 0 before the first reading */
	/* exit records (procexit.h); NULL without CAP_NET_ADMIN */
	struct taskstats_listener *exits;
	struct procexit px;
	unsigned long exits_lost;
	long records_lost;                   /* the kernel's count of records it dropped; -1: unknown */
	/* As many as ended: two shells each ending 500 processes within a
	 * refresh are 1,000 rows to settle (a fixed 512 dropped the rest
	 * unsaid). Grouped rows are fewer. */
	struct procexit_row *settled;
	size_t settled_cap;
	struct proc_row *gone;               /* rows of ended processes still shown (ended_ago: refreshes since) */
	size_t ngone, gone_cap;
	/* The kernel's task walk (taskiter.h), when asked for and loaded:
	 * the tasks and their counters without a /proc file per task */
	int iter_want, iter_tried;
	unsigned readings;
	struct taskiter *iter;
	char iter_why[96];
	struct user_name { unsigned uid; const char *name; } *users; /* names of the uids seen */
	struct util_texts user_texts;  /* where those names are kept: rows point at them */
	size_t nusers, users_cap;
	/* TO-DISK since first seen, per process (the pane's totals, a): by
	 * tgid; an entry not added to for 10 minutes, of a process no longer
	 * listed, is dropped (procblk.c) */
	/* (a process: its pid and start, as blk_proc's) */
	struct procs_to_disk { int tgid; uint32_t start; uint64_t bytes; double last; } *to_disk;
	size_t nto_disk, to_disk_cap;
	struct proccgroups *cg;      /* the cgroup paths seen (proccgroup.c); NULL: none yet */
	int cg_on;                   /* read cgroups (procs_use_cgroups); off: rows keep what was read */
	/* /proc's io and stat files are read through tr (timedread.h), up to
	 * PROCS_READ_CHUNK at a time into tri and its texts */
	struct timedread *tr;
	struct timedread_item *tri;
	char *tri_text;
};

#define PROCS_READ_CHUNK 512
#define PROCS_READ_TEXT 1024


/* What one reading is made with, the same for every task. */
struct reading {
	int threads;
	double interval_s;
	double delayacct_since; /* when delay accounting came on; 0: not by us */
	double hz;              /* clock ticks a second: start times are in them */
	int wait_known;         /* taskstats and delay accounting both work */
	double up;              /* uptime (s) of this reading: when a cgroup was read */
};

/* procfiles.c: a task's files in /proc. The I/O counters of a
 * listing's tasks (rows[i], cur[i]) into cur[i].c (through the descriptor
 * the task's previous entry held, else a new one, kept while p has room
 * for it); readable says which were read. The stat lines of n tasks
 * (want[i]) into their entries, stat_ok says which. Its command line
 * (NULL: none). */
void procfiles_read_io_all(struct procs *p, int threads, const struct proc_row *rows, struct proc_seen *cur,
			   size_t n);
struct procfiles_want {
	const struct proc_row *r;
	struct proc_seen *e;
};
void procfiles_read_stats(struct procs *p, int threads, const struct procfiles_want *want, size_t n);
int procfiles_read_cmdline(struct procs *p, int pid, char **out);

/* procseen.c: the readings kept from one refresh to the next (p->prev)
 * and the one being taken (p->cur), both sorted by id. */
struct proc_seen *procseen_lookup(const struct proc_seen *arr, size_t n, int id);
/* lookup for ids asked in rising order (*next: where to try first) */
struct proc_seen *procseen_lookup_next(const struct proc_seen *arr, size_t n, size_t *next, int id);
/* Room in p->cur for n tasks. Returns 0 or -ENOMEM. */
int procseen_reserve(struct procs *p, size_t n);
/* p->cur sorted by id (when it is not yet). */
void procseen_sort_current(struct procs *p);
/* What n entries still own (command lines, descriptors), freed. */
void procseen_let_go(struct procs *p, struct proc_seen *a, size_t n);
/* p->cur becomes p->prev, read at uptime up. */
void procseen_keep_as_previous(struct procs *p, double up);
/* What is known of a task carried from its previous reading old (NULL:
 * new) into e. */
void procseen_carry(struct proc_seen *old, struct proc_seen *e);

/* procname.c: the owner's name of uid (kept for p's lifetime); r's
 * command line from its task's entry e, read the first time. */
const char *procname_user(struct procs *p, unsigned uid);
void procname_from(struct procs *p, struct proc_seen *e, struct proc_row *r);

/* procprio.c: a task's I/O priority as ioprio_get says it (-1: unknown). */
int procprio_read(int tid);

/* procwaits.c: taskstats opened for p (p->ts, p->ts_err, and the exit
 * records' listener p->exits); e's delay counters asked for when they may
 * have moved; what p can and cannot read, into st. */
void procwaits_open(struct procs *p);
void procwaits_query(struct procs *p, int threads, struct proc_seen *e, const struct proc_seen *old,
		     struct proc_row *r);
void procwaits_status(const struct procs *p, int threads, struct procs_status *st);

/* procgone.c: the exit records that came, settled against the two
 * listings into p->settled (how many); then the rows of processes that
 * ended (p->gone) brought up to date with nx of them over dt seconds. */
size_t procgone_settle(struct procs *p, int threads, struct procs_status *st);
void procgone_add(struct procs *p, size_t nx, double dt, const struct procs_blk *blk);

/* procwalk.c: libproc2's listing opened (0 or a negative errno); the
 * kernel's task walk loaded when asked for, from the third reading on
 * (loading it must not delay the first sample; it is done before the
 * reading's time is taken, as it can take a quarter of a second); the
 * tasks of this reading into p->cur and their rows (who each is, its
 * counters), from the kernel's task walk or /proc. Returns how many, or
 * a negative errno. Room for want rows. */
int procwalk_open(struct procs *p);
void procwalk_prepare(struct procs *p);
ssize_t procwalk_take_all(struct procs *p, int threads, struct proc_row **rows, size_t *cap);
int procwalk_rows_room(size_t want, struct proc_row **rows, size_t *cap);

/* procblk.c: the block layer's figures on rows being made (n of them;
 * rows of writers that ended before their pages were written are added,
 * except in thread mode); without a reading (blk or blk->r NULL), the
 * figures that say "not known" (TO-DISK -1). procblk_totals alone: this
 * reading's writes into the TO-DISK totals, the n rows listed keeping
 * theirs (a reading without rows: n 0). */
void procblk_fill(struct procs *p, const struct procs_blk *blk, int threads, double interval_s,
		  struct proc_row **rows, size_t *n, size_t *cap);
void procblk_totals(struct procs *p, const struct procs_blk *blk, const struct proc_row *rows, size_t n);

/* proccgroup.c: each task's v2 cgroup. proccgroup_fill: e's (carried
 * from old by procseen_carry) read when the task is new, and again when it
 * moved bytes and its path is PROCS_CGROUP_REREAD_S old; onto r. A path is
 * kept once (proccgroup_keep: its kept copy, NULL when out of room), rows
 * point at it, and the same path is the same pointer.
 * proccgroup_note_ended: the tasks of p->prev missing from p->cur, with
 * their last cgroup, remembered for a while (writers whose pages are
 * written after they ended); proccgroup_note_exit: the same for a process
 * no listing saw, from its exit record (procgone.c: its parent's cgroup);
 * proccgroup_last: that cgroup of process tgid (NULL: not seen).
 * proccgroup_of_id: the kept path of the v2 cgroup whose id is id (the BPF
 * part's, blklat_name): noted when a path is first kept, else looked for
 * by a walk of the v2 tree, at most PROCCGROUP_WALKS a refresh (NULL: not
 * found, or cgroups are off). proccgroup_forget, at a reading's end: once
 * the store has grown enough, the paths nothing points at (neither the
 * reader's tasks, the ended ring, the rows of ended processes, the n rows
 * of this reading, nor an id used within 2 minutes) are forgotten and the
 * rest moved: every pointer to a kept path is made anew then, so nothing
 * else may keep one past the next reading. proccgroup_kept: how many
 * paths are kept. proccgroup_free at the end. */
/* Walks a refresh may make, one per id not noted: with one, the first
 * unknown id of a refresh (another unit's, a cgroup already gone) took the
 * walk, and the exit records of processes that ended unseen in a new
 * unit, handled once in that refresh, fell to their parent's unit. Ids a
 * walk missed are not walked for again, so a refresh with many unknown ids
 * costs at most this many walks. */
#define PROCCGROUP_WALKS 4
void proccgroup_fill(struct procs *p, const struct reading *rd, const struct proc_seen *old, struct proc_seen *e,
		     int moved, struct proc_row *r);
void proccgroup_note_ended(struct procs *p);
void proccgroup_note_exit(struct procs *p, int tgid, const char *cgroup);
const char *proccgroup_last(const struct procs *p, int tgid);
const char *proccgroup_of_id(struct procs *p, uint64_t id);
const char *proccgroup_keep(struct procs *p, const char *path);
void proccgroup_forget(struct procs *p, struct proc_row *rows, size_t n);
size_t proccgroup_kept(const struct procs *p);
void proccgroup_free(struct procs *p);
/* procfiles.c: a task's /proc/PID/cgroup (thread mode: its task's), its
 * v2 path without the leading '/' ("/" for the root) into path. Returns
 * 0, or a negative errno (-ENOENT: no v2 line, or the task is gone). */
int procfiles_read_cgroup(int pid, int tid, int threads, char *path, size_t len);

#endif
