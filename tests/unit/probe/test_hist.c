/* Unit tests: the latency histogram against exact percentiles, its error
 * bound, the windows, the "too few samples" rule, and the offset PRNG. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probe/hist.h"
#include "probe/latwin.h"
#include "probe/prng.h"
#include "probe/readfig.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static uint64_t exact(const uint64_t *v, size_t n, double q)
{
	size_t rank = (size_t)ceil(q * (double)n);
	if (rank < 1)
		rank = 1;
	return v[rank - 1];
}

static void check_set(uint64_t *v, size_t n, const char *what)
{
	struct hist *h = malloc(sizeof *h);
	hist_reset(h);
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		hist_add(h, v[i]);
		sum += v[i];
	}
	qsort(v, n, sizeof *v, cmp_u64);
	const double qs[] = {0.5, 0.9, 0.99, 0.999};
	for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
		double e = (double)exact(v, n, qs[i]), got = (double)hist_quantile(h, qs[i]);
		if (fabs(got - e) > e * 0.01)
			fail_msg("%s: q%.3f exact %.0f, histogram %.0f (> 1%% off)", what, qs[i], e, got);
	}
	assert_int_equal(h->n, n);
	assert_int_equal(h->max_ns, v[n - 1]);
	assert_int_equal(h->min_ns, v[0]);
	assert_float_equal(hist_mean_ns(h), (double)sum / (double)n, 1e-6);
	free(h);
}

#define N 100000

static void test_uniform(void **state)
{
	(void)state;
	struct prng p;
	prng_seed(&p, 1);
	uint64_t *v = malloc(N * sizeof *v);
	for (size_t i = 0; i < N; i++)
		v[i] = 50000 + prng_below(&p, 5000000); /* 50 us .. 5 ms */
	check_set(v, N, "uniform");
	free(v);
}

static void test_bimodal(void **state)
{
	(void)state;
	struct prng p;
	prng_seed(&p, 2);
	uint64_t *v = malloc(N * sizeof *v);
	for (size_t i = 0; i < N; i++)
		v[i] = prng_unit(&p) < 0.9 ? 90000 + prng_below(&p, 20000)     /* ~100 us */
					   : 8000000 + prng_below(&p, 4000000); /* ~10 ms */
	check_set(v, N, "bimodal");
	free(v);
}

static void test_heavy_tail(void **state)
{
	(void)state;
	struct prng p;
	prng_seed(&p, 3);
	uint64_t *v = malloc(N * sizeof *v);
	for (size_t i = 0; i < N; i++) /* Pareto, alpha 1.2, from 80 us */
		v[i] = (uint64_t)(80000.0 / pow(1.0 - prng_unit(&p), 1.0 / 1.2));
	check_set(v, N, "heavy tail");
	free(v);
}

static void test_bucket_error_bound(void **state)
{
	(void)state;
	/* Buckets tile the range with no gap or overlap ... */
	for (unsigned b = 0; b + 1 < HIST_BUCKETS; b++) {
		uint64_t lo, hi, lo2, hi2;
		hist_bucket_range(b, &lo, &hi);
		hist_bucket_range(b + 1, &lo2, &hi2);
		assert_true(lo <= hi);
		assert_int_equal(hi + 1, lo2);
	}
	/* ... and a bucket's midpoint is within 1/128 of every value in it. */
	struct prng p;
	prng_seed(&p, 4);
	for (int i = 0; i < 200000; i++) {
		uint64_t v = prng_next(&p) >> (22 + prng_below(&p, 40)); /* 1 .. 2^42 */
		uint64_t lo, hi;
		unsigned b = hist_bucket(v);
		hist_bucket_range(b, &lo, &hi);
		if (v < lo || v > hi)
			fail_msg("%llu outside its bucket [%llu, %llu]", (unsigned long long)v,
				 (unsigned long long)lo, (unsigned long long)hi);
		double mid = (double)(lo + (hi - lo) / 2);
		if (v && fabs(mid - (double)v) / (double)v > 1.0 / 128 + 1e-12)
			fail_msg("value %llu read as %.0f", (unsigned long long)v, mid);
	}
	/* Small values are exact; huge ones land in the last bucket. */
	assert_int_equal(hist_bucket(63), 63);
	assert_int_equal(hist_bucket(UINT64_MAX), HIST_BUCKETS - 1);
}

static void test_enough(void **state)
{
	(void)state;
	assert_false(hist_enough(0, 0.5));
	assert_false(hist_enough(1, 0.5));
	assert_true(hist_enough(2, 0.5));
	assert_false(hist_enough(9, 0.9));
	assert_true(hist_enough(10, 0.9));
	assert_false(hist_enough(99, 0.99));
	assert_true(hist_enough(100, 0.99));
	assert_false(hist_enough(999, 0.999));
	assert_true(hist_enough(1000, 0.999));
	assert_true(hist_enough(1, 1.0)); /* max needs one */
}

