/* panel_main: the main screen: header, the disk table, the selected
 * disk's probe line and chart, the process pane, the detail and status
 * lines; and presentation mode's big view (B). */
#include <ctype.h>
#include <curses.h>
#include <langinfo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuiview.h"
#include "base/util.h"
#include "bigtext.h"
#include "chart.h"
#include "model/columns.h"
#include "out/detail.h"

/* The page cache's part of the writers line, in form f: 0 whole, 1
 * without the limits, 2 short, 3 none. */
static void cache_part(const struct writeback_info *w, int f, char *buf, size_t len)
{
	unsigned long long dirty = w->dirty_kB / 1024, wb = w->writeback_kB / 1024;
	char limit[64];
	if (w->dirty_bytes)
		util_fmt(limit, sizeof limit, "dirty_bytes %llu/%llu", (unsigned long long)w->dirty_bytes,
			 (unsigned long long)w->dirty_background_bytes);
	else
		util_fmt(limit, sizeof limit, "dirty_ratio %ld%%/%ld%%", w->dirty_ratio, w->dirty_background_ratio);
	buf[0] = '\0';
	if (!w->ok || f >= 3)
		return;
	if (f == 2)
		util_fmt(buf, len, "  Dirty %llu/WB %llu MB", dirty, wb);
	else
		util_fmt(buf, len, "  Dirty %llu MB  Writeback %llu MB%s%s%s", dirty, wb, f ? "" : "  (", f ? "" : limit,
			 f ? "" : ")");
}

/* Who writes (dirtying against to disks), and what waits in the page
 * cache for the flushers. The first form that fits the width, so that a
 * narrow screen loses the pids and the limits (in -b and JSON), not the
 * figures: "(dirty_rat" cut at 80 columns said nothing. */
static void draw_writers(const struct tui *t, int y)
{
	const struct sample *s = &t->s;
	static const struct { int pids, cache; } forms[] = {{1, 0}, {0, 0}, {0, 1}, {0, 2}, {0, 3}};
	char line[512], who[320], cache[128];
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		if (forms[i].pids)
			detail_writers(s, who, sizeof who);
		else
			detail_writers_brief(s, who, sizeof who);
		cache_part(&s->wb, forms[i].cache, cache, sizeof cache);
		util_fmt(line, sizeof line, "%s%s", who, cache);
		if ((int)strlen(line) <= COLS) /* bytes: a name's UTF-8 counts wide, a shorter form then */
			break;
	}
	screen_put(y, 0, line);
}

/* A message for the status line: whole when it fits, else cut with the
 * key that shows it whole (tui.c put it in the event log). */
static void status_message(const char *msg, char *line, size_t len)
{
	static const char more[] = " [l: whole]";
	int utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	util_strlcpy(line, msg, len);
	/* (the cut counts bytes, and its mark "…" is 3 of them) */
	int room = COLS - (int)sizeof more + 1 - (utf8 ? 2 : 0);
	if ((int)strlen(msg) <= COLS || room < 20)
		return;
	util_cut_mark(line, room, utf8);
	util_strlcpy(line + strlen(line), more, len - strlen(line));
}

/* Why IO-WAIT and AVG-WAIT show "-" and which key turns them on, for the
 * process pane's title (it keeps it at any width); "" when they are
 * measured. D does nothing in a replay or read-only. Below 100 columns
 * the key alone (the help screen and D's message say what it sets), so
 * that the title keeps its count and sort. */
static void iowait_note(const struct tui *t, char *buf, size_t len)
{
	const struct procs_status *p = &t->s.pstat;
	buf[0] = '\0';
	if (!t->s.have_procs || !p->missing[0])
		return;
	int key = p->taskstats && !t->o->read_only && !session_replaying(t->sess);
	if (p->taskstats && !p->delayacct && key && COLS < 100)
		util_strlcpy(buf, "IO-WAIT off: D turns it on", len);
	else if (p->taskstats && !p->delayacct)
		util_fmt(buf, len, "IO-WAIT off: kernel.task_delayacct=0%s", key ? ", D turns it on" : "");
	else if (!p->taskstats)
		util_strlcpy(buf, "IO-WAIT off: needs root (taskstats)", len); /* the detail line has the errno */
	else
		util_fmt(buf, len, "IO-WAIT off: %s", p->missing);
}

