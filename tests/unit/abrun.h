/* The A/B unit tests' synthetic runs (test_abstats.c, test_abwords.c):
 * phases whose truth is known, with the disk's luck (lognormal, bimodal,
 * drifting) laid over them, in the runner's A B B A order. */
#ifndef TEST_ABRUN_H
#define TEST_ABRUN_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "act/ab.h"
#include "model/abstats.h"
#include "probe/prng.h"

#define UNUSED __attribute__((unused))

/* What one variant does in a phase, before the disk's luck. */
struct truth {
	double read_us;             /* the steady reader's read time */
	double stall_share;         /* share of its time in 150 ms reads */
	double job_ms;
	double paced_us;
	int paced_n;                /* paced reads a phase */
};

/* A normal deviate (Box-Muller) from the test's own generator. */
UNUSED static double gauss(struct prng *g)
{
	double u = prng_unit(g), v = prng_unit(g);
	return sqrt(-2 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

/* One phase of t, every time figure multiplied by luck. */
UNUSED static void fill(struct ab_phase *p, const struct truth *t, double luck)
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
UNUSED static void run(struct ab_config *cfg, struct ab_result *res, const char *variants, const struct truth *t,
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

UNUSED static struct abv_report *verdicts_of(const struct ab_config *cfg, const struct ab_result *res)
{
	struct abv_report *r = malloc(sizeof *r);
	assert_non_null(r);
	assert_int_equal(abstats_compute(cfg, res, r), 0);
	return r;
}

UNUSED static const struct truth plain = {200, 0, 3000, 1500, 120};

#endif
