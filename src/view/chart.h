/* chart: the latency-over-time chart of the selected disk — p50 as bars,
 * p99 as dots, one column per second, on a log scale with labelled decades,
 * and a labelled vertical marker at each scheduler change. Drawn with block
 * characters where the locale is UTF-8, ASCII otherwise. */
#ifndef IOSCHED_CHART_H
#define IOSCHED_CHART_H

#include <stddef.h>
#include <stdint.h>

#include "model/sample.h"

/* Decade bounds [lo, hi] (ns, powers of ten, hi >= 10 * lo) covering the
 * p50 and high values of the points with samples. Returns 0, or -1 when no
 * point has samples. */
int chart_scale(const struct latwin_point *pts, size_t n, uint64_t *lo, uint64_t *hi);

/* Height of value v on a log axis from lo (0) to hi (rows), fractional,
 * clamped to [0, rows]. */
double chart_level(uint64_t v, uint64_t lo, uint64_t hi, int rows);

/* The value charted as "high" for a second: p99 when 100 samples or more
 * stand behind it, else the max (p99 of fewer would just be the max). */
uint64_t chart_high(const struct latwin_point *p);

/* Where switch labels go, so none is drawn over another: label i belongs
 * to the marker at column cx[i] and is len[i] wide in full, short_len[i]
 * abbreviated. It goes right of its marker (left where the plot ends) on
 * the first of rows rows where it overlaps no label placed before it;
 * failing that, abbreviated; failing that, not at all (row -1). Labels are
 * placed newest first (the last index first): the latest switch is the one
 * a viewer looks for. Columns in [x0, x0 + w). */
struct chart_label {
	int row;                   /* -1: not drawn */
	int x;
	int abbreviated;
};
void chart_place_labels(const int *cx, const int *len, const int *short_len, int n, int rows, int x0, int w,
			struct chart_label *out);

/* Draw the chart of d into the screen rectangle (y, x, h, w); recent holds
 * the events to mark. utf8: use block characters; th: the theme's
 * attributes per element (theme.h). */
void chart_draw(const struct disk_sample *d, const struct sample *s, int y, int x, int h, int w, int utf8,
		const unsigned long *th);

/* The chart in one line (a small terminal): each second's p99 (or max)
 * as one of eight heights on the same log scale, switches marked, after
 * a "p99 " label, in (y, x, w). */
void chart_sparkline(const struct disk_sample *d, const struct sample *s, int y, int x, int w, int utf8,
		     const unsigned long *th);

#endif
