/* Unit tests: exit records turned into accounting (procexit.h), on
 * synthetic records and /proc readings: a shell's short-lived children
 * charged to them, not to the shell; a three-level tree where each is
 * charged its own bytes and none twice; a child whose parent ended
 * without waiting for it is taken out of the reaper the kernel gave it to
 * (init), not shown as its writes; a process seen alive before it
 * ended gets only its last interval; a zombie waits until reaped; threads
 * add up under their process; a process whose leader record was lost is
 * let go; a burst larger than the room for rows waits, none dropped; and
 * the shell's rate, through procs_rates, is its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "procs/procexit.h"
#include "procs/procs.h"
#include "read/taskstats.h"
#include "base/util.h"

#define MIB (1024ull * 1024)

static struct ts_record rec(uint32_t pid, uint32_t tgid, uint32_t ppid, const char *comm, uint64_t wbytes)
{
	struct ts_record r = {.version = 16, .pid = pid, .tgid = tgid, .ppid = ppid, .write_bytes = wbytes,
			      .write_syscalls = wbytes / 4096, .group_last = pid == tgid || !tgid,
			      .ended_after = 1.0, .read_at = 1.0}; /* started at 1 s, as proc()'s, and ended then */
	util_strlcpy(r.comm, comm, sizeof r.comm);
	return r;
}

/* Listings' start times are in ticks of 1/100 s; the machine never slept. */
static struct procexit fresh(void)
{
	return (struct procexit){.hz = 100};
}

static struct proc_seen proc(int id, int ppid, uint64_t wbytes)
{
	struct proc_seen e = {.id = id, .ppid = ppid, .start = 100};
	e.c.wbytes = wbytes;
	return e;
}

static const struct procexit_row *row_of(const struct procexit_row *rows, size_t n, int pid)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].pid == pid)
			return &rows[i];
	return NULL;
}

/* A shell (pid 10) ran three dd (20, 21, 22) of 1 MiB each between two
 * readings: its /proc io grew by their 3 MiB and 4 KiB of its own. */
static void test_short_children(void **state)
{
	(void)state;
	struct procexit x = fresh();
	for (uint32_t pid = 20; pid <= 22; pid++) {
		struct ts_record r = rec(pid, pid, 10, "dd", MIB);
		assert_int_equal(procexit_add(&x, &r, 1.0), 0);
	}
	struct proc_seen prev[] = {proc(1, 0, 0), proc(10, 1, 4096)};
	struct proc_seen cur[] = {proc(1, 0, 0), proc(10, 1, 4096 + 4096 + 3 * MIB)};
	struct procexit_row rows[8];
	size_t n = procexit_settle(&x, cur, 2, prev, 2, 1.5, 5, rows, 8);
	assert_int_equal(n, 3);
	for (int pid = 20; pid <= 22; pid++) {
		const struct procexit_row *r = row_of(rows, n, pid);
		assert_non_null(r);
		assert_string_equal(r->comm, "dd");
		assert_int_equal(r->ppid, 10);
		assert_int_equal(r->last.wbytes, MIB);
	}
	assert_int_equal(procexit_reaped_now(&cur[1]).wbytes, 3 * MIB);
	assert_int_equal(procexit_reaped_cum(&cur[1]).wbytes, 3 * MIB);
	assert_int_equal(x.n, 0);
	/* The shell's rate is its own 4 KiB per second. */
	struct proc_row out = {0};
	procs_rates(&prev[1], &cur[1], 1.0, 0, &out);
	assert_true(out.write_Bps > 4095 && out.write_Bps < 4097);
	procexit_free_reaped(prev, sizeof prev / sizeof prev[0]);
	procexit_free_reaped(cur, sizeof cur / sizeof cur[0]);
	procexit_free(&x);
}

/* P (10, alive) -> C (20) -> G (30): G ended and C reaped it, then C
 * ended and P reaped it, all in one interval. Records come G, then C. */
