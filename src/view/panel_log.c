/* panel_log: the event log (l): every change, probe and disk event,
 * newest last, scrolled; its newest line stays in view while the log is
 * at its end. A line wider than the box wraps onto the rows under it
 * (indented): nothing of it is cut. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuiview.h"
#include "base/util.h"

#define LOG_Y 2

static int log_rows(const struct tui *t, int *y)
{
	(void)t;
	*y = LOG_Y + 1;
	return LINES - 4 - 2;
}

static void log_line(const struct event *e, char *line, size_t len)
{
	char clock[16], what[400], pid[16] = "";
	util_clock(e->ts, clock, sizeof clock);
	event_describe(e, what, sizeof what);
	/* device and process apart: an ioprio change names a process */
	if (e->pid > 0)
		util_fmt(pid, sizeof pid, "%d", e->pid);
	util_fmt(line, len, "%s %-8s %7s %s", clock, e->disk, pid, what);
}

/* The length of the next row of text (at most w bytes, ended at a blank
 * where one falls in its second half, never inside a UTF-8 character). */
static int piece(const char *text, int w)
{
	int n = (int)strlen(text);
	if (n <= w)
		return n;
	n = w;
	while (n > w / 2 && text[n] != ' ')
		n--;
	if (text[n] != ' ')
		for (n = w; n > 1 && ((unsigned char)text[n] & 0xC0) == 0x80; n--)
			;
	return n;
}

/* Event i's line, made safe, cut into rows of width w (the rows after
 * the first indented by INDENT): into rows (up to max, each up to 512
 * bytes) if given; how many. Nothing of a line is cut off: at 80
 * columns a refusal's reason is read whole here. */
#define INDENT 2
#define ROWS_MAX 64 /* a line of 1,024 bytes at the narrowest width (18) */
static int event_rows(const struct tui *t, size_t i, int w, char (*rows)[512], int max)
{
	char line[512], safe[1024];
	log_line(&t->s.recent[i], line, sizeof line);
	util_safe_text(safe, sizeof safe, line);
	const char *p = safe;
	int n = 0;
	while (*p && w > INDENT + 8) {
		int room = n ? w - INDENT : w, k = piece(p, room);
		if (rows && n < max)
			util_fmt(rows[n], sizeof rows[n], "%*s%.*s", n ? INDENT : 0, "", k, p);
		n++;
		for (p += k; *p == ' '; p++)
			;
	}
	return n ? n : 1;
}

/* Rows of the whole log at width w. */
static int log_total(const struct tui *t, int w)
{
	int n = 0;
	for (size_t i = 0; i < t->s.nrecent; i++)
		n += event_rows(t, i, w, NULL, 0);
	return n;
}

static void draw_log(const struct tui *t)
{
	int w = COLS - 4, x = 2, y = LOG_Y, h = LINES - 4;
	if (w < 20 || h < 4)
		return;
	screen_box(y, x, h, w, " event log (newest last) ");
	int rows = h - 2, width = w - 4;
	struct listbox l = t->log.list;
	l.n = log_total(t, width);
	int first = listbox_first(&l, rows), row = 0;
	if (t->s.nrecent == 0)
		screen_put_within(y + 1, x + 2, "no events yet: changes, and probes that start or end, show here", width);
	for (size_t i = 0; i < t->s.nrecent && row < first + rows; i++) {
		char text[ROWS_MAX][512];
		int n = event_rows(t, i, width, text, ROWS_MAX);
		for (int k = 0; k < n; k++, row++)
			if (k < ROWS_MAX && row >= first && row < first + rows)
				screen_put_within(y + 1 + row - first, x + 2, text[k], width);
	}
}

void panel_log_open(struct tui *t)
{
	t->log.list = (struct listbox){.n = log_total(t, COLS - 8), .follow = 1, .at_end = 1};
	t->mode = KM_LOG;
}

static struct listbox *list(struct tui *t)
{
	listbox_count(&t->log.list, log_total(t, COLS - 8));
	return &t->log.list;
}

const struct panel_ops panel_log = {.draw = draw_log, .list = list, .rows = log_rows};
