/* Unit tests: the rows summed per cgroup (samplecgroups.c), on hand-made
 * rows: bytes and processes per cgroup, ended rows' bytes counted in the
 * interval they are of (and not their process), thread rows counted once,
 * the same path from two copies (a replay's rows) one cgroup, each row's
 * cgroup source worded in its cgroup's source, rows of no
 * known cgroup in one of their own, TO-DISK unknown without BPF, the
 * busiest first, the list bounded with the rest summed, names shortened. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "model/sampleparts.h"

#define DOCKER "system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope"

static struct proc_row row(int pid, const char *cg, double r, double w, double td)
{
	return (struct proc_row){.pid = pid, .tid = pid, .cgroup = cg, .read_Bps = r, .write_Bps = w, .to_disk_Bps = td};
}

static const struct cgroup_sample *find(const struct cgroup_sample *c, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(c[i].path, path) == 0)
			return &c[i];
	return NULL;
}

static void test_sums(void **state)
{
	(void)state;
	char a2[] = "test.slice/a.service"; /* another copy of the same path */
	struct proc_row rows[] = {
		row(10, "test.slice/a.service", 0, 1000, 0),
		row(11, a2, 500, 0, 0),
		row(12, "test.slice/b.service", 0, 3000, 4000),
		row(13, "/", 0, 0, 0),
		row(14, NULL, 0, 0, 100),           /* a writer that ended unseen */
		row(15, "test.slice/a.service", 0, 200, 50),
		row(16, "test.slice/a.service", 0, 7000, 7000),
		row(10, "test.slice/a.service", 0, 0, -1), /* a thread of 10 */
		row(17, DOCKER, 10, 0, 0),
		row(18, "test.slice/b.service", 0, 0, 500), /* a writer that ended, named by the BPF part's id */
	};
	rows[5].exited = 1;      /* ended in this interval: its bytes count, it is no process */
	rows[5].cgroup_src = CGSRC_LAST;
	rows[6].exited = 1;      /* ended two intervals ago: nothing of it counts */
	rows[6].ended_ago = 2;
	rows[7].tid = 20;
	rows[4].exited = 1;
	rows[4].cgroup_src = CGSRC_UNKNOWN;
	rows[9].exited = 1;
	rows[9].cgroup_src = CGSRC_DIRTIER;
	struct cgroup_sample out[8];
	struct cgroup_rest rest;
	size_t n = samplecgroups_aggregate(rows, sizeof rows / sizeof *rows, out, 8, &rest);
	assert_int_equal(n, 5);
	assert_int_equal(rest.n, 0);
	const struct cgroup_sample *a = find(out, n, "test.slice/a.service");
	assert_non_null(a);
	assert_int_equal(a->procs, 2);
	assert_true(a->read_Bps == 500 && a->write_Bps == 1200 && a->to_disk_Bps == 50);
	assert_string_equal(a->unit, "a.service");
	assert_string_equal(a->parent, "test.slice");
	assert_non_null(strstr(a->source, "last seen in"));
	const struct cgroup_sample *b = find(out, n, "test.slice/b.service");
	assert_non_null(b);
	assert_true(b->procs == 1 && b->write_Bps == 3000 && b->to_disk_Bps == 4500);
	assert_non_null(strstr(b->source, "ended writers: the cgroup they dirtied the pages in (BPF)"));
	assert_null(strstr(a->source, "dirtied the pages in"));
	assert_ptr_equal(&out[0], b); /* the busiest first */
	assert_ptr_equal(&out[1], a);
	const struct cgroup_sample *u = find(out, n, "");
	assert_non_null(u);
	assert_string_equal(u->unit, "?");
	assert_true(u->procs == 0 && u->to_disk_Bps == 100);
	const struct cgroup_sample *d = find(out, n, DOCKER);
	assert_non_null(d);
	assert_string_equal(d->unit, "docker:0123456789ab");
	const struct cgroup_sample *root = find(out, n, "/");
	assert_non_null(root);
	assert_true(root->procs == 1 && root->read_Bps == 0);
	assert_ptr_equal(&out[n - 1], root); /* no bytes: last */
	assert_int_equal(root->bfq_weight, -1);
	assert_true(root->some_pct < 0); /* not read here */
}

static void test_bounded(void **state)
{
	(void)state;
	struct proc_row rows[] = {
		row(1, "a", 0, 100, -1), row(2, "b", 0, 300, -1), row(3, "c", 0, 200, -1), row(4, "d", 50, 0, -1),
	};
	struct cgroup_sample out[2];
	struct cgroup_rest rest;
	size_t n = samplecgroups_aggregate(rows, 4, out, 2, &rest);
	assert_int_equal(n, 2);
	assert_string_equal(out[0].path, "b");
	assert_string_equal(out[1].path, "c");
	assert_true(out[0].to_disk_Bps < 0); /* no BPF: not known, not 0 */
	assert_int_equal(rest.n, 2);
	assert_true(rest.write_Bps == 100 && rest.read_Bps == 50);
	assert_int_equal(samplecgroups_aggregate(rows, 0, out, 2, &rest), 0);
	assert_int_equal(rest.n, 0);
}

/* I/O wait: the measured rows' io_wait_pct summed; a row with no waits
 * (or async I/O) makes it known; rows without delay accounting's figure
 * (off, or started before it was on) leave it unknown: -1, not 0. */
static void test_wait(void **state)
{
	(void)state;
	struct proc_row rows[] = {
		row(1, "w.service", 100, 0, -1), row(2, "w.service", 100, 0, -1), row(3, "w.service", 0, 0, -1),
		row(4, "idle.service", 0, 0, -1), row(5, "off.service", 10, 0, -1), row(6, "before.service", 0, 0, -1),
	};
	rows[0].wait = rows[1].wait = WAIT_OK;
	rows[0].io_wait_pct = 60;
	rows[1].io_wait_pct = 35.5;
	rows[2].wait = WAIT_BEFORE;
	rows[2].io_wait_pct = 99; /* not a figure: never summed */
	rows[3].wait = WAIT_NONE;
	rows[4].wait = WAIT_OFF;
	rows[5].wait = WAIT_BEFORE;
	struct cgroup_sample out[8];
	struct cgroup_rest rest;
	size_t n = samplecgroups_aggregate(rows, 6, out, 8, &rest);
	assert_int_equal(n, 4);
	const struct cgroup_sample *w = find(out, n, "w.service"), *idle = find(out, n, "idle.service"),
				   *off = find(out, n, "off.service"), *before = find(out, n, "before.service");
	assert_true(w && idle && off && before);
	assert_true(w->io_wait_pct == 95.5);
	assert_true(idle->io_wait_pct == 0);
	assert_true(off->io_wait_pct < 0);
	assert_true(before->io_wait_pct < 0);
	const char *why = "io_wait: not known (delay accounting is off, or was turned on after";
	assert_non_null(strstr(off->source, why));
	assert_non_null(strstr(w->source, "io_wait: delay accounting of its processes"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sums),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_wait),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
