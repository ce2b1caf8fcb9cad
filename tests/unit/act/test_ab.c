/* Unit tests: the A/B runner's planning, without a device. The order of
 * the variants is balanced (each round the reverse of the one before, so
 * two variants run A B B A and no variant always goes first or follows
 * the same one), and variants parse into a scheduler and its settings,
 * known queue attributes apart from the scheduler's own files; bad lists
 * are refused with what is wrong. The load's size fits the free space:
 * the default shrinks to the largest power of two at most half of it,
 * never under the floor; a size the user gave is never shrunk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "act/ab.h"

static void test_order_balanced(void **state)
{
	(void)state;
	for (size_t nv = 2; nv <= AB_MAX_VARIANTS; nv++) {
		int pos_sum[AB_MAX_VARIANTS] = {0};
		for (int round = 0; round < 4; round++) {
			int order[AB_MAX_VARIANTS], seen[AB_MAX_VARIANTS] = {0};
			ab_order(nv, round, order);
			for (size_t i = 0; i < nv; i++) {
				assert_true(order[i] >= 0 && order[i] < (int)nv);
				assert_int_equal(seen[order[i]]++, 0); /* each variant once a round */
				pos_sum[order[i]] += (int)i;
			}
			if (round % 2) {
				int prev[AB_MAX_VARIANTS];
				ab_order(nv, round - 1, prev);
				/* the round after ends where the last one ended: A B | B A */
				assert_int_equal(order[0], prev[nv - 1]);
			}
		}
		/* over a pair of rounds every variant has the same mean position */
		for (size_t v = 1; v < nv; v++)
			assert_int_equal(pos_sum[v], pos_sum[0]);
	}
}

static void test_parse(void **state)
{
	(void)state;
	struct ab_config cfg;
	char err[256];
	memset(&cfg, 0, sizeof cfg);
	strcpy(cfg.disk, "nosuchdisk9");
	assert_int_equal(ab_parse_variants("bfq:low_latency=0:nr_requests=64,mq-deadline,none", &cfg, err, sizeof err), 0);
	assert_int_equal(cfg.nv, 3);
	assert_string_equal(cfg.v[0].sched, "bfq");
	assert_string_equal(cfg.v[0].text, "bfq:low_latency=0:nr_requests=64");
	assert_int_equal(cfg.v[0].ntun, 2);
	assert_int_equal(cfg.v[0].tun[0].kind, TUNE_IOSCHED); /* bfq's own file */
	assert_string_equal(cfg.v[0].tun[0].key, "low_latency");
	assert_string_equal(cfg.v[0].tun[0].value, "0");
	assert_int_equal(cfg.v[0].tun[1].kind, TUNE_QUEUE); /* a queue attribute */
	assert_int_equal(cfg.v[2].ntun, 0);

	assert_int_equal(ab_parse_variants("bfq", &cfg, err, sizeof err), -1);
	assert_non_null(strstr(err, "at least two"));
	assert_int_equal(ab_parse_variants("bfq:low_latency,none", &cfg, err, sizeof err), -1);
	assert_non_null(strstr(err, "not key=value"));
	assert_int_equal(ab_parse_variants("bfq:=1,none", &cfg, err, sizeof err), -1);
	assert_int_equal(ab_parse_variants("a,b,c,d,e,f,g,h,i", &cfg, err, sizeof err), -1);
	assert_non_null(strstr(err, "at most"));
}

static void test_load_fit(void **state)
{
	(void)state;
	const uint64_t M = 1ull << 20, G = 1ull << 30, def = 2 * G;
	assert_int_equal(load_size_fit(10 * G, def, 0), def);       /* fits: as asked */
	assert_int_equal(load_size_fit(4 * G, def, 1), def);        /* exactly twice fits */
	assert_int_equal(load_size_fit(1700 * M, def, 0), 512 * M); /* 1.7 GiB free: at most 850 MiB */
	assert_int_equal(load_size_fit(1700 * M, def, 1), 0);       /* given: refused, not shrunk */
	assert_int_equal(load_size_fit(2 * G, def, 0), G);
	assert_int_equal(load_size_fit(128 * M, def, 0), LOAD_SIZE_MIN);
	assert_int_equal(load_size_fit(128 * M - 1, def, 0), 0);    /* under twice the floor: none */
	assert_int_equal(load_size_fit(0, def, 0), 0);
	/* never more than asked, even where a larger power of two fits */
	assert_int_equal(load_size_fit(10 * G, 100 * M, 0), 100 * M);
	assert_int_equal(load_size_fit(190 * M, 100 * M, 0), 64 * M);
	for (uint64_t avail = 0; avail < 8 * G; avail += 37 * M) {
		uint64_t s = load_size_fit(avail, def, 0);
		assert_true(s == 0 || (s >= LOAD_SIZE_MIN && 2 * s <= avail && (s & (s - 1)) == 0));
		assert_true(s != 0 || avail < 2 * LOAD_SIZE_MIN);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_balanced),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_load_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
