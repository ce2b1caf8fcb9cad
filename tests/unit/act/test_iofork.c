/* iofork: a fork held between the child's copy of its parent's I/O
 * priority and its place in /proc. The held parent is nobody's process
 * the tool gave the realtime class; its clone3 writes the child's pidfd
 * to a page whose fault a userfaultfd (made while still root) holds
 * until the test lets it go. An undo meanwhile must not say done: the
 * child would come out at the realtime class after a reported success
 * (as with a page of the owner's own FUSE file system, which any user
 * can mount). Needs root; kernel faults through a userfaultfd made with
 * privilege work whatever vm.unprivileged_userfaultfd says.
 * And an undo beside a process held in execve (tests/lib/heldfs.py: its
 * stat does not answer until let go): it goes on past one not at the
 * value, fails at once (naming it) for one at the value, never hangs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "act/iofam.h"
#include "act/iofork.h"
#include "act/tune.h"
#include "base/util.h"
#include "base/timedread.h"
#include "heldfs.h"

#define RT0 (1 << 13)
#define BE4 ((2 << 13) | 4)
#define NOBODY 65534

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

struct holder {
	int uffd, release; /* release: a byte here lets the fault go; -1: when the process's value goes back */
	int delay_us;      /* after that, before letting go */
};

/* Until the process's own I/O priority is no longer the tool's: the
 * undo's first step, which the owner can watch. */
static void wait_set_back(void)
{
	while (syscall(SYS_ioprio_get, 1, getpid()) == RT0)
		usleep(100);
}

/* Waits for the fault, then for the test's byte, then fills the page. */
static void *hold_fault(void *arg)
{
	struct holder *h = arg;
	struct pollfd p = {h->uffd, POLLIN, 0};
	struct uffd_msg m;
	char b;
	if (poll(&p, 1, -1) != 1 || read(h->uffd, &m, sizeof m) != sizeof m)
		_exit(3);
	if (h->release >= 0 && read(h->release, &b, 1) != 1)
		_exit(3);
	if (h->release < 0) {
		wait_set_back();
		usleep((useconds_t)h->delay_us);
	}
	static char page[4096] __attribute__((aligned(4096)));
	struct uffdio_copy c = {.dst = m.arg.pagefault.address & ~4095ULL, .src = (uintptr_t)page, .len = 4096};
	ioctl(h->uffd, UFFDIO_COPY, &c);
	return NULL;
}

/* The held process: a userfaultfd on one page, made as root, then
 * nobody; waits for go, then clone3 with its pidfd written to that page;
 * once the fork is let go, the child's pid to report and the child
 * pauses. */
static void held_forker(int go, int release, int delay_us, int report)
{
	int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	struct uffdio_api api = {.api = UFFD_API};
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct uffdio_register reg = {.range = {(uintptr_t)page, 4096}, .mode = UFFDIO_REGISTER_MODE_MISSING};
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) || page == MAP_FAILED || ioctl(uffd, UFFDIO_REGISTER, &reg))
		_exit(2);
	if (setgid(NOBODY) || setuid(NOBODY))
		_exit(1);
	struct holder h = {uffd, release, delay_us};
	pthread_t th;
	char b;
	if (pthread_create(&th, NULL, hold_fault, &h) || read(go, &b, 1) != 1)
		_exit(2);
	struct clone_args a = {.flags = CLONE_PIDFD, .pidfd = (uintptr_t)page, .exit_signal = SIGCHLD};
	long kid = syscall(SYS_clone3, &a, sizeof a);
	if (kid == 0) {
		for (;;)
			pause();
	}
	int k = (int)kid;
	if (write(report, &k, sizeof k) != sizeof k)
		_exit(2);
	for (;;)
		pause();
}

/* The held process started (release, delay_us: as held_forker's), given
 * the realtime class and told to fork: its pid, and the undo's target. */
static pid_t start_held(int release, int delay_us, int report, struct iofam_target *t)
{
	int go[2];
	assert_int_equal(pipe(go), 0);
	pid_t c = fork();
	if (c == 0)
		held_forker(go[0], release, delay_us, report);
	sleep_ms(100);
	*t = (struct iofam_target){.pid = c, .alive = 1, .uid = NOBODY};
	assert_int_equal(iofam_start(c, &t->start), 0);
	t->since = iofam_ticks_now();
	assert_int_equal(iofam_set(c, RT0), 0);
	assert_int_equal(write(go[1], "x", 1), 1);
	close(go[0]);
	close(go[1]);
	return c;
}

/* The child the held process reports once its fork is let go, and its
 * I/O priority then (-1: none came); both processes ended. */
