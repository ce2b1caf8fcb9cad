/* Unit tests: the full screen's panels, without a terminal or a device.
 * A panel is fed keys through its ops table on a made-up sample and drawn
 * on a virtual screen (ncurses newterm on /dev/null, TERM=xterm, 80x24),
 * whose text is read back; lists are moved as the keys move them (through
 * the panel's listbox). Keys that would change the system (Enter in the
 * picker, a typed tunable's Enter) need a session and are left to the
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

#include "view/tuiview.h"

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
	static const struct options o; /* the defaults: not read-only */
	struct tui *t = calloc(1, sizeof *t);
	assert_non_null(t);
	t->o = &o;
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

/* A move in a panel's list, as the keys make it (tui_keys.c). */
static void move_in(const struct panel_ops *p, struct tui *t, int by)
{
	int y;
	listbox_move(p->list(t), by, p->rows(t, &y));
}

/* i on a process row keeps the row's start time (a pid another process
 * has by Enter is refused: test_control's test_ioprio_pid_reused); i on
 * an [exited] row, or on one whose start time is not known, opens
 * nothing and says why. */
static void test_ioprio_rows(void **state)
{
	(void)state;
	struct tui *t = make_tui();
	struct proc_row rows[2] = {
		{.pid = 4242, .tid = 4242, .start = 777, .comm = "live"},
		{.pid = 4343, .tid = 4343, .start = 888, .comm = "gone", .exited = 1},
	};
	size_t order[2] = {0, 1};
	t->s.procs = rows;
	t->s.nprocs = 2;
	t->s.have_procs = 1;
	t->pp.order = order;
	t->pp.norder = 2;
	struct reply r = {0};
	t->pp.selected_tid = 4242;
	panel_ioprio_open(t, &r);
	assert_int_equal(t->mode, KM_IOPRIO);
	assert_int_equal(t->ioprio.pid, 4242);
	assert_true(t->ioprio.start == 777);
	t->mode = KM_MAIN;
	t->pp.selected_tid = 4343;
	memset(&r, 0, sizeof r);
	panel_ioprio_open(t, &r);
	assert_int_equal(t->mode, KM_MAIN);
	assert_non_null(strstr(r.msg, "has ended"));
	rows[1].exited = 0;
	rows[1].start = 0; /* its stat not read: which process has the pid cannot be told */
	memset(&r, 0, sizeof r);
	panel_ioprio_open(t, &r);
	assert_int_equal(t->mode, KM_MAIN);
	assert_non_null(strstr(r.msg, "start time is not known"));
	t->s.procs = NULL;
	t->pp.order = NULL;
	free_tui(t);
}

static void test_picker(void **state)
{
	(void)state;
	struct tui *t = make_tui();
	struct reply r = {0};
	panel_picker_open(t, &r);
	assert_int_equal(t->mode, KM_PICKER);
	assert_int_equal(t->picker.list.cur, 1); /* on the active one */
	move_in(&panel_picker, t, 1);
	assert_int_equal(t->picker.list.cur, 2);
	move_in(&panel_picker, t, 1);
	move_in(&panel_picker, t, 1);
	assert_int_equal(t->picker.list.cur, 0); /* wraps */
	move_in(&panel_picker, t, -1);
	assert_int_equal(t->picker.list.cur, 3);
	move_in(&panel_picker, t, LISTBOX_HOME);
	assert_int_equal(t->picker.list.cur, 0);
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
	t->tunables.list = (struct listbox){.n = 2, .cursor = 1, .wrap = 1};
	t->tunables.tun[0] = (struct tunable){.kind = TUNE_QUEUE, .writable = 1};
	strcpy(t->tunables.tun[0].key, "nr_requests");
	strcpy(t->tunables.tun[0].value, "64");
	t->tunables.tun[1] = (struct tunable){.kind = TUNE_QUEUE};
	strcpy(t->tunables.tun[1].key, "nomerges");
	strcpy(t->tunables.tun[1].value, "0");
	/* Not editing: keys are not taken as typing. */
	struct reply r = {0};
	assert_int_equal(panel_tunables.type(t, '5', &r), 0);
	move_in(&panel_tunables, t, 1);
	assert_int_equal(t->tunables.list.cur, 1);
	move_in(&panel_tunables, t, 1);
	assert_int_equal(t->tunables.list.cur, 0);
	panel_tunables.enter(t, &r);
	assert_true(t->tunables.editing);
	assert_int_equal(panel_tunables.type(t, '1', &r), 1);
	panel_tunables.type(t, '2', &r);
	panel_tunables.type(t, 'x', &r); /* not a digit: ignored */
	panel_tunables.type(t, '8', &r);
	assert_string_equal(t->tunables.edit, "128");
	panel_tunables.type(t, KEY_BACKSPACE, &r);
	assert_string_equal(t->tunables.edit, "12");
	erase();
	panel_tunables.draw(t);
	char text[8192];
	screen_text(text, sizeof text);
	assert_non_null(strstr(text, "sdz tunables (mq-deadline)"));
	assert_non_null(strstr(text, "nr_requests"));
	assert_non_null(strstr(text, "(read-only)")); /* nomerges */
	assert_non_null(strstr(text, "new value: 12_"));
	panel_tunables.type(t, ESC, &r);
	assert_false(t->tunables.editing);
	free_tui(t);
}

