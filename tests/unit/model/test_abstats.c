/* Unit tests of the A/B statistics on synthetic phases whose truth is
 * known, on the data they return (their words: test_abwords.c): identical
 * settings with noise (lognormal, bimodal, drifting) name no winner more
 * often than the test allows; a 10x effect is decided with an interval
 * around it; a variant faster in the middle and far worse in the tail is a
 * trade-off, not the best; too few rounds or too few reads for a p99 are
 * undecided, with the rounds left out and the phases that had the figure;
 * three variants are corrected for their pairs; two looks share the 5 %. */
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

/* Count the decided verdicts of many A/A runs. */
static int false_positives(enum noise kind, int runs, int rounds, int *verdicts)
{
	struct prng g;
	prng_seed(&g, 42 + (uint64_t)kind);
	struct truth t[2] = {plain, plain};
	int fp = 0;
	*verdicts = 0;
	for (int i = 0; i < runs; i++) {
		struct ab_config cfg;
		struct ab_result res;
		run(&cfg, &res, "kyber,kyber", t, rounds, kind, 0.3, &g);
		struct abv_report *r = verdicts_of(&cfg, &res);
		assert_true(r->aa);
		for (int f = 0; f < ABV_NFIGS; f++) {
			fp += r->v[f].best >= 0;
			(*verdicts)++;
		}
		free(r);
		free(res.phases);
	}
	return fp;
}

/* The most false positives n verdicts of `runs` runs may show when each
 * verdict is wrong at most 5 % of the time: 5 % of them, plus two standard
 * deviations of a count whose verdicts come in clumps (one phase's luck
 * moves every figure of the phase alike, so a run's figures are decided
 * together, up to four at a time). A t test on bimodal noise (a quarter
 * decided) or a fixed test looked at twice at 5 % each (up to 10 %) is
 * far above it. */
static double allowed(int n, int runs)
{
	return 0.05 * n + 2 * 4 * sqrt(runs * 0.05 * 0.95);
}

/* Identical settings: at most 5 % of the verdicts decided, whatever the
 * noise (the sign-flip test is exact, and its two looks share the 5 %);
 * a rule of non-overlapping ranges would pass a third of them. */
static void aa_no_winner(void **state)
{
	(void)state;
	const enum noise kinds[] = {LOGNORMAL, BIMODAL, DRIFT};
	for (size_t k = 0; k < 3; k++) {
		int n, fp = false_positives(kinds[k], 120, 6, &n);
		fprintf(stderr, "A/A noise %zu, 6 rounds: %d of %d verdicts decided\n", k, fp, n);
		assert_true(fp <= allowed(n, 120));
		fp = false_positives(kinds[k], 120, 14, &n); /* the sampled test, above 12 rounds; two looks (6 and 14) */
		fprintf(stderr, "A/A noise %zu, 14 rounds: %d of %d verdicts decided\n", k, fp, n);
		assert_true(fp <= allowed(n, 120));
	}
}

/* bfq's 10x on new readers, through 30 % noise, 6 rounds: decided, with an
 * interval that holds the truth and excludes 1. */
static void ten_x_decided(void **state)
{
	(void)state;
	struct prng g;
	prng_seed(&g, 7);
	struct truth t[2] = {plain, plain};
	t[1].job_ms = plain.job_ms / 10;
	struct ab_config cfg;
	struct ab_result res;
	run(&cfg, &res, "none,bfq", t, 6, LOGNORMAL, 0.3, &g);
	struct abv_report *r = verdicts_of(&cfg, &res);
	const struct abv_verdict *v = &r->v[ABV_JOB];
	assert_int_equal(v->best, 1);
	assert_int_equal(v->against, 0);
	assert_true(v->c.lo > 1 && v->c.lo < 10 && v->c.hi > 10);
	assert_true(v->c.ratio > 5 && v->c.ratio < 20);
	assert_int_equal(v->rounds_needed, 0);
	assert_int_equal(r->reader[ABV_FRESH].best, 1);
	/* the closing sentence's comparison: bfq against none, decided, bfq better */
	assert_true(r->pair[1][0][ABV_JOB].decided && r->pair[1][0][ABV_JOB].ratio > 1);
	assert_int_equal(v->ngaps, 0);
	free(r);
	free(res.phases);
}

