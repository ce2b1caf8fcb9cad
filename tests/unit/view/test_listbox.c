/* Unit tests: listbox, the cursor and scrolling every list of the full
 * screen shares. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "view/listbox.h"

static void test_cursor_moves(void **state)
{
	(void)state;
	struct listbox l = {.n = 50, .cursor = 1};
	assert_false(listbox_move(&l, -1, 10)); /* at the top: nothing moves */
	assert_true(listbox_move(&l, 1, 10));
	assert_int_equal(l.cur, 1);
	listbox_move(&l, listbox_page(10), 10); /* a page: all rows but one */
	assert_int_equal(l.cur, 10);
	assert_int_equal(listbox_first(&l, 10), 1); /* the cursor in view, at the bottom */
	listbox_move(&l, LISTBOX_END, 10);
	assert_int_equal(l.cur, 49);
	assert_int_equal(listbox_first(&l, 10), 40);
	listbox_move(&l, -3, 10); /* up inside the page: the view stays */
	assert_int_equal(l.cur, 46);
	assert_int_equal(listbox_first(&l, 10), 40);
	listbox_move(&l, LISTBOX_HOME, 10);
	assert_int_equal(l.cur, 0);
	assert_int_equal(listbox_first(&l, 10), 0);
	assert_false(listbox_move(&l, 0, 10));
}

static void test_wrap(void **state)
{
	(void)state;
	struct listbox l = {.n = 4, .cursor = 1, .wrap = 1};
	listbox_move(&l, -1, 10);
	assert_int_equal(l.cur, 3);
	listbox_move(&l, 1, 10);
	assert_int_equal(l.cur, 0);
	listbox_move(&l, -listbox_page(10), 10); /* a page never wraps */
	assert_int_equal(l.cur, 0);
	struct listbox nowrap = {.n = 4, .cursor = 1};
	listbox_move(&nowrap, -1, 10);
	assert_int_equal(nowrap.cur, 0);
}

static void test_text_scroll(void **state)
{
	(void)state;
	struct listbox l = {.n = 30};
	assert_true(listbox_move(&l, 5, 10));
	assert_int_equal(listbox_first(&l, 10), 5);
	listbox_move(&l, 100, 10); /* never past the last page */
	assert_int_equal(listbox_first(&l, 10), 20);
	struct listbox small = {.n = 3};
	assert_false(listbox_move(&small, 1, 10)); /* all of it shown: nothing to scroll */
	assert_int_equal(listbox_first(&small, 10), 0);
}

static void test_follow(void **state)
{
	(void)state;
	struct listbox l = {.n = 30, .follow = 1, .at_end = 1};
	assert_int_equal(listbox_first(&l, 10), 20);
	listbox_count(&l, 40); /* new rows: the end stays in view */
	assert_int_equal(listbox_first(&l, 10), 30);
	listbox_move(&l, -4, 10);
	assert_false(l.at_end);
	listbox_count(&l, 50);
	assert_int_equal(listbox_first(&l, 10), 26); /* scrolled up: it stays */
	listbox_move(&l, LISTBOX_END, 10);
	assert_true(l.at_end);
	listbox_count(&l, 55);
	assert_int_equal(listbox_first(&l, 10), 45);
}

static void test_click_and_count(void **state)
{
	(void)state;
	struct listbox l = {.n = 50, .cur = 30, .cursor = 1};
	assert_int_equal(listbox_first(&l, 10), 21);
	assert_int_equal(listbox_click(&l, 10, 2), 23);
	assert_int_equal(l.cur, 23);
	assert_int_equal(listbox_click(&l, 10, 10), -1); /* below the rows shown */
	assert_int_equal(listbox_click(&l, 10, -1), -1);
	listbox_count(&l, 5); /* rows went: the cursor stays on one */
	assert_int_equal(l.cur, 4);
	assert_int_equal(listbox_click(&l, 10, 7), -1); /* a row with nothing on it */
	listbox_count(&l, 0);
	assert_int_equal(l.cur, 0);
	assert_false(listbox_move(&l, 1, 10));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cursor_moves), cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_text_scroll),  cmocka_unit_test(test_follow),
		cmocka_unit_test(test_click_and_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
