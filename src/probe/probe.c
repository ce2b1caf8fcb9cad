/* probe: see include/probe/probe.h */
#include "probe/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "probe/aioreader.h"
#include "probe/prng.h"
#include "probe/probefile.h"
#include "base/util.h"

/* How often a thread blocked on a request looks up to see if it must stop. */
#define POLL_NS 100000000L
/* How long probe_stop waits for a thread before leaving it behind. */
#define STOP_WAIT_S 0.3
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

/* Who frees a probe: probe_stop, once the thread has ended; or the thread
 * itself when probe_stop gave up waiting and left it behind. Whoever moves
 * handoff second frees (atomic). */
enum { PROBE_THREAD_RUNS, PROBE_THREAD_ENDED, PROBE_THREAD_LEFT };

struct probe {
	struct probe_config cfg;
	pthread_t thread;
	int handoff;               /* atomic: PROBE_THREAD_* */
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
				    * that leaves the thread behind removes it: drop_private) */
	char private_path[PATH_MAX];
	struct prng rng;
	char preparing[PATH_MAX];  /* under mu: the probe file being written, or "" */
	/* Reading a start file while the whole probe file is written by a
	 * thread of its own (see open_file) */
	char start[PATH_MAX];      /* the start file read meanwhile, or "" */
	char start_made[PATH_MAX]; /* under mu: a start file this run may have made, removed at its end
				    * (also by probe_stop, which may leave the thread behind), or "" */
	int start_writing;         /* under mu: preparing is the start file; once a byte of it is
				    * written it is this run's (start_made) */
	pthread_t filler;
	int fill_done;             /* under mu: the filler has ended ... */
	int fill_rc;               /* ... with this (0: the whole file is there) */
	char fill_why[256];
};

int probe_falls_back(int err)
{
	return err == EPERM || err == EACCES || err == ENOENT;
}

const char *probe_mode_name(enum probe_mode m)
{
	return m == PROBE_MODE_DEVICE ? "device" : m == PROBE_MODE_FILE ? "file" : "off";
}

const char *probe_state_name(enum probe_state s)
{
	return s == PROBE_PREPARING ? "preparing" : s == PROBE_RUNNING ? "running" : "ended";
}

static void set_state(struct probe *p, enum probe_state s, const char *why)
{
	pthread_mutex_lock(&p->mu);
	p->st.state = s;
	if (why)
		util_strlcpy(p->st.why, why, sizeof p->st.why);
	pthread_mutex_unlock(&p->mu);
}

static void end_with(struct probe *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void end_with(struct probe *p, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&p->mu);
	p->st.state = PROBE_ENDED;
	p->st.mode = PROBE_MODE_OFF;
	p->in_flight_since = 0;
	util_strlcpy(p->st.why, why, sizeof p->st.why);
	pthread_mutex_unlock(&p->mu);
}

static int stopping(struct probe *p)
{
	pthread_mutex_lock(&p->mu);
	int s = p->stop;
	pthread_mutex_unlock(&p->mu);
	return s;
}

/* Sleep until the monotonic deadline; returns early (1) on stop or a rate
 * change, so neither waits for a slow pace to run out. */
static int wait_until(struct probe *p, double deadline)
{
	struct timespec ts = {.tv_sec = (time_t)deadline};
	ts.tv_nsec = (long)((deadline - (double)ts.tv_sec) * 1e9);
	pthread_mutex_lock(&p->mu);
	while (!p->stop && !p->rate_changed && util_mono_now() < deadline)
		if (pthread_cond_timedwait(&p->wake, &p->mu, &ts) == ETIMEDOUT)
			break;
	int early = p->stop || p->rate_changed;
	p->rate_changed = 0;
	pthread_mutex_unlock(&p->mu);
	return early;
}

static int on_progress(void *ctx, int pct)
{
	struct probe *p = ctx;
	pthread_mutex_lock(&p->mu);
	/* Writing it: this run's to remove, even if a stop comes between its
	 * rename into place and prepare's return. One found whole (another
	 * run's) is never written, so never named here. */
	if (p->start_writing)
		util_strlcpy(p->start_made, p->preparing, sizeof p->start_made);
	p->st.prep_pct = pct;
	int stop = p->stop;
	pthread_mutex_unlock(&p->mu);
	return stop;
}

