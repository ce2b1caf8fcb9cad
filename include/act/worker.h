/* worker: the one thread that carries out changes (tune_apply), so that a
 * scheduler switch that drains a busy queue for seconds never stops the
 * screen. Requests are queued first in, first out; the main thread polls
 * what is running and collects what is done. */
#ifndef IOSCHED_WORKER_H
#define IOSCHED_WORKER_H

#include <stddef.h>

#include "base/event.h"
#include "act/tune.h"

#define WORKER_QUEUE 16

struct worker_job {
	struct tune_req req;
	int running;            /* 1: in the kernel now; 0: waiting its turn */
	double since;           /* mono time it started (running) or was queued */
	/* The undo of a switch: the queue attributes and the scheduler's own
	 * files to put back once it has succeeded (each written with a result
	 * of its own; a file already at its value is left alone). */
	struct tune_reset after[TUNE_RESETS_MAX];
	size_t nafter;
};

struct worker_result {
	struct tune_req req;
	struct event ev;
	/* A switch that succeeded: what it made the kernel reset. An undo of
	 * a switch that failed: the resets it was to put back, not written,
	 * still owed. (One array: a result is never both.) */
	struct tune_reset resets[TUNE_RESETS_MAX];
	size_t nresets;
	int rc; /* tune_apply's: 0, or a negative errno (-ESRCH: no such process) */
};

struct worker;

int worker_start(struct worker **out);

/* Queue a request. Returns 0, or -EBUSY when the queue is full (the caller
 * says so: a request is never dropped silently). */
int worker_submit(struct worker *w, const struct tune_req *r, const struct tune_reset *after, size_t nafter);

/* The running and queued jobs, oldest first. Returns how many. */
size_t worker_jobs(struct worker *w, struct worker_job *out, size_t max);

/* Move finished results to out. Returns how many. */
size_t worker_take(struct worker *w, struct worker_result *out, size_t max);

/* Whether nothing is queued or running. */
int worker_idle(struct worker *w);

/* Stop: drop what is queued, wait up to wait_s for a running change, and
 * leave the thread behind when the kernel still holds it (it frees the
 * worker when the change returns). w is not to be used after. */
void worker_stop(struct worker *w, double wait_s);

#endif
