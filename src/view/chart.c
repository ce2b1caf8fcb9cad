/* chart: see src/view/chart.h */
#include "chart.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "theme.h"
#include "base/util.h"

#define AXIS_W 7   /* "100ms " + the axis line */


uint64_t chart_high(const struct latwin_point *p)
{
	return p->n >= 100 ? p->p99_ns : p->max_ns;
}

int chart_scale(const struct latwin_point *pts, size_t n, uint64_t *lo, uint64_t *hi)
{
	uint64_t mn = UINT64_MAX, mx = 0;
	for (size_t i = 0; i < n; i++) {
		if (!pts[i].n)
			continue;
		uint64_t a = pts[i].p50_ns ? pts[i].p50_ns : 1, b = chart_high(&pts[i]);
		if (a < mn)
			mn = a;
		if (b > mx)
			mx = b;
	}
	if (mx == 0)
		return -1;
	uint64_t l = 1, h = 10;
	while (l * 10 <= mn)
		l *= 10;
	while (h < mx && h < UINT64_MAX / 10)
		h *= 10;
	if (h < l * 10)
		h = l * 10;
	*lo = l;
	*hi = h;
	return 0;
}

double chart_level(uint64_t v, uint64_t lo, uint64_t hi, int rows)
{
	if (v <= lo)
		return 0;
	if (v >= hi)
		return rows;
	return (log((double)v) - log((double)lo)) / (log((double)hi) - log((double)lo)) * rows;
}

static void decade_label(uint64_t ns, char *b, size_t n)
{
	if (ns >= 1000000000ull)
		snprintf(b, n, "%llus", (unsigned long long)(ns / 1000000000ull));
	else if (ns >= 1000000)
		snprintf(b, n, "%llums", (unsigned long long)(ns / 1000000));
	else if (ns >= 1000)
		snprintf(b, n, "%lluus", (unsigned long long)(ns / 1000));
	else
		snprintf(b, n, "%lluns", (unsigned long long)ns);
}

/* An element's theme attributes on or off. */
static void paint(unsigned long a, int on)
{
	if (on)
		attron((attr_t)a);
	else
		attroff((attr_t)a);
}

static void draw_axis(int y, int x, int h, uint64_t lo, uint64_t hi, int utf8, const unsigned long *th)
{
	paint(th[TH_CHART_AXIS], 1);
	for (int r = 0; r < h; r++)
		mvaddstr(y + r, x + AXIS_W - 1, utf8 ? "│" : "|");
	/* A label at every decade line that has a row of its own. */
	for (uint64_t v = lo; v <= hi && v > 0; v *= 10) {
		int r = h - 1 - (int)lround(chart_level(v, lo, hi, h - 1));
		char lab[16];
		decade_label(v, lab, sizeof lab);
		mvprintw(y + r, x, "%5s", lab);
		mvaddstr(y + r, x + AXIS_W - 1, utf8 ? "┤" : "+");
		if (v > UINT64_MAX / 10)
			break;
	}
	paint(th[TH_CHART_AXIS], 0);
}

