/* panel_report: the last A/B report (V), scrolled; w saves it as
 * Markdown in the working directory. */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tuiview.h"
#include "base/safefile.h"
#include "base/util.h"
#include "out/abreport.h"

#define REPORT_Y 1

static int report_rows(const struct tui *t, int *y)
{
	(void)t;
	*y = REPORT_Y + 1;
	return LINES - 4;
}

/* A line of the report's tables (columns apart by runs of spaces): shown
 * whole from the column Left/Right scrolled to. Prose is wrapped, also an
 * indented line of it (its indent is not a run between columns). */
static int is_table(const char *line, int n)
{
	int i = 0;
	while (i < n && line[i] == ' ')
		i++;
	for (; i + 2 < n; i++)
		if (line[i] == ' ' && line[i + 1] == ' ' && line[i + 2] == ' ')
			return 1;
	return 0;
}

/* The next piece of prose at most w wide, broken at a space: its length. */
static int prose_piece(const char *p, int n, int w)
{
	if (n <= w)
		return n;
	int k = w;
	while (k > w / 2 && p[k] != ' ')
		k--;
	return p[k] == ' ' ? k : w;
}

/* Each line shown at width w, in order: line i is text[at..at+len),
 * table or not. Calls put for lines first..first+rows-1 (put may be NULL)
 * and returns how many lines there are in all. */
typedef void (*report_put)(const struct tui *t, int i, const char *at, int len, int table);
static int report_lines(const struct tui *t, int w, int first, int rows, report_put put)
{
	int i = 0;
	for (const char *p = t->report.text; p && *p;) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		if (is_table(p, n) || n <= w || w < 10) {
			if (put && i >= first && i < first + rows)
				put(t, i - first, p, n, 1);
			i++;
		} else {
			for (int at = 0; at < n;) {
				int k = prose_piece(p + at, n - at, w);
				if (put && i >= first && i < first + rows)
					put(t, i - first, p + at, k, 0);
				i++;
				at += k;
				while (at < n && p[at] == ' ')
					at++;
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	return i;
}

static void put_line(const struct tui *t, int r, const char *at, int len, int table)
{
	int skip = table ? t->report.xoff : 0;
	char seg[1024];
	util_fmt(seg, sizeof seg, "%.*s", len > skip ? len - skip : 0, at + (len > skip ? skip : len));
	screen_put_within(REPORT_Y + 1 + r, 2, seg, COLS - 4);
}

static void draw_report(const struct tui *t)
{
	int w = COLS - 2, x = 1, y = REPORT_Y, h = LINES - 2;
	if (w < 20 || h < 4 || !t->report.text)
		return;
	screen_box(y, x, h, w, " A/B report (w saves it as Markdown; Left/Right scroll the tables; Esc closes) ");
	struct listbox l = t->report.list;
	l.n = report_lines(t, COLS - 4, 0, 0, NULL);
	report_lines(t, COLS - 4, listbox_first(&l, h - 2), h - 2, put_line);
}

static void save_report(struct tui *t, struct reply *r)
{
	char name[128], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	util_fmt(name, sizeof name, "iosched-top-ab-%s-%s.md", session_ab_result(t->sess)->disk, stamp);
	/* in the working directory, through the one safe way root writes */
	struct safefile_dir d;
	char why[300];
	int fd = safefile_dir_open(&d, name, why, sizeof why);
	if (fd == 0)
		fd = safefile_create(&d, 0644, why, sizeof why);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0) {
			util_strlcpy(why, strerror(errno), sizeof why);
			close(fd);
		}
		safefile_dir_close(&d);
		screen_reply(r, "cannot write %s: %s", name, why);
		return;
	}
	abreport_write(f, session_ab_config_used(t->sess), session_ab_result(t->sess), AB_MD);
	int bad = fclose(f) != 0;
	safefile_dir_close(&d);
	if (bad) {
		screen_reply(r, "cannot write %s: %s", name, strerror(errno));
		return;
	}
	screen_reply(r, "saved %s", name);
}

/* The report to show (the panel owns text from now on), from its top. */
void panel_report_open(struct tui *t, char *text)
{
	free(t->report.text);
	t->report.text = text;
	t->report.list = (struct listbox){.n = report_lines(t, COLS - 4, 0, 0, NULL)};
	t->report.xoff = 0;
	t->mode = KM_REPORT;
}

/* The lines as wrapped at this width (the terminal may have been resized). */
static struct listbox *list(struct tui *t)
{
	listbox_count(&t->report.list, report_lines(t, COLS - 4, 0, 0, NULL));
	return &t->report.list;
}

void panel_report_side(struct tui *t, int dir)
{
	t->report.xoff += dir * 10;
	if (t->report.xoff < 0)
		t->report.xoff = 0;
}

const struct panel_ops panel_report = {.draw = draw_report, .list = list, .rows = report_rows, .write = save_report};
