/* Unit tests: a cgroup's bfq weight (TUNE_BFQ_WEIGHT) through control
 * and its worker, on a fake cgroup v2 tree — a directory holding
 * UNIT/io.bfq.weight files as the kernel shows them ("default 100", then
 * per-device lines) and a writer that acts as bfq does (bfq_io_set_weight:
 * "N" or "default N", 1 to 1000, the device lines kept). Checked: the
 * checks before a change (no file, values out of range, paths the kernel
 * would not give), the write and its read-back, the event, undo, a
 * restore, the exit report and its revert line run by sh. No root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "act/controlparts.h"
#include "act/tunecg.h"
#include "base/util.h"
#include "read/cgroup.h"

/* A unit's name with what a shell would take for something else: the
 * revert line must quote it. */
#define ODD "test.slice/we$ird `x` \\x2dname.service"

struct fake {
	char root[PATH_MAX]; /* stands for the v2 mount */
	struct tune_sysfs sysfs;
	int writes;
	int clamp;           /* the write is taken, the weight stays */
	struct control ctl;
};

static int unlink_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static void path_of(const struct fake *f, const char *unit, char *buf, size_t len)
{
	util_fmt(buf, len, "%s/%s/io.bfq.weight", f->root, unit);
}

/* The weight file's whole text. */
static const char *text_of(const struct fake *f, const char *unit)
{
	static char buf[512];
	char path[PATH_MAX];
	path_of(f, unit, path, sizeof path);
	if (util_read_text(path, buf, sizeof buf) < 0)
		return "";
	return buf;
}

/* On the worker thread: no assertions, errors returned as bfq does. */
static int fake_write(const struct tune_sysfs *s, const char *path, const char *value)
{
	struct fake *f = s->ctx;
	char old[512], *dev;
	long w;
	char *end;
	f->writes++;
	if (f->clamp)
		return 0;
	if (util_read_text(path, old, sizeof old) < 0)
		return -ENOENT;
	const char *v = strncmp(value, "default ", 8) ? value : value + 8;
	errno = 0;
	w = strtol(v, &end, 10);
	if (errno || end == v || (*end && *end != '\n'))
		return -EINVAL;
	if (w < 1 || w > 1000)
		return -ERANGE;
	dev = strchr(old, '\n');
	FILE *o = fopen(path, "w");
	if (!o)
		return -errno;
	fprintf(o, "default %ld\n%s", w, dev ? dev + 1 : "");
	return fclose(o) == 0 ? 0 : -EIO;
}

