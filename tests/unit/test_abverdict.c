/* Unit tests of the A/B verdicts on synthetic phases whose truth is known:
 * identical settings with noise (lognormal, bimodal, drifting) name no
 * winner more often than the test allows; a 10x effect is decided with an
 * interval around it; a variant faster in the middle and far worse in the
 * tail is a trade-off, not the best; too few rounds or too few reads for a
 * p99 are undecided with the reason; three variants are corrected for
 * their pairs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act/ab.h"
#include "model/abverdict.h"
#include "probe/prng.h"

/* What one variant does in a phase, before the disk's luck. */
struct truth {
	double read_us;             /* the steady reader's read time */
	double stall_share;         /* share of its time in 150 ms reads */
	double job_ms;
	double paced_us;
	int paced_n;                /* paced reads a phase */
};

/* A normal deviate (Box-Muller) from the test's own generator. */
static double gauss(struct prng *g)
{
	double u = prng_unit(g), v = prng_unit(g);
	return sqrt(-2 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

/* One phase of t, every time figure multiplied by luck. */
static void fill(struct ab_phase *p, const struct truth *t, double luck)
{
	double secs = 5;
	double slow_s = secs * t->stall_share, fast_s = secs - slow_s;
	uint64_t ns = (uint64_t)(t->read_us * luck * 1e3);
	uint64_t nfast = (uint64_t)(fast_s * 1e9 / (double)ns);
	for (uint64_t i = 0; i < nfast; i++)
		hist_add(&p->h, ns);
	for (int i = 0; i < (int)(slow_s / 0.15); i++)
		hist_add(&p->h, 150000000);
	p->secs = secs;
	for (int i = 0; i < t->paced_n; i++)
		hist_add(&p->paced, (uint64_t)(t->paced_us * luck * 1e3 * (1 + 0.01 * (i % 7))));
	for (int k = 0; k < AB_FRESH_RUNS; k++)
		p->fresh_ms[p->nfresh++] = t->job_ms * luck * (1 + 0.02 * k);
}

enum noise { LOGNORMAL, BIMODAL, DRIFT };

/* A run of `rounds` A B B A rounds of the variants in t (nv of them). */
static void run(struct ab_config *cfg, struct ab_result *res, const char *variants, const struct truth *t,
		int rounds, enum noise kind, double sigma, struct prng *g)
{
	char err[128];
	memset(cfg, 0, sizeof *cfg);
	assert_int_equal(ab_parse_variants(variants, cfg, err, sizeof err), 0);
	cfg->rounds = rounds;
	cfg->dwell_s = 5;
	cfg->paced_rate_hz = 20;
	memset(res, 0, sizeof *res);
	res->phases = calloc((size_t)rounds * cfg->nv, sizeof *res->phases);
	assert_non_null(res->phases);
	int order[AB_MAX_VARIANTS];
	for (int r = 0; r < rounds; r++) {
		ab_order(cfg->nv, r, order);
		for (size_t k = 0; k < cfg->nv; k++) {
			struct ab_phase *p = &res->phases[res->nphases];
			p->variant = order[k];
			p->round = r + 1;
			double luck = kind == BIMODAL ? (prng_unit(g) < 0.5 ? 1 : 3) * exp(0.05 * gauss(g))
				      : kind == DRIFT ? exp(0.1 * (double)res->nphases + 0.05 * gauss(g))
						      : exp(sigma * gauss(g));
			fill(p, &t[order[k]], luck);
			res->nphases++;
		}
	}
}

static struct abv_report *verdicts_of(const struct ab_config *cfg, const struct ab_result *res)
{
	struct abv_report *r = malloc(sizeof *r);
	assert_non_null(r);
	assert_int_equal(abverdict_compute(cfg, res, r), 0);
	return r;
}

static const struct truth plain = {200, 0, 3000, 1500, 120};

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
	assert_non_null(strstr(v->text, "fresh job time: bfq best"));
	assert_int_equal(r->reader[ABV_FRESH].best, 1);
	/* the closing sentence says the same, from the same test */
	char text[1024];
	abverdict_change(r, &cfg, 1, -15, text, sizeof text);
	assert_non_null(strstr(text, "new readers: ") && strstr(text, "faster jobs ("));
	assert_null(strstr(text, "slower jobs"));
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
	assert_non_null(strstr(r->reader[ABV_STEADY].text, "steady: a trade-off, no best"));
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
	assert_non_null(strstr(v->text, "not decided"));
	assert_non_null(strstr(v->text, "2 round(s) cannot decide anything: the test needs 6 or more (--rounds 6)"));
	char text[1024];
	abverdict_change(r, &cfg, 1, NAN, text, sizeof text);
	assert_non_null(strstr(text, "new readers: job time no clear change"));
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
	assert_non_null(strstr(v->text, "own phases differed"));
	assert_true(strstr(v->text, "rounds would tell") || strstr(v->text, "more than 100 rounds"));
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
	assert_non_null(strstr(r->v[ABV_P99].text, "a p99 needs 100 reads in a phase, 0 of 12 phases had them"));
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

/* A/A's labels tell the two apart; the noise lines say what this disk can
 * decide. */
static void aa_labels_and_noise(void **state)
{
	(void)state;
	struct prng g;
	prng_seed(&g, 21);
	struct truth t[2] = {plain, plain};
	struct ab_config cfg;
	struct ab_result res;
	run(&cfg, &res, "bfq,bfq", t, 6, LOGNORMAL, 0.2, &g);
	char a[48], b[48], line[400];
	abverdict_label(&cfg, 0, a, sizeof a);
	abverdict_label(&cfg, 1, b, sizeof b);
	assert_string_equal(a, "bfq#1");
	assert_string_equal(b, "bfq#2");
	struct abv_report *r = verdicts_of(&cfg, &res);
	abverdict_noise(r, ABV_RPS, line, sizeof line);
	assert_non_null(strstr(line, "steady reads/s: the same setting's phases differed up to "));
	assert_non_null(strstr(line, "6 rounds would decide about "));
	assert_true(r->smallest[ABV_RPS] > 1);
	assert_true(r->level > 0 && r->level <= 0.05);
	free(r);
	free(res.phases);
}


/* A printed figure ("2200.2/s", "2.2 %", "under 1 %", "741us", "1.07ms",
 * "1.20s") as its value in base units and the half of its last digit. */
static void parse_fig(const char *s, double *v, double *h)
{
	int under = !strncmp(s, "under ", 6);
	s += under ? 6 : 0;
	char *end;
	*v = strtod(s, &end);
	const char *dot = strchr(s, '.');
	int decimals = dot && dot < end ? (int)(end - dot - 1) : 0;
	*h = under ? 0 : 0.5 * pow(10, -decimals);
	double unit = !strncmp(end, " %", 2) ? 0.01 : !strncmp(end, "us", 2) ? 1e-6 : !strncmp(end, "ms", 2) ? 1e-3
		      : !strncmp(end, "/s", 2) ? 1 : 1;
	*v *= unit;
	*h *= unit;
}

/* A verdict's sentence, checked as a reader would: the ratio printed
 * beside the two figures is their ratio, within the printed rounding. */
static void check_sentence(const char *text, int higher_better)
{
	char va[64], vb[64];
	const char *p = strstr(text, " best, "), *q;
	int best = p != NULL;
	if (best) {
		p += 7;
	} else {
		p = strstr(text, "not decided, ");
		assert_non_null(p);
		p = strchr(p + 13, ' ') + 1; /* past the leader's name */
	}
	q = strstr(p, " against ");
	assert_non_null(q);
	snprintf(va, sizeof va, "%.*s", (int)(q - p), p);
	p = strchr(q + 9, ' ') + 1; /* past the other's name */
	q = strstr(p, best ? ": " : " (");
	assert_non_null(q);
	snprintf(vb, sizeof vb, "%.*s", (int)(q - p), p);
	char *end;
	double x = strtod(q + 2, &end), a, ha, b, hb;
	assert_true(*end == 'x');
	double hx = strchr(q + 2, '.') && strchr(q + 2, '.') < end ? 0.005 : 0.5;
	parse_fig(va, &a, &ha);
	parse_fig(vb, &b, &hb);
	/* the leader's advantage: a/b when higher is better, b/a when lower */
	double lo = higher_better ? (a - ha) / (b + hb) : (b - hb) / (a + ha);
	double hi = higher_better ? (a + ha) / (b - hb) : (b + hb) / (a - ha);
	if (x + hx < lo || x - hx > hi)
		fprintf(stderr, "arithmetic: %s\n  %s against %s gives %.3f-%.3f, printed %.2fx\n", text, va, vb, lo, hi, x);
	assert_true(x + hx >= lo && x - hx <= hi);
}

/* Phases whose figures swing widely, so that the pooled figure (all reads
 * together) and each variant's mean over its phases differ: every
 * verdict's two figures and ratio still come from one estimate, in the
 * numbers and in the words. */
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
			int hb = abverdict_fig((enum abv_fig)f)->higher_better;
			double mine = hb ? v->val_leader / v->val_against : v->val_against / v->val_leader;
			assert_true(fabs(mine / v->c.ratio - 1) < 1e-9);
			differ += fabs(v->val_leader / r->pooled[v->leader][f] - 1) > 0.05;
			check_sentence(v->text, hb);
		}
		free(r);
		free(res.phases);
	}
	assert_true(differ > 0); /* the case the test is for did occur */
}

