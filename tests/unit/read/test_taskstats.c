/* Unit tests: the taskstats payload parser, on payloads of versions 13 to
 * 17 (tests/fixtures/taskstats), the process-rate arithmetic, and (as root)
 * the kernel's exit records: a child and a grandchild each come with their
 * own written bytes, the child's without the grandchild's it reaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procs/procexit.h"
#include "procs/procs.h"
#include "read/taskstats.h"
#include "base/util.h"

static size_t load(int version, unsigned char *buf, size_t len)
{
	char path[256];
	snprintf(path, sizeof path, SRCDIR "/tests/fixtures/taskstats/v%d.bin", version);
	long n = util_read_text(path, (char *)buf, len);
	assert_true(n > 0);
	return (size_t)n;
}

static void check_version(int v)
{
	unsigned char buf[1024];
	size_t n = load(v, buf, sizeof buf);
	struct ts_record r;
	assert_int_equal(taskstats_parse(buf, n, &r), 0);
	assert_int_equal(r.version, v);
	assert_int_equal(r.pid, 4242);
	assert_int_equal(r.blkio_count, 1000 + v);
	assert_int_equal(r.blkio_delay_ns, 5000000000ull + v);
	assert_int_equal(r.read_bytes, 1048576ull * v);
	assert_int_equal(r.write_bytes, 2097152ull * v);
	assert_int_equal(r.read_syscalls, 300 + v);
	assert_int_equal(r.write_syscalls, 400 + v);
	assert_int_equal(r.ppid, 4241);
	assert_int_equal(r.tgid, 4240);
	assert_int_equal(r.uid, 1000);
	assert_int_equal(r.btime, 1700000000u + v);
	assert_int_equal(r.age_us, 9000000ull + v); /* the process's age (ac_tgetime), not the task's */
	assert_int_equal(r.group_last, 1);
	assert_int_equal(r.cancelled_write_bytes, 4096ull * v);
	assert_string_equal(r.comm, "cc1plus");
}

static void test_v13(void **s) { (void)s; check_version(13); }
static void test_v14(void **s) { (void)s; check_version(14); }
static void test_v15(void **s) { (void)s; check_version(15); }
static void test_v16(void **s) { (void)s; check_version(16); }
static void test_v17(void **s) { (void)s; check_version(17); }

/* A thread that is not its process's last has no AGROUP; before version
 * 12 there is no tgid and no process age: the task's own age, and every
 * record stands for a process. */
static void test_age_and_last(void **state)
{
	(void)state;
	unsigned char buf[1024];
	struct ts_record r;
	size_t n = load(16, buf, sizeof buf);
	buf[8] = 0x01; /* AFORK only */
	assert_int_equal(taskstats_parse(buf, n, &r), 0);
	assert_int_equal(r.group_last, 0);
	uint16_t eleven = 11;
	memcpy(buf, &eleven, sizeof eleven);
	assert_int_equal(taskstats_parse(buf, n, &r), 0);
	assert_int_equal(r.tgid, 0);
	assert_int_equal(r.age_us, 7000016ull);
	assert_int_equal(r.group_last, 1);
}

static void test_bad_payloads(void **state)
{
	(void)state;
	unsigned char buf[1024];
	struct ts_record r;
	size_t n = load(16, buf, sizeof buf);
	assert_int_equal(taskstats_parse(buf, 1, &r), -EINVAL);
	assert_int_equal(taskstats_parse(buf, 200, &r), -EINVAL);   /* cut before the I/O bytes */
	n = load(15, buf, sizeof buf);
	assert_int_equal(taskstats_parse(buf, 300, &r), -EINVAL);   /* v15 places them later */
	uint16_t old = 3;
	memcpy(buf, &old, sizeof old);
	assert_int_equal(taskstats_parse(buf, n, &r), -EINVAL);     /* before the byte counters existed */
	/* A 6.14-rc kernel: version 15's layout, still saying 14. */
	n = load(15, buf, sizeof buf);
	uint16_t fourteen = 14;
	memcpy(buf, &fourteen, sizeof fourteen);
	assert_int_equal(taskstats_parse(buf, n, &r), 0);
	assert_int_equal(r.blkio_count, 1015);
}

