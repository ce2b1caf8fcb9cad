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
#include <sched.h>
#include <poll.h>
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

/* Threads of pid at value v, sampled n times 1 ms apart: the most seen. */
static int threads_at(int pid, long v, int n)
{
	char dir[64];
	int most = 0;
	snprintf(dir, sizeof dir, "/proc/%d/task", pid);
	for (int i = 0; i < n; i++) {
		if (i)
			sleep_ms(1);
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
	assert_int_equal(iofam_start(pid, &(unsigned long long){0}), 0);
	assert_int_equal(iofam_uid(pid, &t.uid), 0);
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

static void *pause_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void *be6_thread(void *arg)
{
	(void)arg;
	syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 6);
	for (;;)
		pause();
	return NULL;
}

enum fork_how { FORK_CHILD, FORK_CHILD_MAIN_ENDS, FORK_DOUBLE, FORK_DOUBLE_NOBODY, FORK_DOUBLE_USERNS, FORK_DOUBLE_SG, FORK_DOUBLE_THREE, FORK_CHILD_AND_END };

static void drop_to_nobody(void)
{
	if (setgid(NOBODY) || setuid(NOBODY))
		_exit(1);
}

/* A pipe byte tells the process to fork: a child; a double fork (the
 * grandchild's parent ends: it leaves the tree), its grandchild as nobody
 * or not; or a child, and then it ends itself. */
static void child_loop(int rd, enum fork_how how)
{
	char b;
	while (read(rd, &b, 1) == 1) {
		pid_t k = fork();
		if (k == 0 && (how == FORK_DOUBLE || how == FORK_DOUBLE_NOBODY || how == FORK_DOUBLE_USERNS || how == FORK_DOUBLE_SG ||
			       how == FORK_DOUBLE_THREE)) {
			if (fork() == 0) {
				if (how == FORK_DOUBLE_NOBODY)
					drop_to_nobody();
				if (how == FORK_DOUBLE_USERNS && unshare(CLONE_NEWUSER) != 0)
					_exit(1); /* every capability, in a namespace of its own */
				if (how == FORK_DOUBLE_THREE) { /* threads at be/7, be/6 and the value */
					pthread_t t;
					pthread_create(&t, NULL, be6_thread, NULL);
					pthread_create(&t, NULL, pause_thread, NULL);
					sleep_ms(20);
					syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 7);
				}
				if (how == FORK_DOUBLE_SG) /* setuid root, stays as the parent */
					execlp("sg", "sg", "nogroup", "-c", "sleep 31.7", (char *)NULL);
				for (;;)
					pause();
			}
			_exit(0);
		}
		if (k == 0 && how == FORK_CHILD_MAIN_ENDS) {
			pthread_t t;
			pthread_create(&t, NULL, pause_thread, NULL);
			pthread_exit(NULL); /* the process shows as a zombie; its thread runs */
		}
		if (k == 0)
			for (;;)
				pause();
		if (how == FORK_CHILD_AND_END)
			_exit(0);
		if (how != FORK_CHILD)
			waitpid(k, NULL, 0);
	}
	_exit(0);
}

/* A process running child_loop, as nobody or not; *wr its pipe. */
static pid_t forker(enum fork_how how, int nobody, int *wr)
{
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t c = fork();
	if (c == 0) {
		close(fd[1]);
		if (nobody)
			drop_to_nobody();
		child_loop(fd[0], how);
	}
	close(fd[0]);
	*wr = fd[1];
	sleep_ms(50);
	return c;
}

/* A process's real uid (its status file). */
static int uid_of(int pid, unsigned *uid)
{
	char path[64], line[256];
	int rc = -1;
	snprintf(path, sizeof path, "/proc/%d/status", pid);
	FILE *f = fopen(path, "r");
	while (f && rc < 0 && fgets(line, sizeof line, f))
		if (sscanf(line, "Uid: %u", uid) == 1)
			rc = 0;
	if (f)
		fclose(f);
	return rc;
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
		if (p <= 0 || p == skip || iofam_start(p, &st) < 0 || st < since || uid_of(p, &u) < 0 || u != uid)
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
 * same realtime class) keeps what it had; a clean undo reports no thread
 * kept by its owner. */
