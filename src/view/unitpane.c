/* unitpane: see src/view/unitpane.h */
#include "unitpane.h"

#include <curses.h>
#include <langinfo.h>
#include <stdlib.h>
#include <string.h>

#include "listbox.h"
#include "screen.h"
#include "theme.h"
#include "base/util.h"

void unitpane_init(struct unitpane_state *st)
{
	memset(st, 0, sizeof *st);
	st->sort = UC_WRITE;
}

/* qsort has no context argument: (key, text, index) triples. */
struct keyed {
	double key;
	const char *text, *path;
	size_t idx;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = x->text ? strcmp(x->text, y->text) : (x->key < y->key) - (x->key > y->key);
	return c ? c : strcmp(x->path, y->path); /* a stable order */
}

void unitpane_arrange(struct unitpane_state *st, const struct sample *s)
{
	struct keyed k[SAMPLE_CGROUPS_MAX];
	size_t n = s->ncgroups < SAMPLE_CGROUPS_MAX ? s->ncgroups : SAMPLE_CGROUPS_MAX;
	const struct unitcol *col = unitcols_get(st->sort);
	for (size_t i = 0; i < n; i++) {
		const struct cgroup_sample *c = &s->cgroups[i];
		k[i] = (struct keyed){col->sort_key ? col->sort_key(c) : 0, col->text ? col->text(c) : NULL, c->path, i};
	}
	qsort(k, n, sizeof *k, cmp_keyed);
	for (size_t i = 0; i < n; i++)
		st->order[i] = k[st->reverse ? n - 1 - i : i].idx;
	st->norder = n;
}

static int selected_pos(const struct unitpane_state *st, const struct sample *s)
{
	for (size_t i = 0; i < st->norder; i++)
		if (strcmp(s->cgroups[st->order[i]].path, st->selected) == 0)
			return (int)i;
	return st->norder ? 0 : -1;
}

const struct cgroup_sample *unitpane_selected(const struct unitpane_state *st, const struct sample *s)
{
	int p = selected_pos(st, s);
	return p < 0 ? NULL : &s->cgroups[st->order[p]];
}

static struct listbox as_list(const struct unitpane_state *st, const struct sample *s)
{
	return (struct listbox){.n = (int)st->norder, .cur = selected_pos(st, s), .top = st->top, .cursor = 1};
}

static void select_index(struct unitpane_state *st, const struct sample *s, const struct listbox *l, int rows)
{
	util_strlcpy(st->selected, s->cgroups[st->order[l->cur]].path, sizeof st->selected);
	st->top = listbox_first(l, rows);
}

void unitpane_step(struct unitpane_state *st, const struct sample *s, int by, int rows)
{
	if (!st->norder)
		return;
	struct listbox l = as_list(st, s);
	listbox_move(&l, by, rows);
	select_index(st, s, &l, rows);
}

void unitpane_select_row(struct unitpane_state *st, const struct sample *s, int rows, int r)
{
	struct listbox l = as_list(st, s);
	if (listbox_click(&l, rows, r) >= 0)
		select_index(st, s, &l, rows);
}

void unitpane_sort_step(struct unitpane_state *st, int dir)
{
	int c = (int)st->sort;
	do
		c = (c + dir + UC_COUNT) % UC_COUNT;
	while (!unitcols_shown((enum ucol)c, COLS) && c != (int)st->sort);
	st->sort = (enum ucol)c;
}

/* Column c's width where it starts at x on a screen width wide. */
static int width_at(int c, int x, int width)
{
	int w = unitcols_width((enum ucol)c, width);
	return w ? w : width - x;
}

int unitpane_column_at(int width, int x)
{
	int left = 0;
	for (int c = 0; c < UC_COUNT && left < width; c++) {
		if (!unitcols_shown((enum ucol)c, width))
			continue;
		int w = width_at(c, left, width);
		if (x >= left && x < left + w)
			return c;
		left += w + 1;
	}
	return -1;
}

/* The title: what the pane is, its sort, and what this machine lacks. */
static void title(const struct unitpane_state *st, const struct sample *s, int y, const unsigned long *th)
{
	char line[512], rest[96] = "";
	if (s->cgroups_rest.n)
		util_fmt(rest, sizeof rest, " (and %d quieter)", s->cgroups_rest.n);
	util_fmt(line, sizeof line, "Units (cgroup v2): %zu%s, sorted by %s%s; Enter: its processes and details%s%s",
		 st->norder, rest, unitcols_get(st->sort)->header, st->reverse ? " (reversed)" : "",
		 s->cgroups_why[0] ? "; " : "", s->cgroups_why);
	attron((attr_t)th[TH_TITLE]);
	mvhline(y, 0, ' ', COLS);
	screen_put(y, 0, line);
	attroff((attr_t)th[TH_TITLE]);
}

static void header(const struct unitpane_state *st, int y, const unsigned long *th)
{
	char b[300];
	attron((attr_t)th[TH_TABLE_HEAD]);
	mvhline(y, 0, ' ', COLS);
	for (int c = 0, x = 0; c < UC_COUNT && x < COLS; c++) {
		if (!unitcols_shown((enum ucol)c, COLS))
			continue;
		int w = width_at(c, x, COLS);
		util_fmt(b, sizeof b, unitcols_get((enum ucol)c)->left ? "%-*s" : "%*s", w, unitcols_get((enum ucol)c)->header);
		if (c == (int)st->sort)
			attron(A_BOLD | A_UNDERLINE);
		mvaddnstr(y, x, b, COLS - x);
		if (c == (int)st->sort)
			attroff(A_BOLD | A_UNDERLINE);
		x += w + 1;
	}
	attroff((attr_t)th[TH_TABLE_HEAD]);
}

static void row(const struct cgroup_sample *c, int y)
{
	int utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	for (int k = 0, x = 0; k < UC_COUNT && x < COLS; k++) {
		if (!unitcols_shown((enum ucol)k, COLS))
			continue;
		const struct unitcol *col = unitcols_get((enum ucol)k);
		int w = width_at(k, x, COLS);
		char raw[CGROUP_PATH_MAX], v[CGROUP_PATH_MAX * 4 + 8], b[CGROUP_PATH_MAX * 4 + 8];
		col->cell(c, raw, sizeof raw);
		util_safe_text(v, sizeof v, raw); /* a cgroup's name is anyone's who can make one */
		int cut = col->left ? util_cut_mark(v, w, utf8) : (util_fit_figure(v, w), 0);
		if (cut || !col->width)
			util_strlcpy(b, v, sizeof b);
		else
			util_fmt(b, sizeof b, col->left ? "%-*.*s" : "%*.*s", w, w, v);
		mvaddnstr(y, x, b, (int)strlen(b));
		x += w + 1;
	}
}

void unitpane_draw(const struct unitpane_state *st, const struct sample *s, int y, int h, int focus,
		   const unsigned long *th)
{
	if (h < 3)
		return;
	title(st, s, y, th);
	header(st, y + 1, th);
	if (!st->norder) {
		mvaddnstr(y + 2, 0, s->have_procs ? "no cgroups read yet" : "process figures not read: no units", COLS);
		return;
	}
	struct listbox l = as_list(st, s);
	int first = listbox_first(&l, h - 2);
	for (int i = 0; i < h - 2 && first + i < (int)st->norder; i++) {
		int hl = focus && first + i == l.cur;
		if (hl) {
			attron((attr_t)th[TH_SELECTED]);
			mvhline(y + 2 + i, 0, ' ', COLS);
		}
		row(&s->cgroups[st->order[first + i]], y + 2 + i);
		if (hl)
			attroff((attr_t)th[TH_SELECTED]);
	}
}
