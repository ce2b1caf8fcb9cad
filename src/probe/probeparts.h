/* probeparts: the struct probe that the probe thread's files share, and
 * how they call one another. Private to them: everything else uses
 * probe/probe.h. probe.c starts the thread, runs its loop (paced reads or
 * a back-to-back stream) and stops it; it calls the device node's part
 * (probedevice.c: the mode chosen, the node opened, closed and reopened,
 * a loop device's detach watched), the file mode's part (probefilemode.c:
 * which file is read, written first if need be), and what is shared under
 * the mutex with the main thread (probestatus.c: the status, the end's
 * reason, the latency windows). probestatus.c calls none of the others;
 * probedevice.c and probefilemode.c call only it. */
#ifndef IOSCHED_PROBEPARTS_H
#define IOSCHED_PROBEPARTS_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>

#include "probe/aioreader.h"
#include "probe/latwin.h"
#include "probe/probe.h"
#include "probe/prng.h"
#include "probespan.h"

/* An open descriptor keeps a loop device the user detaches (losetup -d)
 * alive until its last close, and with two probing tools each holding it
 * the last close may never come. So a paced probe holds the node only
 * while a read is in flight: it opens it before each read and closes it
 * after. A back-to-back probe keeps it and closes and opens it again
 * every REOPEN_S. Neither is enough alone: under load reads take most of
 * their period, and two instances' reads then overlap without a gap
 * (seen here: a detach still pending after 3 s). So both also watch a
 * loop device's autoclear flag, which the kernel sets when a detach is
 * deferred for want of the last close: a paced probe before each read, a
 * back-to-back one every DETACH_POLL_S. Once it is on, the probe never
 * opens the device again and ends; the last read in flight anywhere ends
 * the device. A probe that ends, for whatever reason, closes what it
 * holds at once (an ended probe that kept its descriptor held a detached
 * loop device, and so the next device attached under that number). */
#define REOPEN_S 1.0
#define DETACH_POLL_S 0.1

struct probe {
	struct probe_config cfg;
	pthread_t thread;
	int handoff;               /* atomic: PROBE_THREAD_* (probe.c) */
	pthread_mutex_t mu;
	pthread_cond_t wake;       /* stop or rate change */
	/* under mu */
	struct latwin win;
	struct probe_status st;
	double in_flight_since;    /* mono seconds, 0 when idle */
	int stop;
	int rate_changed;
	/* thread only */
	int fd;                    /* -1 while a paced probe holds no node */
	double opened;             /* mono time fd was opened */
	int autoclear0;            /* a loop's autoclear flag at start; -1: none */
	int autoclear_fd;          /* its sysfs file, kept open; -1: not open */
	double autoclear_checked;  /* mono time it was last read */
	int detaching;             /* it was seen on: the probe ends */
	uint64_t span;             /* bytes that can be read */
	int private_lock;          /* under mu: >= 0, private_path is in a directory made for
				    * this run (held while it is written too, so that a stop
				    * that leaves the thread behind removes it:
				    * probefilemode_drop_private) */
	char private_path[PATH_MAX];
	struct prng rng;
	/* FILES mode (probefiles.c): the files read and their extents, when
	 * they were chosen, and how many were live then */
	struct probespan set;
	double set_built;
	size_t set_files0;
	/* a new choice made by a thread of its own while the reads go on */
	pthread_t chooser;
	int chooser_runs;          /* thread only: chooser started, not yet joined */
	int chooser_done;          /* under mu: it has ended, its choice in chooser_set */
	int chooser_rc;            /* under mu */
	struct probespan chooser_set; /* the chooser's own until chooser_done */
	char preparing[PATH_MAX];  /* under mu: the probe file being written, or "" */
};

/* probestatus.c: the probe's state and its end (why, as printf), whether
 * a stop was asked, a wait that a stop or a rate change cuts short (1),
 * and the reads into the windows (a stream's batch: -1 when a read
 * failed, the end recorded). */
void probestatus_set_state(struct probe *p, enum probe_state s, const char *why);
void probestatus_end(struct probe *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int probestatus_stopping(struct probe *p);
int probestatus_wait_until(struct probe *p, double deadline);
void probestatus_record(struct probe *p, int64_t ns);
int probestatus_record_batch(struct probe *p, const struct aioreader_batch *b);

/* probedevice.c: the mode chosen at the start (the node when it opens,
 * else a file); before a read in device mode, the node open and no
 * detach asked (0, or -1: the probe ends); the node let go; whether a
 * loop device's detach is waiting for the last close. */
int probedevice_choose(struct probe *p, char *err, size_t len);
int probedevice_ready(struct probe *p, struct aioreader *io, double rate);
int probedevice_close(struct probe *p, struct aioreader *io);
int probedevice_detach_asked(struct probe *p, double rate);

/* probefiles.c: the read-only file mode: the files chosen (0, or -1: the
 * probe ends, why recorded); a read's file opened, its offset and where
 * that was on the disk (the descriptor, or -1: the probe ends), a file
 * whose read failed dropped;
 * the choice freed. */
int probefiles_open(struct probe *p);
int probefiles_next(struct probe *p, uint64_t *off, size_t *file, uint64_t *phys);
void probefiles_failed(struct probe *p, size_t file);
void probefiles_free(struct probe *p);

/* probefilemode.c: the probe file made whole and opened; the private
 * directory this run made, removed (the _locked one under mu). */
int probefilemode_open(struct probe *p);
void probefilemode_drop_private_locked(struct probe *p);
void probefilemode_drop_private(struct probe *p);

#endif