static void draw_header(const struct tui *t)
{
	const struct sample *s = &t->s;
	char clock[16], line[512];
	util_clock(s->ts, clock, sizeof clock);
	if (session_replaying(t->sess))
		snprintf(line, sizeof line, "iosched-top - REPLAY of %s (x%g%s) - %s  %s  %s", t->o->replay, t->speed,
			 t->replay_end ? ", ended" : t->paused ? ", paused" : "", clock, s->host, s->kernel);
	else
		snprintf(line, sizeof line, "iosched-top - %s  %s  %s  every %.2gs", clock, s->host, s->kernel,
			 t->o->delay_s);
	if (s->have_load)
		snprintf(line + strlen(line), sizeof line - strlen(line), "  load %.2f %.2f %.2f",
			 s->load[0], s->load[1], s->load[2]);
	attron((attr_t)t->th[TH_TITLE]);
	screen_put(0, 0, line);
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
	screen_put(1, 0, line);
	uint64_t load_written = 0;
	const char *load_disk = "";
	const char *load_kind = session_load_status(t->sess, &load_written, &load_disk);
	if (load_kind) {
		char l[160], sz[16];
		util_format_size(load_written, sz, sizeof sz);
		util_fmt(l, sizeof l, "  LOAD %s on %s: %s written (L stops it)", load_kind, load_disk, sz);
		attron((attr_t)t->th[TH_BADGE]);
		screen_put(1, (int)strlen(line), l);
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
		screen_put(top, x, cell);
		x += cols[idx[c]].width + 1;
	}
	attroff((attr_t)t->th[TH_TABLE_HEAD]);
	int sel = screen_selected_index(t);
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
			screen_put(y, x, cell);
			x += cols[idx[c]].width + 1;
		}
		if (first + r == sel)
			attroff((attr_t)t->th[TH_SELECTED]);
	}
	if (t->s.ndisks == 0)
		screen_put(top + 1, 0, t->o->ndisks ? "the disks given with --disk are gone" : "no disks found");
	/* On the blank line under the table: what is left out, and how to see it. */
	if (t->s.nhidden && rows < LINES) {
		char note[160];
		util_fmt(note, sizeof note, "%s hidden: x shows them", t->s.hidden_what);
		attron(A_DIM);
		screen_put(top + 1 + (t->s.ndisks ? rows : 1), 0, note);
		attroff(A_DIM);
	} else if (session_showing_hidden(t->sess)) {
		attron(A_DIM);
		screen_put(top + 1 + (t->s.ndisks ? rows : 1), 0, "all disks shown: x hides snaps, zram and stacked ones again");
		attroff(A_DIM);
	}
}

static void lat_or_dash(const struct probe_summary *p, double q, uint64_t v, char *b, size_t n)
{
	if (hist_enough(p->n, q))
		util_format_latency(v, b, n);
	else
		util_strlcpy(b, "-", n);
}

/* The probe's state and figures for the selected disk, above its chart.
 * Returns 1 when it shows figures (draw_probe_extra says more of them),
 * 0 for a probe not running (its state is the line). */
