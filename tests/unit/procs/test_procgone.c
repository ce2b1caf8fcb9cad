/* Unit tests: ended processes made into [exited] rows (procgone.c), from
 * settled exit records: records of one parent, user, cgroup and name share
 * a row (a count, the bytes added); another user's process of the same
 * name and parent (an orphan: orphans share their reaper as parent) gets a
 * row of its own, under its own user, so it cannot add its bytes to a
 * victim's row; rows linger EXIT_LINGER refreshes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "procs/procparts.h"

static struct procs *procs_with(const struct procexit_row *x, size_t n)
{
	struct procs *p = calloc(1, sizeof *p);
	assert_non_null(p);
	p->settled = calloc(n, sizeof *p->settled);
	assert_non_null(p->settled);
	memcpy(p->settled, x, n * sizeof *x);
	p->settled_cap = n;
	return p;
}

static void procs_done(struct procs *p)
{
	free(p->settled);
	free(p->gone);
	free(p->users);
	util_texts_free(&p->user_texts);
	free(p);
}

static struct procexit_row ended(int pid, unsigned uid, const char *comm, uint64_t wbytes)
{
	struct procexit_row r = {.pid = pid, .ppid = 1, .uid = uid, .cgroup = NULL};
	util_strlcpy(r.comm, comm, sizeof r.comm);
	r.last.wbytes = wbytes;
	return r;
}

static const struct proc_row *row_of(const struct procs *p, unsigned uid, const char *comm)
{
	for (size_t i = 0; i < p->ngone; i++)
		if (p->gone[i].uid == uid && strcmp(p->gone[i].comm, comm) == 0)
			return &p->gone[i];
	return NULL;
}

static void test_same_user_grouped(void **state)
{
	(void)state;
	struct procexit_row x[] = {ended(100, 1, "logrotate", 1 << 20), ended(101, 1, "logrotate", 1 << 20)};
	struct procs *p = procs_with(x, 2);
	procgone_add(p, 2, 1.0, NULL);
	assert_int_equal(p->ngone, 1);
	const struct proc_row *r = row_of(p, 1, "logrotate");
	assert_non_null(r);
	assert_int_equal(r->count, 2);
	assert_true(r->write_Bps == 2.0 * (1 << 20));
	assert_int_equal(r->pid, 101);
	procs_done(p);
}

static void test_other_user_apart(void **state)
{
	(void)state;
	struct procexit_row x[] = {ended(100, 1, "logrotate", 1 << 20), ended(200, 65534, "logrotate", 200u << 20)};
	struct procs *p = procs_with(x, 2);
	procgone_add(p, 2, 1.0, NULL);
	assert_int_equal(p->ngone, 2);
	const struct proc_row *v = row_of(p, 1, "logrotate"), *a = row_of(p, 65534, "logrotate");
	assert_non_null(v);
	assert_non_null(a);
	assert_int_equal(v->count, 1);
	assert_int_equal(v->pid, 100);
	assert_true(v->write_Bps == (double)(1 << 20));
	assert_int_equal(a->count, 1);
	assert_int_equal(a->pid, 200);
	assert_true(a->write_Bps == (double)(200u << 20));
	assert_string_not_equal(v->user, a->user);
	procs_done(p);
}

static void test_rows_linger(void **state)
{
	(void)state;
	struct procexit_row x[] = {ended(100, 1, "job", 4096)};
	struct procs *p = procs_with(x, 1);
	procgone_add(p, 1, 1.0, NULL);
	for (int i = 1; i < EXIT_LINGER; i++) { /* shown EXIT_LINGER refreshes in all */
		procgone_add(p, 0, 1.0, NULL);
		assert_int_equal(p->ngone, 1);
	}
	procgone_add(p, 0, 1.0, NULL);
	assert_int_equal(p->ngone, 0);
	procs_done(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_user_grouped),
		cmocka_unit_test(test_other_user_apart),
		cmocka_unit_test(test_rows_linger),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
