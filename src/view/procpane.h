/* procpane: the process pane of the full-screen view — its sort, filters
 * and drawing (the columns: proccols.h). It reads the sample's process rows; the TUI keeps a
 * procpane_state and turns keys into calls here. */
#ifndef IOSCHED_PROCPANE_H
#define IOSCHED_PROCPANE_H

#include <stddef.h>

#include "model/proccols.h"
#include "model/sample.h"

struct procpane_state {
	enum pcol sort;            /* default PC_WRITE */
	int reverse;               /* ascending instead of descending */
	int only_active;           /* o: rows with I/O or waits this interval */
	int accumulated;           /* a: totals since start instead of rates */
	int cmdline;               /* c: full command lines */
	char filter[64];           /* /: command name contains this */
	char cgroup[CGROUP_PATH_MAX]; /* Enter on a unit: only its processes ("": all) */
	char unit[128];            /* that unit's name, for the title */
	int selected_tid;          /* kept by id: rows move as they sort */
	int top;                   /* the first row shown (listbox.h) */
	size_t *order;             /* row indexes, sorted and filtered */
	size_t norder, cap;
};

void procpane_init(struct procpane_state *st);
void procpane_free(struct procpane_state *st);

/* Sort and filter the sample's rows into st->order. */
void procpane_arrange(struct procpane_state *st, const struct sample *s);

/* The selected row (after procpane_arrange), or NULL. */
const struct proc_row *procpane_selected(const struct procpane_state *st, const struct sample *s);

/* Move the selection by rows (or to an end: listbox.h) in a pane that
 * shows `rows` of them. */
void procpane_step(struct procpane_state *st, const struct sample *s, int by, int rows);

/* The rows a pane that shows `rows` of them draws, as indexes into
 * s->procs (*n of them, from st->order): what needs its command line. */
const size_t *procpane_visible(const struct procpane_state *st, const struct sample *s, int rows, size_t *n);

/* Draw the pane in rows y..y+h-1; focus: the selection is highlighted;
 * note: what its columns cannot show and why (NULL or ""), on its title
 * line, which gives way to it; th: the theme's attributes per element
 * (theme.h). */
void procpane_draw(const struct procpane_state *st, const struct sample *s, int y, int h, int focus, const char *note,
		   const unsigned long *th);

/* Sort by the next shown column to the left (dir -1) or right (+1). */
void procpane_sort_step(struct procpane_state *st, const struct sample *s, int dir);

/* The column under screen column x of the pane's header on a screen
 * width columns wide (hidden columns skipped, as drawn), or -1. */
int procpane_column_at(const struct sample *s, int width, int x);

/* Select the process on row r (0: the first under the header) of a pane
 * that shows `rows` of them, as drawn. */
void procpane_select_row(struct procpane_state *st, const struct sample *s, int rows, int r);

#endif