/* A steady reader with 1.5x more reads/s under bfq, but 30 % of its time
 * in 150 ms reads (none: none): a trade-off, never bfq "best". */
static void tradeoff_not_best(void **state)
{
	(void)state;
	struct prng g;
	prng_seed(&g, 9);
	struct truth t[2] = {plain, plain};
	t[1].read_us = plain.read_us / 3;
	t[1].stall_share = 0.3;
	struct ab_config cfg;
	struct ab_result res;
	run(&cfg, &res, "none,bfq", t, 6, LOGNORMAL, 0.05, &g);
	struct abv_report *r = verdicts_of(&cfg, &res);
	assert_int_equal(r->v[ABV_RPS].best, 1);
	assert_int_equal(r->v[ABV_STALL].best, 0);
	assert_int_equal(r->reader[ABV_STEADY].best, -1);
	assert_true(r->reader[ABV_STEADY].tradeoff);
	free(r);
	free(res.phases);
	/* The stalls in only half of bfq's phases: the tail is not decided,
	 * but it is wide (about 5x), so bfq is still no best. */
	prng_seed(&g, 11);
	run(&cfg, &res, "none,bfq", t, 6, LOGNORMAL, 0.05, &g);
	struct truth calm = t[1];
	calm.stall_share = 0;
	for (size_t i = 0; i < res.nphases; i++) {
		struct ab_phase *p = &res.phases[i];
		if (p->variant == 1 && p->round > 3) {
			memset(p, 0, sizeof *p);
			p->variant = 1;
			p->round = (int)i / 2 + 1;
			fill(p, &calm, 1);
		}
	}
	r = verdicts_of(&cfg, &res);
	assert_int_equal(r->v[ABV_RPS].best, 1);
	assert_int_equal(r->v[ABV_STALL].best, -1);
	assert_int_equal(r->v[ABV_STALL].leader, 0);
	assert_int_equal(r->reader[ABV_STEADY].best, -1);
	assert_true(r->reader[ABV_STEADY].tradeoff);
	free(r);
	free(res.phases);
}

/* Two rounds of a 10x effect: nothing decided, and the report says why
 * and how many rounds would. */
static void too_few_rounds(void **state)
{
	(void)state;
	struct prng g;
	prng_seed(&g, 3);
	struct truth t[2] = {plain, plain};
	t[1].job_ms = plain.job_ms / 10;
	struct ab_config cfg;
	struct ab_result res;
	run(&cfg, &res, "none,bfq", t, 2, LOGNORMAL, 0.1, &g);
	struct abv_report *r = verdicts_of(&cfg, &res);
	const struct abv_verdict *v = &r->v[ABV_JOB];
	assert_int_equal(v->best, -1);
	assert_int_equal(v->leader, 1);
	assert_int_equal(v->rounds_needed, 6);
	assert_true(isnan(v->c.lo) && isnan(v->c.hi));
	assert_int_equal(v->c.npairs, 2);
	assert_int_equal(r->min_pairs, 6);
	assert_false(r->pair[1][0][ABV_JOB].decided); /* the closing sentence's "no clear change" */
	free(r);
	free(res.phases);
}

/* A noisy disk and a small effect: not decided "within noise", with the
 * own phases' spread and a number of rounds that would tell. */
static void within_noise(void **state)
{
	(void)state;
	struct prng g;
	prng_seed(&g, 5);
	struct truth t[2] = {plain, plain};
	t[1].paced_us = plain.paced_us * 1.1;
	struct ab_config cfg;
	struct ab_result res;
	run(&cfg, &res, "none,kyber", t, 6, LOGNORMAL, 0.4, &g);
	struct abv_report *r = verdicts_of(&cfg, &res);
	const struct abv_verdict *v = &r->v[ABV_P50];
	assert_int_equal(v->best, -1);
	assert_true(v->rounds_needed > 6);
	assert_false(isnan(r->own_spread[v->leader][ABV_P50]) || isnan(r->own_spread[v->against][ABV_P50]));
	assert_true(v->target >= 1.2);
	free(r);
	free(res.phases);
}

