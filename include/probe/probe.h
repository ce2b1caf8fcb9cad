/* probe: one background thread per probed disk that reads 4 KiB (by
 * default) at uniform random aligned offsets, one request in flight (QD1),
 * with O_DIRECT through libaio, and times each from before io_submit to
 * after io_getevents on CLOCK_MONOTONIC (fio's "lat"). The reads themselves
 * are issued by a child process (aioreader.h), so that a read a hung disk
 * never completes cannot hold up the tool's exit. It never writes to a
 * device. Where the device node cannot be opened it reads files already on
 * a filesystem of that disk, at extents that are that disk's own blocks,
 * and writes nothing (probespan.h); a file it writes to read from
 * (probefile.h) only when asked (--probe-file-size, or a --probe-file that
 * does not exist yet). It says which.
 *
 * The thread publishes into its latency windows under a mutex; the main
 * thread only copies readings out. A request that does not complete never
 * blocks the caller: it shows as "in flight N ms". */
#ifndef IOSCHED_PROBE_H
#define IOSCHED_PROBE_H

#include <limits.h>
#include <stdint.h>

#include "probe/hist.h"
#include "probe/latwin.h"

/* FILE: one file, the user's or written by the tool on request; FILES:
 * the files already on the disk, read only. */
enum probe_mode { PROBE_MODE_OFF, PROBE_MODE_DEVICE, PROBE_MODE_FILE, PROBE_MODE_FILES };
enum probe_state { PROBE_PREPARING, PROBE_RUNNING, PROBE_ENDED };

struct probe_config {
	char disk[32];
	uint32_t io_size;          /* bytes, a multiple of the logical block size */
	double rate_hz;            /* 0: back-to-back */
	uint64_t seed;
	uint64_t min_plausible_ns; /* faster samples are flagged, kept out */
	char file[PATH_MAX];       /* a file to read instead of the device, or "" */
	int file_is_users;         /* from --probe-file: never created over */
	uint64_t file_size;        /* size of a probe file the tool creates */
	int write_file;            /* a probe file may be written (--probe-file-size); 0: the
				    * fallback reads the disk's own files and writes nothing */
};

/* The read-only file mode reads at least PROBE_FILES_MIN bytes of files
 * (less, and it says what to do instead) and looks for PROBE_FILES_WANT,
 * as much as a written probe file had: reads spread that wide miss the
 * device's caches as the probe on the node does. */
#define PROBE_FILES_MIN (64ull << 20)
#define PROBE_FILES_WANT (1ull << 30)


struct probe_status {
	enum probe_mode mode;
	enum probe_state state;
	char why[256];             /* why this mode; why it ended */
	char path[PATH_MAX];       /* what is read */
	double rate_hz;            /* 0: back-to-back */
	double in_flight_ms;       /* age of the request in flight, 0 when none */
	uint64_t missed;           /* paced ticks missed since start */
	int prep_pct;              /* writing the probe file, percent */
	int reader_pid;            /* the process that issues the reads; 0 before it starts */
	uint64_t files;            /* FILES mode: the files read, and their bytes that can be */
	uint64_t span_bytes;       /* read (in every mode: the bytes reads are spread over) */
};

struct probe_reading {
	struct probe_status st;
	struct hist interval;      /* since the previous reading */
	struct hist interval_sec_p50; /* the p50 of each whole second of it */
	struct hist last10;        /* the last 10 seconds */
	struct hist since_change;  /* since the last scheduler change */
	uint64_t flagged_interval, flagged_10s, flagged_change;
};

struct probe;

/* Start probing. The mode is settled here (device node, else the file
 * fallback); a file that has to be written first is written by the thread.
 * Returns 0, or a negative errno with the reason in err (for a disk that
 * cannot be probed at all). */
int probe_start(const struct probe_config *cfg, struct probe **out, char *err, size_t len);

/* Copy the readings out; the interval window starts again. */
void probe_read(struct probe *p, double mono_now, struct probe_reading *out);

/* The status alone; no window is taken. */
void probe_get_status(struct probe *p, double mono_now, struct probe_status *out);

/* The seconds (end_sec - seconds, end_sec] merged into out, without
 * taking any window; returns their flagged count (see latwin_window). */
uint64_t probe_window(struct probe *p, int64_t end_sec, int seconds, struct hist *out);

/* Chart points for seconds from..to (see latwin_chart). */
size_t probe_chart(struct probe *p, int64_t from, int64_t to, struct latwin_point *out);

void probe_set_rate(struct probe *p, double hz);
void probe_mark_change(struct probe *p);

/* Ask the thread to stop, without waiting (see probe_stop). */
void probe_request_stop(struct probe *p);

/* Stop and free. Waits a short while for the thread; a thread stuck on a
 * request the kernel does not finish is left behind (detached) rather than
 * making the caller wait. */
void probe_stop(struct probe *p);

const char *probe_mode_name(enum probe_mode m);

/* "preparing", "running", "ended". */
const char *probe_state_name(enum probe_state s);

/* Whether an error opening the device node (an errno) makes the probe read
 * a file instead: the node is refused (EPERM, EACCES) or absent (ENOENT). */
int probe_falls_back(int err);

#endif
