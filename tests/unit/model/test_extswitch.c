/* Unit tests of extswitch: a scheduler change with nothing of the tool's
 * to explain it is called external once two collections in a row saw it;
 * the tool's pending or reported switches never are; a disk seen for the
 * first time, or back after it went, has no "from". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "model/extswitch.h"
#include "model/sample.h"
#include "base/util.h"

static void disk(struct disk_info *d, const char *name, const char *sched_text)
{
	memset(d, 0, sizeof *d);
	util_strlcpy(d->name, name, sizeof d->name);
	assert_int_equal(sched_parse(sched_text, &d->sched), 0);
}

static int check(struct extswitch *x, struct disk_info *d, size_t n, const struct pending_change *p, size_t np,
		 double t, struct event *ev)
{
	return extswitch_check(x, d, n, p, np, t, 1000 + t, ev, 4);
}

static void external_after_two_looks(void **state)
{
	(void)state;
	struct extswitch x = {0};
	struct disk_info d[2];
	struct event ev[4];
	disk(&d[0], "sda", "[none] mq-deadline kyber bfq");
	disk(&d[1], "sdb", "none [mq-deadline] kyber bfq");
	assert_int_equal(check(&x, d, 2, NULL, 0, 1, ev), 0); /* first sight */
	disk(&d[0], "sda", "none mq-deadline [kyber] bfq");
	assert_int_equal(check(&x, d, 2, NULL, 0, 2, ev), 0); /* once: maybe the tool's, not yet reported */
	assert_int_equal(check(&x, d, 2, NULL, 0, 3, ev), 1);
	assert_int_equal(ev[0].type, EV_SCHEDULER);
	assert_true(ev[0].ok);
	assert_string_equal(ev[0].disk, "sda");
	assert_string_equal(ev[0].from, "none");
	assert_string_equal(ev[0].to, "kyber");
	assert_string_equal(ev[0].key, EVENT_KEY_EXTERNAL);
	assert_true(ev[0].mono == 2 && ev[0].ts == 1002); /* when first seen */
	assert_int_equal(check(&x, d, 2, NULL, 0, 4, ev), 0); /* said once */
	/* a flicker back within one look is no switch */
	disk(&d[0], "sda", "none mq-deadline kyber [bfq]");
	assert_int_equal(check(&x, d, 2, NULL, 0, 5, ev), 0);
	disk(&d[0], "sda", "none mq-deadline [kyber] bfq");
	assert_int_equal(check(&x, d, 2, NULL, 0, 6, ev), 0);
	assert_int_equal(check(&x, d, 2, NULL, 0, 7, ev), 0);
	extswitch_free(&x);
}

static void own_switches(void **state)
{
	(void)state;
	struct extswitch x = {0};
	struct disk_info d;
	struct event ev[4];
	disk(&d, "sda", "[none] mq-deadline kyber bfq");
	assert_int_equal(check(&x, &d, 1, NULL, 0, 1, ev), 0);
	/* the tool's switch in the kernel: pending */
	struct pending_change p = {0};
	util_strlcpy(p.disk, "sda", sizeof p.disk);
	util_strlcpy(p.key, "scheduler", sizeof p.key);
	util_strlcpy(p.to, "bfq", sizeof p.to);
	disk(&d, "sda", "none mq-deadline kyber [bfq]");
	assert_int_equal(check(&x, &d, 1, &p, 1, 2, ev), 0);
	assert_int_equal(check(&x, &d, 1, NULL, 0, 3, ev), 0);
	/* the tool's switch that ended between its look at its queue and the
	 * sysfs read: seen once unexplained, then its event arrives */
	disk(&d, "sda", "none [mq-deadline] kyber bfq");
	assert_int_equal(check(&x, &d, 1, NULL, 0, 4, ev), 0);
	extswitch_note(&x, "sda", "mq-deadline");
	assert_int_equal(check(&x, &d, 1, NULL, 0, 5, ev), 0);
	assert_int_equal(check(&x, &d, 1, NULL, 0, 6, ev), 0);
	/* a tunable pending is no switch of the tool's */
	util_strlcpy(p.key, "nr_requests", sizeof p.key);
	disk(&d, "sda", "[none] mq-deadline kyber bfq");
	assert_int_equal(check(&x, &d, 1, &p, 1, 7, ev), 0);
	assert_int_equal(check(&x, &d, 1, &p, 1, 8, ev), 1);
	extswitch_free(&x);
}

static void disk_comes_back(void **state)
{
	(void)state;
	struct extswitch x = {0};
	struct disk_info d;
	struct event ev[4];
	disk(&d, "loop3", "[none] mq-deadline kyber bfq");
	assert_int_equal(check(&x, &d, 1, NULL, 0, 1, ev), 0);
	assert_int_equal(check(&x, &d, 0, NULL, 0, 2, ev), 0); /* gone */
	disk(&d, "loop3", "none mq-deadline kyber [bfq]");
	assert_int_equal(check(&x, &d, 1, NULL, 0, 3, ev), 0); /* a new device: first sight */
	assert_int_equal(check(&x, &d, 1, NULL, 0, 4, ev), 0);
	/* no scheduler at all (zram): nothing to follow */
	disk(&d, "zram0", "");
	assert_int_equal(check(&x, &d, 1, NULL, 0, 5, ev), 0);
	extswitch_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(external_after_two_looks),
		cmocka_unit_test(own_switches),
		cmocka_unit_test(disk_comes_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
