/* timedread: reads that give up on a file that does not answer. A FIFO
 * with no writer stands for a task held in execve: its open waits, as a
 * read of such a task's /proc/PID/stat does, until the test opens the
 * other end. The batch must come back within its patience, with the
 * other items read, that task's other items skipped, and its later reads
 * skipped at once until the stuck read has returned. A refresh's reads
 * that are slow but under the patience stop adding up at its deadline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/timedread.h"
#include "base/util.h"

#define PATIENCE 0.2

struct fixture {
	char dir[64], fifo[96], a[96], b[96];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	util_strlcpy(f->dir, "/tmp/timedread.XXXXXX", sizeof f->dir);
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->fifo, sizeof f->fifo, "%s/fifo", f->dir);
	snprintf(f->a, sizeof f->a, "%s/a", f->dir);
	snprintf(f->b, sizeof f->b, "%s/b", f->dir);
	if (mkfifo(f->fifo, 0600) < 0)
		return -1;
	FILE *fa = fopen(f->a, "w"), *fb = fopen(f->b, "w");
	if (!fa || !fb)
		return -1;
	fputs("alpha\n", fa);
	fputs("beta\n", fb);
	fclose(fa);
	fclose(fb);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	unlink(f->fifo);
	unlink(f->a);
	unlink(f->b);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void item(struct timedread_item *it, const char *path, int id, char *buf, size_t cap)
{
	memset(it, 0, sizeof *it);
	util_strlcpy(it->path, path, sizeof it->path);
	it->fd = -1;
	it->id = id;
	it->buf = buf;
	it->cap = cap;
}

/* The stuck opens let go: a writer comes and goes (each waiting open
 * returns once one has come). Nothing is written: the reader may have
 * closed its end by then (pread on a FIFO fails), and a write would
 * raise SIGPIPE. */
static void let_go(const struct fixture *f)
{
	int w = open(f->fifo, O_WRONLY | O_NONBLOCK);
	assert_true(w >= 0);
	close(w);
}

static void test_reads(void **state)
{
	struct fixture *f = *state;
	struct timedread *tr = timedread_new(PATIENCE);
	char b0[64], b1[64];
	struct timedread_item it[2];
	item(&it[0], f->a, 1, b0, sizeof b0);
	item(&it[1], f->b, 2, b1, sizeof b1);
	it[1].keep = 1;
	assert_int_equal(timedread_batch(tr, it, 2), 0);
	assert_int_equal(it[0].n, 6);
	assert_string_equal(b0, "alpha\n");
	assert_int_equal(it[0].fd, -1);
	assert_string_equal(b1, "beta\n");
	assert_true(it[1].fd >= 0); /* kept: read again through it */
	it[1].path[0] = '\0';
	memset(b1, 0, sizeof b1);
	assert_int_equal(timedread_batch(tr, &it[1], 1), 0);
	assert_string_equal(b1, "beta\n");
	close(it[1].fd);
	char small[4];
	assert_int_equal(timedread_text(tr, f->a, 1, small, sizeof small), 3);
	assert_string_equal(small, "alp");
	assert_int_equal(timedread_text(NULL, "/nonexistent/x", 1, small, sizeof small), -ENOENT);
	assert_int_equal(timedread_given_up(tr), 0);
	timedread_free(tr);
}

