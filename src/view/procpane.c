/* procpane: see include/procpane.h */
#include "procpane.h"

#include <curses.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "detail.h"
#include "theme.h"
#include "util.h"

/* header: as shown (per second; "/s" goes in totals mode); key: the
 * name --sort, the configuration file and messages use. */
static const struct {
	const char *name;
	const char *key;
	int width;
	int left;
} cols[PC_COUNT] = {
	[PC_PID] = {"PID", "pid", 7, 0},
	[PC_USER] = {"USER", "user", 9, 1},
	[PC_PRIO] = {"PRIO", "prio", 5, 1},
	[PC_READ] = {"READ/s", "read/s", 8, 0},
	[PC_WRITE] = {"WRITE/s", "write/s", 8, 0},
	/* read() and write() system calls, not disk operations */
	[PC_RCALLS] = {"R-CALLS/s", "r-calls", 9, 0},
	[PC_WCALLS] = {"W-CALLS/s", "w-calls", 9, 0},
	[PC_WAIT] = {"IO-WAIT", "io-wait", 7, 0},
	[PC_AVG] = {"AVG-WAIT", "avg-wait", 8, 0},
	[PC_RLAT] = {"READ p50/p99", "read-lat", 15, 0},
	[PC_WLAT] = {"WRITE p50/p99", "write-lat", 15, 0},
	[PC_COMMAND] = {"COMMAND", "command", 0, 1},
};

static int cols_w(int c);

/* Which columns show at width. COMMAND is never dropped, only shortened:
 * it keeps COMMAND_MIN columns (more on a wide terminal); the others come
 * in the order that answers "who reads and writes, how much, who waits"
 * (fit_order), each if it still fits; they are shown in table order. The
 * block-latency columns need the BPF part. */
#define COMMAND_MIN(width) ((width) >= 120 ? 37 : 16)

static const enum pcol fit_order[] = {PC_PID,  PC_WRITE, PC_READ, PC_WAIT,   PC_RLAT,  PC_WLAT,
				       PC_USER, PC_AVG,   PC_PRIO, PC_RCALLS, PC_WCALLS};

