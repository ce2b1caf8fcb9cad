/* Unit tests of the A/B report's next step (abnext): the desktop's choice
 * from the cold starts (where timed) or fresh readers and the paced one, the server's from the steady one, no
 * choice for an A/A or when nothing is decided, and the commands that keep
 * a choice and undo it, on verdicts set by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "out/abnext.h"
#include "base/util.h"

/* Two variants on loop0, none and bfq (bfq with tunables when tun). */
static void config(struct ab_config *cfg, int tun)
{
	memset(cfg, 0, sizeof *cfg);
	util_strlcpy(cfg->disk, "loop0", sizeof cfg->disk);
	cfg->nv = 2;
	util_strlcpy(cfg->v[0].text, "none", sizeof cfg->v[0].text);
	util_strlcpy(cfg->v[0].sched, "none", sizeof cfg->v[0].sched);
	util_strlcpy(cfg->v[1].text, tun ? "bfq:low_latency=0:nr_requests=64" : "bfq", sizeof cfg->v[1].text);
	util_strlcpy(cfg->v[1].sched, "bfq", sizeof cfg->v[1].sched);
	if (!tun)
		return;
	cfg->v[1].ntun = 2;
	cfg->v[1].tun[0] = (struct tune_req){.kind = TUNE_IOSCHED, .key = "low_latency", .value = "0"};
	cfg->v[1].tun[1] = (struct tune_req){.kind = TUNE_QUEUE, .key = "nr_requests", .value = "64"};
}

/* Verdicts per reader: best -1 (not decided), -2 (a trade-off) or a
 * variant; no cold starts timed (no --startup). */
static void report(struct abv_report *r, int steady, int fresh, int paced)
{
	memset(r, 0, sizeof *r);
	r->nv = 2;
	const int b[ABV_NREADERS] = {[ABV_STEADY] = steady, [ABV_FRESH] = fresh, [ABV_PACED] = paced, [ABV_START] = -1};
	for (int rd = 0; rd < ABV_NREADERS; rd++) {
		r->reader[rd].best = b[rd] >= 0 ? b[rd] : -1;
		r->reader[rd].tradeoff = b[rd] == -2;
	}
	r->v[ABV_COLD].leader = -1;
}

/* Cold starts timed (--startup): they stand for starting programs in the
 * desktop's choice, the fresh readers' direct reads no longer do; timed
 * but undecided, they decide nothing and the paced reader's choice stands. */
static void test_cold_starts_decide_desktop(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct abv_report r;
	struct abn_next n;
	config(&cfg, 0);
	report(&r, -1, 1, -1);
	r.v[ABV_COLD].leader = 0;
	r.reader[ABV_START].best = 0;
	abnext_decide(&r, &n);
	assert_true(n.cold);
	assert_int_equal(n.use[ABN_DESKTOP].v, 0);
	assert_int_equal(n.reader[ABV_FRESH].v, 1);
	assert_string_equal(abnext_use_name(ABN_DESKTOP, &n), "a desktop or laptop (cold starts and paced reader)");
	report(&r, -1, 1, 0);
	r.v[ABV_COLD].leader = 1; /* measured, not decided */
	abnext_decide(&r, &n);
	assert_int_equal(n.use[ABN_DESKTOP].v, 0);
	report(&r, -1, 1, -1);
	abnext_decide(&r, &n); /* not timed: the fresh readers' choice */
	assert_false(n.cold);
	assert_int_equal(n.use[ABN_DESKTOP].v, 1);
	assert_string_equal(abnext_use_name(ABN_DESKTOP, &n), "a desktop or laptop (fresh and paced readers)");
}

static void test_fresh_alone_decides_desktop(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct abv_report r;
	struct abn_next n;
	char buf[512];
	config(&cfg, 0);
	report(&r, -1, 1, -1);
	abnext_decide(&r, &n);
	assert_int_equal(n.use[ABN_DESKTOP].why, ABN_CHOSEN);
	assert_int_equal(n.use[ABN_DESKTOP].v, 1);
	assert_int_equal(n.use[ABN_SERVER].why, ABN_UNDECIDED);
	assert_int_equal(n.reader[ABV_FRESH].v, 1);
	assert_int_equal(n.reader[ABV_PACED].why, ABN_UNDECIDED);
	assert_int_equal(n.keep, 1);
	assert_int_equal(n.keep_other, -1);
	abnext_choice_text(&n.use[ABN_DESKTOP], &cfg, buf, sizeof buf);
	assert_string_equal(buf, "bfq");
	abnext_choice_text(&n.use[ABN_SERVER], &cfg, buf, sizeof buf);
	assert_string_equal(buf, "no difference worth a change");
	assert_int_equal(abnext_keep(&cfg, n.keep, buf, sizeof buf), 0);
	assert_string_equal(buf, "iosched-top --disk loop0 --set loop0=bfq --print-udev-rule");
}

static void test_paced_alone_decides_desktop(void **state)
{
	(void)state;
	struct abv_report r;
	struct abn_next n;
	report(&r, -1, -1, 0);
	abnext_decide(&r, &n);
	assert_int_equal(n.use[ABN_DESKTOP].v, 0);
	assert_int_equal(n.keep, 0);
}

/* fresh and paced prefer different variants: no single desktop choice;
 * the server's (steady) choice is then the one to keep. */
