/* Unit tests: the configuration file — its line syntax and line numbers
 * in errors, ownership, the atomic save that keeps other lines, and the
 * options it feeds (the command line wins). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "config/options.h"

static char dir[64];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void lines_and_errors(void **state)
{
	(void)state;
	char path[128], err[512];
	snprintf(path, sizeof path, "%s/c1", dir);
	write_file(path, "# comment\n\ntheme stream\n--delay = 0.5   # trailing\nno-mouse\n");
	struct config_file f;
	assert_int_equal(config_read(path, 1, getuid(), getgid(), &f, err, sizeof err), 0);
	assert_int_equal(f.n, 3);
	assert_string_equal(f.e[0].name, "theme");
	assert_string_equal(f.e[0].value, "stream");
	assert_int_equal(f.e[0].line, 3);
	assert_string_equal(f.e[1].name, "delay");
	assert_string_equal(f.e[1].value, "0.5");
	assert_int_equal(f.e[1].line, 4);
	assert_false(f.e[2].has_value);
	config_free(&f);
	/* Missing: fine unless it must exist. */
	snprintf(path, sizeof path, "%s/none", dir);
	assert_int_equal(config_read(path, 0, getuid(), getgid(), &f, err, sizeof err), 0);
	assert_int_equal(f.n, 0);
	assert_int_equal(config_read(path, 1, getuid(), getgid(), &f, err, sizeof err), -1);
	assert_non_null(strstr(err, "No such file"));
	/* Owned by someone else: refused (a uid that is not ours nor root). */
	snprintf(path, sizeof path, "%s/c1", dir);
	if (getuid() == 0) {
		assert_int_equal(chown(path, 4242, 4242), 0);
		assert_int_equal(config_read(path, 1, 0, 0, &f, err, sizeof err), -1);
		assert_non_null(strstr(err, "owned by uid 4242"));
	}
}

static void save_keeps_other_lines(void **state)
{
	(void)state;
	char path[128], err[512];
	snprintf(path, sizeof path, "%s/sub/dir/config", dir);
	const char *k1[] = {"theme", "delay"}, *v1[] = {"light", "2"};
	assert_int_equal(config_save(path, k1, v1, 2, getuid(), getgid(), err, sizeof err), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* A line of the user's own, then a save of theme only: the rest stays. */
	FILE *f = fopen(path, "a");
	fputs("no-mouse\n", f);
	fclose(f);
	const char *k2[] = {"theme"}, *v2[] = {"stream"};
	assert_int_equal(config_save(path, k2, v2, 1, getuid(), getgid(), err, sizeof err), 0);
	struct config_file c;
	assert_int_equal(config_read(path, 1, getuid(), getgid(), &c, err, sizeof err), 0);
	assert_int_equal(c.n, 3);
	assert_string_equal(c.e[0].name, "delay");
	assert_string_equal(c.e[1].name, "no-mouse");
	assert_string_equal(c.e[2].name, "theme");
	assert_string_equal(c.e[2].value, "stream");
	config_free(&c);
}

static void options_from_the_file(void **state)
{
	(void)state;
	char path[128], err[512];
	snprintf(path, sizeof path, "%s/opts", dir);
	write_file(path, "theme stream\ndelay 2\nsort write/s\n");
	struct options o;
	char *argv1[] = {"iosched-top", "--config", path, NULL};
	assert_int_equal(options_parse(3, argv1, &o, err, sizeof err), 0);
	assert_string_equal(o.theme, "stream");
	assert_true(o.delay_s == 2);
	assert_string_equal(o.sort, "write/s");
	options_free(&o);
	/* The command line wins, also over a file option given once. */
	char *argv2[] = {"iosched-top", "--config", path, "--theme", "light", "-d", "0.5", NULL};
	assert_int_equal(options_parse(7, argv2, &o, err, sizeof err), 0);
	assert_string_equal(o.theme, "light");
	assert_true(o.delay_s == 0.5);
	options_free(&o);
	/* Errors name the file and line. */
	write_file(path, "theme stream\n\nsort nosuch\n");
	assert_int_equal(options_parse(3, argv1, &o, err, sizeof err), -1);
	assert_non_null(strstr(err, ":3: --sort: 'nosuch' is not a column"));
	options_free(&o);
	write_file(path, "bogus 1\n");
	assert_int_equal(options_parse(3, argv1, &o, err, sizeof err), -1);
	assert_non_null(strstr(err, ":1: 'bogus' is not an option"));
	options_free(&o);
	write_file(path, "delay\n");
	assert_int_equal(options_parse(3, argv1, &o, err, sizeof err), -1);
	assert_non_null(strstr(err, ":1: delay needs a value"));
	options_free(&o);
	write_file(path, "delay 1\ntheme mono\ndelay 2\n");
	assert_int_equal(options_parse(3, argv1, &o, err, sizeof err), -1);
	assert_non_null(strstr(err, ":3: delay is set twice in this file"));
	options_free(&o);
	/* A theme in the file does not stop a batch run (only one on the
	 * command line would: it could do nothing there). */
	write_file(path, "theme stream\nbig\n");
	char *argv4[] = {"iosched-top", "--config", path, "-b", NULL};
	assert_int_equal(options_parse(4, argv4, &o, err, sizeof err), 0);
	options_free(&o);
	char *argv3[] = {"iosched-top", "--config", path, "--no-config", NULL};
	assert_int_equal(options_parse(4, argv3, &o, err, sizeof err), -1);
	assert_non_null(strstr(err, "conflict"));
	options_free(&o);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/iosched-config-test.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_and_errors),
		cmocka_unit_test(save_keeps_other_lines),
		cmocka_unit_test(options_from_the_file),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
