/* tui: see include/tui.h */
#include "tui.h"

#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <langinfo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "abreport.h"
#include "bigtext.h"
#include "chart.h"
#include "columns.h"
#include "detail.h"
#include "keys.h"
#include "tuiview.h"
#include "util.h"

/* Below this nothing useful fits. */
#define MIN_COLS 20
#define MIN_LINES 5
/* How long a message stays in the status bar. */
#define MESSAGE_S 8.0




static int selected_index(const struct tui *t)
{
	for (size_t i = 0; i < t->s.ndisks; i++)
		if (strcmp(t->s.disks[i].info.name, t->selected) == 0)
			return (int)i;
	return t->s.ndisks ? 0 : -1;
}

static void select_index(struct tui *t, int i)
{
	if (t->s.ndisks == 0)
		return;
	if (i < 0)
		i = 0;
	if ((size_t)i >= t->s.ndisks)
		i = (int)t->s.ndisks - 1;
	util_strlcpy(t->selected, t->s.disks[i].info.name, sizeof t->selected);
}

void tui_say(struct tui *t, const char *text)
{
	util_strlcpy(t->msg, text, sizeof t->msg);
	t->msg_until = util_mono_now() + MESSAGE_S;
}

/* Print text at (y, x), cut at the right edge of the screen. */
static void put(int y, int x, const char *text)
{
	if (y < 0 || y >= LINES || x >= COLS)
		return;
	/* Names from the system (processes, disk models, a recording's host)
	 * may hold control characters: shown as ^X, never sent raw. */
	char safe[1024];
	util_safe_text(safe, sizeof safe, text);
	mvaddnstr(y, x, safe, COLS - x);
}

static void rate_text(double hz, char *b, size_t n)
{
	if (hz <= 0)
		util_strlcpy(b, "max (back-to-back)", n);
	else
		snprintf(b, n, "%g Hz", hz);
}

/* Who writes (dirtying against to disks), and what waits in the page
 * cache for the flushers. */
static void draw_writers(const struct tui *t, int y)
{
	const struct sample *s = &t->s;
	char line[512], limit[64];
	const struct writeback_info *w = &s->wb;
	if (w->dirty_bytes)
		util_fmt(limit, sizeof limit, "dirty_bytes %llu/%llu", (unsigned long long)w->dirty_bytes,
			 (unsigned long long)w->dirty_background_bytes);
	else
		util_fmt(limit, sizeof limit, "dirty_ratio %ld%%/%ld%%", w->dirty_ratio, w->dirty_background_ratio);
	char who[160];
	detail_writers(s, who, sizeof who);
	int n = snprintf(line, sizeof line, "%s", who);
	if (w->ok)
		snprintf(line + n, sizeof line - (size_t)n, "  Dirty %llu MB  Writeback %llu MB  (%s)",
			 (unsigned long long)(w->dirty_kB / 1024), (unsigned long long)(w->writeback_kB / 1024), limit);
	put(y, 0, line);
	if (s->have_procs && s->pstat.missing[0]) {
		char m[300];
		util_fmt(m, sizeof m, "  I/O wait: %s%s", s->pstat.missing, s->pstat.taskstats ? "; D turns it on" : "");
		attron((attr_t)t->th[TH_WARNING]);
		put(y, (int)strlen(line) + 1 < COLS ? (int)strlen(line) : COLS, m);
		attroff((attr_t)t->th[TH_WARNING]);
	}
}

static void draw_header(const struct tui *t)
{
	const struct sample *s = &t->s;
	char clock[16], line[512];
	time_t now = (time_t)s->ts;
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(clock, sizeof clock, "%H:%M:%S", &tm);
	if (t->smp->replay)
		snprintf(line, sizeof line, "iosched-top - REPLAY of %s (x%g%s) - %s  %s  %s", t->o->replay, t->speed,
			 t->replay_end ? ", ended" : t->paused ? ", paused" : "", clock, s->host, s->kernel);
	else
		snprintf(line, sizeof line, "iosched-top - %s  %s  %s  every %.2gs", clock, s->host, s->kernel,
			 t->o->delay_s);
	if (s->have_load)
		snprintf(line + strlen(line), sizeof line - strlen(line), "  load %.2f %.2f %.2f",
			 s->load[0], s->load[1], s->load[2]);
	attron((attr_t)t->th[TH_TITLE]);
	put(0, 0, line);
	attroff((attr_t)t->th[TH_TITLE]);
	if (s->psi_err == 0)
		snprintf(line, sizeof line, "I/O pressure (avg10): some %.2f%%  full %.2f%%",
			 s->psi.some.avg10, s->psi.have_full ? s->psi.full.avg10 : 0.0);
	else
		snprintf(line, sizeof line, "I/O pressure: n/a (/proc/pressure/io: %s)", strerror(-s->psi_err));
	/* One line on per-process block latency: on, or why not. */
	if (s->blk_on)
		util_fmt(line + strlen(line), sizeof line - strlen(line), "  block latency: on");
	else if (s->have_procs)
		util_fmt(line + strlen(line), sizeof line - strlen(line), "  block latency off: %s", s->blk_why);
	put(1, 0, line);
	uint64_t load_written = 0;
	const char *load_kind = session_load_status(t->sess, &load_written);
	if (load_kind) {
		char l[160], sz[16];
		util_format_size(load_written, sz, sizeof sz);
		util_fmt(l, sizeof l, "  LOAD %s on %s: %s written (L stops it)", load_kind, t->sess->load_disk, sz);
		attron((attr_t)t->th[TH_BADGE]);
		put(1, (int)strlen(line), l);
		attroff((attr_t)t->th[TH_BADGE]);
	}
	draw_writers(t, 2);
}

static void draw_table(const struct tui *t, int top, int rows)
{
	size_t ncols, idx[32];
	const struct column *cols = columns_table(&ncols);
	size_t n = columns_fit(COLS, idx);
	char cell[160];
	int x = 0;
	attron((attr_t)t->th[TH_TABLE_HEAD]);
	mvhline(top, 0, ' ', COLS);
	for (size_t c = 0; c < n; c++) {
		columns_header(&cols[idx[c]], cell, sizeof cell);
		put(top, x, cell);
		x += cols[idx[c]].width + 1;
	}
	attroff((attr_t)t->th[TH_TABLE_HEAD]);
	int sel = selected_index(t);
	/* Scroll so the selected disk stays visible. */
	int first = sel >= rows ? sel - rows + 1 : 0;
	for (int r = 0; r < rows && (size_t)(first + r) < t->s.ndisks; r++) {
		const struct disk_sample *d = &t->s.disks[first + r];
		int y = top + 1 + r;
		if (first + r == sel) {
			attron((attr_t)t->th[TH_SELECTED]);
			mvhline(y, 0, ' ', COLS);
		}
		x = 0;
		for (size_t c = 0; c < n; c++) {
			columns_cell(&cols[idx[c]], d, cell, sizeof cell);
			put(y, x, cell);
			x += cols[idx[c]].width + 1;
		}
		if (first + r == sel)
			attroff((attr_t)t->th[TH_SELECTED]);
	}
	if (t->s.ndisks == 0)
		put(top + 1, 0, t->o->ndisks ? "the disks given with --disk are gone" : "no disks found");
}

