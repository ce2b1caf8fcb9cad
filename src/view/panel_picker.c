/* panel_picker: the scheduler picker (s) of the full screen, and the
 * switches main-screen keys make by name (n m k b) or in turn (] [). */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tuiview.h"
#include "base/util.h"

#define PICKER_Y 5

static int picker_rows(const struct tui *t, int *y)
{
	const struct disk_sample *d = screen_selected_disk(t);
	*y = PICKER_Y + 1;
	return d ? d->info.sched.n : 0;
}

static void draw_picker(const struct tui *t)
{
	const struct disk_sample *d = screen_selected_disk(t);
	if (!d)
		return;
	const struct sched_list *l = &d->info.sched;
	char title[64], line[64];
	snprintf(title, sizeof title, " %s scheduler ", d->info.name);
	int h = l->n + 4, w = 34, y = PICKER_Y, x = COLS > w + 10 ? 10 : 0;
	screen_box(y, x, h, w, title);
	for (int i = 0; i < l->n; i++) {
		snprintf(line, sizeof line, "%s %-14s %s", i == l->active ? "*" : " ", l->names[i],
			 i == l->active ? "(active)" : "");
		if (i == t->picker.list.cur)
			attron((attr_t)t->th[TH_SELECTED]);
		screen_put_within(y + 1 + i, x + 2, line, w - 4);
		if (i == t->picker.list.cur)
			attroff((attr_t)t->th[TH_SELECTED]);
	}
	screen_put_within(y + h - 2, x + 2, "n m k b, Enter pick; Esc", w - 4);
}

void panel_picker_pick(struct tui *t, const char *name, struct reply *r)
{
	const struct disk_sample *d = screen_selected_disk(t);
	if (!d)
		return;
	t->mode = KM_MAIN;
	for (int i = 0; i < d->info.sched.n; i++)
		if (strcmp(d->info.sched.names[i], name) == 0) {
			screen_request(t, TUNE_SCHEDULER, "scheduler", name, r);
			return;
		}
	screen_reply(r, "%s does not offer %s (its module not loaded?)", d->info.name, name);
}

/* ] and [: the scheduler after (or before) the one in force, or the one a
 * queued switch is heading to, so repeated presses walk on. */
void panel_picker_next(struct tui *t, int dir, struct reply *r)
{
	const struct disk_sample *d = screen_selected_disk(t);
	if (!d || d->info.sched.n == 0) {
		screen_reply(r, "this disk has no scheduler to switch");
		return;
	}
	const struct sched_list *l = &d->info.sched;
	int cur = l->active < 0 ? 0 : l->active;
	if (d->pending.jobs && strcmp(d->pending.key, "scheduler") == 0)
		for (int i = 0; i < l->n; i++)
			if (strcmp(l->names[i], d->pending.to) == 0)
				cur = i;
	screen_request(t, TUNE_SCHEDULER, "scheduler", l->names[(cur + dir + l->n) % l->n], r);
}

void panel_picker_open(struct tui *t, struct reply *r)
{
	const struct disk_sample *d = screen_selected_disk(t);
	if (!d || d->info.sched.n == 0) {
		screen_reply(r, "this disk has no scheduler to switch");
		return;
	}
	t->picker.list = (struct listbox){.n = d->info.sched.n, .cursor = 1, .wrap = 1};
	t->picker.list.cur = d->info.sched.active < 0 ? 0 : d->info.sched.active;
	t->mode = KM_PICKER;
}

static struct listbox *list(struct tui *t)
{
	const struct disk_sample *d = screen_selected_disk(t);
	listbox_count(&t->picker.list, d ? d->info.sched.n : 0);
	return &t->picker.list;
}

static void enter(struct tui *t, struct reply *r)
{
	const struct disk_sample *d = screen_selected_disk(t);
	if (d && t->picker.list.cur < d->info.sched.n)
		panel_picker_pick(t, d->info.sched.names[t->picker.list.cur], r);
}

const struct panel_ops panel_picker = {.draw = draw_picker, .list = list, .rows = picker_rows, .enter = enter};
