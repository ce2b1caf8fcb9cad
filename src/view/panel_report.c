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

static void draw_report(const struct tui *t)
{
	int w = COLS - 2, x = 1, y = 1, h = LINES - 2;
	if (w < 20 || h < 4 || !t->report.text)
		return;
	tui_panel_box(y, x, h, w, " A/B report (w saves it as Markdown, Esc closes) ");
	const char *p = t->report.text;
	for (int skip = 0; skip < t->report.top && p; skip++)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	for (int r = 0; p && *p && r < h - 2; r++) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		char seg[1024];
		util_fmt(seg, sizeof seg, "%.*s", n, p);
		tui_put_within(y + 1 + r, x + 1, seg, w - 2);
		p = nl ? nl + 1 : NULL;
	}
}

static void save_report(struct tui *t)
{
	char name[128], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	util_fmt(name, sizeof name, "iosched-top-ab-%s-%s.md", t->sess->abres.disk, stamp);
	/* in the working directory, through the one safe way root writes */
	struct safefile_dir d;
	char why[300], msg[400];
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
		util_fmt(msg, sizeof msg, "cannot write %s: %s", name, why);
		tui_say(t, msg);
		return;
	}
	abreport_write(f, &t->sess->abcfg, &t->sess->abres, AB_MD);
	int bad = fclose(f) != 0;
	safefile_dir_close(&d);
	if (bad) {
		util_fmt(msg, sizeof msg, "cannot write %s: %s", name, strerror(errno));
		tui_say(t, msg);
		return;
	}
	util_fmt(msg, sizeof msg, "saved %s", name);
	tui_say(t, msg);
}

static void step(struct tui *t, int dir)
{
	t->report.top = t->report.top + dir < 0 ? 0 : t->report.top + dir;
}

const struct panel_ops panel_report = {.draw = draw_report, .step = step, .write = save_report};
