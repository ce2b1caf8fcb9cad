/* Unit tests: procs_collect on live children of the test, with the
 * /proc/PID/io descriptors it keeps open between readings. The soft
 * RLIMIT_NOFILE decides how many may stay open: none, all, or HELD. Each
 * child's write calls over an interval must come out exact through a held
 * descriptor and through a new one; no more than allowed stay open; a
 * child that ends lets its go; procs_free leaves none. Needs no root: a user's own children's
 * /proc/PID/io is readable (taskstats, which needs root, is not used). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procs/procs.h"

#define KIDS 8
#define HELD 3

struct kid {
	pid_t pid;
	pid_t middle; /* its parent when that is not the test (kid_start_grand), else 0 */
	int cmd, ack; /* pipes: the test's ends */
};

/* The child: for each byte n read, n * 100 writes to /dev/null, then one
 * byte back. Ends at EOF. Its write calls in an interval are known. */
/* A byte of this value makes the child run sleep instead (exec). */
#define KID_EXEC 255

static void kid_main(int cmd, int ack)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	unsigned char n;
	while (read(cmd, &n, 1) == 1) {
		if (n == KID_EXEC) {
			execlp("sleep", "sleep", "60", (char *)NULL);
			_exit(1);
		}
		for (int i = 0; i < n * 100; i++)
			if (write(null, "x", 1) != 1)
				_exit(1);
		if (write(ack, &n, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

/* The middle process of kid_start_grand: starts the child, says its pid
 * on w, and waits for it to end. */
static void middle_main(int cmd, int ack, int w)
{
	pid_t g = fork();
	if (g == 0) {
		close(w);
		kid_main(cmd, ack);
	}
	close(cmd);
	close(ack);
	int ok = g > 0 && write(w, &g, sizeof g) == (ssize_t)sizeof g;
	while (ok && waitpid(g, NULL, 0) < 0 && errno == EINTR)
		;
	_exit(ok ? 0 : 1);
}

/* A child, or with grand a child's child: a task whose parent is not
 * the reader's own process (a row of the reader's children is this
 * tool's, PROC_SELF). */
static void kid_start_as(struct kid *k, int grand)
{
	int c[2], a[2], w[2];
	assert_int_equal(pipe2(c, O_CLOEXEC), 0);
	assert_int_equal(pipe2(a, O_CLOEXEC), 0);
	assert_int_equal(pipe2(w, O_CLOEXEC), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* Only its own: a brother's command pipe held open here
		 * would keep that one from seeing EOF. */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != c[0] && fd != a[1] && fd != w[1])
				close(fd);
		if (grand)
			middle_main(c[0], a[1], w[1]);
		close(w[1]);
		kid_main(c[0], a[1]);
	}
	close(c[0]);
	close(a[1]);
	close(w[1]);
	k->pid = pid;
	k->middle = 0;
	if (grand) {
		k->middle = pid;
		assert_int_equal(read(w[0], &k->pid, sizeof k->pid), (ssize_t)sizeof k->pid);
	}
	close(w[0]);
	k->cmd = c[1];
	k->ack = a[0];
}

static void kid_start(struct kid *k)
{
	kid_start_as(k, 0);
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
	pid_t parent_waits = k->middle ? k->middle : k->pid;
	assert_int_equal(waitpid(parent_waits, NULL, 0), parent_waits);
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

static double collect(struct run *r)
{
	struct procs_status st;
	assert_int_equal(procs_collect(r->p, 0, 1.0, 0, NULL, &r->rows, &r->n, &r->cap, &st), 0);
	assert_true(st.walk_s > 0);
	return st.walk_s;
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
		double walk_s = collect(r);
		for (int i = 0; i < KIDS; i++) {
			const struct proc_row *row = row_of(r->rows, r->n, r->kids[i].pid);
			assert_non_null(row);
			assert_true(row->io_readable);
			/* (i + round) * 100 to /dev/null and the answer; the rate
			 * is over the time since the last walk */
			assert_int_equal(lround(row->write_calls * walk_s), (i + round) * 100 + 1);
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
	assert_int_equal(procs_collect(r.p, 1, 1.0, 0, NULL, &r.rows, &r.n, &r.cap, &st), 0);
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

/* This process's command line as a row shows it (the children are its
 * forks): arguments joined by blanks, cut as procs.c cuts it. */
static void own_cmdline(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/cmdline", "re");
	assert_non_null(f);
	size_t n = fread(buf, 1, len < PROCS_CMDLINE_MAX ? len - 1 : PROCS_CMDLINE_MAX - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (size_t i = 0; i + 1 < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
}

static struct proc_row *row_to_name(struct run *r, pid_t pid)
{
	struct proc_row *row = (struct proc_row *)row_of(r->rows, r->n, pid);
	assert_non_null(row);
	return row;
}

/* Command lines are read only for rows named: after a reading, a task
 * that did nothing has none, one that wrote has its own; naming the idle
 * one reads it, and the next reading's row has it unasked; a child that
 * runs another program (a new name) has the new program's; per thread
 * the same. */
static void test_cmdline(void **state)
{
	(void)state;
	char own[PROCS_CMDLINE_MAX];
	own_cmdline(own, sizeof own);
	struct run r; /* two tasks that are not the reader's children */
	memset(&r, 0, sizeof r);
	for (int i = 0; i < 2; i++)
		kid_start_as(&r.kids[i], 1);
	/* Older than a tick at every reading: a task born since the reading
	 * before (in ticks) is new with all its I/O in the interval, notable
	 * at once if it did any, as the per-thread reading below would find */
	usleep(50 * 1000);
	assert_int_equal(procs_new(&r.p), 0);
	collect(&r);
	kid_work(&r.kids[1], 1);
	collect(&r);
	assert_null(row_to_name(&r, r.kids[0].pid)->cmdline);
	assert_string_equal(row_to_name(&r, r.kids[1].pid)->cmdline, own);
	procs_name(r.p, row_to_name(&r, r.kids[0].pid));
	assert_string_equal(row_to_name(&r, r.kids[0].pid)->cmdline, own);
	collect(&r);
	assert_string_equal(row_to_name(&r, r.kids[0].pid)->cmdline, own);

	/* exec: the new name comes with the I/O of starting the program (the
	 * loader's reads), which makes the /proc way read the name again */
	unsigned char go = KID_EXEC;
	assert_int_equal(write(r.kids[0].cmd, &go, 1), 1);
	char path[64], comm[32] = "";
	snprintf(path, sizeof path, "/proc/%d/comm", (int)r.kids[0].pid);
	for (int tries = 0; tries < 5000 && strcmp(comm, "sleep\n") != 0; tries++) {
		FILE *f = fopen(path, "re");
		assert_non_null(f);
		if (!fgets(comm, sizeof comm, f))
			comm[0] = '\0';
		fclose(f);
		usleep(1000);
	}
	assert_string_equal(comm, "sleep\n");
	kid_wait_idle(r.kids[0].pid);
	collect(&r);
	struct proc_row *row = row_to_name(&r, r.kids[0].pid);
	assert_string_equal(row->comm, "sleep");
	procs_name(r.p, row);
	assert_string_equal(row->cmdline, "sleep 60");

	struct procs_status st; /* per thread: every task new again */
	assert_int_equal(procs_collect(r.p, 1, 1.0, 0, NULL, &r.rows, &r.n, &r.cap, &st), 0);
	assert_null(row_to_name(&r, r.kids[1].pid)->cmdline);
	procs_name(r.p, row_to_name(&r, r.kids[1].pid));
	assert_string_equal(row_to_name(&r, r.kids[1].pid)->cmdline, own);

	procs_free(r.p);
	free(r.rows);
	kill(r.kids[0].pid, SIGKILL); /* sleep 60 */
	kid_end(&r.kids[0]);
	kid_end(&r.kids[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none_held),
		cmocka_unit_test(test_all_held),
		cmocka_unit_test(test_some_held),
		cmocka_unit_test(test_cmdline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
