/* Unit tests: the block layer's figures on rows as they are made
 * (procblk.c), from a synthetic reading: a live process gets its requests,
 * TO-DISK and a total that adds up over readings; a writer that ended
 * before its pages were written gets a row of its own, once; an ended row
 * whose pages are written later is this interval's again, its own I/O 0;
 * in thread mode only the main thread's row has figures and no row is
 * added; without a reading TO-DISK is not known (-1); a pid reused by a
 * live process keeps the ended writer's bytes off the new process's row
 * (an [exited] row of the writer's own, its total apart). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procs/procparts.h"
#include "bpf/blklat.h"

/* A pid that has ended (a child waited for). */
static int ended_pid(void)
{
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	assert_true(c > 0);
	assert_int_equal(waitpid(c, NULL, 0), c);
	return (int)c;
}

struct fixture {
	struct procs *p;
	struct blk_proc bp[2];
	struct blk_reading r;
	struct procs_blk blk;
	struct proc_row *rows;
	size_t n, cap;
};

/* A reading where self wrote 3 requests, 8 KiB, and gone's pages (4 KiB)
 * were written after it ended; bp sorted by tgid, as blklat_read does. */
static void setup(struct fixture *f, int self, int gone)
{
	memset(f, 0, sizeof *f);
	f->p = calloc(1, sizeof *f->p);
	assert_non_null(f->p);
	struct blk_proc a = {.tgid = self, .n = {0, 3}, .bytes = {0, 8192}, .to_disk_bytes = 8192, .p50_ns = {0, 1000},
			     .p99_ns = {0, 2000}};
	struct blk_proc b = {.tgid = gone, .n = {0, 1}, .bytes = {0, 4096}, .to_disk_bytes = 4096};
	f->bp[0] = self < gone ? a : b;
	f->bp[1] = self < gone ? b : a;
	f->r.procs = f->bp;
	f->r.nprocs = 2;
	f->blk = (struct procs_blk){.r = &f->r, .mono = 100};
	f->cap = 4;
	f->rows = calloc(f->cap, sizeof *f->rows);
	assert_non_null(f->rows);
}

static void teardown(struct fixture *f)
{
	free(f->p->to_disk);
	free(f->p);
	free(f->rows);
}

static const struct proc_row *row_of(const struct fixture *f, int pid, int tid)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->rows[i].pid == pid && f->rows[i].tid == tid)
			return &f->rows[i];
	return NULL;
}

static void test_process_mode(void **state)
{
	(void)state;
	struct fixture f;
	int self = getpid(), gone = ended_pid();
	setup(&f, self, gone);
	for (int reading = 1; reading <= 2; reading++) {
		f.n = 1;
		f.rows[0] = (struct proc_row){.pid = self, .tid = self, .ppid = 1, .kind = PROC_NORMAL};
		procblk_fill(f.p, &f.blk, 0, 2.0, &f.rows, &f.n, &f.cap);
		assert_int_equal(f.n, 2); /* the ended writer's row, added once */
		const struct proc_row *r = row_of(&f, self, self);
		assert_non_null(r);
		assert_int_equal(r->blk_n[BLK_WRITE], 3);
		assert_int_equal(r->blk_p99_ns[BLK_WRITE], 2000);
		assert_true(r->to_disk_Bps == 8192 / 2.0);
		assert_int_equal(r->to_disk_total, 8192ull * (unsigned)reading);
		const struct proc_row *g = row_of(&f, gone, gone);
		assert_non_null(g);
		assert_true(g->exited && g->moved && g->count == 1);
		assert_true(g->read_Bps == 0 && g->write_Bps == 0);
		assert_true(g->to_disk_Bps == 4096 / 2.0);
		assert_int_equal(g->to_disk_total, 4096ull * (unsigned)reading);
		char name[32];
		snprintf(name, sizeof name, "pid %d", gone); /* no names without the program */
		assert_string_equal(g->comm, name);
	}
	teardown(&f);
}

