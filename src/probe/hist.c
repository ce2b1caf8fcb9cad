/* hist: see include/probe/hist.h */
#include "probe/hist.h"

#include <math.h>
#include <string.h>

void hist_reset(struct hist *h)
{
	memset(h, 0, sizeof *h);
}

unsigned hist_bucket(uint64_t ns)
{
	if (ns < HIST_SUB)
		return (unsigned)ns;
	unsigned msb = 63u - (unsigned)__builtin_clzll(ns);
	if (msb >= HIST_MAX_BITS)
		return HIST_BUCKETS - 1;
	/* Keep the 7 top bits: 64..127, i.e. 64 sub-buckets of this power. */
	unsigned shift = msb - HIST_SUB_BITS;
	return (shift + 1) * HIST_SUB + (unsigned)((ns >> shift) - HIST_SUB);
}

void hist_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
	if (b < HIST_SUB) {
		*lo = *hi = b;
		return;
	}
	unsigned shift = b / HIST_SUB - 1;
	uint64_t base = (uint64_t)(HIST_SUB + b % HIST_SUB) << shift;
	*lo = base;
	*hi = base + (1ull << shift) - 1;
}

void hist_add(struct hist *h, uint64_t ns)
{
	h->count[hist_bucket(ns)]++;
	if (h->n == 0 || ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->n++;
	h->sum_ns += ns;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (src->n == 0)
		return;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->count[i] += src->count[i];
	if (dst->n == 0 || src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	dst->n += src->n;
	dst->sum_ns += src->sum_ns;
}

/* A bucket's midpoint, clamped to the exact extremes. */
static uint64_t bucket_mid(const struct hist *h, unsigned b)
{
	uint64_t lo, hi;
	hist_bucket_range(b, &lo, &hi);
	uint64_t mid = lo + (hi - lo) / 2;
	if (mid < h->min_ns)
		mid = h->min_ns;
	if (mid > h->max_ns)
		mid = h->max_ns;
	return mid;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	if (h->n == 0)
		return 0;
	if (q <= 0)
		return h->min_ns;
	if (q >= 1)
		return h->max_ns;
	/* rank = ceil(q * n), the classic "nearest rank" definition */
	uint64_t rank = (uint64_t)(q * (double)h->n);
	if ((double)rank < q * (double)h->n)
		rank++;
	/* The smallest and largest values are known exactly. */
	if (rank <= 1)
		return h->min_ns;
	if (rank >= h->n)
		return h->max_ns;
	uint64_t seen = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h->count[b];
		if (seen >= rank)
			return bucket_mid(h, b);
	}
	return h->max_ns;
}

int hist_enough(uint64_t n, double q)
{
	if (n == 0 || q >= 1)
		return n > 0;
	/* n * (1 - q) >= 1, with a little slack for 0.999's rounding. */
	return (double)n * (1.0 - q) >= 1.0 - 1e-9;
}

double hist_quantile_us(const struct hist *h, double q)
{
	return hist_enough(h->n, q) ? (double)hist_quantile(h, q) / 1e3 : NAN;
}

double hist_mean_ns(const struct hist *h)
{
	return h->n ? (double)h->sum_ns / (double)h->n : 0.0;
}

uint64_t hist_sum_above(const struct hist *h, uint64_t ns)
{
	uint64_t sum = 0;
	if (h->n == 0 || h->max_ns <= ns)
		return 0;
	for (unsigned b = hist_bucket(ns); b < HIST_BUCKETS; b++) {
		if (!h->count[b])
			continue;
		uint64_t mid = bucket_mid(h, b);
		if (mid > ns)
			sum += mid * h->count[b];
	}
	return sum;
}

uint64_t hist_count_upto(const struct hist *h, uint64_t ns)
{
	if (h->n == 0)
		return 0;
	if (h->max_ns <= ns)
		return h->n;
	uint64_t n = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		uint64_t lo, hi;
		hist_bucket_range(b, &lo, &hi);
		if (hi > ns)
			break;
		n += h->count[b];
	}
	return n;
}
