/* Unit tests: procs_collect on live children of the test, with the
 * /proc/PID/io descriptors it keeps open between readings. The soft
 * RLIMIT_NOFILE decides how many may stay open: none, all, or HELD. Each
 * child's write calls over an interval must come out exact through a held
 * descriptor and through a new one; no more than allowed stay open; a
 * child that ends lets its go; procs_free leaves none. Needs no root: a user's own children's
 * /proc/PID/io is readable (taskstats, which needs root, is not used). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procs.h"

#define KIDS 8
#define HELD 3

struct kid {
	pid_t pid;
	int cmd, ack; /* pipes: the test's ends */
};

/* The child: for each byte n read, n * 100 writes to /dev/null, then one
 * byte back. Ends at EOF. Its write calls in an interval are known. */
static void kid_main(int cmd, int ack)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	unsigned char n;
	while (read(cmd, &n, 1) == 1) {
		for (int i = 0; i < n * 100; i++)
			if (write(null, "x", 1) != 1)
				_exit(1);
		if (write(ack, &n, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

static void kid_start(struct kid *k)
{
	int c[2], a[2];
	assert_int_equal(pipe2(c, O_CLOEXEC), 0);
	assert_int_equal(pipe2(a, O_CLOEXEC), 0);
	k->pid = fork();
	assert_true(k->pid >= 0);
	if (k->pid == 0) {
		/* Only its own two: a brother's command pipe held open here
		 * would keep that one from seeing EOF. */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != c[0] && fd != a[1])
				close(fd);
		kid_main(c[0], a[1]);
	}
	close(c[0]);
	close(a[1]);
	k->cmd = c[1];
	k->ack = a[0];
}

/* The kernel counts a write only after it has returned, and the answer's
 * write wakes the test before that: wait until the child sleeps in its
 * next read (state S; writes to /dev/null and a pipe with room never
 * sleep), by then every count is in. */
static void kid_wait_idle(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	for (int tries = 0; tries < 5000; tries++) {
		FILE *f = fopen(path, "re");
		assert_non_null(f);
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = '\0';
		const char *close = strrchr(buf, ')');
		if (close && close[1] == ' ' && close[2] == 'S')
			return;
		usleep(1000);
	}
	fail_msg("child %d never went back to waiting for work", (int)pid);
}

static void kid_work(struct kid *k, unsigned char n)
{
	unsigned char got;
	assert_int_equal(write(k->cmd, &n, 1), 1);
	assert_int_equal(read(k->ack, &got, 1), 1);
	kid_wait_idle(k->pid);
}

static void kid_end(struct kid *k)
{
	close(k->cmd);
	close(k->ack);
	int st;
	assert_int_equal(waitpid(k->pid, &st, 0), k->pid);
}

/* How many of this process's descriptors are open on a task's I/O file;
 * with pid > 0, only on that process's. */
static int io_fds(int pid)
{
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	int n = 0, p;
	struct dirent *e;
	char link[PATH_MAX], to[PATH_MAX];
	while ((e = readdir(d))) {
		snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
		ssize_t len = readlink(link, to, sizeof to - 1);
		if (len <= 0)
			continue;
		to[len] = '\0';
		/* /proc/PID/io, or /proc/PID/task/TID/io per thread */
		if (sscanf(to, "/proc/%d/", &p) == 1 && len > 3 && strcmp(to + len - 3, "/io") == 0 &&
		    (pid <= 0 || p == pid))
			n++;
	}
	closedir(d);
	return n;
}

/* Threads on the machine now (each may take a descriptor). */
static rlim_t tasks(void)
{
	rlim_t n = 0;
	DIR *d = opendir("/proc");
	assert_non_null(d);
	struct dirent *e;
	char path[300];
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/task", e->d_name);
		DIR *t = opendir(path);
		struct dirent *x;
		while (t && (x = readdir(t)))
			n += x->d_name[0] != '.';
		if (t)
			closedir(t);
	}
	closedir(d);
	return n;
}

static const struct proc_row *row_of(const struct proc_row *rows, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].pid == pid && !rows[i].exited)
			return &rows[i];
	return NULL;
}

