/* panel_log: the event log (l): every change, probe and disk event,
 * newest last, scrolled; its newest line stays in view while the log is
 * at its end. */
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

static void draw_log(const struct tui *t)
{
	int w = COLS - 4, x = 2, y = LOG_Y, h = LINES - 4;
	if (w < 20 || h < 4)
		return;
	screen_box(y, x, h, w, " event log (newest last) ");
	int rows = h - 2;
	struct listbox l = t->log.list;
	l.n = (int)t->s.nrecent;
	int first = listbox_first(&l, rows);
	if (t->s.nrecent == 0)
		screen_put_within(y + 1, x + 2, "no events yet: changes, and probes that start or end, show here", w - 4);
	for (int i = first; i < (int)t->s.nrecent && i < first + rows; i++) {
		char line[512];
		log_line(&t->s.recent[i], line, sizeof line);
		screen_put_within(y + 1 + i - first, x + 2, line, w - 4);
	}
}

void panel_log_open(struct tui *t)
{
	t->log.list = (struct listbox){.n = (int)t->s.nrecent, .follow = 1, .at_end = 1};
	t->mode = KM_LOG;
}

static struct listbox *list(struct tui *t)
{
	listbox_count(&t->log.list, (int)t->s.nrecent);
	return &t->log.list;
}

const struct panel_ops panel_log = {.draw = draw_log, .list = list, .rows = log_rows};
