/* Unit tests of view helpers that need no terminal: the large letters of
 * the presentation mode and the process pane's hit-testing for mouse
 * clicks (tmux has no way to inject a click into the program). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/batch.h"
#include "view/bigtext.h"
#include "view/chart.h"
#include "out/detail.h"
#include "model/sample.h"
#include "model/proccols.h"
#include "view/procpane.h"
#include "view/unitcols.h"
#include "base/util.h"

static void big_digits(void **state)
{
	(void)state;
	char rows[BIGTEXT_ROWS][512];
	/* "41.2ms": 4,1,.,2 are 3,3,1,3 wide; m 5; s 3; one space between. */
	int w = bigtext_render("41.2ms", 0, rows, sizeof rows[0]);
	assert_int_equal(w, 3 + 3 + 1 + 3 + 5 + 3 + 5);
	assert_int_equal(w, bigtext_width("41.2ms"));
	assert_string_equal(rows[0], "# #  #    ###          ");
	assert_int_equal((int)strlen(rows[4]), w);
	/* UTF-8: each cell is a full block of three bytes. */
	bigtext_render("1", 1, rows, sizeof rows[0]);
	assert_string_equal(rows[4], "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88");
	/* Every scheduler name and unit renders without blanks for letters. */
	const char *words[] = {"none", "mq-deadline", "kyber", "bfq", "us", "ms", "s", "p50", "p99"};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		assert_true(bigtext_render(words[i], 0, rows, sizeof rows[0]) > 0);
		for (const char *c = words[i]; *c; c++)
			if (*c != ' ' && *c != '-') {
				char one[2] = {*c, 0};
				char r1[BIGTEXT_ROWS][512];
				bigtext_render(one, 0, r1, sizeof r1[0]);
				int ink = 0;
				for (int r = 0; r < BIGTEXT_ROWS; r++)
					ink += strchr(r1[r], '#') != NULL;
				if (!ink)
					fail_msg("'%c' of %s has no glyph", *c, words[i]);
			}
	}
	/* Too small a buffer: refused, not overrun. */
	char small[BIGTEXT_ROWS][512];
	assert_int_equal(bigtext_render("88888", 1, small, 20), -1);
}

/* The pane's order: numbers largest first (unknown, -1, last), ties by
 * tid, whatever order the rows came in and however many keys are 0 (the
 * idle tasks are set apart from the sort); r reverses all of it. */
/* Largest first (r: smallest first) with ties in tid order (r: turned),
 * and rows without the figure (a negative key) after all the others in
 * either direction, in tid order. */
static void check_order(const struct procpane_state *st, const struct sample *s, enum pcol c)
{
	assert_int_equal(st->norder, s->nprocs);
	size_t known = 0;
	while (known < st->norder && proccols_sort_key(c, &s->procs[st->order[known]], 0) >= 0)
		known++;
	for (size_t i = known; i < st->norder; i++)
		if (proccols_sort_key(c, &s->procs[st->order[i]], 0) >= 0)
			fail_msg("row %zu has the figure after a row without it (row %zu)", i, known);
	for (size_t i = 1; i < st->norder; i++) {
		int turn = st->reverse && i < known;
		const struct proc_row *a = &s->procs[st->order[turn ? i : i - 1]];
		const struct proc_row *b = &s->procs[st->order[turn ? i - 1 : i]];
		double ka = proccols_sort_key(c, a, 0), kb = proccols_sort_key(c, b, 0);
		if (i == known)
			continue;
		if (ka < kb || (ka == kb && a->tid >= b->tid))
			fail_msg("rows %zu and %zu out of order: %g/%d before %g/%d", i - 1, i, ka, a->tid, kb, b->tid);
	}
}