static void test_delta(void **state)
{
	(void)state;
	assert_int_equal(procs_delta(100, 300, 0), 200);
	/* A child reaped in the interval brought 150 into the parent's count. */
	assert_int_equal(procs_delta(100, 300, 150), 50);
	/* ... never below zero when the child did more than the parent moved. */
	assert_int_equal(procs_delta(100, 300, 500), 0);
	/* 32-bit wrap of a counter. */
	assert_int_equal(procs_delta(4294967000ull, 200, 0), 496);
}

static void test_ioprio_and_kinds(void **state)
{
	(void)state;
	char b[16];
	procs_format_ioprio((2 << 13) | 4, 0, b, sizeof b);
	assert_string_equal(b, "be/4");
	procs_format_ioprio((1 << 13) | 0, 0, b, sizeof b);
	assert_string_equal(b, "rt/0");
	procs_format_ioprio(3 << 13, 0, b, sizeof b);
	assert_string_equal(b, "idle");
	procs_format_ioprio(0, 10, b, sizeof b); /* none: from nice 10 */
	assert_string_equal(b, "be/6");
	procs_format_ioprio(0, -20, b, sizeof b);
	assert_string_equal(b, "be/0");
	procs_format_ioprio(-1, 0, b, sizeof b); /* not read (an ended process) */
	assert_string_equal(b, "-");
	assert_int_equal(procs_classify("kworker/u8:3-flush-254:0", 2, 812), PROC_WRITEBACK);
	assert_int_equal(procs_classify("jbd2/vda-8", 2, 300), PROC_JOURNAL);
	assert_int_equal(procs_classify("btrfs-transacti", 2, 301), PROC_WRITEBACK);
	assert_int_equal(procs_classify("xfsaild/sda1", 2, 302), PROC_JOURNAL);
	assert_int_equal(procs_classify("kworker/u8:1-loop0", 2, 303), PROC_LOOP);
	assert_int_equal(procs_classify("kworker/0:1-events", 2, 304), PROC_NORMAL);
	assert_int_equal(procs_classify("kworker/R-slub_flushwq", 2, 7), PROC_NORMAL);
	assert_int_equal(procs_classify("kworker/u8:1-writeback", 2, 306), PROC_WRITEBACK);
	/* A user process named like a flusher is still a user process. */
	assert_int_equal(procs_classify("jbd2/fake", 1000, 305), PROC_NORMAL);
}

static struct proc_seen seen(int id, int ppid, unsigned long long start, uint64_t rb, uint64_t wb)
{
	struct proc_seen e;
	memset(&e, 0, sizeof e);
	e.id = id;
	e.ppid = ppid;
	e.start = start;
	e.c.rbytes = rb;
	e.c.wbytes = wb;
	e.c.syscr = rb / 4096;
	e.c.syscw = wb / 4096;
	return e;
}

static void test_rates(void **state)
{
	(void)state;
	struct proc_row r;
	struct proc_seen old = seen(100, 1, 5000, 1 << 20, 8 << 20), cur = seen(100, 1, 5000, 3 << 20, 18 << 20);
	cur.base = procread_io_of(&old.c);
	procs_rates(&old, &cur, 2.0, 0, &r);
	assert_float_equal(r.read_Bps, 1048576.0, 1e-6);   /* 2 MiB over 2 s */
	assert_float_equal(r.write_Bps, 5242880.0, 1e-6);
	assert_float_equal(r.write_calls, 1280, 1e-6);
	assert_int_equal(r.total.wbytes, 10 << 20);
	assert_int_equal(r.wait, WAIT_OFF);              /* no taskstats: no figure */
	/* A reused pid: same id, another start time. No rate from the old
	 * task's counters (that would be a huge or negative jump). */
	struct proc_seen reused = seen(100, 1, 9000, 4096, 0);
	reused.base = procread_io_of(&reused.c);
	procs_rates(&old, &reused, 2.0, 0, &r);
	assert_float_equal(r.read_Bps, 0, 0);
	assert_int_equal(r.total.rbytes, 0);
	/* First seen: no rate. */
	procs_rates(NULL, &cur, 2.0, 0, &r);
	assert_float_equal(r.write_Bps, 0, 0);
}

