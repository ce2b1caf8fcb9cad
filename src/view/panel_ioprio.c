/* panel_ioprio: the selected process's I/O priority (i), as ionice sets
 * it. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tuiview.h"
#include "util.h"

/* What the I/O priority picker offers: ionice's classes and levels. */
static const char *const prio_choices[] = {
	"idle", "be/7", "be/6", "be/5", "be/4", "be/3", "be/2", "be/1", "be/0",
	"none", "rt/7", "rt/6", "rt/5", "rt/4", "rt/3", "rt/2", "rt/1", "rt/0",
};
#define NPRIO (sizeof prio_choices / sizeof prio_choices[0])

static void draw_ioprio(const struct tui *t)
{
	char title[96], line[64];
	util_fmt(title, sizeof title, " I/O priority of %d (%s) ", t->ioprio.pid, t->ioprio.comm);
	int rows = (int)NPRIO < LINES - 8 ? (int)NPRIO : LINES - 8;
	int w = 44, x = COLS > w + 12 ? 12 : 0, y = 3, h = rows + 3;
	if (rows < 2)
		return;
	tui_panel_box(y, x, h, w, title);
	int first = t->ioprio.cur >= rows ? t->ioprio.cur - rows + 1 : 0;
	for (int i = 0; i < rows && first + i < (int)NPRIO; i++) {
		const char *c = prio_choices[first + i];
		util_fmt(line, sizeof line, "%-6s %s", c,
			 !strcmp(c, "idle") ? "only when the disk is idle" : !strcmp(c, "none") ? "follow the nice value" :
			 c[0] == 'r' ? "real time (root; can starve others)" : c[3] == '0' ? "best effort, highest" :
			 c[3] == '7' ? "best effort, lowest" : "best effort");
		if (first + i == t->ioprio.cur)
			attron((attr_t)t->th[TH_SELECTED]);
		tui_put_within(y + 1 + i, x + 2, line, w - 4);
		if (first + i == t->ioprio.cur)
			attroff((attr_t)t->th[TH_SELECTED]);
	}
	tui_put_within(y + h - 2, x + 2, "Enter set (u undoes), Esc cancel", w - 4);
}

static void set_ioprio(struct tui *t)
{
	char msg[256];
	session_ionice(t->sess, t->ioprio.pid, t->ioprio.comm, prio_choices[t->ioprio.cur], msg, sizeof msg);
	tui_say(t, msg);
	t->mode = KM_MAIN;
}

void panel_ioprio_open(struct tui *t)
{
	const struct proc_row *r = procpane_selected(&t->pp, &t->s);
	if (!r) {
		tui_say(t, "no process selected (Tab moves the selection to the process pane)");
		return;
	}
	t->ioprio.pid = r->pid;
	util_strlcpy(t->ioprio.comm, r->comm, sizeof t->ioprio.comm);
	char cur[16];
	procs_format_ioprio(r->ioprio, r->nice, cur, sizeof cur);
	t->ioprio.cur = 0;
	for (size_t i = 0; i < NPRIO; i++)
		if (strcmp(prio_choices[i], cur) == 0)
			t->ioprio.cur = (int)i;
	t->mode = KM_IOPRIO;
}

static void step(struct tui *t, int dir)
{
	t->ioprio.cur = (t->ioprio.cur + dir + (int)NPRIO) % (int)NPRIO;
}

const struct panel_ops panel_ioprio = {.draw = draw_ioprio, .step = step, .enter = set_ioprio};
