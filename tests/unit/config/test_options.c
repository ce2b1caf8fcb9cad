/* Unit tests: command-line parsing, the column fitting, and that the man
 * page documents every option and every key of the tables the code uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/columns.h"
#include "view/keys.h"
#include "config/options.h"
#include "base/util.h"

static int parse(struct options *o, char *err, size_t len, ...)
{
	char *argv[32] = {"iosched-top"};
	int argc = 1;
	va_list ap;
	va_start(ap, len);
	for (char *a; (a = va_arg(ap, char *)) != NULL && argc < 31;)
		argv[argc++] = a;
	va_end(ap);
	err[0] = '\0';
	return options_parse(argc, argv, o, err, len);
}

static void test_defaults(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	assert_int_equal(parse(&o, err, sizeof err, NULL), 0);
	assert_false(o.batch);
	assert_float_equal(o.delay_s, 1.0, 0);
	assert_int_equal(o.iterations, 0);
	assert_int_equal(o.ndisks, 0);
	options_free(&o);
}

static void test_valid(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	assert_int_equal(parse(&o, err, sizeof err, "-b", "-n", "3", "-d", "0.25", "--disk", "sda,nvme0n1",
			       "--disk", "loop0", NULL), 0);
	assert_true(o.batch);
	assert_int_equal(o.iterations, 3);
	assert_float_equal(o.delay_s, 0.25, 1e-12);
	assert_int_equal(o.ndisks, 3);
	assert_string_equal(o.disks[0], "sda");
	assert_string_equal(o.disks[1], "nvme0n1");
	assert_string_equal(o.disks[2], "loop0");
	options_free(&o);
	assert_int_equal(parse(&o, err, sizeof err, "--probe-rate", "max", "--probe-size", "8K", "--seed", "42",
			       "--probe", "sda,sdb", "--set", "sda=bfq", "--set", "sdb=none",
			       "--probe-file", "/var/tmp/p", "--probe-file-size", "64M", NULL), 0);
	assert_float_equal(o.probe_rate_hz, 0, 0);
	assert_int_equal(o.probe_size, 8192);
	assert_true(o.have_seed);
	assert_int_equal(o.seed, 42);
	assert_int_equal(o.nprobe_disks, 2);
	assert_int_equal(o.nsets, 2);
	assert_string_equal(o.sets[0].disk, "sda");
	assert_string_equal(o.sets[0].sched, "bfq");
	assert_string_equal(o.sets[1].sched, "none");
	assert_string_equal(o.probe_file, "/var/tmp/p");
	assert_int_equal(o.probe_file_size, 64ull << 20);
	options_free(&o);
	assert_int_equal(parse(&o, err, sizeof err, NULL), 0);
	assert_float_equal(o.probe_rate_hz, 20, 0);       /* the defaults */
	assert_int_equal(o.probe_size, 4096);
	assert_int_equal(o.probe_file_size, 1ull << 30);
	assert_false(o.have_seed);
	options_free(&o);
	assert_int_equal(parse(&o, err, sizeof err, "--json", "--iterations=1", "--delay=2", NULL), 0);
	assert_true(o.batch);
	assert_int_equal(o.format, OUT_JSON);
	options_free(&o);
}

/* Each bad value gives -1 and a message naming the option and what is accepted. */
static void expect_error(const char *a, const char *b, const char *must_contain)
{
	struct options o;
	char err[256];
	int rc = b ? parse(&o, err, sizeof err, a, b, NULL) : parse(&o, err, sizeof err, a, NULL);
	options_free(&o);
	if (rc != -1 || !strstr(err, must_contain))
		fail_msg("'%s %s': rc %d, message '%s' lacks '%s'", a, b ? b : "", rc, err, must_contain);
}