static void test_readers_disagree(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct abv_report r;
	struct abn_next n;
	char buf[256];
	config(&cfg, 0);
	report(&r, 1, 1, 0);
	abnext_decide(&r, &n);
	assert_int_equal(n.use[ABN_DESKTOP].why, ABN_SPLIT);
	assert_int_equal(n.use[ABN_DESKTOP].v, -1);
	assert_int_equal(n.use[ABN_SERVER].v, 1);
	assert_int_equal(n.keep, 1);
	assert_int_equal(n.keep_other, -1);
	abnext_choice_text(&n.use[ABN_DESKTOP], &cfg, buf, sizeof buf);
	assert_non_null(strstr(buf, "no single choice"));
}

/* A trade-off in one of the desktop's readers leaves no desktop choice. */
static void test_tradeoff_is_no_choice(void **state)
{
	(void)state;
	struct abv_report r;
	struct abn_next n;
	report(&r, -1, 1, -2);
	abnext_decide(&r, &n);
	assert_int_equal(n.use[ABN_DESKTOP].why, ABN_SPLIT);
	assert_int_equal(n.reader[ABV_PACED].why, ABN_SPLIT);
	assert_int_equal(n.keep, -1);
	report(&r, -2, -1, -1);
	abnext_decide(&r, &n);
	assert_int_equal(n.use[ABN_SERVER].why, ABN_SPLIT);
	assert_int_equal(n.keep, -1);
}

/* Desktop and server differ: keep is the desktop's, the other the server's. */
static void test_desktop_and_server_differ(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct abv_report r;
	struct abn_next n;
	char buf[256];
	config(&cfg, 0);
	report(&r, 0, 1, 1);
	abnext_decide(&r, &n);
	assert_int_equal(n.use[ABN_DESKTOP].v, 1);
	assert_int_equal(n.use[ABN_SERVER].v, 0);
	assert_int_equal(n.keep, 1);
	assert_int_equal(n.keep_other, 0);
	abnext_keep(&cfg, n.keep_other, buf, sizeof buf);
	assert_string_equal(buf, "iosched-top --disk loop0 --set loop0=none --print-udev-rule");
	report(&r, 1, 1, 1); /* all agree: one command */
	abnext_decide(&r, &n);
	assert_int_equal(n.keep, 1);
	assert_int_equal(n.keep_other, -1);
}

static void test_nothing_decided(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct abv_report r;
	struct abn_next n;
	char buf[256];
	config(&cfg, 0);
	report(&r, -1, -1, -1);
	abnext_decide(&r, &n);
	for (int u = 0; u < ABN_NUSES; u++) {
		assert_int_equal(n.use[u].why, ABN_UNDECIDED);
		abnext_choice_text(&n.use[u], &cfg, buf, sizeof buf);
		assert_string_equal(buf, "no difference worth a change");
	}
	assert_int_equal(n.keep, -1);
	assert_int_equal(n.keep_other, -1);
	assert_int_equal(abnext_keep(&cfg, n.keep, buf, sizeof buf), -1);
	assert_string_equal(buf, "");
}

/* An A/A's decided verdict is a false positive: never a choice. */
static void test_aa_is_no_choice(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct abv_report r;
	struct abn_next n;
	char buf[256];
	config(&cfg, 0);
	util_strlcpy(cfg.v[1].text, "none", sizeof cfg.v[1].text);
	report(&r, 1, 1, 1);
	r.aa = 1;
	abnext_decide(&r, &n);
	for (int rd = 0; rd < ABV_NREADERS; rd++)
		assert_int_equal(n.reader[rd].v, -1);
	assert_int_equal(n.use[ABN_DESKTOP].why, ABN_AA);
	assert_int_equal(n.use[ABN_SERVER].why, ABN_AA);
	assert_int_equal(n.keep, -1);
	abnext_choice_text(&n.use[ABN_DESKTOP], &cfg, buf, sizeof buf);
	assert_true(strncmp(buf, "no difference worth a change", 28) == 0);
}

/* The rule keeps the scheduler; a variant's tunables are said as the
 * assignments to add, the iosched ones under queue/iosched/. */
static void test_rule_adds_and_undo(void **state)
{
	(void)state;
	struct ab_config cfg;
	char buf[512];
	config(&cfg, 1);
	assert_int_equal(abnext_keep(&cfg, 1, buf, sizeof buf), 0);
	assert_string_equal(buf, "iosched-top --disk loop0 --set loop0=bfq --print-udev-rule");
	abnext_rule_adds(&cfg, 1, buf, sizeof buf);
	assert_string_equal(buf, "ATTR{queue/iosched/low_latency}=\"0\", ATTR{queue/nr_requests}=\"64\"");
	abnext_rule_adds(&cfg, 0, buf, sizeof buf);
	assert_string_equal(buf, "");
	abnext_rule_adds(&cfg, -1, buf, sizeof buf);
	assert_string_equal(buf, "");
	abnext_undo(&cfg, "mq-deadline", buf, sizeof buf);
	assert_non_null(strstr(buf, "echo mq-deadline > /sys/block/loop0/queue/scheduler"));
	assert_non_null(strstr(buf, "delete the rule for loop0"));
	abnext_undo_command(&cfg, "none", buf, sizeof buf);
	assert_string_equal(buf, "echo none > /sys/block/loop0/queue/scheduler");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh_alone_decides_desktop),
		cmocka_unit_test(test_cold_starts_decide_desktop),
		cmocka_unit_test(test_paced_alone_decides_desktop),
		cmocka_unit_test(test_readers_disagree),
		cmocka_unit_test(test_tradeoff_is_no_choice),
		cmocka_unit_test(test_desktop_and_server_differ),
		cmocka_unit_test(test_nothing_decided),
		cmocka_unit_test(test_aa_is_no_choice),
		cmocka_unit_test(test_rule_adds_and_undo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