static void test_three_levels(void **state)
{
	(void)state;
	struct procexit x = fresh();
	struct ts_record g = rec(30, 30, 20, "grandchild", 1 * MIB), c = rec(20, 20, 10, "child", 2 * MIB);
	assert_int_equal(procexit_add(&x, &g, 1.0), 0);
	assert_int_equal(procexit_add(&x, &c, 1.1), 0);
	struct proc_seen prev[] = {proc(10, 1, 0)};
	struct proc_seen cur[] = {proc(10, 1, 3 * MIB)};
	struct procexit_row rows[8];
	size_t n = procexit_settle(&x, cur, 1, prev, 1, 1.5, 5, rows, 8);
	assert_int_equal(n, 2);
	assert_int_equal(row_of(rows, n, 30)->last.wbytes, 1 * MIB);
	assert_int_equal(row_of(rows, n, 20)->last.wbytes, 2 * MIB);
	/* P brought in both, through C: taken out once. */
	assert_int_equal(procexit_reaped_now(&cur[0]).wbytes, 3 * MIB);
	struct proc_row out = {0};
	procs_rates(&prev[0], &cur[0], 1.0, 0, &out);
	assert_true(out.write_Bps == 0);
	procexit_free_reaped(prev, sizeof prev / sizeof prev[0]);
	procexit_free_reaped(cur, sizeof cur / sizeof cur[0]);
	procexit_free(&x);
}

/* init (1) -> sh (10) -> P (20) -> C (30): C wrote 300 MiB and ended; P
 * ended without waiting for it. If P had reaped C first, sh's counters
 * jumped by both (reaper 10); else the kernel gave C to init, whose
 * counters jumped by C's when it reaped it (reaper 1). Either way the
 * reaper's rate is its own: the child's bytes are not shown as init's
 * (root's) writes. */
static void orphan_scene(int reaper, uint64_t init_own)
{
	struct procexit x = fresh();
	struct ts_record c = rec(30, 30, 20, "child", 300 * MIB), p = rec(20, 20, 10, "parent", 0);
	assert_int_equal(procexit_add(&x, &c, 1.0), 0);
	assert_int_equal(procexit_add(&x, &p, 1.1), 0);
	struct proc_seen prev[] = {proc(1, 0, 0), proc(10, 1, 0), proc(20, 10, 0)};
	struct proc_seen cur[] = {proc(1, 0, init_own), proc(10, 1, 0)};
	struct proc_seen *r = &cur[reaper == 1 ? 0 : 1];
	r->c.wbytes += 300 * MIB;
	r->c.syscw += 300 * MIB / 4096;
	struct procexit_row rows[8];
	size_t n = procexit_settle(&x, cur, 2, prev, 3, 1.5, 5, rows, 8);
	assert_int_equal(n, 2);
	assert_int_equal(row_of(rows, n, 30)->last.wbytes, 300 * MIB);
	struct proc_row out = {0};
	procs_rates(&prev[0], &cur[0], 1.0, 0, &out);
	assert_true(out.write_Bps == (double)init_own);
	procs_rates(&prev[1], &cur[1], 1.0, 0, &out);
	assert_true(out.write_Bps == 0);
	procexit_free_reaped(prev, sizeof prev / sizeof prev[0]);
	procexit_free_reaped(cur, sizeof cur / sizeof cur[0]);
	procexit_free(&x);
}

static void test_orphan_to_init(void **state)
{
	(void)state;
	orphan_scene(1, 0);
	orphan_scene(1, 2 * MIB); /* init's own writes in that interval stay its own */
}

static void test_orphan_reaped_first(void **state)
{
	(void)state;
	orphan_scene(10, 0);
	orphan_scene(10, 2 * MIB);
}

/* The same orphan, listed as a zombie after its parent ended (its parent
 * then init): the jump is init's as its parent's; sh is charged nothing
 * of it. */
