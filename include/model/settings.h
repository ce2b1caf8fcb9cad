/* settings: what a run can set, as plain data — the kinds of queue
 * setting, a request to change one, a setting's current value, and the
 * kinds of background load. tune.h and load.h (src/act) act on them; the
 * A/B's configuration (abdata.h), the session and the views only carry and
 * show them, so they live below all of those. Header only. */
#ifndef IOSCHED_SETTINGS_H
#define IOSCHED_SETTINGS_H

/* TUNE_BFQ_WEIGHT: a cgroup's io.bfq.weight (its default weight; the
 * per-device lines are left alone). */
enum tune_kind { TUNE_SCHEDULER, TUNE_QUEUE, TUNE_IOSCHED, TUNE_IOPRIO, TUNE_BFQ_WEIGHT };

#define TUNE_KEY_MAX 48
#define TUNE_VALUE_MAX 48
#define TUNE_CGROUP_MAX 256 /* a cgroup's path, as CGROUP_PATH_MAX (read/cgroup.h) */

struct tune_sysfs;

struct tune_req {
	char disk[32];               /* TUNE_BFQ_WEIGHT: the unit's name, for messages (cut) */
	enum tune_kind kind;
	char key[TUNE_KEY_MAX];      /* "scheduler", or the file's name */
	char value[TUNE_VALUE_MAX];  /* TUNE_IOPRIO: "none", "idle", "be/N", "rt/N" */
	int undo;                    /* undoes an earlier change: not logged again */
	int reset;                   /* (with undo) puts back a setting a switch had reset */
	int pid;                     /* TUNE_IOPRIO: the process (all its threads) */
	unsigned long long start;    /* TUNE_IOPRIO: its start time (/proc/PID/stat): a pid the kernel gave
				      * to another process since is not it; 0 unknown: no process to act on */
	unsigned long long since;    /* TUNE_IOPRIO: when the change was asked for (ticks after boot, as start):
				      * processes started since inherited its value; 0 unknown */
	unsigned uid;                /* TUNE_IOPRIO: the process's owner (real uid) */
	char expect[16];             /* TUNE_IOPRIO undo: the value the change set; only threads still at it
				      * are set back (one its owner changed since keeps the owner's) */
	char cgroup[TUNE_CGROUP_MAX]; /* TUNE_BFQ_WEIGHT: the path under the v2 root ("a.slice/b.service") */
	const struct tune_sysfs *sysfs; /* NULL: the real /sys (tune.h) */
	char cause[64];              /* why, for the event log ("A/B phase 3"); "" a user's own */
};

/* One queue setting as it is now (the tunables panel). */
struct tunable {
	enum tune_kind kind;
	char key[TUNE_KEY_MAX];
	char value[64];
	int writable;
};

/* The built-in background load (load.h). */
enum load_kind { LOAD_NONE, LOAD_WRITE, LOAD_FSYNC };

#endif
