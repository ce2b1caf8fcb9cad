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
	char top[256], file[320], dir[320], orig[384];
	struct sysctl_share s;
};

/* The setting's file holds value. */
static void place_set(const struct place *p, const char *value)
{
	FILE *f = fopen(p->file, "w");
	assert_non_null(f);
	fputs(value, f);
	fclose(f);
}

static void place_make(struct place *p, const char *value)
{
	const char *tmp = getenv("IOSCHED_TEST_TMP"); /* the suite's, where it checks for leftovers */
	snprintf(p->top, sizeof p->top, "%s/iosched-sysctlhold.XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(p->top));
	snprintf(p->file, sizeof p->file, "%s/task_delayacct", p->top);
	snprintf(p->dir, sizeof p->dir, "%s/run", p->top);
	snprintf(p->orig, sizeof p->orig, "%s/task_delayacct.orig", p->dir);
	place_set(p, value);
	p->s = (struct sysctl_share){.sysctl = p->file, .dir = p->dir, .stem = "task_delayacct"};
}

static void place_remove(struct place *p)
{
	char cmd[300];
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

/* Each test's place (the setting at 0), this run's hold, and what the
 * calls give back. */
struct fix {
	struct place p;
	struct sysctl_hold h;
	char err[128];
	int was, v;
};

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof *f);
	assert_non_null(f);
	place_make(&f->p, "0\n");
	sysctlhold_init(&f->h);
	f->was = f->v = -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;
	place_remove(&f->p);
	free(f);
	return 0;
}

/* This run sets value (0 expected back), *was what it found. */
static void set(struct fix *f, int value)
{
	assert_int_equal(sysctlhold_set(&f->p.s, &f->h, value, &f->was, f->err, sizeof f->err), 0);
}

static void test_alone(void **state)
{
	struct fix *f = *state;
	struct stat st;
	assert_int_equal(sysctlhold_release(&f->p.s, &f->h, &f->v), 0); /* held nothing */
	set(f, 1);
	assert_int_equal(f->was, 0);
	assert_int_equal(value_of(&f->p), 1);
	assert_int_equal(stat(f->p.orig, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(f->p.dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(sysctlhold_others(&f->p.s, &f->v), 0);
	/* Off and on again: still the one hold, the first value kept. */
	set(f, 0);
	set(f, 1);
	assert_int_equal(sysctlhold_release(&f->p.s, &f->h, &f->v), 1);
	assert_int_equal(f->v, 0);
	assert_int_equal(value_of(&f->p), 0);
	assert_int_not_equal(stat(f->p.orig, &st), 0); /* the record went with the last holder */
	assert_int_equal(sysctlhold_release(&f->p.s, &f->h, &f->v), 0);
}

/* Two runs: A (the child) first, then B; A ends first and leaves it on;
 * B's end puts back the 0 from before A. Then the other way round. */
static void test_two_runs(void **state)
{
	struct fix *f = *state;
	struct other a = other_start(&f->p);
	assert_int_equal(value_of(&f->p), 1);
	set(f, 1);
	assert_int_equal(f->was, 1);
	assert_int_equal(sysctlhold_others(&f->p.s, &f->v), 1);
	assert_int_equal(f->v, a.pid);
	other_end(&a, 'r');
	assert_int_equal(value_of(&f->p), 1); /* A's end left it on for B */
	assert_int_equal(sysctlhold_others(&f->p.s, &f->v), 0);
	assert_int_equal(sysctlhold_release(&f->p.s, &f->h, &f->v), 1);
	assert_int_equal(f->v, 0);
	assert_int_equal(value_of(&f->p), 0);

	/* B first, A last: B's end says A holds it; A's end puts 0 back. */
	sysctlhold_init(&f->h);
	set(f, 1);
	a = other_start(&f->p);
	assert_int_equal(sysctlhold_release(&f->p.s, &f->h, &f->v), 2);
	assert_int_equal(f->v, a.pid);
	assert_int_equal(value_of(&f->p), 1);
	other_end(&a, 'r');
	assert_int_equal(value_of(&f->p), 0);
}

/* A run that died holding it: the value stays (nothing could run), and the
 * next run to hold it puts back the value from before the dead one. */
static void test_dead_holder(void **state)
{
	struct fix *f = *state;
	struct stat st;
	struct other a = other_start(&f->p);
	other_end(&a, 'x');
	assert_int_equal(value_of(&f->p), 1);
	assert_int_equal(stat(f->p.orig, &st), 0);
	assert_int_equal(sysctlhold_others(&f->p.s, &f->v), 0); /* found dead, its file gone */
	set(f, 1);
	assert_int_equal(f->was, 1);
	assert_int_equal(sysctlhold_release(&f->p.s, &f->h, &f->v), 1);
	assert_int_equal(f->v, 0);
	assert_int_equal(value_of(&f->p), 0);
}

/* The machine had it on before any run: it stays on after the last. */
static void test_was_on(void **state)
{
	struct fix *f = *state;
	place_set(&f->p, "1\n");
	set(f, 0);
	assert_int_equal(value_of(&f->p), 0);
	assert_int_equal(sysctlhold_release(&f->p.s, &f->h, &f->v), 1);
	assert_int_equal(f->v, 1);
	assert_int_equal(value_of(&f->p), 1);
}

/* A record directory open to others is not trusted: the run keeps its own
 * record, as a single run did. */
static void test_dir_not_private(void **state)
{
	struct fix *f = *state;
	struct stat st;
	assert_int_equal(mkdir(f->p.dir, 0777), 0);
	assert_int_equal(chmod(f->p.dir, 0777), 0);
	set(f, 1);
	assert_int_not_equal(stat(f->p.orig, &st), 0);
	assert_int_equal(sysctlhold_release(&f->p.s, &f->h, &f->v), 1);
	assert_int_equal(value_of(&f->p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dead_holder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_was_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_not_private, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