static void lat_or_dash(const struct probe_summary *p, double q, uint64_t v, char *b, size_t n)
{
	if (hist_enough(p->n, q))
		util_format_latency(v, b, n);
	else
		util_strlcpy(b, "-", n);
}

/* The probe's state and figures for the selected disk, above its chart. */
static void draw_probe_line(const struct tui *t, const struct disk_sample *d, int y)
{
	char line[512], rate[32], p50[16], p90[16], p99[16], p999[16], c50[16], c99[16];
	const struct probe_status *st = &d->probe_st;
	if (!d->probed) {
		snprintf(line, sizeof line, "%s: not probed (%s)", d->info.name, st->why);
		put(y, 0, line);
		return;
	}
	if (st->state == PROBE_ENDED) {
		attron((attr_t)t->th[TH_WARNING]);
		snprintf(line, sizeof line, "%s probe off: %s", d->info.name, st->why);
		put(y, 0, line);
		attroff((attr_t)t->th[TH_WARNING]);
		return;
	}
	rate_text(st->rate_hz, rate, sizeof rate);
	if (st->state == PROBE_PREPARING) {
		util_fmt(line, sizeof line, "%s probe: writing its probe file %s (%d%%) - %s", d->info.name, st->path,
			 st->prep_pct, st->why);
		put(y, 0, line);
		return;
	}
	const struct probe_summary *p = &d->probe_10s, *c = &d->probe_change;
	lat_or_dash(p, 0.50, p->p50_ns, p50, sizeof p50);
	lat_or_dash(p, 0.90, p->p90_ns, p90, sizeof p90);
	lat_or_dash(p, 0.99, p->p99_ns, p99, sizeof p99);
	lat_or_dash(p, 0.999, p->p999_ns, p999, sizeof p999);
	lat_or_dash(c, 0.50, c->p50_ns, c50, sizeof c50);
	lat_or_dash(c, 0.99, c->p99_ns, c99, sizeof c99);
	char size[16];
	util_format_size(t->o->probe_size, size, sizeof size);
	/* A greedy reader's time-based figures beside its per-read ones: how
	 * many reads it got done, and how much of the time it sat in slow
	 * ones (readfig.h says why one p50 is not enough). First, so they fit
	 * where the less used figures are cut. */
	char timefig[96] = "";
	if (st->rate_hz <= 0)
		util_fmt(timefig, sizeof timefig, ", %.0f reads/s, in reads >10ms %.0f%% >100ms %.0f%%", d->probe_rps_10s,
			 d->probe_stall10_10s * 100, d->probe_stall100_10s * 100);
	if (st->rate_hz <= 0)
		util_strlcpy(rate, "max", sizeof rate);
	/* The longest single read: what the worst moment of the 10 s was. */
	char mx[16] = "-";
	if (p->n > 0)
		util_format_latency(p->max_ns, mx, sizeof mx);
	snprintf(line, sizeof line,
		 "%s probe: %s (%s), %s, QD1 %s: 10s p50 %s p99 %s%s | p90 %s p99.9 %s max %s n=%llu | since change p50 %s p99 %s (n=%llu)",
		 d->info.name, detail_profile(st->rate_hz), rate, probe_mode_name(st->mode), size, p50, p99, timefig, p90,
		 p999, mx, (unsigned long long)p->n, c50, c99, (unsigned long long)c->n);
	put(y, 0, line);
	/* What else the user must know about these figures, on the next line. */
	char extra[400] = "";
	if (st->in_flight_ms >= 50)
		snprintf(extra, sizeof extra, "in flight %.0f ms  ", st->in_flight_ms);
	if (p->flagged)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
			 "%llu implausibly fast samples (cache or unwritten blocks?) left out  ",
			 (unsigned long long)p->flagged);
	if (st->missed)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "%llu paced reads missed  ",
			 (unsigned long long)st->missed);
	if (t->startup_s >= 0)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "cold start %.2f s  ", t->startup_s);
	if (st->mode == PROBE_MODE_FILE)
		util_fmt(extra + strlen(extra), sizeof extra - strlen(extra), "file mode: %s", st->why);
	attron((attr_t)t->th[TH_TITLE]);
	put(y + 1, 0, extra);
	attroff((attr_t)t->th[TH_TITLE]);
	put(y + 1, COLS - 34 > (int)strlen(extra) ? COLS - 34 : COLS,
	    t->utf8 ? "█ p50  • p99 (max if <100/s)" : "# p50  * p99 (max if <100/s)");
}

/* Everything known of the selected disk, so narrow screens lose nothing. */
static void draw_detail(const struct tui *t, int y)
{
	int sel = selected_index(t);
	if (sel < 0)
		return;
	const struct disk_info *i = &t->s.disks[sel].info;
	char sched[SCHED_MAX * (SCHED_NAME_MAX + 3)], size[16], line[512];
	sched_format(&i->sched, sched, sizeof sched);
	util_format_size(i->size_bytes, size, sizeof size);
	snprintf(line, sizeof line, "%s: %s, %s, %s, model %s, scheduler %s", i->name, disk_kind_name(i->kind),
		 i->rotational < 0 ? "rotational ?" : i->rotational ? "rotational" : "non-rotational", size,
		 i->model[0] ? i->model : "-", sched);
	put(y, 0, line);
	snprintf(line, sizeof line, "  nr_requests %lld, read_ahead_kb %lld, wbt_lat_usec %lld, logical block %u, in flight %llu",
		 (long long)i->nr_requests, (long long)i->read_ahead_kb, (long long)i->wbt_lat_usec,
		 i->logical_block, t->s.disks[sel].in_flight);
	put(y + 1, 0, line);
	if (t->s.disks[sel].warning[0]) {
		attron((attr_t)t->th[TH_WARNING]);
		put(y + 1, COLS - (int)strlen(t->s.disks[sel].warning) - 2 > (int)strlen(line) ?
				   COLS - (int)strlen(t->s.disks[sel].warning) - 2 : COLS,
		    t->s.disks[sel].warning);
		attroff((attr_t)t->th[TH_WARNING]);
	}
}

