/* procpane: see src/view/procpane.h */
#include "procpane.h"

#include <curses.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "listbox.h"
#include "out/detail.h"
#include "theme.h"
#include "base/util.h"

/* Which columns show at width. COMMAND is never dropped, only shortened:
 * it keeps COMMAND_MIN columns (more on a wide terminal); the others come
 * in the order of their keep rank (proccols.c), each if it still fits;
 * they are shown in table order. The block-latency columns need the BPF
 * part. */
#define COMMAND_MIN(width) ((width) >= 120 ? 32 : 16)

static int cols_w(int c)
{
	return proccols_get((enum pcol)c)->width;
}

static int needs_blk(const struct sample *s, enum pcol c)
{
	return proccols_get(c)->blk && !s->blk_on;
}

static int hidden_at(const struct sample *s, enum pcol c, int width)
{
	if (c == PC_COMMAND)
		return 0;
	if (needs_blk(s, c))
		return 1;
	int used = COMMAND_MIN(width);
	for (int rank = 1; rank < PC_COUNT; rank++)
		for (int k = 0; k < PC_COUNT; k++) {
			if (proccols_get((enum pcol)k)->keep != rank || needs_blk(s, (enum pcol)k))
				continue;
			if (used + cols_w(k) + 1 > width)
				continue; /* a narrower one after it may still fit */
			used += cols_w(k) + 1;
			if (k == (int)c)
				return 0;
		}
	return 1;
}

static int hidden(const struct sample *s, enum pcol c)
{
	return hidden_at(s, c, COLS);
}

/* The columns shown at width, one bit each: worked out once a draw, not
 * once a cell. */
static unsigned shown_mask(const struct sample *s, int width)
{
	unsigned m = 0;
	for (int c = 0; c < PC_COUNT; c++)
		if (!hidden_at(s, (enum pcol)c, width))
			m |= 1u << c;
	return m;
}
_Static_assert(PC_COUNT <= 32, "a column mask fits an unsigned");

int procpane_column_at(const struct sample *s, int width, int x)
{
	int left = 0;
	for (int c = 0; c < PC_COUNT && left < width; c++) {
		if (hidden_at(s, (enum pcol)c, width))
			continue;
		int w = cols_w(c) ? cols_w(c) : width - left;
		if (x >= left && x < left + w)
			return c;
		left += w + 1;
	}
	return -1;
}

void procpane_sort_step(struct procpane_state *st, const struct sample *s, int dir)
{
	int c = (int)st->sort;
	do
		c = (c + dir + PC_COUNT) % PC_COUNT;
	while (hidden(s, (enum pcol)c) && c != (int)st->sort);
	st->sort = (enum pcol)c;
}

void procpane_init(struct procpane_state *st)
{
	memset(st, 0, sizeof *st);
	st->sort = PC_WRITE;
	st->selected_tid = -1;
}

void procpane_free(struct procpane_state *st)
{
	free(st->order);
	st->order = NULL;
	st->norder = st->cap = 0;
}

/* qsort has no context argument: sort (key, index) pairs instead. */
struct keyed {
	double key;
	const char *text;
	size_t idx;
	int tid;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	/* an empty text (no DISK) after the others, however r turns them */
	int c = !x->text ? (x->key < y->key) - (x->key > y->key)
		: !x->text[0] != !y->text[0] ? !x->text[0] - !y->text[0] : strcmp(x->text, y->text);
	return c ? c : x->tid - y->tid;
}

static void swap_keyed(struct keyed *a, struct keyed *b)
{
	struct keyed t = *a;
	*a = *b;
	*b = t;
}

static void reverse_keyed(struct keyed *k, size_t n)
{
	for (size_t i = 0; i < n / 2; i++)
		swap_keyed(&k[i], &k[n - 1 - i]);
}

/* k as cmp_keyed orders it. On a machine of 10,000 idle tasks nearly
 * every numeric key is 0, and those rows come in tid order already (as
 * the listing gives them): they are moved to the end in their order,
 * only the others are sorted, and the zeros are then rotated in between
 * the positive and the negative keys. No memory of its own: a scratch
 * copy was a fresh mapping, and page faults, every refresh. */
