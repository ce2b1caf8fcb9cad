/* Unit tests: a setting shared by runs (act/sysctlhold), on a plain file
 * standing for /proc/sys/kernel/task_delayacct. One run alone puts back
 * what it found; of two, the first to end leaves it on for the other and
 * the last puts back the value from before the first; a run that died
 * without letting go (its lock dropped by the kernel, as on SIGKILL) is
 * found by the next run, which puts back the value from before the dead
 * one. The other runs are child processes: a hold is a flock on a file
 * named by the pid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "act/sysctlhold.h"

struct place {
	char top[64], file[96], dir[96], orig[128];
	struct sysctl_share s;
};

static void place_make(struct place *p, const char *value)
{
	strcpy(p->top, "/tmp/iosched-sysctlhold.XXXXXX");
	assert_non_null(mkdtemp(p->top));
	snprintf(p->file, sizeof p->file, "%s/task_delayacct", p->top);
	snprintf(p->dir, sizeof p->dir, "%s/run", p->top);
	snprintf(p->orig, sizeof p->orig, "%s/task_delayacct.orig", p->dir);
	FILE *f = fopen(p->file, "w");
	assert_non_null(f);
	fputs(value, f);
	fclose(f);
	p->s = (struct sysctl_share){.sysctl = p->file, .dir = p->dir, .stem = "task_delayacct"};
}

static void place_remove(struct place *p)
{
	char cmd[160];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", p->top);
	assert_int_equal(system(cmd), 0);
}

static int value_of(const struct place *p)
{
	FILE *f = fopen(p->file, "r");
	int v = -1;
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &v), 1);
	fclose(f);
	return v;
}

/* Another run: a child that takes a hold (value 1), says so on a pipe,
 * then waits for a byte: 'r' lets go and exits, 'x' exits without (the
 * kernel drops its lock, as when a run is killed). */
struct other {
	pid_t pid;
	int cmd;
};

static struct other other_start(const struct place *p)
{
	int up[2], down[2];
	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sysctl_hold h;
		char err[128], c = 0;
		int was, v;
		sysctlhold_init(&h);
		int rc = sysctlhold_set(&p->s, &h, 1, &was, err, sizeof err);
		if (write(up[1], rc == 0 ? "k" : "f", 1) != 1 || read(down[0], &c, 1) != 1)
			_exit(3);
		if (c == 'r')
			sysctlhold_release(&p->s, &h, &v);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	char c = 0;
	assert_int_equal(read(up[0], &c, 1), 1);
	assert_int_equal(c, 'k');
	close(up[0]);
	return (struct other){.pid = pid, .cmd = down[1]};
}