static void test_waits(void **state)
{
	(void)state;
	struct proc_row r;
	struct proc_seen old = seen(7, 1, 10, 0, 0), cur = seen(7, 1, 10, 4096 * 100, 0);
	cur.base = procread_io_of(&old.c);
	cur.c.blkio_count = 100;
	cur.c.blkio_ns = 500000000; /* 100 waits, 0.5 s in all, over 1 s */
	procs_rates(&old, &cur, 1.0, 1, &r);
	assert_int_equal(r.wait, WAIT_OK);
	assert_float_equal(r.io_wait_pct, 50.0, 1e-9);
	assert_float_equal(r.avg_wait_us, 5000.0, 1e-9);
	assert_true(cur.waiting);
	/* Bytes moved but no waits: async I/O, "n/a" rather than 0 us. */
	struct proc_seen a = seen(8, 1, 10, 0, 0), b = seen(8, 1, 10, 1 << 20, 0);
	procs_rates(&a, &b, 1.0, 1, &r);
	assert_int_equal(r.wait, WAIT_NA);
	/* Nothing at all: a real 0 %. */
	procs_rates(&a, &a, 1.0, 1, &r);
	assert_int_equal(r.wait, WAIT_NONE);
	assert_float_equal(r.io_wait_pct, 0, 0);
}

static void test_reaped_children(void **state)
{
	(void)state;
	/* Parent 10 with child 11; child 11 is reaped in the interval and
	 * the parent's /proc/PID/io jumps by the child's 100 MiB. */
	struct proc_seen prev[] = {seen(10, 1, 1, 0, 1 << 20), seen(11, 10, 2, 0, 100 << 20), seen(12, 1, 3, 0, 0)};
	struct proc_seen cur[] = {seen(10, 1, 1, 0, (1 << 20) + (100 << 20) + (2 << 20)), seen(12, 1, 3, 0, 0)};
	procs_charge_reaped(prev, 3, cur, 2);
	assert_int_equal(procexit_reaped_now(&cur[0]).wbytes, 100 << 20);
	assert_int_equal(procexit_reaped_now(&cur[1]).wbytes, 0);
	struct proc_row r;
	procs_rates(&prev[0], &cur[0], 1.0, 0, &r);
	/* Only the parent's own 2 MiB, not a 102 MiB spike. */
	assert_float_equal(r.write_Bps, 2097152.0, 1e-6);
	/* A vanished task whose parent is gone too changes nothing. */
	struct proc_seen orphan_prev[] = {seen(20, 19, 1, 0, 5)};
	struct proc_seen none[] = {seen(21, 1, 1, 0, 0)};
	procs_charge_reaped(orphan_prev, 1, none, 1);
	assert_int_equal(procexit_reaped_now(&none[0]).wbytes, 0);
	procexit_free_reaped(prev, sizeof prev / sizeof prev[0]);
	procexit_free_reaped(cur, sizeof cur / sizeof cur[0]);
	procexit_free_reaped(orphan_prev, sizeof orphan_prev / sizeof orphan_prev[0]);
	procexit_free_reaped(none, sizeof none / sizeof none[0]);
}

/* Write mib MiB to dir/name (page cache: write_bytes counts them). */
static int write_mib(const char *dir, const char *name, int mib)
{
	char path[256];
	static char block[1 << 20];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	for (int i = 0; i < mib; i++)
		if (write(fd, block, sizeof block) != (ssize_t)sizeof block)
			return -1;
	return close(fd);
}

struct seen {
	int n;
	struct ts_record r[64];
};

static void keep(void *ctx, const struct ts_record *r, int tgid)
{
	struct seen *s = ctx;
	if (!tgid && s->n < 64)
		s->r[s->n++] = *r;
}

static const struct ts_record *find_pid(const struct seen *s, uint32_t pid)
{
	for (int i = 0; i < s->n; i++)
		if (s->r[i].pid == pid)
			return &s->r[i];
	return NULL;
}

static int make_dir(void **state)
{
	static char dir[64];
	strcpy(dir, "/var/tmp/iosched-taskstats-test.XXXXXX");
	*state = mkdtemp(dir);
	return *state ? 0 : -1;
}