static void test_orphan_listed_as_zombie(void **state)
{
	(void)state;
	struct procexit x = fresh();
	struct ts_record c = rec(30, 30, 20, "child", 300 * MIB), p = rec(20, 20, 10, "parent", 0);
	assert_int_equal(procexit_add(&x, &c, 1.0), 0);
	assert_int_equal(procexit_add(&x, &p, 1.1), 0);
	struct proc_seen zombie = proc(30, 1, 300 * MIB);
	zombie.c.syscw = 300 * MIB / 4096;
	zombie.state = 'Z';
	struct proc_seen prev[] = {proc(1, 0, 0), proc(10, 1, 0), zombie};
	struct proc_seen cur[] = {proc(1, 0, 300 * MIB), proc(10, 1, 0)};
	cur[0].c.syscw = 300 * MIB / 4096;
	struct procexit_row rows[8];
	size_t n = procexit_settle(&x, cur, 2, prev, 3, 1.5, 5, rows, 8);
	assert_int_equal(n, 2);
	assert_int_equal(procexit_reaped_now(&cur[0]).wbytes, 300 * MIB);
	assert_int_equal(procexit_reaped_now(&cur[1]).wbytes, 0);
	procexit_free_reaped(prev, sizeof prev / sizeof prev[0]);
	procexit_free_reaped(cur, sizeof cur / sizeof cur[0]);
	procexit_free(&x);
}

/* Processes no listing saw take their parent's cgroup, but not init's:
 * init forks nothing into its own, and one under it is an orphan. */
static void test_unseen_cgroup(void **state)
{
	(void)state;
	struct procexit x = fresh();
	struct ts_record a = rec(30, 30, 10, "job", MIB), b = rec(31, 31, 1, "orphan", MIB);
	assert_int_equal(procexit_add(&x, &a, 1.0), 0);
	assert_int_equal(procexit_add(&x, &b, 1.0), 0);
	struct proc_seen prev[] = {proc(1, 0, 0), proc(10, 1, 0)};
	prev[0].cgroup = "/init.scope";
	prev[1].cgroup = "/user.slice/user-1000.slice/session-1.scope";
	struct proc_seen cur[] = {proc(1, 0, MIB), proc(10, 1, MIB)};
	struct procexit_row rows[8];
	size_t n = procexit_settle(&x, cur, 2, prev, 2, 1.5, 5, rows, 8);
	assert_int_equal(n, 2);
	assert_string_equal(row_of(rows, n, 30)->cgroup, prev[1].cgroup);
	assert_int_equal(row_of(rows, n, 30)->cgroup_src, CGSRC_PARENT);
	assert_null(row_of(rows, n, 31)->cgroup);
	assert_int_equal(row_of(rows, n, 31)->cgroup_src, CGSRC_UNKNOWN);
	procexit_free_reaped(prev, sizeof prev / sizeof prev[0]);
	procexit_free_reaped(cur, sizeof cur / sizeof cur[0]);
	procexit_free(&x);
}

/* C (20) was read alive with 5 MiB written (and 1 MiB of a child it had
 * reaped); it ended with 7 MiB of its own: its last interval is 2 MiB, and
 * its parent got all it had, 8 MiB. */
static void test_seen_before(void **state)
{
	(void)state;
	struct procexit x = fresh();
	struct ts_record c = rec(20, 20, 10, "cc1", 7 * MIB);
	assert_int_equal(procexit_add(&x, &c, 1.0), 0);
	struct proc_seen prev[] = {proc(10, 1, 0), proc(20, 10, 6 * MIB)};
	procexit_reaped_add(&prev[1], &(struct proc_io){.wbytes = 1 * MIB});
	struct proc_seen cur[] = {proc(10, 1, 8 * MIB)};
	struct procexit_row rows[4];
	size_t n = procexit_settle(&x, cur, 1, prev, 2, 2.0, 5, rows, 4);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].last.wbytes, 2 * MIB);
	assert_int_equal(procexit_reaped_now(&cur[0]).wbytes, 8 * MIB);
	assert_true(prev[1].settled);
	/* The fallback leaves a settled one alone: no second charge. */
	procs_charge_reaped(prev, 2, cur, 1);
	assert_int_equal(procexit_reaped_now(&cur[0]).wbytes, 8 * MIB);
	procexit_free_reaped(prev, sizeof prev / sizeof prev[0]);
	procexit_free_reaped(cur, sizeof cur / sizeof cur[0]);
	procexit_free(&x);
}