static void sort_keyed(struct keyed *k, size_t n)
{
	if (n == 0 || k[0].text) {
		qsort(k, n, sizeof *k, cmp_keyed);
		return;
	}
	/* From the end: each zero goes just before the last one placed, so
	 * the zeros keep their order; what it displaces is a non-zero key
	 * already passed, whose place does not matter (it is sorted). */
	size_t z = n;
	for (size_t i = n; i-- > 0;)
		if (k[i].key == 0)
			swap_keyed(&k[i], &k[--z]);
	qsort(k, z, sizeof *k, cmp_keyed);
	int in_order = 1;
	for (size_t i = z + 1; i < n && in_order; i++)
		in_order = k[i - 1].tid < k[i].tid;
	if (!in_order) /* (equal keys: cmp_keyed orders them by tid) */
		qsort(k + z, n - z, sizeof *k, cmp_keyed);
	size_t pos = 0; /* the first negative key */
	while (pos < z && k[pos].key > 0)
		pos++;
	/* [negatives | zeros] -> [zeros | negatives], each keeping its order */
	reverse_keyed(k + pos, z - pos);
	reverse_keyed(k + z, n - z);
	reverse_keyed(k + pos, n - pos);
}

static int active(const struct proc_row *r)
{
	return r->read_Bps > 0 || r->write_Bps > 0 || r->read_calls > 0 || r->write_calls > 0 ||
	       (r->wait == WAIT_OK && r->io_wait_pct > 0);
}

void procpane_arrange(struct procpane_state *st, const struct sample *s)
{
	st->norder = 0;
	if (!s->have_procs)
		return;
	if (st->cap < s->nprocs) {
		size_t *o = realloc(st->order, s->nprocs * sizeof *o);
		if (!o)
			return;
		st->order = o;
		st->cap = s->nprocs;
	}
	struct keyed *k = malloc((s->nprocs ? s->nprocs : 1) * sizeof *k);
	if (!k)
		return;
	size_t n = 0;
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct proc_row *r = &s->procs[i];
		if (st->only_active && !active(r))
			continue;
		if (st->filter[0] && !strstr(r->comm, st->filter) && !strstr(procs_row_cmdline(r), st->filter))
			continue;
		if (st->cgroup[0] && (!r->cgroup || strcmp(r->cgroup, st->cgroup) != 0))
			continue;
		k[n].idx = i;
		k[n].tid = r->tid;
		const struct proccol *col = proccols_get(st->sort);
		k[n].text = col->text ? col->text(r) : NULL;
		k[n].key = proccols_sort_key(st->sort, r, st->accumulated);
		n++;
	}
	sort_keyed(k, n);
	/* Numbers sort largest first and text A to Z; r turns either round.
	 * Rows without the figure (a negative key: n/a, unreadable; an empty
	 * text) come last either way: sorted by IO-WAIT, a column of n/a*
	 * above the real figures hid them. */
	size_t known = 0;
	while (known < n && (k[known].text ? k[known].text[0] != '\0' : k[known].key >= 0))
		known++;
	for (size_t i = 0; i < n; i++)
		st->order[i] = k[st->reverse && i < known ? known - 1 - i : i].idx;
	st->norder = n;
	free(k);
}

static int selected_pos(const struct procpane_state *st, const struct sample *s)
{
	for (size_t i = 0; i < st->norder; i++)
		if (s->procs[st->order[i]].tid == st->selected_tid)
			return (int)i;
	return st->norder ? 0 : -1;
}

const struct proc_row *procpane_selected(const struct procpane_state *st, const struct sample *s)
{
	int p = selected_pos(st, s);
	return p < 0 ? NULL : &s->procs[st->order[p]];
}

/* The pane's rows as a list: the selection is its cursor. */
static struct listbox as_list(const struct procpane_state *st, const struct sample *s)
{
	return (struct listbox){.n = (int)st->norder, .cur = selected_pos(st, s), .top = st->top, .cursor = 1};
}