/* A stall share under the floor is printed as the floor it counts as. */
static void floor_printed(void **state)
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
	assert_non_null(strstr(v->text, "none best, under 1 % against bfq "));
	assert_null(strstr(v->text, "0.0 %"));
	check_sentence(v->text, 0);
	free(r);
	free(res.phases);
}

/* A round without a figure is left out, and the sentence says which and
 * why. */
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
	assert_non_null(strstr(v->text, "5 round(s) cannot decide anything: the test needs 6 or more"));
	assert_non_null(strstr(v->text, "left out: round 3 (bfq: no fresh job ended)"));
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
	assert_true(abverdict_settled(&cfg, &res));
	struct abv_report *r = verdicts_of(&cfg, &res);
	assert_int_equal(r->nlooks, 1);
	assert_true(fabs(r->look_alpha[0] - 1.0 / 32) < 1e-12);
	assert_int_equal(r->v[ABV_JOB].c.look, 6);
	free(r);
	cfg.rounds = 6; /* planned for 6: one look with all of the 5 %, nothing to stop early */
	assert_false(abverdict_settled(&cfg, &res));
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
		cmocka_unit_test(three_variants),    cmocka_unit_test(aa_labels_and_noise),
		cmocka_unit_test(one_estimate),      cmocka_unit_test(floor_printed),
		cmocka_unit_test(dropped_round_named), cmocka_unit_test(two_looks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
