/* panel_ioprio: the selected process's I/O priority (i), as ionice sets
 * it. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tuiview.h"
#include "base/util.h"

/* What the I/O priority picker offers: ionice's classes and levels. The
 * list does not wrap: real time is chosen on purpose, never scrolled
 * into from best effort. */
static const char *const prio_choices[] = {
	"idle", "be/7", "be/6", "be/5", "be/4", "be/3", "be/2", "be/1", "be/0",
	"none", "rt/7", "rt/6", "rt/5", "rt/4", "rt/3", "rt/2", "rt/1", "rt/0",
};
#define NPRIO (sizeof prio_choices / sizeof prio_choices[0])
#define IOPRIO_Y 3

static int ioprio_rows(const struct tui *t, int *y)
{
	(void)t;
	*y = IOPRIO_Y + 1;
	return (int)NPRIO < LINES - 8 ? (int)NPRIO : LINES - 8;
}

static const char *choice_text(const char *c)
{
	return !strcmp(c, "idle") ? "only when the disk is idle" : !strcmp(c, "none") ? "follow the nice value" :
	       c[0] == 'r' ? "real time (root; can starve others)" : c[3] == '0' ? "best effort, highest" :
	       c[3] == '7' ? "best effort, lowest" : "best effort";
}

static void draw_ioprio(const struct tui *t)
{
	char title[96], line[64];
	util_fmt(title, sizeof title, " I/O priority of %d (%s) ", t->ioprio.pid, t->ioprio.comm);
	int y0, rows = ioprio_rows(t, &y0);
	int w = 44, x = COLS > w + 12 ? 12 : 0, y = IOPRIO_Y, h = rows + 3;
	if (rows < 2)
		return;
	screen_box(y, x, h, w, title);
	int first = listbox_first(&t->ioprio.list, rows);
	for (int i = 0; i < rows && first + i < (int)NPRIO; i++) {
		const char *c = prio_choices[first + i];
		util_fmt(line, sizeof line, "%-6s %s", c, choice_text(c));
		if (first + i == t->ioprio.list.cur)
			attron((attr_t)t->th[TH_SELECTED]);
		screen_put_within(y0 + i, x + 2, line, w - 4);
		if (first + i == t->ioprio.list.cur)
			attroff((attr_t)t->th[TH_SELECTED]);
	}
	screen_put_within(y + h - 2, x + 2, "Enter set (u undoes; rt: Enter twice), Esc", w - 4);
}

static void set_ioprio(struct tui *t, struct reply *r)
{
	const char *c = prio_choices[t->ioprio.list.cur];
	/* Real time is a choice made twice: it can starve every other
	 * process's I/O on the disk. */
	if (c[0] == 'r' && t->ioprio.rt_asked != t->ioprio.list.cur) {
		t->ioprio.rt_asked = t->ioprio.list.cur;
		screen_reply(r, "%s is real time: it can starve every other process's I/O. Enter again to set it", c);
		return;
	}
	session_ionice(t->sess, t->ioprio.pid, t->ioprio.start, t->ioprio.comm, prio_choices[t->ioprio.list.cur], r->msg,
		       sizeof r->msg);
	r->react |= REACT_REDRAW;
	t->mode = KM_MAIN;
}

/* The start time of row p's process: its own row's, or in thread mode
 * its main thread's (0: not known). */
static unsigned long long main_start(const struct sample *s, const struct proc_row *p)
{
	if (p->tid == p->pid)
		return p->start;
	for (size_t i = 0; s->have_procs && i < s->nprocs; i++)
		if (s->procs[i].tid == p->pid && s->procs[i].pid == p->pid)
			return s->procs[i].start;
	return 0;
}

void panel_ioprio_open(struct tui *t, struct reply *r)
{
	const struct proc_row *p = procpane_selected(&t->pp, &t->s);
	if (!p) {
		screen_reply(r, "no process selected (Tab moves the selection to the process pane)");
		return;
	}
	if (p->exited) {
		screen_reply(r, "pid %d (%s) has ended: it has no I/O priority to set (its pid may be another's now)",
			     p->pid, p->comm);
		return;
	}
	t->ioprio.start = main_start(&t->s, p);
	if (!t->ioprio.start) {
		/* without it, whichever process has the pid at Enter would be set */
		screen_reply(r, "pid %d (%s): its start time is not known (its /proc files did not answer), so whether "
			     "it is still this process cannot be told: try again at the next refresh", p->pid, p->comm);
		return;
	}
	t->ioprio.pid = p->pid;
	util_strlcpy(t->ioprio.comm, p->comm, sizeof t->ioprio.comm);
	char cur[16];
	procs_format_ioprio(p->ioprio, p->nice, cur, sizeof cur);
	t->ioprio.list = (struct listbox){.n = (int)NPRIO, .cursor = 1};
	t->ioprio.rt_asked = -1;
	for (size_t i = 0; i < NPRIO; i++)
		if (strcmp(prio_choices[i], cur) == 0)
			t->ioprio.list.cur = (int)i;
	t->mode = KM_IOPRIO;
}

static struct listbox *list(struct tui *t)
{
	t->ioprio.rt_asked = -1; /* a move: a real-time choice is asked for again */
	return &t->ioprio.list;
}

const struct panel_ops panel_ioprio = {.draw = draw_ioprio, .list = list, .rows = ioprio_rows, .enter = set_ioprio};
