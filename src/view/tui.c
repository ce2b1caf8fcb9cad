/* tui: see include/tui.h */
#include "tui.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chart.h"
#include "columns.h"
#include "keys.h"
#include "util.h"

/* Below this nothing useful fits. */
#define MIN_COLS 20
#define MIN_LINES 5
/* How long a message stays in the status bar. */
#define MESSAGE_S 8.0

struct tui {
	const struct options *o;
	struct sampler *smp;
	struct sample s;
	char selected[DISK_NAME_MAX];   /* kept by name: disks come and go */
	int help;
	int quit;
	int utf8;
	char msg[256];                  /* status bar message ... */
	double msg_until;               /* ... shown until this mono time */
};

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

static void say(struct tui *t, const char *text)
{
	util_strlcpy(t->msg, text, sizeof t->msg);
	t->msg_until = util_mono_now() + MESSAGE_S;
}

/* Print text at (y, x), cut at the right edge of the screen. */
static void put(int y, int x, const char *text)
{
	if (y < 0 || y >= LINES || x >= COLS)
		return;
	mvaddnstr(y, x, text, COLS - x);
}

static void rate_text(double hz, char *b, size_t n)
{
	if (hz <= 0)
		util_strlcpy(b, "max (back-to-back)", n);
	else
		snprintf(b, n, "%g Hz", hz);
}

static void draw_header(const struct tui *t)
{
	const struct sample *s = &t->s;
	char clock[16], line[512];
	time_t now = (time_t)s->ts;
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(clock, sizeof clock, "%H:%M:%S", &tm);
	snprintf(line, sizeof line, "iosched-top - %s  %s  %s  every %.2gs", clock, s->host, s->kernel,
		 t->o->delay_s);
	if (s->have_load)
		snprintf(line + strlen(line), sizeof line - strlen(line), "  load %.2f %.2f %.2f",
			 s->load[0], s->load[1], s->load[2]);
	attron(A_BOLD);
	put(0, 0, line);
	attroff(A_BOLD);
	if (s->psi_err == 0)
		snprintf(line, sizeof line, "I/O pressure (avg10): some %.2f%%  full %.2f%%",
			 s->psi.some.avg10, s->psi.have_full ? s->psi.full.avg10 : 0.0);
	else
		snprintf(line, sizeof line, "I/O pressure: n/a (/proc/pressure/io: %s)", strerror(-s->psi_err));
	put(1, 0, line);
}

static void draw_table(const struct tui *t, int top, int rows)
{
	size_t ncols, idx[32];
	const struct column *cols = columns_table(&ncols);
	size_t n = columns_fit(COLS, idx);
	char cell[160];
	int x = 0;
	attron(A_REVERSE);
	mvhline(top, 0, ' ', COLS);
	for (size_t c = 0; c < n; c++) {
		columns_header(&cols[idx[c]], cell, sizeof cell);
		put(top, x, cell);
		x += cols[idx[c]].width + 1;
	}
	attroff(A_REVERSE);
	int sel = selected_index(t);
	/* Scroll so the selected disk stays visible. */
	int first = sel >= rows ? sel - rows + 1 : 0;
	for (int r = 0; r < rows && (size_t)(first + r) < t->s.ndisks; r++) {
		const struct disk_sample *d = &t->s.disks[first + r];
		int y = top + 1 + r;
		if (first + r == sel) {
			attron(A_REVERSE | A_BOLD);
			mvhline(y, 0, ' ', COLS);
		}
		x = 0;
		for (size_t c = 0; c < n; c++) {
			columns_cell(&cols[idx[c]], d, cell, sizeof cell);
			put(y, x, cell);
			x += cols[idx[c]].width + 1;
		}
		if (first + r == sel)
			attroff(A_REVERSE | A_BOLD);
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
		attron(A_BOLD);
		snprintf(line, sizeof line, "%s probe off: %s", d->info.name, st->why);
		put(y, 0, line);
		attroff(A_BOLD);
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
	snprintf(line, sizeof line,
		 "%s probe %s %s, QD1 %s reads: 10s p50 %s p90 %s p99 %s p99.9 %s (n=%llu) | since change p50 %s p99 %s (n=%llu)",
		 d->info.name, probe_mode_name(st->mode), rate, size, p50, p90, p99, p999,
		 (unsigned long long)p->n, c50, c99, (unsigned long long)c->n);
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
	if (st->mode == PROBE_MODE_FILE)
		util_fmt(extra + strlen(extra), sizeof extra - strlen(extra), "file mode: %s", st->why);
	attron(A_BOLD);
	put(y + 1, 0, extra);
	attroff(A_BOLD);
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
}

static void draw_status(const struct tui *t)
{
	char line[512];
	char rate[32];
	rate_text(t->s.probe_rate_hz, rate, sizeof rate);
	if (t->msg[0] && util_mono_now() < t->msg_until)
		util_strlcpy(line, t->msg, sizeof line);
	else
		snprintf(line, sizeof line, "q quit  Up/Down select  R probe pace (%s)  h help", rate);
	attron(A_REVERSE);
	mvhline(LINES - 1, 0, ' ', COLS);
	put(LINES - 1, 0, line);
	attroff(A_REVERSE);
}

static void draw_help(void)
{
	size_t n;
	const struct key_binding *k = keys_table(&n);
	char line[256];
	attron(A_BOLD);
	put(0, 0, "iosched-top keys (any key returns)");
	attroff(A_BOLD);
	for (size_t i = 0; i < n && (int)i + 2 < LINES; i++) {
		snprintf(line, sizeof line, "  %-12s %s", k[i].label, k[i].help);
		put((int)i + 2, 0, line);
	}
	static const char *const text[] = {
		"Rates are iostat -x figures over the last interval: r/s w/s requests completed,",
		"rMB/s wMB/s, r_await w_await ms per request, aqu-sz mean queue, %util busy time.",
		"p50 p99: the disk's own probe over the last 10 s - one 4 KiB O_DIRECT random read",
		"at a time (QD1), paced with jitter or back-to-back (R). The pace changes what a",
		"scheduler does: bfq idles for a reader that keeps asking, not for one that comes",
		"back later. '-': too few samples for that percentile (p99 needs 100).",
		"Chart: p50 bars and p99 dots per second, log scale; a marker at each switch.",
	};
	int y = (int)n + 3;
	for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
		put(y + (int)i, 0, text[i]);
}

static void draw_main(const struct tui *t)
{
	draw_header(t);
	/* header 2, blank, table header + rows, blank, probe 2, chart,
	 * detail 2, status 1 */
	int ndisk = (int)t->s.ndisks ? (int)t->s.ndisks : 1;
	int rows = LINES / 3 < ndisk ? LINES / 3 : ndisk;
	if (rows < 1)
		rows = 1;
	draw_table(t, 3, rows);
	int y = 3 + 1 + rows + 1;
	int detail_y = LINES - 3;
	int sel = selected_index(t);
	if (sel >= 0 && detail_y - y >= 3) {
		const struct disk_sample *d = &t->s.disks[sel];
		draw_probe_line(t, d, y);
		if (d->probed && detail_y - (y + 2) >= 4)
			chart_draw(d, &t->s, y + 2, 0, detail_y - (y + 2), COLS, t->utf8);
	}
	if (detail_y > 4)
		draw_detail(t, detail_y);
	draw_status(t);
}

static void draw(const struct tui *t)
{
	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES)
		put(0, 0, "terminal too small");
	else if (t->help)
		draw_help();
	else
		draw_main(t);
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
	say(t, msg);
}

