/* panel_log: the event log (l): every change, probe and disk event,
 * newest last. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tuiview.h"
#include "util.h"

static void draw_log(const struct tui *t)
{
	int w = COLS - 4, x = 2, y = 2, h = LINES - 4;
	if (w < 20 || h < 4)
		return;
	tui_panel_box(y, x, h, w, " event log (newest last) ");
	int rows = h - 2, first = (int)t->s.nrecent > rows ? (int)t->s.nrecent - rows : 0;
	if (t->s.nrecent == 0)
		tui_put_within(y + 1, x + 2, "no events yet: changes, and probes that start or end, show here", w - 4);
	for (int i = first; i < (int)t->s.nrecent; i++) {
		const struct event *e = &t->s.recent[i];
		char clock[16], line[512];
		time_t ts = (time_t)e->ts;
		struct tm tm;
		localtime_r(&ts, &tm);
		strftime(clock, sizeof clock, "%H:%M:%S", &tm);
		char what[400];
		event_describe(e, what, sizeof what);
		/* device and process apart: an ioprio change names a process */
		char pid[16] = "";
		if (e->pid > 0)
			util_fmt(pid, sizeof pid, "%d", e->pid);
		util_fmt(line, sizeof line, "%s %-8s %7s %s", clock, e->disk, pid, what);
		char safe[600];
		util_safe_text(safe, sizeof safe, line);
		tui_put_within(y + 1 + i - first, x + 2, safe, w - 4);
	}
}

const struct panel_ops panel_log = {.draw = draw_log};
