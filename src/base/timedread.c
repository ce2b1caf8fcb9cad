/* timedread: see include/base/timedread.h. Up to TIMEDREAD_WORKERS
 * worker threads (TIMEDREAD_WORKERS_HELD once a read of the batch was
 * given up) read a batch while the caller waits; the caller hands
 * each worker a range of items, and more as each range is done. A worker
 * copies each item in and its text out under its run's lock, and once the
 * caller has given up on it (abandoned) it touches nothing of the
 * caller's again: it reads into its own buffer, closes the descriptor it
 * holds and ends. A run the caller no longer tracks (orphan) frees
 * itself. Several workers, so that tasks held in execve are given up on
 * side by side, not one patience after another (64 held tasks with
 * neighbouring pids cost a single worker 64 patiences). */
#include "base/timedread.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

/* A worker's stack: its buffer and a read's kernel call, no more. */
#define WORKER_STACK (128 * 1024)
/* Items handed to a worker at once while no read has been given up in
 * the batch (one hand-over per item would cost more than the reads). */
#define CHUNK 32
/* Ranges waiting to be handed out: the batch's rest, and each given-up
 * range's rest (at most one per worker: after a give-up only single
 * items are handed out). */
#define PENDING_MAX (2 * TIMEDREAD_WORKERS_HELD + 1)

/* One worker and what it shares with the caller. */
struct run {
	pthread_mutex_t mu;
	pthread_cond_t work;
	pthread_t thread;
	sem_t *wake;       /* the caller's: posted when a range is done */
	struct timedread_item *items;
	size_t n, next;    /* the range being read: [next, n) */
	long cur;          /* the item being read; -1: none */
	double cur_since;  /* when its read began (monotonic s) */
	int abandoned;     /* the caller gave up: touch nothing of its */
	int quit;          /* asked to end (idle) */
	int done;          /* the thread has ended its loop */
	int orphan;        /* no one will join it: it frees the run */
};

struct stuck {
	int id;
	struct run *run;
};

struct timedread {
	double patience_s;
	double deadline; /* monotonic s; 0: none (timedread_deadline) */
	sem_t wake;
	struct run *run[TIMEDREAD_WORKERS_HELD]; /* the workers now; NULL until needed */
	/* every run given up on, kept until its read returns: past the
	 * limit too (the workers in flight when it was reached), so that a
	 * held task's later reads are skipped, never read again on a new
	 * thread (forgotten runs stranded thread after thread) */
	struct stuck stuck[TIMEDREAD_STUCK_MAX + TIMEDREAD_WORKERS_HELD];
	size_t nstuck;
	unsigned long given_up;
};

/* Items of a batch not yet handed out. */
struct range {
	size_t from, to;
};

static long read_at_0(int fd, char *buf, size_t cap)
{
	ssize_t n;
	do
		n = pread(fd, buf, cap - 1, 0);
	while (n < 0 && errno == EINTR);
	buf[n > 0 ? n : 0] = '\0';
	return n < 0 ? -errno : (long)n;
}

/* it (the worker's copy) read into buf: its descriptor when it reads,
 * else its path; a descriptor left in it->fd is the caller's to keep. */
static long read_item(struct timedread_item *it, char *buf, size_t cap)
{
	long n = -EBADF;
	if (it->fd >= 0) {
		n = read_at_0(it->fd, buf, cap);
		if (n > 0 || !it->path[0])
			return n;
		close(it->fd);
		it->fd = -1;
	}
	it->fd = open(it->path, O_RDONLY | O_CLOEXEC);
	if (it->fd < 0)
		return -errno;
	n = read_at_0(it->fd, buf, cap);
	if (!it->keep || n <= 0) {
		close(it->fd);
		it->fd = -1;
	}
	return n;
}

static void run_free(struct run *r)
{
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->work);
	free(r);
}

/* Item i read and handed over; called with the lock held, returns with
 * it held. Nonzero when the caller has given up on this run. */