static int draw_probe_line(const struct tui *t, const struct disk_sample *d, int y)
{
	char line[512], rate[32], p50[16], p90[16], p99[16], p999[16], c50[16], c99[16];
	const struct probe_status *st = &d->probe_st;
	if (!d->probed) {
		snprintf(line, sizeof line, "%s: not probed (%s)", d->info.name, st->why);
		screen_put(y, 0, line);
		return 0;
	}
	if (st->state == PROBE_ENDED) {
		attron((attr_t)t->th[TH_WARNING]);
		snprintf(line, sizeof line, "%s probe off: %s", d->info.name, st->why);
		screen_put(y, 0, line);
		attroff((attr_t)t->th[TH_WARNING]);
		return 0;
	}
	screen_rate_text(st->rate_hz, rate, sizeof rate);
	if (st->state == PROBE_PREPARING && st->mode == PROBE_MODE_FILES) {
		util_fmt(line, sizeof line, "%s probe: choosing files to read - %s", d->info.name, st->why);
		screen_put(y, 0, line);
		return 0;
	}
	if (st->state == PROBE_PREPARING) {
		util_fmt(line, sizeof line, "%s probe: writing its probe file %s (%d%%) - %s", d->info.name, st->path,
			 st->prep_pct, st->why);
		screen_put(y, 0, line);
		return 0;
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
	screen_put(y, 0, line);
	return 1;
}

/* What else the user must know about the probe's figures, on the line
 * under them, with the chart's legend. */
static void draw_probe_extra(const struct tui *t, const struct disk_sample *d, int y)
{
	const struct probe_status *st = &d->probe_st;
	const struct probe_summary *p = &d->probe_10s;
	char extra[600] = "";
	detail_behind(&d->slow, extra, sizeof extra);
	if (extra[0])
		util_fmt(extra + strlen(extra), sizeof extra - strlen(extra), "  ");
	if (st->in_flight_ms >= 50)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "in flight %.0f ms  ", st->in_flight_ms);
	if (p->flagged)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
			 "%llu implausibly fast samples (cache or unwritten blocks?) left out  ",
			 (unsigned long long)p->flagged);
	if (st->missed)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
			 "%llu paced reads missed (a read outlasted its turn: the disk was that slow)  ",
			 (unsigned long long)st->missed);
	if (t->startup_s >= 0)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "cold start %.2f s  ", t->startup_s);
	if (st->mode == PROBE_MODE_FILE || st->mode == PROBE_MODE_FILES)
		util_fmt(extra + strlen(extra), sizeof extra - strlen(extra), "file mode: %s", st->why);
	attron((attr_t)t->th[TH_TITLE]);
	screen_put(y, 0, extra);
	attroff((attr_t)t->th[TH_TITLE]);
	screen_put(y, COLS - 34 > (int)strlen(extra) ? COLS - 34 : COLS,
	    t->utf8 ? "█ p50  • p99 (max if <100/s)" : "# p50  * p99 (max if <100/s)");
}

/* Everything known of the selected disk, so narrow screens lose nothing. */
static void draw_detail(const struct tui *t, int y)
{
	int sel = screen_selected_index(t);
	if (sel < 0)
		return;
	const struct disk_info *i = &t->s.disks[sel].info;
	char sched[SCHED_MAX * (SCHED_NAME_MAX + 3)], size[16], line[512];
	sched_format(&i->sched, sched, sizeof sched);
	util_format_size(i->size_bytes, size, sizeof size);
	snprintf(line, sizeof line, "%s: %s, %s, %s, model %s, scheduler %s", i->name, disk_kind_name(i->kind),
		 i->rotational < 0 ? "rotational ?" : i->rotational ? "rotational" : "non-rotational", size,
		 i->model[0] ? i->model : "-", sched);
	screen_put(y, 0, line);
	snprintf(line, sizeof line, "  nr_requests %lld, read_ahead_kb %lld, wbt_lat_usec %lld, logical block %u, in flight %llu",
		 (long long)i->nr_requests, (long long)i->read_ahead_kb, (long long)i->wbt_lat_usec,
		 i->logical_block, t->s.disks[sel].in_flight);
	screen_put(y + 1, 0, line);
	if (t->s.disks[sel].warning[0]) {
		attron((attr_t)t->th[TH_WARNING]);
		screen_put(y + 1, COLS - (int)strlen(t->s.disks[sel].warning) - 2 > (int)strlen(line) ?
				   COLS - (int)strlen(t->s.disks[sel].warning) - 2 : COLS,
		    t->s.disks[sel].warning);
		attroff((attr_t)t->th[TH_WARNING]);
	}
}

/* The A/B prompt: in words while the typed text's end (the cursor) fits
 * (what follows it may be cut), else with the syntax in short; past that
 * the typed text alone, its end kept in view: at 80 columns the words had
 * left no room for it. */
static void ab_prompt(const struct tui *t, char *line, size_t len)
{
	static const char *const lead[] = {"variants (SCHED[:key=value],...) load=SIZE, or live for your own load",
					   "(SCHED,... load=SIZE | live)"};
	static const char *const tail[] = {"   (Enter starts, Esc cancels)", "  Enter/Esc"};
	int typed = (int)strlen(t->ab_input);
	for (size_t i = 0; i < 2; i++) {
		util_fmt(line, len, "A/B on %s%s%s: %s_%s", t->selected, i ? " " : ", ", lead[i], t->ab_input, tail[i]);
		if ((int)(strlen(line) - strlen(tail[i])) <= COLS)
			return;
	}
	const char *in = t->ab_input;
	int room = COLS - (int)strlen(t->selected) - (int)strlen("A/B on : _") - 1;
	if (typed > room && room > 4)
		in += typed - (room - 1); /* "…" and the end the cursor is at */
	while (((unsigned char)*in & 0xC0) == 0x80)
		in++; /* not inside a character */
	util_fmt(line, len, "A/B on %s: %s%s_", t->selected, in == t->ab_input ? "" : "…", in);
}

