/* Unit tests: which disks came and went between two enumerations, and how
 * every view words events (event_describe). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/event.h"
#include "read/hotplug.h"
#include "base/util.h"

static struct disk_info disk(const char *name, uint64_t size)
{
	struct disk_info d;
	memset(&d, 0, sizeof d);
	util_strlcpy(d.name, name, sizeof d.name);
	d.size_bytes = size;
	return d;
}

static void test_diff_added_removed(void **state)
{
	(void)state;
	struct disk_info old[] = {disk("loop0", 1 << 20), disk("loop1", 1 << 20), disk("vda", 1u << 30)};
	struct disk_info cur[] = {disk("loop0", 1 << 20), disk("loop2", 1 << 20), disk("vda", 1u << 30)};
	struct hotplug_change ch[4];
	size_t n = hotplug_diff(old, 3, cur, 3, ch, 4);
	assert_int_equal(n, 2);
	assert_string_equal(ch[0].name, "loop1");
	assert_int_equal(ch[0].added, 0);
	assert_string_equal(ch[1].name, "loop2");
	assert_int_equal(ch[1].added, 1);
	/* Same lists: nothing. */
	assert_int_equal(hotplug_diff(old, 3, old, 3, ch, 4), 0);
	/* From nothing: everything is new. */
	assert_int_equal(hotplug_diff(NULL, 0, cur, 3, ch, 4), 3);
}

/* A loop device attached to another file of another size between two
 * looks is a new disk: removed and added. */
static void test_diff_resized_is_new(void **state)
{
	(void)state;
	struct disk_info old[] = {disk("loop0", 1 << 20)};
	struct disk_info cur[] = {disk("loop0", 2 << 20)};
	struct hotplug_change ch[4];
	assert_int_equal(hotplug_diff(old, 1, cur, 1, ch, 4), 2);
	assert_int_equal(ch[0].added, 0);
	assert_int_equal(ch[1].added, 1);
}

/* More changes than room: the count says so, nothing is overrun. */
static void test_diff_bounded(void **state)
{
	(void)state;
	struct disk_info cur[] = {disk("a", 1), disk("b", 1), disk("c", 1)};
	struct hotplug_change ch[2];
	memset(ch, 0x55, sizeof ch);
	assert_int_equal(hotplug_diff(NULL, 0, cur, 3, ch, 1), 3);
	assert_string_equal(ch[0].name, "a");
	assert_int_equal((unsigned char)ch[1].name[0], 0x55);
}

static void test_describe(void **state)
{
	(void)state;
	struct event e;
	char buf[200];
	memset(&e, 0, sizeof e);
	e.ok = 1;
	e.type = EV_DISK;
	util_strlcpy(e.from, "absent", sizeof e.from);
	util_strlcpy(e.to, "present", sizeof e.to);
	event_describe(&e, buf, sizeof buf);
	assert_string_equal(buf, "disk added");
	util_strlcpy(e.from, "present", sizeof e.from);
	util_strlcpy(e.to, "absent", sizeof e.to);
	event_describe(&e, buf, sizeof buf);
	assert_string_equal(buf, "disk removed");
	e.type = EV_SCHEDULER;
	util_strlcpy(e.key, "scheduler", sizeof e.key);
	util_strlcpy(e.from, "none", sizeof e.from);
	util_strlcpy(e.to, "bfq", sizeof e.to);
	e.ms = 12.34;
	event_describe(&e, buf, sizeof buf);
	assert_string_equal(buf, "scheduler none -> bfq in 12.3 ms");
	e.ok = 0;
	e.type = EV_PROBE;
	util_strlcpy(e.error, "disk gone; probe stopped", sizeof e.error);
	event_describe(&e, buf, sizeof buf);
	assert_string_equal(buf, "probe: disk gone; probe stopped");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_added_removed),
		cmocka_unit_test(test_diff_resized_is_new),
		cmocka_unit_test(test_diff_bounded),
		cmocka_unit_test(test_describe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