static void draw_status(const struct tui *t)
{
	char line[512];
	char rate[32];
	rate_text(t->s.probe_rate_hz, rate, sizeof rate);
	if (t->ab_prompt)
		util_fmt(line, sizeof line, "A/B on %s, variants (SCHED[:key=value],...): %s_   (Enter starts, Esc cancels)",
			 t->selected, t->ab_input);
	else if (t->filtering)
		util_fmt(line, sizeof line, "filter processes by command: %s_   (Enter keeps it, Esc clears it)", t->pp.filter);
	else if (session_ab_status(t->sess))
		util_fmt(line, sizeof line, "%s   (Esc stops it)", session_ab_status(t->sess));
	else if (t->msg[0] && util_mono_now() < t->msg_until)
		util_strlcpy(line, t->msg, sizeof line);
	else if (t->smp->replay)
		util_strlcpy(line, "q quit  Space pause  . step  + - speed  Tab procs  Enter details  T theme  h help   (a replay)",
			     sizeof line);
	else
		snprintf(line, sizeof line, "q quit  s sched  ] [ next/prev  u undo  t tunables  l log  P udev  R pace (%s)  Tab procs  i ionice  D delayacct  T theme  h help",
			 rate);
	/* A message in the status colours; the key reminder as a bar. */
	attr_t a = (attr_t)t->th[t->msg[0] && util_mono_now() < t->msg_until ? TH_STATUS : TH_TABLE_HEAD];
	attron(a);
	mvhline(LINES - 1, 0, ' ', COLS);
	put(LINES - 1, 0, line);
	attroff(a);
}

#define HELP_LINES 200
#define HELP_WIDTH 160

/* The help as lines: the key table per mode, then what the figures are. */
static int help_lines(char lines[HELP_LINES][HELP_WIDTH])
{
	size_t n;
	const struct key_binding *k = keys_table(&n);
	int y = 0;
	for (int m = 0; m < KM_COUNT && y < HELP_LINES - 2; m++) {
		util_fmt(lines[y++], HELP_WIDTH, "%s", m ? "" : "");
		util_fmt(lines[y++], HELP_WIDTH, "== %s", keys_mode_name((enum key_mode)m));
		for (size_t i = 0; i < n && y < HELP_LINES; i++)
			if (k[i].mode == (enum key_mode)m)
				util_fmt(lines[y++], HELP_WIDTH, "  %-10s %s", k[i].label, k[i].help);
	}
	static const char *const text[] = {
		"Rates are iostat -x figures over the last interval. p50 p99: the disk's own probe",
		"over the last 10 s - one 4 KiB O_DIRECT random read at a time (QD1), paced with",
		"jitter or back-to-back (R). The pace changes what a scheduler does: bfq idles for a",
		"reader that keeps asking, not for one that comes back later. '-': too few samples.",
		"Chart: p50 bars and p99 dots per second, log scale; a marker at each switch.",
		"SWITCH: how long the last switch took (the kernel drains the queue to switch).",
		"Processes: READ/s to AVG-WAIT are system-wide (/proc/PID/io, delay accounting);",
		"R-CALLS/s, W-CALLS/s: read() and write() system calls, not disk operations.",
		"IO-WAIT, AVG-WAIT: synchronous block I/O waits (delay accounting); n/a: bytes moved",
		"without waits (async I/O); n/a*: started before delay accounting was on; -: no figure.",
		"READ p50/p99, WRITE p50/p99: latency of the process's own block requests, issue to completion",
		"(BPF; Enter: per disk). They leave out syscall and wake-up, and its requests may be large",
		"or sequential: they differ from the probe's fresh 4 KiB read. Buffered writes are written",
		"later by [writeback] rows, not by the process that dirtied the pages.",
	};
	if (y < HELP_LINES)
		lines[y++][0] = '\0';
	for (size_t i = 0; i < sizeof text / sizeof text[0] && y < HELP_LINES; i++)
		util_strlcpy(lines[y++], text[i], HELP_WIDTH);
	return y;
}

/* Two columns where the screen is wide enough, scrolled by help_top. */
static void draw_help(const struct tui *t)
{
	char (*lines)[HELP_WIDTH] = malloc(HELP_LINES * sizeof *lines); /* 32 KB: not on the stack */
	if (!lines)
		return;
	int n = help_lines(lines);
	attron((attr_t)t->th[TH_TITLE]);
	put(0, 0, "iosched-top keys (Up/Down/PgUp/PgDn scroll, any other key returns)");
	attroff((attr_t)t->th[TH_TITLE]);
	int ncol = COLS >= 160 ? 2 : 1, colw = COLS / ncol, rows = LINES - 1;
	int per = (n + ncol - 1) / ncol;
	int top = t->help_top < per - rows ? t->help_top : per - rows > 0 ? per - rows : 0;
	for (int c = 0; c < ncol; c++)
		for (int r = 0; r < rows; r++) {
			int i = c * per + top + r;
			if (i >= (c + 1) * per || i >= n)
				break;
			mvaddnstr(1 + r, c * colw, lines[i], colw - 1);
		}
	free(lines);
}

/* A bordered box with a title, its inside cleared. */
void tui_panel_box(int y, int x, int h, int w, const char *title)
{
	for (int r = 0; r < h; r++)
		mvhline(y + r, x, ' ', w);
	attron(A_BOLD);
	mvhline(y, x, ACS_HLINE, w);
	mvhline(y + h - 1, x, ACS_HLINE, w);
	mvvline(y, x, ACS_VLINE, h);
	mvvline(y, x + w - 1, ACS_VLINE, h);
	mvaddch(y, x, ACS_ULCORNER);
	mvaddch(y, x + w - 1, ACS_URCORNER);
	mvaddch(y + h - 1, x, ACS_LLCORNER);
	mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
	mvaddnstr(y, x + 2, title, w - 4);
	attroff(A_BOLD);
}

/* text in lines of at most w columns from (y, x), at most max lines; returns lines used. */
int tui_put_wrapped(int y, int x, int w, const char *raw, int max)
{
	char safe[2048];
	util_safe_text(safe, sizeof safe, raw);
	const char *text = safe;
	int used = 0;
	while (*text && used < max && w > 0) {
		int n = (int)strlen(text);
		if (n > w) {
			n = w;
			while (n > w / 2 && text[n] != ' ')
				n--;
			if (text[n] != ' ')
				n = w;
		}
		mvaddnstr(y + used, x, text, n);
		text += n;
		while (*text == ' ')
			text++;
		used++;
	}
	return used;
}