static void draw_status(const struct tui *t)
{
	char line[512];
	char rate[32];
	screen_rate_text(t->s.probe_rate_hz, rate, sizeof rate);
	if (t->ab_prompt)
		ab_prompt(t, line, sizeof line);
	else if (t->units.prompt)
		/* The field first: a long unit name is cut at the right, not it. */
		util_fmt(line, sizeof line, "io.bfq.weight (1-1000, now %d): %s_   of %s   (Enter sets it, Esc cancels)",
			 t->units.now, t->units.edit, t->units.name);
	else if (t->filtering)
		util_fmt(line, sizeof line, "filter processes by command: %s_   (Enter keeps it, Esc clears it)", t->pp.filter);
	else if (session_ab_status(t->sess))
		util_fmt(line, sizeof line, "%s   (Esc stops it)", session_ab_status(t->sess));
	else if (t->msg[0] && util_mono_now() < t->msg_until)
		status_message(t->msg, line, sizeof line);
	/* Help first, whatever the width: the one key a newcomer needs. */
	else if (session_replaying(t->sess))
		util_strlcpy(line, "h help  q quit  Space pause  . step  + - speed  Tab procs  U units  Enter details  C chart  T theme   (a replay)",
			     sizeof line);
	else if (t->o->read_only)
		snprintf(line, sizeof line, "h help  q quit  (read-only)  B big  Tab procs  U units  Enter details  t tunables  l log  C chart  R pace (%s)  F fresh reader  T theme",
			 rate);
	else if (screen_key_off(t, KEY_ACT_AB)) /* not root: why A is missing, before the cut at the right */
		snprintf(line, sizeof line, "h help  q quit  (not root: no A/B, h says why)  B big  s sched  t tunables  Tab procs  U units  C chart  l log  R pace (%s)  T theme",
			 rate);
	else
		/* what a newcomer came for within 80 columns: switch, A/B, the
		 * presentation mode, undo */
		snprintf(line, sizeof line, "h help  q quit  s sched  A A/B  B big  u undo  ] [ next/prev  t tunables  Tab procs  U units  C chart  l log  P udev  R pace (%s)  i ionice  D delayacct  O probe  T theme",
			 rate);
	/* A message in the status colours; the key reminder as a bar. */
	attr_t a = (attr_t)t->th[t->msg[0] && util_mono_now() < t->msg_until ? TH_STATUS : TH_TABLE_HEAD];
	attron(a);
	mvhline(LINES - 1, 0, ' ', COLS);
	screen_put(LINES - 1, 0, line);
	attroff(a);
}

#define PROBE_LINES 2 /* the probe's line and the figures under it */
#define PANE_MIN 10   /* the pane's header lines and 8 processes */

void tui_main_layout(const struct tui *t, struct tui_layout *L)
{
	int ndisk = t->s.ndisks ? (int)t->s.ndisks : 1;
	L->table_y = 3;
	L->table_rows = LINES / 5 < ndisk ? LINES / 5 : ndisk;
	if (L->table_rows < 1)
		L->table_rows = 1;
	/* the disks as a list: the selected one in view, as the keys move it */
	struct listbox disks = {.n = ndisk, .cur = screen_selected_index(t), .cursor = 1};
	L->first_disk = listbox_first(&disks, L->table_rows);
	L->y = 3 + 1 + L->table_rows + 1;
	L->detail_y = LINES - 3;
	L->room = L->detail_y - L->y;
	/* What matters first: the selected disk's probe lines (its scheduler
	 * and p50/p99 are in its table row), then who does the I/O (the
	 * pane: its header and at least 8 rows, two fifths of a tall
	 * screen), then the chart with what is left: a one-line sparkline,
	 * or nothing, before the pane gives up a row. C gives the pane the
	 * chart's rows. */
	int probe = L->room >= 6 ? PROBE_LINES : 0;
	int want = t->no_chart ? L->room : L->room * 2 / 5 > PANE_MIN ? L->room * 2 / 5 : PANE_MIN;
	L->pane_h = want < L->room - probe ? want : L->room - probe;
	if (L->pane_h < 3)
		L->pane_h = 0;
	L->pane_y = L->detail_y - L->pane_h;
}