static void test_report_scroll(void **state)
{
	(void)state;
	struct tui *t = make_tui();
	/* 40 lines: more than the 20 shown at 80x24 */
	char *text = malloc(1024), screen[8192];
	size_t k = 0;
	for (int i = 1; i <= 40; i++)
		k += (size_t)snprintf(text + k, 1024 - k, "line %d.\n", i);
	panel_report_open(t, text);
	assert_int_equal(t->mode, KM_REPORT);
	move_in(&panel_report, t, -1);
	assert_int_equal(t->report.list.top, 0); /* not above the first line */
	move_in(&panel_report, t, 1);
	erase();
	panel_report.draw(t);
	screen_text(screen, sizeof screen);
	assert_non_null(strstr(screen, "line 2."));
	assert_null(strstr(screen, "line 1."));
	move_in(&panel_report, t, LISTBOX_END); /* the last line at the bottom, not past it */
	erase();
	panel_report.draw(t);
	screen_text(screen, sizeof screen);
	assert_non_null(strstr(screen, "line 40."));
	assert_non_null(strstr(screen, "line 21."));
	assert_null(strstr(screen, "line 20."));
	free(t->report.text);
	free_tui(t);
}

/* The I/O priority list stops at its ends: Up from idle never lands on
 * real time, and Down from rt/0 never on idle. */
static void test_ioprio_no_wrap(void **state)
{
	(void)state;
	struct tui *t = make_tui();
	t->ioprio.list = (struct listbox){.n = 18, .cursor = 1};
	for (int i = 0; i < 12; i++)
		move_in(&panel_ioprio, t, -1);
	assert_int_equal(t->ioprio.list.cur, 0);
	move_in(&panel_ioprio, t, LISTBOX_END);
	move_in(&panel_ioprio, t, 1);
	assert_int_equal(t->ioprio.list.cur, 17);
	free_tui(t);
}

/* Real time takes Enter twice: the first only says what it does. */
static void test_ioprio_rt_asks(void **state)
{
	(void)state;
	struct tui *t = make_tui();
	struct reply r = {0};
	t->mode = KM_IOPRIO;
	t->ioprio.list = (struct listbox){.n = 18, .cursor = 1, .cur = 9}; /* "none" */
	t->ioprio.rt_asked = -1;
	move_in(&panel_ioprio, t, 1); /* rt/7 */
	panel_ioprio.enter(t, &r);
	assert_non_null(strstr(r.msg, "rt/7 is real time"));
	assert_int_equal(t->mode, KM_IOPRIO); /* nothing set, the panel stays */
	move_in(&panel_ioprio, t, 1);
	move_in(&panel_ioprio, t, -1); /* a move asks again */
	r.msg[0] = '\0';
	panel_ioprio.enter(t, &r);
	assert_non_null(strstr(r.msg, "Enter again"));
	free_tui(t);
}

