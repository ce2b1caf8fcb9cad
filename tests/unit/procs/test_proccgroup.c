/* Unit tests: each task's cgroup (proccgroup.c): read when the task is
 * first seen, carried while it does nothing (no file read), read again
 * only when it moved bytes and its path is PROCS_CGROUP_REREAD_S old; a
 * new task under a reused pid read afresh; the paths kept once each; a
 * process that ended remembered with its cgroup (the writer whose pages
 * are written after it ended); none of it while cgroups are off (no
 * file read), and a row given its cgroup at once when they come on; a
 * cgroup id (the BPF part's) named by its kept path, found by a walk of
 * the v2 tree at most PROCCGROUP_WALKS a refresh, nothing while cgroups
 * are off; paths nothing points at forgotten once the store has grown,
 * the rest moved with every pointer to them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procs/procparts.h"
#include "read/cgroup.h"

static const char *FAKE = "not/read.service"; /* what a read would replace */

/* This process's cgroup as /proc says it, relative to the v2 root. */
static int own_cgroup(char *path, size_t len)
{
	return procfiles_read_cgroup(getpid(), getpid(), 0, path, len);
}

static void test_reread_policy(void **state)
{
	(void)state;
	char mine[CGROUP_PATH_MAX];
	if (own_cgroup(mine, sizeof mine) < 0)
		skip(); /* no cgroup v2 here */
	struct procs *p = calloc(1, sizeof *p);
	assert_non_null(p);
	procs_use_cgroups(p, 1);
	struct reading rd = {.up = 1000};
	struct proc_seen old = {.id = getpid(), .start = 7}, e = {.id = getpid(), .start = 7};
	struct proc_row r = {.pid = getpid(), .tid = getpid()};
	/* first seen: read */
	proccgroup_fill(p, &rd, NULL, &e, 0, &r);
	assert_non_null(r.cgroup);
	assert_string_equal(r.cgroup, mine);
	assert_int_equal(r.cgroup_src, CGSRC_LIVE);
	const char *kept = r.cgroup;
	/* seen before, carried (procseen_carry): no read, moved or not, within 5 s */
	old.cgroup = e.cgroup = FAKE;
	old.cgroup_at = e.cgroup_at = 1000;
	rd.up = 1000 + PROCS_CGROUP_REREAD_S - 1;
	proccgroup_fill(p, &rd, &old, &e, 1, &r);
	assert_ptr_equal(r.cgroup, FAKE);
	/* idle for long: still no read */
	rd.up = 1000 + 100 * PROCS_CGROUP_REREAD_S;
	proccgroup_fill(p, &rd, &old, &e, 0, &r);
	assert_ptr_equal(r.cgroup, FAKE);
	/* moved bytes, path old: read again, the same kept copy */
	proccgroup_fill(p, &rd, &old, &e, 1, &r);
	assert_ptr_equal(r.cgroup, kept);
	assert_true(e.cgroup_at == (float)rd.up);
	/* a reused pid (another start time): read afresh */
	e = (struct proc_seen){.id = getpid(), .start = 8, .cgroup = FAKE, .cgroup_at = rd.up};
	proccgroup_fill(p, &rd, &old, &e, 0, &r);
	assert_ptr_equal(r.cgroup, kept);
	proccgroup_free(p);
	free(p);
}

static void test_ended(void **state)
{
	(void)state;
	char mine[CGROUP_PATH_MAX];
	if (own_cgroup(mine, sizeof mine) < 0)
		skip();
	struct procs *p = calloc(1, sizeof *p);
	assert_non_null(p);
	procs_use_cgroups(p, 1);
	struct reading rd = {.up = 10};
	struct proc_seen prev[2] = {{.id = getpid(), .start = 1}, {.id = getpid() + 1, .start = 1}};
	struct proc_seen cur[1] = {{.id = getpid(), .start = 1}};
	struct proc_row r = {.pid = getpid(), .tid = getpid()};
	proccgroup_fill(p, &rd, NULL, &prev[0], 0, &r);
	prev[1].cgroup = prev[0].cgroup;
	p->prev = prev;
	p->nprev = 2;
	p->cur = cur;
	p->ncur = 1;
	assert_null(proccgroup_last(p, getpid() + 1));
	proccgroup_note_ended(p); /* getpid() + 1 is gone from cur */
	assert_ptr_equal(proccgroup_last(p, getpid() + 1), prev[0].cgroup);
	assert_null(proccgroup_last(p, getpid())); /* it lives */
	p->prev = p->cur = NULL;
	proccgroup_free(p);
	free(p);
}