static void test_forked_child(void **state)
{
	(void)state;
	int wr;
	pid_t c = forker(FORK_CHILD, 0, &wr);
	unsigned long long t0 = iofam_ticks_now();
	assert_int_equal(write(wr, "x", 1), 1);
	sleep_ms(100);
	pid_t before = newest_of(c, 0, t0, c);
	assert_true(before > 0);
	assert_int_equal(syscall(SYS_ioprio_set, 1, before, RT0), 0);
	sleep_ms(20);
	struct iofam_target t = target_of(c);
	assert_int_equal(iofam_set(c, RT0), 0);
	assert_int_equal(write(wr, "x", 1), 1);
	sleep_ms(100);
	pid_t since = newest_of(c, 0, t.since, before);
	assert_true(since > 0 && since != before);
	assert_int_equal(prio_of(since), RT0);
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, RT0, &u);
	long c_now = prio_of(c), since_now = prio_of(since), before_now = prio_of(before);
	close(wr);
	end(since);
	end(before);
	end(c);
	assert_int_equal(rc, 0);
	assert_int_equal(u.procs, 1);
	assert_int_equal(u.kept, 0);
	assert_int_equal(c_now, BE4);
	assert_int_equal(since_now, BE4);
	assert_int_equal(before_now, RT0);
}

/* A forker (as nobody or not) given the realtime class, then told to
 * fork: its pid, *t the change's target. */
static pid_t changed_then_forks(enum fork_how how, int nobody, int *wr, struct iofam_target *t)
{
	pid_t c = forker(how, nobody, wr);
	*t = target_of(c);
	assert_int_equal(iofam_set(c, RT0), 0);
	assert_int_equal(write(*wr, "x", 1), 1);
	sleep_ms(100);
	return c;
}

/* A double fork after the change takes the grandchild out of the tree,
 * not out of the realtime class, which it could not have taken itself
 * (nor could it in a user namespace of its own, where it shows every
 * capability): the undo finds it by its class and start time and puts it
 * back where it is the owner's. A grandchild that became another user
 * (from root's process) cannot be told from a class another grant gave:
 * it is named, not touched, and the undo does not say all is back. A
 * root process started since at the same value (it could set it itself)
 * is left alone and not named. */
static void double_fork_case(enum fork_how how, int target_nobody, int put_back)
{
	int wr;
	pid_t c = forker(how, target_nobody, &wr);
	struct iofam_target t = target_of(c);
	pid_t other = fork();
	if (other == 0)
		for (;;)
			pause();
	assert_int_equal(iofam_set(c, RT0), 0);
	assert_int_equal(syscall(SYS_ioprio_set, 1, other, RT0), 0);
	assert_int_equal(write(wr, "x", 1), 1);
	sleep_ms(150);
	pid_t gc = newest_of(0, NOBODY, t.since, c);
	assert_true(gc > 0);
	assert_int_equal(prio_of(gc), RT0);
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, RT0, &u);
	long gc_now = prio_of(gc), other_now = prio_of(other);
	close(wr);
	end(gc);
	end(other);
	end(c);
	assert_int_equal(rc, 0);
	assert_int_equal(other_now, RT0);
	if (put_back) {
		assert_int_equal(gc_now, BE4);
		assert_int_equal(u.others, 0);
	} else {
		assert_int_equal(gc_now, RT0);
		assert_int_equal(u.others, 1);
		assert_int_equal(u.other_pid[0], gc);
	}
}

