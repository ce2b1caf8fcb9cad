/* timedread: see include/base/timedread.h. One worker thread reads a
 * batch while the caller waits; the worker copies each item in and its
 * text out under the run's lock, and once the caller has given up on it
 * (abandoned) it touches nothing of the caller's again: it reads into its
 * own buffer, closes the descriptor it holds and ends. A run the caller
 * no longer tracks (orphan) frees itself. */
#include "base/timedread.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

/* A worker's stack: its buffer and a read's kernel call, no more. */
#define WORKER_STACK (128 * 1024)

/* One worker and what it shares with the caller. */
struct run {
	pthread_mutex_t mu;
	pthread_cond_t work, idle;
	pthread_t thread;
	struct timedread_item *items;
	size_t n, next;
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
	struct run *run;   /* the worker now; NULL until needed */
	struct stuck stuck[TIMEDREAD_STUCK_MAX];
	size_t nstuck;
	unsigned long given_up;
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
	pthread_cond_destroy(&r->idle);
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
		if (r->items[i].n == -ETIMEDOUT || r->items[i].n == -EBUSY)
			continue; /* skipped: its task is stuck, or too many are */
		if (work_one(r, i, text))
			break;
		if (r->next >= r->n)
			pthread_cond_signal(&r->idle);
	}
	r->done = 1;
	int orphan = r->orphan;
	pthread_cond_signal(&r->idle);
	pthread_mutex_unlock(&r->mu);
	if (orphan)
		run_free(r);
	return NULL;
}

static struct run *run_start(void)
{
	struct run *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->work, &ca);
	pthread_cond_init(&r->idle, &ca);
	pthread_condattr_destroy(&ca);
	r->cur = -1;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, WORKER_STACK);
	int rc = pthread_create(&r->thread, &a, run_main, r);
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
	if (tr)
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

/* Wait, the lock held, until r has read every item: -1; or the index
 * of an item whose read has taken longer than the patience. */
static long wait_idle(const struct timedread *tr, struct run *r)
{
	for (;;) {
		if (r->next >= r->n && r->cur < 0)
			return -1;
		double now = util_mono_now();
		if (r->cur >= 0 && now - r->cur_since >= tr->patience_s)
			return r->cur;
		double wait = r->cur >= 0 ? r->cur_since + tr->patience_s - now : tr->patience_s;
		if (wait < 0.001)
			wait = 0.001;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		long long ns = (long long)ts.tv_nsec + (long long)(wait * 1e9);
		ts.tv_sec += (time_t)(ns / 1000000000LL);
		ts.tv_nsec = (long)(ns % 1000000000LL);
		pthread_cond_timedwait(&r->idle, &r->mu, &ts);
	}
}

/* The worker stuck on item i given up: the task's remaining items are
 * skipped, the run kept until its read returns. */
static void give_up(struct timedread *tr, struct run *r, struct timedread_item *items, size_t n, size_t i)
{
	int id = items[i].id;
	items[i].n = -ETIMEDOUT;
	items[i].fd = -1; /* the worker closes what it holds */
	tr->given_up++;
	if (tr->nstuck < TIMEDREAD_STUCK_MAX)
		tr->stuck[tr->nstuck++] = (struct stuck){.id = id, .run = r};
	else
		run_let_go(r);
	for (size_t j = i + 1; j < n; j++)
		if (items[j].id == id)
			items[j].n = -ETIMEDOUT;
		else if (tr->nstuck >= TIMEDREAD_STUCK_MAX)
			items[j].n = -EBUSY;
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
	size_t from = 0;
	while (from < n) {
		struct run *r = tr->run ? tr->run : (tr->run = run_start());
		if (!r) {
			for (size_t i = from; i < n; i++)
				items[i].n = -EAGAIN; /* no thread: read nothing rather than block */
			break;
		}
		pthread_mutex_lock(&r->mu);
		r->items = items;
		r->n = n;
		r->next = from;
		pthread_cond_signal(&r->work);
		long at = wait_idle(tr, r);
		if (at < 0) {
			r->items = NULL;
			r->n = r->next = 0;
			pthread_mutex_unlock(&r->mu);
			break;
		}
		r->abandoned = 1;
		from = r->next;
		pthread_cond_signal(&r->work);
		pthread_mutex_unlock(&r->mu);
		tr->run = NULL;
		give_up(tr, r, items, n, (size_t)at);
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
	if (tr->run)
		run_let_go(tr->run);
	free(tr);
}
