/* Unit tests of the A/B verdict's words (out/abwords.h): on verdicts
 * computed from synthetic runs (tests/unit/abrun.h), every sentence says
 * what the data says (the winner, the reason it is not decided, the rounds
 * left out, the floor a stall share counts as, a ratio that is the ratio
 * of the two figures printed beside it); and on reports made by hand, the
 * words of each case of the struct. */
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
#include "out/abwords.h"

/* Figure f's verdict in words. */
static const char *said(const struct abv_report *r, const struct ab_config *cfg, enum abv_fig f)
{
	static char text[ABW_VERDICT_LEN];
	abwords_verdict(r, cfg, f, text, sizeof text);
	return text;
}

static const char *said_reader(const struct abv_report *r, const struct ab_config *cfg, enum abv_reader rd)
{
	static char text[ABW_READER_LEN];
	abwords_reader(r, cfg, rd, text, sizeof text);
	return text;
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

/* A pooled figure (the report's table, abstats' units) in the base units
 * parse_fig gives. */
static double base_units(enum abv_fig f, double x)
{
	return f == ABV_JOB ? x * 1e-3 : f == ABV_COLD || f == ABV_RPS || f == ABV_STALL || f == ABV_WMB ? x : x * 1e-6;
}

/* A verdict's sentence, checked as a reader would: its two figures are
 * the table's (each variant's phases pooled), within the printed
 * rounding, and the ratio it gives "by round" is the test's. */
static void check_sentence(const char *text, const struct abv_report *r, enum abv_fig f)
{
	char va[64], vb[64];
	const struct abv_verdict *v = &r->v[f];
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
	const char *sep = best ? "; by round " : " (";
	q = strstr(p, sep);
	assert_non_null(q);
	snprintf(vb, sizeof vb, "%.*s", (int)(q - p), p);
	char *end;
	double x = strtod(q + strlen(sep), &end), a, ha, b, hb;
	assert_true(*end == 'x');
	double hx = strchr(q + strlen(sep), '.') && strchr(q + strlen(sep), '.') < end ? 0.005 : 0.5;
	parse_fig(va, &a, &ha);
	parse_fig(vb, &b, &hb);
	double pa = base_units(f, r->pooled[v->leader][f]), pb = base_units(f, r->pooled[v->against][f]);
	int ok = fabs(a - pa) <= ha * 1.001 + 1e-12 && fabs(b - pb) <= hb * 1.001 + 1e-12;
	if (f == ABV_STALL) /* "under 1 %": the floor it counts as */
		ok |= (!strncmp(va, "under", 5) || fabs(a - pa) <= ha * 1.001) && (!strncmp(vb, "under", 5) || fabs(b - pb) <= hb * 1.001);
	if (!ok || fabs(x - v->c.ratio) > hx + 1e-9)
		fprintf(stderr, "not the table's: %s\n  pooled %g and %g, ratio %.3f\n", text, pa, pb, v->c.ratio);
	assert_true(ok);
	assert_true(fabs(x - v->c.ratio) <= hx + 1e-9);
}

/* bfq's 10x on new readers, decided: the verdict and the closing sentence
 * say so, from the same test. */
static void ten_x_words(void **state)
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
	assert_non_null(strstr(said(r, &cfg, ABV_JOB), "fresh job time: bfq best"));
	char text[1024];
	abwords_change(r, &cfg, 1, -15, text, sizeof text);
	assert_non_null(strstr(text, "new readers: ") && strstr(text, "faster jobs ("));
	assert_null(strstr(text, "slower jobs"));
	free(r);
	free(res.phases);
}

/* 1.5x more reads/s under bfq and 30 % of its time stalled: the steady
 * reader's words name a trade-off. */
static void tradeoff_words(void **state)
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
	assert_non_null(strstr(said_reader(r, &cfg, ABV_STEADY), "steady: a trade-off, no best"));
	free(r);
	free(res.phases);
}