static void test_double_fork(void **state)
{
	(void)state;
	double_fork_case(FORK_DOUBLE, 1, 1);
	double_fork_case(FORK_DOUBLE_USERNS, 1, 1);
	double_fork_case(FORK_DOUBLE_NOBODY, 0, 0);
}

/* A stray whose threads have three values, the realtime one last: found
 * (a check that stopped at the second value missed it). */
static void test_stray_three_values(void **state)
{
	(void)state;
	int wr;
	struct iofam_target t;
	pid_t c = changed_then_forks(FORK_DOUBLE_THREE, 1, &wr, &t);
	sleep_ms(100);
	pid_t gc = newest_of(0, NOBODY, t.since, c);
	assert_true(gc > 0);
	int had = threads_at(gc, RT0, 1);
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, RT0, &u);
	int left = threads_at(gc, RT0, 5);
	close(wr);
	end(gc);
	end(c);
	assert_int_equal(had, 1);
	assert_int_equal(rc, 0);
	assert_int_equal(left, 0);
}


/* Processes of uid started since with a thread at value. */
static int at_value_since(unsigned uid, unsigned long long since, long value)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d))) {
		int p = atoi(e->d_name);
		unsigned long long st;
		unsigned u;
		if (p > 0 && iofam_start(p, &st) == 0 && st >= since && uid_of(p, &u) == 0 && u == uid)
			n += threads_at(p, value, 1) > 0;
	}
	closedir(d);
	return n;
}

/* What the sg this test started runs, started since: sg itself, a shell,
 * the sleep (sg may exec its command or fork it), by its command line
 * (its odd time is this test's own), ended by pid. */
static void end_sg(unsigned long long since)
{
	static const char *const mine[] = {"sg\0nogroup\0-c\0sleep 31.7", "sh\0-c\0sleep 31.7", "sleep\0" "31.7"};
	static const size_t len[] = {sizeof "sg\0nogroup\0-c\0sleep 31.7", sizeof "sh\0-c\0sleep 31.7",
				     sizeof "sleep\0" "31.7"};
	DIR *d = opendir("/proc");
	struct dirent *e;
	while ((e = readdir(d))) {
		int p = atoi(e->d_name);
		unsigned long long st;
		char path[64], cmd[64] = "";
		snprintf(path, sizeof path, "/proc/%d/cmdline", p);
		FILE *f = p > 0 && iofam_start(p, &st) == 0 && st >= since ? fopen(path, "r") : NULL;
		size_t got = f ? fread(cmd, 1, sizeof cmd, f) : 0;
		if (f)
			fclose(f);
		const char *at = got > 3 && !strncmp(cmd, "/bin/", 5) ? cmd + 5 : cmd;
		for (size_t k = 0; k < sizeof mine / sizeof *mine; k++)
			if (got - (size_t)(at - cmd) == len[k] && !memcmp(at, mine[k], len[k]))
				kill(p, SIGKILL);
	}
	closedir(d);
}

/* After the change, nobody's process double-forks into sg (setuid root:
 * every capability, its real uid nobody's) which runs a child: neither
 * keeps the class, though sg could have taken it and is the child's
 * ancestor at the value (an owner's process started since explains
 * nothing). */
static void test_setuid_between(void **state)
{
	(void)state;
	int wr;
	struct iofam_target t;
	pid_t c = changed_then_forks(FORK_DOUBLE_SG, 1, &wr, &t);
	sleep_ms(400);
	int before = at_value_since(NOBODY, t.since, RT0);
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, RT0, &u);
	int after = at_value_since(NOBODY, t.since, RT0);
	close(wr);
	end(c);
	end_sg(t.since);
	assert_true(before >= 2);
	assert_int_equal(rc, 0);
	assert_int_equal(after, 0);
}

/* A process started before the change has its own value (nobody's
 * child of root's process, idle of its own), and forks after the change:
 * its child has the value from it, not from the change, and keeps it
 * (an undo once walked up through it and set the child back). */
