/* Unit tests: the full screen's panels, without a terminal or a device.
 * A panel is fed keys through its ops table on a made-up sample and drawn
 * on a virtual screen (ncurses newterm on /dev/null, TERM=xterm, 80x24),
 * whose text is read back. Keys that would change the system (Enter in
 * the picker, a typed tunable's Enter) need a session and are left to the
 * terminal tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuiview.h"

static SCREEN *scr;
static FILE *out, *in;

static int screen_up(void **state)
{
	(void)state;
	setenv("TERM", "xterm", 1);
	out = fopen("/dev/null", "w");
	in = fopen("/dev/null", "r");
	scr = newterm("xterm", out, in);
	if (!scr)
		return -1;
	resizeterm(24, 80);
	return 0;
}

static int screen_down(void **state)
{
	(void)state;
	endwin();
	delscreen(scr);
	fclose(out);
	fclose(in);
	return 0;
}

/* The screen's text: rows joined by newlines. */
static void screen_text(char *buf, size_t len)
{
	size_t k = 0;
	for (int y = 0; y < LINES && k + COLS + 2 < len; y++) {
		char row[512];
		mvinnstr(y, 0, row, COLS < (int)sizeof row - 1 ? COLS : (int)sizeof row - 1);
		k += (size_t)snprintf(buf + k, len - k, "%s\n", row);
	}
}

/* A tui with one disk, four schedulers, mq-deadline active. */
static struct tui *make_tui(void)
{
	struct tui *t = calloc(1, sizeof *t);
	assert_non_null(t);
	t->s.disks = calloc(1, sizeof *t->s.disks);
	t->s.cap = t->s.ndisks = 1;
	struct disk_info *i = &t->s.disks[0].info;
	strcpy(i->name, "sdz");
	i->sched.n = 4;
	i->sched.active = 1;
	strcpy(i->sched.names[0], "none");
	strcpy(i->sched.names[1], "mq-deadline");
	strcpy(i->sched.names[2], "kyber");
	strcpy(i->sched.names[3], "bfq");
	strcpy(t->selected, "sdz");
	return t;
}

static void free_tui(struct tui *t)
{
	free(t->s.disks);
	free(t);
}

static void test_picker(void **state)
{
	(void)state;
	struct tui *t = make_tui();
	t->picker.cur = 1;
	panel_picker.step(t, 1);
	assert_int_equal(t->picker.cur, 2);
	panel_picker.step(t, 1);
	panel_picker.step(t, 1);
	assert_int_equal(t->picker.cur, 0); /* wraps */
	panel_picker.step(t, -1);
	assert_int_equal(t->picker.cur, 3);
	erase();
	panel_picker.draw(t);
	char text[8192];
	screen_text(text, sizeof text);
	assert_non_null(strstr(text, "sdz scheduler"));
	assert_non_null(strstr(text, "* mq-deadline"));
	assert_non_null(strstr(text, "(active)"));
	assert_non_null(strstr(text, "bfq"));
	free_tui(t);
}

static void test_tunables_typing(void **state)
{
	(void)state;
	struct tui *t = make_tui();
	t->tunables.n = 2;
	t->tunables.tun[0] = (struct tunable){.kind = TUNE_QUEUE, .writable = 1};
	strcpy(t->tunables.tun[0].key, "nr_requests");
	strcpy(t->tunables.tun[0].value, "64");
	t->tunables.tun[1] = (struct tunable){.kind = TUNE_QUEUE};
	strcpy(t->tunables.tun[1].key, "nomerges");
	strcpy(t->tunables.tun[1].value, "0");
	/* Not editing: keys are not taken as typing. */
	assert_int_equal(panel_tunables.type(t, '5'), 0);
	panel_tunables.step(t, 1);
	assert_int_equal(t->tunables.cur, 1);
	panel_tunables.step(t, 1);
	assert_int_equal(t->tunables.cur, 0);
	panel_tunables.enter(t);
	assert_true(t->tunables.editing);
	assert_int_equal(panel_tunables.type(t, '1'), 1);
	panel_tunables.type(t, '2');
	panel_tunables.type(t, 'x'); /* not a digit: ignored */
	panel_tunables.type(t, '8');
	assert_string_equal(t->tunables.edit, "128");
	panel_tunables.type(t, KEY_BACKSPACE);
	assert_string_equal(t->tunables.edit, "12");
	erase();
	panel_tunables.draw(t);
	char text[8192];
	screen_text(text, sizeof text);
	assert_non_null(strstr(text, "sdz tunables (mq-deadline)"));
	assert_non_null(strstr(text, "nr_requests"));
	assert_non_null(strstr(text, "(read-only)")); /* nomerges */
	assert_non_null(strstr(text, "new value: 12_"));
	panel_tunables.type(t, ESC);
	assert_false(t->tunables.editing);
	free_tui(t);
}

static void test_report_scroll(void **state)
{
	(void)state;
	struct tui *t = make_tui();
	t->report.text = strdup("line one\nline two\nline three\n");
	panel_report.step(t, -1);
	assert_int_equal(t->report.top, 0); /* not above the first line */
	panel_report.step(t, 1);
	erase();
	panel_report.draw(t);
	char text[8192];
	screen_text(text, sizeof text);
	assert_non_null(strstr(text, "line two"));
	assert_null(strstr(text, "line one"));
	free(t->report.text);
	free_tui(t);
}

static void test_ops_table(void **state)
{
	(void)state;
	/* Every panel draws; the keys it has are the ones its help promises. */
	const struct panel_ops *all[] = {&panel_picker, &panel_tunables, &panel_log, &panel_udev,
					 &panel_ioprio, &panel_report, &panel_detail};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		assert_non_null(all[i]->draw);
	assert_non_null(panel_udev.write);
	assert_non_null(panel_report.write);
	assert_non_null(panel_ioprio.enter);
	assert_null(panel_log.enter);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_picker),
		cmocka_unit_test(test_tunables_typing),
		cmocka_unit_test(test_report_scroll),
		cmocka_unit_test(test_ops_table),
	};
	return cmocka_run_group_tests(tests, screen_up, screen_down);
}