const struct disk_sample *tui_selected_disk(const struct tui *t)
{
	int i = selected_index(t);
	return i < 0 ? NULL : &t->s.disks[i];
}

/* The panel that has the keys, or NULL on the main screen. */
static const struct panel_ops *panel_of(enum key_mode m)
{
	switch (m) {
	case KM_PICKER: return &panel_picker;
	case KM_TUNABLES: return &panel_tunables;
	case KM_LOG: return &panel_log;
	case KM_UDEV: return &panel_udev;
	case KM_IOPRIO: return &panel_ioprio;
	case KM_REPORT: return &panel_report;
	case KM_DETAIL: return &panel_detail;
	default: return NULL;
	}
}

static void draw_panel(const struct tui *t)
{
	const struct panel_ops *p = panel_of(t->mode);
	if (p && p->draw)
		p->draw(t);
}

/* Where the main screen puts things: drawing and mouse clicks use the
 * same arithmetic. header 3 lines, table header + rows, blank, probe 2
 * lines, chart, process pane, detail 2 lines, status 1. */
struct layout {
	int table_y, table_rows;   /* header row at table_y, disks below */
	int first_disk;            /* index of the disk on the first row */
	int y, room, detail_y;
	int pane_y, pane_h;        /* 0 height: no pane */
};

static void main_layout(const struct tui *t, struct layout *L)
{
	int ndisk = t->s.ndisks ? (int)t->s.ndisks : 1;
	L->table_y = 3;
	L->table_rows = LINES / 5 < ndisk ? LINES / 5 : ndisk;
	if (L->table_rows < 1)
		L->table_rows = 1;
	int sel = selected_index(t);
	L->first_disk = sel >= L->table_rows ? sel - L->table_rows + 1 : 0;
	L->y = 3 + 1 + L->table_rows + 1;
	L->detail_y = LINES - 3;
	L->room = L->detail_y - L->y;
	L->pane_h = L->room >= 14 ? L->room * 2 / 5 : L->room >= 8 ? 4 : 0;
	L->pane_y = L->detail_y - L->pane_h;
}

static void draw_main(const struct tui *t)
{
	draw_header(t);
	struct layout L;
	main_layout(t, &L);
	int rows = L.table_rows, y = L.y, detail_y = L.detail_y, room = L.room, pane_h = L.pane_h;
	draw_table(t, 3, rows);
	int sel = selected_index(t);
	if (sel >= 0 && room - pane_h >= 3) {
		const struct disk_sample *d = &t->s.disks[sel];
		draw_probe_line(t, d, y);
		/* The last switch, before against after, stays until the next
		 * one: the effect in numbers for whoever watches. */
		char cmp[400], fresh[96];
		detail_switch_compare(&d->cmp, cmp, sizeof cmp);
		detail_fresh_change(&d->cmp, fresh, sizeof fresh);
		int top = y + 2;
		if (cmp[0] && room - pane_h - 3 >= 4) {
			attron((attr_t)t->th[TH_TITLE]);
			/* The fresh jobs' change on the same line if it fits, else under it */
			int same = fresh[0] && strlen(cmp) + 2 + strlen(fresh) <= (size_t)COLS;
			if (same)
				util_fmt(cmp + strlen(cmp), sizeof cmp - strlen(cmp), "; %s", fresh);
			put(top++, 0, cmp);
			if (fresh[0] && !same && room - pane_h - 4 >= 4)
				put(top++, 0, fresh);
			attroff((attr_t)t->th[TH_TITLE]);
		}
		int chart_h = room - pane_h - (top - y);
		if (d->probed && chart_h >= 4)
			chart_draw(d, &t->s, top, 0, chart_h, COLS, t->utf8, t->th);
	}
	if (pane_h)
		procpane_draw(&t->pp, &t->s, detail_y - pane_h, pane_h, t->focus_procs, t->th);
	if (detail_y > 4)
		draw_detail(t, detail_y);
	draw_status(t);
}

/* One line of large text at (y, x); returns the rows used. */
static int draw_bigtext(const struct tui *t, int y, int x, const char *text, attr_t a)
{
	char rows[BIGTEXT_ROWS][512];
	if (bigtext_render(text, t->utf8, rows, sizeof rows[0]) < 0)
		return 0;
	attron(a);
	for (int r = 0; r < BIGTEXT_ROWS; r++) {
		/* Cut at the screen's edge by columns, not bytes: a block is
		 * three bytes of UTF-8 and one column. */
		int cols = 0;
		char *c = rows[r];
		while (*c && cols < COLS - x) {
			c += (unsigned char)*c >= 0xc0 ? ((unsigned char)*c >= 0xe0 ? 3 : 2) : 1;
			cols++;
		}
		*c = '\0';
		if (y + r < LINES)
			mvaddstr(y + r, x, rows[r]);
	}
	attroff(a);
	return BIGTEXT_ROWS;
}

/* Presentation mode: for the back of a room. The selected disk's
 * scheduler and the probe's p50 and p99 (last 10 s) in large letters, the
 * chart full width, the process pane cut to the top writers. */
