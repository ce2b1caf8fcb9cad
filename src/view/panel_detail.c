/* panel_detail: details of the selected process (its block I/O per
 * disk) or disk (queue, figures, who waits longest), redrawn with every
 * sample (Enter). */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tuiview.h"
#include "base/util.h"
#include "out/detail.h"

/* The Details panel: text from detail.c, redrawn with every sample. */
/* The text's lines from row y, rows of them: a line wider than w wraps
 * onto the rows under it while the rows left over hold it (at 80 columns
 * a disk's iostat line), else it is cut with a mark. */
static void put_lines(const char *text, int y, int x, int w, int rows)
{
	int lines = 0;
	for (const char *q = text; q && *q; q = strchr(q, '\n') ? strchr(q, '\n') + 1 : NULL)
		lines++;
	int spare = rows - lines;
	const char *p = text;
	for (int r = 0; p && *p && r < rows;) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		char seg[1024];
		util_fmt(seg, sizeof seg, "%.*s", n, p);
		int need = screen_wrapped_rows(w, seg, rows - r);
		if (need > 1 && need - 1 <= spare) {
			screen_put_wrapped(y + r, x, w, seg, rows - r);
			spare -= need - 1;
			r += need;
		} else {
			screen_put_within(y + r, x, seg, w);
			r++;
		}
		p = nl ? nl + 1 : NULL;
	}
}

static void draw_detail_panel(const struct tui *t)
{
	int w = COLS - 4, x = 2, y = 2, h = LINES - 4;
	const struct disk_sample *d = screen_selected_disk(t);
	if (w < 20 || h < 4 || (!t->detail.pid && !t->detail.unit[0] && !d))
		return;
	char text[8192];
	if (t->detail.unit[0])
		detail_unit(&t->s, t->detail.unit, t->pp.unit, text, sizeof text);
	else if (t->detail.pid)
		detail_process(&t->s, t->detail.pid, t->detail.comm, text, sizeof text);
	else
		detail_disk(&t->s, d, text, sizeof text);
	screen_box(y, x, h, w, t->detail.unit[0] ? " unit details (Esc: its processes) "
			       : t->detail.pid ? " process details (Esc closes) " : " disk details (Esc closes) ");
	put_lines(text, y + 1, x + 2, w - 4, h - 2);
}

/* Enter on the main screen: details of what is selected. */
void panel_detail_open(struct tui *t, struct reply *r)
{
	const struct proc_row *p = t->focus_procs ? procpane_selected(&t->pp, &t->s) : NULL;
	if (t->focus_procs && !p) {
		screen_reply(r, "no process selected");
		return;
	}
	if (!t->focus_procs && !screen_selected_disk(t)) {
		screen_reply(r, "no disk selected");
		return;
	}
	t->detail.pid = p ? p->pid : 0;
	t->detail.unit[0] = '\0';
	util_strlcpy(t->detail.comm, p ? p->comm : "", sizeof t->detail.comm);
	t->mode = KM_DETAIL;
}

const struct panel_ops panel_detail = {.draw = draw_detail_panel};
