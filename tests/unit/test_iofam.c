/* iofam: an undo of an I/O priority reaches every task that inherited the
 * tool's value (threads that replace themselves, children forked since,
 * a double fork's grandchild of an unprivileged owner) and nothing else
 * (a process started before the change, another owner's). Real processes,
 * real ioprio calls: root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "act/iofam.h"

#define RT0 (1 << 13)
#define BE4 ((2 << 13) | 4)
#define NOBODY 65534

static long prio_of(int tid)
{
	return syscall(SYS_ioprio_get, 1, tid);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Threads of pid at value v, sampled n times over n ms: the most seen. */
static int threads_at(int pid, long v, int n)
{
	char dir[64];
	int most = 0;
	snprintf(dir, sizeof dir, "/proc/%d/task", pid);
	for (int i = 0; i < n; i++, sleep_ms(1)) {
		DIR *d = opendir(dir);
		int at = 0;
		struct dirent *e;
		while (d && (e = readdir(d)))
			at += atoi(e->d_name) > 0 && prio_of(atoi(e->d_name)) == v;
		if (d)
			closedir(d);
		most = at > most ? at : most;
	}
	return most;
}

static int relay_gap_us;

/* A thread that starts the next and ends: the process always has such
 * threads, never the same ones for long. With a gap > 0 it waits that
 * long first (one thread at a time); with a gap < 0 it starts the next
 * at once and lingers -gap (a front that always runs ahead). */
static void *relay(void *arg)
{
	pthread_t t;
	if (relay_gap_us > 0)
		usleep((useconds_t)relay_gap_us);
	pthread_create(&t, NULL, relay, arg);
	pthread_detach(t);
	if (relay_gap_us < 0)
		usleep((useconds_t)-relay_gap_us);
	return NULL;
}

static pid_t relay_child(int gap_us)
{
	pid_t c = fork();
	if (c == 0) {
		relay_gap_us = gap_us;
		pthread_t t;
		pthread_create(&t, NULL, relay, NULL);
		for (;;)
			pause();
	}
	sleep_ms(50);
	return c;
}

static void end(pid_t c)
{
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
}

static struct iofam_target target_of(pid_t pid)
{
	struct iofam_target t = {.pid = pid, .alive = 1};
	assert_int_equal(iofam_start(pid, &(unsigned long long){0}, &t.uid), 0);
	t.since = iofam_ticks_now();
	return t;
}

/* Threads that keep replacing themselves (each started by one at the
 * tool's value inherits it): the undo either leaves none at the value or
 * says it could not; it never says done with one left. */
static void relay_case(int gap_us, int must_finish)
{
	pid_t c = relay_child(gap_us);
	struct iofam_target t = target_of(c);
	assert_int_equal(iofam_set(c, RT0), 0);
	sleep_ms(20);
	assert_true(threads_at(c, RT0, 5) > 0);
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, RT0, &u);
	int left = threads_at(c, RT0, 200);
	end(c);
	fprintf(stderr, "relay gap %d us: undo %s, %d thread(s) left at the value\n", gap_us, rc ? strerror(-rc) : "done",
		left);
	if (must_finish)
		assert_int_equal(rc, 0);
	if (rc == 0)
		assert_int_equal(left, 0);
	else
		assert_int_equal(rc, -EAGAIN);
}

static void test_relay_threads(void **state)
{
	(void)state;
	relay_case(2000, 1);
	for (int i = 0; i < 5; i++) {
		relay_case(0, 0);
		relay_case(-1000, 0);
	}
}

/* A pipe byte tells the child to fork (once, twice for a double fork). */
static void child_loop(int rd, int dbl)
{
	char b;
	while (read(rd, &b, 1) == 1) {
		pid_t k = fork();
		if (k == 0 && dbl) {
			if (fork() == 0)
				for (;;)
					pause();
			_exit(0);
		}
		if (k == 0)
			for (;;)
				pause();
		if (dbl)
			waitpid(k, NULL, 0);
	}
	_exit(0);
}

