/* Unit tests: the comment lines --print-udev-rule prints with a rule stay
 * one line each whatever the disk's model, a rules file's name or its
 * text hold (a newline in a model would add a rule line of its own to the
 * rules file the output is redirected into; an escape would reach the
 * terminal). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "act/udevrule.h"
#include "base/util.h"

/* One line, no control character, and it still says what it is about. */
static void one_clean_line(const char *line, const char *says)
{
	for (const unsigned char *c = (const unsigned char *)line; *c; c++)
		if (*c < 32 || *c == 127)
			fail_msg("control character 0x%02x in '%s'", *c, line);
	if (!strstr(line, says))
		fail_msg("'%s' does not say '%s'", line, says);
}

static void test_heading_escaped(void **state)
{
	(void)state;
	char line[2048];
	udevrule_heading("sda", "EVIL\nACTION==\"add\", RUN+=\"/bin/sh -c id\"", line, sizeof line);
	one_clean_line(line, "# sda (EVIL");
	assert_non_null(strstr(line, "RUN+=")); /* kept, as text, in the comment */
	udevrule_heading("sdb", "Samsung SSD 870\x1b]0;x\a", line, sizeof line);
	one_clean_line(line, "# sdb (Samsung SSD 870");
	udevrule_heading("vda", "virtio", line, sizeof line);
	assert_string_equal(line, "# vda (virtio)");
}

static void test_found_escaped(void **state)
{
	(void)state;
	struct udevrule_found x = {.line = 7};
	util_strlcpy(x.file, "/etc/udev/rules.d/60-a\nb.rules", sizeof x.file);
	util_strlcpy(x.text, "ACTION==\"add\", ATTR{queue/scheduler}=\"bfq\"\r\x1b[2J", sizeof x.text);
	char line[2048];
	udevrule_found_line(&x, line, sizeof line);
	one_clean_line(line, "#   already set by /etc/udev/rules.d/60-a");
	assert_non_null(strstr(line, ":7: ACTION==\"add\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heading_escaped),
		cmocka_unit_test(test_found_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
