/* promlabel: the comm label of --prometheus-textfile's process series.
 * Kernel workers carry their current work item in their name, so each
 * would make series that come and go; they share one label. A process
 * cannot pass itself off as one (only kthreadd's children count), and
 * the "other" bucket keeps its meaning. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "out/prom.h"

static const char *key_of(const char *comm, int ppid)
{
	static char key[64];
	prom_comm_key(key, sizeof key, comm, ppid);
	return key;
}

static void test_kernel_workers_share_a_label(void **state)
{
	(void)state;
	assert_string_equal(key_of("kworker/u8:0-ext4-rsv-conversion", 2), "kworker");
	assert_string_equal(key_of("kworker/1:2-events", 2), "kworker");
	assert_string_equal(key_of("kworker/u8:3", 2), "kworker");
	/* other kernel threads keep their names: they are stable */
	assert_string_equal(key_of("jbd2/vda1-8", 2), "jbd2/vda1-8");
}

static void test_a_process_is_no_kernel_worker(void **state)
{
	(void)state;
	/* prctl(PR_SET_NAME) can name any process so */
	assert_string_equal(key_of("kworker/u8:0-x", 1234), "kworker/u8:0-x");
}

static void test_other_and_escapes(void **state)
{
	(void)state;
	assert_string_equal(key_of("other", 1234), PROM_OTHER_PROCESS);
	assert_string_equal(key_of("a\033b", 1234), "a^[b"); /* as the screen shows it */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_workers_share_a_label),
		cmocka_unit_test(test_a_process_is_no_kernel_worker),
		cmocka_unit_test(test_other_and_escapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