static void pane_order(void **state)
{
	(void)state;
	static struct sample s;
	memset(&s, 0, sizeof s);
	s.have_procs = 1;
	s.nprocs = 500;
	s.procs = calloc(s.nprocs, sizeof *s.procs);
	assert_non_null(s.procs);
	unsigned seed = 7;
	for (size_t i = 0; i < s.nprocs; i++) {
		struct proc_row *r = &s.procs[i];
		seed = seed * 1103515245u + 12345u;
		r->tid = r->pid = (int)(i * 3 + 100);
		if (i % 97 == 5) /* an exited row after the live ones, or a listing race */
			r->tid = r->pid = (int)(seed % 90);
		r->write_Bps = seed % 5 == 0 ? (double)(seed % 7) * 4096 : 0;
		r->to_disk_Bps = seed % 3 == 0 ? -1 : seed % 3 == 1 ? 0 : (double)(seed % 11);
		snprintf(r->comm, sizeof r->comm, "c%u", seed % 13);
		/* IO-WAIT: measured, none (a known 0), or unknown (n/a*) */
		r->wait = seed % 4 == 0 ? WAIT_OK : seed % 4 == 1 ? WAIT_NONE : WAIT_BEFORE;
		r->io_wait_pct = r->wait == WAIT_OK ? (double)(seed % 9) : 0;
	}
	struct procpane_state st;
	procpane_init(&st);
	enum pcol cols[] = {PC_WRITE, PC_TODISK, PC_PID, PC_WAIT};
	for (int rev = 0; rev < 2; rev++)
		for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
			st.sort = cols[c];
			st.reverse = rev;
			procpane_arrange(&st, &s);
			check_order(&st, &s, cols[c]);
		}
	/* rows in tid order: the same */
	for (size_t i = 0; i < s.nprocs; i++)
		s.procs[i].tid = s.procs[i].pid = (int)i + 1;
	st.sort = PC_WRITE;
	st.reverse = 0;
	procpane_arrange(&st, &s);
	check_order(&st, &s, PC_WRITE);
	procpane_free(&st);
	free(s.procs);
}

static void pane_hit_testing(void **state)
{
	(void)state;
	static struct sample s;
	memset(&s, 0, sizeof s);
	/* Without block latency: PID 0-6, USER 8-16, PRIO 18-22, READ/s 24-31. */
	assert_int_equal(procpane_column_at(&s, 120, 0), PC_PID);
	assert_int_equal(procpane_column_at(&s, 120, 6), PC_PID);
	assert_int_equal(procpane_column_at(&s, 120, 7), -1); /* the gap */
	assert_int_equal(procpane_column_at(&s, 120, 8), PC_USER);
	assert_int_equal(procpane_column_at(&s, 120, 25), PC_READ);
	assert_int_equal(procpane_column_at(&s, 120, 119), PC_COMMAND);
	/* With it, below 171 columns: W-CALLS/s and R-CALLS/s give way to the
	 * latency columns, THROTTLED and DISK (at 120, so do WRITE p50/p99 and
	 * PRIO); at 161 R-CALLS/s is there, and at 80 DISK is, in AVG-WAIT's
	 * place. */
	s.blk_on = 1;
	int seen_rlat = 0, seen_riops = 0;
	for (int x = 0; x < 120; x++) {
		seen_rlat |= procpane_column_at(&s, 120, x) == PC_RLAT;
		seen_riops |= procpane_column_at(&s, 120, x) == PC_RCALLS;
	}
	assert_true(seen_rlat);
	assert_false(seen_riops);
	/* who waits, the buffered writers too: THROTTLED beside IO-WAIT at
	 * 120 (PRIO gives way); at 80 USER is kept before it */
	int seen_thr = 0, seen_thr80 = 0, seen_user80 = 0;
	for (int x = 0; x < 120; x++)
		seen_thr |= procpane_column_at(&s, 120, x) == PC_THROTTLED;
	for (int x = 0; x < 80; x++) {
		seen_thr80 |= procpane_column_at(&s, 80, x) == PC_THROTTLED;
		seen_user80 |= procpane_column_at(&s, 80, x) == PC_USER;
	}
	assert_true(seen_thr);
	assert_false(seen_thr80);
	assert_true(seen_user80);
	seen_riops = 0;
	for (int x = 0; x < 161; x++)
		seen_riops |= procpane_column_at(&s, 161, x) == PC_RCALLS;
	assert_true(seen_riops);
	int seen_disk = 0, seen_avg = 0;
	for (int x = 0; x < 80; x++) {
		seen_disk |= procpane_column_at(&s, 80, x) == PC_DISK;
		seen_avg |= procpane_column_at(&s, 80, x) == PC_AVG;
	}
	assert_true(seen_disk);
	assert_false(seen_avg);
	s.blk_on = 0; /* DISK needs the BPF part */
	seen_disk = 0;
	for (int x = 0; x < 120; x++)
		seen_disk |= procpane_column_at(&s, 120, x) == PC_DISK;
	assert_false(seen_disk);
	s.blk_on = 1;
	assert_int_equal(proccols_from_name("write/s"), PC_WRITE);
	assert_int_equal(proccols_from_name("read-lat"), PC_RLAT);
	assert_int_equal(proccols_from_name("READ p50/p99"), PC_RLAT);
	/* the old names, still in saved configurations */
	assert_int_equal(proccols_from_name("r-iops"), PC_RCALLS);
	assert_int_equal(proccols_from_name("W-IOPS"), PC_WCALLS);
	assert_int_equal(proccols_from_name("r-calls"), PC_RCALLS);
	assert_string_equal(proccols_header(PC_READ, 0), "READ/s");
	assert_string_equal(proccols_header(PC_READ, 1), "READ");
	assert_string_equal(proccols_header(PC_WCALLS, 1), "W-CALLS");
	assert_int_equal(proccols_from_name("nope"), -1);
	/* TO-DISK: a rate, or in totals mode the bytes since first seen;
	 * "-" without the BPF part (or on a thread's row) */
	struct proc_row r = {.to_disk_Bps = 2048, .to_disk_total = 512u << 20};
	struct proccols_mode rate = {0}, totals = {.totals = 1};
	char cell[32];
	assert_string_equal(proccols_header(PC_TODISK, 1), "TO-DISK");
	proccols_cell(PC_TODISK, &r, &rate, cell, sizeof cell);
	assert_string_equal(cell, "2K");
	proccols_cell(PC_TODISK, &r, &totals, cell, sizeof cell);
	assert_string_equal(cell, "512M");
	r.to_disk_Bps = -1;
	proccols_cell(PC_TODISK, &r, &totals, cell, sizeof cell);
	assert_string_equal(cell, "-");
}