static void test_invalid(void **state)
{
	(void)state;
	expect_error("-d", "0", "0.01 to 3600");
	expect_error("-d", "abc", "--delay");
	expect_error("-d", "nan", "--delay");
	expect_error("-d", "5000", "0.01 to 3600");
	expect_error("-d", "1s", "--delay");
	expect_error("-n", "0", "1 to 1000000000");
	expect_error("-n", "-4", "--iterations");
	expect_error("-n", "2.5", "--iterations");
	expect_error("--disk", "", "empty name");
	expect_error("--disk", "sda,,sdb", "empty name");
	expect_error("--disk", "sda,sda", "given twice");
	expect_error("--disk", "/dev/sda", "kernel name");
	expect_error("--bogus", NULL, "unknown option '--bogus'; see --help");
	expect_error("--jsn", NULL, "unknown option '--jsn'; did you mean --json?");
	expect_error("--dleay", "1", "did you mean --delay?");
	expect_error("--ab-liev", "none,kyber", "did you mean --ab-live?");
	expect_error("--xy", NULL, "unknown option '--xy'; see --help");
	expect_error("-x", NULL, "unknown option '-x'");
	expect_error("-d", NULL, "--delay needs a value");
	expect_error("--disk", NULL, "--disk needs a value");
	expect_error("stray", NULL, "unexpected argument 'stray'");
	expect_error("--probe-rate", "0", "0.1 to 10000, or max");
	expect_error("--probe-rate", "20000", "0.1 to 10000, or max");
	expect_error("--probe-rate", "fast", "--probe-rate");
	expect_error("--probe-size", "256", "bytes from 512 to 16M");
	expect_error("--probe-size", "32M", "bytes from 512 to 16M");
	expect_error("--probe-size", "4q", "--probe-size");
	expect_error("--probe-file-size", "1M", "--probe-file-size");
	expect_error("--seed", "-1", "--seed");
	expect_error("--set", "sda", "DISK=SCHEDULER");
	expect_error("--set", "=bfq", "DISK=SCHEDULER");
	expect_error("--set", "sda=", "DISK=SCHEDULER");
	expect_error("--probe", "sda,sda", "given twice");
	expect_error("--probe-file", "", "empty path");
	/* --read-only refuses what would change the system */
	struct options o;
	char err[256];
	assert_int_equal(parse(&o, err, sizeof err, "--no-config", "--read-only", "--set", "sda=bfq", NULL), -1);
	assert_non_null(strstr(err, "--set changes the system: refused in read-only mode"));
	options_free(&o);
	assert_int_equal(parse(&o, err, sizeof err, "--no-config", "--read-only", "--enable-delayacct", NULL), -1);
	assert_non_null(strstr(err, "--enable-delayacct"));
	options_free(&o);
	assert_int_equal(parse(&o, err, sizeof err, "--no-config", "--read-only", "--ab", "none,bfq", "--disk", "sda", NULL), -1);
	options_free(&o);
	assert_int_equal(parse(&o, err, sizeof err, "--no-config", "--read-only", "--probe-rate", "max", NULL), 0);
	assert_true(o.read_only);
	options_free(&o);
}

static char *slurp(const char *path)
{
	static char buf[256 * 1024];
	long n = util_read_text(path, buf, sizeof buf);
	assert_true(n > 0);
	return buf;
}

/* "--delay" is written "\-\-delay" in man source. */
static void man_escape(const char *in, char *out, size_t len)
{
	size_t k = 0;
	for (; *in && k + 3 < len; in++) {
		if (*in == '-')
			out[k++] = '\\';
		out[k++] = *in;
	}
	out[k] = '\0';
}

/* String options keep their values whatever follows them (a later option
 * once freed the earlier ones). */
