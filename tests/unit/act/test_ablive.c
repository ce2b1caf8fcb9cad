/* Unit tests of the live A/B's parts that need no disk: the coin's order
 * (repeatable from its seed, every order drawn about as often), and the
 * verdicts over synthetic slots of a live run whose truth is known: the
 * user's reads decide, the tool's own readers are not measured, and an A/A
 * of many live runs names a winner no more often than the test allows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abrun.h"
#include "act/ablive.h"

/* The same seed and round give the same order; each is a permutation;
 * over 4000 rounds of two variants each order comes 45 % to 55 % of the
 * time, and a round's order does not follow the one before (AB after AB
 * as often as after BA). */
static void coin_order(void **state)
{
	(void)state;
	int a[AB_MAX_VARIANTS], b[AB_MAX_VARIANTS];
	ablive_order(7, 3, 4, a);
	ablive_order(7, 3, 4, b);
	assert_memory_equal(a, b, sizeof(int) * 4);
	int seen = 0;
	for (int i = 0; i < 4; i++)
		seen |= 1 << a[i];
	assert_int_equal(seen, 0xf);
	int ab = 0, same = 0, prev = -1;
	for (int r = 0; r < 4000; r++) {
		ablive_order(12345, r, 2, a);
		ab += a[0] == 0;
		same += a[0] == prev;
		prev = a[0];
	}
	fprintf(stderr, "AB first in %d of 4000 rounds; the same order as the round before in %d\n", ab, same);
	assert_in_range(ab, 1800, 2200);
	assert_in_range(same, 1800, 2200);
}

/* A live run of `rounds` rounds in the coin's order: each slot's user
 * reads (n of them at read_us times luck, a tail at 5x), the probe's, and
 * a write rate. */
static void live_run(struct ab_config *cfg, struct ab_result *res, const double *read_us, int rounds, double sigma,
		     struct prng *g, uint64_t seed)
{
	char err[128];
	memset(cfg, 0, sizeof *cfg);
	assert_int_equal(ab_parse_variants("mq-deadline,kyber", cfg, err, sizeof err), 0);
	cfg->live = 1;
	cfg->rounds = rounds;
	cfg->dwell_s = 4;
	cfg->paced_rate_hz = 30;
	cfg->seed = seed;
	memset(res, 0, sizeof *res);
	res->phases = calloc((size_t)rounds * cfg->nv, sizeof *res->phases);
	assert_non_null(res->phases);
	int order[AB_MAX_VARIANTS];
	for (int r = 0; r < rounds; r++) {
		ablive_order(seed, r, cfg->nv, order);
		for (size_t k = 0; k < cfg->nv; k++) {
			struct ab_phase *p = &res->phases[res->nphases++];
			double luck = exp(sigma * gauss(g));
			p->variant = order[k];
			p->round = r + 1;
			p->secs = 4;
			p->yours_on = 1;
			for (int i = 0; i < 400; i++)
				hist_add(&p->yours, (uint64_t)(read_us[order[k]] * luck * 1e3 * (i % 100 == 99 ? 5 : 1)));
			for (int i = 0; i < 120; i++)
				hist_add(&p->paced, (uint64_t)(200e3 * exp(sigma * gauss(g))));
			p->write_MBps = 50 * exp(sigma * gauss(g));
		}
	}
}

/* kyber's user reads 2x faster: decided for the user's reads, with the
 * interval around 2; the tool's steady and fresh readers and cold starts
 * are not measured and not in any verdict. */
static void users_reads_decide(void **state)
{
	(void)state;
	struct prng g;
	prng_seed(&g, 3);
	struct ab_config cfg;
	struct ab_result res;
	const double us[2] = {400, 200};
	live_run(&cfg, &res, us, 8, 0.1, &g, 99);
	struct abv_report *r = malloc(sizeof *r);
	assert_int_equal(abstats_compute(&cfg, &res, r), 0);
	assert_true(r->live);
	assert_int_equal(r->v[ABV_YP99].best, 1);
	assert_true(r->v[ABV_YP99].c.lo < 2.0 && r->v[ABV_YP99].c.hi > 2.0);
	assert_int_equal(r->reader[ABV_YOURS].best, 1);
	assert_int_equal(r->v[ABV_RPS].leader, -1);
	assert_int_equal(r->v[ABV_STALL].leader, -1);
	assert_int_equal(r->v[ABV_JOB].leader, -1);
	assert_int_equal(r->v[ABV_COLD].leader, -1);
	assert_false(abstats_reader_used(&cfg, ABV_STEADY));
	assert_false(abstats_reader_used(&cfg, ABV_FRESH));
	assert_true(abstats_reader_used(&cfg, ABV_YOURS));
	assert_true(abstats_reader_used(&cfg, ABV_WRITES));
	cfg.live = 0; /* a built-in run never measures the user's */
	assert_false(abstats_reader_used(&cfg, ABV_YOURS));
	free(r);
	free(res.phases);
}

/* 400 live A/A runs of 8 rounds with lognormal luck per slot: the user's
 * reads' p99 decided in at most 5 % of them (8 % allowed for the runs'
 * own chance: 400 runs put 5 % within 2 standard deviations of 7.2 %). */
static void aa_live(void **state)
{
	(void)state;
	struct prng g;
	prng_seed(&g, 11);
	const double us[2] = {300, 300};
	int decided = 0;
	struct abv_report *r = malloc(sizeof *r);
	for (int i = 0; i < 400; i++) {
		struct ab_config cfg;
		struct ab_result res;
		live_run(&cfg, &res, us, 8, 0.3, &g, (uint64_t)i);
		assert_int_equal(abstats_compute(&cfg, &res, r), 0);
		decided += r->v[ABV_YP99].best >= 0;
		free(res.phases);
	}
	free(r);
	fprintf(stderr, "live A/A: your reads' p99 decided in %d of 400 runs\n", decided);
	assert_true(decided <= 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(coin_order),
		cmocka_unit_test(users_reads_decide),
		cmocka_unit_test(aa_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
