/* Unit tests: event types — every type has a name, the name reads back as
 * the type, an unknown name is refused, and the man page's JSON section
 * lists every type ("type": "NAME"), so a new type cannot go undocumented. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/event.h"

static void test_names_round_trip(void **state)
{
	(void)state;
	for (int t = 0; t < EV_NTYPES; t++) {
		const char *n = event_type_name((enum event_type)t);
		assert_string_not_equal(n, "?");
		enum event_type back = EV_NTYPES;
		assert_int_equal(event_type_parse(n, &back), 0);
		assert_int_equal(back, t);
		for (int u = 0; u < t; u++)
			assert_string_not_equal(n, event_type_name((enum event_type)u));
	}
	enum event_type x;
	assert_int_equal(event_type_parse("schedule", &x), -1);
	assert_int_equal(event_type_parse("", &x), -1);
	assert_string_equal(event_type_name(EV_NTYPES), "?");
}

static void test_man_page_lists_every_type(void **state)
{
	(void)state;
	FILE *f = fopen(SRCDIR "/iosched-top.1", "r");
	assert_non_null(f);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = '\0';
	for (int t = 0; t < EV_NTYPES; t++) {
		char want[64];
		snprintf(want, sizeof want, "\"type\": \"%s\"", event_type_name((enum event_type)t));
		if (!strstr(text, want))
			fail_msg("the man page does not list the event type %s", event_type_name((enum event_type)t));
	}
}

static void test_describe(void **state)
{
	(void)state;
	struct event e = {.type = EV_SCHEDULER, .ok = 1, .ms = 12.5};
	strcpy(e.from, "none");
	strcpy(e.to, "bfq");
	char buf[200];
	event_describe(&e, buf, sizeof buf);
	assert_string_equal(buf, "scheduler none -> bfq in 12.5 ms");
	/* a change the tool made for a reason says it (an A/B's own switch away
	 * and back looked like a stray change) */
	strcpy(e.cause, "A/B phase 3: away first, so bfq starts afresh");
	event_describe(&e, buf, sizeof buf);
	assert_string_equal(buf, "scheduler none -> bfq in 12.5 ms (A/B phase 3: away first, so bfq starts afresh)");
	e.cause[0] = '\0';
	e.ok = 0;
	strcpy(e.error, "Invalid argument");
	event_describe(&e, buf, sizeof buf);
	assert_string_equal(buf, "scheduler: Invalid argument");
	struct event d = {.type = EV_DISK, .ok = 1};
	strcpy(d.to, "present");
	event_describe(&d, buf, sizeof buf);
	assert_string_equal(buf, "disk added");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_round_trip),
		cmocka_unit_test(test_man_page_lists_every_type),
		cmocka_unit_test(test_describe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