/* Two rounds: "not decided", why, and how many rounds would decide. */
static void too_few_rounds_words(void **state)
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
	const char *text = said(r, &cfg, ABV_JOB);
	assert_non_null(strstr(text, "not decided"));
	assert_non_null(strstr(text, "2 round(s) cannot decide anything: the test needs 6 or more (--rounds 6)"));
	char change[1024];
	abwords_change(r, &cfg, 1, NAN, change, sizeof change);
	assert_non_null(strstr(change, "new readers: job time no clear change"));
	free(r);
	free(res.phases);
}

/* A small effect on a noisy disk: "within noise", the own phases' spread
 * and the rounds that would tell. */
static void within_noise_words(void **state)
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
	const char *text = said(r, &cfg, ABV_P50);
	assert_non_null(strstr(text, "own phases differed"));
	assert_true(strstr(text, "rounds would tell") || strstr(text, "more than 100 rounds"));
	free(r);
	free(res.phases);
}

/* 50 paced reads a phase: the p99's words say what would give one. */
static void p99_words(void **state)
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
	assert_non_null(strstr(said(r, &cfg, ABV_P99), "a p99 needs 100 reads in a phase, 0 of 12 phases had them"));
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
	abwords_label(&cfg, 0, a, sizeof a);
	abwords_label(&cfg, 1, b, sizeof b);
	assert_string_equal(a, "bfq#1");
	assert_string_equal(b, "bfq#2");
	struct abv_report *r = verdicts_of(&cfg, &res);
	abwords_noise(r, ABV_RPS, line, sizeof line);
	assert_non_null(strstr(line, "steady reads/s: the same setting's phases differed up to "));
	assert_non_null(strstr(line, "6 rounds would decide about "));
	free(r);
	free(res.phases);
}

/* Phases whose figures swing widely: every sentence's ratio is the ratio
 * of the two figures printed beside it. */
static void one_estimate_words(void **state)
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
	for (int k = 0; k < 20; k++) {
		run(&cfg, &res, "none,bfq", t, 6, LOGNORMAL, 0.9, &g);
		struct abv_report *r = verdicts_of(&cfg, &res);
		for (int f = 0; f < ABV_NFIGS; f++)
			if (r->v[f].leader >= 0)
				check_sentence(said(r, &cfg, (enum abv_fig)f), r, (enum abv_fig)f);
		free(r);
		free(res.phases);
	}
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
	assert_int_equal(r->v[ABV_STALL].best, 0);
	const char *text = said(r, &cfg, ABV_STALL);
	assert_non_null(strstr(text, "none best, under 1 % against bfq "));
	assert_null(strstr(text, "0.0 %"));
	check_sentence(text, r, ABV_STALL);
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
	const char *text = said(r, &cfg, ABV_JOB);
	assert_non_null(strstr(text, "5 round(s) cannot decide anything: the test needs 6 or more"));
	assert_non_null(strstr(text, "left out: round 3 (bfq: no fresh job ended)"));
	free(r);
	free(res.phases);
}

/* A report made by hand: none against bfq on the paced p99, undecided
 * after 8 rounds, four of them left out. */
static struct abv_report *by_hand(struct ab_config *cfg)
{
	char err[128];
	memset(cfg, 0, sizeof *cfg);
	assert_int_equal(ab_parse_variants("none,bfq", cfg, err, sizeof err), 0);
	cfg->paced_rate_hz = 20;
	struct abv_report *r = calloc(1, sizeof *r);
	assert_non_null(r);
	r->nv = 2;
	r->min_pairs = 6;
	r->rounds = 12;
	for (int f = 0; f < ABV_NFIGS; f++) {
		r->v[f] = (struct abv_verdict){.fig = (enum abv_fig)f, .leader = -1, .against = -1, .best = -1};
		r->own_spread[0][f] = r->own_spread[1][f] = r->noise[f] = r->smallest[f] = NAN;
	}
	for (int rd = 0; rd < ABV_NREADERS; rd++)
		r->reader[rd] = (struct abv_reader_verdict){.best = -1, .tradeoff = 0};
	struct abv_verdict *v = &r->v[ABV_P99];
	v->leader = 1;
	v->against = 0;
	v->c = (struct abv_cmp){.npairs = 8, .look = 12, .ratio = 1.25, .lo = 0.9, .hi = 1.7, .p = 0.2, .spread = 0.3};
	v->val_leader = 2000;
	v->val_against = 2500;
	r->pooled[1][ABV_P99] = 2100; /* the table's, which the sentence gives */
	r->pooled[0][ABV_P99] = 2400;
	v->rounds_needed = 20;
	v->target = 1.25;
	v->ngaps = 4;
	v->gap[0] = (struct abv_gap){2, 0, 60};
	v->gap[1] = (struct abv_gap){5, 1, 0};
	v->gap[2] = (struct abv_gap){7, -1, 0};
	v->gap[3] = (struct abv_gap){9, 0, 12};
	return r;
}