static void test_own_value_before(void **state)
{
	(void)state;
	long idle = 3 << 13;
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t c = fork();
	if (c == 0) {
		if (fork() == 0) { /* c's child, started before the change */
			char b;
			close(fd[1]);
			drop_to_nobody();
			if (syscall(SYS_ioprio_set, 1, 0, idle) != 0 || read(fd[0], &b, 1) != 1)
				_exit(1);
			if (fork() == 0)
				for (;;)
					pause();
			for (;;)
				pause();
		}
		for (;;)
			pause();
	}
	close(fd[0]);
	sleep_ms(100);
	pid_t k = newest_of(c, NOBODY, 0, c);
	assert_true(k > 0);
	struct iofam_target t = target_of(c);
	assert_int_equal(iofam_set(c, (int)idle), 0);
	assert_int_equal(write(fd[1], "x", 1), 1);
	sleep_ms(100);
	pid_t gk = newest_of(k, NOBODY, t.since, k);
	assert_true(gk > 0);
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, (int)idle, &u);
	long gk_now = prio_of(gk), c_now = prio_of(c);
	end(gk);
	end(k);
	close(fd[1]);
	end(c);
	assert_int_equal(rc, 0);
	assert_int_equal(c_now, BE4);
	assert_int_equal(gk_now, idle);
	assert_int_equal(u.procs, 0);
}

/* A child started since whose main thread has ended (it shows as a
 * zombie while its other thread runs) goes back too. */
static void test_child_main_ended(void **state)
{
	(void)state;
	int wr;
	struct iofam_target t;
	pid_t c = changed_then_forks(FORK_CHILD_MAIN_ENDS, 0, &wr, &t);
	pid_t kid = newest_of(c, 0, t.since, c);
	assert_true(kid > 0);
	assert_true(threads_at(kid, RT0, 1) > 0);
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, RT0, &u);
	int left = threads_at(kid, RT0, 5);
	close(wr);
	end(kid);
	end(c);
	assert_int_equal(rc, 0);
	assert_int_equal(left, 0);
	assert_int_equal(u.procs, 1);
}

/* The process changed has ended, its child started since lives on with
 * the realtime class: the undo puts the child back; with nothing of it
 * left, -ESRCH. */
static void test_ended_target(void **state)
{
	(void)state;
	int wr;
	struct iofam_target t;
	pid_t c = changed_then_forks(FORK_CHILD_AND_END, 1, &wr, &t);
	waitpid(c, NULL, 0);
	pid_t kid = newest_of(0, NOBODY, t.since, c);
	assert_true(kid > 0);
	assert_int_equal(prio_of(kid), RT0);
	t.alive = 0;
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, RT0, &u);
	long kid_now = prio_of(kid);
	end(kid);
	close(wr);
	assert_int_equal(rc, 0);
	assert_int_equal(u.procs, 1);
	assert_int_equal(kid_now, BE4);
	sleep_ms(50);
	assert_int_equal(iofam_undo(&t, BE4, RT0, &u), -ESRCH);
}

/* A process whose main thread has ended (a zombie that keeps its value):
 * the undo puts its live thread back and is done (the zombie, which
 * cannot be set, once made every pass count as unsettled). */
static void test_zombie_main_thread(void **state)
{
	(void)state;
	pid_t c = fork();
	if (c == 0) {
		pthread_t t;
		pthread_create(&t, NULL, pause_thread, NULL);
		pthread_exit(NULL);
	}
	sleep_ms(50);
	struct iofam_target t = target_of(c);
	assert_int_equal(iofam_set(c, RT0), 0);
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, RT0, &u);
	int left = threads_at(c, RT0, 5), back = threads_at(c, BE4, 5);
	end(c);
	assert_int_equal(rc, 0);
	assert_int_equal(left, 0);
	assert_int_equal(back, 1);
}

