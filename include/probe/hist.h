/* hist: a log-linear latency histogram (the scheme of fio's stat.c and
 * HdrHistogram): values 0..63 ns exactly, then each power of two split into
 * 64 equal sub-buckets. Reading a bucket's midpoint is within 1/128 (0.8 %)
 * of any value in it. Exact n, sum, min and max are kept beside the buckets. */
#ifndef IOSCHED_HIST_H
#define IOSCHED_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)        /* 64 */
#define HIST_MAX_BITS 42                      /* values up to 2^42 ns, ~73 minutes */
#define HIST_BUCKETS ((HIST_MAX_BITS - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t n;
	uint64_t sum_ns;
	uint64_t min_ns, max_ns;
	uint32_t count[HIST_BUCKETS];
};

void hist_reset(struct hist *h);

/* Add one value in ns (values past the range land in the last bucket;
 * max stays exact). */
void hist_add(struct hist *h, uint64_t ns);

/* dst += src */
void hist_merge(struct hist *dst, const struct hist *src);

/* Bucket of a value, and the [lo, hi] range a bucket covers. */
unsigned hist_bucket(uint64_t ns);
void hist_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi);

/* The value at quantile q (0 < q <= 1), as the midpoint of the bucket that
 * holds the ceil(q*n)-th smallest value, clamped to [min, max].
 * Returns 0 for an empty histogram. */
uint64_t hist_quantile(const struct hist *h, double q);

/* Whether n samples are enough to state quantile q: at least 1/(1-q) of them
 * (p50: 2, p90: 10, p99: 100, p99.9: 1000), so the figure is not just the
 * largest value seen. */
int hist_enough(uint64_t n, double q);

/* Quantile q in microseconds, or NAN when hist_enough says too few. */
double hist_quantile_us(const struct hist *h, double q);

double hist_mean_ns(const struct hist *h);

/* The summed length of the values above ns (each bucket read at its
 * midpoint, clamped to [min, max]): the time a QD1 reader spent in reads
 * slower than ns. */
uint64_t hist_sum_above(const struct hist *h, uint64_t ns);

/* How many values are at most ns, counting whole buckets whose upper
 * bound is at most ns (a bucket that straddles ns is left out: the count
 * is exact at bucket bounds and within one bucket, under 1.6 %, of ns
 * elsewhere). For cumulative "le" buckets. */
uint64_t hist_count_upto(const struct hist *h, uint64_t ns);

#endif