/* A reader made with the soft RLIMIT_NOFILE at PROCS_IO_FDS_SPARE + held
 * (at most the hard limit); the limit is put back after. */
static struct procs *reader_holding(rlim_t held)
{
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	lim = old;
	lim.rlim_cur = PROCS_IO_FDS_SPARE + held;
	if (lim.rlim_max != RLIM_INFINITY && lim.rlim_cur > lim.rlim_max)
		lim.rlim_cur = lim.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
	struct procs *p;
	assert_int_equal(procs_new(&p), 0);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	return p;
}

/* One test's children, reader and rows. */
struct run {
	struct kid kids[KIDS];   /* pid 0: ended by the test */
	struct procs *p;
	struct proc_row *rows;
	size_t n, cap;
};

static void collect(struct run *r)
{
	struct procs_status st;
	assert_int_equal(procs_collect(r->p, 0, 1.0, 0, &r->rows, &r->n, &r->cap, &st), 0);
}

/* The children and a reader that may hold held files, then three rounds
 * of known work: every child's write calls must come out exact. */
static void run_start(struct run *r, rlim_t held)
{
	memset(r, 0, sizeof *r);
	for (int i = 0; i < KIDS; i++)
		kid_start(&r->kids[i]);
	r->p = reader_holding(held);
	collect(r);
	for (int round = 1; round <= 3; round++) {
		for (int i = 0; i < KIDS; i++)
			kid_work(&r->kids[i], (unsigned char)(i + round));
		collect(r);
		for (int i = 0; i < KIDS; i++) {
			const struct proc_row *row = row_of(r->rows, r->n, r->kids[i].pid);
			assert_non_null(row);
			assert_true(row->io_readable);
			/* (i + round) * 100 to /dev/null and the answer; the rate
			 * is over the interval given, 1 s */
			assert_int_equal((long)row->write_calls, (i + round) * 100 + 1);
		}
	}
}

/* procs_free leaves no file open; the children still there end. */
static void run_end(struct run *r)
{
	procs_free(r->p);
	assert_int_equal(io_fds(0), 0);
	free(r->rows);
	for (int i = 0; i < KIDS; i++)
		if (r->kids[i].pid)
			kid_end(&r->kids[i]);
}

/* Nothing may be held: every file opened and closed each reading. */
static void test_none_held(void **state)
{
	(void)state;
	struct run r;
	run_start(&r, 0);
	assert_int_equal(io_fds(0), 0);
	run_end(&r);
}

/* Room for all: each child's file is read through the descriptor held
 * from the reading before; a child that ends lets its go at the next
 * reading; procs_free and a switch to threads let go of all. */
static void test_all_held(void **state)
{
	(void)state;
	struct rlimit lim;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &lim), 0);
	if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < PROCS_IO_FDS_SPARE + tasks() + 64) {
		print_message("skipped: the hard open-file limit (%lu) cannot hold every task's file\n",
			      (unsigned long)lim.rlim_max);
		skip();
	}
	struct run r;
	run_start(&r, 16384);
	for (int i = 0; i < KIDS; i++)
		assert_int_equal(io_fds(r.kids[i].pid), 1);
	pid_t gone = r.kids[0].pid;
	kid_end(&r.kids[0]);
	r.kids[0].pid = 0;
	collect(&r);
	assert_int_equal(io_fds(gone), 0);
	assert_null(row_of(r.rows, r.n, gone));
	struct procs_status st;
	assert_int_equal(procs_collect(r.p, 1, 1.0, 0, &r.rows, &r.n, &r.cap, &st), 0);
	for (int i = 1; i < KIDS; i++) /* one thread each: /proc/PID/task/PID/io */
		assert_int_equal(io_fds(r.kids[i].pid), 1);
	run_end(&r);
}

/* Room for HELD: never more held than that, and the rest still exact. */
static void test_some_held(void **state)
{
	(void)state;
	struct run r;
	run_start(&r, HELD);
	/* HELD go to the first tasks listed; one that ended in the last
	 * interval is let go only at the next reading's end */
	int held = io_fds(0);
	assert_true(held > 0 && held <= HELD);
	run_end(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none_held),
		cmocka_unit_test(test_all_held),
		cmocka_unit_test(test_some_held),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