static void draw_big(const struct tui *t)
{
	draw_header(t);
	const struct disk_sample *d = tui_selected_disk(t);
	if (!d) {
		put(4, 0, "no disk selected");
		draw_status(t);
		return;
	}
	const char *sched = sched_active(&d->info.sched);
	char label[300], p50[16] = "-", p99[16] = "-", lat[40], one[80];
	const struct probe_summary *p = &d->probe_10s;
	if (hist_enough(p->n, 0.50))
		util_format_latency(p->p50_ns, p50, sizeof p50);
	if (hist_enough(p->n, 0.99))
		util_format_latency(p->p99_ns, p99, sizeof p99);
	/* Within 80 columns: the room reads this line to know what the large
	 * figures are. */
	char rate[32] = "max";
	if (d->probe_st.rate_hz > 0)
		util_fmt(rate, sizeof rate, "%g Hz", d->probe_st.rate_hz);
	util_fmt(label, sizeof label, "%s %s | %s probe (%s), 10 s: p50 %s p99 %s, %.0f reads/s%s", d->info.name,
		 sched ? sched : "none", detail_profile(d->probe_st.rate_hz), rate, p50, p99, d->probe_rps_10s,
		 d->probed ? "" : " - not probed");
	put(3, 0, label);
	/* The scheduler and the labelled p50 and p99 in one line of large
	 * letters where they fit: bare numbers on a projector leave the room
	 * guessing which is which. Narrower (80 columns), "p50/p99" in large
	 * letters under the line above that names them, still on one line so
	 * the top writers keep their room; two lines only where even that is
	 * too wide. */
	const char *sname = sched ? sched : "none";
	util_fmt(lat, sizeof lat, "p50 %s p99 %s", p50, p99);
	util_fmt(one, sizeof one, "%s  %s", sname, lat);
	if (bigtext_width(one) > COLS) {
		util_fmt(lat, sizeof lat, "%s/%s", p50, p99);
		util_fmt(one, sizeof one, "%s  %s", sname, lat);
	}
	int y = 4;
	if (bigtext_width(one) <= COLS) {
		y += draw_bigtext(t, y, 0, one, (attr_t)t->th[TH_TITLE]);
	} else {
		y += draw_bigtext(t, y, 0, sname, (attr_t)t->th[TH_TITLE]);
		y += draw_bigtext(t, y + 1, 0, lat, (attr_t)t->th[TH_CHART_P50]) + 1;
	}
	y++;
	int left = LINES - 1 - y;
	int pane_h = left >= 8 ? (left >= 16 ? 6 : 4) : 0;
	int chart_h = left - pane_h;
	if (d->probed && chart_h >= 4)
		chart_draw(d, &t->s, y, 0, chart_h, COLS, t->utf8, t->th);
	if (pane_h) {
		/* The top writers only: a copy of the pane's state, sorted by WRITE/s. */
		struct procpane_state pp = t->pp;
		pp.sort = PC_WRITE;
		pp.reverse = 0;
		pp.only_active = 1;
		pp.order = NULL;
		pp.norder = pp.cap = 0;
		procpane_arrange(&pp, &t->s);
		procpane_draw(&pp, &t->s, LINES - 1 - pane_h, pane_h, 0, t->th);
		procpane_free(&pp);
	}
	draw_status(t);
}

static void draw(const struct tui *t)
{
	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES)
		put(0, 0, "terminal too small");
	else if (t->help)
		draw_help(t);
	else if (t->big) {
		draw_big(t);
		draw_panel(t);
	} else {
		draw_main(t);
		draw_panel(t);
	}
	refresh();
}

/* R: 20 Hz -> 100 Hz -> max -> 20 Hz (any other pace goes to 20 Hz). */
static void cycle_rate(struct tui *t)
{
	double r = t->s.probe_rate_hz;
	double next = r == 20 ? 100 : r == 100 ? 0 : 20;
	sampler_set_probe_rate(t->smp, next);
	t->s.probe_rate_hz = next;
	char rate[32], msg[64];
	rate_text(next, rate, sizeof rate);
	snprintf(msg, sizeof msg, "probe pace: %s", rate);
	tui_say(t, msg);
}

void tui_request(struct tui *t, enum tune_kind kind, const char *key, const char *value)
{
	const struct disk_sample *d = tui_selected_disk(t);
	if (!d)
		return;
	char msg[256];
	session_set(t->sess, d->info.name, kind, key, value, msg, sizeof msg);
	session_refresh_pending(t->sess, &t->s);
	tui_say(t, msg);
}

static void step_cursor(struct tui *t, int dir)
{
	const struct panel_ops *p = panel_of(t->mode);
	if (p && p->step)
		p->step(t, dir);
	else if (t->mode == KM_MAIN && t->focus_procs)
		procpane_step(&t->pp, &t->s, dir);
	else if (t->mode == KM_MAIN)
		select_index(t, selected_index(t) + dir);
}

static void sort_step(struct tui *t, int dir)
{
	procpane_sort_step(&t->pp, &t->s, dir);
	char msg[64];
	snprintf(msg, sizeof msg, "processes sorted by %s", procpane_column_header(t->pp.sort, t->pp.accumulated));
	tui_say(t, msg);
}

static void toggle(struct tui *t, int *flag, const char *on, const char *off)
{
	*flag = !*flag;
	tui_say(t, *flag ? on : off);
}

/* The run is over: put its settings back (queued undos), keep the report. */
static void ab_finish(struct tui *t, int cancelled)
{
	session_ab_finish(t->sess, cancelled);
	free(t->report.text);
	t->report.text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t->report.text, &len);
	if (f) {
		abreport_write(f, &t->sess->abcfg, &t->sess->abres, AB_TEXT);
		fclose(f);
	}
	t->report.top = 0;
	t->mode = KM_REPORT;
}

static void ab_start(struct tui *t)
{
	char err[512];
	t->ab_prompt = 0;
	if (session_ab_start(t->sess, t->selected, t->ab_input, err, sizeof err) < 0)
		tui_say(t, err);
}

static void ab_key(struct tui *t, int ch)
{
	size_t n = strlen(t->ab_input);
	if (ch == ESC)
		t->ab_prompt = 0;
	else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
		ab_start(t);
	else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n)
		t->ab_input[n - 1] = '\0';
	else if (ch >= 32 && ch < 127 && n + 1 < sizeof t->ab_input) {
		t->ab_input[n] = (char)ch;
		t->ab_input[n + 1] = '\0';
	}
}

static void ab_open(struct tui *t)
{
	const struct disk_sample *d = tui_selected_disk(t);
	if (!d || d->info.sched.n < 2) {
		tui_say(t, "this disk has no schedulers to compare");
		return;
	}
	if (session_ab_status(t->sess)) {
		tui_say(t, session_ab_status(t->sess));
		return;
	}
	/* Offer the classic comparison, editable. */
	const char *a = d->info.sched.names[0], *b = d->info.sched.names[d->info.sched.n - 1];
	util_fmt(t->ab_input, sizeof t->ab_input, "%s,%s", a, b);
	t->ab_prompt = 1;
}

static void load_toggle(struct tui *t)
{
	char msg[512];
	session_load_toggle(t->sess, t->selected, msg, sizeof msg);
	tui_say(t, msg);
}

static void startup_begin(struct tui *t)
{
	char msg[256];
	session_coldstart_begin(t->sess, msg, sizeof msg);
	tui_say(t, msg);
}

static void startup_poll(struct tui *t)
{
	double secs;
	int rc = session_coldstart_poll(t->sess, &secs);
	char msg[300];
	if (rc == 1) {
		t->startup_s = secs;
		util_fmt(msg, sizeof msg, "cold start of '%s': %.2f s", t->o->startup, secs);
		tui_say(t, msg);
	} else if (rc < 0) {
		tui_say(t, "the cold start could not be timed (dropping the page cache needs root; does the command run?)");
	}
}

/* A fresh reader on the selected disk (F, --fresh-every): its time comes
 * back as an event, said on the status line and marked on the chart. */