static void test_gives_up(void **state)
{
	struct fixture *f = *state;
	struct timedread *tr = timedread_new(PATIENCE);
	char b[4][64];
	struct timedread_item it[4];
	item(&it[0], f->a, 8, b[0], sizeof b[0]);
	item(&it[1], f->fifo, 7, b[1], sizeof b[1]);
	item(&it[2], f->b, 9, b[2], sizeof b[2]);
	item(&it[3], f->a, 7, b[3], sizeof b[3]);
	double t0 = util_mono_now();
	assert_int_equal(timedread_batch(tr, it, 4), 2);
	double took = util_mono_now() - t0;
	assert_true(took >= PATIENCE && took < PATIENCE + 2.0);
	assert_string_equal(b[0], "alpha\n");
	assert_int_equal(it[1].n, -ETIMEDOUT);
	assert_string_equal(b[2], "beta\n");
	assert_int_equal(it[3].n, -ETIMEDOUT); /* the stuck task's other file: skipped */
	int id = 0;
	assert_int_equal(timedread_stuck(tr, &id, 1), 1);
	assert_int_equal(id, 7);
	assert_int_equal(timedread_given_up(tr), 1);
	/* while stuck: skipped at once, the others read */
	item(&it[0], f->a, 7, b[0], sizeof b[0]);
	item(&it[1], f->b, 9, b[1], sizeof b[1]);
	t0 = util_mono_now();
	assert_int_equal(timedread_batch(tr, it, 2), 1);
	assert_true(util_mono_now() - t0 < PATIENCE);
	assert_int_equal(it[0].n, -ETIMEDOUT);
	assert_string_equal(b[1], "beta\n");
	/* let go: once the stuck read has returned, the task is read again */
	let_go(f);
	for (int i = 0; i < 200 && timedread_stuck(tr, NULL, 0); i++) {
		usleep(10000);
		item(&it[0], f->a, 7, b[0], sizeof b[0]);
		timedread_batch(tr, it, 1);
	}
	assert_int_equal(timedread_stuck(tr, NULL, 0), 0);
	assert_int_equal(it[0].n, 6);
	assert_string_equal(b[0], "alpha\n");
	timedread_free(tr);
}

/* Many held tasks side by side in one batch (an attacker's pids are
 * neighbours): given up on by several workers at once, so the batch
 * costs about one patience per TIMEDREAD_WORKERS of them. One worker
 * alone takes at least HELD patiences; the bound sits well under that. */
static void test_held_side_by_side(void **state)
{
	enum { HELD = 16, N = 64 };
	struct fixture *f = *state;
	struct timedread *tr = timedread_new(PATIENCE);
	static char b[N][64];
	struct timedread_item it[N];
	for (int i = 0; i < N; i++) {
		int held = i >= 20 && i < 20 + HELD;
		item(&it[i], held ? f->fifo : f->a, 1000 + i, b[i], sizeof b[i]);
	}
	double t0 = util_mono_now();
	assert_int_equal(timedread_batch(tr, it, N), HELD);
	double took = util_mono_now() - t0;
	assert_true(took < HELD * PATIENCE * 0.75);
	for (int i = 0; i < N; i++)
		if (i >= 20 && i < 20 + HELD)
			assert_int_equal(it[i].n, -ETIMEDOUT);
		else
			assert_string_equal(b[i], "alpha\n");
	assert_int_equal(timedread_stuck(tr, NULL, 0), HELD);
	let_go(f);
	for (int i = 0; i < 200 && timedread_stuck(tr, NULL, 0); i++) {
		usleep(10000);
		timedread_text(tr, f->a, 1, b[0], sizeof b[0]);
	}
	assert_int_equal(timedread_stuck(tr, NULL, 0), 0);
	timedread_free(tr);
}

/* A writer that comes and goes every 0.15 s until told to stop: each
 * open of the FIFO then waits under the patience, as a task whose exec
 * is held for just under it, again and again. */
struct releaser {
	const struct fixture *f;
	volatile int stop;
};

static void *release_often(void *arg)
{
	struct releaser *r = arg;
	while (!r->stop) {
		usleep(150000);
		int w = open(r->f->fifo, O_WRONLY | O_NONBLOCK); /* ENXIO: no one waits */
		if (w >= 0)
			close(w);
	}
	return NULL;
}

/* 400 such reads among 400 of a plain file: without a deadline the batch
 * takes about 400 / TIMEDREAD_WORKERS_HELD waits (2.3 s here); with one
 * 0.3 s ahead it ends soon after it, the reads late then given up after
 * TIMEDREAD_LATE_S, and every item says how it went. */
