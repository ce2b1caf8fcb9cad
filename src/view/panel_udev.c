/* panel_udev: the udev rule that keeps the selected disk's scheduler
 * across reboots (P), and where rules for it are already; w writes it. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tuiview.h"
#include "base/util.h"

static void draw_udev(const struct tui *t)
{
	int w = COLS - 4, x = 2, y = 2, h = LINES - 4;
	if (w < 30 || h < 8)
		return;
	char title[64], line[512];
	snprintf(title, sizeof title, " udev rule for %s ", t->udev.disk);
	screen_box(y, x, h, w, title);
	int r = y + 1, end = y + h - 2;
	r += screen_put_wrapped(r, x + 2, w - 4, t->udev.rule, end - r);
	r++;
	if (r < end) {
		snprintf(line, sizeof line, t->udev.nfound ? "Rules that already set a scheduler for %s:" :
							"No rules file sets a scheduler for %s now.",
			 t->udev.disk);
		screen_put_within(r++, x + 2, line, w - 4);
	}
	for (size_t i = 0; i < t->udev.nfound && r < end; i++) {
		util_fmt(line, sizeof line, "  %s", t->udev.found[i]);
		screen_put_within(r++, x + 2, line, w - 4);
	}
	r++;
	if (r < end)
		r += screen_put_wrapped(r, x + 2, w - 4, t->udev.note, end - r);
	attron((attr_t)t->th[TH_TITLE]);
	screen_put_within(y + h - 2, x + 2, "w: write it to the file (nothing is written without w)   Esc: close", w - 4);
	attroff((attr_t)t->th[TH_TITLE]);
}

void panel_udev_open(struct tui *t, struct reply *r)
{
	const struct disk_sample *d = screen_selected_disk(t);
	const char *a = d ? sched_active(&d->info.sched) : NULL;
	if (!a) {
		screen_reply(r, "this disk has no scheduler to keep");
		return;
	}
	session_udev_prepare(t->sess, d->info.name, a, &t->udev);
	t->mode = KM_UDEV;
}

static void write_udev(struct tui *t, struct reply *r)
{
	int rc = session_udev_write(t->sess, &t->udev, r->msg, sizeof r->msg);
	r->react |= REACT_REDRAW;
	if (rc == 0)
		t->mode = KM_MAIN; /* a failure keeps the panel open */
}

const struct panel_ops panel_udev = {.draw = draw_udev, .write = write_udev};