/* A zombie is still in /proc: it waits, and is settled once reaped. */
static void test_zombie_waits(void **state)
{
	(void)state;
	struct procexit x = fresh();
	struct ts_record z = rec(20, 20, 10, "zombie", MIB);
	assert_int_equal(procexit_add(&x, &z, 1.0), 0);
	struct proc_seen cur[] = {proc(10, 1, 0), proc(20, 10, MIB)};
	struct procexit_row rows[4];
	assert_int_equal(procexit_settle(&x, cur, 2, NULL, 0, 1.5, 5, rows, 4), 0);
	assert_int_equal(x.n, 1);
	struct proc_seen later[] = {proc(10, 1, MIB)};
	size_t n = procexit_settle(&x, later, 1, cur, 2, 2.5, 5, rows, 4);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].last.wbytes, 0); /* its I/O showed while it was read */
	assert_int_equal(procexit_reaped_now(&later[0]).wbytes, MIB);
	procexit_free_reaped(cur, sizeof cur / sizeof cur[0]);
	procexit_free_reaped(later, sizeof later / sizeof later[0]);
	procexit_free(&x);
}

/* Threads: a worker's record, then the leader's, add up under the process;
 * before version 12 (no tgid) each record stands for itself. */
static void test_threads(void **state)
{
	(void)state;
	struct procexit x = fresh();
	struct ts_record t = rec(41, 40, 10, "worker", 3 * MIB), l = rec(40, 40, 10, "rustc", 2 * MIB);
	assert_int_equal(procexit_add(&x, &t, 1.0), 0);
	assert_int_equal(x.v[0].complete, 0);
	assert_int_equal(procexit_add(&x, &l, 1.0), 0);
	assert_int_equal(x.n, 1);
	struct proc_seen cur[] = {proc(10, 1, 5 * MIB)};
	struct procexit_row rows[4];
	size_t n = procexit_settle(&x, cur, 1, NULL, 0, 1.5, 5, rows, 4);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].comm, "rustc");
	assert_int_equal(rows[0].last.wbytes, 5 * MIB);
	struct ts_record old = rec(50, 0, 10, "old", MIB);
	assert_int_equal(procexit_add(&x, &old, 1.0), 0);
	assert_int_equal(x.v[0].pid, 50);
	assert_true(x.v[0].complete);
	procexit_free_reaped(cur, sizeof cur / sizeof cur[0]);
	procexit_free(&x);
}

/* Only a worker's record came (the leader's was lost): once the process
 * is gone and the entry old, it goes, with nothing charged. */
static void test_lost_leader(void **state)
{
	(void)state;
	struct procexit x = fresh();
	struct ts_record t = rec(41, 40, 10, "worker", MIB);
	assert_int_equal(procexit_add(&x, &t, 1.0), 0);
	struct proc_seen cur[] = {proc(10, 1, 0)};
	struct procexit_row rows[4];
	assert_int_equal(procexit_settle(&x, cur, 1, NULL, 0, 2.0, 5, rows, 4), 0);
	assert_int_equal(x.n, 1);
	assert_int_equal(procexit_settle(&x, cur, 1, NULL, 0, 7.0, 5, rows, 4), 0);
	assert_int_equal(x.n, 0);
	assert_int_equal(procexit_reaped_now(&cur[0]).wbytes, 0);
	procexit_free_reaped(cur, sizeof cur / sizeof cur[0]);
	procexit_free(&x);
}

/* Two shells (10, 11) each ended 600 dd in one interval, their records
 * interleaved; out has room for 1,000: the 1,000 that ended first are
 * settled in that order and the other 200 wait for the next call, none
 * dropped (a full table once dropped them unsaid). */