/* The words of each case of the struct: the gaps named (three, then "and
 * N more", each with why), within noise with the rounds that would tell,
 * a figure not measured with its phases, a reader not decided. */
static void words_of_struct(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct abv_report *r = by_hand(&cfg);
	const char *text = said(r, &cfg, ABV_P99);
	assert_non_null(strstr(text, "paced p99: not decided, bfq 2.10ms against none 2.40ms (1.25x lower p99, 0.90x-1.70x)"));
	assert_non_null(strstr(text, "within noise; about 20 rounds would tell 1.25x"));
	assert_non_null(strstr(text, "; left out: round 2 (none: 60 paced reads, a p99 needs 100), round 5 (bfq: no "
				     "paced reads), round 7 (the run stopped before its phases) and 1 more"));
	r->v[ABV_JOB].phases_with = 3;
	r->v[ABV_JOB].phases_total = 12;
	assert_string_equal(said(r, &cfg, ABV_JOB), "fresh job time: not measured in any round (3 of 12 phases have it)");
	/* a live run whose slots mostly held too few of the user's reads (a
	 * bursty build): a longer --dwell, by as many times as slots lacked them */
	cfg.live = 1;
	cfg.dwell_s = 4;
	r->v[ABV_YP99].phases_with = 2;
	r->v[ABV_YP99].phases_total = 12;
	assert_string_equal(said(r, &cfg, ABV_YP99), "your programs' read p99: not measured in any round (2 of 12 slots "
						     "have it); 10 of 12 slots held too few of your reads: --dwell 24 "
						     "gives each more");
	r->v[ABV_YP99].phases_with = 7; /* most had them: no hint */
	assert_null(strstr(said(r, &cfg, ABV_YP99), "--dwell"));
	cfg.live = 0;
	assert_string_equal(said_reader(r, &cfg, ABV_PACED),
			    "paced: not decided (p50 not measured, bfq 1.25x lower p99)");
	/* decided for bfq: best, with its interval and rounds */
	r->v[ABV_P99].best = 1;
	r->v[ABV_P99].c.lo = 1.1;
	r->v[ABV_P99].ngaps = 0;
	r->reader[ABV_PACED].best = 1;
	assert_string_equal(said(r, &cfg, ABV_P99),
			    "paced p99: bfq best, 2.10ms against none 2.40ms; by round 1.25x lower p99 (1.10x-1.70x, 8 rounds)");
	assert_string_equal(said_reader(r, &cfg, ABV_PACED), "paced: bfq better (p50 not measured, bfq 1.25x lower p99)");
	r->reader[ABV_PACED].best = -1;
	r->reader[ABV_PACED].tradeoff = 1;
	assert_non_null(strstr(said_reader(r, &cfg, ABV_PACED), "paced: a trade-off, no best: "));
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ten_x_words),         cmocka_unit_test(tradeoff_words),
		cmocka_unit_test(too_few_rounds_words), cmocka_unit_test(within_noise_words),
		cmocka_unit_test(p99_words),           cmocka_unit_test(aa_labels_and_noise),
		cmocka_unit_test(one_estimate_words),  cmocka_unit_test(floor_printed),
		cmocka_unit_test(dropped_round_named), cmocka_unit_test(words_of_struct),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