/* 50 paced reads a phase: no p99, and the report says what would give one. */
static void p99_needs_reads(void **state)
{
	(void)state;
	struct prng g;
	prng_seed(&g, 1);
	struct truth t[2] = {plain, plain};
	t[0].paced_n = t[1].paced_n = 50;
	struct ab_config cfg;
	struct ab_result res;
	run(&cfg, &res, "none,bfq", t, 6, LOGNORMAL, 0.1, &g);
	struct abv_report *r = verdicts_of(&cfg, &res);
	assert_int_equal(r->v[ABV_P99].leader, -1);
	assert_int_equal(r->v[ABV_P99].phases_with, 0);
	assert_int_equal(r->v[ABV_P99].phases_total, 12);
	assert_int_equal(r->v[ABV_P50].leader >= 0, 1);
	free(r);
	free(res.phases);
}

/* Three variants: each pair at 5 %/3, so 6 rounds cannot decide (7 can),
 * and "best" needs a win over both others. */
static void three_variants(void **state)
{
	(void)state;
	struct prng g;
	prng_seed(&g, 13);
	struct truth t[3] = {plain, plain, plain};
	t[2].job_ms = plain.job_ms / 10;
	struct ab_config cfg;
	struct ab_result res;
	run(&cfg, &res, "none,kyber,bfq", t, 6, LOGNORMAL, 0.1, &g);
	struct abv_report *r = verdicts_of(&cfg, &res);
	assert_int_equal(r->min_pairs, 7);
	assert_int_equal(r->v[ABV_JOB].best, -1);
	free(r);
	free(res.phases);
	run(&cfg, &res, "none,kyber,bfq", t, 8, LOGNORMAL, 0.1, &g);
	r = verdicts_of(&cfg, &res);
	assert_int_equal(r->v[ABV_JOB].best, 2);
	free(r);
	free(res.phases);
}

/* An A/A's noise: how far the same setting moved, and the smallest
 * difference these rounds could decide. */
static void aa_noise(void **state)
{
	(void)state;
	struct prng g;
	prng_seed(&g, 21);
	struct truth t[2] = {plain, plain};
	struct ab_config cfg;
	struct ab_result res;
	run(&cfg, &res, "bfq,bfq", t, 6, LOGNORMAL, 0.2, &g);
	struct abv_report *r = verdicts_of(&cfg, &res);
	assert_true(r->aa);
	assert_true(r->noise[ABV_RPS] > 1);
	assert_true(r->noise[ABV_RPS] >= r->own_spread[0][ABV_RPS] && r->noise[ABV_RPS] >= r->own_spread[1][ABV_RPS]);
	assert_true(r->smallest[ABV_RPS] > 1);
	assert_true(r->level > 0 && r->level <= 0.05);
	free(r);
	free(res.phases);
}


/* Phases whose figures swing widely, so that the pooled figure (all reads
 * together) and each variant's mean over its phases differ: every
 * verdict's two figures and ratio still come from one estimate (in the
 * words: test_abwords.c). */
static void one_estimate(void **state)
{
	(void)state;
	struct prng g;
	prng_seed(&g, 77);
	struct truth t[2] = {plain, plain};
	t[1].job_ms = plain.job_ms / 3;
	t[1].read_us = plain.read_us * 1.3;
	t[0].stall_share = 0.11;
	struct ab_config cfg;
	struct ab_result res;
	int differ = 0;
	for (int k = 0; k < 20; k++) {
		run(&cfg, &res, "none,bfq", t, 6, LOGNORMAL, 0.9, &g);
		struct abv_report *r = verdicts_of(&cfg, &res);
		for (int f = 0; f < ABV_NFIGS; f++) {
			const struct abv_verdict *v = &r->v[f];
			if (v->leader < 0)
				continue;
			int hb = abstats_fig((enum abv_fig)f)->higher_better;
			double mine = hb ? v->val_leader / v->val_against : v->val_against / v->val_leader;
			assert_true(fabs(mine / v->c.ratio - 1) < 1e-9);
			differ += fabs(v->val_leader / r->pooled[v->leader][f] - 1) > 0.05;
		}
		free(r);
		free(res.phases);
	}
	assert_true(differ > 0); /* the case the test is for did occur */
}

/* A stall share under the floor counts as the floor: none's 0 % is
 * ABV_STALL_FLOOR, and none is best. */