static char *slurp(const char *path)
{
	static char buf[1 << 18];
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* Each process column is whole in the table: a key and a header that
 * name it and nothing else, a cell, a line of help, a sort; the JSON
 * fields of each (the write latency's come with the read latency's). */
static void proccols_whole(void **state)
{
	(void)state;
	for (int c = 0; c < PC_COUNT; c++) {
		const struct proccol *col = proccols_get((enum pcol)c);
		assert_non_null(col->key);
		assert_non_null(col->header);
		assert_non_null(col->cell);
		assert_true(col->help && col->help[0]);
		assert_true(col->sort_key || col->text);
		assert_true(col->json || c == PC_WLAT);
		assert_true(col->csv && col->csv[0]);
		for (int d = 0; d < c; d++)
			if (!strcmp(proccols_get((enum pcol)d)->csv, col->csv))
				fail_msg("%s and %s have the same CSV name", col->key, proccols_get((enum pcol)d)->key);
		assert_int_equal(proccols_from_name(col->key), c);
		assert_int_equal(proccols_from_name(col->header), c);
		for (int d = 0; d < c; d++)
			if (proccols_get((enum pcol)d)->keep == col->keep)
				fail_msg("%s and %s have the same keep rank", col->key, proccols_get((enum pcol)d)->key);
	}
	assert_int_equal(proccols_get(PC_COMMAND)->keep, 0); /* never dropped */
	char keys[256];
	assert_string_equal(proccols_keys(" ", keys, sizeof keys),
			    "pid user prio read/s write/s to-disk r-calls w-calls io-wait avg-wait throttled read-lat write-lat disk "
			    "command");
}

/* The man page's --sort paragraph and both completions offer exactly the
 * table's keys; the man page describes every header. */
static void proccols_documented(void **state)
{
	(void)state;
	char keys[256], want[300];
	proccols_keys(" ", keys, sizeof keys);
	snprintf(want, sizeof want, "compgen -W \"%s\"", keys);
	if (!strstr(slurp(SRCDIR "/completions/iosched-top.bash"), want))
		fail_msg("the bash completion's --sort words are not: %s", keys);
	snprintf(want, sizeof want, ":column:(%s)'", keys);
	if (!strstr(slurp(SRCDIR "/completions/_iosched-top"), want))
		fail_msg("the zsh completion's --sort words are not: %s", keys);
	const char *man = slurp(SRCDIR "/iosched-top.1");
	const char *sort = strstr(man, ".BR \\-\\-sort ");
	assert_non_null(sort);
	const char *end = strstr(sort, "\n.TP");
	assert_non_null(end);
	for (int c = 0; c < PC_COUNT; c++) {
		const struct proccol *col = proccols_get((enum pcol)c);
		const char *k = strstr(sort, col->key);
		if (!k || k > end)
			fail_msg("the man page's --sort paragraph lacks %s", col->key);
		char head[64];
		snprintf(head, sizeof head, "%s", col->header);
		if (!strstr(man, head))
			fail_msg("the man page does not describe the column %s", col->header);
	}
}

/* Every column of the units pane is in the man page's paragraph on U (the
 * help screen lists them from the same table). */
static void unitcols_documented(void **state)
{
	(void)state;
	const char *man = slurp(SRCDIR "/iosched-top.1");
	const char *u = strstr(man, "\n.B U\nThe units pane");
	assert_non_null(u);
	const char *end = strstr(u + 1, "\n.TP");
	assert_non_null(end);
	for (int c = 0; c < UC_COUNT; c++) {
		char head[64];
		util_strlcpy(head, unitcols_get((enum ucol)c)->header, sizeof head);
		/* the man page writes a hyphen as \- */
		char esc[80], *o = esc;
		for (const char *h = head; *h && o < esc + sizeof esc - 3; h++) {
			if (*h == '-')
				*o++ = '\\';
			*o++ = *h;
		}
		*o = '\0';
		const char *k = strstr(u, esc);
		if (!k || k > end)
			fail_msg("the man page's paragraph on U lacks the column %s", head);
	}
}

/* --csv-procs: a header of the table's CSV names (the man page lists
 * them), then the processes that did I/O, busiest first, a figure not read
 * as an empty field, an ended one labelled, a name with a comma quoted. */
static void csv_procs(void **state)
{
	(void)state;
	static struct sample s;
	static struct proc_row rows[4];
	memset(&s, 0, sizeof s);
	memset(rows, 0, sizeof rows);
	s.ts = 100.5;
	s.have_procs = 1;
	s.procs = rows;
	s.nprocs = 4;
	const char *names[] = {"idle", "dd", "a,b", "cc1"};
	const double wr[] = {0, 5e6, 0, 1e6};
	for (int i = 0; i < 4; i++) {
		rows[i].pid = rows[i].tid = 10 + i;
		strcpy(rows[i].comm, names[i]);
		rows[i].user = "root";
		rows[i].write_Bps = wr[i];
		rows[i].io_readable = i != 2;
		rows[i].to_disk_Bps = i == 1 ? 4e6 : -1; /* -1: not known (no BPF part) */
		rows[i].throttled_pct = i == 1 ? 12.5 : -1;
	}
	rows[1].disk = "loop1";
	rows[2].read_Bps = 1; /* counts as I/O; its figures were not readable */
	rows[3].exited = 1;
	rows[3].count = 2;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	batch_write_csv_procs(f, &s, 10, 1);
	fclose(f);
	char head[512] = "ts";
	for (int c = 0; c < PC_COUNT; c++)
		snprintf(head + strlen(head), sizeof head - strlen(head), ",%s", proccols_get((enum pcol)c)->csv);
	strcat(head, "\n");
	assert_memory_equal(out, head, strlen(head));
	const char *r1 = out + strlen(head);
	/* dd 5e6, then cc1, then "a,b" (its figures not readable: empty fields) */
	assert_non_null(strstr(r1, "100.500,11,root,be/4,0.000,5000000.000,4000000.000,0.000,0.000,,,12.500,,,loop1,dd\n"));
	assert_non_null(strstr(r1, ",,,,,,,,,,,\"a,b\"\n"));
	assert_non_null(strstr(r1, ",[exited] cc1 x2\n"));
	assert_true(strstr(r1, "dd\n") < strstr(r1, "cc1") && strstr(r1, "cc1") < strstr(r1, "a,b"));
	assert_null(strstr(r1, "idle"));
	int lines = 0;
	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 4);
	const char *man = slurp(SRCDIR "/iosched-top.1");
	const char *para = strstr(man, ".B \\-\\-csv\\-procs");
	assert_non_null(para);
	for (int c = 0; c < PC_COUNT; c++)
		if (!strstr(para, proccols_get((enum pcol)c)->csv))
			fail_msg("the man page's --csv-procs paragraph lacks %s", proccols_get((enum pcol)c)->csv);
	free(out);
}