static int child_out(int report, pid_t holder, long *prio)
{
	int kid = -1;
	struct pollfd p = {report, POLLIN, 0};
	if (poll(&p, 1, 5000) == 1 && read(report, &kid, sizeof kid) != sizeof kid)
		kid = -1;
	*prio = kid > 0 ? syscall(SYS_ioprio_get, 1, kid) : -1;
	if (kid > 0)
		kill(kid, SIGKILL);
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	return kid;
}

static void test_fork_held(void **state)
{
	(void)state;
	int release[2], report[2];
	assert_int_equal(pipe(release) | pipe(report), 0);
	struct iofam_target t;
	pid_t c = start_held(release[0], 0, report[1], &t);
	sleep_ms(200); /* the clone3 is in the fault now */
	int held = iofork_in_flight(&t);
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, RT0, &u);
	assert_int_equal(write(release[1], "x", 1), 1);
	long kid_prio;
	int kid = child_out(report[0], c, &kid_prio);
	fprintf(stderr, "held fork: %d thread(s) seen in it; undo %s; the child %d came out at %ld\n", held,
		rc ? strerror(-rc) : "done", kid, kid_prio);
	assert_true(kid > 0);
	assert_int_equal(held, 1);
	/* never done with the child to come at the value */
	if (rc == 0)
		assert_int_not_equal(kid_prio, RT0);
	else
		assert_int_equal(rc, -EAGAIN);
}

/* The fork let go during the undo, as soon as the owner sees its value
 * go back (the undo's first step) or a little after: the child attaches
 * while the undo lists /proc, with a pid older than the round. Never
 * done with the child at the value. */
static void let_go_case(int delay_us)
{
	int report[2];
	assert_int_equal(pipe(report), 0);
	struct iofam_target t;
	pid_t c = start_held(-1, delay_us, report[1], &t);
	sleep_ms(100);
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, RT0, &u);
	long kid_prio;
	int kid = child_out(report[0], c, &kid_prio);
	fprintf(stderr, "fork let go %d us after the value went back: undo %s; the child came out at %ld\n", delay_us,
		rc ? strerror(-rc) : "done", kid_prio);
	assert_true(kid > 0);
	if (rc == 0)
		assert_int_not_equal(kid_prio, RT0);
	else
		assert_int_equal(rc, -EAGAIN);
}

static void test_fork_let_go(void **state)
{
	(void)state;
	static const int delays[] = {0, 200, 1000, 3000, 10000, 20000};
	for (size_t i = 0; i < sizeof delays / sizeof delays[0]; i++)
		let_go_case(delays[i]);
}

/* An idle child of root's at rt/0, as the tool sets it with i: t names it
 * (the undo's reads through tr, NULL: the undo's own). */
static pid_t child_at_rt0(struct iofam_target *t, struct timedread *tr)
{
	pid_t c = idle_child();
	*t = (struct iofam_target){.pid = c, .alive = 1, .uid = 0, .tr = tr};
	assert_int_equal(iofam_start(c, &t->start), 0);
	t->since = iofam_ticks_now();
	assert_int_equal(iofam_set(c, RT0), 0);
	return c;
}

/* An undo of a root process's realtime class, beside a process at
 * held_prio held in execve: rc, the held pid in *held, *stuck as the undo
 * names it, seconds it took in *took; the process is put back either way. */
static int undo_beside_held(long held_prio, pid_t *held, int *stuck, double *took)
{
	struct heldfs h;
	if (heldfs_start(&h) < 0)
		skip();
	*held = heldfs_hold(&h, held_prio);
	struct iofam_target t;
	pid_t c = child_at_rt0(&t, NULL);
	struct timespec a, b;
	struct iofam_undo u;
	clock_gettime(CLOCK_MONOTONIC, &a);
	int rc = iofam_undo(&t, BE4, RT0, &u);
	clock_gettime(CLOCK_MONOTONIC, &b);
	*took = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	*stuck = u.stuck_pid;
	long back = syscall(SYS_ioprio_get, 1, c);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	heldfs_stop(&h);
	fprintf(stderr, "beside pid %d held in execve at %ld: undo %s in %.2f s (names %d)\n", *held, held_prio,
		rc ? strerror(-rc) : "done", *took, *stuck);
	assert_int_equal(back, BE4);
	return rc;
}

static void test_held_exec_elsewhere(void **state)
{
	(void)state;
	pid_t held;
	int stuck;
	double took;
	assert_int_equal(undo_beside_held(BE4, &held, &stuck, &took), 0);
	assert_int_equal(stuck, 0);
	assert_true(took < 10);
}

