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
	const char *p = text;
	for (int r = 0; p && *p && r < h - 2; r++) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		char seg[1024];
		util_fmt(seg, sizeof seg, "%.*s", n, p);
		screen_put_within(y + 1 + r, x + 2, seg, w - 4);
		p = nl ? nl + 1 : NULL;
	}
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