static void test_string_options(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	assert_int_equal(parse(&o, err, sizeof err, "--ab", "none,bfq", "--disk", "sda", "--load-dir", "/tmp",
			       "--startup", "true", "--udev-rules-file", "/tmp/x.rules", "--probe-file", "/tmp/p", NULL), 0);
	assert_string_equal(o.ab, "none,bfq");
	assert_string_equal(o.load_dir, "/tmp");
	assert_string_equal(o.startup, "true");
	assert_string_equal(o.udev_rules_file, "/tmp/x.rules");
	assert_string_equal(o.probe_file, "/tmp/p");
	assert_int_equal(o.load_size_given, 0); /* the default: an A/B may shrink it to fit */
	options_free(&o);
	assert_null(o.ab);
	assert_int_equal(parse(&o, err, sizeof err, "--ab", "none,bfq", "--disk", "sda", "--load-size", "2G", NULL), 0);
	assert_int_equal(o.load_size_given, 1); /* given: never shrunk */
	options_free(&o);
	/* udev reads only *.rules, and a name past NAME_MAX is no file */
	options_free(&o);
	assert_int_equal(parse(&o, err, sizeof err, "--udev-rules-file", "/tmp/x.conf", NULL), -1);
	assert_non_null(strstr(err, "ending in .rules"));
	char longname[400] = "/tmp/";
	memset(longname + 5, 'a', 300);
	strcpy(longname + 305, ".rules");
	options_free(&o);
	assert_int_equal(parse(&o, err, sizeof err, "--udev-rules-file", longname, NULL), -1);
	assert_non_null(strstr(err, "at most"));
	options_free(&o);
}

static void test_conflicts(void **state)
{
	(void)state;
	struct options o;
	char err[256];
	assert_int_equal(parse(&o, err, sizeof err, "--set", "sda=bfq", "--set", "sda=none", NULL), -1);
	assert_non_null(strstr(err, "'sda' is given twice"));
	options_free(&o);
	assert_int_equal(parse(&o, err, sizeof err, "--no-probe", "--probe", "sda", NULL), -1);
	assert_non_null(strstr(err, "conflicts"));
	options_free(&o);
	assert_int_equal(parse(&o, err, sizeof err, "--no-probe", "--probe-file", "/x", NULL), -1);
	assert_non_null(strstr(err, "conflicts with --probe-file"));
	options_free(&o);
	assert_int_equal(parse(&o, err, sizeof err, "--probe-file", "/x", "--probe-file", "/y", NULL), -1);
	options_free(&o);
	/* A value given twice on the command line, under either name. */
	assert_int_equal(parse(&o, err, sizeof err, "-d", "1", "--delay", "2", "--no-config", NULL), -1);
	assert_non_null(strstr(err, "--delay: given twice"));
	options_free(&o);
	/* Lists add up and flags may repeat. */
	assert_int_equal(parse(&o, err, sizeof err, "--disk", "sda", "--disk", "sdb", "--json", "--json", "--no-config",
			       NULL), 0);
	assert_int_equal(o.ndisks, 2);
	options_free(&o);
	assert_int_equal(parse(&o, err, sizeof err, "--ab", "none,bfq", "--disk", "sda", "--set", "sda=bfq", "--no-config",
			       NULL), -1);
	assert_non_null(strstr(err, "--set does nothing with --ab"));
	options_free(&o);
	assert_int_equal(parse(&o, err, sizeof err, "-b", "--load-dir", "/tmp", "--no-config", NULL), -1);
	assert_non_null(strstr(err, "--load-dir goes with --ab"));
	options_free(&o);
	/* Full-screen options with a batch output. */
	assert_int_equal(parse(&o, err, sizeof err, "-b", "--big", "--no-config", NULL), -1);
	assert_non_null(strstr(err, "--big is for the full screen"));
	options_free(&o);
	assert_int_equal(parse(&o, err, sizeof err, "--csv", "--theme", "mono", "--no-config", NULL), -1);
	assert_non_null(strstr(err, "--theme is for the full screen"));
	options_free(&o);
}