static void test_deadline(void **state)
{
	enum { N = 800 };
	struct fixture *f = *state;
	struct timedread *tr = timedread_new(PATIENCE);
	static char b[N][64];
	struct timedread_item it[N];
	for (int i = 0; i < N; i++)
		item(&it[i], i % 2 ? f->a : f->fifo, 2000 + i, b[i], sizeof b[i]);
	struct releaser rel = {.f = f};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, release_often, &rel), 0);
	double t0 = util_mono_now();
	timedread_deadline(tr, t0 + 0.3);
	timedread_batch(tr, it, N);
	double took = util_mono_now() - t0;
	int fast_read = 0;
	for (int i = 0; i < N; i++) {
		long ok = i % 2 ? 6 : -ESPIPE; /* a FIFO let go: its pread fails */
		assert_true(it[i].n == ok || it[i].n == -ETIMEDOUT || it[i].n == -EBUSY);
		fast_read += i % 2 && it[i].n == 6;
	}
	print_message("deadline 0.3 s: the batch took %.2f s, %d of %d plain reads done\n", took, fast_read, N / 2);
	assert_true(took < 1.5);
	assert_true(fast_read >= 16);
	for (int i = 0; i < 300 && timedread_stuck(tr, NULL, 0); i++) {
		usleep(10000);
		timedread_text(tr, f->a, 1, b[0], sizeof b[0]);
	}
	rel.stop = 1;
	pthread_join(th, NULL);
	assert_int_equal(timedread_stuck(tr, NULL, 0), 0);
	timedread_free(tr);
}

/* The workers take no signal: SIGINT and SIGTERM are blocked in every
 * thread but the caller's, so the run's handling (the first signal ends
 * it) happens where it is set up. A worker once took them. */
static void test_workers_block_signals(void **state)
{
	struct fixture *f = *state;
	struct timedread *tr = timedread_new(PATIENCE);
	char b[64];
	assert_int_equal(timedread_text(tr, f->a, 1, b, sizeof b), 6);
	char path[96], line[256];
	int me = (int)getpid(), workers = 0;
	DIR *d = opendir("/proc/self/task");
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		int tid = atoi(e->d_name);
		if (tid <= 0 || tid == me)
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%d/status", tid);
		FILE *st = fopen(path, "r");
		if (!st)
			continue;
		while (fgets(line, sizeof line, st))
			if (!strncmp(line, "SigBlk:", 7)) {
				unsigned long long m = strtoull(line + 7, NULL, 16);
				assert_true(m & (1ull << (SIGINT - 1)));
				assert_true(m & (1ull << (SIGTERM - 1)));
				workers++;
			}
		fclose(st);
	}
	closedir(d);
	assert_true(workers >= 1);
	timedread_free(tr);
}

/* Freed while a read is stuck: at once, and the stuck worker, when it
 * returns, touches nothing freed (the sanitized build says so). */
static void test_free_while_stuck(void **state)
{
	struct fixture *f = *state;
	struct timedread *tr = timedread_new(PATIENCE);
	char b[64];
	assert_int_equal(timedread_text(tr, f->fifo, 3, b, sizeof b), -ETIMEDOUT);
	double t0 = util_mono_now();
	timedread_free(tr);
	assert_true(util_mono_now() - t0 < PATIENCE);
	let_go(f);
	usleep(200000); /* the orphan ends and frees itself */
}

/* The most tasks stuck at once: then nothing is read until one returns
 * (each holds a thread of the tool). */
static void test_stuck_max(void **state)
{
	struct fixture *f = *state;
	struct timedread *tr = timedread_new(0.01);
	char b[64];
	for (int i = 0; i < TIMEDREAD_STUCK_MAX; i++)
		assert_int_equal(timedread_text(tr, f->fifo, 100 + i, b, sizeof b), -ETIMEDOUT);
	assert_int_equal(timedread_stuck(tr, NULL, 0), TIMEDREAD_STUCK_MAX);
	assert_int_equal(timedread_text(tr, f->a, 1, b, sizeof b), -EBUSY); /* not read: not a task that hangs */
	/* one writer lets every waiting open go */
	let_go(f);
	for (int i = 0; i < 200 && timedread_stuck(tr, NULL, 0); i++) {
		usleep(10000);
		timedread_text(tr, f->a, 1, b, sizeof b);
	}
	assert_int_equal(timedread_stuck(tr, NULL, 0), 0);
	assert_int_equal(timedread_text(tr, f->a, 1, b, sizeof b), 6);
	timedread_free(tr);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gives_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_side_by_side, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deadline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_workers_block_signals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_while_stuck, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stuck_max, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