/* Off (nobody shows or writes cgroups): no task's file is read, not even
 * a new one's; on between two readings, procs_cgroup_now reads a row's
 * at once, and the next reading carries it without a read. */
static void test_off_then_now(void **state)
{
	(void)state;
	char mine[CGROUP_PATH_MAX];
	if (own_cgroup(mine, sizeof mine) < 0)
		skip();
	struct procs *p = calloc(1, sizeof *p);
	assert_non_null(p);
	struct reading rd = {.up = 100};
	struct proc_seen e = {.id = getpid(), .start = 7};
	struct proc_row r = {.pid = getpid(), .tid = getpid(), .start = 7};
	proccgroup_fill(p, &rd, NULL, &e, 1, &r);
	assert_null(r.cgroup);
	assert_int_equal(r.cgroup_src, CGSRC_UNKNOWN);
	assert_true(e.cgroup_at == 0);
	assert_null(p->cg); /* not a path kept */
	p->prev = &e;
	p->nprev = 1;
	procs_cgroup_now(p, &r); /* still off: nothing */
	assert_null(r.cgroup);
	procs_use_cgroups(p, 1);
	procs_cgroup_now(p, &r);
	assert_non_null(r.cgroup);
	assert_string_equal(r.cgroup, mine);
	assert_int_equal(r.cgroup_src, CGSRC_LIVE);
	assert_true(e.cgroup_at > 0);
	/* the next reading carries it (procseen_carry), no read */
	struct proc_seen next = e;
	next.cgroup = FAKE;
	struct proc_row r2 = r;
	rd.up = e.cgroup_at + 1;
	proccgroup_fill(p, &rd, &e, &next, 1, &r2);
	assert_ptr_equal(r2.cgroup, FAKE);
	p->prev = NULL;
	proccgroup_free(p);
	free(p);
}

/* The id of this process's cgroup: its directory's inode number. */
static uint64_t own_cgroup_id(const char *mine)
{
	char mount[CGROUP_PATH_MAX], full[2 * CGROUP_PATH_MAX + 2];
	struct stat st;
	assert_int_equal(cgroup_v2_mount(mount, sizeof mount), 0);
	snprintf(full, sizeof full, "%s/%s", mount, strcmp(mine, "/") != 0 ? mine : "");
	assert_int_equal(stat(full, &st), 0);
	return (uint64_t)st.st_ino;
}

/* A reader, this process's cgroup into mine (CGROUP_PATH_MAX) and its
 * id; skipped without cgroup v2. */
static struct procs *reader_of_own(char *mine, uint64_t *id)
{
	if (own_cgroup(mine, CGROUP_PATH_MAX) < 0)
		skip();
	*id = own_cgroup_id(mine);
	struct procs *p = calloc(1, sizeof *p);
	assert_non_null(p);
	return p;
}

static void test_of_id(void **state)
{
	(void)state;
	char mine[CGROUP_PATH_MAX];
	uint64_t id;
	struct procs *p = reader_of_own(mine, &id);
	p->prev_up = 10; /* the refresh */
	assert_null(proccgroup_of_id(p, id)); /* off: no walk */
	assert_null(p->cg);
	procs_use_cgroups(p, 1);
	assert_null(proccgroup_of_id(p, 0));
	/* ids of no cgroup walk the tree; once PROCCGROUP_WALKS have, the
	 * same refresh walks no more, even for an id that would be found */
	for (uint64_t i = 0; i < PROCCGROUP_WALKS; i++)
		assert_null(proccgroup_of_id(p, UINT64_MAX - i));
	assert_null(proccgroup_of_id(p, id));
	p->prev_up = 11; /* the next refresh: found by a walk, and kept */
	const char *found = proccgroup_of_id(p, id);
	assert_non_null(found);
	assert_string_equal(found, mine);
	p->prev_up = 12;
	assert_ptr_equal(proccgroup_of_id(p, id), found);
	proccgroup_free(p);
	/* a path kept as a task's is noted with its id: no walk needed */
	struct reading rd = {.up = 100};
	struct proc_seen e = {.id = getpid(), .start = 7};
	struct proc_row r = {.pid = getpid(), .tid = getpid()};
	proccgroup_fill(p, &rd, NULL, &e, 0, &r);
	assert_non_null(r.cgroup);
	assert_ptr_equal(proccgroup_of_id(p, UINT64_MAX - 1), NULL); /* this refresh's walk */
	assert_ptr_equal(proccgroup_of_id(p, id), r.cgroup);
	proccgroup_free(p);
	free(p);
}

