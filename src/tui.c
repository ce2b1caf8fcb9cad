/* tui: see include/tui.h */
#include "tui.h"

#include <curses.h>
#include <string.h>
#include <time.h>

#include "columns.h"
#include "keys.h"
#include "util.h"

/* Below this the table cannot show a single row usefully. */
#define MIN_COLS 20
#define MIN_LINES 5

struct tui {
	const struct options *o;
	struct sample s;
	char selected[DISK_NAME_MAX];   /* kept by name: disks come and go */
	int help;
	int quit;
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

/* Print text at (y, x), cut at the right edge of the screen. */
static void put(int y, int x, const char *text)
{
	if (y >= LINES || x >= COLS)
		return;
	mvaddnstr(y, x, text, COLS - x);
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
	snprintf(line, sizeof line, "%s: %s, %s, %s, model %s, scheduler %s, nr_requests %lld, read_ahead_kb %lld, wbt_lat_usec %lld, in flight %llu",
		 i->name, disk_kind_name(i->kind),
		 i->rotational < 0 ? "rotational ?" : i->rotational ? "rotational" : "non-rotational",
		 size, i->model[0] ? i->model : "-", sched, (long long)i->nr_requests,
		 (long long)i->read_ahead_kb, (long long)i->wbt_lat_usec, t->s.disks[sel].in_flight);
	put(y, 0, line);
}

static void draw_status(void)
{
	attron(A_REVERSE);
	mvhline(LINES - 1, 0, ' ', COLS);
	put(LINES - 1, 0, "q quit  Up/Down select  h help");
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
	int y = (int)n + 3;
	put(y, 0, "Rates are iostat -x figures over the last interval: r/s w/s requests completed,");
	put(y + 1, 0, "rMB/s wMB/s, r_await w_await ms per request, aqu-sz mean queue, %util busy time.");
}

static void draw(const struct tui *t)
{
	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		put(0, 0, "terminal too small");
		refresh();
		return;
	}
	if (t->help) {
		draw_help();
		refresh();
		return;
	}
	draw_header(t);
	/* header 2 lines, blank, table header, rows, blank, detail, status */
	int rows = LINES - 7;
	if (rows < 1)
		rows = 1;
	draw_table(t, 3, rows);
	draw_detail(t, LINES - 2 > 4 ? LINES - 2 : 4);
	draw_status();
	refresh();
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

static void screen_start(void)
{
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	/* Esc sequences arrive whole from a local terminal; do not wait 1 s. */
	set_escdelay(25);
}

int tui_run(const struct options *o, struct sampler *smp, volatile sig_atomic_t *stop)
{
	struct tui t = {.o = o};
	/* The first collection has no rates yet but lists the disks at once. */
	int rc = sampler_collect(smp, &t.s);
	if (rc < 0)
		return rc;
	select_index(&t, 0);
	screen_start();
	double next = util_mono_now() + o->delay_s;
	long ticks = 0;
	draw(&t);
	while (!t.quit && !*stop) {
		double wait = next - util_mono_now();
		timeout(wait > 0 ? (int)(wait * 1000.0) + 1 : 0);
		int ch = getch();
		if (ch != ERR)
			handle_key(&t, ch);
		double now = util_mono_now();
		if (now >= next) {
			rc = sampler_collect(smp, &t.s);
			if (rc < 0)
				break;
			next += o->delay_s;
			if (next < now)
				next = now + o->delay_s; /* fell behind: do not burst */
			if (o->iterations && ++ticks >= o->iterations)
				t.quit = 1;
		}
		draw(&t);
	}
	endwin();
	sample_free(&t.s);
	return rc;
}