/* One second's column: a p50 bar from the floor, the high value as a dot. */
static void draw_column(const struct latwin_point *p, int y, int cx, int h, uint64_t lo, uint64_t hi, int utf8,
			const unsigned long *th)
{
	static const char *const eighths[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
	double lvl = chart_level(p->p50_ns, lo, hi, h);
	int full = (int)lvl;
	paint(th[TH_CHART_P50], 1);
	for (int r = 0; r < full && r < h; r++)
		mvaddstr(y + h - 1 - r, cx, utf8 ? "█" : "#");
	int part = (int)((lvl - full) * 8);
	if (full < h && (part > 0 || full == 0))
		mvaddstr(y + h - 1 - full, cx, utf8 ? eighths[part > 0 ? part : 1] : (part >= 4 ? "#" : "_"));
	paint(th[TH_CHART_P50], 0);
	int hr = (int)chart_level(chart_high(p), lo, hi, h);
	if (hr >= h)
		hr = h - 1;
	if (hr > full || (hr == full && part == 0)) {
		paint(th[TH_CHART_HIGH], 1);
		mvaddstr(y + h - 1 - hr, cx, utf8 ? "•" : "*");
		paint(th[TH_CHART_HIGH], 0);
	}
}

/* The column of a successful event of this type on this disk within the
 * chart's width, or -1. */
static int event_column(const struct event *e, enum event_type type, const char *disk, int x0, int w, int64_t now_sec)
{
	if (e->type != type || !e->ok || strcmp(e->disk, disk) != 0)
		return -1;
	int64_t age = now_sec - (int64_t)floor(e->mono);
	return age < 0 || age >= w ? -1 : x0 + w - 1 - (int)age;
}

/* Fresh readers' jobs: a mark on the bottom row at the second the job ended,
 * with its time ("F186ms"), so a switch's effect on program starts shows. */
static void draw_fresh(const struct sample *s, const char *disk, int y, int x0, int w, int64_t now_sec, int utf8,
		       const unsigned long *th)
{
	for (size_t i = 0; i < s->nrecent; i++) {
		const struct event *e = &s->recent[i];
		int cx = event_column(e, EV_FRESH, disk, x0, w, now_sec);
		if (cx < 0)
			continue;
		char ms[16], lab[24];
		util_format_latency(util_to_u64(e->ms * 1e6), ms, sizeof ms);
		snprintf(lab, sizeof lab, "%s%s", utf8 ? "◆F" : "*F", ms);
		int len = (int)strlen(ms) + 2;
		paint(th[TH_CHART_MARKER], 1);
		mvaddstr(y, cx + len <= x0 + w ? cx : cx - len + 1, lab);
		paint(th[TH_CHART_MARKER], 0);
	}
}

/* Where a label of width len for a marker at cx starts: right of it, or
 * left where the plot ends; -1 when it fits neither side. */
static int label_x(int cx, int len, int x0, int w)
{
	if (cx + 1 + len <= x0 + w)
		return cx + 1;
	return cx - len >= x0 ? cx - len : -1;
}

#define MAX_LABELS 32

void chart_place_labels(const int *cx, const int *len, const int *short_len, int n, int rows, int x0, int w,
			struct chart_label *out)
{
	/* what is taken on each row: [from, to) spans of placed labels */
	int from[MAX_LABELS], to[MAX_LABELS], row_of[MAX_LABELS], placed = 0;
	for (int i = n - 1; i >= 0; i--) {
		out[i] = (struct chart_label){.row = -1};
		for (int pass = 0; pass < 2 && out[i].row < 0; pass++) {
			int l = pass ? short_len[i] : len[i];
			int lx = label_x(cx[i], l, x0, w);
			for (int r = 0; lx >= 0 && r < rows && out[i].row < 0; r++) {
				int clash = 0;
				for (int k = 0; k < placed && !clash; k++)
					clash = row_of[k] == r && lx < to[k] + 1 && from[k] < lx + l + 1;
				if (!clash && placed < MAX_LABELS) {
					out[i] = (struct chart_label){.row = r, .x = lx, .abbreviated = pass};
					from[placed] = lx;
					to[placed] = lx + l;
					row_of[placed++] = r;
				}
			}
		}
	}
}

/* Scheduler changes: a vertical line and the new scheduler's name on top;
 * labels that would meet are stacked, then abbreviated, then left out. */
static void draw_markers(const struct sample *s, const char *disk, int y, int x0, int h, int w, int64_t now_sec,
			 int utf8, const unsigned long *th)
{
	int cx[MAX_LABELS] = {0}, len[MAX_LABELS] = {0}, slen[MAX_LABELS] = {0}, n = 0;
	const struct event *ev[MAX_LABELS];
	for (size_t i = 0; i < s->nrecent && n < MAX_LABELS; i++) {
		const struct event *e = &s->recent[i];
		int c = event_column(e, EV_SCHEDULER, disk, x0, w, now_sec);
		if (c < 0)
			continue;
		paint(th[TH_CHART_MARKER], 1);
		for (int r = 0; r < h; r++)
			mvaddstr(y + r, c, utf8 ? "┃" : "|");
		paint(th[TH_CHART_MARKER], 0);
		ev[n] = e;
		cx[n] = c;
		len[n] = (int)strlen(e->to) + 1;
		slen[n] = (len[n] > 3 ? 3 : len[n]); /* the marker and two letters: "▶mq", "▶ky" */
		n++;
	}
	struct chart_label at[MAX_LABELS];
	chart_place_labels(cx, len, slen, n, h < 3 ? 1 : h < 6 ? 3 : h / 2, x0, w, at);
	paint(th[TH_CHART_MARKER], 1);
	for (int i = 0; i < n; i++) {
		if (at[i].row < 0)
			continue;
		char lab[48];
		snprintf(lab, sizeof lab, "%s%.*s", utf8 ? "▶" : ">", at[i].abbreviated ? slen[i] - 1 : 40, ev[i]->to);
		mvaddstr(y + at[i].row, at[i].x, lab);
	}
	paint(th[TH_CHART_MARKER], 0);
}

void chart_draw(const struct disk_sample *d, const struct sample *s, int y, int x, int h, int w, int utf8,
		const unsigned long *th)
{
	int plot_w = w - AXIS_W;
	int ph = h - 1; /* the bottom row is the time axis */
	if (plot_w < 4 || ph < 2)
		return;
	if (plot_w > CHART_SECONDS)
		plot_w = CHART_SECONDS;
	const struct latwin_point *pts = d->chart + CHART_SECONDS - plot_w;
	uint64_t lo, hi;
	int64_t now_sec = (int64_t)floor(s->mono);
	if (chart_scale(pts, (size_t)plot_w, &lo, &hi) < 0) {
		mvaddstr(y + ph / 2, x + AXIS_W, "no probe samples yet");
	} else {
		draw_axis(y, x, ph, lo, hi, utf8, th);
		for (int i = 0; i < plot_w; i++)
			if (pts[i].n)
				draw_column(&pts[i], y, x + AXIS_W + i, ph, lo, hi, utf8, th);
	}
	draw_markers(s, d->info.name, y, x + AXIS_W, ph, plot_w, now_sec, utf8, th);
	draw_fresh(s, d->info.name, y + ph - 1, x + AXIS_W, plot_w, now_sec, utf8, th);
	char lab[16];
	snprintf(lab, sizeof lab, "-%ds", plot_w);
	paint(th[TH_CHART_AXIS], 1);
	mvaddstr(y + ph, x + AXIS_W, lab);
	if (plot_w > 24) {
		snprintf(lab, sizeof lab, "-%ds", plot_w / 2);
		mvaddstr(y + ph, x + AXIS_W + plot_w / 2 - (int)strlen(lab) / 2, lab);
	}
	mvaddstr(y + ph, x + AXIS_W + plot_w - 3, "now");
	paint(th[TH_CHART_AXIS], 0);
}

void chart_sparkline(const struct disk_sample *d, const struct sample *s, int y, int x, int w, int utf8,
		     const unsigned long *th)
{
	static const char *const levels_utf8[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
	static const char levels_ascii[] = "_.-~=+*#";
	const char *label = "p99 ";
	int plot_w = w - (int)strlen(label);
	if (plot_w < 4)
		return;
	if (plot_w > CHART_SECONDS)
		plot_w = CHART_SECONDS;
	const struct latwin_point *pts = d->chart + CHART_SECONDS - plot_w;
	uint64_t lo, hi;
	paint(th[TH_CHART_AXIS], 1);
	mvaddstr(y, x, label);
	paint(th[TH_CHART_AXIS], 0);
	int x0 = x + (int)strlen(label);
	if (chart_scale(pts, (size_t)plot_w, &lo, &hi) < 0) {
		mvaddstr(y, x0, "no probe samples yet");
		return;
	}
	paint(th[TH_CHART_HIGH], 1);
	for (int i = 0; i < plot_w; i++) {
		if (!pts[i].n)
			continue;
		int k = (int)chart_level(chart_high(&pts[i]), lo, hi, 8);
		k = k < 0 ? 0 : k > 7 ? 7 : k;
		if (utf8)
			mvaddstr(y, x0 + i, levels_utf8[k]);
		else
			mvaddch(y, x0 + i, (chtype)levels_ascii[k]);
	}
	paint(th[TH_CHART_HIGH], 0);
	/* Scheduler switches: a marker in the second they happened. */
	int64_t now_sec = (int64_t)floor(s->mono);
	paint(th[TH_CHART_MARKER], 1);
	for (size_t i = 0; i < s->nrecent; i++) {
		int c = event_column(&s->recent[i], EV_SCHEDULER, d->info.name, x0, plot_w, now_sec);
		if (c >= 0)
			mvaddstr(y, c, utf8 ? "┃" : "|");
	}
	paint(th[TH_CHART_MARKER], 0);
}