static void test_man_documents_options(void **state)
{
	(void)state;
	const char *man = slurp(SRCDIR "/iosched-top.1");
	size_t n;
	const struct option_def *d = options_table(&n);
	for (size_t i = 0; i < n; i++) {
		char lng[64], esc[128];
		snprintf(lng, sizeof lng, "--%s", d[i].name);
		man_escape(lng, esc, sizeof esc);
		if (!strstr(man, esc))
			fail_msg("iosched-top.1 does not document %s", lng);
		if (d[i].short_name > 0 && d[i].short_name < 256) {
			char sh[8];
			snprintf(sh, sizeof sh, "\\-%c", d[i].short_name);
			if (!strstr(man, sh))
				fail_msg("iosched-top.1 does not document -%c", d[i].short_name);
		}
	}
}

/* getopt_long takes the first of two options with the same letter or name
 * and never reaches the second: the table must hold each once. */
static void test_option_names_unique(void **state)
{
	(void)state;
	size_t n;
	const struct option_def *d = options_table(&n);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++) {
			if (strcmp(d[i].name, d[j].name) == 0)
				fail_msg("--%s is in the option table twice", d[i].name);
			if (d[i].short_name > 0 && d[i].short_name < 256 && d[i].short_name == d[j].short_name)
				fail_msg("-%c is the letter of both --%s and --%s", d[i].short_name, d[j].name, d[i].name);
		}
}

/* "LO to HI" and what else is accepted, without the default. */
static void range_only(const struct option_def *d, char *buf, size_t len)
{
	options_range_text(d, buf, len);
	char *cut = strstr(buf, ", default");
	if (cut)
		*cut = '\0';
}

/* A numeric option's field in o, as a double. */
static double field_of(const struct option_def *d, const struct options *o)
{
	const char *f = (const char *)o + d->off;
	switch (d->val) {
	case OV_INT: return *(const int *)(const void *)f;
	case OV_LONG: return (double)*(const long *)(const void *)f;
	case OV_SECS:
	case OV_REAL: return *(const double *)(const void *)f;
	case OV_BYTES: return (double)*(const uint64_t *)(const void *)f;
	case OV_NONE: break;
	}
	return NAN;
}

/* Every numeric option, from the table: its default when absent, both ends
 * of its range taken, just past them refused with the range in the
 * message. (Options that need others, e.g. the A/B's, are given with
 * what makes them valid.) */
static void test_numeric_options(void **state)
{
	(void)state;
	size_t n;
	const struct option_def *d = options_table(&n);
	struct options o;
	char err[300];
	assert_int_equal(parse(&o, err, sizeof err, "--no-config", NULL), 0);
	for (size_t i = 0; i < n; i++)
		if (d[i].val != OV_NONE && !isnan(d[i].dflt) && field_of(&d[i], &o) != d[i].dflt)
			fail_msg("--%s: default %g, the table says %g", d[i].name, field_of(&d[i], &o), d[i].dflt);
	options_free(&o);
	for (size_t i = 0; i < n; i++) {
		if (d[i].val == OV_NONE)
			continue;
		char opt[64], range[80], v[40];
		snprintf(opt, sizeof opt, "--%s", d[i].name);
		options_range_text(&d[i], range, sizeof range);
		assert_true(strlen(range) > 4);
		const double ends[2] = {d[i].lo, d[i].hi};
		for (int e = 0; e < 2; e++) {
			snprintf(v, sizeof v, "%.17g", ends[e]);
			/* the A/B's settings need --ab (--max-time --ab-live) and a --disk;
			 * --replay-speed a replay */
			int rc = strcmp(d[i].name, "replay-speed") == 0
					 ? parse(&o, err, sizeof err, "--no-config", "--replay", "x.rec", opt, v, NULL)
					 : parse(&o, err, sizeof err, "--no-config",
						 strcmp(d[i].name, "max-time") == 0 ? "--ab-live" : "--ab", "bfq,none", "--disk",
						 "sda", opt, v, NULL);
			if (rc != 0)
				fail_msg("%s %s refused: %s", opt, v, err);
			if (field_of(&d[i], &o) != ends[e])
				fail_msg("%s %s read as %g", opt, v, field_of(&d[i], &o));
			options_free(&o);
		}
		const double out[2] = {d[i].lo - (d[i].val == OV_SECS || d[i].val == OV_REAL ? d[i].lo / 2 + 0.001 : 1),
				       d[i].hi * 2};
		for (int e = 0; e < 2; e++) {
			if (out[e] < 0 && d[i].val == OV_BYTES)
				continue;
			snprintf(v, sizeof v, "%.17g", out[e]);
			int rc = parse(&o, err, sizeof err, "--no-config", opt, v, NULL);
			options_free(&o);
			char want[160];
			snprintf(want, sizeof want, "%s: '%s' is not accepted", opt, v);
			char lohi[80];
			range_only(&d[i], lohi, sizeof lohi);
			if (rc != -1 || !strstr(err, want) || !strstr(err, lohi))
				fail_msg("%s %s: rc %d, '%s' (wanted '%s' and '%s')", opt, v, rc, err, want, range);
		}
	}
}