static void test_ended_row_again(void **state)
{
	(void)state;
	struct fixture f;
	int self = getpid(), gone = ended_pid();
	setup(&f, self, gone);
	f.n = 1;
	f.rows[0] = (struct proc_row){.pid = gone, .tid = gone, .exited = 1, .ended_ago = 2, .count = 3,
				      .write_Bps = 5, .read_Bps = 7};
	procblk_fill(f.p, &f.blk, 0, 1.0, &f.rows, &f.n, &f.cap);
	assert_int_equal(f.n, 1); /* it has a row: none added */
	assert_int_equal(f.rows[0].ended_ago, 0);
	assert_int_equal(f.rows[0].count, 0);
	assert_true(f.rows[0].write_Bps == 0 && f.rows[0].read_Bps == 0);
	assert_true(f.rows[0].to_disk_Bps == 4096);
	teardown(&f);
}

static void test_thread_mode(void **state)
{
	(void)state;
	struct fixture f;
	int self = getpid(), gone = ended_pid();
	setup(&f, self, gone);
	f.n = 2;
	f.rows[0] = (struct proc_row){.pid = self, .tid = self};
	f.rows[1] = (struct proc_row){.pid = self, .tid = self + 1};
	procblk_fill(f.p, &f.blk, 1, 1.0, &f.rows, &f.n, &f.cap);
	assert_int_equal(f.n, 2); /* no ended writers in thread mode */
	assert_int_equal(f.rows[0].blk_n[BLK_WRITE], 3);
	assert_true(f.rows[0].to_disk_Bps == 8192);
	assert_int_equal(f.rows[1].blk_n[BLK_WRITE], 0);
	assert_true(f.rows[1].to_disk_Bps == -1);
	assert_int_equal(f.rows[1].to_disk_total, 0);
	teardown(&f);
}

/* Two entries of one pid: a writer started at tick 100 that ended (its
 * pages written now), and the live process started at tick 900 under its
 * pid. The live row (start 900) gets only its own; the writer gets an
 * [exited] row of its start; a row whose start is not known (an exit
 * record's) is taken for the later process. */
static void test_reused_pid(void **state)
{
	(void)state;
	struct fixture f;
	int self = getpid();
	setup(&f, self, self);
	f.bp[0] = (struct blk_proc){.tgid = self, .start = 100, .n = {0, 8}, .bytes = {0, 1 << 20},
				    .to_disk_bytes = 1 << 20};
	f.bp[1] = (struct blk_proc){.tgid = self, .start = 900, .n = {0, 1}, .bytes = {0, 4096}, .to_disk_bytes = 4096};
	for (int reading = 1; reading <= 2; reading++) {
		f.n = 1;
		f.rows[0] = (struct proc_row){.pid = self, .tid = self, .start = 900, .ppid = 1, .kind = PROC_NORMAL};
		procblk_fill(f.p, &f.blk, 0, 1.0, &f.rows, &f.n, &f.cap);
		assert_int_equal(f.n, 2);
		assert_int_equal(f.rows[0].blk_n[BLK_WRITE], 1);
		assert_true(f.rows[0].to_disk_Bps == 4096);
		assert_int_equal(f.rows[0].to_disk_total, 4096ull * (unsigned)reading);
		const struct proc_row *g = &f.rows[1];
		assert_true(g->pid == self && g->exited && g->start == 100);
		assert_true(g->to_disk_Bps == 1 << 20);
		assert_int_equal(g->to_disk_total, (1ull << 20) * (unsigned)reading);
	}
	f.n = 1;
	f.rows[0] = (struct proc_row){.pid = self, .tid = self, .exited = 1, .ended_ago = 0, .count = 1};
	procblk_fill(f.p, &f.blk, 0, 1.0, &f.rows, &f.n, &f.cap);
	assert_int_equal(f.n, 2); /* the writer's row again: the unknown start is the later process's */
	assert_true(f.rows[0].to_disk_Bps == 4096);
	assert_true(f.rows[1].start == 100 && f.rows[1].to_disk_Bps == 1 << 20);
	teardown(&f);
}

static void test_no_reading(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, getpid(), ended_pid());
	f.n = 1;
	f.rows[0] = (struct proc_row){.pid = 1, .tid = 1, .disk = "x"};
	procblk_fill(f.p, NULL, 0, 1.0, &f.rows, &f.n, &f.cap);
	assert_int_equal(f.n, 1);
	assert_true(f.rows[0].to_disk_Bps == -1);
	assert_null(f.rows[0].disk);
	assert_int_equal(f.p->nto_disk, 0);
	teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_process_mode), cmocka_unit_test(test_ended_row_again),
		cmocka_unit_test(test_thread_mode),  cmocka_unit_test(test_no_reading),
		cmocka_unit_test(test_reused_pid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