static int work_one(struct run *r, size_t i, char *text)
{
	struct timedread_item it = r->items[i];
	r->cur = (long)i;
	r->cur_since = util_mono_now();
	pthread_mutex_unlock(&r->mu);
	long n = read_item(&it, text, it.cap < TIMEDREAD_TEXT_MAX ? it.cap : TIMEDREAD_TEXT_MAX);
	pthread_mutex_lock(&r->mu);
	r->cur = -1;
	if (r->abandoned) {
		if (it.fd >= 0)
			close(it.fd);
		return 1;
	}
	memcpy(r->items[i].buf, text, n > 0 ? (size_t)n + 1 : 1);
	r->items[i].n = n;
	r->items[i].fd = it.fd;
	return 0;
}

static void *run_main(void *arg)
{
	struct run *r = arg;
	char text[TIMEDREAD_TEXT_MAX];
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->abandoned && !r->quit && r->next >= r->n)
			pthread_cond_wait(&r->work, &r->mu);
		if (r->abandoned || r->quit)
			break;
		size_t i = r->next++;
		/* skipped: its task is stuck, or too many are */
		int skip = r->items[i].n == -ETIMEDOUT || r->items[i].n == -EBUSY;
		if (!skip && work_one(r, i, text))
			break;
		if (r->next >= r->n)
			sem_post(r->wake); /* not abandoned: the caller and its semaphore are there */
	}
	r->done = 1;
	int orphan = r->orphan;
	pthread_mutex_unlock(&r->mu);
	if (orphan)
		run_free(r);
	return NULL;
}

static struct run *run_start(struct timedread *tr)
{
	struct run *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->work, NULL);
	r->cur = -1;
	r->wake = &tr->wake;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, WORKER_STACK);
	/* born with every signal blocked (a thread inherits its creator's
	 * mask): a stop signal taken on a worker would not end the run as
	 * the main thread's handling does */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&r->thread, &a, run_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (rc != 0) {
		run_free(r);
		return NULL;
	}
	return r;
}

/* A run no longer wanted: joined and freed when it is idle or has ended;
 * one still stuck in a read is left to free itself (and r is not
 * touched again here: it may be gone as soon as the lock is let go). */
static void run_let_go(struct run *r)
{
	pthread_mutex_lock(&r->mu);
	pthread_t th = r->thread;
	int left = r->abandoned && !r->done;
	r->quit = 1;
	r->orphan = left;
	pthread_cond_signal(&r->work);
	pthread_mutex_unlock(&r->mu);
	if (left) {
		pthread_detach(th);
		return;
	}
	pthread_join(th, NULL);
	run_free(r);
}

struct timedread *timedread_new(double patience_s)
{
	struct timedread *tr = calloc(1, sizeof *tr);
	if (!tr)
		return NULL;
	if (sem_init(&tr->wake, 0, 0) < 0) {
		free(tr);
		return NULL;
	}
	tr->patience_s = patience_s;
	return tr;
}

/* Stuck runs whose read has returned: joined, their tasks read again. */
static void reap(struct timedread *tr)
{
	size_t kept = 0;
	for (size_t i = 0; i < tr->nstuck; i++) {
		struct run *r = tr->stuck[i].run;
		pthread_mutex_lock(&r->mu);
		int done = r->done;
		pthread_mutex_unlock(&r->mu);
		if (done) {
			pthread_join(r->thread, NULL);
			run_free(r);
		} else {
			tr->stuck[kept++] = tr->stuck[i];
		}
	}
	tr->nstuck = kept;
}

/* What an item of task id starts as: -ETIMEDOUT when a read of id is
 * stuck, -EBUSY when as many threads are held as allowed (nothing is
 * read), else -EIO until it is read. */
static long start_as(const struct timedread *tr, int id)
{
	for (size_t i = 0; i < tr->nstuck; i++)
		if (tr->stuck[i].id == id)
			return -ETIMEDOUT;
	return tr->nstuck >= TIMEDREAD_STUCK_MAX ? -EBUSY : -EIO;
}

/* Item i, read by a run given up on, and [from, to), the rest of that
 * run's range: the run kept until its read returns, the task's items in
 * the rest skipped, and every item of the rest when no more runs may be
 * held. The rest is handed out again by the caller. */