static void test_held_exec_at_value(void **state)
{
	(void)state;
	pid_t held;
	int stuck;
	double took;
	assert_int_equal(undo_beside_held(RT0, &held, &stuck, &took), -ETIMEDOUT);
	assert_int_equal(stuck, held);
	assert_true(took < 10);
}

/* Undos given a reader (the control worker's own) read through it: a
 * held process holds one of its threads however many undos meet it, not
 * one thread per undo (each undo's own reader left its stuck thread
 * behind). */
static void test_held_exec_shared_reader(void **state)
{
	(void)state;
	struct heldfs h;
	if (heldfs_start(&h) < 0)
		skip();
	pid_t held = heldfs_hold(&h, BE4);
	struct timedread *tr = timedread_new(TIMEDREAD_PATIENCE_S);
	int rcs[3];
	for (int i = 0; i < 3; i++) {
		struct iofam_target t;
		pid_t c = child_at_rt0(&t, tr);
		struct iofam_undo u;
		rcs[i] = iofam_undo(&t, BE4, RT0, &u);
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
	}
	int id = 0;
	size_t stuck = timedread_stuck(tr, &id, 1);
	heldfs_stop(&h);
	timedread_free(tr);
	fprintf(stderr, "3 undos beside pid %d held in execve: %d %d %d; the reader holds %zu stuck (pid %d)\n", held,
		rcs[0], rcs[1], rcs[2], stuck, id);
	for (int i = 0; i < 3; i++)
		assert_int_equal(rcs[i], 0);
	assert_int_equal(stuck, 1);
	assert_int_equal(id, held);
}

/* A change whose process has ended, its pid now another's held in
 * execve (whose stat does not answer, so its start time cannot be told):
 * the undo must not give that process the old value (here realtime rt/4),
 * nor may i set one on it; a held target was once taken for alive. */
static void test_held_pid_not_written(void **state)
{
	(void)state;
	struct heldfs h;
	if (heldfs_start(&h) < 0)
		skip();
	pid_t held = heldfs_hold(&h, BE4);
	struct tune_req r;
	tune_req_ioprio(&r, held, 0, "gone", "rt/4");
	r.start = 12345; /* the process changed: started then, ended since */
	r.since = iofam_ticks_now();
	r.undo = 1;
	util_strlcpy(r.expect, "be/4", sizeof r.expect);
	int same = tune_req_same_process(&r);
	struct event ev;
	struct tune_reset resets[TUNE_RESETS_MAX];
	size_t nresets;
	tune_apply(&r, &ev, resets, &nresets, NULL);
	long after_undo = syscall(SYS_ioprio_get, 1, held);
	struct tune_req set;
	tune_req_ioprio(&set, held, 0, "held", "rt/0");
	set.start = 12345;
	struct event ev2;
	tune_apply(&set, &ev2, resets, &nresets, NULL);
	long after_set = syscall(SYS_ioprio_get, 1, held);
	heldfs_stop(&h);
	fprintf(stderr, "held pid %d: same %d; undo ok %d (%s), then %#lx; i ok %d (%s), then %#lx\n", held, same, ev.ok,
		ev.error, after_undo, ev2.ok, ev2.error, after_set);
	assert_int_equal(same, -1);
	assert_false(ev.ok);
	assert_int_equal(after_undo, BE4);
	assert_false(ev2.ok);
	assert_int_equal(after_set, BE4);
}

/* More processes held in execve than the reader waits on: it reads no
 * stat then, and the undo must fail (not take every process for a held
 * one and say done). */
static void test_held_exec_reader_full(void **state)
{
	(void)state;
	struct heldfs h;
	if (heldfs_start(&h) < 0)
		skip();
	for (int i = 0; i < TIMEDREAD_STUCK_MAX + 1; i++)
		heldfs_hold(&h, -1);
	struct iofam_target t;
	pid_t c = child_at_rt0(&t, NULL);
	struct iofam_undo u;
	int rc = iofam_undo(&t, BE4, RT0, &u);
	long back = syscall(SYS_ioprio_get, 1, c);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	heldfs_stop(&h);
	fprintf(stderr, "beside %d processes held in execve: undo %s\n", h.nheld, rc ? strerror(-rc) : "done");
	assert_int_equal(back, BE4);
	assert_int_equal(rc, -EBUSY);
}

int main(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "test_iofork: needs root (a userfaultfd for kernel faults, others' I/O priorities)\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_held),
		cmocka_unit_test(test_fork_let_go),
		cmocka_unit_test(test_held_exec_elsewhere),
		cmocka_unit_test(test_held_exec_at_value),
		cmocka_unit_test(test_held_exec_shared_reader),
		cmocka_unit_test(test_held_pid_not_written),
		cmocka_unit_test(test_held_exec_reader_full),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
