/* worker: see include/act/worker.h */
#include "act/worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/timedread.h"
#include "base/util.h"

#define DONE_MAX 64

struct worker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;           /* work arrived, results taken, or stop */
	struct worker_job q[WORKER_QUEUE]; /* q[0] is running when running */
	size_t nq;
	int running;
	struct worker_result done[DONE_MAX];
	size_t ndone;
	int stop;
	/* worker_stop gave up waiting (a write the kernel holds): the thread
	 * frees the worker when it ends; exited: it has ended */
	int abandoned, exited;
};

static void worker_free(struct worker *w)
{
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

/* Room for a job's results: its own and one per reset it puts back. */
#define RESULTS_PER_JOB (1 + TUNE_RESETS_MAX)

/* Carry out job j (no lock held: a switch may block for seconds) and
 * return its results in out. A switch back writes the settings it owes
 * only once it has succeeded: under the old scheduler they would be reset
 * (or absent) again, and a failed switch keeps them owed. */
static size_t run_job(const struct worker_job *j, struct worker_result *out, struct timedread *tr)
{
	size_t n = 0;
	struct worker_result *res = &out[n++];
	memset(res, 0, sizeof *res);
	res->req = j->req;
	res->rc = tune_apply(&j->req, &res->ev, res->resets, &res->nresets, tr);
	if (!res->ev.ok) {
		memcpy(res->resets, j->after, j->nafter * sizeof *j->after);
		res->nresets = j->nafter;
		return n;
	}
	for (size_t i = 0; i < j->nafter; i++) {
		struct worker_result *r = &out[n];
		memset(r, 0, sizeof *r);
		tune_req_reset(&r->req, &j->req, &j->after[i]);
		/* The scheduler switched back to starts with its defaults, and
		 * the switch back may itself have restored a queue setting
		 * (wbt_lat_usec): only a setting that now differs from what is
		 * owed needs a write. A write of the value already there would
		 * be logged as a change that changed nothing. */
		char now[TUNE_VALUE_MAX];
		if (tune_req_read(&r->req, now, sizeof now) == 0 && !strcmp(now, r->req.value))
			continue;
		r->rc = tune_apply(&r->req, &r->ev, r->resets, &r->nresets, tr);
		n++;
	}
	return n;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	pthread_setname_np(pthread_self(), "iosched-tune");
	util_block_stop_signals();
	/* the thread's own reader for undos of I/O priorities: a task held in
	 * execve holds one of its threads, however many undos meet it */
	struct timedread *tr = timedread_new(TIMEDREAD_PATIENCE_S);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->stop && (w->nq == 0 || w->ndone + RESULTS_PER_JOB > DONE_MAX))
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->stop)
			break;
		w->running = 1;
		w->q[0].running = 1;
		w->q[0].since = util_mono_now();
		struct worker_job j = w->q[0];
		pthread_mutex_unlock(&w->mu);
		struct worker_result res[RESULTS_PER_JOB];
		size_t n = run_job(&j, res, tr);
		pthread_mutex_lock(&w->mu);
		memcpy(&w->done[w->ndone], res, n * sizeof res[0]);
		w->ndone += n;
		memmove(&w->q[0], &w->q[1], (w->nq - 1) * sizeof w->q[0]);
		w->nq--;
		w->running = 0;
		pthread_cond_broadcast(&w->cv);
	}
	w->exited = 1;
	int abandoned = w->abandoned;
	pthread_mutex_unlock(&w->mu);
	timedread_free(tr);
	if (abandoned)
		worker_free(w);
	return NULL;
}

int worker_start(struct worker **out)
{
	struct worker *w = calloc(1, sizeof *w);
	if (!w)
		return -ENOMEM;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	int rc = pthread_create(&w->thread, NULL, worker_main, w);
	if (rc != 0) {
		free(w);
		return -rc;
	}
	*out = w;
	return 0;
}

int worker_submit(struct worker *w, const struct tune_req *r, const struct tune_reset *after, size_t nafter)
{
	pthread_mutex_lock(&w->mu);
	int rc = -EBUSY;
	if (w->nq < WORKER_QUEUE) {
		struct worker_job *j = &w->q[w->nq];
		memset(j, 0, sizeof *j);
		j->req = *r;
		j->since = util_mono_now();
		j->nafter = nafter < TUNE_RESETS_MAX ? nafter : TUNE_RESETS_MAX;
		if (j->nafter)
			memcpy(j->after, after, j->nafter * sizeof *after);
		w->nq++;
		pthread_cond_broadcast(&w->cv);
		rc = 0;
	}
	pthread_mutex_unlock(&w->mu);
	return rc;
}

size_t worker_jobs(struct worker *w, struct worker_job *out, size_t max)
{
	pthread_mutex_lock(&w->mu);
	size_t n = w->nq < max ? w->nq : max;
	memcpy(out, w->q, n * sizeof *out);
	pthread_mutex_unlock(&w->mu);
	return n;
}

size_t worker_take(struct worker *w, struct worker_result *out, size_t max)
{
	pthread_mutex_lock(&w->mu);
	size_t n = w->ndone < max ? w->ndone : max;
	memcpy(out, w->done, n * sizeof *out);
	memmove(w->done, w->done + n, (w->ndone - n) * sizeof *out);
	w->ndone -= n;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return n;
}

int worker_idle(struct worker *w)
{
	pthread_mutex_lock(&w->mu);
	int idle = w->nq == 0;
	pthread_mutex_unlock(&w->mu);
	return idle;
}

void worker_stop(struct worker *w, double wait_s)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	w->nq = w->running ? 1 : 0; /* queued work is dropped */
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	double end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + wait_s;
	ts.tv_sec = (time_t)end;
	ts.tv_nsec = (long)((end - (double)ts.tv_sec) * 1e9);
	if (pthread_timedjoin_np(w->thread, NULL, &ts) != 0) {
		/* A write the kernel still holds: the thread goes on alone and
		 * frees the worker when the write returns (unless it has just
		 * ended: then it is joined here). */
		pthread_mutex_lock(&w->mu);
		int exited = w->exited;
		pthread_t t = w->thread;
		w->abandoned = !exited;
		pthread_mutex_unlock(&w->mu);
		if (!exited) {
			pthread_detach(t);
			return;
		}
		pthread_join(t, NULL);
	}
	worker_free(w);
}