/* A figure cut by a column keeps its unit: fewer digits, else '#'. */
static void figures_fit(void **state)
{
	(void)state;
	struct {
		const char *in;
		int w;
		const char *out;
	} c[] = {
		{">930.6ms", 7, ">931ms"}, {"930.6ms", 8, "930.6ms"}, {"1023.9M", 6, "1024M"}, {"12.6%", 4, "13%"},
		{"123456789ms", 6, "######"}, {"[mq-deadline] kyber", 8, "[mq-dead"}, {"Samsung SSD 870", 7, "Samsung"},
		{"4.2G/s", 4, "4G/s"},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char b[64];
		strcpy(b, c[i].in);
		util_fit_figure(b, c[i].w);
		assert_string_equal(b, c[i].out);
	}
}

/* Switch labels never meet: far apart they share the top row; close
 * together they stack, then shorten, then are left out, newest first; at
 * the plot's right end a label goes left of its marker. */
static void switch_labels(void **state)
{
	(void)state;
	struct chart_label at[8];
	int cx[] = {10, 40, 70}, len[] = {12, 12, 12}, sl[] = {3, 3, 3};
	chart_place_labels(cx, len, sl, 3, 3, 0, 100, at);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(at[i].row, 0);
		assert_int_equal(at[i].x, cx[i] + 1);
		assert_false(at[i].abbreviated);
	}
	int cx2[] = {10, 11, 12, 13, 30}, len2[] = {12, 12, 12, 12, 5}, sl2[] = {3, 3, 3, 3, 3};
	chart_place_labels(cx2, len2, sl2, 5, 3, 0, 100, at);
	assert_int_equal(at[4].row, 0); /* newest: 31-35 */
	assert_int_equal(at[3].row, 0); /* 14-25, a column clear of it */
	assert_int_equal(at[2].row, 1); /* stacked */
	assert_int_equal(at[1].row, 2);
	for (int i = 0; i < 5; i++)
		for (int k = i + 1; k < 5; k++)
			if (at[i].row >= 0 && at[i].row == at[k].row) {
				int li = at[i].abbreviated ? sl2[i] : len2[i], lk = at[k].abbreviated ? sl2[k] : len2[k];
				assert_true(at[i].x + li < at[k].x || at[k].x + lk < at[i].x);
			}
	assert_int_equal(at[0].row, -1); /* the oldest of four in four columns: no room left */
	/* at the right end: left of the marker */
	int cx3[] = {98}, len3[] = {6}, sl3[] = {3};
	chart_place_labels(cx3, len3, sl3, 1, 3, 0, 100, at);
	assert_int_equal(at[0].row, 0);
	assert_int_equal(at[0].x, 92);
}