static void test_burst_beyond_out(void **state)
{
	(void)state;
	enum { EACH = 600, ROOM = 1000 };
	struct procexit x = fresh();
	for (uint32_t i = 0; i < 2 * EACH; i++) {
		struct ts_record r = rec(100 + i, 100 + i, 10 + i % 2, "dd", MIB);
		assert_int_equal(procexit_add(&x, &r, 1.0), 0);
	}
	struct proc_seen cur[] = {proc(10, 1, 0), proc(11, 1, 0)};
	static struct procexit_row rows[ROOM];
	size_t n = procexit_settle(&x, cur, 2, NULL, 0, 1.5, 5, rows, ROOM);
	assert_int_equal(n, ROOM);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(rows[i].pid, 100 + (int)i);
	assert_int_equal(x.n, 2 * EACH - ROOM);
	n = procexit_settle(&x, cur, 2, NULL, 0, 2.5, 5, rows, ROOM);
	assert_int_equal(n, 2 * EACH - ROOM);
	assert_int_equal(rows[0].pid, 100 + ROOM);
	assert_int_equal(x.n, 0);
	assert_int_equal(procexit_reaped_cum(&cur[0]).wbytes + procexit_reaped_cum(&cur[1]).wbytes, 2 * EACH * MIB);
	procexit_free_reaped(cur, sizeof cur / sizeof cur[0]);
	procexit_free(&x);
}

/* A record of a process that started at start_s (mono seconds), of a task
 * that ended just before the record was read at read_s, after after_s. */
static struct ts_record aged(struct ts_record r, double start_s, double after_s, double read_s)
{
	r.age_us = (uint64_t)((read_s - start_s) * 1e6);
	r.ended_after = after_s;
	r.read_at = read_s;
	return r;
}

/* X (40) started at 10 s; its main thread ended first (no AGROUP), its
 * worker, which wrote 256 MiB, last; one more worker's record came late
 * (it ended with the last, its record sent after), when X was settled.
 * Then V got pid 40 at 30 s, wrote 4 KiB and ended. The worker's bytes are
 * X's, and V is a process of its own: a record once joined or completed
 * any open entry of its pid, and V showed X's bytes. */
static void test_main_thread_first(void **state)
{
	(void)state;
	struct procexit x = fresh();
	struct ts_record lead = aged(rec(40, 40, 10, "orphangrab", 0), 10.0, 19.99, 20.0);
	lead.group_last = 0;
	assert_int_equal(procexit_add(&x, &lead, 20.0), 0);
	assert_false(x.v[0].complete);
	struct ts_record worker = aged(rec(41, 40, 10, "orphangrab", 256 * MIB), 10.0, 20.99, 21.0);
	worker.group_last = 1;
	assert_int_equal(procexit_add(&x, &worker, 21.0), 0);
	assert_int_equal(x.n, 1);
	assert_true(x.v[0].complete);
	struct proc_seen cur[] = {proc(10, 1, 256 * MIB)};
	struct procexit_row rows[4];
	size_t n = procexit_settle(&x, cur, 1, NULL, 0, 21.5, 5, rows, 4);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].comm, "orphangrab");
	assert_int_equal(rows[0].last.wbytes, 256 * MIB);
	struct ts_record late = aged(rec(42, 40, 10, "orphangrab", 64 * MIB), 10.0, 21.99, 22.0);
	late.group_last = 0;
	assert_int_equal(procexit_add(&x, &late, 22.0), 0);
	struct ts_record v = aged(rec(40, 40, 10, "victim-job", 4096), 30.0, 30.99, 31.0);
	assert_int_equal(procexit_add(&x, &v, 31.0), 0);
	assert_int_equal(x.n, 2);
	n = procexit_settle(&x, cur, 1, NULL, 0, 31.5, 60, rows, 4);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].comm, "victim-job");
	assert_int_equal(rows[0].last.wbytes, 4096);
	procexit_free_reaped(cur, sizeof cur / sizeof cur[0]);
	procexit_free(&x);
}

/* X (50, started at 10 s, cgroup "x") was listed, wrote and ended; V got
 * pid 50 at 20.8 s and is listed before X's entry is settled. X is gone,
 * though its pid is listed: it settles now, against its own last reading
 * and in its own cgroup (it once waited for V and took V's row and
 * cgroup). Then V ends and settles against its own. boot_off: the machine
 * slept that long before X started, or not at all. */
