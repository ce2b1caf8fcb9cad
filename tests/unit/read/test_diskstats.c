/* Unit tests: /proc/diskstats parsing and the iostat -x arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>

#include "read/diskstats.h"
#include "read/iostat.h"

#define FIX SRCDIR "/tests/fixtures/"

static void test_fields_4_4(void **state)
{
	(void)state;
	struct diskstats_table t = {0};
	assert_int_equal(diskstats_read(FIX "diskstats-4.4.txt", &t), 0);
	assert_int_equal(t.n, 5);
	assert_int_equal(t.bad_lines, 0);
	const struct diskstats_row *r = diskstats_find(&t, "sda");
	assert_non_null(r);
	assert_int_equal(r->nfields, 11);
	assert_int_equal(r->major, 8);
	assert_int_equal(r->minor, 0);
	assert_int_equal(r->f[DS_RD_IOS], 120357);
	assert_int_equal(r->f[DS_WR_SECTORS], 4735872);
	assert_int_equal(r->f[DS_TIME_IN_QUEUE], 511184);
	/* Fields the kernel does not give stay 0. */
	assert_int_equal(r->f[DS_DC_IOS], 0);
	assert_int_equal(r->f[DS_FL_TICKS], 0);
	diskstats_free(&t);
}

static void test_fields_4_19(void **state)
{
	(void)state;
	struct diskstats_table t = {0};
	assert_int_equal(diskstats_read(FIX "diskstats-4.19.txt", &t), 0);
	assert_int_equal(t.n, 3);
	const struct diskstats_row *r = diskstats_find(&t, "dm-0");
	assert_non_null(r);
	assert_int_equal(r->nfields, 15);
	assert_int_equal(r->f[DS_DC_IOS], 1024);
	assert_int_equal(r->f[DS_DC_SECTORS], 2097152);
	assert_int_equal(r->f[DS_DC_TICKS], 12);
	diskstats_free(&t);
}

static void test_fields_6_18(void **state)
{
	(void)state;
	struct diskstats_table t = {0};
	assert_int_equal(diskstats_read(FIX "diskstats-6.18.txt", &t), 0);
	assert_int_equal(t.n, 4);
	const struct diskstats_row *r = diskstats_find(&t, "vda");
	assert_non_null(r);
	assert_int_equal(r->nfields, 17);
	assert_int_equal(r->major, 254);
	assert_int_equal(r->f[DS_FL_IOS], 1089);
	assert_int_equal(r->f[DS_FL_TICKS], 45);
	assert_int_equal(diskstats_find(&t, "loop1")->f[DS_IN_FLIGHT], 1);
	assert_null(diskstats_find(&t, "sda"));
	diskstats_free(&t);
}

static void test_bad_lines(void **state)
{
	(void)state;
	struct diskstats_table t = {0};
	assert_int_equal(diskstats_read(FIX "diskstats-bad.txt", &t), 0);
	/* Only the well-formed sdf line survives; everything else is counted. */
	assert_int_equal(t.n, 1);
	assert_string_equal(t.rows[0].name, "sdf");
	assert_int_equal(t.bad_lines, 7);
	diskstats_free(&t);
}

static void test_parse_line_edge(void **state)
{
	(void)state;
	struct diskstats_row r;
	assert_int_equal(diskstats_parse_line("", &r), -EINVAL);
	assert_int_equal(diskstats_parse_line("8 0 sda", &r), -EINVAL);
	/* Counters above 2^32 are kept whole (64-bit kernels). */
	assert_int_equal(diskstats_parse_line("8 0 sda 18446744073709551615 0 0 0 0 0 0 0 0 0 0", &r), 0);
	assert_true(r.f[DS_RD_IOS] == UINT64_MAX);
	/* One more than UINT64_MAX does not fit. */
	assert_int_equal(diskstats_parse_line("8 0 sda 18446744073709551616 0 0 0 0 0 0 0 0 0 0", &r), -EINVAL);
}

static void test_missing_file(void **state)
{
	(void)state;
	struct diskstats_table t = {0};
	assert_int_equal(diskstats_read(FIX "no-such-file", &t), -ENOENT);
}

