/* Unit tests: what the session decides before it asks anything of the
 * system (session.c). Under --read-only every change (a setting, an I/O
 * priority, a unit's weight, undo, delay accounting) is refused with the
 * same words, before the control is reached (none is given here: a call
 * that reached it would crash). --ab-live's settings: the slot and washout
 * its variants need (longer where bfq is one), as many rounds as
 * --max-time holds, a --rounds below that kept, a --max-time too short for
 * a verdict refused with the time that would do, and the paced reader fast
 * enough for a p99 per slot. (options_parse reads the user's config file
 * too, as every run does: none here sets these.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "session.h"
#include "act/ab.h"
#include "act/ablive.h"
#include "config/options.h"
#include "model/abstats.h"

static void parse(struct options *o, int argc, const char **argv)
{
	char err[256] = "";
	int rc = options_parse(argc, (char **)argv, o, err, sizeof err);
	if (rc != 0)
		fail_msg("options_parse: %d %s", rc, err);
}

static void test_read_only_refuses(void **state)
{
	(void)state;
	struct options o;
	const char *argv[] = {"iosched-top", "--read-only"};
	parse(&o, 2, argv);
	struct session *s = session_new(&o, NULL, NULL, NULL, NULL);
	assert_non_null(s);
	const char *said = "read-only mode (--read-only): nothing is changed";
	char msg[200];
	assert_int_equal(session_set(s, "sda", TUNE_IOSCHED, "scheduler", "none", msg, sizeof msg), -1);
	assert_string_equal(msg, said);
	msg[0] = '\0';
	assert_int_equal(session_ionice(s, 1, 0, "init", "idle", msg, sizeof msg), -1);
	assert_string_equal(msg, said);
	msg[0] = '\0';
	assert_int_equal(session_set_weight(s, "/sys/fs/cgroup/x.slice", "200", msg, sizeof msg), -1);
	assert_string_equal(msg, said);
	msg[0] = '\0';
	assert_int_equal(session_undo(s, msg, sizeof msg), -1);
	assert_string_equal(msg, said);
	msg[0] = '\0';
	assert_int_equal(session_delayacct(s, 1, msg, sizeof msg), -1);
	assert_string_equal(msg, said);
	session_free(s);
	options_free(&o);
}

static void test_live_config(void **state)
{
	(void)state;
	struct options o;
	const char *argv[] = {"iosched-top", "--ab-live", "kyber,mq-deadline", "--disk", "sdz", "--max-time", "300"};
	parse(&o, 7, argv);
	struct ab_config cfg;
	char err[300] = "";
	assert_int_equal(session_ab_config(&o, "sdz", "kyber,mq-deadline", 1, &cfg, err, sizeof err), 0);
	assert_true(cfg.live);
	assert_int_equal(cfg.load, LOAD_NONE);
	assert_true(cfg.dwell_s == ABLIVE_SLOT_S && cfg.warmup_s == ABLIVE_WASHOUT_S);
	int fit = (int)floor(300 / (2 * (ABLIVE_SLOT_S + ABLIVE_WASHOUT_S + 0.1)));
	assert_int_equal(cfg.rounds, fit < ABV_MAX_ROUNDS ? fit : ABV_MAX_ROUNDS);
	assert_true(cfg.paced_rate_hz >= ceil(AB_PACED_PER_PHASE / cfg.dwell_s));
	/* bfq as one side: its longer slot and washout */
	assert_int_equal(session_ab_config(&o, "sdz", "bfq,none", 1, &cfg, err, sizeof err), 0);
	assert_true(cfg.dwell_s == ABLIVE_BFQ_SLOT_S && cfg.warmup_s == ABLIVE_BFQ_WASHOUT_S);
	/* a --rounds below what the time holds is kept */
	options_free(&o);
	const char *fewer[] = {"iosched-top", "--ab-live", "kyber,none", "--disk", "sdz", "--max-time", "300",
			       "--rounds", "7"};
	parse(&o, 9, fewer);
	assert_int_equal(session_ab_config(&o, "sdz", "kyber,none", 1, &cfg, err, sizeof err), 0);
	assert_int_equal(cfg.rounds, 7);
	options_free(&o);
}

static void test_live_too_short(void **state)
{
	(void)state;
	struct options o;
	const char *argv[] = {"iosched-top", "--ab-live", "kyber,none", "--disk", "sdz", "--max-time", "30"};
	parse(&o, 7, argv);
	struct ab_config cfg;
	char err[300] = "";
	assert_int_equal(session_ab_config(&o, "sdz", "kyber,none", 1, &cfg, err, sizeof err), -1);
	assert_non_null(strstr(err, "--ab-live: --max-time 30 s holds"));
	assert_non_null(strstr(err, "a verdict needs"));
	int need = abstats_min_rounds(2);
	char want[64];
	snprintf(want, sizeof want, "give --max-time %.0f or more",
		 ceil(need * 2.0 * (ABLIVE_SLOT_S + ABLIVE_WASHOUT_S + 0.1)));
	assert_non_null(strstr(err, want));
	options_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_only_refuses),
		cmocka_unit_test(test_live_config),
		cmocka_unit_test(test_live_too_short),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