/* Text from the system made safe for a terminal: controls as ^X, C1 and
 * stray bytes as \xNN, valid UTF-8 kept, always terminated when cut. */
/* A window of n reads of ns each. */
static void window(struct probe_summary *w, uint64_t n, uint64_t ns)
{
	memset(w, 0, sizeof *w);
	w->n = n;
	w->p50_ns = w->p90_ns = w->p99_ns = w->p999_ns = w->max_ns = ns;
	w->mean_ns = (double)ns;
}

/* The before/after line at a switch: measuring while the after window
 * fills; a change no larger than the before window's halves moved is
 * within noise; the p99 with its reads; the short form at 80 columns. */
/* Who was served while probe reads waited, before and after a switch:
 * the kinds that moved most first, at most three; nothing without the
 * BPF part or a switch. */
static void switch_behind_line(void **state)
{
	(void)state;
	struct switch_compare c = {.state = 0};
	char buf[200];
	detail_behind_change(&c, 1, buf, sizeof buf);
	assert_string_equal(buf, "");
	c.state = 2;
	c.behind_before.b[BLK_WRITEBACK] = 910;
	c.behind_before.b[BLK_READ_OWN] = 50;
	c.behind_before.b[BLK_JOURNAL] = 40;
	c.behind_after.b[BLK_WRITEBACK] = 120;
	c.behind_after.b[BLK_READ_OWN] = 800;
	c.behind_after.b[BLK_JOURNAL] = 30;
	c.behind_after.b[BLK_SWAP] = 50;
	detail_behind_change(&c, 0, buf, sizeof buf);
	assert_string_equal(buf, "");
	detail_behind_change(&c, 1, buf, sizeof buf);
	assert_string_equal(buf, "served while probe reads waited, before->after: writeback 91%->12%, read 5%->80%, swap 0%->5%");
	memset(&c.behind_before, 0, sizeof c.behind_before);
	memset(&c.behind_after, 0, sizeof c.behind_after);
	c.state = 1;
	detail_behind_change(&c, 1, buf, sizeof buf);
	assert_string_equal(buf, "served first: nothing else while probe reads waited, so far");
}

/* The disk's detail panel says why the probe's reads were slow: its
 * slowest reads, each with what was served most meanwhile, and all that
 * was served while they waited; without the BPF part, why not. */