/* How long after its after window a switch's comparison keeps the place
 * of the probe's second line, where only the probe's two lines fit. */
#define CMP_FRESH_S 30

/* The switch was made less than 10 s + CMP_FRESH_S ago (or its after
 * window still fills): its comparison is what the user is looking for. */
static int cmp_fresh(const struct sample *s, const struct switch_compare *c)
{
	return c->state == 1 || (c->state == 2 && s->ts - c->ts < 10.0 + CMP_FRESH_S);
}

/* The last switch, before against after, from row top (cmp: its line),
 * with the fresh jobs' change and who was served first on the same line
 * if they fit, else under it while the chart keeps 4 rows above bottom.
 * Returns the first row under it. */
static int draw_compare(const struct tui *t, const struct disk_sample *d, char *cmp, size_t len, int top, int bottom)
{
	char more[2][200];
	detail_fresh_change(&d->cmp, more[0], sizeof more[0]);
	detail_behind_change(&d->cmp, t->s.blk_on, more[1], sizeof more[1]);
	attron((attr_t)t->th[TH_TITLE]);
	for (int k = 0; k < 2; k++) {
		if (!more[k][0])
			continue;
		if (strlen(cmp) + 2 + strlen(more[k]) <= (size_t)COLS) {
			util_fmt(cmp + strlen(cmp), len - strlen(cmp), "; %s", more[k]);
		} else if (bottom - top - 2 >= 4) {
			screen_put(top++, 0, cmp);
			util_strlcpy(cmp, more[k], len);
		}
	}
	screen_put(top++, 0, cmp);
	attroff((attr_t)t->th[TH_TITLE]);
	return top;
}

/* The selected disk's probe lines, its last switch and its chart in rows
 * y..y+h-1. The switch's line comes before the chart (a sparkline, or
 * nothing, is left); where only the probe's two lines fit, a fresh one
 * takes the second's place: the effect of ] is what the user watches
 * then. The line stays until the next switch where it has a row. */
static void draw_probe_area(const struct tui *t, const struct disk_sample *d, int y, int h)
{
	char cmp[400];
	detail_switch_compare(&d->cmp, COLS, cmp, sizeof cmp);
	int over = cmp[0] && h == PROBE_LINES && cmp_fresh(&t->s, &d->cmp);
	if (draw_probe_line(t, d, y) && !over)
		draw_probe_extra(t, d, y + 1);
	int top = over ? y + 1 : y + 2;
	if (cmp[0] && top < y + h)
		top = draw_compare(t, d, cmp, sizeof cmp, top, y + h);
	int chart_h = y + h - top;
	if (d->probed && chart_h >= 4)
		chart_draw(d, &t->s, top, 0, chart_h, COLS, t->utf8, t->th);
	else if (d->probed && chart_h >= 1)
		chart_sparkline(d, &t->s, top, 0, COLS, t->utf8, t->th);
}

void tui_draw_main(const struct tui *t)
{
	draw_header(t);
	struct tui_layout L;
	tui_main_layout(t, &L);
	draw_table(t, 3, L.table_rows);
	int sel = screen_selected_index(t);
	if (sel >= 0 && L.room - L.pane_h >= PROBE_LINES)
		draw_probe_area(t, &t->s.disks[sel], L.y, L.room - L.pane_h);
	char note[240];
	iowait_note(t, note, sizeof note);
	if (L.pane_h && t->units.shown)
		unitpane_draw(&t->units.pane, &t->s, L.detail_y - L.pane_h, L.pane_h, t->focus_procs, t->th);
	else if (L.pane_h)
		procpane_draw(&t->pp, &t->s, L.detail_y - L.pane_h, L.pane_h, t->focus_procs, note, t->th);
	if (L.detail_y > 4)
		draw_detail(t, L.detail_y);
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
void tui_draw_big(const struct tui *t)
{
	draw_header(t);
	const struct disk_sample *d = screen_selected_disk(t);
	if (!d) {
		screen_put(4, 0, "no disk selected");
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
	screen_put(3, 0, label);
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
		char note[240];
		iowait_note(t, note, sizeof note);
		procpane_draw(&pp, &t->s, LINES - 1 - pane_h, pane_h, 0, note, t->th);
		procpane_free(&pp);
	}
	draw_status(t);
}