static void floor_counted(void **state)
{
	(void)state;
	struct prng g;
	prng_seed(&g, 8);
	struct truth t[2] = {plain, plain};
	t[1].stall_share = 0.112;
	struct ab_config cfg;
	struct ab_result res;
	run(&cfg, &res, "none,bfq", t, 6, LOGNORMAL, 0.05, &g);
	struct abv_report *r = verdicts_of(&cfg, &res);
	const struct abv_verdict *v = &r->v[ABV_STALL];
	assert_int_equal(v->best, 0);
	assert_true(fabs(v->val_leader / ABV_STALL_FLOOR - 1) < 1e-9);
	free(r);
	free(res.phases);
}

/* A round without a figure is left out, and the verdict says which and
 * whose phase lacked it. */
static void dropped_round_named(void **state)
{
	(void)state;
	struct prng g;
	prng_seed(&g, 9);
	struct truth t[2] = {plain, plain};
	t[1].job_ms = plain.job_ms / 10;
	struct ab_config cfg;
	struct ab_result res;
	run(&cfg, &res, "none,bfq", t, 6, LOGNORMAL, 0.1, &g);
	for (size_t i = 0; i < res.nphases; i++)
		if (res.phases[i].round == 3 && res.phases[i].variant == 1)
			res.phases[i].nfresh = 0;
	struct abv_report *r = verdicts_of(&cfg, &res);
	const struct abv_verdict *v = &r->v[ABV_JOB];
	assert_int_equal(v->best, -1);
	assert_int_equal(v->c.npairs, 5);
	assert_int_equal(v->ngaps, 1);
	assert_int_equal(v->gap[0].round, 3);
	assert_int_equal(v->gap[0].variant, 1);
	free(r);
	free(res.phases);
}

/* Two looks: a run planned for 12 rounds spends 2/2^6 at 6 rounds and the
 * rest at its end. A large effect on every figure is settled at 6 (the
 * runner may stop); a verdict decided at 6 keeps that look; the bound over
 * both looks stays at 5 %. */
static void two_looks(void **state)
{
	(void)state;
	struct prng g;
	prng_seed(&g, 10);
	struct truth t[2] = {plain, {plain.read_us / 4, 0.2, plain.job_ms / 10, plain.paced_us / 4, 120}};
	struct ab_config cfg;
	struct ab_result res;
	run(&cfg, &res, "none,bfq", t, 6, LOGNORMAL, 0.1, &g);
	cfg.rounds = 12;
	assert_true(abstats_settled(&cfg, &res));
	struct abv_report *r = verdicts_of(&cfg, &res);
	assert_int_equal(r->nlooks, 1);
	assert_true(fabs(r->look_alpha[0] - 1.0 / 32) < 1e-12);
	assert_int_equal(r->v[ABV_JOB].c.look, 6);
	free(r);
	cfg.rounds = 6; /* planned for 6: one look with all of the 5 %, nothing to stop early */
	assert_false(abstats_settled(&cfg, &res));
	free(res.phases);
	run(&cfg, &res, "none,bfq", t, 12, LOGNORMAL, 0.1, &g);
	r = verdicts_of(&cfg, &res);
	assert_int_equal(r->nlooks, 2);
	assert_int_equal(r->look[1], 12);
	assert_true(fabs(r->look_alpha[0] + r->look_alpha[1] - 0.05) < 1e-12);
	assert_true(r->level <= 0.05 + 1e-12);
	assert_int_equal(r->v[ABV_JOB].c.look, 6); /* decided at the first look: kept */
	assert_int_equal(r->v[ABV_JOB].c.npairs, 6);
	free(r);
	free(res.phases);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(aa_no_winner),      cmocka_unit_test(ten_x_decided),
		cmocka_unit_test(tradeoff_not_best), cmocka_unit_test(too_few_rounds),
		cmocka_unit_test(within_noise),      cmocka_unit_test(p99_needs_reads),
		cmocka_unit_test(three_variants),    cmocka_unit_test(aa_noise),
		cmocka_unit_test(one_estimate),      cmocka_unit_test(floor_counted),
		cmocka_unit_test(dropped_round_named), cmocka_unit_test(two_looks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