static int share_pause(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

/* A process at be/4 (an I/O context of its own, made by the set) that
 * started another with CLONE_IO running fn: its pid, the other's in *q. */
static pid_t with_sharer(int (*fn)(void *), pid_t *q)
{
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t c = fork();
	if (c == 0) {
		static char stack[64 * 1024];
		if (syscall(SYS_ioprio_set, 1, 0, BE4) != 0)
			_exit(1);
		pid_t s = clone(fn, stack + sizeof stack, CLONE_IO | SIGCHLD, NULL);
		if (write(fd[1], &s, sizeof s) != sizeof s)
			_exit(1);
		for (;;)
			pause();
	}
	*q = 0;
	assert_int_equal(read(fd[0], q, sizeof *q), (ssize_t)sizeof *q);
	assert_true(*q > 0);
	close(fd[0]);
	close(fd[1]);
	return c;
}

/* A process that shares an I/O context with the process's thread
 * (clone with CLONE_IO) would take the value with it and keep it after
 * the thread ends, where no undo could follow: the set is refused, named,
 * and both are as they were. */
static void test_io_context_sharer(void **state)
{
	(void)state;
	pid_t sharer_pid;
	pid_t c = with_sharer(share_pause, &sharer_pid);
	long before = prio_of(c);
	int sharer = 0;
	int rc = iofam_set_alone(c, RT0, (int)before, &sharer);
	long c_now = prio_of(c), s_now = prio_of(sharer_pid);
	/* without the check the sharer takes the value: the kernel's own */
	assert_int_equal(iofam_set(c, (2 << 13) | 6), 0);
	long s_shared = prio_of(sharer_pid);
	kill(sharer_pid, SIGKILL);
	end(c);
	assert_int_equal(s_shared, (2 << 13) | 6);
	assert_int_equal(rc, -EBUSY);
	assert_int_equal(sharer, sharer_pid);
	assert_int_equal(c_now, before);
	assert_int_equal(s_now, before);
}

/* Q's thread that shares Q's I/O context, and Q, whose main thread ends
 * (the process lives on in the thread). */
static int shared_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

static int main_ends(void *arg)
{
	(void)arg;
	static char stack[64 * 1024];
	clone(shared_thread, stack + sizeof stack,
	      CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | CLONE_IO, NULL);
	syscall(SYS_exit, 0); /* this thread only */
	return 0;
}

/* The same with the sharer's main thread ended: its other thread holds
 * the shared context (a check of main threads only saw none). */
static void test_io_context_sharer_main_ended(void **state)
{
	(void)state;
	pid_t q;
	pid_t c = with_sharer(main_ends, &q);
	sleep_ms(100);
	int sharer = 0, rc = iofam_set_alone(c, RT0, BE4, &sharer);
	long c_now = prio_of(c);
	kill(q, SIGKILL);
	end(c);
	assert_int_equal(rc, -EBUSY);
	assert_true(sharer > 0 && sharer != q);
	assert_int_equal(c_now, BE4);
}

/* A chain of short processes, each forking the next and ending, started
 * after the change by a double fork (nobody's): the undo leaves none of
 * them at the value or says it could not; never done with one left (a
 * member listed at the value that ended before it was looked at had
 * passed the value on). The chain stops when the test closes its pipe. */
static void chain(int rd, int gap_ms)
{
	for (;;) {
		struct pollfd p = {rd, POLLIN, 0};
		if (poll(&p, 1, 0) > 0)
			_exit(0); /* the test closed its end */
		sleep_ms(gap_ms);
		if (fork() != 0)
			_exit(0);
	}
}

static void chain_case(int gap_ms)
{
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t c = fork();
	if (c == 0) {
		char b;
		close(fd[1]);
		drop_to_nobody();
		if (read(fd[0], &b, 1) != 1)
			_exit(1);
		if (fork() == 0)
			chain(fd[0], gap_ms);
		for (;;)
			pause();
	}
	sleep_ms(50);
	struct iofam_target t = target_of(c);
	assert_int_equal(iofam_set(c, RT0), 0);
	assert_int_equal(write(fd[1], "x", 1), 1);
	sleep_ms(100);
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, RT0, &u);
	int left = 0;
	for (int i = 0; i < 40 && !left; i++, sleep_ms(5))
		left = at_value_since(NOBODY, t.since, RT0);
	close(fd[1]);
	sleep_ms(gap_ms + 50);
	end(c);
	fprintf(stderr, "chain of %d ms: undo %s, %d process(es) left at the value\n", gap_ms,
		rc ? strerror(-rc) : "done", left);
	if (rc == 0)
		assert_int_equal(left, 0);
	else
		assert_int_equal(rc, -EAGAIN);
}

