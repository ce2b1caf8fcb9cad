/* panel_tunables: a disk's queue settings and its scheduler's own (t),
 * each editable in place. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tuiview.h"
#include "base/util.h"

#define TUNABLES_Y 3

static int tunables_rows(const struct tui *t, int *y)
{
	*y = TUNABLES_Y + 1;
	int rows = t->tunables.list.n;
	return rows > LINES - 10 ? LINES - 10 : rows;
}

static void draw_tunables(const struct tui *t)
{
	const struct disk_sample *d = screen_selected_disk(t);
	if (!d)
		return;
	char title[96], line[160];
	snprintf(title, sizeof title, " %s tunables (%s) ", d->info.name,
		 sched_active(&d->info.sched) ? sched_active(&d->info.sched) : "no scheduler");
	int w = COLS - 8 < 76 ? COLS - 8 : 76, x = (COLS - w) / 2, y = TUNABLES_Y;
	int y0, rows = tunables_rows(t, &y0);
	int h = rows + 6; /* border, rows, edit line, two message lines, border */
	if (w < 20 || rows < 1)
		return;
	screen_box(y, x, h, w, title);
	int first = listbox_first(&t->tunables.list, rows), cur = t->tunables.list.cur;
	for (int i = 0; i < rows && first + i < t->tunables.list.n; i++) {
		const struct tunable *tu = &t->tunables.tun[first + i];
		char label[80];
		session_tunable_label(tu, label, sizeof label);
		snprintf(line, sizeof line, "%-28s %-20s%s", label, tu->value, tu->writable ? "" : " (read-only)");
		if (first + i == cur)
			attron((attr_t)t->th[TH_SELECTED]);
		screen_put_within(y0 + i, x + 2, line, w - 4);
		if (first + i == cur)
			attroff((attr_t)t->th[TH_SELECTED]);
	}
	if (t->tunables.editing) {
		snprintf(line, sizeof line, "new value: %s_", t->tunables.edit);
		attron((attr_t)t->th[TH_TITLE]);
		screen_put_within(y + h - 4, x + 2, line, w - 4);
		attroff((attr_t)t->th[TH_TITLE]);
	}
	screen_put_wrapped(y + h - 3, x + 2, w - 4, t->tunables.err[0] ? t->tunables.err : "Enter edit, u undo, Esc close", 2);
}

void panel_tunables_reload(struct tui *t)
{
	const struct disk_sample *d = screen_selected_disk(t);
	listbox_count(&t->tunables.list, d ? (int)session_tunables(d->info.name, t->tunables.tun, MAX_TUNABLES) : 0);
}

void panel_tunables_open(struct tui *t)
{
	t->mode = KM_TUNABLES;
	t->tunables.list.cursor = t->tunables.list.wrap = 1; /* the cursor stays where it was */
	t->tunables.err[0] = '\0';
	panel_tunables_reload(t);
}

/* Typing a tunable's new value: digits and '-', Backspace, Enter, Esc. */
static int type(struct tui *t, int ch, struct reply *r)
{
	if (!t->tunables.editing)
		return 0;
	size_t n = strlen(t->tunables.edit);
	if (ch == ESC) {
		t->tunables.editing = 0;
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (n)
			t->tunables.edit[n - 1] = '\0';
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		const struct disk_sample *d = screen_selected_disk(t);
		const struct tunable *tu = &t->tunables.tun[t->tunables.list.cur];
		if (!d)
			return 1;
		r->react |= REACT_PENDING;
		/* Errors stay in the panel, where the value was typed. */
		session_set(t->sess, d->info.name, tu->kind, tu->key, t->tunables.edit, t->tunables.err, sizeof t->tunables.err);
		t->tunables.editing = 0;
	} else if (((ch >= '0' && ch <= '9') || ch == '-') && n + 1 < sizeof t->tunables.edit) {
		t->tunables.edit[n] = (char)ch;
		t->tunables.edit[n + 1] = '\0';
	}
	r->react |= REACT_REDRAW;
	return 1;
}

static struct listbox *list(struct tui *t)
{
	return &t->tunables.list;
}

static void enter(struct tui *t, struct reply *r)
{
	r->react |= REACT_REDRAW;
	if (!t->tunables.list.n)
		return;
	if (t->o->read_only) {
		screen_reply(r, "read-only mode (--read-only): tunables are shown, not changed");
		return;
	}
	t->tunables.editing = 1;
	t->tunables.edit[0] = '\0';
	t->tunables.err[0] = '\0';
}

const struct panel_ops panel_tunables = {.draw = draw_tunables, .list = list, .rows = tunables_rows, .enter = enter, .type = type};