static void disk_detail_slow(void **state)
{
	(void)state;
	static struct sample s;
	static struct disk_sample d;
	static char buf[8192];
	memset(&s, 0, sizeof s);
	memset(&d, 0, sizeof d);
	util_strlcpy(d.info.name, "vdb", sizeof d.info.name);
	d.probed = 1;
	s.blk_on = 1;
	d.slow.reads = 4;
	d.slow.total = 100 << 20;
	d.slow.n = 2;
	d.slow.ahead[0] = (struct probe_ahead){.pid = 4186, .comm = "dd", .kind = BLK_WRITEBACK, .bytes = 92 << 20, .share = 0.92};
	d.slow.ahead[1] = (struct probe_ahead){.pid = 300, .comm = "jbd2/vdb-8", .kind = BLK_JOURNAL, .bytes = 8 << 20, .share = 0.08};
	d.slow.nslowest = 2;
	d.slow.slowest[0] = (struct probe_slowest){.ts = 1e9, .us = 212000, .top = d.slow.ahead[0]};
	d.slow.slowest[1] = (struct probe_slowest){.ts = 1e9 + 3, .us = 15000};
	detail_disk(&s, &d, buf, sizeof buf);
	assert_non_null(strstr(buf, "slowest probe reads, last 10 s (4 over 10 ms):"));
	assert_non_null(strstr(buf, "   212.0ms  behind dd (4186) 92% writeback\n"));
	assert_non_null(strstr(buf, "    15.0ms  nothing else was served meanwhile\n"));
	assert_non_null(strstr(buf, "served while probe reads waited, last 10 s (100M):"));
	assert_non_null(strstr(buf, "\n     4186 dd               writeback      92M  92%"));
	assert_non_null(strstr(buf, "\n      300 jbd2/vdb-8       journal         8M   8%"));
	assert_non_null(strstr(buf, "not attributed since start: 0B of file writes to vdb with no known dirtier"));
	/* the probe's line: owners under 0.5 % are left to the panel */
	d.slow.n = 3;
	d.slow.ahead[1].share = 0.004;
	d.slow.ahead[2] = d.slow.ahead[0];
	d.slow.ahead[2].share = 0.002; /* largest first, as the sampler sorts them */
	detail_behind(&d.slow, buf, sizeof buf);
	assert_string_equal(buf, "waited behind: dd 92% writeback");
	d.slow.ahead[1].share = 0.08;
	detail_behind(&d.slow, buf, sizeof buf);
	assert_string_equal(buf, "waited behind: dd 92% writeback, jbd2/vdb-8 8% journal");
	/* two processes of one name: each with its pid */
	d.slow.ahead[1] = (struct probe_ahead){.pid = 5000, .comm = "dd", .kind = BLK_WRITEBACK, .share = 0.08};
	detail_behind(&d.slow, buf, sizeof buf);
	assert_string_equal(buf, "waited behind: dd 4186 92% writeback, dd 5000 8% writeback");
	s.blk_on = 0;
	util_strlcpy(s.blk_why, "needs root", sizeof s.blk_why);
	detail_disk(&s, &d, buf, sizeof buf);
	assert_null(strstr(buf, "slowest probe reads"));
	assert_non_null(strstr(buf, "why reads were slow: block-layer latency is off: needs root"));
}

/* A unit's detail panel: I/O wait summed or why not, io.max and
 * io.latency where it has them, and what its reads waited behind per
 * disk with each owner's unit; before the watch has a reading, and
 * without the BPF part, it says so. */