/* probefile_prepare, with the path known to probe_stop meanwhile. */
static int prepare(struct probe *p, const char *path, uint64_t size, int own_dir, char *why, size_t wlen)
{
	pthread_mutex_lock(&p->mu);
	util_strlcpy(p->preparing, path, sizeof p->preparing);
	pthread_mutex_unlock(&p->mu);
	int rc = probefile_prepare(path, size, own_dir, on_progress, p, why, wlen);
	pthread_mutex_lock(&p->mu);
	p->preparing[0] = '\0';
	pthread_mutex_unlock(&p->mu);
	return rc;
}

/* The directory made for this run goes, once: under mu, as the thread
 * ends or as probe_stop leaves a thread behind (under load the thread can
 * still be writing the file when the process exits). */
static void drop_private_locked(struct probe *p)
{
	if (p->private_lock >= 0)
		probefile_private_remove(p->private_path, p->private_lock);
	p->private_lock = -1;
}

static void drop_private(struct probe *p)
{
	pthread_mutex_lock(&p->mu);
	drop_private_locked(p);
	pthread_mutex_unlock(&p->mu);
}

/* The tool's directory for the file was made by someone else (why says
 * so): rather than let any user turn the probe off that way, a directory
 * of this run's own beside it (probefile_private_dir), said in the status,
 * removed when the probe ends. */
