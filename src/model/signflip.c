/* signflip: see src/model/signflip.h */
#include "signflip.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/prng.h"

#define EXACT_MAX 12                /* rounds tested over all 2^n sign patterns; above, a fixed sample */
#define SAMPLED_FLIPS 5000
#define FLIP_SEED 0x5eedab17u       /* fixed: the same data always gets the same p-value */

/* The sign patterns a test runs over: all 2^n of them for up to
 * EXACT_MAX rounds, else a fixed sample (the observed one counted too).
 * For pattern k, a[k] = sum s_i d_i and b[k] = sum s_i, so the flipped sum
 * of (d - theta) is a[k] - theta b[k]: one multiply per pattern for any
 * theta the interval's bisection tries. */
struct flips {
	const double *d;
	int n, m, exact;
	double sum;
	double *a;
	int *b;
};

static int flips_build(const double *d, int n, struct flips *fl)
{
	fl->d = d;
	fl->n = n;
	fl->exact = n <= EXACT_MAX;
	fl->m = fl->exact ? 1 << n : SAMPLED_FLIPS;
	fl->a = malloc(sizeof *fl->a * (size_t)fl->m);
	fl->b = malloc(sizeof *fl->b * (size_t)fl->m);
	if (!fl->a || !fl->b) {
		free(fl->a);
		free(fl->b);
		return -1;
	}
	struct prng g;
	prng_seed(&g, FLIP_SEED);
	fl->sum = 0;
	for (int i = 0; i < n; i++)
		fl->sum += d[i];
	for (int k = 0; k < fl->m; k++) {
		uint64_t bits = fl->exact ? (uint64_t)k : 0;
		fl->a[k] = 0;
		fl->b[k] = 0;
		for (int i = 0; i < n; i++) {
			if (!fl->exact)
				bits = i % 64 ? bits >> 1 : prng_next(&g);
			int sgn = (fl->exact ? (bits >> i) : bits) & 1 ? 1 : -1;
			fl->a[k] += sgn * d[i];
			fl->b[k] += sgn;
		}
	}
	return 0;
}

static void flips_free(struct flips *fl)
{
	free(fl->a);
	free(fl->b);
}

/* The share of sign patterns of (d - theta) whose sum is at least as far
 * from 0 as the observed one. */
static double flip_p(const struct flips *fl, double theta)
{
	double scale = 0;
	for (int i = 0; i < fl->n; i++)
		scale += fabs(fl->d[i] - theta);
	double obs = fabs(fl->sum - fl->n * theta) - 1e-9 * (scale + 1e-12); /* ties count as reached */
	int hit = 0;
	for (int k = 0; k < fl->m; k++)
		hit += fabs(fl->a[k] - theta * fl->b[k]) >= obs;
	return fl->exact ? (double)hit / fl->m : (double)(hit + 1) / (fl->m + 1);
}

/* The edge of the interval between an accepted x_in and a rejected x_out. */
static double edge(const struct flips *fl, double alpha, double x_in, double x_out)
{
	for (int k = 0; k < 30; k++) { /* to a billionth of the data's range */
		double mid = (x_in + x_out) / 2;
		if (flip_p(fl, mid) > alpha)
			x_in = mid;
		else
			x_out = mid;
	}
	return x_in;
}

/* The normal quantile z with P(|Z| > z) = a, by bisection on erfc. */
double signflip_z(double a)
{
	double lo = 0, hi = 10;
	for (int k = 0; k < 60; k++) {
		double mid = (lo + hi) / 2;
		if (erfc(mid / sqrt(2)) > a)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void signflip_compare(const double *d, int n, double alpha, int min_pairs, struct abv_cmp *c)
{
	double sum = 0, lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < n; i++) {
		sum += d[i];
		lo = d[i] < lo ? d[i] : lo;
		hi = d[i] > hi ? d[i] : hi;
	}
	memset(c, 0, sizeof *c);
	c->npairs = n;
	c->ratio = c->lo = c->hi = c->spread = NAN;
	c->p = 1;
	if (n == 0)
		return;
	double m = sum / n, ss = 0;
	for (int i = 0; i < n; i++)
		ss += (d[i] - m) * (d[i] - m);
	c->ratio = exp(m);
	c->spread = n >= 2 ? sqrt(ss / (n - 1)) : NAN;
	struct flips fl;
	if (flips_build(d, n, &fl) < 0)
		return; /* without memory: undecided */
	c->p = flip_p(&fl, 0);
	if (n >= min_pairs) { /* below, no interval is bounded and nothing can be decided */
		double width = hi - lo + 1e-6;
		c->lo = exp(edge(&fl, alpha, m, lo - width));
		c->hi = exp(edge(&fl, alpha, m, hi + width));
		c->decided = c->p <= alpha && (c->lo > 1 || c->hi < 1);
	}
	flips_free(&fl);
}

/* b against a from a against b: the same test, the ratios turned over. */
void signflip_mirror(const struct abv_cmp *ab, struct abv_cmp *ba)
{
	*ba = *ab;
	ba->ratio = 1 / ab->ratio;
	ba->lo = 1 / ab->hi;
	ba->hi = 1 / ab->lo;
}

/* The attained bound of a sign-flip test at alpha over n rounds: the
 * largest p-value it can give that is still at or under alpha. */
double signflip_attained(double alpha, int n)
{
	if (n > EXACT_MAX)
		return alpha;
	double total = ldexp(1, n);
	return 2 * floor(alpha * total / 2) / total;
}

