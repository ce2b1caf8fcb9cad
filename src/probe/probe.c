/* probe: see include/probe/probe.h. The probe thread itself: its start
 * and stop (who frees the probe when a stop leaves it behind), and its
 * loop: paced reads at random gaps, or a back-to-back stream, each read
 * timed by the reader child. Its parts (probeparts.h): the device node
 * (probedevice.c), the file mode (probefilemode.c), and the status and
 * windows shared with the main thread (probestatus.c). */
#include "probeparts.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Who frees a probe: probe_stop, once the thread has ended; or the thread
 * itself when probe_stop gave up waiting and left it behind. Whoever moves
 * handoff second frees (atomic). */
enum { PROBE_THREAD_RUNS, PROBE_THREAD_ENDED, PROBE_THREAD_LEFT };

/* The read handed over (rc: how that went) waited for, and judged: its
 * latency in ns, or as read_once returns. FILES: the file must be the same
 * after the read as when it was mapped (held: its descriptor), the range
 * read still at phys on the disk; a file its owner changed (holes punched,
 * rewritten, deduplicated) gave a figure of something else, which is not
 * counted, and the file is dropped. */
static int64_t read_wait(struct probe *p, struct aioreader *io, int rc, int held, size_t file, uint64_t off,
			 uint64_t phys)
{
	int files = held >= 0;
	if (rc < 0) {
		probestatus_end(p, "cannot hand the read to the reader process: %s", strerror(-rc));
		return -1;
	}
	int64_t res, ns;
	for (;;) {
		rc = aioreader_wait(io, (int)(POLL_NS / 1000000), &res, &ns);
		if (rc == 1)
			break;
		if (rc < 0) {
			probestatus_end(p, "the reader process ended: %s", strerror(-rc));
			return -1;
		}
		if (probestatus_stopping(p))
			return -2;
	}
	if (files && (res != (int64_t)p->cfg.io_size || !probespan_unchanged(&p->set, file, held) ||
		      !probespan_still_at(held, off, p->cfg.io_size, phys))) {
		/* One of the disk's files changed under the read (truncated,
		 * rewritten, holes punched, its blocks deduplicated onto
		 * others): it is dropped, the probe goes on with the others. */
		probefiles_failed(p, file);
		return 0;
	}
	if (res != (int64_t)p->cfg.io_size) {
		char d[96];
		snprintf(d, sizeof d, "%s at offset %llu", res < 0 ? strerror((int)-res) : "short read",
			 (unsigned long long)off);
		probestatus_end(p, "read failed (%s); device gone or resized? probe stopped", d);
		return -1;
	}
	return ns;
}

/* One timed read, by the reader child (see aioreader.h). once: the
 * device node goes with the request and is closed here at once, so that
 * between paced reads neither process holds it. Returns the latency in
 * ns; 0 when the read is not counted (in FILES mode a file changed under
 * it, and is dropped); -1 when the probe must end (its reason already
 * set); -2 when asked to stop with the request still in flight. */
static int64_t read_once(struct probe *p, struct aioreader *io, int once)
{
	uint64_t off;
	size_t file = 0;
	uint64_t phys = 0;
	int files = p->st.mode == PROBE_MODE_FILES;
	if (files) {
		p->fd = probefiles_next(p, &off, &file, &phys);
		if (p->fd < 0)
			return -1;
	} else if (prng_offset(&p->rng, p->span, p->cfg.io_size, p->cfg.io_size, &off) < 0) {
		probestatus_end(p, "%s is smaller than one probe read", p->st.path);
		return -1;
	}
	pthread_mutex_lock(&p->mu);
	p->in_flight_since = util_mono_now();
	pthread_mutex_unlock(&p->mu);
	int rc = once ? aioreader_submit_on(io, p->fd, off) : aioreader_submit(io, off);
	/* FILES: the file is held until its read is done, and checked again
	 * then (read_wait) */
	int held = files ? p->fd : -1;
	if (once) {
		if (!files)
			close(p->fd);
		p->fd = -1;
	}
	int64_t ns = read_wait(p, io, rc, held, file, off, phys);
	if (held >= 0)
		close(held);
	return ns;
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

/* Should a back-to-back stream end now: stop, a paced rate, or in device
 * mode the node's time to be reopened or a detach asked for (probedevice_ready
 * does what each needs once the stream has ended). */
static int stream_must_end(struct probe *p)
{
	pthread_mutex_lock(&p->mu);
	int end = p->stop || p->st.rate_hz > 0;
	pthread_mutex_unlock(&p->mu);
	if (end || p->st.mode != PROBE_MODE_DEVICE)
		return end;
	return util_mono_now() - p->opened >= REOPEN_S || probedevice_detach_asked(p, 0);
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
		probestatus_end(p, "cannot hand the reads to the reader process: %s", strerror(-rc));
		return -1;
	}
	int halted = 0;
	struct aioreader_batch b;
	for (;;) {
		rc = aioreader_next(io, (int)(POLL_NS / 1000000), &b);
		if (rc < 0) {
			probestatus_end(p, "the reader process ended: %s", strerror(-rc));
			return -1;
		}
		if (rc == 1 && probestatus_record_batch(p, &b) < 0)
			return -1;
		if (rc == 1 && b.end)
			return 0;
		if (halted && probestatus_stopping(p))
			return -2;
		if (!halted && stream_must_end(p)) {
			if (aioreader_halt(io) < 0) {
				probestatus_end(p, "the reader process ended");
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
			if (p->st.mode == PROBE_MODE_DEVICE && probedevice_close(p, io) < 0)
				return;
			if (probestatus_wait_until(p, next)) {
				next = util_mono_now(); /* new rate or stop: start afresh */
				continue;
			}
		}
		if (p->st.mode == PROBE_MODE_DEVICE && probedevice_ready(p, io, rate) < 0)
			return;
		if (rate <= 0 && p->st.mode != PROBE_MODE_FILES) { /* files: one read at a time, back to back */
			if (run_stream(p, io) < 0)
				return;
			next = util_mono_now();
			continue;
		}
		int64_t ns = read_once(p, io, p->st.mode != PROBE_MODE_FILE);
		if (ns < 0)
			return;
		if (ns > 0)
			probestatus_record(p, ns);
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
	probefilemode_drop_private(p);
	probefiles_free(p);
}

/* The probe's work in its thread, to the end (descriptor closed). */
static void probe_work(struct probe *p)
{
	if ((p->st.mode == PROBE_MODE_FILE && probefilemode_open(p) < 0) ||
	    (p->st.mode == PROBE_MODE_FILES && probefiles_open(p) < 0)) {
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
		probestatus_end(p, "cannot start the reader process: %s", strerror(-rc));
		close_fd(p);
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->st.reader_pid = (int)io.pid;
	pthread_mutex_unlock(&p->mu);
	probestatus_set_state(p, PROBE_RUNNING, NULL);
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

/* A probe that did not start: what probedevice_choose opened goes with it. */
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
	int rc = probedevice_choose(p, err, len);
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
		/* The temporary first: a rename into place after this fails. */
		if (p->preparing[0])
			probefile_abandon(p->preparing);
		probefilemode_drop_private_locked(p);
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