/* Processes of owner uid started after the test began, newest first. */
static int newest_of(pid_t parent_or_0, unsigned uid, unsigned long long since, pid_t skip)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int best = 0;
	while ((e = readdir(d))) {
		int p = atoi(e->d_name);
		unsigned long long st;
		unsigned u;
		char path[64];
		FILE *f;
		int pp = -1;
		if (p <= 0 || p == skip || iofam_start(p, &st, &u) < 0 || st < since || u != uid)
			continue;
		snprintf(path, sizeof path, "/proc/%d/stat", p);
		if ((f = fopen(path, "r"))) {
			char line[512], *r;
			if (fgets(line, sizeof line, f) && (r = strrchr(line, ')')))
				sscanf(r + 2, "%*c %d", &pp);
			fclose(f);
		}
		if ((!parent_or_0 || pp == parent_or_0) && p > best)
			best = p;
	}
	closedir(d);
	return best;
}

/* A child forked after the change inherited the tool's value and goes
 * back with its parent; a child started before (its owner gave it the
 * same realtime class) keeps what it had. */
static void test_forked_child(void **state)
{
	(void)state;
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t c = fork();
	if (c == 0) {
		close(fd[1]);
		child_loop(fd[0], 0);
	}
	close(fd[0]);
	unsigned long long t0 = iofam_ticks_now();
	assert_int_equal(write(fd[1], "x", 1), 1);
	sleep_ms(100);
	pid_t before = newest_of(c, 0, t0, c);
	assert_true(before > 0);
	assert_int_equal(syscall(SYS_ioprio_set, 1, before, RT0), 0);
	sleep_ms(20);
	struct iofam_target t = target_of(c);
	assert_int_equal(iofam_set(c, RT0), 0);
	assert_int_equal(write(fd[1], "x", 1), 1);
	sleep_ms(100);
	pid_t since = newest_of(c, 0, t.since, before);
	assert_true(since > 0 && since != before);
	assert_int_equal(prio_of(since), RT0);
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, RT0, &u);
	long c_now = prio_of(c), since_now = prio_of(since), before_now = prio_of(before);
	close(fd[1]);
	end(since);
	end(before);
	end(c);
	assert_int_equal(rc, 0);
	assert_int_equal(u.procs, 1);
	assert_int_equal(c_now, BE4);
	assert_int_equal(since_now, BE4);
	assert_int_equal(before_now, RT0);
}

/* An unprivileged owner's process double-forks after the change: the
 * grandchild is no longer in its tree, but the realtime class is not one
 * that owner can take: the undo finds it by owner and start time. A
 * process of another owner at the same value is left alone. */
static void test_double_fork(void **state)
{
	(void)state;
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t c = fork();
	if (c == 0) {
		close(fd[1]);
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(1);
		child_loop(fd[0], 1);
	}
	close(fd[0]);
	sleep_ms(50);
	struct iofam_target t = target_of(c);
	assert_int_equal(t.uid, NOBODY);
	pid_t other = fork();
	if (other == 0)
		for (;;)
			pause();
	assert_int_equal(iofam_set(c, RT0), 0);
	assert_int_equal(syscall(SYS_ioprio_set, 1, other, RT0), 0);
	assert_int_equal(write(fd[1], "x", 1), 1);
	sleep_ms(150);
	pid_t gc = newest_of(0, NOBODY, t.since, c);
	assert_true(gc > 0);
	assert_int_equal(prio_of(gc), RT0);
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, RT0, &u);
	long gc_now = prio_of(gc), other_now = prio_of(other);
	close(fd[1]);
	end(gc);
	end(other);
	end(c);
	assert_int_equal(rc, 0);
	assert_int_equal(gc_now, BE4);
	assert_int_equal(other_now, RT0);
}

int main(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "test_iofam: needs root (sets other processes' I/O priorities)\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relay_threads),
		cmocka_unit_test(test_forked_child),
		cmocka_unit_test(test_double_fork),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