static void make_unit(struct fake *f, const char *unit, const char *text)
{
	char dir[PATH_MAX], rel[PATH_MAX], *p;
	util_strlcpy(rel, unit, sizeof rel);
	for (p = rel; (p = strchr(p, '/')); *p++ = '/') {
		*p = '\0';
		util_fmt(dir, sizeof dir, "%s/%s", f->root, rel);
		mkdir(dir, 0755);
	}
	util_fmt(dir, sizeof dir, "%s/%s", f->root, unit);
	assert_int_equal(mkdir(dir, 0755), 0);
	if (text) {
		path_of(f, unit, dir, sizeof dir);
		FILE *o = fopen(dir, "w");
		assert_non_null(o);
		fputs(text, o);
		assert_int_equal(fclose(o), 0);
	}
}

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof *f);
	assert_non_null(f);
	const char *tmp = getenv("IOSCHED_TEST_TMP") ? getenv("IOSCHED_TEST_TMP") : getenv("TMPDIR");
	snprintf(f->root, sizeof f->root, "%s/iosched-tunecg-test.XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(f->root));
	make_unit(f, "test.slice/writer.service", "default 100\n8:0 300\n");
	make_unit(f, ODD, "default 100\n");
	make_unit(f, "test.slice/nobfq.service", NULL);
	f->sysfs = (struct tune_sysfs){.cgroot = f->root, .write = fake_write, .ctx = f};
	assert_int_equal(control_init(&f->ctl, &f->sysfs), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;
	FILE *sink = fopen("/dev/null", "w");
	control_finish(&f->ctl, 0, 1.0, sink);
	fclose(sink);
	nftw(f->root, unlink_one, 8, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

static void settle(struct fake *f)
{
	struct timespec ts = {0, 10 * 1000000L};
	for (int i = 0; i < 500 && !worker_idle(f->ctl.w); i++)
		nanosleep(&ts, NULL);
	assert_true(worker_idle(f->ctl.w));
	control_poll(&f->ctl);
}

/* Ask for unit's weight; 0 queued (and done), -1 refused with msg. */
static int set(struct fake *f, const char *unit, const char *value, char *msg, size_t len)
{
	struct tune_req r;
	tune_req_bfq_weight(&r, unit, value);
	int rc = control_request(&f->ctl, &r, msg, len);
	settle(f);
	return rc;
}

static int weight_of(const struct fake *f, const char *unit)
{
	return cgroup_parse_weight(text_of(f, unit));
}

static void test_write_reads_back_and_logs(void **state)
{
	struct fake *f = *state;
	char msg[256];
	assert_int_equal(set(f, "test.slice/writer.service", "200", msg, sizeof msg), 0);
	assert_true(f->ctl.last_ok);
	/* The default changed, the device's own line kept. */
	assert_string_equal(text_of(f, "test.slice/writer.service"), "default 200\n8:0 300\n");
	assert_non_null(strstr(f->ctl.last, "test.slice/writer.service: io.bfq.weight 100 -> 200"));
	struct event ev[8];
	assert_int_equal(control_take_events(&f->ctl, ev, 8), 1);
	assert_int_equal(ev[0].type, EV_BFQ_WEIGHT);
	assert_string_equal(event_type_name(ev[0].type), "bfq_weight");
	assert_string_equal(ev[0].key, "io.bfq.weight writer.service");
	assert_string_equal(ev[0].from, "100");
	assert_string_equal(ev[0].to, "200");
	assert_true(ev[0].ok);
	assert_int_equal(f->ctl.undo.n, 1);
}

static void test_undo_puts_the_old_weight_back(void **state)
{
	struct fake *f = *state;
	char msg[256];
	assert_int_equal(set(f, "test.slice/writer.service", "300", msg, sizeof msg), 0);
	assert_int_equal(set(f, "test.slice/writer.service", "50", msg, sizeof msg), 0);
	assert_int_equal(weight_of(f, "test.slice/writer.service"), 50);
	assert_int_equal(control_undo(&f->ctl, msg, sizeof msg), 0);
	settle(f);
	assert_int_equal(weight_of(f, "test.slice/writer.service"), 300);
	assert_int_equal(control_undo(&f->ctl, msg, sizeof msg), 0);
	settle(f);
	assert_string_equal(text_of(f, "test.slice/writer.service"), "default 100\n8:0 300\n");
	assert_int_equal(f->ctl.undo.n, 0);
}

/* --restore: every unit back to its weight before the run, the oldest
 * value of each (not one in between). */
static void test_restore_at_exit(void **state)
{
	struct fake *f = *state;
	char msg[256], out[4096];
	assert_int_equal(set(f, "test.slice/writer.service", "300", msg, sizeof msg), 0);
	assert_int_equal(set(f, ODD, "700", msg, sizeof msg), 0);
	assert_int_equal(set(f, "test.slice/writer.service", "20", msg, sizeof msg), 0);
	FILE *o = fmemopen(out, sizeof out, "w");
	assert_int_equal(control_finish(&f->ctl, 1, 5.0, o), 0);
	fclose(o);
	assert_int_equal(control_init(&f->ctl, &f->sysfs), 0);
	assert_int_equal(weight_of(f, "test.slice/writer.service"), 100);
	assert_int_equal(weight_of(f, ODD), 100);
	assert_non_null(strstr(out, "restored 3 change(s), all settings are as they were"));
}

/* The restore an A/B's end makes (control_restore_to): each unit back
 * to its oldest value, once; two units of one name in different slices
 * are two settings. */
static void test_restore_to_oldest(void **state)
{
	struct fake *f = *state;
	char msg[256];
	make_unit(f, "a.slice/same.service", "default 100\n");
	make_unit(f, "b.slice/same.service", "default 200\n");
	assert_int_equal(set(f, "a.slice/same.service", "300", msg, sizeof msg), 0);
	assert_int_equal(set(f, "b.slice/same.service", "700", msg, sizeof msg), 0);
	assert_int_equal(set(f, "a.slice/same.service", "20", msg, sizeof msg), 0);
	f->writes = 0;
	assert_int_equal(control_restore_to(&f->ctl, 0), 2);
	settle(f);
	assert_int_equal(f->writes, 2);
	assert_int_equal(weight_of(f, "a.slice/same.service"), 100);
	assert_int_equal(weight_of(f, "b.slice/same.service"), 200);
	assert_int_equal(f->ctl.undo.n, 0);
}

/* Without --restore: listed, and the revert line, run by sh, puts both
 * back (the odd name quoted). Root's own login gets no sudo before it
 * (sudo may not be there); one who came through sudo does. */
static void test_revert_line_runs(void **state)
{
	struct fake *f = *state;
	char msg[256], out[8192], cmd[PATH_MAX];
	const char *was = getenv("SUDO_USER");
	char keep[64];
	util_strlcpy(keep, was ? was : "", sizeof keep);
	setenv("SUDO_USER", "alice", 1);
	assert_int_equal(set(f, "test.slice/writer.service", "250", msg, sizeof msg), 0);
	FILE *o = fmemopen(out, sizeof out, "w");
	assert_int_equal(control_finish(&f->ctl, 0, 1.0, o), 0);
	fclose(o);
	assert_int_equal(control_init(&f->ctl, &f->sysfs), 0);
	const char *first = strstr(out, "to revert: sudo sh -c '");
	assert_non_null(first);
	util_fmt(cmd, sizeof cmd, "%.*s", (int)(strchr(first, '\n') - first - strlen("to revert: sudo ")),
		 first + strlen("to revert: sudo "));
	assert_int_equal(system(cmd), 0); /* back to 100 for what follows */
	unsetenv("SUDO_USER");
	assert_int_equal(set(f, "test.slice/writer.service", "250", msg, sizeof msg), 0);
	assert_int_equal(set(f, ODD, "900", msg, sizeof msg), 0);
	o = fmemopen(out, sizeof out, "w");
	assert_int_equal(control_finish(&f->ctl, 0, 1.0, o), 0);
	fclose(o);
	if (was)
		setenv("SUDO_USER", keep, 1);
	assert_int_equal(control_init(&f->ctl, &f->sysfs), 0);
	assert_non_null(strstr(out, "  cgroup test.slice/writer.service io.bfq.weight: 100 -> 250\n"));
	const char *line = strstr(out, "to revert: sh -c '");
	assert_non_null(line);
	line += strlen("to revert: ");
	const char *end = strchr(line, '\n');
	assert_non_null(end);
	/* The line as a user would paste it, without sudo (the files are ours). */
	util_fmt(cmd, sizeof cmd, "%.*s", (int)(end - line), line);
	assert_int_equal(system(cmd), 0);
	/* Written as the shell writes: "100\n" over the file (no kernel here). */
	assert_int_equal(weight_of(f, "test.slice/writer.service"), 100);
	assert_int_equal(weight_of(f, ODD), 100);
}

/* The exit report names processes and cgroups, anyone's text: none of
 * it reaches root's terminal raw (an entry the kernel could never give a
 * path like this, put in the log directly). */
static void test_exit_report_escaped(void **state)
{
	struct fake *f = *state;
	char out[8192] = "";
	struct tune_req r;
	struct event ev = {.ok = 1, .ts = 1};
	util_strlcpy(ev.from, "be/4", sizeof ev.from);
	tune_req_ioprio(&r, getpid(), 0, "zz\x1b]0;PWN\a\x1b[31m", "be/1"); /* a live process: listed as such */
	assert_int_equal(undo_push(&f->ctl.undo, &r, &ev), 0);
	util_strlcpy(ev.from, "100", sizeof ev.from);
	tune_req_bfq_weight(&r, "u.slice/a\xc2\x9b" "31m\xe2\x80\xae" "b.service", "555");
	assert_int_equal(undo_push(&f->ctl.undo, &r, &ev), 0);
	FILE *o = fmemopen(out, sizeof out - 1, "w");
	control_finish(&f->ctl, 0, 1.0, o);
	fclose(o);
	assert_int_equal(control_init(&f->ctl, &f->sysfs), 0);
	assert_null(strchr(out, '\x1b'));
	assert_null(strchr(out, '\a'));
	assert_null(strstr(out, "\xc2\x9b"));
	assert_null(strstr(out, "\xe2\x80\xae"));
	char want[128];
	util_fmt(want, sizeof want, "pid %d (zz^[]0;PWN^G^[[31m) I/O priority: be/4 -> be/1\n", (int)getpid());
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "cgroup u.slice/a\\x9b31m\\u202eb.service io.bfq.weight: 100 -> 555\n"));
	assert_non_null(strstr(out, "to revert: "));
}

static void expect_refused(struct fake *f, const char *unit, const char *value, const char *says)
{
	char msg[256] = "";
	assert_int_equal(set(f, unit, value, msg, sizeof msg), -1);
	if (!strstr(msg, says))
		fail_msg("'%s' for %s: expected a message with '%s', got '%s'", value, unit, says, msg);
}

static void test_refusals_say_why(void **state)
{
	struct fake *f = *state;
	static const char *bad[] = {"0", "1001", "-5", "abc", "", "100x", " 100", "99999999999999999999"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_refused(f, "test.slice/writer.service", bad[i], "give a whole number from 1 to 1000");
	expect_refused(f, "test.slice/nobfq.service", "200", "nobfq.service has no io.bfq.weight (bfq is not loaded");
	expect_refused(f, "test.slice/gone.service", "200", "gone.service has no io.bfq.weight");
	/* ... and what a terminal would act on or hide: C1 (CSI), a bidi
	 * override, a zero-width space, bytes that are not UTF-8 */
	static const char *paths[] = {"", "/", "test.slice/../../etc", "test.slice//x", "./x", "x/", "a'b", "a\nb",
				      "a\xc2\x9b" "31mb", "a\xe2\x80\xae" "b", "a\xe2\x80\x8b" "b", "a\xff" "b"};
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
		expect_refused(f, paths[i], "200", "is not one the kernel gives");
	assert_int_equal(f->writes, 0);
	assert_int_equal(f->ctl.undo.n, 0);
	/* The limits themselves are taken. */
	char msg[256];
	assert_int_equal(set(f, "test.slice/writer.service", "1", msg, sizeof msg), 0);
	assert_int_equal(set(f, "test.slice/writer.service", "1000", msg, sizeof msg), 0);
	assert_int_equal(weight_of(f, "test.slice/writer.service"), 1000);
}

/* The plain write (no fake: open, O_TRUNC, write, as on cgroupfs), read
 * back, and undone the same way. */
static void test_real_write(void **state)
{
	struct fake *f = *state;
	char msg[256];
	f->sysfs.write = NULL;
	assert_int_equal(set(f, "test.slice/writer.service", "200", msg, sizeof msg), 0);
	assert_true(f->ctl.last_ok);
	assert_string_equal(text_of(f, "test.slice/writer.service"), "200");
	assert_int_equal(control_undo(&f->ctl, msg, sizeof msg), 0);
	settle(f);
	assert_true(f->ctl.last_ok);
	assert_string_equal(text_of(f, "test.slice/writer.service"), "100");
}

/* A write the kernel takes but then shows another value (read back): a
 * failed event that says both, nothing in the undo log. */
static void test_read_back_differs(void **state)
{
	struct fake *f = *state;
	char msg[256];
	f->clamp = 1;
	assert_int_equal(set(f, "test.slice/writer.service", "200", msg, sizeof msg), 0);
	assert_false(f->ctl.last_ok);
	assert_non_null(strstr(f->ctl.last, "io.bfq.weight of test.slice/writer.service: wrote 200, it reads 100"));
	assert_int_equal(f->ctl.undo.n, 0);
}

/* A tree with a symbolic link in the middle (cgroupfs never has one; a
 * tree that does is not the kernel's): the weight behind it is neither
 * checked nor written, by the checks before a change or by the write
 * itself (tunecg_apply, as the worker calls it after a check that a swap
 * could have come after). */
static void test_link_in_tree(void **state)
{
	struct fake *f = *state;
	char link[PATH_MAX + 16];
	f->sysfs.write = NULL;
	make_unit(f, "elsewhere.slice/victim.service", "default 100\n");
	util_fmt(link, sizeof link, "%s/linked.slice", f->root);
	assert_int_equal(symlink("elsewhere.slice", link), 0);
	expect_refused(f, "linked.slice/victim.service", "500", "symbolic link");
	struct tune_req r;
	tune_req_bfq_weight(&r, "linked.slice/victim.service", "500");
	r.sysfs = &f->sysfs;
	struct event ev = {0};
	assert_int_equal(tunecg_apply(&r, &ev), -ELOOP);
	assert_false(ev.ok);
	assert_non_null(strstr(ev.error, "symbolic link"));
	assert_string_equal(text_of(f, "elsewhere.slice/victim.service"), "default 100\n");
	assert_int_equal(f->ctl.undo.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_reads_back_and_logs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undo_puts_the_old_weight_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_at_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_to_oldest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_line_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals_say_why, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit_report_escaped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_back_differs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_in_tree, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
