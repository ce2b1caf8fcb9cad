/* unitpane: the units pane of the full screen, in the process pane's
 * place (U toggles them): one row per cgroup v2 of the sample (the
 * busiest SAMPLE_CGROUPS_MAX, the rest on one line), with its own sort
 * (the columns: unitcols.h). It reads the sample's cgroups; the TUI
 * keeps a unitpane_state and turns keys into calls here. */
#ifndef IOSCHED_UNITPANE_H
#define IOSCHED_UNITPANE_H

#include <stddef.h>

#include "model/sample.h"
#include "unitcols.h"

struct unitpane_state {
	enum ucol sort;            /* default UC_WRITE */
	int reverse;
	char selected[CGROUP_PATH_MAX]; /* kept by path: rows move as they sort; "" the first */
	int top;
	size_t order[SAMPLE_CGROUPS_MAX]; /* indexes into the sample's cgroups, sorted */
	size_t norder;
};

void unitpane_init(struct unitpane_state *st);

/* Sort the sample's cgroups into st->order. */
void unitpane_arrange(struct unitpane_state *st, const struct sample *s);

/* The selected cgroup (after unitpane_arrange), or NULL. */
const struct cgroup_sample *unitpane_selected(const struct unitpane_state *st, const struct sample *s);

/* Move the selection by rows (or to an end: listbox.h) in a pane that
 * shows `rows` of them; select the r-th row shown. */
void unitpane_step(struct unitpane_state *st, const struct sample *s, int by, int rows);
void unitpane_select_row(struct unitpane_state *st, const struct sample *s, int rows, int r);

/* Sort by the next shown column to the left (dir -1) or right (+1); by
 * the column under screen column x of the header (-1: none there). */
void unitpane_sort_step(struct unitpane_state *st, int dir);
int unitpane_column_at(int width, int x);

/* Draw the pane in rows y..y+h-1 (its title, its header, its rows);
 * focus: the selection is highlighted; th: the theme's attributes. */
void unitpane_draw(const struct unitpane_state *st, const struct sample *s, int y, int h, int focus,
		   const unsigned long *th);

#endif
