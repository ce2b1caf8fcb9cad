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
#include "safefile.h"
#include "util.h"
#include "abreport.h"

#define REPORT_Y 1

static int report_rows(const struct tui *t, int *y)
{
	(void)t;
	*y = REPORT_Y + 1;
	return LINES - 4;
}

static void draw_report(const struct tui *t)
{
	int w = COLS - 2, x = 1, y = REPORT_Y, h = LINES - 2;
	if (w < 20 || h < 4 || !t->report.text)
		return;
	screen_box(y, x, h, w, " A/B report (w saves it as Markdown, Esc closes) ");
	const char *p = t->report.text;
	for (int skip = listbox_first(&t->report.list, h - 2); skip > 0 && p; skip--)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	for (int r = 0; p && *p && r < h - 2; r++) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		char seg[1024];
		util_fmt(seg, sizeof seg, "%.*s", n, p);
		screen_put_within(y + 1 + r, x + 1, seg, w - 2);
		p = nl ? nl + 1 : NULL;
	}
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
	int n = 0; /* lines, the last one with or without its newline */
	for (const char *p = text; p && *p; p++)
		n += *p == '\n' || !p[1];
	t->report.list = (struct listbox){.n = n};
	t->mode = KM_REPORT;
}

static struct listbox *list(struct tui *t)
{
	return &t->report.list;
}

const struct panel_ops panel_report = {.draw = draw_report, .list = list, .rows = report_rows, .write = save_report};