/* The man page says each numeric option's range and default as the table
 * does (in the option's own paragraph). */
static void test_man_documents_ranges(void **state)
{
	(void)state;
	static char man[1 << 20];
	snprintf(man, sizeof man, "%s", slurp(SRCDIR "/iosched-top.1"));
	for (char *p = man; *p; p++)
		if (*p == '\n')
			*p = ' ';
	const char *opts = strstr(man, ".SH OPTIONS");
	assert_non_null(opts);
	size_t n;
	const struct option_def *d = options_table(&n);
	for (size_t i = 0; i < n; i++) {
		if (d[i].val == OV_NONE)
			continue;
		/* the paragraph: from ".BR ... \-\-NAME " to the next .TP */
		char lng[64], esc[128], lohi[80], range[80];
		snprintf(lng, sizeof lng, "--%s", d[i].name);
		man_escape(lng, esc, sizeof esc);
		strcat(esc, " \"");
		const char *para = strstr(opts, esc);
		if (!para)
			fail_msg("iosched-top.1: no paragraph for --%s", d[i].name);
		size_t off = (size_t)(para - man), end = off + 1;
		while (man[end] && strncmp(man + end, ".TP", 3) != 0)
			end++;
		char text[2048];
		snprintf(text, sizeof text, "%.*s", (int)(end - off < sizeof text ? end - off : sizeof text - 1), man + off);
		range_only(&d[i], lohi, sizeof lohi);
		if (d[i].extra)
			lohi[strlen(lohi) - strlen(d[i].extra)] = '\0';
		if (!strstr(text, lohi))
			fail_msg("iosched-top.1 --%s: its range '%s' is not in its paragraph", d[i].name, lohi);
		options_range_text(&d[i], range, sizeof range);
		const char *df = strstr(range, "default ");
		if (df) {
			char want[40];
			snprintf(want, sizeof want, "efault %s", df + 8);
			if (!strstr(text, want))
				fail_msg("iosched-top.1 --%s: 'default %s' is not in its paragraph", d[i].name, df + 8);
		}
	}
}

static void test_man_documents_keys(void **state)
{
	(void)state;
	const char *man = slurp(SRCDIR "/iosched-top.1");
	const char *keys = strstr(man, ".SH KEYS");
	assert_non_null(keys);
	size_t n;
	const struct key_binding *k = keys_table(&n);
	for (size_t i = 0; i < n; i++) {
		char want[64];
		snprintf(want, sizeof want, ".B %s\n", k[i].label);
		if (!strstr(keys, want))
			fail_msg("iosched-top.1 KEYS lacks '%s'", k[i].label);
	}
}

/* "Changes the system" is a column of the key table: every binding of an
 * action agrees, and the keys that switch, tune or write are marked. */
