/* Unit tests: every file in themes/ loads without error and sets every
 * element; a broken theme is refused with FILE:LINE and what is wrong;
 * colours are mapped to the nearest a terminal has. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "view/theme.h"

static void every_theme_file_loads(void **state)
{
	(void)state;
	DIR *d = opendir(SRCDIR "/themes");
	assert_non_null(d);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (l < 7 || strcmp(e->d_name + l - 6, ".theme") != 0)
			continue;
		char path[512], err[512];
		snprintf(path, sizeof path, SRCDIR "/themes/%s", e->d_name);
		struct theme t;
		if (theme_load(path, &t, err, sizeof err) < 0)
			fail_msg("%s", err);
		for (int el = 0; el < TH_COUNT; el++)
			if (!t.el[el].set)
				fail_msg("%s does not set %s", e->d_name, theme_el_name((enum theme_el)el));
		n++;
	}
	closedir(d);
	/* The built-in list and the files agree. */
	assert_int_equal(n, THEME_NBUILTIN);
	for (int i = 0; i < THEME_NBUILTIN; i++) {
		char path[512], err[512];
		struct theme t;
		snprintf(path, sizeof path, SRCDIR "/themes/%s.theme", theme_builtin[i]);
		if (theme_load(path, &t, err, sizeof err) < 0)
			fail_msg("built-in %s: %s", theme_builtin[i], err);
		assert_string_equal(t.name, theme_builtin[i]);
	}
}

static void mono_has_no_colour(void **state)
{
	(void)state;
	struct theme t;
	char err[512];
	assert_int_equal(theme_load(SRCDIR "/themes/mono.theme", &t, err, sizeof err), 0);
	assert_true(t.mono);
	for (int el = 0; el < TH_COUNT; el++) {
		assert_int_equal(t.el[el].fg.index, -1);
		assert_int_equal(t.el[el].bg.index, -1);
		assert_int_equal(t.el[el].fg.rgb, -1);
	}
}

static void broken_themes_say_where(void **state)
{
	(void)state;
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"# ok\ntitle = red default\nchart_p5 = red default\n", "x.theme:3: unknown element 'chart_p5'"},
		{"title = redd default\n", "x.theme:1: title: 'redd' is not a colour"},
		{"title = 300 default\n", "x.theme:1: title: '300' is not a colour"},
		{"\n\ntitle red default\n", "x.theme:3: expected 'element = fg bg [attrs]'"},
		{"title = red default blink\n", "x.theme:1: title: unknown attribute in 'blink'"},
		{"title = red\n", "x.theme:1: title: give a foreground and a background colour"},
		{"title = red blue bold extra\n", "x.theme:1: too many words"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct theme t;
		char err[512];
		assert_int_equal(theme_parse(bad[i].text, "x.theme", &t, err, sizeof err), -1);
		if (!strstr(err, bad[i].msg))
			fail_msg("got '%s', want '%s'", err, bad[i].msg);
	}
	struct theme t;
	char err[512];
	assert_int_equal(theme_parse("title = #ff8000 default bold,underline # comment\n", "x", &t, err, sizeof err), 0);
	assert_int_equal(t.el[TH_TITLE].fg.rgb, 0xff8000);
	assert_int_equal(t.el[TH_TITLE].attrs, THEME_ATTR_BOLD | THEME_ATTR_UNDERLINE);
	/* Elements a file leaves out keep the defaults. */
	assert_int_equal(t.el[TH_SELECTED].attrs, THEME_ATTR_REVERSE | THEME_ATTR_BOLD);
	assert_int_equal(theme_load("no-such-theme", &t, err, sizeof err), -1);
	assert_non_null(strstr(err, "theme 'no-such-theme'"));
}

static void nearest_colours(void **state)
{
	(void)state;
	/* Orange: 208 on 256 colours, yellow (3) or red (1) on 8. */
	assert_int_equal(theme_nearest(0xff8700, 256), 208);
	int n8 = theme_nearest(0xff8700, 8);
	assert_true(n8 == 3 || n8 == 1);
	assert_int_equal(theme_nearest(0x000000, 8), 0);
	assert_int_equal(theme_nearest(0xffffff, 16), 15);
	/* Okabe-Ito blue is nearer xterm's cyan than its bright blue. */
	assert_int_equal(theme_nearest(0x0072b2, 8), 6);
	assert_int_equal(theme_nearest(0x0072b2, 256), 25);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_theme_file_loads),
		cmocka_unit_test(mono_has_no_colour),
		cmocka_unit_test(broken_themes_say_where),
		cmocka_unit_test(nearest_colours),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
