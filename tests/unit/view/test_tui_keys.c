/* Unit tests: the full screen's key handling that needs no terminal
 * (view/tui_keys.c): typing the / filter (printable characters kept,
 * Backspace takes one back, Enter keeps the filter, Esc clears it, a
 * full filter takes no more, control characters are never kept), and
 * which panel each mode's keys go to. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "view/tuiview.h"

static void type(struct tui *t, const char *keys)
{
	for (const char *k = keys; *k; k++) {
		struct reply r = {0};
		tui_filter_key(t, (unsigned char)*k, &r);
		assert_true(r.react & REACT_REDRAW);
	}
}

static void key(struct tui *t, int ch)
{
	struct reply r = {0};
	tui_filter_key(t, ch, &r);
}

static void test_filter_typing(void **state)
{
	(void)state;
	struct tui *t = calloc(1, sizeof *t);
	assert_non_null(t);
	t->filtering = 1;
	type(t, "dpkgx");
	key(t, KEY_BACKSPACE);
	assert_string_equal(t->pp.filter, "dpkg");
	key(t, 7);    /* BEL: a control character, not kept */
	key(t, 0x9b); /* a C1 byte: not kept */
	assert_string_equal(t->pp.filter, "dpkg");
	key(t, '\n');
	assert_int_equal(t->filtering, 0);
	assert_string_equal(t->pp.filter, "dpkg"); /* Enter keeps it */
	t->filtering = 1;
	key(t, 127);
	key(t, ESC);
	assert_int_equal(t->filtering, 0);
	assert_string_equal(t->pp.filter, ""); /* Esc clears it */
	t->filtering = 1;
	for (size_t i = 0; i < 2 * sizeof t->pp.filter; i++)
		key(t, 'a');
	assert_int_equal(strlen(t->pp.filter), sizeof t->pp.filter - 1); /* full: no more, still a string */
	free(t);
}

static void test_panel_of(void **state)
{
	(void)state;
	assert_ptr_equal(tui_panel_of(KM_PICKER), &panel_picker);
	assert_ptr_equal(tui_panel_of(KM_TUNABLES), &panel_tunables);
	assert_ptr_equal(tui_panel_of(KM_LOG), &panel_log);
	assert_ptr_equal(tui_panel_of(KM_UDEV), &panel_udev);
	assert_ptr_equal(tui_panel_of(KM_IOPRIO), &panel_ioprio);
	assert_ptr_equal(tui_panel_of(KM_REPORT), &panel_report);
	assert_ptr_equal(tui_panel_of(KM_DETAIL), &panel_detail);
	assert_null(tui_panel_of(KM_MAIN)); /* the main screen is no panel */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_typing),
		cmocka_unit_test(test_panel_of),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