static void test_keys_changes_column(void **state)
{
	(void)state;
	size_t n;
	const struct key_binding *k = keys_table(&n);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (k[i].action == k[j].action && k[i].changes != k[j].changes)
				fail_msg("'%s' and '%s' do the same but disagree on changing the system", k[i].label, k[j].label);
	assert_true(keys_changes_system(KEY_ACT_NEXT_SCHED));
	assert_true(keys_changes_system(KEY_ACT_UNDO));
	assert_true(keys_changes_system(KEY_ACT_WRITE));
	assert_true(keys_changes_system(KEY_ACT_AB));
	assert_false(keys_changes_system(KEY_ACT_QUIT));
	assert_false(keys_changes_system(KEY_ACT_HELP));
	assert_false(keys_changes_system(KEY_ACT_LOG));
}

static void test_keys_lookup(void **state)
{
	(void)state;
	assert_int_equal(keys_lookup(KM_MAIN, 'q')->action, KEY_ACT_QUIT);
	assert_int_equal(keys_lookup(KM_MAIN, 'j')->action, KEY_ACT_DOWN);
	assert_int_equal(keys_lookup(KM_MAIN, '?')->action, KEY_ACT_HELP);
	assert_int_equal(keys_lookup(KM_MAIN, 'k')->action, KEY_ACT_UP);
	/* The same key means something else in a panel. */
	assert_int_equal(keys_lookup(KM_PICKER, 'k')->action, KEY_ACT_PICK_KYBER);
	assert_int_equal(keys_lookup(KM_PICKER, 27)->action, KEY_ACT_CLOSE);
	assert_null(keys_lookup(KM_MAIN, 'Z'));
	assert_null(keys_lookup(KM_MAIN, 0));
	/* No key code is bound twice within a mode. */
	size_t n;
	const struct key_binding *k = keys_table(&n);
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < KEYS_MAX_CODES && k[i].codes[c]; c++)
			assert_ptr_equal(keys_lookup(k[i].mode, k[i].codes[c]), &k[i]);
}

static void test_columns_fit(void **state)
{
	(void)state;
	size_t n, idx[64];
	const struct column *c = columns_table(&n);
	/* Wide enough: every column, in table order. */
	assert_int_equal(columns_fit(1000, idx), n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(idx[i], i);
	/* Narrow: the name and the scheduler list survive, in order. */
	size_t k = columns_fit(40, idx);
	assert_true(k >= 2);
	assert_string_equal(c[idx[0]].header, "DEVICE");
	assert_string_equal(c[idx[1]].header, "SCHEDULER");
	int used = -1;
	for (size_t i = 0; i < k; i++) {
		used += c[idx[i]].width + 1;
		if (i)
			assert_true(idx[i] > idx[i - 1]);
	}
	assert_true(used <= 40);
	/* Too narrow for anything but the name. */
	assert_int_equal(columns_fit(10, idx), 1);
	/* 80 columns (a laptop's terminal): which disk, which scheduler, how
	 * slow, how busy, who reads and writes, before the rest. */
	k = columns_fit(80, idx);
	const char *want[] = {"DEVICE", "SCHEDULER", "p50", "p99", "%util", "w/s", "r/s"};
	for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
		int found = 0;
		for (size_t i = 0; i < k; i++)
			found |= !strcmp(c[idx[i]].header, want[w]);
		if (!found)
			fail_msg("%s is not among the columns kept at 80", want[w]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),       cmocka_unit_test(test_valid),
		cmocka_unit_test(test_invalid),        cmocka_unit_test(test_conflicts),
		cmocka_unit_test(test_string_options),
		cmocka_unit_test(test_man_documents_options), cmocka_unit_test(test_numeric_options),
		cmocka_unit_test(test_option_names_unique),
		cmocka_unit_test(test_man_documents_ranges),
		cmocka_unit_test(test_man_documents_keys), cmocka_unit_test(test_keys_lookup),
		cmocka_unit_test(test_keys_changes_column),
		cmocka_unit_test(test_columns_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