static void test_process_chain(void **state)
{
	(void)state;
	for (int i = 0; i < 3; i++) {
		chain_case(2);
		chain_case(10);
	}
}

/* Ten changes to realtime and undos of nobody's idle process while what
 * the caller started runs: how many undos were done, and its value after
 * the last in *now. */
static int ten_undos(const char *what, long *now)
{
	pid_t c = fork();
	if (c == 0) {
		drop_to_nobody();
		for (;;)
			pause();
	}
	sleep_ms(50);
	struct iofam_target t = target_of(c);
	int done = 0;
	for (int i = 0; i < 10; i++) {
		struct iofam_undo u;
		assert_int_equal(iofam_set(c, RT0), 0);
		int rc = iofam_undo(&t, BE4, RT0, &u);
		done += rc == 0;
		if (rc)
			fprintf(stderr, "%s: undo %s\n", what, strerror(-rc));
	}
	*now = prio_of(c);
	end(c);
	return done;
}

/* Another's job at the same value, forking all the time (root's own
 * realtime job): none of its processes is the undo's, which finishes
 * (counting every new process at the value made it fail now and then,
 * blaming the process undone). */
static void test_other_forker_at_value(void **state)
{
	(void)state;
	pid_t busy = fork();
	if (busy == 0) {
		syscall(SYS_ioprio_set, 1, 0, RT0);
		for (;;) { /* a new one every millisecond, 20 alive at a time */
			if (fork() == 0) {
				sleep_ms(20);
				_exit(0);
			}
			sleep_ms(1);
			while (waitpid(-1, NULL, WNOHANG) > 0)
				;
		}
	}
	long now;
	int done = ten_undos("another's forker", &now);
	end(busy);
	assert_int_equal(done, 10);
	assert_int_equal(now, BE4);
}

/* The owner busy elsewhere, as during a build: its processes start and
 * end all the time (none at the value, none of the family). The undo
 * still finishes: what ends while it looks is no reason to give up. */
static void test_busy_owner(void **state)
{
	(void)state;
	pid_t busy[2];
	for (int i = 0; i < 2; i++)
		if ((busy[i] = fork()) == 0) {
			drop_to_nobody();
			for (;;) {
				pid_t k = fork();
				if (k == 0) {
					sleep_ms(3);
					_exit(0);
				}
				if (k > 0)
					waitpid(k, NULL, 0);
			}
		}
	long now;
	int done = ten_undos("busy owner", &now);
	end(busy[0]);
	end(busy[1]);
	assert_int_equal(done, 10);
	assert_int_equal(now, BE4);
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
		cmocka_unit_test(test_child_main_ended),
		cmocka_unit_test(test_ended_target),
		cmocka_unit_test(test_zombie_main_thread),
		cmocka_unit_test(test_io_context_sharer),
		cmocka_unit_test(test_setuid_between),
		cmocka_unit_test(test_own_value_before),
		cmocka_unit_test(test_stray_three_values),
		cmocka_unit_test(test_io_context_sharer_main_ended),
		cmocka_unit_test(test_process_chain),
		cmocka_unit_test(test_busy_owner),
		cmocka_unit_test(test_other_forker_at_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