void procpane_step(struct procpane_state *st, const struct sample *s, int by, int rows)
{
	if (!st->norder)
		return;
	struct listbox l = as_list(st, s);
	listbox_move(&l, by, rows);
	st->selected_tid = s->procs[st->order[l.cur]].tid;
	st->top = l.top;
}

const size_t *procpane_visible(const struct procpane_state *st, const struct sample *s, int rows, size_t *n)
{
	*n = 0;
	if (!st->norder || rows <= 0)
		return st->order;
	struct listbox l = as_list(st, s);
	size_t first = (size_t)listbox_first(&l, rows), left = st->norder - first;
	*n = left < (size_t)rows ? left : (size_t)rows;
	return st->order + first;
}

/* The title's text: in words, or compact (below 100 columns beside a
 * note: "Processes (all disks): 161 by WRITE/s, I/O only"), the count
 * and the sort kept whole rather than cut after the count. */
static void title_text(const struct procpane_state *st, const struct sample *s, const char *name, const char *unread,
		       int compact, char *line, size_t len)
{
	const char *col = proccols_header(st->sort, st->accumulated);
	if (compact)
		util_fmt(line, len, "%s %zu%s by %s%s%s%s%s%s%s%s", name, st->norder, s->pstat.threads ? " threads" : "",
			 col, st->reverse ? " (reversed)" : "", st->only_active ? ", I/O only" : "",
			 st->accumulated ? ", totals" : "", st->filter[0] ? ", \"" : "", st->filter,
			 st->filter[0] ? "\"" : "", unread);
	else
		util_fmt(line, len, "%s %zu %s, sorted by %s%s%s%s%s%s%s%s", name, st->norder,
			 s->pstat.threads ? "threads" : "processes", col, st->reverse ? " (reversed)" : "",
			 st->only_active ? ", with I/O only" : "", st->accumulated ? ", totals since start" : ", per second",
			 st->filter[0] ? ", matching \"" : "", st->filter, st->filter[0] ? "\"" : "", unread);
}

/* The title, and after it what the pane cannot show and why (why rows are
 * empty, then the note), which keeps its place at any width: the title is
 * made compact, then cut, down to its name (23 columns), then the rest
 * from its end. */
static void title(const struct procpane_state *st, const struct sample *s, int y, const char *note, const unsigned long *th)
{
	char line[512], unread[200] = "", tail[400] = "";
	/* Other users' /proc/PID/io needs ptrace access: say so, or their
	 * empty rows would look idle. */
	char why[160];
	detail_unreadable(&s->pstat, why, sizeof why);
	if (!why[0] && !s->pstat.exits && !s->pstat.threads)
		util_strlcpy(unread, "; short-lived processes are counted in their parents (no exit records: needs root)",
			     sizeof unread);
	else if (!why[0] && s->pstat.exits_lost && !s->pstat.threads)
		util_fmt(unread, sizeof unread, "; exit records lost %lu times: some short-lived processes counted in their parents",
			 s->pstat.exits_lost);
	/* Filtered to a unit (Enter in the units pane), the name says which,
	 * and keeps its place as the usual one does. */
	char name[160] = "Processes (all disks):", safe_unit[100];
	util_safe_text(safe_unit, sizeof safe_unit, st->unit); /* anyone who can make a cgroup names it */
	if (st->cgroup[0])
		util_fmt(name, sizeof name, "Processes of %s:", safe_unit);
	char safe[240];
	util_safe_text(safe, sizeof safe, note ? note : ""); /* a replay's note is the recording's text */
	util_fmt(tail, sizeof tail, "%s%s%s", why, why[0] && safe[0] ? "  " : "", safe);
	int nl = (int)strlen(tail);
	title_text(st, s, name, unread, 0, line, sizeof line);
	if (COLS < 100 && (int)strlen(line) + 2 + nl > COLS) /* in words wherever the note leaves room for them */
		title_text(st, s, name, unread, 1, line, sizeof line);
	int utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	int at = (int)strlen(line) + 2;
	int keep = (int)strlen(name) + 3;
	if (nl && at + nl > COLS) /* the pane's name stays: "Processes (all disks):" */
		at = COLS - nl >= keep ? COLS - nl : keep;
	attron((attr_t)th[TH_TITLE]);
	util_cut_mark(line, nl ? at - 2 : COLS, utf8);
	mvaddstr(y, 0, line);
	attroff((attr_t)th[TH_TITLE]);
	if (!nl || at >= COLS)
		return;
	util_cut_mark(tail, COLS - at, utf8);
	attron((attr_t)th[TH_WARNING]);
	mvaddstr(y, at, tail);
	attroff((attr_t)th[TH_WARNING]);
}

