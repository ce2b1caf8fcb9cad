/* Unit tests: a reading of the task walk merged into the last one's table
 * (taskmerge.h): unchanged tasks keep their entries, changed ones take the
 * new, ended ones are forgotten (and said so), new ones fill the places of
 * ended ones in place or go after the last; a new task before an entry not
 * merged yet moves the reading to a new table without losing or mixing an
 * entry; an unchanged task not known is forgotten; a failed reading leaves
 * an empty table; records out of order still give a sorted table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "bpf/taskmerge.h"

struct forgotten {
	int tid[16];
	int n;
};

static void note(void *ctx, int tid)
{
	struct forgotten *f = ctx;
	if (f->n < 16)
		f->tid[f->n++] = tid;
}

static struct task_info task(int tid, uint64_t wbytes)
{
	return (struct task_info){.tid = tid, .tgid = tid, .wbytes = wbytes};
}

/* A table holding tids with wbytes = tid * 10, as a first reading makes it. */
static void start(struct taskmerge *m, struct forgotten *f, const int *tids, size_t n)
{
	memset(m, 0, sizeof *m);
	memset(f, 0, sizeof *f);
	m->forget = note;
	m->ctx = f;
	taskmerge_begin(m);
	for (size_t i = 0; i < n; i++) {
		struct task_info t = task(tids[i], (uint64_t)tids[i] * 10);
		assert_int_equal(taskmerge_add(m, tids[i], &t), 0);
	}
	taskmerge_end(m, 1);
	assert_int_equal(m->n, n);
}

static void expect(const struct taskmerge *m, const int *tids, const uint64_t *wbytes, size_t n)
{
	assert_int_equal(m->n, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(m->tab[i].tid, tids[i]);
		assert_int_equal(m->tab[i].wbytes, wbytes[i]);
	}
}

static void test_in_place(void **state)
{
	(void)state;
	struct taskmerge m;
	struct forgotten f;
	const int first[] = {1, 2, 3, 5};
	start(&m, &f, first, 4);
	struct task_info *before = m.tab;
	taskmerge_begin(&m);
	struct task_info two = task(2, 99), four = task(4, 7);
	assert_int_equal(taskmerge_add(&m, 1, NULL), 0);
	assert_int_equal(taskmerge_add(&m, 2, &two), 0);
	assert_int_equal(taskmerge_add(&m, 4, &four), 0); /* 3 ended: 4 takes a place */
	assert_int_equal(taskmerge_add(&m, 5, NULL), 0);
	taskmerge_end(&m, 1);
	const int tids[] = {1, 2, 4, 5};
	const uint64_t w[] = {10, 99, 7, 50};
	expect(&m, tids, w, 4);
	assert_ptr_equal(m.tab, before); /* no new table */
	assert_null(m.fresh);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.tid[0], 3);
	taskmerge_free(&m);
}

static void test_new_after_last(void **state)
{
	(void)state;
	struct taskmerge m;
	struct forgotten f;
	const int first[] = {10, 20};
	start(&m, &f, first, 2);
	taskmerge_begin(&m);
	struct task_info t30 = task(30, 3), t40 = task(40, 4);
	assert_int_equal(taskmerge_add(&m, 10, NULL), 0);
	assert_int_equal(taskmerge_add(&m, 20, NULL), 0);
	assert_int_equal(taskmerge_add(&m, 30, &t30), 0);
	assert_int_equal(taskmerge_add(&m, 40, &t40), 0);
	taskmerge_end(&m, 1);
	const int tids[] = {10, 20, 30, 40};
	const uint64_t w[] = {100, 200, 3, 4};
	expect(&m, tids, w, 4);
	assert_int_equal(f.n, 0);
	taskmerge_free(&m);
}

/* A new task whose place is an entry not merged yet: the entries after
 * it must still be read from the old table. */
static void test_new_in_between(void **state)
{
	(void)state;
	struct taskmerge m;
	struct forgotten f;
	const int first[] = {1, 3, 5, 7};
	start(&m, &f, first, 4);
	taskmerge_begin(&m);
	struct task_info t2 = task(2, 2), t4 = task(4, 4), t7 = task(7, 77);
	assert_int_equal(taskmerge_add(&m, 1, NULL), 0);
	assert_int_equal(taskmerge_add(&m, 2, &t2), 0);
	assert_int_equal(taskmerge_add(&m, 3, NULL), 0);
	assert_int_equal(taskmerge_add(&m, 4, &t4), 0);
	assert_int_equal(taskmerge_add(&m, 5, NULL), 0);
	assert_int_equal(taskmerge_add(&m, 7, &t7), 0);
	taskmerge_end(&m, 1);
	const int tids[] = {1, 2, 3, 4, 5, 7};
	const uint64_t w[] = {10, 2, 30, 4, 50, 77};
	expect(&m, tids, w, 6);
	assert_null(m.fresh);
	assert_int_equal(f.n, 0);
	/* and the next reading merges into that table */
	taskmerge_begin(&m);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(taskmerge_add(&m, tids[i], NULL), 0);
	taskmerge_end(&m, 1);
	expect(&m, tids, w, 6);
	taskmerge_free(&m);
}

static void test_ended_at_end_and_unknown(void **state)
{
	(void)state;
	struct taskmerge m;
	struct forgotten f;
	const int first[] = {1, 2, 3};
	start(&m, &f, first, 3);
	taskmerge_begin(&m);
	assert_int_equal(taskmerge_add(&m, 1, NULL), 0);
	assert_int_equal(taskmerge_add(&m, 9, NULL), 0); /* unchanged, never sent whole: unknown */
	taskmerge_end(&m, 1);
	const int tids[] = {1};
	const uint64_t w[] = {10};
	expect(&m, tids, w, 1);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.tid[0], 2);
	assert_int_equal(f.tid[1], 3);
	assert_int_equal(f.tid[2], 9);
	taskmerge_free(&m);
}

static void test_failed_and_unordered(void **state)
{
	(void)state;
	struct taskmerge m;
	struct forgotten f;
	const int first[] = {4, 8};
	start(&m, &f, first, 2);
	taskmerge_begin(&m);
	assert_int_equal(taskmerge_add(&m, 4, NULL), 0);
	taskmerge_end(&m, 0);
	assert_int_equal(m.n, 0);
	/* whole records out of order: kept, and the table sorted */
	taskmerge_begin(&m);
	struct task_info t9 = task(9, 9), t3 = task(3, 3);
	assert_int_equal(taskmerge_add(&m, 9, &t9), 0);
	assert_int_equal(taskmerge_add(&m, 3, &t3), 0);
	taskmerge_end(&m, 1);
	const int tids[] = {3, 9};
	const uint64_t w[] = {3, 9};
	expect(&m, tids, w, 2);
	taskmerge_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_place),
		cmocka_unit_test(test_new_after_last),
		cmocka_unit_test(test_new_in_between),
		cmocka_unit_test(test_ended_at_end_and_unknown),
		cmocka_unit_test(test_failed_and_unordered),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