static void act(struct tui *t, enum key_action a)
{
	int sel = selected_index(t);
	switch (a) {
	case KEY_ACT_QUIT: t->quit = 1; break;
	case KEY_ACT_UP: select_index(t, sel - 1); break;
	case KEY_ACT_DOWN: select_index(t, sel + 1); break;
	case KEY_ACT_TOP: select_index(t, 0); break;
	case KEY_ACT_BOTTOM: select_index(t, (int)t->s.ndisks - 1); break;
	case KEY_ACT_HELP: t->help = 1; break;
	case KEY_ACT_REDRAW: clearok(curscr, TRUE); break;
	case KEY_ACT_RATE: cycle_rate(t); break;
	}
}

static void handle_key(struct tui *t, int ch)
{
	if (ch == KEY_RESIZE)
		return; /* curses has updated LINES/COLS; the redraw follows */
	if (t->help) {
		t->help = 0;
		return;
	}
	const struct key_binding *k = keys_lookup(ch);
	if (k)
		act(t, k->action);
}

/* Events of the last tick that the user must not miss go to the status bar. */
static void announce(struct tui *t)
{
	for (size_t i = 0; i < t->s.nevents; i++) {
		const struct event *e = &t->s.events[i];
		char msg[300];
		if (e->ok && strcmp(e->type, "scheduler") == 0)
			snprintf(msg, sizeof msg, "%s: %s -> %s in %.0f ms", e->disk, e->from, e->to, e->ms);
		else if (!e->ok)
			snprintf(msg, sizeof msg, "%s: %s", e->disk, e->error);
		else
			continue;
		say(t, msg);
	}
}

static void screen_start(struct tui *t)
{
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	/* Esc sequences arrive whole from a local terminal; do not wait 1 s. */
	set_escdelay(25);
	chart_init_colours();
	t->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}

static int collect(struct tui *t)
{
	int rc = sampler_collect(t->smp, &t->s);
	if (rc == 0)
		announce(t);
	return rc;
}

int tui_run(const struct options *o, struct sampler *smp, volatile sig_atomic_t *stop)
{
	/* ~200 KB with the charts: on the heap. */
	struct tui *t = calloc(1, sizeof *t);
	if (!t)
		return -ENOMEM;
	t->o = o;
	t->smp = smp;
	/* The first collection has no rates yet but lists the disks at once. */
	int rc = collect(t);
	if (rc < 0) {
		free(t);
		return rc;
	}
	select_index(t, 0);
	screen_start(t);
	double next = util_mono_now() + o->delay_s;
	long ticks = 0;
	draw(t);
	while (!t->quit && !*stop) {
		double wait = next - util_mono_now();
		timeout(wait > 0 ? (int)(wait * 1000.0) + 1 : 0);
		int ch = getch();
		if (ch != ERR)
			handle_key(t, ch);
		double now = util_mono_now();
		if (now >= next) {
			rc = collect(t);
			if (rc < 0)
				break;
			next += o->delay_s;
			if (next < now)
				next = now + o->delay_s; /* fell behind: do not burst */
			if (o->iterations && ++ticks >= o->iterations)
				t->quit = 1;
		}
		draw(t);
	}
	endwin();
	sample_free(&t->s);
	free(t);
	return rc;
}