static void next_holder_listed(double boot_off)
{
	struct procexit x = fresh();
	x.boot_off = boot_off;
	unsigned long long b = (unsigned long long)(boot_off * 100);
	struct ts_record xr = aged(rec(50, 50, 10, "attacker", 128 * MIB), 10.0, 20.99, 21.0);
	assert_int_equal(procexit_add(&x, &xr, 21.0), 0);
	struct proc_seen prev[] = {proc(10, 1, 0), proc(50, 10, 0)};
	prev[1].start = 1000 + b;
	prev[1].cgroup = "x";
	struct proc_seen cur[] = {proc(10, 1, 128 * MIB), proc(50, 10, 0)};
	cur[1].start = 2080 + b;
	cur[1].cgroup = "v";
	struct procexit_row rows[4];
	size_t n = procexit_settle(&x, cur, 2, prev, 2, 21.5, 5, rows, 4);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].comm, "attacker");
	assert_string_equal(rows[0].cgroup, "x");
	assert_int_equal(rows[0].start, 1000 + b); /* its own: its TO-DISK is looked up by it */
	assert_int_equal(rows[0].last.wbytes, 128 * MIB);
	assert_true(prev[1].settled);
	struct ts_record vr = aged(rec(50, 50, 10, "victim", 4096), 20.8, 29.99, 30.0);
	assert_int_equal(procexit_add(&x, &vr, 30.0), 0);
	struct proc_seen later[] = {proc(10, 1, 128 * MIB + 4096)};
	n = procexit_settle(&x, later, 1, cur, 2, 30.5, 5, rows, 4);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].comm, "victim");
	assert_string_equal(rows[0].cgroup, "v");
	assert_int_equal(rows[0].last.wbytes, 4096);
	procexit_free_reaped(prev, sizeof prev / sizeof prev[0]);
	procexit_free_reaped(cur, sizeof cur / sizeof cur[0]);
	procexit_free_reaped(later, sizeof later / sizeof later[0]);
	procexit_free(&x);
}

static void test_next_holder_listed(void **state)
{
	(void)state;
	next_holder_listed(0);
	next_holder_listed(3600);
}

/* A process never listed has the start its bounds give, where they fall
 * within one tick; else none (0: looked up by pid). */
static void test_start_tick(void **state)
{
	(void)state;
	struct procexit x = fresh();
	struct ts_record a = aged(rec(60, 60, 10, "a", MIB), 10.005, 20.996, 21.0);
	struct ts_record b = aged(rec(61, 61, 10, "b", MIB), 10.001, 20.99, 21.0);
	assert_int_equal(procexit_add(&x, &a, 21.0), 0);
	assert_int_equal(procexit_add(&x, &b, 21.0), 0);
	struct proc_seen cur[] = {proc(10, 1, 2 * MIB)};
	struct procexit_row rows[4];
	assert_int_equal(procexit_settle(&x, cur, 1, NULL, 0, 21.5, 5, rows, 4), 2);
	assert_int_equal(row_of(rows, 2, 60)->start, 1000);
	assert_int_equal(row_of(rows, 2, 61)->start, 0);
	procexit_free_reaped(cur, sizeof cur / sizeof cur[0]);
	procexit_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_children), cmocka_unit_test(test_main_thread_first),
		cmocka_unit_test(test_next_holder_listed), cmocka_unit_test(test_start_tick), cmocka_unit_test(test_three_levels),
		cmocka_unit_test(test_orphan_to_init), cmocka_unit_test(test_orphan_reaped_first),
		cmocka_unit_test(test_orphan_listed_as_zombie), cmocka_unit_test(test_unseen_cgroup),
		cmocka_unit_test(test_seen_before),    cmocka_unit_test(test_zombie_waits),
		cmocka_unit_test(test_threads),        cmocka_unit_test(test_lost_leader),
		cmocka_unit_test(test_burst_beyond_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