static void give_up(struct timedread *tr, struct run *r, struct timedread_item *items, size_t i,
		    struct range rest)
{
	int id = items[i].id;
	items[i].n = -ETIMEDOUT;
	items[i].fd = -1; /* the worker closes what it holds */
	tr->given_up++;
	if (tr->nstuck < sizeof tr->stuck / sizeof tr->stuck[0])
		tr->stuck[tr->nstuck++] = (struct stuck){.id = id, .run = r};
	else
		run_let_go(r); /* cannot be: no more runs are in flight */
	for (size_t j = rest.from; j < rest.to; j++)
		if (items[j].id == id)
			items[j].n = -ETIMEDOUT;
		else if (tr->nstuck >= TIMEDREAD_STUCK_MAX)
			items[j].n = -EBUSY;
}

/* One batch being read: the ranges not yet handed out, and how many
 * items a worker gets at once. */
struct deal {
	struct timedread_item *items;
	struct range pending[PENDING_MAX];
	size_t npending;
	size_t chunk;
};

/* The next range for an idle worker, taken from the last pending one;
 * an empty range when nothing is pending. */
static struct range deal_take(struct deal *d)
{
	struct range r = {0, 0};
	if (!d->npending)
		return r;
	struct range *p = &d->pending[d->npending - 1];
	r.from = p->from;
	r.to = p->to - p->from > d->chunk ? p->from + d->chunk : p->to;
	p->from = r.to;
	if (p->from >= p->to)
		d->npending--;
	return r;
}

/* Every pending item not read, as code says (-EAGAIN: no worker could
 * be had; -EBUSY: as many runs are held as allowed); the ones already
 * skipped keep their -ETIMEDOUT. */
static void deal_drop(struct deal *d, long code)
{
	while (d->npending) {
		struct range r = deal_take(d);
		for (size_t j = r.from; j < r.to; j++)
			if (d->items[j].n == -EIO)
				d->items[j].n = code;
	}
}

/* A range handed back (a given-up worker's rest). There is room: see
 * PENDING_MAX; were there none, its items would be left unread. */
static void deal_put(struct deal *d, struct range r)
{
	if (r.from >= r.to)
		return;
	if (d->npending < PENDING_MAX) {
		d->pending[d->npending++] = r;
		return;
	}
	for (size_t j = r.from; j < r.to; j++)
		if (d->items[j].n == -EIO)
			d->items[j].n = -EAGAIN;
}

/* A worker, its lock held and its range done: the next range handed to
 * it. Nonzero when it got one. */
static int hand_out(struct deal *d, struct run *r)
{
	struct range next = deal_take(d);
	if (next.from >= next.to)
		return 0;
	r->items = d->items;
	r->next = next.from;
	r->n = next.to;
	pthread_cond_signal(&r->work);
	return 1;
}

/* The patience a read has at now: past the deadline only a short one,
 * so that reads slow but under the patience stop adding up. */
static double patience_at(const struct timedread *tr, double now)
{
	if (tr->deadline > 0 && now >= tr->deadline && tr->patience_s > TIMEDREAD_LATE_S)
		return TIMEDREAD_LATE_S;
	return tr->patience_s;
}

/* Worker slot w looked at once: a range handed out, a read given up on,
 * or how long until its read is due (*due, monotonic s). Returns nonzero
 * while the worker has work. */
static int tend(struct timedread *tr, struct deal *d, size_t w, double *due)
{
	struct run *r = tr->run[w];
	pthread_mutex_lock(&r->mu);
	if (r->next >= r->n && r->cur < 0) {
		int busy = hand_out(d, r);
		pthread_mutex_unlock(&r->mu);
		return busy;
	}
	double now = util_mono_now();
	double patience = patience_at(tr, now);
	if (r->cur < 0 || now - r->cur_since < patience) {
		double at = r->cur < 0 ? now + patience : r->cur_since + patience;
		if (tr->deadline > now && tr->deadline < at)
			at = tr->deadline; /* a look then, with the short patience */
		*due = at < *due ? at : *due;
		/* a read slow but not given up on (an exec held for just under
		 * the patience, again and again): the rest one item at a time,
		 * on more workers, or such reads add up one after another */
		if (r->cur >= 0 && now - r->cur_since > patience / 4)
			d->chunk = 1;
		pthread_mutex_unlock(&r->mu);
		return 1;
	}
	size_t at = (size_t)r->cur;
	struct range rest = {r->next, r->n};
	r->abandoned = 1;
	pthread_cond_signal(&r->work);
	pthread_mutex_unlock(&r->mu);
	tr->run[w] = NULL;
	give_up(tr, r, d->items, at, rest);
	deal_put(d, rest);
	if (tr->nstuck >= TIMEDREAD_STUCK_MAX)
		deal_drop(d, -EBUSY);
	d->chunk = 1; /* held tasks may sit side by side: one item at a time now */
	return 1;
}