static void fresh_begin(struct tui *t)
{
	const struct disk_sample *d = tui_selected_disk(t);
	char err[320], msg[360];
	if (!d) {
		tui_say(t, "no disk selected");
		return;
	}
	if (sampler_fresh_start(t->smp, d->info.name, (uint32_t)t->o->fresh_reads, err, sizeof err) < 0) {
		tui_say(t, err);
		return;
	}
	util_fmt(msg, sizeof msg, "%s: fresh reader started (%d reads) ...", d->info.name, t->o->fresh_reads);
	tui_say(t, msg);
}

static void toggle_delayacct(struct tui *t)
{
	char msg[256];
	session_delayacct(t->sess, !t->s.pstat.delayacct, msg, sizeof msg);
	tui_say(t, msg);
}

static void enter(struct tui *t)
{
	const struct panel_ops *p = panel_of(t->mode);
	if (t->mode == KM_MAIN)
		panel_detail_open(t);
	else if (p && p->enter)
		p->enter(t);
}

static void poll_changes(struct tui *t);

static void undo(struct tui *t)
{
	char msg[256];
	/* A change that finished since the last tick goes into the log first,
	 * or u right after it would not find it. */
	poll_changes(t);
	session_undo(t->sess, msg, sizeof msg);
	session_refresh_pending(t->sess, &t->s);
	tui_say(t, msg);
}

/* The theme: --no-color or NO_COLOR give mono; a theme that does not
 * load is said on the status line and the default is used instead. */
static void theme_use(struct tui *t, const char *name)
{
	char err[512];
	struct theme th;
	if (theme_load(name, &th, err, sizeof err) < 0) {
		char msg[600];
		util_fmt(msg, sizeof msg, "%s; using the default theme", err);
		tui_say(t, msg);
		if (strcmp(name, "default") == 0 || theme_load("default", &th, err, sizeof err) < 0)
			theme_defaults(&th); /* attributes only */
	}
	t->theme = th;
	theme_apply(&t->theme, t->th);
}

static void theme_start(struct tui *t)
{
	const char *nc = getenv("NO_COLOR");
	if (t->o->no_color || (nc && *nc)) {
		theme_defaults(&t->theme);
		util_strlcpy(t->theme.name, "mono", sizeof t->theme.name);
		t->theme.mono = 1;
		theme_apply(&t->theme, t->th);
		return;
	}
	theme_use(t, t->o->theme ? t->o->theme : "default");
}

/* W: the settings worth keeping, into the configuration file. Nothing
 * is written without this key. */