static void test_empty_and_merge(void **state)
{
	(void)state;
	struct hist *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
	assert_int_equal(hist_quantile(a, 0.5), 0);
	hist_add(a, 1000);
	hist_add(b, 5000000);
	hist_merge(a, b);
	assert_int_equal(a->n, 2);
	assert_int_equal(a->min_ns, 1000);
	assert_int_equal(a->max_ns, 5000000);
	assert_int_equal(hist_quantile(a, 0.5), 1000);
	/* Clamped to the exact max, not past it. */
	assert_true(hist_quantile(a, 0.99) <= 5000000);
	free(a);
	free(b);
}

static void test_windows(void **state)
{
	(void)state;
	struct latwin *w = malloc(sizeof *w);
	latwin_init(w);
	struct hist *h = malloc(sizeof *h);
	/* 100 samples of 1 ms in each of seconds 100..129 */
	for (int64_t s = 100; s < 130; s++)
		for (int i = 0; i < 100; i++)
			latwin_add(w, s, s, 1000000 + (uint64_t)s);
	latwin_window(w, 129, 10, h);
	assert_int_equal(h->n, 1000);               /* seconds 120..129 */
	assert_int_equal(h->min_ns, 1000000 + 120);
	latwin_take_interval(w, h, NULL);
	assert_int_equal(h->n, 3000);
	latwin_take_interval(w, h, NULL);
	assert_int_equal(h->n, 0);                  /* a new interval starts empty */
	/* Roll-over: nothing for 20 s, then one sample: the 10 s window holds
	 * only it, none of the old seconds that share its ring slots. */
	latwin_add(w, 150, 150, 7);
	latwin_window(w, 150, 10, h);
	assert_int_equal(h->n, 1);
	assert_int_equal(h->max_ns, 7);
	latwin_window(w, 170, 10, h);
	assert_int_equal(h->n, 0);
	/* Since-change restarts at a change. */
	latwin_mark_change(w);
	latwin_add(w, 151, 151, 9);
	assert_int_equal(w->since_change.n, 1);
	/* Flagged samples are counted per window, never in a histogram. */
	latwin_flag(w, 151);
	latwin_flag(w, 151);
	assert_int_equal(latwin_window(w, 151, 10, h), 2);
	assert_int_equal(h->n, 2);                  /* seconds 150 and 151 */
	assert_int_equal(latwin_take_interval(w, h, NULL), 2);
	assert_int_equal(h->n, 2);
	assert_int_equal(latwin_window(w, 170, 10, h), 0);
	/* Chart: seconds kept whole come from slots, older ones from the
	 * summaries, missing ones are gaps. */
	struct latwin_point pts[60];
	assert_int_equal(latwin_chart(w, 100, 151, pts), 52);
	assert_int_equal(pts[0].sec, 100);
	assert_int_equal(pts[0].n, 100);
	assert_int_equal(pts[0].p50_ns, 1000100);
	assert_int_equal(pts[35].n, 0);             /* second 135: gap */
	assert_int_equal(pts[50].n, 1);
	assert_int_equal(pts[51].p50_ns, 9);
	free(w);
	free(h);
}

static void test_prng_offsets(void **state)
{
	(void)state;
	struct prng p, q;
	prng_seed(&p, 42);
	prng_seed(&q, 42);
	assert_int_equal(prng_next(&p), prng_next(&q)); /* --seed repeats */
	const uint64_t size = 1000 * 4096 + 512, io = 4096, align = 512;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < 200000; i++) {
		uint64_t off;
		assert_int_equal(prng_offset(&p, size, io, align, &off), 0);
		assert_int_equal(off % align, 0);
		assert_true(off + io <= size);
		if (off < lo)
			lo = off;
		if (off > hi)
			hi = off;
	}
	/* The whole range is reached: first and last possible offsets. */
	assert_int_equal(lo, 0);
	assert_int_equal(hi, size - io);
	uint64_t off;
	assert_int_equal(prng_offset(&p, 100, 4096, 512, &off), -1);
	assert_int_equal(prng_offset(&p, 1 << 20, 4096, 3000, &off), -1);
	/* below(n) is uniform: 6 buckets, 600000 draws, each within 1 %. */
	int count[6] = {0};
	for (int i = 0; i < 600000; i++)
		count[prng_below(&p, 6)]++;
	for (int i = 0; i < 6; i++)
		assert_true(abs(count[i] - 100000) < 1000);
}

/* |got - want| <= tol * want */
static void near(double got, double want, double tol)
{
	if (fabs(got - want) > tol * want)
		fail_msg("got %f, want %f within %.1f %%", got, want, tol * 100);
}

/* The trace of issue 15: 15,000 reads of 60 us in second 1, then 9 reads
 * of 110 ms in each of seconds 2..10. Per read, the reader looks fast; over
 * the time, it waited on slow reads 89 % of it. */