static int prepare_private(struct probe *p, char *why, size_t wlen)
{
	char path[sizeof p->cfg.file], refused[200];
	util_strlcpy(refused, why, sizeof refused);
	char *cut = strstr(refused, ": someone else made it");
	if (cut)
		*cut = '\0';
	int lock = probefile_private_dir(p->cfg.file, path, sizeof path, why, wlen);
	if (lock < 0)
		return lock;
	pthread_mutex_lock(&p->mu);
	p->private_lock = lock;
	util_strlcpy(p->private_path, path, sizeof p->private_path);
	pthread_mutex_unlock(&p->mu);
	int rc = prepare(p, path, p->cfg.file_size, 1, why, wlen);
	if (rc < 0) {
		drop_private(p);
		return rc;
	}
	util_strlcpy(p->cfg.file, path, sizeof p->cfg.file);
	pthread_mutex_lock(&p->mu);
	char first[sizeof p->st.why]; /* why the node was not read, kept */
	util_strlcpy(first, p->st.why, sizeof first);
	if ((cut = strstr(first, "; reads ")))
		*cut = '\0';
	util_strlcpy(p->st.path, path, sizeof p->st.path);
	util_fmt(p->st.why, sizeof p->st.why, "%s; %s; reads %s, made for this run", first, refused, path);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

/* One of the tool's own probe files (in its checked directory), for
 * direct reads: without blocking (a FIFO swapped in never holds the
 * probe), only a regular file of this user's. The descriptor, or a
 * negative errno with why. */
static int open_own_direct(const char *path, char *why, size_t wlen)
{
	int fd = open(path, O_RDONLY | O_DIRECT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	int rc = fd < 0 || fstat(fd, &st) != 0 ? -errno
		 : !S_ISREG(st.st_mode) || st.st_uid != geteuid() ? -EINVAL
		 : fcntl(fd, F_SETFL, O_DIRECT) != 0 ? -errno
		 : 0;
	if (rc == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	snprintf(why, wlen, "cannot open the probe file for direct reads: %s",
		 rc == -EINVAL ? "not a regular file of this user's" : strerror(-rc));
	return rc;
}

/* Open path for direct reads into p->fd and p->span. A file the user
 * named is opened as probefile_open_read says (a checked directory, no
 * link, a regular file of root's or theirs, no blocking on a FIFO). */
static int open_direct(struct probe *p, const char *path)
{
	char why[300] = "";
	int users = p->cfg.file_is_users && !strcmp(path, p->cfg.file);
	int fd = users ? probefile_open_read(path, p->cfg.io_size, 1, why, sizeof why)
		       : open_own_direct(path, why, sizeof why);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		fd = -e;
		snprintf(why, sizeof why, "%s: %s", path, strerror(e));
	}
	if (fd < 0) {
		end_with(p, users ? "probe file: %s" : "%s", why);
		return fd;
	}
	p->fd = fd;
	p->span = (uint64_t)st.st_size;
	return 0;
}

static void *fill_main(void *arg)
{
	struct probe *p = arg;
	pthread_setname_np(pthread_self(), "iosched-fill");
	util_block_stop_signals();
	char why[256] = "";
	int rc = prepare(p, p->cfg.file, p->cfg.file_size, 1, why, sizeof why);
	pthread_mutex_lock(&p->mu);
	p->fill_rc = rc;
	util_strlcpy(p->fill_why, why, sizeof p->fill_why);
	p->fill_done = 1;
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void set_start_made(struct probe *p, const char *path)
{
	pthread_mutex_lock(&p->mu);
	util_strlcpy(p->start_made, path, sizeof p->start_made);
	pthread_mutex_unlock(&p->mu);
}

/* The start file goes with the run that made it, whatever ends the run but
 * SIGKILL: 64 MiB left for a later run that may never come. Under mu. */
static void drop_start_locked(struct probe *p)
{
	if (p->start_made[0])
		probefile_discard(p->start_made);
	p->start_made[0] = '\0';
}

/* The tool's own file is not there whole (a first run, or one with another
 * size): rather than show nothing for the minute it takes to write it
 * gently on a busy disk, a start file of PROBE_START_SIZE is written first
 * (seconds) and read while a thread of its own writes the whole file;
 * then the probe moves to that (swap_file). The row says so meanwhile: a
 * small file may read faster from a cache below the filesystem (README,
 * bench/probefile-size). Returns 0 with the start file open, 1 when no
 * start file is worth it (the caller writes the file as before), or a
 * negative errno. */
static int open_start(struct probe *p)
{
	if (p->cfg.file_is_users || p->cfg.file_size < 4 * (uint64_t)PROBE_START_SIZE ||
	    probefile_whole(p->cfg.file, p->cfg.file_size))
		return 1;
	char start[sizeof p->start], why[256] = "";
	if (util_pathf(start, sizeof start, "%s.start", p->cfg.file) < 0)
		return 1;
	pthread_mutex_lock(&p->mu);
	p->start_writing = 1;
	pthread_mutex_unlock(&p->mu);
	int rc = prepare(p, start, PROBE_START_SIZE, 1, why, sizeof why);
	pthread_mutex_lock(&p->mu);
	p->start_writing = 0;
	pthread_mutex_unlock(&p->mu);
	if (rc < 0)
		set_start_made(p, ""); /* none made (nor ours to remove, with -EPERM) */
	if (rc == -EPERM)
		return 1; /* a directory someone else made: the private one, as before */
	if (rc < 0) {
		end_with(p, "probe file: %s", why);
		return rc;
	}
	if ((rc = open_direct(p, start)) < 0)
		return rc;
	if (pthread_create(&p->filler, NULL, fill_main, p) != 0) {
		close(p->fd);
		p->fd = -1;
		return 1;
	}
	util_strlcpy(p->start, start, sizeof p->start);
	pthread_mutex_lock(&p->mu);
	p->st.filling = 1;
	util_strlcpy(p->st.path, start, sizeof p->st.path);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

/* The whole file is written (or could not be): wait for its thread, and
 * move the reads to it, the start file removed; on a failure go on
 * reading the start file and say why. Between reads only. */
static int swap_file(struct probe *p, struct aioreader *io)
{
	pthread_join(p->filler, NULL);
	pthread_mutex_lock(&p->mu);
	int rc = p->fill_rc;
	char why[sizeof p->fill_why];
	util_strlcpy(why, p->fill_why, sizeof why);
	p->st.filling = 0;
	pthread_mutex_unlock(&p->mu);
	char start[sizeof p->start];
	util_strlcpy(start, p->start, sizeof start);
	p->start[0] = '\0';
	if (rc < 0) {
		pthread_mutex_lock(&p->mu);
		util_fmt(p->st.why + strlen(p->st.why), sizeof p->st.why - strlen(p->st.why),
			 "; the whole probe file could not be written (%s): reads the start file", why);
		pthread_mutex_unlock(&p->mu);
		return 0;
	}
	int old = p->fd;
	if (open_direct(p, p->cfg.file) < 0)
		return -1;
	if ((rc = aioreader_set_fd(io, p->fd)) < 0) {
		end_with(p, "cannot hand the probe file to the reader process: %s", strerror(-rc));
		return -1;
	}
	close(old);
	pthread_mutex_lock(&p->mu);
	drop_start_locked(p);
	util_strlcpy(p->st.path, p->cfg.file, sizeof p->st.path);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

/* Whether the whole file's writer has ended (the reads can move to it). */
static int fill_ended(struct probe *p)
{
	if (!p->start[0])
		return 0;
	pthread_mutex_lock(&p->mu);
	int done = p->fill_done;
	pthread_mutex_unlock(&p->mu);
	return done;
}

/* File mode: make sure the file exists whole, then open it for direct reads. */
static int open_file(struct probe *p)
{
	char why[256] = "";
	int rc = open_start(p);
	if (rc <= 0)
		return rc;
	if (p->cfg.file_is_users) {
		/* Looked for as it is opened (no link followed on the way), not
		 * by access(): which message came would tell whether a file
		 * exists where a planted link leads (a refused directory says
		 * the same either way). Only a missing one is made. */
		rc = probefile_check(p->cfg.file, p->cfg.io_size, why, sizeof why);
		if (rc == -ENOENT)
			rc = prepare(p, p->cfg.file, p->cfg.file_size, 0, why, sizeof why);
	} else {
		rc = prepare(p, p->cfg.file, p->cfg.file_size, 1, why, sizeof why);
		if (rc == -EPERM)
			rc = prepare_private(p, why, sizeof why);
	}
	if (rc < 0) {
		end_with(p, "probe file: %s", why);
		return rc;
	}
	return open_direct(p, p->cfg.file);
}

/* One timed read, by the reader child (see aioreader.h). once: the
 * device node goes with the request and is closed here at once, so that
 * between paced reads neither process holds it. Returns the latency in
 * ns, or -1 when the probe must end (its reason already set), or -2 when
 * asked to stop with the request still in flight. */
static int64_t read_once(struct probe *p, struct aioreader *io, int once)
{
	uint64_t off;
	if (prng_offset(&p->rng, p->span, p->cfg.io_size, p->cfg.io_size, &off) < 0) {
		end_with(p, "%s is smaller than one probe read", p->st.path);
		return -1;
	}
	pthread_mutex_lock(&p->mu);
	p->in_flight_since = util_mono_now();
	pthread_mutex_unlock(&p->mu);
	int rc = once ? aioreader_submit_on(io, p->fd, off) : aioreader_submit(io, off);
	if (once) {
		close(p->fd);
		p->fd = -1;
	}
	if (rc < 0) {
		end_with(p, "cannot hand the read to the reader process: %s", strerror(-rc));
		return -1;
	}
	int64_t res, ns;
	for (;;) {
		rc = aioreader_wait(io, (int)(POLL_NS / 1000000), &res, &ns);
		if (rc == 1)
			break;
		if (rc < 0) {
			end_with(p, "the reader process ended: %s", strerror(-rc));
			return -1;
		}
		if (stopping(p))
			return -2;
	}
	if (res != (int64_t)p->cfg.io_size) {
		char d[96];
		snprintf(d, sizeof d, "%s at offset %llu", res < 0 ? strerror((int)-res) : "short read",
			 (unsigned long long)off);
		end_with(p, "read failed (%s); device gone or resized? probe stopped", d);
		return -1;
	}
	return ns;
}

/* One read into the window, under mu: done is its completion time. */
static void add_locked(struct probe *p, int64_t ns, double done)
{
	int64_t sec = (int64_t)floor(done);
	int64_t start_sec = (int64_t)floor(done - (double)ns / 1e9);
	if ((uint64_t)ns < p->cfg.min_plausible_ns)
		latwin_flag(&p->win, sec);
	else
		latwin_add(&p->win, start_sec, sec, (uint64_t)ns);
}

static void record(struct probe *p, int64_t ns)
{
	pthread_mutex_lock(&p->mu);
	p->in_flight_since = 0;
	add_locked(p, ns, util_mono_now());
	pthread_mutex_unlock(&p->mu);
}

/* Next start time for a paced probe: a gap of 0.5..1.5 periods (mean one
 * period), so it does not lock onto periodic writeback. Ticks that passed
 * while a request was slow are counted as missed, not made up later. */
static double pace(struct probe *p, double next, double rate)
{
	double period = 1.0 / rate;
	next += period * (0.5 + prng_unit(&p->rng));
	double now = util_mono_now();
	if (now > next + period) {
		uint64_t missed = (uint64_t)((now - next) / period);
		pthread_mutex_lock(&p->mu);
		p->st.missed += missed;
		pthread_mutex_unlock(&p->mu);
		next = now;
	}
	return next;
}

/* A loop device's autoclear flag (0/1), or -1 for other disks. */
/* The flag is read before each paced read: its sysfs file is kept open
 * and read again from offset 0 (sysfs makes the text anew each time; an
 * open attribute does not hold the device, and reads fail once it is
 * gone). Opening it each time was half of a paced read's cost. */
static int loop_autoclear(struct probe *p)
{
	char path[96], text[32];
	if (p->autoclear_fd < 0) {
		if (util_pathf(path, sizeof path, "/sys/block/%s/loop/autoclear", p->cfg.disk) < 0)
			return -1;
		p->autoclear_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (p->autoclear_fd < 0)
			return -1;
	}
	ssize_t n = pread(p->autoclear_fd, text, sizeof text - 1, 0);
	if (n <= 0) {
		close(p->autoclear_fd);
		p->autoclear_fd = -1;
		return -1;
	}
	text[n] = '\0';
	return strtoul(text, NULL, 10) != 0;
}

/* Let go of the device node, here and in the reader child. Returns 0, or
 * -1 when the reader is gone (the probe's end is recorded). */
static int device_close(struct probe *p, struct aioreader *io)
{
	if (p->fd < 0)
		return 0;
	int rc = aioreader_set_fd(io, -1);
	close(p->fd);
	p->fd = -1;
	if (rc < 0) {
		end_with(p, "the reader process ended: %s", strerror(-rc));
		return -1;
	}
	return 0;
}

/* Open the device node, and hand it to the reader to keep (hand: a
 * back-to-back stream; a paced read takes it along, read_once). Returns 0,
 * or -1 when the device is gone (the probe's end is recorded). */
static int device_open(struct probe *p, struct aioreader *io, int hand)
{
	p->fd = open(p->st.path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	uint64_t bytes = 0;
	if (p->fd < 0 || ioctl(p->fd, BLKGETSIZE64, &bytes) != 0 || bytes < p->cfg.io_size) {
		end_with(p, "device gone (%s); probe stopped",
			 p->fd < 0 ? strerror(errno) : "its size is now below one read");
		if (p->fd >= 0)
			close(p->fd); /* a detached loop device opens: let it go */
		p->fd = -1;
		return -1;
	}
	p->span = bytes;
	p->opened = util_mono_now();
	int rc = hand ? aioreader_set_fd(io, p->fd) : 0;
	if (rc < 0) {
		end_with(p, "cannot hand %s to the reader process: %s", p->st.path, strerror(-rc));
		return -1;
	}
	return 0;
}

/* Has a detach of the loop device been deferred for want of the last
 * close? Looked up before each paced read, every DETACH_POLL_S otherwise. */
static int detach_asked(struct probe *p, double rate)
{
	double now = util_mono_now();
	if (!p->detaching && p->autoclear0 == 0 && (rate > 0 || now - p->autoclear_checked >= DETACH_POLL_S)) {
		p->autoclear_checked = now;
		p->detaching = loop_autoclear(p) == 1;
	}
	return p->detaching;
}

/* Before a read in device mode: the node open, and no detach asked for.
 * Returns 0, or -1 when the probe ends. */
static int device_ready(struct probe *p, struct aioreader *io, double rate)
{
	double now = util_mono_now();
	if (detach_asked(p, rate)) {
		device_close(p, io);
		end_with(p, "the loop device is being detached (losetup -d); probe stopped");
		return -1;
	}
	if (p->fd >= 0 && rate <= 0 && now - p->opened >= REOPEN_S && device_close(p, io) < 0)
		return -1;
	return p->fd >= 0 ? 0 : device_open(p, io, rate <= 0);
}

/* Should a back-to-back stream end now: stop, a paced rate, or in device
 * mode the node's time to be reopened or a detach asked for (device_ready
 * does what each needs once the stream has ended). */
static int stream_must_end(struct probe *p)
{
	pthread_mutex_lock(&p->mu);
	int end = p->stop || p->st.rate_hz > 0 || (p->start[0] && p->fill_done);
	pthread_mutex_unlock(&p->mu);
	if (end || p->st.mode != PROBE_MODE_DEVICE)
		return end;
	return util_mono_now() - p->opened >= REOPEN_S || detach_asked(p, 0);
}

/* A batch of a stream into the window. Returns 0, or -1 when a read failed
 * (the probe's end is recorded). */
static int record_batch(struct probe *p, const struct aioreader_batch *b)
{
	int bad = -1;
	pthread_mutex_lock(&p->mu);
	for (int i = 0; i < b->n && bad < 0; i++) {
		if (b->e[i].res != (int64_t)p->cfg.io_size)
			bad = i;
		else
			add_locked(p, b->e[i].ns, (double)b->e[i].done_ns / 1e9);
	}
	/* The child starts the next read as soon as one completes. */
	if (b->n > 0 && !b->end)
		p->in_flight_since = (double)b->e[b->n - 1].done_ns / 1e9;
	else if (b->end)
		p->in_flight_since = 0;
	pthread_mutex_unlock(&p->mu);
	if (bad < 0)
		return 0;
	int64_t res = b->e[bad].res;
	end_with(p, "read failed (%s); device gone or resized? probe stopped",
		 res < 0 ? strerror((int)-res) : "short read");
	return -1;
}

/* Back to back: the reader child streams reads until this asks it to end
 * (see stream_must_end). Returns 0 when the stream ended and the probe
 * goes on, -1 when the probe must end (its reason set), -2 on stop with a
 * read still in flight. */
static int run_stream(struct probe *p, struct aioreader *io)
{
	pthread_mutex_lock(&p->mu);
	p->in_flight_since = util_mono_now();
	pthread_mutex_unlock(&p->mu);
	int rc = aioreader_stream(io, p->span, prng_next(&p->rng));
	if (rc < 0) {
		end_with(p, "cannot hand the reads to the reader process: %s", strerror(-rc));
		return -1;
	}
	int halted = 0;
	struct aioreader_batch b;
	for (;;) {
		rc = aioreader_next(io, (int)(POLL_NS / 1000000), &b);
		if (rc < 0) {
			end_with(p, "the reader process ended: %s", strerror(-rc));
			return -1;
		}
		if (rc == 1 && record_batch(p, &b) < 0)
			return -1;
		if (rc == 1 && b.end)
			return 0;
		if (halted && stopping(p))
			return -2;
		if (!halted && stream_must_end(p)) {
			if (aioreader_halt(io) < 0) {
				end_with(p, "the reader process ended");
				return -1;
			}
			halted = 1;
		}
	}
}

static void run(struct probe *p, struct aioreader *io)
{
	double next = util_mono_now();
	for (;;) {
		pthread_mutex_lock(&p->mu);
		double rate = p->st.rate_hz;
		int stop = p->stop;
		pthread_mutex_unlock(&p->mu);
		if (stop)
			return;
		if (rate > 0) {
			next = pace(p, next, rate);
			if (p->st.mode == PROBE_MODE_DEVICE && device_close(p, io) < 0)
				return;
			if (wait_until(p, next)) {
				next = util_mono_now(); /* new rate or stop: start afresh */
				continue;
			}
		}
		if (p->st.mode == PROBE_MODE_DEVICE && device_ready(p, io, rate) < 0)
			return;
		if (fill_ended(p) && swap_file(p, io) < 0)
			return;
		if (rate <= 0) {
			if (run_stream(p, io) < 0)
				return;
			next = util_mono_now();
			continue;
		}
		int64_t ns = read_once(p, io, p->st.mode == PROBE_MODE_DEVICE);
		if (ns < 0)
			return;
		record(p, ns);
	}
}

/* The thread's last act: what it holds goes (probe_stop, which may have
 * left the thread behind, closes nothing it could still use). */
static void close_fd(struct probe *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	if (p->autoclear_fd >= 0)
		close(p->autoclear_fd);
	p->autoclear_fd = -1;
	/* The whole file's writer saw the stop (its progress asks) and
	 * removes its partial file; the start file goes too. */
	if (p->start[0])
		pthread_join(p->filler, NULL);
	p->start[0] = '\0';
	pthread_mutex_lock(&p->mu);
	drop_start_locked(p);
	pthread_mutex_unlock(&p->mu);
	drop_private(p);
}

/* The probe's work in its thread, to the end (descriptor closed). */
static void probe_work(struct probe *p)
{
	if (p->st.mode == PROBE_MODE_FILE && open_file(p) < 0) {
		close_fd(p);
		return;
	}
	struct aioreader io;
	int rc = aioreader_start(&io, p->cfg.io_size);
	if (rc == 0) {
		rc = aioreader_set_fd(&io, p->fd);
		if (rc < 0)
			aioreader_stop(&io);
	}
	if (rc < 0) {
		end_with(p, "cannot start the reader process: %s", strerror(-rc));
		close_fd(p);
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->st.reader_pid = (int)io.pid;
	pthread_mutex_unlock(&p->mu);
	set_state(p, PROBE_RUNNING, NULL);
	run(p, &io);
	/* With a read still in the kernel this waits for it, here in the
	 * probe's thread, which probe_stop leaves behind: the tool does not
	 * wait, and its exit does not either (the read is the child's). */
	aioreader_stop(&io);
	close_fd(p);
}

static void probe_free(struct probe *p)
{
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

static void *probe_main(void *arg)
{
	struct probe *p = arg;
	pthread_setname_np(pthread_self(), "iosched-probe");
	util_block_stop_signals();
	probe_work(p);
	int expected = PROBE_THREAD_RUNS;
	if (!__atomic_compare_exchange_n(&p->handoff, &expected, PROBE_THREAD_ENDED, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		probe_free(p); /* left behind by probe_stop: nobody else will */
	return NULL;
}

/* Decide the mode: the device node when it opens, else a file. */
static int open_device(struct probe *p, char *err, size_t len)
{
	snprintf(p->st.path, sizeof p->st.path, "/dev/%s", p->cfg.disk);
	if (p->cfg.file[0]) {
		p->st.mode = PROBE_MODE_FILE;
		util_fmt(p->st.why, sizeof p->st.why, "--probe-file %s", p->cfg.file);
		util_strlcpy(p->st.path, p->cfg.file, sizeof p->st.path);
		return 0;
	}
	p->fd = open(p->st.path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (p->fd >= 0) {
		uint64_t bytes = 0;
		if (ioctl(p->fd, BLKGETSIZE64, &bytes) != 0 || bytes < p->cfg.io_size) {
			snprintf(err, len, "%s: size %llu is below one probe read", p->st.path,
				 (unsigned long long)bytes);
			return -EINVAL;
		}
		p->span = bytes;
		p->opened = util_mono_now();
		p->autoclear0 = loop_autoclear(p);
		p->st.mode = PROBE_MODE_DEVICE;
		util_fmt(p->st.why, sizeof p->st.why, "reads %s", p->st.path);
		return 0;
	}
	int e = errno;
	if (!probe_falls_back(e)) {
		snprintf(err, len, "cannot open %s: %s", p->st.path, strerror(e));
		return -e;
	}
	char why[256];
	if (probefile_locate(p->cfg.disk, p->cfg.file, sizeof p->cfg.file, why, sizeof why) < 0) {
		/* EACCES is a permission the user can get; EPERM (a locked-down
		 * node) is not, and its own message says so. */
		snprintf(err, len, "cannot open %s (%s%s) and %s", p->st.path, strerror(e),
			 e == EACCES ? ": reading it needs root or its group, e.g. disk" : "", why);
		return -e;
	}
	p->st.mode = PROBE_MODE_FILE;
	util_fmt(p->st.why, sizeof p->st.why, "%s: %s; reads %s on its filesystem", p->st.path, strerror(e),
		 p->cfg.file);
	util_strlcpy(p->st.path, p->cfg.file, sizeof p->st.path);
	return 0;
}

/* A probe that did not start: what open_device opened goes with it. */
static void discard(struct probe *p)
{
	if (p->fd >= 0)
		close(p->fd);
	if (p->autoclear_fd >= 0)
		close(p->autoclear_fd);
	free(p);
}

int probe_start(const struct probe_config *cfg, struct probe **out, char *err, size_t len)
{
	struct probe *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	p->cfg = *cfg;
	p->fd = -1;
	p->autoclear_fd = -1;
	p->private_lock = -1;
	p->st.rate_hz = cfg->rate_hz;
	p->st.state = PROBE_PREPARING;
	latwin_init(&p->win);
	prng_seed(&p->rng, cfg->seed);
	int rc = open_device(p, err, len);
	if (rc < 0) {
		discard(p);
		return rc;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);
	rc = pthread_create(&p->thread, NULL, probe_main, p);
	if (rc != 0) {
		snprintf(err, len, "cannot start the probe thread: %s", strerror(rc));
		discard(p);
		return -rc;
	}
	*out = p;
	return 0;
}

/* The status with the age of the read in flight; under mu. */
static void status_locked(const struct probe *p, double mono_now, struct probe_status *out)
{
	*out = p->st;
	out->in_flight_ms = p->in_flight_since > 0 && mono_now > p->in_flight_since ? (mono_now - p->in_flight_since) * 1e3
										  : 0;
}

void probe_get_status(struct probe *p, double mono_now, struct probe_status *out)
{
	pthread_mutex_lock(&p->mu);
	status_locked(p, mono_now, out);
	pthread_mutex_unlock(&p->mu);
}

void probe_read(struct probe *p, double mono_now, struct probe_reading *out)
{
	int64_t sec = (int64_t)floor(mono_now);
	pthread_mutex_lock(&p->mu);
	status_locked(p, mono_now, &out->st);
	out->flagged_interval = latwin_take_interval(&p->win, &out->interval, &out->interval_sec_p50);
	out->flagged_10s = latwin_window(&p->win, sec, 10, &out->last10);
	out->since_change = p->win.since_change;
	out->flagged_change = p->win.since_change_flagged;
	pthread_mutex_unlock(&p->mu);
}

uint64_t probe_window(struct probe *p, int64_t end_sec, int seconds, struct hist *out)
{
	pthread_mutex_lock(&p->mu);
	uint64_t f = latwin_window(&p->win, end_sec, seconds, out);
	pthread_mutex_unlock(&p->mu);
	return f;
}

size_t probe_chart(struct probe *p, int64_t from, int64_t to, struct latwin_point *out)
{
	pthread_mutex_lock(&p->mu);
	size_t n = latwin_chart(&p->win, from, to, out);
	pthread_mutex_unlock(&p->mu);
	return n;
}

void probe_set_rate(struct probe *p, double hz)
{
	pthread_mutex_lock(&p->mu);
	p->st.rate_hz = hz;
	p->rate_changed = 1;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->mu);
}

void probe_mark_change(struct probe *p)
{
	pthread_mutex_lock(&p->mu);
	latwin_mark_change(&p->win);
	pthread_mutex_unlock(&p->mu);
}

void probe_request_stop(struct probe *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->mu);
}

void probe_stop(struct probe *p)
{
	if (!p)
		return;
	probe_request_stop(p);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)(STOP_WAIT_S * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	if (pthread_timedjoin_np(p->thread, NULL, &ts) != 0) {
		/* Stuck in the kernel: leave it; it frees the probe when its read
		 * comes back, or the process exit takes it. A probe file it was
		 * writing is not left half-written. */
		pthread_mutex_lock(&p->mu);
		/* The temporary first: a rename into place after this fails,
		 * and one before it made the start file removed next. */
		if (p->preparing[0])
			probefile_abandon(p->preparing);
		drop_start_locked(p);
		drop_private_locked(p);
		pthread_mutex_unlock(&p->mu);
		int expected = PROBE_THREAD_RUNS;
		if (__atomic_compare_exchange_n(&p->handoff, &expected, PROBE_THREAD_LEFT, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			pthread_detach(p->thread);
			return;
		}
		pthread_join(p->thread, NULL); /* it ended meanwhile: it is ours */
	}
	/* The thread closed its descriptor as it ended. */
	probe_free(p);
}
