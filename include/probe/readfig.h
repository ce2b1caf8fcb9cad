/* readfig: what a reader lived through, not only how its reads were spread.
 *
 * A greedy QD1 reader (one read after another) issues many reads when they
 * are fast and few when they are slow, so per-read percentiles count how
 * many reads were fast, not how long the reader was: 15,000 reads of 60 us
 * in one second outvote nine seconds of 9 reads of 110 ms each (a p50 of
 * 60 us for a reader that waited 89 % of the time). So beside the per-read
 * figures come time-based ones: reads per second, the share of the wall
 * time spent in reads longer than 10 ms and 100 ms, the longest read, and
 * the median of the per-second p50s (latwin.h keeps that series). */
#ifndef IOSCHED_READFIG_H
#define IOSCHED_READFIG_H

#include <stddef.h>
#include <stdint.h>

#include "probe/hist.h"

/* A read slower than this many times the per-read p50 is a slow one, for
 * the sentence that explains two p50s apart (also the ratio that calls
 * them apart). */
#define READFIG_SKEW 3.0

struct readfig {
	double secs;          /* the wall time the figures cover */
	uint64_t n;
	double reads_per_s;
	double mean_us;       /* NAN with no read; a greedy reader's is 1e6 / reads_per_s */
	double p50_us;        /* over all reads; NAN with no read */
	double p50_per_s_us;  /* the median of the per-second p50s; NAN with no whole second */
	double p99_us;        /* NAN with under 100 reads */
	double max_us;        /* NAN with no read */
	double stall_10ms;    /* share (0..1) of the wall time in reads longer than 10 ms */
	double stall_100ms;   /* ... than 100 ms */
	double slow_share;    /* ... than READFIG_SKEW times the per-read p50 */
};

/* The figures of reads (every read) and sec_p50 (the p50 of each whole
 * second, may be NULL) over secs of wall time. */
void readfig_compute(const struct hist *reads, const struct hist *sec_p50, double secs, struct readfig *out);

/* Whether the two p50s differ more than READFIG_SKEW times. */
int readfig_skewed(const struct readfig *f);

/* When they do, what that means in words, e.g. "most reads were fast
 * (p50 60 us), but for 89 % of the time the reader waited on slow ones
 * (median of per-second p50s 110 ms)". Returns 1 with the sentence in buf,
 * 0 (buf empty) when the p50s agree. */
int readfig_sentence(const struct readfig *f, char *buf, size_t len);

#endif
