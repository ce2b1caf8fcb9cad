/* latwin: latency windows of one probe — the interval since the last
 * reading, the last N seconds (a ring of per-second histograms), since the
 * last scheduler change, and per-second p50/p99 summaries for the chart.
 * Pure bookkeeping on a caller-given clock (whole seconds), so it can be
 * tested with a synthetic one; the probe guards it with its mutex. */
#ifndef IOSCHED_LATWIN_H
#define IOSCHED_LATWIN_H

#include <stddef.h>
#include <stdint.h>

#include "probe/hist.h"

#define LATWIN_SLOTS 16     /* seconds kept whole: the 10 s window and slack */
#define LATWIN_CHART 128    /* seconds of chart summaries */

struct latwin_point {
	int64_t sec;            /* which second; points with n == 0 are gaps */
	uint32_t n;
	uint64_t p50_ns, p99_ns, max_ns;
};

struct latwin {
	struct hist interval;
	/* The p50 of each whole second of the interval: the series a reader
	 * lives through, whose median weighs a second of 9 slow reads as
	 * much as a second of 15,000 fast ones (the per-read p50 does not). */
	struct hist interval_sec_p50;
	int64_t last_sec;       /* the second of the latest sample */
	struct hist since_change;
	struct hist slot[LATWIN_SLOTS];
	int64_t slot_sec[LATWIN_SLOTS];
	/* Implausibly fast samples: counted, kept out of the histograms. */
	uint64_t interval_flagged, since_change_flagged;
	uint32_t slot_flagged[LATWIN_SLOTS];
	struct latwin_point chart[LATWIN_CHART];
};

void latwin_init(struct latwin *w);

/* Record a latency that began during second start_sec and completed
 * during second sec. The seconds wholly inside it, with no completion of
 * their own, were spent waiting on it: each counts in the per-second
 * series at this latency (an idle second, between paced reads, does not). */
void latwin_add(struct latwin *w, int64_t start_sec, int64_t sec, uint64_t ns);

/* Count a sample that was too fast to be the disk's (second sec). */
void latwin_flag(struct latwin *w, int64_t sec);

/* Copy the interval histogram to out, and (when sec_p50 is not NULL) the
 * p50s of its whole seconds to sec_p50, and start a new interval. Returns
 * the interval's flagged count. */
uint64_t latwin_take_interval(struct latwin *w, struct hist *out, struct hist *sec_p50);

/* Merge the seconds (now_sec - seconds, now_sec] into out (reset first).
 * seconds must be <= LATWIN_SLOTS. Returns their flagged count. */
uint64_t latwin_window(const struct latwin *w, int64_t now_sec, int seconds, struct hist *out);

/* A scheduler change: the since-change window starts again. */
void latwin_mark_change(struct latwin *w);

/* Per-second points for seconds from..to (inclusive), one per second, gaps
 * with n == 0. out must hold to - from + 1 points; seconds older than the
 * chart's memory come back as gaps. Returns the number written. */
size_t latwin_chart(const struct latwin *w, int64_t from, int64_t to, struct latwin_point *out);

#endif