static void unit_detail(void **state)
{
	(void)state;
	static struct sample s;
	static struct cgroup_sample cg[2];
	static struct proc_row rows[1];
	static char buf[8192];
	memset(&s, 0, sizeof s);
	memset(cg, 0, sizeof cg);
	util_strlcpy(cg[0].path, "a.slice/r.service", sizeof cg[0].path);
	util_strlcpy(cg[0].unit, "r.service", sizeof cg[0].unit);
	util_strlcpy(cg[1].path, "a.slice/w.service", sizeof cg[1].path);
	util_strlcpy(cg[1].unit, "w.service", sizeof cg[1].unit);
	cg[0].io_wait_pct = 96.5;
	cg[0].bfq_weight = cg[0].io_weight = cg[1].bfq_weight = cg[1].io_weight = -1;
	cg[0].have_io_max = 1;
	util_strlcpy(cg[0].io_max, "vda wbps=1048576", sizeof cg[0].io_max);
	cg[0].have_io_latency = 1; /* the file, limiting nothing */
	cg[1].io_wait_pct = -1;
	s.cgroups = cg;
	s.ncgroups = 2;
	s.have_procs = 1;
	rows[0] = (struct proc_row){.pid = 4186, .tid = 4186, .cgroup = cg[1].path};
	s.procs = rows;
	s.nprocs = 1;
	s.blk_on = 1;
	s.interval_s = 1;
	detail_unit(&s, cg[0].path, "r.service", buf, sizeof buf);
	assert_non_null(strstr(buf, "their I/O wait (delay accounting, summed): 96% (100% = one process waiting all the time)"));
	assert_non_null(strstr(buf, "io.max: vda wbps=1048576\n"));
	assert_non_null(strstr(buf, "io.latency: no limit\n"));
	assert_non_null(strstr(buf, "What its reads waited behind: from the next refresh"));
	struct unit_behind *ub = &s.unit_behind;
	util_strlcpy(ub->path, cg[0].path, sizeof ub->path);
	ub->secs = 10;
	ub->ndisks = 1;
	util_strlcpy(ub->disks[0].disk, "vda", sizeof ub->disks[0].disk);
	ub->disks[0].total = 100 << 20;
	ub->disks[0].ntop = 2;
	ub->disks[0].top[0] = (struct probe_ahead){.pid = 4186, .comm = "dd", .kind = BLK_DIRECT, .bytes = 90 << 20, .share = 0.9};
	ub->disks[0].top[1] = (struct probe_ahead){.pid = 77, .comm = "jbd2/vda1-8", .kind = BLK_JOURNAL, .bytes = 10 << 20,
						   .share = 0.1};
	detail_unit(&s, cg[0].path, "r.service", buf, sizeof buf);
	assert_non_null(strstr(buf, "What its reads waited behind (BPF: what each disk served while one was in flight; the last 10 s):"));
	assert_non_null(strstr(buf, "  vda, 100M in all:\n"));
	assert_non_null(strstr(buf, "     90% direct         90M  dd (4186) in w.service\n"));
	assert_non_null(strstr(buf, "     10% journal        10M  jbd2/vda1-8 (77)\n")); /* no row: no unit */
	ub->ndisks = 0;
	detail_unit(&s, cg[0].path, "r.service", buf, sizeof buf);
	assert_non_null(strstr(buf, "  nothing: no read of its waited behind another request"));
	util_strlcpy(ub->why, "not known: block-layer figures are off (needs root)", sizeof ub->why);
	detail_unit(&s, cg[0].path, "r.service", buf, sizeof buf);
	assert_non_null(strstr(buf, "  not known: block-layer figures are off (needs root)"));
	detail_unit(&s, cg[1].path, "w.service", buf, sizeof buf);
	assert_non_null(strstr(buf, "their I/O wait: not known"));
	assert_null(strstr(buf, "io.max"));
}

static void switch_compare_line(void **state)
{
	(void)state;
	struct switch_compare c = {.state = 1, .before_s = 10, .after_s = 3.4, .rate_hz = 0};
	util_strlcpy(c.from, "mq-deadline", sizeof c.from);
	util_strlcpy(c.to, "kyber", sizeof c.to);
	window(&c.before, 5000, 2000000);
	window(&c.after, 1500, 9000000);
	char buf[400];
	detail_switch_compare(&c, 0, buf, sizeof buf);
	assert_string_equal(buf, "mq-deadline->kyber: measuring (3 s of 10); 10s before: reads/s 500, p50 2.00ms, "
				 "p99 2.00ms (n 5000)");
	/* complete: reads/s 500 -> 150 (-70 %), the halves 480 and 520 a
	 * second (8 % apart): a change; p50 2.00 -> 2.10 ms (5 %) while the
	 * halves' p50s were 1.80 and 2.20 ms (20 % apart): within noise */
	c.state = 2;
	c.after_s = 10;
	window(&c.after, 1500, 2100000);
	c.after.p99_ns = 40000000;
	c.half_s = 5;
	window(&c.half1, 2400, 1800000);
	window(&c.half2, 2600, 2200000);
	detail_switch_compare(&c, 0, buf, sizeof buf);
	assert_string_equal(buf, "mq-deadline->kyber: reads/s 500->150 -70%, p50 2.00ms->2.10ms within noise, "
				 "p99 2.00ms->40.0ms +1900% (n 5000/1500); steady, 10s before vs 10s after");
	detail_switch_compare(&c, 80, buf, sizeof buf);
	assert_string_equal(buf, "switch: reads/s -70%, p50 within noise, p99 +1900% (n 1500)");
	assert_true(strlen(buf) <= 80);
	/* too few reads after for a p99: shown as such, never as a change */
	c.after.n = 50;
	detail_switch_compare(&c, 0, buf, sizeof buf);
	assert_non_null(strstr(buf, "p99 2.00ms->- (n 5000/50)"));
	/* a recording without the halves: changes shown, not judged */
	c.after.n = 1500;
	c.half_s = 0;
	detail_switch_compare(&c, 0, buf, sizeof buf);
	assert_non_null(strstr(buf, "p50 2.00ms->2.10ms +5%"));
}