static void save_settings(struct tui *t)
{
	if (!t->o->config_path) {
		tui_say(t, "no configuration file (--no-config, or no home directory): nothing saved");
		return;
	}
	char delay[32], rate[32], sort[32], err[512], msg[600];
	util_fmt(delay, sizeof delay, "%g", t->o->delay_s);
	if (t->s.probe_rate_hz > 0)
		util_fmt(rate, sizeof rate, "%g", t->s.probe_rate_hz);
	else
		util_strlcpy(rate, "max", sizeof rate);
	util_strlcpy(sort, procpane_column_name(t->pp.sort), sizeof sort);
	for (char *c = sort; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	const char *keys[] = {"theme", "delay", "sort", "probe-rate"};
	const char *values[] = {t->theme.name[0] ? t->theme.name : "default", delay, sort, rate};
	if (session_save_config(t->sess, keys, values, 4, err, sizeof err) < 0)
		util_fmt(msg, sizeof msg, "not saved: %s", err);
	else
		util_fmt(msg, sizeof msg, "saved theme %s, delay %s, sort %s, probe pace %s to %s", values[0], delay, sort,
			 rate, t->o->config_path);
	tui_say(t, msg);
}

/* T: the next built-in theme. */
static void theme_cycle(struct tui *t)
{
	int i = 0;
	while (i < THEME_NBUILTIN && strcmp(theme_builtin[i], t->theme.name) != 0)
		i++;
	const char *next = theme_builtin[i < THEME_NBUILTIN ? (i + 1) % THEME_NBUILTIN : 0];
	theme_use(t, next);
	if (strcmp(t->theme.name, next) == 0) {
		char msg[96];
		util_fmt(msg, sizeof msg, "theme %s (T: next)", next);
		tui_say(t, msg);
	}
	clearok(curscr, TRUE);
}

/* Keys that change the system do nothing in a replay. */
static void replay_key(struct tui *t, enum key_action a)
{
	char msg[96];
	if (!t->smp->replay) {
		tui_say(t, "Space . + - work in a replay (--replay FILE)");
		return;
	}
	if (a == KEY_ACT_PAUSE && !t->replay_end)
		t->paused = !t->paused;
	else if (a == KEY_ACT_STEP && !t->replay_end)
		t->paused = t->step = 1;
	else if (a == KEY_ACT_FASTER && t->speed < 64)
		t->speed *= 2;
	else if (a == KEY_ACT_SLOWER && t->speed > 1.0 / 64)
		t->speed /= 2;
	util_fmt(msg, sizeof msg, "replay %s, x%g", t->replay_end ? "at its end" : t->paused ? "paused" : "playing",
		 t->speed);
	tui_say(t, msg);
}

static void act(struct tui *t, enum key_action a)
{
	if (t->smp->replay && keys_changes_system(a)) {
		tui_say(t, "this is a replay of a recording: keys that switch or tune are off");
		return;
	}
	switch (a) {
	case KEY_ACT_PAUSE:
	case KEY_ACT_STEP:
	case KEY_ACT_FASTER:
	case KEY_ACT_SLOWER: replay_key(t, a); break;
	case KEY_ACT_THEME: theme_cycle(t); break;
	case KEY_ACT_SAVE: save_settings(t); break;
	case KEY_ACT_BIG: toggle(t, &t->big, "presentation mode (B: back)", "normal view"); break;
	case KEY_ACT_QUIT: t->quit = 1; break;
	case KEY_ACT_UP: step_cursor(t, -1); break;
	case KEY_ACT_DOWN: step_cursor(t, 1); break;
	case KEY_ACT_TOP: select_index(t, 0); break;
	case KEY_ACT_BOTTOM: select_index(t, (int)t->s.ndisks - 1); break;
	case KEY_ACT_HELP: t->help = 1; break;
	case KEY_ACT_REDRAW: clearok(curscr, TRUE); break;
	case KEY_ACT_RATE: cycle_rate(t); break;
	case KEY_ACT_PICKER: panel_picker_open(t); break;
	case KEY_ACT_NEXT_SCHED: panel_picker_next(t, 1); break;
	case KEY_ACT_PREV_SCHED: panel_picker_next(t, -1); break;
	case KEY_ACT_UNDO: undo(t); break;
	case KEY_ACT_TUNABLES: panel_tunables_open(t); break;
	case KEY_ACT_LOG: t->mode = KM_LOG; break;
	case KEY_ACT_UDEV: panel_udev_open(t); break;
	case KEY_ACT_PICK_NONE: panel_picker_pick(t, "none"); break;
	case KEY_ACT_PICK_MQ: panel_picker_pick(t, "mq-deadline"); break;
	case KEY_ACT_PICK_KYBER: panel_picker_pick(t, "kyber"); break;
	case KEY_ACT_PICK_BFQ: panel_picker_pick(t, "bfq"); break;
	case KEY_ACT_ENTER: enter(t); break;
	case KEY_ACT_CLOSE: t->mode = KM_MAIN; break;
	case KEY_ACT_WRITE:
		if (panel_of(t->mode) && panel_of(t->mode)->write)
			panel_of(t->mode)->write(t);
		break;
	case KEY_ACT_FOCUS: toggle(t, &t->focus_procs, "selection: process pane", "selection: disks"); break;
	case KEY_ACT_SORT_LEFT: sort_step(t, -1); break;
	case KEY_ACT_SORT_RIGHT: sort_step(t, 1); break;
	case KEY_ACT_REVERSE: toggle(t, &t->pp.reverse, "sort reversed", "sort: largest first"); break;
	case KEY_ACT_ONLY_ACTIVE: toggle(t, &t->pp.only_active, "only processes with I/O", "all processes"); break;
	case KEY_ACT_ACCUMULATED: toggle(t, &t->pp.accumulated, "totals since start", "rates per second"); break;
	case KEY_ACT_THREADS: toggle(t, &t->smp->cfg.threads, "per-thread rows (from the next refresh)", "per-process rows (from the next refresh)"); break;
	case KEY_ACT_FILTER: t->filtering = 1; break;
	case KEY_ACT_CMDLINE: toggle(t, &t->pp.cmdline, "full command lines", "command names"); break;
	case KEY_ACT_IOPRIO: panel_ioprio_open(t); break;
	case KEY_ACT_DELAYACCT: toggle_delayacct(t); break;
	case KEY_ACT_AB: ab_open(t); break;
	case KEY_ACT_CANCEL:
		if (session_ab_status(t->sess))
			ab_finish(t, 1);
		break;
	case KEY_ACT_LOAD: load_toggle(t); break;
	case KEY_ACT_STARTUP: startup_begin(t); break;
	case KEY_ACT_FRESH: fresh_begin(t); break;
	case KEY_ACT_REPORT:
		if (t->report.text)
			t->mode = KM_REPORT;
		else
			tui_say(t, "no A/B report yet: A runs one");
		break;
	}
	procpane_arrange(&t->pp, &t->s);
}

/* Typing the / filter: printable characters, Backspace, Enter keeps, Esc clears. */
static void filter_key(struct tui *t, int ch)
{
	size_t n = strlen(t->pp.filter);
	if (ch == ESC) {
		t->pp.filter[0] = '\0';
		t->filtering = 0;
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		t->filtering = 0;
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (n)
			t->pp.filter[n - 1] = '\0';
	} else if (ch >= 32 && ch < 127 && n + 1 < sizeof t->pp.filter) {
		t->pp.filter[n] = (char)ch;
		t->pp.filter[n + 1] = '\0';
	}
	procpane_arrange(&t->pp, &t->s);
}

/* A click on a disk row selects it; on the process pane's header, sorts
 * by that column; on a process, selects it; the wheel scrolls the pane. */
static void handle_mouse(struct tui *t)
{
	MEVENT ev;
	if (getmouse(&ev) != OK || t->mode != KM_MAIN || t->help || t->big)
		return;
	struct layout L;
	main_layout(t, &L);
	int in_pane = L.pane_h && ev.y >= L.pane_y && ev.y < L.pane_y + L.pane_h;
	if (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		if (in_pane) {
			t->focus_procs = 1;
			procpane_step(&t->pp, &t->s, ev.bstate & BUTTON4_PRESSED ? -3 : 3);
		}
		return;
	}
	if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_RELEASED)))
		return;
	if (ev.y > L.table_y && ev.y <= L.table_y + L.table_rows) {
		int i = L.first_disk + ev.y - L.table_y - 1;
		if (i < (int)t->s.ndisks) {
			t->focus_procs = 0;
			select_index(t, i);
		}
	} else if (in_pane && ev.y == L.pane_y + 1) {
		int c = procpane_column_at(&t->s, COLS, ev.x);
		if (c >= 0) {
			t->pp.reverse = t->pp.sort == (enum pcol)c ? !t->pp.reverse : 0;
			t->pp.sort = (enum pcol)c;
			char msg[64];
			util_fmt(msg, sizeof msg, "processes sorted by %s%s", procpane_column_header(t->pp.sort, t->pp.accumulated),
				 t->pp.reverse ? " (reversed)" : "");
			tui_say(t, msg);
			procpane_arrange(&t->pp, &t->s);
		}
	} else if (in_pane && ev.y >= L.pane_y + 2) {
		t->focus_procs = 1;
		procpane_select_row(&t->pp, &t->s, L.pane_h, ev.y - L.pane_y - 2);
	}
}

static void handle_key(struct tui *t, int ch)
{
	if (ch == KEY_MOUSE) {
		handle_mouse(t);
		return;
	}
	if (ch == KEY_RESIZE)
		return; /* curses has updated LINES/COLS; the redraw follows */
	if (t->help) {
		/* Scroll keys move the help; any other key closes it. */
		int step = ch == KEY_DOWN || ch == 'j' ? 1 : ch == KEY_UP || ch == 'k' ? -1 : ch == KEY_NPAGE || ch == ' ' ? LINES - 2 :
			   ch == KEY_PPAGE ? -(LINES - 2) : 0;
		if (step)
			t->help_top = t->help_top + step < 0 ? 0 : t->help_top + step;
		else
			t->help = t->help_top = 0;
		return;
	}
	if (t->filtering) {
		filter_key(t, ch);
		return;
	}
	if (t->ab_prompt) {
		ab_key(t, ch);
		return;
	}
	const struct panel_ops *p = panel_of(t->mode);
	if (p && p->type && p->type(t, ch))
		return;
	const struct key_binding *k = keys_lookup(t->mode, ch);
	if (k)
		act(t, k->action);
}

