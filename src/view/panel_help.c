/* panel_help: the help screen (h): the key table per mode, then what the
 * figures mean; it scrolls. */
#include <ctype.h>
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/proccols.h"
#include "unitcols.h"
#include "tuiview.h"
#include "base/util.h"

#define HELP_LINES 200
#define HELP_WIDTH 400 /* a paragraph, before it is wrapped to the screen */

/* The help as lines: the key table per mode (a key that is off here says
 * why), then what the figures are. */
static int help_lines(const struct tui *t, char lines[HELP_LINES][HELP_WIDTH])
{
	size_t n;
	const struct key_binding *k = keys_table(&n);
	int y = 0;
	for (int m = 0; m < KM_COUNT && y < HELP_LINES - 2; m++) {
		util_fmt(lines[y++], HELP_WIDTH, "%s", m ? "" : "");
		util_fmt(lines[y++], HELP_WIDTH, "== %s", keys_mode_name((enum key_mode)m));
		for (size_t i = 0; i < n && y < HELP_LINES; i++)
			if (k[i].mode == (enum key_mode)m)
			{
				const char *off = screen_key_off(t, k[i].action);
				util_fmt(lines[y++], HELP_WIDTH, "  %-10s %s%s%s%s", k[i].label, k[i].help,
					 off ? " [off: " : "", off ? off : "", off ? "]" : "");
			}
	}
	/* Paragraphs, one string each: wrap() fits them to the screen, so a
	 * sentence never breaks where a wider screen's line ended. */
	static const char *const text[] = {
		"Rates are iostat -x figures over the last interval. p50 p99: the disk's own probe over the last "
		"10 s - one 4 KiB O_DIRECT random read at a time (QD1), paced with jitter or back-to-back (R). "
		"The pace changes what a scheduler does: bfq idles for a reader that keeps asking, not for one "
		"that comes back later. '-': too few samples.",
		"Chart: p50 bars and p99 dots per second, log scale; a marker at each switch. On a small screen "
		"it shrinks to one line of p99s before the process pane does; C hides it.",
		"SWITCH: how long the last switch took (the kernel drains the queue to switch).",
	};
	static const char *const procs_text[] = {
		"READ/s to AVG-WAIT are system-wide (/proc/PID/io, delay accounting). n/a: bytes moved without "
		"waits (async I/O); n/a*: started before delay accounting was on; -: no figure.",
		"The block latencies (Enter: per disk) leave out syscall and wake-up, and a process's requests "
		"may be large or sequential: they differ from the probe's fresh 4 KiB read.",
		"Buffered writes reach the disk later, issued by [writeback] rows (a flusher); TO-DISK/s charges "
		"them to the process that dirtied them, [exited] once it has ended. [journal]: the filesystem's "
		"journal and metadata, which belong to no process.",
		"Enter on a disk: its slowest probe reads of the last 10 s and what the disk served while they waited.",
	};
	if (y < HELP_LINES)
		lines[y++][0] = '\0';
	for (size_t i = 0; i < sizeof text / sizeof text[0] && y < HELP_LINES; i++)
		util_strlcpy(lines[y++], text[i], HELP_WIDTH);
	if (y < HELP_LINES)
		util_strlcpy(lines[y++], "== Process columns", HELP_WIDTH);
	for (int c = 0; c < PC_COUNT && y < HELP_LINES; c++)
		util_fmt(lines[y++], HELP_WIDTH, "  %-13s  %s", proccols_get((enum pcol)c)->header,
			 proccols_get((enum pcol)c)->help);
	for (size_t i = 0; i < sizeof procs_text / sizeof procs_text[0] && y < HELP_LINES; i++)
		util_strlcpy(lines[y++], procs_text[i], HELP_WIDTH);
	if (y < HELP_LINES)
		util_strlcpy(lines[y++], "== Unit columns (U)", HELP_WIDTH);
	for (int c = 0; c < UC_COUNT && y < HELP_LINES; c++)
		util_fmt(lines[y++], HELP_WIDTH, "  %-13s  %s", unitcols_get((enum ucol)c)->header,
			 unitcols_get((enum ucol)c)->help);
	return y;
}