static void test_readfig_trace(void **state)
{
	(void)state;
	struct latwin *w = malloc(sizeof *w);
	struct hist *reads = malloc(sizeof *reads), *secs = malloc(sizeof *secs);
	latwin_init(w);
	for (int i = 0; i < 15000; i++)
		latwin_add(w, 1, 1, 60000);
	for (int64_t s = 2; s <= 10; s++)
		for (int i = 0; i < 9; i++)
			latwin_add(w, s, s, 110000000);
	latwin_add(w, 11, 11, 110000000); /* second 10 is whole once 11 begins */
	latwin_take_interval(w, reads, secs);
	assert_int_equal(secs->n, 10);
	struct readfig f;
	readfig_compute(reads, secs, 10.0, &f);
	assert_int_equal(f.n, 15082);
	near(f.reads_per_s, 1508.2, 1e-9);
	near(f.p50_us, 60, 0.01);
	near(f.p50_per_s_us, 110000, 0.01);
	near(f.stall_10ms, 82 * 0.110 / 10, 0.01);
	near(f.stall_100ms, 82 * 0.110 / 10, 0.01);
	near(f.max_us, 110000, 1e-9);
	assert_true(readfig_skewed(&f));
	char text[256];
	assert_int_equal(readfig_sentence(&f, text, sizeof text), 1);
	assert_non_null(strstr(text, "most reads were fast (p50 60us)"));
	assert_non_null(strstr(text, "for 90 % of the time"));
	if (!strstr(text, "(median of per-second p50s 110.0ms)") && !strstr(text, "(median of per-second p50s 109."))
		fail_msg("%s", text);
	/* Reads all alike: the two p50s agree, and nothing is said. */
	latwin_init(w);
	for (int64_t s = 1; s <= 5; s++)
		for (int i = 0; i < 100; i++)
			latwin_add(w, s, s, 2000000);
	latwin_take_interval(w, reads, secs);
	readfig_compute(reads, secs, 5.0, &f);
	assert_false(readfig_skewed(&f));
	assert_int_equal(readfig_sentence(&f, text, sizeof text), 0);
	near(f.stall_10ms + 1, 1, 1e-9);
	free(w);
	free(reads);
	free(secs);
}

/* A read that spans whole seconds stands for each of them in the
 * per-second series; a paced reader's idle seconds stand for nothing. */
static void test_readfig_spanning(void **state)
{
	(void)state;
	struct latwin *w = malloc(sizeof *w);
	struct hist *reads = malloc(sizeof *reads), *secs = malloc(sizeof *secs);
	latwin_init(w);
	latwin_add(w, 20, 20, 1000000);
	latwin_add(w, 20, 23, 2500000000ull); /* seconds 21 and 22 went on it */
	latwin_add(w, 30, 30, 1000000);       /* 24..29 idle, 23 closes */
	latwin_add(w, 31, 31, 1000000);       /* 30 closes */
	latwin_take_interval(w, reads, secs);
	assert_int_equal(secs->n, 5);         /* 20, 21, 22, 23, 30 */
	near((double)hist_quantile(secs, 0.4), 1e6, 0.01); /* 20 and 30 */
	assert_true(hist_quantile(secs, 0.5) > 2000000000ull); /* 21, 22, 23 */
	/* Slow reads count in the stall share by their length. */
	struct readfig f;
	readfig_compute(reads, secs, 12.0, &f);
	near(f.stall_100ms, 2.5 / 12, 0.01);
	free(w);
	free(reads);
	free(secs);
}

/* Cumulative "le" counts for Prometheus: exact at bucket bounds, never
 * more than the values at or below the bound, never less than those a
 * bucket width (1/64) below it; all at the max; 0 when empty. */
static void test_count_upto(void **state)
{
	(void)state;
	struct hist h;
	hist_reset(&h);
	assert_int_equal(hist_count_upto(&h, 1000000), 0);
	for (uint64_t v = 1000; v <= 1000000; v += 1000)
		hist_add(&h, v); /* 1 us .. 1 ms, 1000 values */
	assert_int_equal(hist_count_upto(&h, 1000000), 1000);
	assert_int_equal(hist_count_upto(&h, 5000000), 1000);
	assert_int_equal(hist_count_upto(&h, 500), 0);
	static const uint64_t les[] = {10000, 25000, 50000, 100000, 250000, 500000};
	for (size_t k = 0; k < sizeof les / sizeof les[0]; k++) {
		uint64_t n = hist_count_upto(&h, les[k]);
		uint64_t at_or_below = les[k] / 1000, well_below = (les[k] - les[k] / 64) / 1000;
		assert_true(n <= at_or_below);
		assert_true(n >= well_below);
	}
	/* monotone in ns */
	uint64_t last = 0;
	for (uint64_t ns = 0; ns < 1200000; ns += 777) {
		uint64_t n = hist_count_upto(&h, ns);
		assert_true(n >= last);
		last = n;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uniform),      cmocka_unit_test(test_bimodal),
		cmocka_unit_test(test_heavy_tail),   cmocka_unit_test(test_bucket_error_bound),
		cmocka_unit_test(test_enough),       cmocka_unit_test(test_empty_and_merge),
		cmocka_unit_test(test_windows),      cmocka_unit_test(test_readfig_trace),
		cmocka_unit_test(test_readfig_spanning),      cmocka_unit_test(test_prng_offsets),
		cmocka_unit_test(test_count_upto),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