/* Probe, disk and cleanup events of the last tick (a probe that could not
 * start or ended, a disk that came or went, a killed run's scratch files
 * removed) go to the status bar; changes are announced as they finish. */
static void announce(struct tui *t)
{
	for (size_t i = 0; i < t->s.nevents; i++) {
		const struct event *e = &t->s.events[i];
		char msg[300], what[260];
		int says = e->type == EV_PROBE || e->type == EV_CLEANUP || (!e->ok && e->type == EV_FRESH);
		if (!says && e->type != EV_DISK && e->type != EV_FRESH)
			continue;
		event_describe(e, what, sizeof what);
		util_fmt(msg, sizeof msg, "%s: %s", e->disk, says ? e->error : what);
		tui_say(t, msg);
	}
}

/* From <term.h>, which cannot be included here: it defines capability
 * names such as "lines" as macros. */
extern char *tigetstr(const char *capname);

/* newterm, not initscr: initscr exits the process on a terminal it does
 * not know, before probes, loads and settings could be put away. */
static int screen_start(struct tui *t)
{
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		return -ENOTTY;
	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr)
		return -EMEDIUMTYPE; /* an error no collector returns: "unknown TERM" */
	/* A terminal that cannot place the cursor (TERM=dumb) would show a
	 * blank screen: say so instead. */
	const char *cup = tigetstr("cup");
	if (!cup || cup == (const char *)-1) {
		endwin();
		delscreen(scr);
		return -ENOTSUP;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	/* Esc sequences arrive whole from a local terminal; do not wait 1 s. */
	set_escdelay(25);
	/* Esc must reach the panels as a key of its own. */
	theme_start(t);
	if (!t->o->no_mouse) {
		mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
		mouseinterval(0); /* a press is a click: no wait for the release */
	}
	t->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	return 0;
}

static int collect(struct tui *t)
{
	int rc = session_collect(t->sess, &t->s);
	if (rc == -ENODATA) { /* the recording ended: stay on its last tick */
		t->replay_end = t->paused = 1;
		tui_say(t, t->smp->replay_msg[0] ? t->smp->replay_msg : "end of the recording (q quits)");
		return 0;
	}
	if (rc == 0) {
		announce(t);
		procpane_arrange(&t->pp, &t->s);
		/* A recording or metrics file that can no longer be written
		 * ends the run as in batch mode: a status line would scroll
		 * away while the data silently stopped. */
		if (session_write_outputs(t->sess, &t->s) < 0) {
			util_fmt(t->fatal, sizeof t->fatal, "%s; stopped", t->sess->err);
			t->quit = 1;
		}
	}
	return rc;
}

/* When the next sample is due: a replay follows the recorded intervals. */
static double next_due(const struct tui *t, double now)
{
	if (!t->smp->replay)
		return now + t->o->delay_s;
	return now + (t->s.interval_s > 0 ? t->s.interval_s : 1.0) / t->speed;
}

/* Finished changes: into the sample's events, and the newest to the status line. */
static void poll_changes(struct tui *t)
{
	if (session_poll(t->sess) == 0)
		return;
	if (t->ctl->last_mono > t->ctl_seen) {
		t->ctl_seen = t->ctl->last_mono;
		tui_say(t, t->ctl->last);
	}
	if (t->mode == KM_TUNABLES)
		panel_tunables_reload(t);
}

int tui_run(const struct options *o, struct session *sess, volatile sig_atomic_t *stop)
{
	struct sampler *smp = sess->smp;
	struct control *ctl = sess->ctl;
	/* ~200 KB with the charts: on the heap. */
	struct tui *t = calloc(1, sizeof *t);
	if (!t)
		return -ENOMEM;
	t->o = o;
	t->smp = smp;
	t->ctl = ctl;
	t->outs = sess->outs;
	t->sess = sess;
	t->speed = o->replay_speed > 0 ? o->replay_speed : 1;
	procpane_init(&t->pp);
	if (o->sort)
		t->pp.sort = (enum pcol)procpane_column_from_name(o->sort);
	t->big = o->big;
	t->startup_s = -1;
	t->next_fresh = util_mono_now() + t->o->fresh_every_s;
	/* The first collection has no rates yet but lists the disks at once. */
	int rc = collect(t);
	if (rc < 0) {
		free(t);
		return rc;
	}
	select_index(t, 0);
	rc = screen_start(t);
	if (rc < 0) {
		sample_free(&t->s);
		procpane_free(&t->pp);
		free(t);
		return rc;
	}
	double next = next_due(t, util_mono_now());
	long ticks = 0;
	draw(t);
	while (!t->quit && !*stop) {
		double wait = next - util_mono_now();
		/* While a change is in the kernel, redraw often: its time ticks. */
		if (!worker_idle(ctl->w) && wait > 0.1)
			wait = 0.1;
		if ((session_ab_status(t->sess) || session_coldstart_busy(t->sess)) && wait > 0.05)
			wait = 0.05;
		timeout(wait > 0 ? (int)(wait * 1000.0) + 1 : 0);
		int ch = getch();
		if (ch != ERR)
			handle_key(t, ch);
		poll_changes(t);
		session_refresh_pending(t->sess, &t->s);
		startup_poll(t);
		if (t->o->fresh_every_s > 0 && !smp->replay && util_mono_now() >= t->next_fresh) {
			t->next_fresh = util_mono_now() + t->o->fresh_every_s;
			fresh_begin(t);
		}
		if (session_ab_status(t->sess)) {
			char err[512];
			int step = session_ab_step(t->sess, err, sizeof err);
			if (step < 0)
				tui_say(t, err);
			if (step != 0)
				ab_finish(t, 0);
		}
		double now = util_mono_now();
		if (t->paused && !t->step) {
			next = now + 0.1; /* a replay held still */
		} else if (now >= next || t->step) {
			t->step = 0;
			rc = collect(t);
			if (rc < 0)
				break;
			if (smp->replay) {
				next = next_due(t, now);
			} else {
				next += o->delay_s;
				if (next < now)
					next = now + o->delay_s; /* fell behind: do not burst */
			}
			if (o->iterations && ++ticks >= o->iterations)
				t->quit = 1;
		}
		draw(t);
	}
	endwin();
	if (session_ab_status(t->sess))
		ab_finish(t, 1); /* its undos are queued: control_finish waits for them */
	session_end(t->sess);
	free(t->report.text);
	if (t->fatal[0]) {
		fprintf(stderr, "iosched-top: %s\n", t->fatal);
		if (rc == 0)
			rc = 1;
	}
	sample_free(&t->s);
	procpane_free(&t->pp);
	free(t);
	return rc;
}