static void safe_text(void **state)
{
	(void)state;
	struct {
		const char *in, *out;
	} c[] = {
		{"plain", "plain"},
		{"\033]2;PWNED\007", "^[]2;PWNED^G"},
		{"a\x7f" "b", "a^?b"},
		{"bad\xff\xfe", "bad\\xff\\xfe"},
		{"caf\xc3\xa9 \xe2\x9c\x93", "caf\xc3\xa9 \xe2\x9c\x93"},
		{"c1 \xc2\x9b" "1m", "c1 \\x9b1m"},
		{"cut \xe2\x9c", "cut \\xe2\\x9c"},
		{"over \xc0\xaf", "over \\xc0\\xaf"},
		{"surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80"},
		{"line\nbreak\ttab", "line^Jbreak^Itab"},
		/* bidirectional controls reorder the line: escaped, the
		 * neighbours (U+2027, U+2070) left alone */
		{"evil\xe2\x80\xae" "cod.exe", "evil\\u202ecod.exe"},
		{"\xe2\x80\xaa\xe2\x81\xa6x\xe2\x81\xa9\xe2\x80\x8f", "\\u202a\\u2066x\\u2069\\u200f"},
		{"\xe2\x81\xb0\xe2\x80\xa7", "\xe2\x81\xb0\xe2\x80\xa7"},
		/* and what hides in a name or breaks its line: ALM, zero width
		 * space, BOM, soft hyphen, line separator */
		{"a\xd8\x9c" "b\xe2\x80\x8b" "c\xef\xbb\xbf" "d\xc2\xad" "e\xe2\x80\xa8",
		 "a\\u061cb\\u200bc\\ufeffd\\u00ade\\u2028"},
		/* tag characters (hidden text), a Hangul filler, a variation
		 * selector; an emoji (four bytes too) left alone */
		{"A\xf3\xa0\x81\x81" "B\xe3\x85\xa4" "C\xef\xb8\x8f" "D\xf0\x9f\x98\x80",
		 "A\\U0e0041B\\u3164C\\ufe0fD\xf0\x9f\x98\x80"},
		/* the rest of Unicode's default-ignorable code points a name
		 * could hide behind: U+206A, U+180B, U+17B4, U+1D173, U+2065,
		 * U+FFF0, U+1BCA0, and a format control, U+13430 */
		{"s\xe2\x81\xaa" "d\xe1\xa0\x8b" "X\xe1\x9e\xb4" "Y\xf0\x9d\x85\xb3" "Z\xe2\x81\xa5" "W\xef\xbf\xb0" "V"
		 "\xf0\x9b\xb2\xa0" "U\xf0\x93\x90\xb0",
		 "s\\u206ad\\u180bX\\u17b4Y\\U01d173Z\\u2065W\\ufff0V\\U01bca0U\\U013430"},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char b[64];
		util_safe_text(b, sizeof b, c[i].in);
		assert_string_equal(b, c[i].out);
	}
	char small[6];
	util_safe_text(small, sizeof small, "\033\033\033");
	assert_string_equal(small, "^[^["); /* whole escapes only */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(big_digits),
		cmocka_unit_test(pane_hit_testing),
		cmocka_unit_test(pane_order),
		cmocka_unit_test(figures_fit),
		cmocka_unit_test(proccols_whole),
		cmocka_unit_test(proccols_documented),
		cmocka_unit_test(unitcols_documented),
		cmocka_unit_test(csv_procs),
		cmocka_unit_test(switch_labels),
		cmocka_unit_test(switch_compare_line),
		cmocka_unit_test(switch_behind_line),
		cmocka_unit_test(disk_detail_slow),
		cmocka_unit_test(unit_detail),
		cmocka_unit_test(safe_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