static void other_end(struct other *o, char how)
{
	int st = -1;
	assert_int_equal(write(o->cmd, &how, 1), 1);
	close(o->cmd);
	assert_int_equal(waitpid(o->pid, &st, 0), o->pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_alone(void **state)
{
	(void)state;
	struct place p;
	struct sysctl_hold h;
	char err[128];
	int was = -1, v = -1;
	struct stat st;
	place_make(&p, "0\n");
	sysctlhold_init(&h);
	assert_int_equal(sysctlhold_release(&p.s, &h, &v), 0); /* held nothing */
	assert_int_equal(sysctlhold_set(&p.s, &h, 1, &was, err, sizeof err), 0);
	assert_int_equal(was, 0);
	assert_int_equal(value_of(&p), 1);
	assert_int_equal(stat(p.orig, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(p.dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(sysctlhold_others(&p.s, &v), 0);
	/* Off and on again: still the one hold, the first value kept. */
	assert_int_equal(sysctlhold_set(&p.s, &h, 0, &was, err, sizeof err), 0);
	assert_int_equal(sysctlhold_set(&p.s, &h, 1, &was, err, sizeof err), 0);
	assert_int_equal(sysctlhold_release(&p.s, &h, &v), 1);
	assert_int_equal(v, 0);
	assert_int_equal(value_of(&p), 0);
	assert_int_not_equal(stat(p.orig, &st), 0); /* the record went with the last holder */
	assert_int_equal(sysctlhold_release(&p.s, &h, &v), 0);
	place_remove(&p);
}

/* Two runs: A (the child) first, then B; A ends first and leaves it on;
 * B's end puts back the 0 from before A. Then the other way round. */
static void test_two_runs(void **state)
{
	(void)state;
	struct place p;
	struct sysctl_hold h;
	char err[128];
	int was = -1, v = -1;
	place_make(&p, "0\n");
	struct other a = other_start(&p);
	assert_int_equal(value_of(&p), 1);
	sysctlhold_init(&h);
	assert_int_equal(sysctlhold_set(&p.s, &h, 1, &was, err, sizeof err), 0);
	assert_int_equal(was, 1);
	assert_int_equal(sysctlhold_others(&p.s, &v), 1);
	assert_int_equal(v, a.pid);
	other_end(&a, 'r');
	assert_int_equal(value_of(&p), 1); /* A's end left it on for B */
	assert_int_equal(sysctlhold_others(&p.s, &v), 0);
	assert_int_equal(sysctlhold_release(&p.s, &h, &v), 1);
	assert_int_equal(v, 0);
	assert_int_equal(value_of(&p), 0);

	/* B first, A last: B's end says A holds it; A's end puts 0 back. */
	sysctlhold_init(&h);
	assert_int_equal(sysctlhold_set(&p.s, &h, 1, &was, err, sizeof err), 0);
	a = other_start(&p);
	assert_int_equal(sysctlhold_release(&p.s, &h, &v), 2);
	assert_int_equal(v, a.pid);
	assert_int_equal(value_of(&p), 1);
	other_end(&a, 'r');
	assert_int_equal(value_of(&p), 0);
	place_remove(&p);
}

/* A run that died holding it: the value stays (nothing could run), and the
 * next run to hold it puts back the value from before the dead one. */
static void test_dead_holder(void **state)
{
	(void)state;
	struct place p;
	struct sysctl_hold h;
	char err[128];
	int was = -1, v = -1;
	struct stat st;
	place_make(&p, "0\n");
	struct other a = other_start(&p);
	other_end(&a, 'x');
	assert_int_equal(value_of(&p), 1);
	assert_int_equal(stat(p.orig, &st), 0);
	assert_int_equal(sysctlhold_others(&p.s, &v), 0); /* found dead, its file gone */
	sysctlhold_init(&h);
	assert_int_equal(sysctlhold_set(&p.s, &h, 1, &was, err, sizeof err), 0);
	assert_int_equal(was, 1);
	assert_int_equal(sysctlhold_release(&p.s, &h, &v), 1);
	assert_int_equal(v, 0);
	assert_int_equal(value_of(&p), 0);
	place_remove(&p);
}

/* The machine had it on before any run: it stays on after the last. */
static void test_was_on(void **state)
{
	(void)state;
	struct place p;
	struct sysctl_hold h;
	char err[128];
	int was = -1, v = -1;
	place_make(&p, "1\n");
	sysctlhold_init(&h);
	assert_int_equal(sysctlhold_set(&p.s, &h, 0, &was, err, sizeof err), 0);
	assert_int_equal(value_of(&p), 0);
	assert_int_equal(sysctlhold_release(&p.s, &h, &v), 1);
	assert_int_equal(v, 1);
	assert_int_equal(value_of(&p), 1);
	place_remove(&p);
}

/* A record directory open to others is not trusted: the run keeps its own
 * record, as a single run did. */
static void test_dir_not_private(void **state)
{
	(void)state;
	struct place p;
	struct sysctl_hold h;
	char err[128];
	int was = -1, v = -1;
	struct stat st;
	place_make(&p, "0\n");
	assert_int_equal(mkdir(p.dir, 0777), 0);
	assert_int_equal(chmod(p.dir, 0777), 0);
	sysctlhold_init(&h);
	assert_int_equal(sysctlhold_set(&p.s, &h, 1, &was, err, sizeof err), 0);
	assert_int_not_equal(stat(p.orig, &st), 0);
	assert_int_equal(sysctlhold_release(&p.s, &h, &v), 1);
	assert_int_equal(value_of(&p), 0);
	place_remove(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alone),       cmocka_unit_test(test_two_runs),
		cmocka_unit_test(test_dead_holder), cmocka_unit_test(test_was_on),
		cmocka_unit_test(test_dir_not_private),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