static int remove_dir(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", (const char *)*state);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_exit_records(void **state)
{
	const char *dir = *state;
	char cpus[256];
	if (util_read_text("/sys/devices/system/cpu/online", cpus, sizeof cpus) <= 0)
		skip();
	cpus[strcspn(cpus, "\n")] = '\0';
	struct taskstats_listener *l = NULL;
	int rc = taskstats_listen(cpus, &l);
	if (rc == -EPERM || rc == -EACCES)
		skip(); /* not root: no exit records (the fallback is tested elsewhere) */
	assert_int_equal(rc, 0);
	/* child: forks a grandchild that writes 1 MiB, reaps it, writes 2 MiB */
	double forked = util_mono_now();
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		prctl(PR_SET_NAME, "ts-child");
		pid_t g = fork();
		if (g == 0) {
			prctl(PR_SET_NAME, "ts-grandchild");
			_exit(write_mib(dir, "g", 1) == 0 ? 0 : 1);
		}
		int st = 1;
		if (g < 0 || waitpid(g, &st, 0) != g || st != 0 || write_mib(dir, "c", 2) != 0)
			_exit(1);
		/* the grandchild's pid, for the test, in a file */
		char p[64], f[300];
		snprintf(p, sizeof p, "%d", (int)g);
		snprintf(f, sizeof f, "%s/gpid", dir);
		int fd = open(f, O_WRONLY | O_CREAT | O_EXCL, 0600);
		_exit(fd >= 0 && write(fd, p, strlen(p)) > 0 && close(fd) == 0 ? 0 : 1);
	}
	int st = 1;
	assert_int_equal(waitpid(child, &st, 0), child);
	double reaped = util_mono_now();
	assert_int_equal(st, 0);
	char path[300], gtext[32];
	snprintf(path, sizeof path, "%s/gpid", dir);
	assert_true(util_read_text(path, gtext, sizeof gtext) > 0);
	uint32_t gpid = (uint32_t)atoi(gtext);
	struct seen seen = {0};
	for (int i = 0; i < 100 && !(find_pid(&seen, (uint32_t)child) && find_pid(&seen, gpid)); i++) {
		assert_true(taskstats_drain(l, keep, &seen) >= 0);
		usleep(20000);
	}
	const struct ts_record *c = find_pid(&seen, (uint32_t)child), *g = find_pid(&seen, gpid);
	assert_non_null(c);
	assert_non_null(g);
	assert_string_equal(c->comm, "ts-child");
	assert_string_equal(g->comm, "ts-grandchild");
	assert_int_equal(c->ppid, (uint32_t)getpid());
	assert_int_equal(c->tgid, (uint32_t)child);
	assert_int_equal(g->ppid, (uint32_t)child);
	/* A page or two more at times: a directory or inode block the create
	 * dirtied counts as the task's write too (measured: +4 KiB, +8 KiB). */
	assert_true(g->write_bytes >= 1u << 20 && g->write_bytes < (1u << 20) + (64u << 10));
	/* its own 2 MiB and the 3-byte-ish pid file: not the grandchild's */
	/* Its own 2 MiB and a few pages (the pid file, metadata), not the
	 * grandchild's MiB it reaped (measured: 2 MiB + 8 KiB). */
	assert_true(c->write_bytes >= 2u << 20 && c->write_bytes < (2u << 20) + (512u << 10));
	/* When the child ended, and so when it started, is bounded: it ended
	 * before it was reaped, and started when forked (a few ms of slack:
	 * the clock is read at fork and exit, not by us). */
	double age = (double)c->age_us / 1e6;
	assert_true(c->ended_after <= c->read_at);
	assert_true(c->ended_after <= reaped);
	assert_true(c->read_at - age >= forked - 0.005);
	assert_true(c->ended_after - age <= reaped);
	taskstats_unlisten(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v13), cmocka_unit_test(test_v14), cmocka_unit_test(test_v15),
		cmocka_unit_test(test_v16), cmocka_unit_test(test_v17), cmocka_unit_test(test_age_and_last), cmocka_unit_test(test_bad_payloads),
		cmocka_unit_test(test_delta), cmocka_unit_test(test_ioprio_and_kinds),
		cmocka_unit_test(test_rates), cmocka_unit_test(test_waits), cmocka_unit_test(test_reaped_children),
		cmocka_unit_test_setup_teardown(test_exit_records, make_dir, remove_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