/* 3000 paths of cgroups made and gone (a scope per job), into the store. */
static void keep_gone_scopes(struct procs *p, int from)
{
	char path[64];
	for (int i = from; i < from + 3000; i++) {
		snprintf(path, sizeof path, "user.slice/job-%d.scope", i);
		assert_non_null(proccgroup_keep(p, path));
	}
}

/* Below the threshold nothing moves; past it, what a task, the ended
 * ring, a row of ended processes, a row of this reading and a recently
 * used id point at is kept, each holder pointed at the new copy (the
 * sanitized build catches one left pointing into the freed store), and
 * the 3000 others are forgotten; an id unused for long goes too. */
static void test_forget(void **state)
{
	(void)state;
	char mine[CGROUP_PATH_MAX];
	uint64_t id;
	struct procs *p = reader_of_own(mine, &id);
	procs_use_cgroups(p, 1);
	p->prev_up = 1000;
	struct proc_row rows[2] = {{.cgroup = proccgroup_keep(p, "a.slice/x.service")}};
	const char *a = rows[0].cgroup;
	proccgroup_forget(p, rows, 1);
	assert_ptr_equal(rows[0].cgroup, a); /* few paths: nothing moves */
	keep_gone_scopes(p, 0);
	struct proc_seen prev[1] = {{.id = 7, .cgroup = proccgroup_keep(p, "user.slice/job-1.scope")}};
	p->prev = prev;
	p->nprev = 1;
	proccgroup_note_exit(p, 42, proccgroup_keep(p, "user.slice/job-2.scope"));
	struct proc_row gone[1] = {{.exited = 1, .cgroup = proccgroup_keep(p, "user.slice/job-3.scope")}};
	p->gone = gone;
	p->ngone = 1;
	rows[1].cgroup = proccgroup_keep(p, "user.slice/job-4.scope");
	assert_non_null(proccgroup_of_id(p, id)); /* used at 1000 */
	size_t before = proccgroup_kept(p);
	assert_true(before >= 3001);
	p->prev_up = 1060;
	proccgroup_forget(p, rows, 2);
	assert_int_equal(proccgroup_kept(p), 6); /* x, job-1..4, mine */
	assert_string_equal(rows[0].cgroup, "a.slice/x.service");
	assert_string_equal(prev[0].cgroup, "user.slice/job-1.scope");
	assert_string_equal(proccgroup_last(p, 42), "user.slice/job-2.scope");
	assert_string_equal(gone[0].cgroup, "user.slice/job-3.scope");
	assert_string_equal(rows[1].cgroup, "user.slice/job-4.scope");
	/* the same path is the same pointer, in the new store */
	assert_ptr_equal(proccgroup_keep(p, "user.slice/job-1.scope"), prev[0].cgroup);
	assert_ptr_equal(proccgroup_keep(p, "a.slice/x.service"), rows[0].cgroup);
	assert_int_equal(proccgroup_kept(p), 6);
	const char *kept_mine = proccgroup_of_id(p, id); /* noted: no walk */
	assert_non_null(kept_mine);
	assert_string_equal(kept_mine, mine);
	/* nothing points at most of it any more, and the id is long unused */
	p->nprev = p->ngone = 0;
	keep_gone_scopes(p, 3000);
	p->prev_up = 5000;
	proccgroup_forget(p, rows, 2);
	assert_int_equal(proccgroup_kept(p), 3); /* x, job-4, and job-2 in the ended ring */
	assert_string_equal(rows[1].cgroup, "user.slice/job-4.scope");
	p->prev = NULL;
	p->gone = NULL;
	proccgroup_free(p);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reread_policy),
		cmocka_unit_test(test_ended),
		cmocka_unit_test(test_off_then_now),
		cmocka_unit_test(test_of_id),
		cmocka_unit_test(test_forget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