static void test_counter_delta(void **state)
{
	(void)state;
	assert_int_equal(iostat_counter_delta(10, 15), 5);
	assert_int_equal(iostat_counter_delta(7, 7), 0);
	/* 32-bit wrap: 4294967000 -> 200 is 296 + 200 = 496 steps. */
	assert_int_equal(iostat_counter_delta(4294967000ULL, 200), 496);
	/* From a 64-bit value down: a reset, the new value is the delta. */
	assert_int_equal(iostat_counter_delta(5000000000ULL, 1234), 1234);
}

/* Two readings of vda 2 s apart (fixtures), figures worked out by hand
 * with the formulas sysstat's iostat uses. */
static void test_iostat_compute(void **state)
{
	(void)state;
	struct diskstats_table a = {0}, b = {0};
	assert_int_equal(diskstats_read(FIX "diskstats-6.18.txt", &a), 0);
	assert_int_equal(diskstats_read(FIX "diskstats-6.18-later.txt", &b), 0);
	struct iostat_rates r;
	assert_int_equal(iostat_compute(diskstats_find(&a, "vda"), diskstats_find(&b, "vda"), 2.0, &r), 0);
	/* reads 27830->28030 (200), sectors +1600, ticks +100 */
	assert_float_equal(r.r_s, 100.0, 1e-9);
	assert_float_equal(r.rkB_s, 400.0, 1e-9);   /* 1600 sectors = 800 kB over 2 s */
	assert_float_equal(r.r_await_ms, 0.5, 1e-9);
	/* writes 5488->5588 (100), sectors +204800 (100 MiB), ticks +1000 */
	assert_float_equal(r.w_s, 50.0, 1e-9);
	assert_float_equal(r.wkB_s, 51200.0, 1e-9);
	assert_float_equal(r.w_await_ms, 10.0, 1e-9);
	/* io_ticks +1000 ms of 2000 ms; time_in_queue +1200 ms */
	assert_float_equal(r.util_pct, 50.0, 1e-9);
	assert_float_equal(r.aqu_sz, 0.6, 1e-9);
	/* A disk in the first reading and not the second is simply absent. */
	assert_non_null(diskstats_find(&a, "loop1"));
	assert_null(diskstats_find(&b, "loop1"));
	diskstats_free(&a);
	diskstats_free(&b);
}

static void test_iostat_wrap_and_caps(void **state)
{
	(void)state;
	struct diskstats_table t = {0};
	assert_int_equal(diskstats_read(FIX "diskstats-4.4.txt", &t), 0);
	struct diskstats_row prev = *diskstats_find(&t, "sdb"), cur = prev;
	cur.f[DS_RD_IOS] = 704;                 /* wrapped: 296 + 704 = 1000 */
	cur.f[DS_RD_TICKS] = prev.f[DS_RD_TICKS] + 2000;
	cur.f[DS_IO_TICKS] = 1100;              /* 32-bit wrap too: 96 + 1100 = 1196 ms */
	struct iostat_rates r;
	assert_int_equal(iostat_compute(&prev, &cur, 1.0, &r), 0);
	assert_float_equal(r.r_s, 1000.0, 1e-9);
	assert_float_equal(r.r_await_ms, 2.0, 1e-9);
	/* More busy ms than wall ms: capped at 100 %. */
	assert_float_equal(r.util_pct, 100.0, 1e-9);
	/* No requests: awaits are 0, as iostat prints them. */
	assert_float_equal(r.w_await_ms, 0.0, 1e-9);
	assert_int_equal(iostat_compute(&prev, &cur, 0.0, &r), -EINVAL);
	assert_int_equal(iostat_compute(&prev, &cur, NAN, &r), -EINVAL);
	diskstats_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_4_4),     cmocka_unit_test(test_fields_4_19),
		cmocka_unit_test(test_fields_6_18),    cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_parse_line_edge), cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_counter_delta),  cmocka_unit_test(test_iostat_compute),
		cmocka_unit_test(test_iostat_wrap_and_caps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