/* One more worker, in a free slot of the first max, for what is
 * pending. Nonzero when one was started. */
static int add_worker(struct timedread *tr, size_t max)
{
	for (size_t w = 0; w < max; w++)
		if (!tr->run[w])
			return (tr->run[w] = run_start(tr)) != NULL;
	return 0;
}

static void wait_until(sem_t *s, double due)
{
	double left = due - util_mono_now();
	if (left < 0.001)
		left = 0.001;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	long long ns = (long long)ts.tv_nsec + (long long)(left * 1e9);
	ts.tv_sec += (time_t)(ns / 1000000000LL);
	ts.tv_nsec = (long)(ns % 1000000000LL);
	sem_clockwait(s, CLOCK_MONOTONIC, &ts);
}

static size_t count_given_up(const struct timedread_item *items, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += items[i].n == -ETIMEDOUT || items[i].n == -EBUSY;
	return k;
}

size_t timedread_batch(struct timedread *tr, struct timedread_item *items, size_t n)
{
	reap(tr);
	for (size_t i = 0; i < n; i++)
		items[i].n = start_as(tr, items[i].id);
	struct deal d = {.items = items, .chunk = CHUNK};
	deal_put(&d, (struct range){0, n});
	for (;;) {
		int busy = 0;
		double due = util_mono_now() + tr->patience_s;
		for (size_t w = 0; w < TIMEDREAD_WORKERS_HELD; w++)
			if (tr->run[w])
				busy |= tend(tr, &d, w, &due);
		/* more workers once one read was given up (chunk 1): held
		 * tasks are then given up on side by side */
		if (d.npending && add_worker(tr, d.chunk == 1 ? TIMEDREAD_WORKERS_HELD : TIMEDREAD_WORKERS))
			continue; /* handed a range at the next look */
		if (d.npending && !busy)
			deal_drop(&d, -EAGAIN); /* no thread: read nothing rather than block */
		if (!busy)
			break;
		wait_until(&tr->wake, due);
	}
	return count_given_up(items, n);
}

long timedread_text(struct timedread *tr, const char *path, int id, char *buf, size_t cap)
{
	if (!tr) {
		struct timedread *own = timedread_new(TIMEDREAD_PATIENCE_S);
		long n = own ? timedread_text(own, path, id, buf, cap) : -ENOMEM;
		timedread_free(own);
		return n;
	}
	struct timedread_item it = {.fd = -1, .id = id, .buf = buf, .cap = cap};
	util_strlcpy(it.path, path, sizeof it.path);
	buf[0] = '\0';
	timedread_batch(tr, &it, 1);
	return it.n;
}

void timedread_deadline(struct timedread *tr, double at)
{
	tr->deadline = at;
}

unsigned long timedread_given_up(const struct timedread *tr)
{
	return tr->given_up;
}

size_t timedread_stuck(const struct timedread *tr, int *ids, size_t max)
{
	for (size_t i = 0; ids && i < tr->nstuck && i < max; i++)
		ids[i] = tr->stuck[i].id;
	return tr->nstuck;
}

void timedread_free(struct timedread *tr)
{
	if (!tr)
		return;
	reap(tr);
	for (size_t i = 0; i < tr->nstuck; i++)
		run_let_go(tr->stuck[i].run);
	for (size_t w = 0; w < TIMEDREAD_WORKERS_HELD; w++)
		if (tr->run[w])
			run_let_go(tr->run[w]);
	sem_destroy(&tr->wake);
	free(tr);
}
