/* tui_units: what the keys do with the units pane (U): the pane shown in
 * the process pane's place, its moves and sort (the process pane's keys),
 * Enter (the process pane filtered to the unit, and its details), and w,
 * a unit's bfq weight (asked for on the status line, set by the worker). cgroups are read only while the pane is open or
 * the process pane is filtered to a unit (session_show_units). */
#include <curses.h>
#include <string.h>

#include "tuiview.h"
#include "base/util.h"
#include "out/detail.h"

/* cgroups are wanted while the pane shows or the processes are filtered
 * by one: the next tick reads them, and opening reads them at once. The
 * unit the processes are filtered by (Enter) has its reads watched: what
 * they waited behind is in its details. */
static void want_cgroups(struct tui *t)
{
	if (!t->sess) /* (the panels' unit tests draw without a run) */
		return;
	session_show_units(t->sess, &t->s, t->units.shown || t->pp.cgroup[0]);
	session_watch_unit(t->sess, t->pp.cgroup);
}

void tui_units_toggle(struct tui *t, struct reply *r)
{
	t->units.shown = !t->units.shown;
	t->focus_procs = 1;
	if (!t->units.shown)
		t->pp.cgroup[0] = '\0';
	want_cgroups(t);
	unitpane_arrange(&t->units.pane, &t->s);
	r->react |= REACT_ARRANGE | REACT_REDRAW;
	screen_reply(r, "%s", t->units.shown ? "units (cgroups): Enter shows a unit's processes; U: every process"
					     : "processes (U: units)");
}

/* Enter: the process pane shows the unit's processes, and its details. */
static void enter(struct tui *t, struct reply *r)
{
	const struct cgroup_sample *c = unitpane_selected(&t->units.pane, &t->s);
	if (!c) {
		screen_reply(r, "no unit selected");
		return;
	}
	if (!c->path[0]) {
		screen_reply(r, "these processes' cgroup is not known: no filter");
		return;
	}
	util_strlcpy(t->pp.cgroup, c->path, sizeof t->pp.cgroup);
	util_strlcpy(t->pp.unit, c->unit, sizeof t->pp.unit);
	util_strlcpy(t->detail.unit, c->path, sizeof t->detail.unit);
	t->detail.pid = 0;
	t->units.shown = 0;
	t->focus_procs = 1;
	t->mode = KM_DETAIL;
	want_cgroups(t);
	r->react |= REACT_ARRANGE | REACT_REDRAW;
	screen_reply(r, "processes of %s (U: units, U again: every process)", c->unit);
}

int tui_units_act(struct tui *t, enum key_action a, int rows, struct reply *r)
{
	if (!t->units.shown || !t->focus_procs)
		return 0;
	struct unitpane_state *u = &t->units.pane;
	switch (a) {
	case KEY_ACT_UP: unitpane_step(u, &t->s, -1, rows); break;
	case KEY_ACT_DOWN: unitpane_step(u, &t->s, 1, rows); break;
	case KEY_ACT_TOP: unitpane_step(u, &t->s, LISTBOX_HOME, rows); break;
	case KEY_ACT_BOTTOM: unitpane_step(u, &t->s, LISTBOX_END, rows); break;
	case KEY_ACT_PAGE_UP: unitpane_step(u, &t->s, -listbox_page(rows), rows); break;
	case KEY_ACT_PAGE_DOWN: unitpane_step(u, &t->s, listbox_page(rows), rows); break;
	case KEY_ACT_SORT_LEFT:
	case KEY_ACT_SORT_RIGHT:
		unitpane_sort_step(u, a == KEY_ACT_SORT_LEFT ? -1 : 1);
		screen_reply(r, "units sorted by %s", unitcols_get(u->sort)->header);
		break;
	case KEY_ACT_REVERSE:
		u->reverse = !u->reverse;
		screen_reply(r, "%s", u->reverse ? "units: sort reversed" : "units: largest first");
		break;
	case KEY_ACT_ENTER: enter(t, r); break;
	default: return 0;
	}
	unitpane_arrange(u, &t->s);
	r->react |= REACT_REDRAW;
	return 1;
}

void tui_units_click(struct tui *t, int x, int row, int rows, struct reply *r)
{
	struct unitpane_state *u = &t->units.pane;
	t->focus_procs = 1;
	if (row < 0) { /* the header: sort by that column, again: reversed */
		int c = unitpane_column_at(COLS, x);
		if (c < 0)
			return;
		u->reverse = u->sort == (enum ucol)c ? !u->reverse : 0;
		u->sort = (enum ucol)c;
		unitpane_arrange(u, &t->s);
		screen_reply(r, "units sorted by %s%s", unitcols_get(u->sort)->header, u->reverse ? " (reversed)" : "");
	} else {
		unitpane_select_row(u, &t->s, rows, row);
	}
}

/* w: the selected unit's bfq weight, asked for; refused, with why, where
 * it has none (this machine's io controller on v1, bfq not in use). */
void tui_units_weight(struct tui *t, struct reply *r)
{
	const struct cgroup_sample *c = t->units.shown ? unitpane_selected(&t->units.pane, &t->s) : NULL;
	if (!c) {
		screen_reply(r, "w: select a unit in the units pane (U) first");
		return;
	}
	char why[240], name[140];
	detail_unit_weight_why(&t->s, c, why, sizeof why);
	util_safe_text(name, sizeof name, c->unit);
	if (why[0]) {
		screen_reply(r, "%s: its weight cannot be changed: %s", name, why);
		r->react |= REACT_HOLD;
		return;
	}
	struct units_state *u = &t->units;
	util_strlcpy(u->path, c->path, sizeof u->path);
	util_strlcpy(u->name, name, sizeof u->name);
	u->now = c->bfq_weight;
	util_fmt(u->edit, sizeof u->edit, "%d", c->bfq_weight);
	u->prompt = 1;
	r->react |= REACT_REDRAW;
}

static int digit(int ch)
{
	return ch >= '0' && ch <= '9';
}

/* A key in w's prompt: digits, Backspace; Enter asks the session (the
 * worker writes it; the status line says the result), Esc cancels. */
void tui_units_weight_key(struct tui *t, int ch, struct reply *r)
{
	struct units_state *u = &t->units;
	r->react |= REACT_REDRAW;
	switch (screen_field_key(u->edit, sizeof u->edit, ch, digit)) {
	case FIELD_ESC:
		u->prompt = 0;
		screen_reply(r, "%s: weight left at %d", u->name, u->now);
		break;
	case FIELD_ENTER:
		u->prompt = 0;
		r->react |= REACT_PENDING;
		if (session_set_weight(t->sess, u->path, u->edit, r->msg, sizeof r->msg) < 0)
			r->react |= REACT_HOLD;
		break;
	case FIELD_TYPED: break;
	}
}