/* Where a row's help text begins ("  KEY        help": after the first run
 * of two or more spaces past the label), so its next lines go under it;
 * 0 for prose. */
static int help_indent(const char *p)
{
	if (p[0] != ' ' || p[1] != ' ')
		return 0;
	const char *gap = strstr(p + 2, "  ");
	if (!gap)
		return 0;
	while (*gap == ' ')
		gap++;
	return (int)(gap - p) < 40 ? (int)(gap - p) : 0;
}

/* Wrap lines to width: a long line goes on under its text (key rows under
 * their help, after the key's column), cut only between words. Returns
 * the number of lines in out. */
static int wrap(char in[][HELP_WIDTH], int n, int width, char out[][HELP_WIDTH], int max)
{
	int k = 0;
	for (int i = 0; i < n && k < max; i++) {
		const char *p = in[i];
		int indent = help_indent(p);
		int first = 1;
		do {
			int avail = width - (first ? 0 : indent);
			int len = (int)strlen(p);
			if (len > avail && avail > 10) {
				len = avail;
				while (len > avail / 2 && p[len] != ' ')
					len--;
				if (p[len] != ' ')
					len = avail;
			}
			util_fmt(out[k++], HELP_WIDTH, "%*s%.*s", first ? 0 : indent, "", len, p);
			p += len;
			while (*p == ' ')
				p++;
			first = 0;
		} while (*p && k < max);
	}
	return k;
}

/* The help as laid out for this screen: one column, two where the
 * screen is 160 wide or more, each line wrapped to its column. Returns
 * the lines in all (NULL with 0 without memory; the caller frees). */
static int help_layout(const struct tui *t, char (**out)[HELP_WIDTH], int *ncol, int *colw)
{
	char (*lines)[HELP_WIDTH] = malloc(HELP_LINES * sizeof *lines); /* 32 KB: not on the stack */
	char (*wrapped)[HELP_WIDTH] = malloc(2 * HELP_LINES * sizeof *wrapped);
	*out = NULL;
	if (!lines || !wrapped) {
		free(lines);
		free(wrapped);
		return 0;
	}
	*ncol = COLS >= 160 ? 2 : 1;
	*colw = COLS / *ncol;
	int n = wrap(lines, help_lines(t, lines), *colw - 1, wrapped, 2 * HELP_LINES);
	free(lines);
	*out = wrapped;
	return n;
}

int panel_help_length(const struct tui *t)
{
	char (*wrapped)[HELP_WIDTH];
	int ncol, colw, n = help_layout(t, &wrapped, &ncol, &colw);
	free(wrapped);
	return (n + ncol - 1) / ncol;
}

/* Scrolled by help_list (the lines of one column). */
void tui_draw_help(const struct tui *t)
{
	char (*wrapped)[HELP_WIDTH];
	int ncol, colw, n = help_layout(t, &wrapped, &ncol, &colw), rows = LINES - 1;
	if (!wrapped)
		return;
	attron((attr_t)t->th[TH_TITLE]);
	screen_put(0, 0, "iosched-top keys (Up/Down/PgUp/PgDn scroll, any other key returns)");
	attroff((attr_t)t->th[TH_TITLE]);
	int per = (n + ncol - 1) / ncol;
	struct listbox l = t->help_list;
	l.n = per;
	int top = listbox_first(&l, rows);
	for (int c = 0; c < ncol; c++)
		for (int r = 0; r < rows; r++) {
			int i = c * per + top + r;
			if (i >= (c + 1) * per || i >= n)
				break;
			mvaddnstr(1 + r, c * colw, wrapped[i], colw - 1);
		}
	free(wrapped);
}