void procpane_draw(const struct procpane_state *st, const struct sample *s, int y, int h, int focus, const char *note,
		   const unsigned long *th)
{
	if (h < 3)
		return;
	title(st, s, y, note, th);
	char b[300];
	int x = 0;
	unsigned shown = shown_mask(s, COLS);
	attron((attr_t)th[TH_TABLE_HEAD]);
	mvhline(y + 1, 0, ' ', COLS);
	for (int c = 0; c < PC_COUNT && x < COLS; c++) {
		if (!(shown & 1u << c))
			continue;
		int w = cols_w(c) ? cols_w(c) : COLS - x;
		util_fmt(b, sizeof b, proccols_get((enum pcol)c)->left ? "%-*s" : "%*s", w,
			 proccols_header((enum pcol)c, st->accumulated));
		if (c == (int)st->sort)
			attron(A_BOLD | A_UNDERLINE);
		mvaddnstr(y + 1, x, b, COLS - x);
		if (c == (int)st->sort)
			attroff(A_BOLD | A_UNDERLINE);
		x += w + 1;
	}
	attroff((attr_t)th[TH_TABLE_HEAD]);
	if (!s->have_procs) {
		mvaddnstr(y + 2, 0, "process figures not read", COLS);
		return;
	}
	int sel = selected_pos(st, s);
	size_t n;
	const size_t *shown_rows = procpane_visible(st, s, h - 2, &n);
	int first = n ? (int)(shown_rows - st->order) : 0;
	struct proccols_mode mode = {.totals = st->accumulated, .cmdline = st->cmdline};
	for (int i = 0; i < (int)n; i++) {
		const struct proc_row *r = &s->procs[shown_rows[i]];
		int hl = focus && first + i == sel;
		/* A process that ended: dimmed, for the refreshes it stays */
		attr_t dim = r->exited && !hl ? A_DIM : 0;
		if (hl)
			attron((attr_t)th[TH_SELECTED]);
		attron(dim);
		x = 0;
		for (int c = 0; c < PC_COUNT && x < COLS; c++) {
			if (!(shown & 1u << c))
				continue;
			char v[300];
			int w = cols_w(c) ? cols_w(c) : COLS - x;
			char raw[300];
			proccols_cell((enum pcol)c, r, &mode, raw, sizeof raw);
			util_safe_text(v, sizeof v, raw); /* a process may name itself with ESC sequences */
			int cut = 0;
			if (c != PC_COMMAND && c != PC_USER && c != PC_DISK)
				util_fit_figure(v, w); /* never a figure without its unit */
			else if (c != PC_USER) /* shortened, said so */
				cut = util_cut_mark(v, c == PC_COMMAND ? COLS - x : w,
						    strcmp(nl_langinfo(CODESET), "UTF-8") == 0);
			if (c == PC_COMMAND || cut) /* as cut, mark and all: its width exactly */
				util_strlcpy(b, v, sizeof b);
			else
				util_fmt(b, sizeof b, proccols_get((enum pcol)c)->left ? "%-*.*s" : "%*.*s", w, w, v);
			mvaddnstr(y + 2 + i, x, b, (int)strlen(b));
			x += w + 1;
		}
		attroff(dim);
		if (hl)
			attroff((attr_t)th[TH_SELECTED]);
	}
}

void procpane_select_row(struct procpane_state *st, const struct sample *s, int rows, int r)
{
	struct listbox l = as_list(st, s);
	int i = listbox_click(&l, rows, r);
	if (i >= 0) {
		st->selected_tid = s->procs[st->order[i]].tid;
		st->top = listbox_first(&l, rows);
	}
}
