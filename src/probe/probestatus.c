/* probestatus: what the probe thread and the main thread share under the
 * probe's mutex (probeparts.h): the status and the reason the probe
 * ended, the stop and rate asked for, and the latency windows the thread
 * adds each read to and the sampler copies readings, windows and chart
 * points out of (probe_read, probe_window, probe_chart in
 * include/probe/probe.h). The main thread's calls never wait on a read. */
#include "probeparts.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/util.h"

const char *probe_mode_name(enum probe_mode m)
{
	return m == PROBE_MODE_DEVICE ? "device" : m == PROBE_MODE_FILE ? "file" : m == PROBE_MODE_FILES ? "files" : "off";
}

const char *probe_state_name(enum probe_state s)
{
	return s == PROBE_PREPARING ? "preparing" : s == PROBE_RUNNING ? "running" : "ended";
}

void probestatus_set_state(struct probe *p, enum probe_state s, const char *why)
{
	pthread_mutex_lock(&p->mu);
	p->st.state = s;
	if (why)
		util_strlcpy(p->st.why, why, sizeof p->st.why);
	pthread_mutex_unlock(&p->mu);
}

void probestatus_end(struct probe *p, const char *fmt, ...)
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

int probestatus_stopping(struct probe *p)
{
	pthread_mutex_lock(&p->mu);
	int s = p->stop;
	pthread_mutex_unlock(&p->mu);
	return s;
}

/* Sleep until the monotonic deadline; returns early (1) on stop or a rate
 * change, so neither waits for a slow pace to run out. */
int probestatus_wait_until(struct probe *p, double deadline)
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

void probestatus_record(struct probe *p, int64_t ns)
{
	pthread_mutex_lock(&p->mu);
	p->in_flight_since = 0;
	add_locked(p, ns, util_mono_now());
	pthread_mutex_unlock(&p->mu);
}

/* A batch of a stream into the window. Returns 0, or -1 when a read failed
 * (the probe's end is recorded). */
int probestatus_record_batch(struct probe *p, const struct aioreader_batch *b)
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
	probestatus_end(p, "read failed (%s); device gone or resized? probe stopped",
			res < 0 ? strerror((int)-res) : "short read");
	return -1;
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