/* The event log shows its newest line while at its end, and stays where
 * it was scrolled to when not. */
static void test_log_follows(void **state)
{
	(void)state;
	struct tui *t = make_tui();
	for (int i = 0; i < EVENTLOG_RECENT; i++) {
		snprintf(t->s.recent[i].disk, sizeof t->s.recent[i].disk, "d%d", i);
		t->s.recent[i].type = EV_DISK;
	}
	t->s.nrecent = 10;
	panel_log_open(t);
	char screen[8192];
	erase();
	panel_log.draw(t);
	screen_text(screen, sizeof screen);
	assert_non_null(strstr(screen, " d9 "));
	t->s.nrecent = 32; /* new events: still the newest in view (18 rows at 80x24) */
	erase();
	panel_log.draw(t);
	screen_text(screen, sizeof screen);
	assert_non_null(strstr(screen, " d31 "));
	assert_null(strstr(screen, " d13 "));
	move_in(&panel_log, t, -5); /* scrolled up: stays */
	erase();
	panel_log.draw(t);
	screen_text(screen, sizeof screen);
	assert_null(strstr(screen, " d31 "));
	assert_non_null(strstr(screen, " d26 "));
	assert_non_null(strstr(screen, " d9 "));
	free_tui(t);
}

/* The help's prose flows at 80 columns: a sentence goes on on the next
 * line, never left on a line of its own ("moved"). */
static void test_help_paragraphs(void **state)
{
	(void)state;
	struct tui *t = make_tui();
	char text[8192];
	int seen_moved = 0, seen_requests = 0;
	/* page by page through the whole help (the prose is near its end,
	 * above the units pane's columns) */
	for (int top = 0; top < panel_help_length(t); top += 10) {
		t->help_list = (struct listbox){.top = top};
		erase();
		tui_draw_help(t);
		screen_text(text, sizeof text);
		seen_moved |= strstr(text, "\nmoved without waits (async I/O)") != NULL;
		seen_requests |= strstr(text, "\nprocess's requests may be large") != NULL;
		assert_null(strstr(text, "\nmoved   "));
	}
	assert_true(seen_moved);
	assert_true(seen_requests);
	free_tui(t);
}

/* The A/B report at 80 columns: prose wrapped (not cut), tables whole
 * and scrolled sideways. */
static void test_report_wraps(void **state)
{
	(void)state;
	struct tui *t = make_tui();
	char *text = strdup("verdict: a sentence long enough that it cannot fit on one line of an eighty column "
			    "panel, so it goes on under itself\nvariant      round     p50 ms     p99 ms     max ms "
			    "   reads/s    >10ms %   >100ms %   fresh ms\n");
	panel_report_open(t, text);
	char screen[8192];
	erase();
	panel_report.draw(t);
	screen_text(screen, sizeof screen);
	assert_non_null(strstr(screen, "goes on under itself"));
	assert_non_null(strstr(screen, "variant      round"));
	assert_null(strstr(screen, "fresh ms")); /* past the panel's right edge */
	panel_report_side(t, 1);
	panel_report_side(t, 1);
	panel_report_side(t, 1);
	erase();
	panel_report.draw(t);
	screen_text(screen, sizeof screen);
	assert_non_null(strstr(screen, "fresh ms"));
	assert_non_null(strstr(screen, "goes on under itself")); /* prose does not scroll */
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
		cmocka_unit_test(test_ioprio_rows),
		cmocka_unit_test(test_tunables_typing),
		cmocka_unit_test(test_report_scroll),
		cmocka_unit_test(test_ioprio_no_wrap),
		cmocka_unit_test(test_ioprio_rt_asks),
		cmocka_unit_test(test_log_follows),
		cmocka_unit_test(test_help_paragraphs),
		cmocka_unit_test(test_report_wraps),
		cmocka_unit_test(test_ops_table),
	};
	return cmocka_run_group_tests(tests, screen_up, screen_down);
}