static int hidden_at(const struct sample *s, enum pcol c, int width)
{
	if (c == PC_COMMAND)
		return 0;
	if ((c == PC_RLAT || c == PC_WLAT) && !s->blk_on)
		return 1;
	int used = COMMAND_MIN(width);
	for (size_t i = 0; i < sizeof fit_order / sizeof fit_order[0]; i++) {
		enum pcol k = fit_order[i];
		if ((k == PC_RLAT || k == PC_WLAT) && !s->blk_on)
			continue;
		if (used + cols[k].width + 1 > width)
			continue; /* a narrower one after it may still fit */
		used += cols[k].width + 1;
		if (k == c)
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

int procpane_column_from_name(const char *name)
{
	for (int c = 0; c < PC_COUNT; c++)
		if (strcasecmp(cols[c].key, name) == 0 || strcasecmp(cols[c].name, name) == 0)
			return c;
	/* the names before 0.x, still in saved configurations */
	if (strcasecmp(name, "r-iops") == 0)
		return PC_RCALLS;
	if (strcasecmp(name, "w-iops") == 0)
		return PC_WCALLS;
	return -1;
}

const char *procpane_column_names(void)
{
	return "pid user prio read/s write/s r-calls w-calls io-wait avg-wait read-lat write-lat command";
}

const char *procpane_column_header(enum pcol c, int totals)
{
	static const char *const total_names[PC_COUNT] = {
		[PC_READ] = "READ", [PC_WRITE] = "WRITE", [PC_RCALLS] = "R-CALLS", [PC_WCALLS] = "W-CALLS"};
	if (c >= PC_COUNT)
		return "?";
	return totals && total_names[c] ? total_names[c] : cols[c].name;
}


static int cols_w(int c)
{
	return cols[c].width;
}

const char *procpane_column_name(enum pcol c)
{
	return c < PC_COUNT ? cols[c].key : "?";
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

/* The figure a column sorts by (rates, or totals in accumulated mode). */
static double key_of(const struct procpane_state *st, const struct proc_row *r, enum pcol c)
{
	int acc = st->accumulated;
	switch (c) {
	case PC_PID: return r->tid;
	case PC_PRIO: return r->ioprio;
	case PC_READ: return r->io_readable ? (acc ? (double)r->total.rbytes : r->read_Bps) : -1;
	case PC_WRITE: return r->io_readable ? (acc ? (double)r->total.wbytes : r->write_Bps) : -1;
	case PC_RCALLS: return r->io_readable ? (acc ? (double)r->total.syscr : r->read_calls) : -1;
	case PC_WCALLS: return r->io_readable ? (acc ? (double)r->total.syscw : r->write_calls) : -1;
	case PC_WAIT: return r->wait == WAIT_OK ? r->io_wait_pct : -1;
	case PC_AVG: return r->wait == WAIT_OK ? r->avg_wait_us : -1;
	case PC_RLAT: return r->blk_n[BLK_READ] ? (double)r->blk_p50_ns[BLK_READ] : -1;
	case PC_WLAT: return r->blk_n[BLK_WRITE] ? (double)r->blk_p50_ns[BLK_WRITE] : -1;
	default: return 0;
	}
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
	int c = x->text ? strcmp(x->text, y->text) : (x->key < y->key) - (x->key > y->key);
	return c ? c : x->tid - y->tid;
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
		k[n].idx = i;
		k[n].tid = r->tid;
		k[n].text = st->sort == PC_USER ? r->user : st->sort == PC_COMMAND ? r->comm : NULL;
		k[n].key = key_of(st, r, st->sort);
		n++;
	}
	qsort(k, n, sizeof *k, cmp_keyed);
	/* Numbers sort largest first and text A to Z; r turns either round. */
	for (size_t i = 0; i < n; i++)
		st->order[i] = k[st->reverse ? n - 1 - i : i].idx;
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

void procpane_step(struct procpane_state *st, const struct sample *s, int dir)
{
	if (!st->norder)
		return;
	int p = selected_pos(st, s) + dir;
	if (p < 0)
		p = 0;
	if (p >= (int)st->norder)
		p = (int)st->norder - 1;
	st->selected_tid = s->procs[st->order[p]].tid;
}

static void rate(double v, int acc, char *b, size_t n)
{
	if (v <= 0) {
		util_strlcpy(b, "0", n);
		return;
	}
	char sz[16];
	util_format_size((uint64_t)v, sz, sizeof sz);
	util_fmt(b, n, "%s", sz);
	(void)acc;
}

static void cell(const struct procpane_state *st, const struct sample *s, const struct proc_row *r, enum pcol c,
		 char *b, size_t n)
{
	int acc = st->accumulated;
	b[0] = '\0';
	switch (c) {
	case PC_PID: snprintf(b, n, "%d", r->tid); break;
	case PC_USER: util_strlcpy(b, r->user, n); break;
	case PC_PRIO: procs_format_ioprio(r->ioprio, r->nice, b, n); break;
	case PC_READ:
	case PC_WRITE:
		if (!r->io_readable)
			util_strlcpy(b, "-", n);
		else
			rate(key_of(st, r, c), acc, b, n);
		break;
	case PC_RCALLS:
	case PC_WCALLS:
		if (!r->io_readable)
			util_strlcpy(b, "-", n);
		else
			snprintf(b, n, acc ? "%.0f" : "%.1f", key_of(st, r, c));
		break;
	case PC_WAIT:
	case PC_AVG:
		switch (r->wait) {
		case WAIT_OK:
			if (c == PC_WAIT)
				snprintf(b, n, "%.1f%%", r->io_wait_pct);
			else
				util_format_latency((uint64_t)(r->avg_wait_us * 1e3), b, n);
			break;
		case WAIT_NA: util_strlcpy(b, "n/a", n); break;
		case WAIT_BEFORE: util_strlcpy(b, "n/a*", n); break;
		case WAIT_NONE: util_strlcpy(b, c == PC_WAIT ? "0.0%" : "", n); break;
		case WAIT_OFF: util_strlcpy(b, "-", n); break;
		}
		break;
	case PC_RLAT:
	case PC_WLAT: {
		enum blk_op op = c == PC_RLAT ? BLK_READ : BLK_WRITE;
		blklat_format_pair(r->blk_n[op], r->blk_p50_ns[op], r->blk_p99_ns[op], b, n);
		break;
	}
	case PC_COMMAND: {
		char times[24] = "";
		if (r->exited && r->count > 1)
			util_fmt(times, sizeof times, " x%d", r->count);
		util_fmt(b, n, "%s%s%s%s", r->exited ? "[exited] " : "",
			 r->kind == PROC_WRITEBACK ? "[writeback] " : r->kind == PROC_LOOP ? "[loop I/O] " :
			 r->kind == PROC_SELF ? "[this tool] " : "",
			 st->cmdline ? procs_row_cmdline(r) : r->comm, times);
		break;
	}
	default: break;
	}
	(void)s;
}

static void title(const struct procpane_state *st, const struct sample *s, int y, attr_t a)
{
	char line[512], unread[200] = "";
	/* Other users' /proc/PID/io needs ptrace access: say so, or their
	 * empty rows would look idle. */
	char why[160];
	detail_unreadable(&s->pstat, why, sizeof why);
	if (why[0])
		util_fmt(unread, sizeof unread, "; %s", why);
	else if (!s->pstat.exits && !s->pstat.threads)
		util_strlcpy(unread, "; short-lived processes are counted in their parents (no exit records: needs root)",
			     sizeof unread);
	else if (s->pstat.exits_lost && !s->pstat.threads)
		util_fmt(unread, sizeof unread, "; exit records lost %lu times: some short-lived processes counted in their parents",
			 s->pstat.exits_lost);
	util_fmt(line, sizeof line, "Processes (all disks): %zu %s, sorted by %s%s%s%s%s%s%s%s",
		 st->norder, s->pstat.threads ? "threads" : "processes", procpane_column_header(st->sort, st->accumulated),
		 st->reverse ? " (reversed)" : "",
		 st->only_active ? ", with I/O only" : "", st->accumulated ? ", totals since start" : ", per second",
		 st->filter[0] ? ", matching \"" : "", st->filter, st->filter[0] ? "\"" : "", unread);
	attron(a);
	util_cut_mark(line, COLS, strcmp(nl_langinfo(CODESET), "UTF-8") == 0);
	mvaddstr(y, 0, line);
	attroff(a);
}

void procpane_draw(const struct procpane_state *st, const struct sample *s, int y, int h, int focus,
		   const unsigned long *th)
{
	if (h < 3)
		return;
	title(st, s, y, (attr_t)th[TH_TITLE]);
	char b[300];
	int x = 0;
	unsigned shown = shown_mask(s, COLS);
	attron((attr_t)th[TH_TABLE_HEAD]);
	mvhline(y + 1, 0, ' ', COLS);
	for (int c = 0; c < PC_COUNT && x < COLS; c++) {
		if (!(shown & 1u << c))
			continue;
		int w = cols[c].width ? cols[c].width : COLS - x;
		util_fmt(b, sizeof b, cols[c].left ? "%-*s" : "%*s", w, procpane_column_header((enum pcol)c, st->accumulated));
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
	int rows = h - 2, sel = selected_pos(st, s);
	int first = sel >= rows ? sel - rows + 1 : 0;
	for (int i = 0; i < rows && first + i < (int)st->norder; i++) {
		const struct proc_row *r = &s->procs[st->order[first + i]];
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
			int w = cols[c].width ? cols[c].width : COLS - x;
			char raw[300];
			cell(st, s, r, (enum pcol)c, raw, sizeof raw);
			util_safe_text(v, sizeof v, raw); /* a process may name itself with ESC sequences */
			if (c != PC_COMMAND && c != PC_USER)
				util_fit_figure(v, w); /* never a figure without its unit */
			else if (c == PC_COMMAND)
				util_cut_mark(v, COLS - x, strcmp(nl_langinfo(CODESET), "UTF-8") == 0); /* shortened, said so */
			if (c == PC_COMMAND) /* the last column: as cut, mark and all */
				util_strlcpy(b, v, sizeof b);
			else
				util_fmt(b, sizeof b, cols[c].left ? "%-*.*s" : "%*.*s", w, w, v);
			mvaddnstr(y + 2 + i, x, b, (int)strlen(b));
			x += w + 1;
		}
		attroff(dim);
		if (hl)
			attroff((attr_t)th[TH_SELECTED]);
	}
}

void procpane_select_row(struct procpane_state *st, const struct sample *s, int h, int r)
{
	int rows = h - 2, sel = selected_pos(st, s);
	int first = sel >= rows ? sel - rows + 1 : 0;
	if (r >= 0 && r < rows && first + r < (int)st->norder)
		st->selected_tid = s->procs[st->order[first + r]].tid;
}
