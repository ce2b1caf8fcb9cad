/* Unit tests: a demo disk's configfs name carries its run's pid and pid
 * namespace, and only names of this namespace give a pid back, so a run
 * never takes another namespace's live disk (a container's) for one a
 * killed run left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "act/demodisk.h"

static void name_round_trip(void **state)
{
	(void)state;
	char name[40];
	demodisk_name(4194304, 0xeffffffful, name, sizeof name);
	assert_string_equal(name, "iosched-demo-4194304-efffffff");
	assert_true(strlen(name) <= 31); /* a disk name's limit */
	assert_int_equal(demodisk_name_pid(name, 0xeffffffful), 4194304);
	demodisk_name(1234, 0xf0000abcul, name, sizeof name);
	assert_int_equal(demodisk_name_pid(name, 0xf0000abcul), 1234);
}

static void others_not_ours(void **state)
{
	(void)state;
	const unsigned long ns = 0xf0000abcul;
	static const char *const names[] = {
		"iosched-demo-1234-f0000abd", /* another namespace's run */
		"iosched-demo-1234",          /* no namespace: whose cannot be told */
		"iosched-demo-1234-",         "iosched-demo--f0000abc", "iosched-demo-0-f0000abc",
		"iosched-demo-x-f0000abc",    "iosched-demo-12x-f0000abc", "iosched-demo-1234-f0000abcz",
		"labhdd",                     "nullb0", "iosched-demo-99999999999999999999-f0000abc",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (demodisk_name_pid(names[i], ns) != -1)
			fail_msg("'%s' was taken for this namespace's", names[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(name_round_trip),
		cmocka_unit_test(others_not_ours),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
