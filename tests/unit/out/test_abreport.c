/* Unit tests of the A/B report on phases made by hand: the verdicts per
 * figure and per reader as every format prints them, no sentence that
 * disagrees with a verdict line or with the table, "within noise" when a
 * variant's own rounds differ more than the two variants, one round that
 * cannot decide, an A/A's labels and noise, and the words that explain a
 * steady reader whose two p50s part. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act/ab.h"
#include "out/abreport.h"
#include "base/util.h"
#include "model/abstats.h"
#include "out/abwords.h"

/* n reads of ns each, spread evenly over secs whole seconds. */
static void steady(struct ab_phase *p, uint64_t n, uint64_t ns, int secs)
{
	for (uint64_t i = 0; i < n; i++)
		hist_add(&p->h, ns);
	for (int s = 0; s < secs; s++)
		hist_add(&p->sec_p50, ns);
	p->secs = secs;
}

/* The trace of the issue: 15,000 reads of 60 us in one second, then nine
 * seconds of 9 reads of 110 ms. */
static void weight_raised(struct ab_phase *p)
{
	for (int i = 0; i < 15000; i++)
		hist_add(&p->h, 60000);
	hist_add(&p->sec_p50, 60000);
	for (int s = 0; s < 9; s++) {
		for (int i = 0; i < 9; i++)
			hist_add(&p->h, 110000000);
		hist_add(&p->sec_p50, 110000000);
	}
	p->secs = 10;
}

static void paced(struct ab_phase *p, uint64_t ns)
{
	for (int i = 0; i < 200; i++)
		hist_add(&p->paced, ns);
}

static void fresh(struct ab_phase *p, double ms)
{
	for (int k = 0; k < AB_FRESH_RUNS; k++)
		p->fresh_ms[p->nfresh++] = ms + k;
}

/* none, bfq, bfq, none, ... for `rounds` rounds; none's paced p50 in
 * even rounds given by the caller. */
static struct ab_result *make(struct ab_config *cfg, double none_paced_us2, int rounds, const char *variants)
{
	memset(cfg, 0, sizeof *cfg);
	char err[128];
	assert_int_equal(ab_parse_variants(variants, cfg, err, sizeof err), 0);
	cfg->rounds = rounds;
	cfg->dwell_s = 10;
	cfg->fresh_reads = 2000;
	cfg->paced_rate_hz = 20;
	struct ab_result *res = calloc(1, sizeof *res);
	res->phases = calloc((size_t)rounds * 2, sizeof *res->phases);
	res->nphases = (size_t)rounds * 2;
	for (int i = 0; i < rounds * 2; i++) {
		struct ab_phase *p = &res->phases[i];
		int order[2];
		ab_order(2, i / 2, order);
		p->variant = order[i % 2];
		p->round = i / 2 + 1;
		if (p->variant == 0) {
			steady(p, 5000, 2000000, 10);
			paced(p, p->round % 2 ? 1500000 : (uint64_t)(none_paced_us2 * 1e3));
			fresh(p, 3000);
			p->write_MBps = 100;
		} else {
			weight_raised(p);
			paced(p, 1600000);
			fresh(p, 150);
			p->write_MBps = 85;
		}
	}
	return res;
}

/* not inlined: gcc 12 then takes the text for the address of report()'s local */
__attribute__((noinline)) static char *report(const struct ab_config *cfg, const struct ab_result *res, enum ab_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	abreport_write(f, cfg, res, fmt);
	fclose(f);
	return buf;
}

/* The text report with its wrapped lines joined again: a line break and
 * the indent after it become one space (the report breaks prose at single
 * spaces), so a sentence is found whole wherever it was wrapped. */
static char *unwrapped(char *text)
{
	char *out = text;
	for (const char *p = text; *p; p++) {
		if (*p == '\n' && p[1] == ' ') {
			while (p[1] == ' ')
				p++;
			*out++ = ' ';
		} else {
			*out++ = *p;
		}
	}
	*out = '\0';
	return text;
}

/* The report holds needle, or the test fails showing the whole report
 * (cmocka's own message would cut it). */
static void expect(const char *report_text, const char *needle)
{
	if (strstr(report_text, needle))
		return;
	fprintf(stderr, "the report lacks: %s\n--- report ---\n%s--- end ---\n", needle, report_text);
	fail();
}

/* The table whose head line starts with title has the heads in this
 * order (NULL-terminated), each apart from the next by spaces. */
static void expect_heads(const char *report_text, const char *title, const char *const *heads)
{
	char line[512];
	const char *p = report_text;
	while (p && (strncmp(p, title, strlen(title)) != 0 || p[strlen(title)] != ' '))
		p = (p = strchr(p, '\n')) ? p + 1 : NULL;
	assert_non_null(p);
	snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\n"), p);
	const char *at = line + strlen(title);
	for (size_t i = 0; heads[i]; i++) {
		const char *h = strstr(at, heads[i]);
		if (!h || h == at || h[-1] != ' ') {
			fprintf(stderr, "table '%s': no head '%s' in order in: %s\n", title, heads[i], line);
			fail();
		}
		at = h + strlen(heads[i]);
	}
	assert_true(*at == '\0');
}

static void free_res(struct ab_result *res)
{
	ab_result_free(res);
	free(res);
}

/* The number of CSV fields in a line, quotes respected. */
static int csv_fields(const char *line, const char *end)
{
	int n = 1, quoted = 0;
	for (const char *p = line; p < end; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == ',' && !quoted)
			n++;
	}
	return n;
}

/* A variant whose rounds differ (500 and 100 reads/s): the sentence
 * gives the table's figure (all phases pooled: 300.0/s), not the rounds'
 * geometric mean (223.6/s), and its ratio by round. */
static void sentence_is_the_tables(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct ab_result *res = make(&cfg, 1500, 6, "none,bfq");
	for (size_t i = 0; i < res->nphases; i++) {
		struct ab_phase *p = &res->phases[i];
		if (p->variant == 0) {
			memset(&p->h, 0, sizeof p->h);
			memset(&p->sec_p50, 0, sizeof p->sec_p50);
			steady(p, p->round % 2 ? 5000 : 1000, 2000000, 10);
		}
	}
	char *text = unwrapped(report(&cfg, res, AB_TEXT));
	expect(text, "\nnone             all  18000");
	expect(text, " 300.0 ");
	expect(text, "steady reads/s: bfq best, 1508.1/s against none 300.0/s; by round 6.74x more reads/s");
	assert_null(strstr(text, "223.6/s"));
	free(text);
	free_res(res);
}

static void verdicts(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct ab_result *res = make(&cfg, 1500, 6, "none,bfq");
	char *text = report(&cfg, res, AB_TEXT);
	/* One unit per table, named in every header: times in ms; one table
	 * per reader, so each fits 100 columns. */
	expect_heads(text, "steady reader", (const char *[]){"round", "n", "p50 ms", "p50/s ms", "p99 ms", "max ms",
							     "reads/s", ">10ms %", ">100ms %", NULL});
	expect_heads(text, "fresh, paced, writer",
		     (const char *[]){"round", "fresh ms", "paced p50 ms", "paced p99 ms", "write MB/s", NULL});
	expect(text, "\nper variant, pooled over all phases:\n");
	assert_null(strstr(text, "startup s")); /* no cold starts timed */
	assert_null(strstr(text, " us "));
	unwrapped(text);
	/* The steady reader: bfq does 3x the reads a second, but spends 89 %
	 * of its time in reads over 100 ms: a trade-off, not a best. */
	expect(text, "steady reads/s: bfq best, 1508.1/s against none 500.0/s; by round 3.02x more reads/s (3.02x-3.02x, 6 rounds)");
	expect(text, "steady time in reads over 100 ms: none best, under 1 % against bfq 88.8 %; by round 89x less time stalled");
	expect(text, "fresh job time: bfq best, 151.0ms against none 3.00s; by round 20x faster jobs");
	expect(text, "paced p50: none best");
	expect(text, "steady: a trade-off, no best: bfq 3.02x more reads/s, none 89x less time stalled");
	expect(text, "fresh: bfq better (bfq 20x faster jobs)");
	expect(text, "bfq against none: new readers: 20x faster jobs (20x-20x); a steady reader: 3.02x more reads/s "
		     "(3.02x-3.02x), 89x more time stalled (89x-89x); paced reads: 1.07x higher p50");
	expect(text, "the writer -15 % MB/s (not tested).");
	expect(text, "bfq, steady reader: most reads were fast (p50 60us), but for 89 % of the time the reader "
		     "waited on slow ones");
	expect(text, "at most 3.1 % false positives per verdict");
	assert_null(strstr(text, "none, steady reader:")); /* none's p50s agree */
	assert_null(strstr(text, "A/A"));
	free(text);
	char *json = report(&cfg, res, AB_JSON);
	expect(json, "\"verdict\":[{\"profile\":\"steady\",\"figure\":\"reads_per_s\",\"best\":\"bfq\",\"leader\":\"bfq\","
		     "\"against\":\"none\",\"decided\":true,\"leader_value\":1508.1,\"against_value\":500,\"ratio\":3.016");
	expect(json, "{\"profile\":\"fresh\",\"figure\":\"job_ms\",\"best\":\"bfq\"");
	expect(json, "\"rounds\":6,\"rounds_needed\":null");
	expect(json, "\"readers\":[{\"profile\":\"steady\",\"best\":null,\"tradeoff\":true");
	expect(json, "\"tradeoff\":[\"bfq against none: new readers: 20x faster jobs");
	expect(json, "\"fresh\":{\"runs\":18,\"cut\":0,\"job_ms_median\":151.000,\"job_ms_min\":150.000,"
		     "\"job_ms_max\":152.000}");
	free(json);
	char *csv = report(&cfg, res, AB_CSV);
	expect(csv, ",profile,figure,decided,ratio,ratio_lo,ratio_hi,rounds_needed,text\n");
	expect(csv, "verdict,\"bfq\",");
	int header = -1, lines = 0, verdict_rows = 0, next_rows = 0;
	for (char *p = csv, *nl; (nl = strchr(p, '\n')); p = nl + 1, lines++) {
		int n = csv_fields(p, nl);
		header = header < 0 ? n : header;
		assert_int_equal(n, header);
		verdict_rows += !strncmp(p, "verdict,", 8);
		next_rows += !strncmp(p, "next,", 5);
	}
	/* every figure a built-in run measures but the cold start's (no --startup) */
	int figs = 0, readers = 0;
	for (int k = 0; k < ABV_NFIGS; k++)
		figs += abstats_fig_used(&cfg, (enum abv_fig)k);
	for (int k = 0; k < ABV_NREADERS; k++)
		readers += abstats_reader_used(&cfg, (enum abv_reader)k);
	assert_int_equal(figs, 5);
	assert_int_equal(verdict_rows, figs);
	/* a use per reader measured, desktop, server; nothing to keep (both split) */
	assert_int_equal(next_rows, readers + 2);
	assert_int_equal(lines, 1 + 2 + 12 + figs + next_rows);
	free(csv);
	free_res(res);
}

/* No sentence of the report disagrees with a verdict line, nor a decided
 * verdict with the table: checked on every figure of runs with 1, 2 and 6
 * rounds. */
static void one_truth(void **state)
{
	(void)state;
	const int rounds[] = {1, 2, 6};
	for (size_t k = 0; k < 3; k++) {
		struct ab_config cfg;
		struct ab_result *res = make(&cfg, 1700, rounds[k], "none,bfq");
		struct abv_report *vr = malloc(sizeof *vr);
		assert_int_equal(abstats_compute(&cfg, res, vr), 0);
		char *text = unwrapped(report(&cfg, res, AB_TEXT));
		char phrase[96], *closing = strstr(text, "bfq against none:");
		assert_non_null(closing);
		closing = strdup(closing);
		for (int f = 0; f < ABV_NFIGS; f++) {
			if (!abstats_fig_used(&cfg, (enum abv_fig)f))
				continue; /* no --startup: its figure not listed */
			const struct abv_verdict *v = &vr->v[f];
			const struct abv_fig_info *hb = abstats_fig((enum abv_fig)f);
			const struct abw_fig *fi = abwords_fig((enum abv_fig)f);
			char said[ABW_VERDICT_LEN];
			abwords_verdict(vr, &cfg, (enum abv_fig)f, said, sizeof said);
			expect(text, said);
			if (v->best < 0) {
				snprintf(phrase, sizeof phrase, "%s no clear change", fi->name);
				expect(closing, v->leader < 0 ? "not measured" : phrase);
				continue;
			}
			/* bfq (1) against none (0): bfq's words if it won */
			expect(closing, v->best == 1 ? fi->better : fi->worse);
			double lead = vr->pooled[v->best][f], other = vr->pooled[!v->best][f];
			assert_true(hb->higher_better ? lead >= other : lead <= other);
		}
		free(closing);
		free(text);
		free(vr);
		free_res(res);
	}
}

/* none's paced p50 is 1.5 ms in odd rounds and 1.7 ms in even ones; bfq's
 * 1.6 ms lies between: within noise, and no "best". */
static void overlap(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct ab_result *res = make(&cfg, 1700, 6, "none,bfq");
	char *text = unwrapped(report(&cfg, res, AB_TEXT));
	expect(text, "paced p50: not decided, ");
	expect(text, "within noise; none's own phases differed 1.13x, bfq's 1.00x; about ");
	expect(text, "paced reads: p50 no clear change");
	free(text);
	char *json = report(&cfg, res, AB_JSON);
	expect(json, "{\"profile\":\"paced\",\"figure\":\"p50_us\",\"best\":null");
	free(json);
	free_res(res);
	/* One round: nothing can be decided, and the report says so. */
	res = make(&cfg, 1500, 1, "none,bfq");
	text = unwrapped(report(&cfg, res, AB_TEXT));
	expect(text, "fresh job time: not decided, bfq 151.0ms against none 3.00s (20x faster jobs by these rounds): "
		     "1 round(s) cannot decide anything: the test needs 6 or more (--rounds 6)");
	free(text);
	free_res(res);
}

/* An A/A: the same setting twice, told apart, and the disk's noise. */
static void aa(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct ab_result *res = make(&cfg, 1700, 6, "none,none");
	for (size_t i = 0; i < res->nphases; i += 2) { /* both variants measured alike in each round */
		struct ab_phase *a = &res->phases[i], *b = &res->phases[i + 1];
		struct ab_phase *one = a->variant == 0 ? a : b, *two = a->variant == 0 ? b : a;
		*two = *one;
		two->variant = 1;
	}
	char *text = report(&cfg, res, AB_TEXT);
	expect(text, "\nnone#1 ");
	expect(text, "\nnone#2 ");
	unwrapped(text);
	expect(text, "A/A: every variant is the same setting, so a verdict decided here is a false positive");
	expect(text, "none#2 against none#1:");
	expect(text, "this disk's noise with these settings:");
	expect(text, "steady reads/s: the same in every phase");
	expect(text, "steady time in reads over 100 ms: under 1 % of the time in every phase (counted as 1 %): no noise");
	expect(text, "paced p50: the same setting's phases differed up to 1.13x; 6 rounds would decide about ");
	free(text);
	char *json = report(&cfg, res, AB_JSON);
	expect(json, "\"aa\":true");
	expect(json, "\"noise\":[{\"figure\":\"reads_per_s\",\"own_spread\":1.000");
	free(json);
	free_res(res);
}

/* Every line of the text report at most 100 columns. */
static void fits(const char *text)
{
	for (const char *p = text, *nl; (nl = strchr(p, '\n')); p = nl + 1)
		if (nl - p > 100) {
			fprintf(stderr, "a line of %d columns: %.*s\n--- report ---\n%s", (int)(nl - p), (int)(nl - p), p, text);
			fail();
		}
}

/* The next step, in every format: fresh decides bfq (20x faster jobs),
 * paced decides nothing, so bfq is the desktop's choice; the steady
 * reader's trade-off leaves the server none. */
static void next_step(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct ab_result *res = make(&cfg, 1700, 6, "none,bfq");
	util_strlcpy(cfg.disk, "sda", sizeof cfg.disk);
	util_strlcpy(res->disk, "sda", sizeof res->disk);
	util_strlcpy(res->original, "mq-deadline", sizeof res->original);
	char *text = report(&cfg, res, AB_TEXT);
	fits(text);
	expect(text, "\nnext step:\n  programs starting cold (--startup): not timed (--startup CMD times one under the "
		     "same load)\n  new processes' direct reads (fresh): bfq\n"
		     "  long-running readers (steady): no single choice");
	expect(text, "\n  a desktop or laptop (fresh and paced readers): bfq\n");
	expect(text, "\n    iosched-top --disk sda --set sda=bfq --print-udev-rule\n");
	expect(text, "\n    echo mq-deadline > /sys/block/sda/queue/scheduler\n");
	assert_null(strstr(text, "for a server"));
	free(text);
	char *md = report(&cfg, res, AB_MD);
	expect(md, "\n- a desktop or laptop (fresh and paced readers): bfq\n");
	expect(md, "\n  `iosched-top --disk sda --set sda=bfq --print-udev-rule`\n");
	free(md);
	char *json = report(&cfg, res, AB_JSON);
	expect(json, ",\"next\":{\"desktop\":\"bfq\",\"server\":null,\"keep\":\"iosched-top --disk sda --set sda=bfq "
		     "--print-udev-rule\",\"undo\":\"delete the rule for sda from the rules file it went into, then switch "
		     "back now: echo mq-deadline > /sys/block/sda/queue/scheduler\",\"keep_server\":null,");
	expect(json, "\"uses\":{\"steady\":null,\"fresh\":\"bfq\",\"paced\":null}");
	free(json);
	char *csv = report(&cfg, res, AB_CSV);
	expect(csv, "\nnext,\"bfq\",");
	expect(csv, ",desktop,,,,,,,\"bfq\"\n");
	expect(csv, ",keep,,,,,,,\"iosched-top --disk sda --set sda=bfq --print-udev-rule\"\n");
	free(csv);
	/* The winner is what the disk is on already: nothing to change, no
	 * switch back to undo. */
	util_strlcpy(res->original, "bfq", sizeof res->original);
	text = report(&cfg, res, AB_TEXT);
	expect(unwrapped(text), " sda is on bfq already: nothing to change now; to be sure it comes back on it after a "
				"reboot, as root (it prints the udev rule and where it goes): "
				"iosched-top --disk sda --set sda=bfq --print-udev-rule "
				"to undo: delete the rule for sda from the rules file it went into (nothing was switched)\n");
	assert_null(strstr(text, "echo bfq >"));
	free(text);
	json = report(&cfg, res, AB_JSON);
	expect(json, ",\"keep_is_now\":true,");
	free(json);
	free_res(res);
	/* One round: nothing decided, nothing to keep. */
	res = make(&cfg, 1700, 1, "none,bfq");
	util_strlcpy(cfg.disk, "sda", sizeof cfg.disk);
	text = report(&cfg, res, AB_TEXT);
	expect(text, "\n  a desktop or laptop (fresh and paced readers): no difference worth a change\n"
		     "  a server (steady reader): no difference worth a change\n  nothing to keep: sda stays as it is\n");
	free(text);
	json = report(&cfg, res, AB_JSON);
	expect(json, ",\"next\":{\"desktop\":null,\"server\":null,\"keep\":null,\"undo\":null,");
	assert_null(strstr(json, "cold_start_s")); /* not measured: not listed */
	assert_null(strstr(json, "\"cold\""));
	free(json);
	free_res(res);
}

/* With --startup, a real program's cold starts stand for starting
 * programs: here they are twice as fast on none while the fresh readers'
 * direct reads are 20x faster on bfq, and the desktop's choice is none,
 * the cold starts', in every format. */
static void cold_starts_decide_desktop(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct ab_result *res = make(&cfg, 1700, 6, "none,bfq");
	cfg.startup_cmd = "cat /usr/bin/* > /dev/null";
	cfg.startup_runs = 3;
	util_strlcpy(cfg.disk, "sda", sizeof cfg.disk);
	util_strlcpy(res->original, "mq-deadline", sizeof res->original);
	for (size_t i = 0; i < res->nphases; i++) {
		struct ab_phase *p = &res->phases[i];
		p->nstartup = 3;
		for (int k = 0; k < 3; k++)
			p->startup_s[k] = (p->variant == 0 ? 1.0 : 2.0) * (1 + 0.01 * (p->round + k));
	}
	char *text = report(&cfg, res, AB_TEXT);
	fits(text);
	expect(text, "\n  cold start time: none best, ");
	expect(text, "\nnext step:\n  programs starting cold (--startup): none\n"
		     "  new processes' direct reads (fresh): bfq\n");
	expect(text, "\n  a desktop or laptop (cold starts and paced reader): none\n");
	expect(text, "\n    iosched-top --disk sda --set sda=none --print-udev-rule\n");
	free(text);
	char *json = report(&cfg, res, AB_JSON);
	expect(json, "{\"profile\":\"cold\",\"figure\":\"cold_start_s\",\"best\":\"none\",");
	expect(json, "\"uses\":{\"steady\":null,\"fresh\":\"bfq\",\"paced\":null,\"cold\":\"none\"}");
	expect(json, ",\"next\":{\"desktop\":\"none\",");
	free(json);
	char *csv = report(&cfg, res, AB_CSV);
	expect(csv, ",desktop,,,,,,,\"none\"\n");
	free(csv);
	free_res(res);
}

/* Labels too long for the tables are cut, marked '~'; every line still
 * fits, and the whole label stays in the sentences. */
/* A run that stopped at its first look says so, in text and JSON. */
static void settled_early(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct ab_result *res = make(&cfg, 1500, 6, "none,bfq");
	cfg.rounds = 12;
	res->settled_at = 6;
	char *text = report(&cfg, res, AB_TEXT);
	expect(text, "stopped after 6 of the 12 rounds: every figure was decided there");
	free(text);
	char *json = report(&cfg, res, AB_JSON);
	expect(json, "\"partial\":false,\"settled_at\":6");
	free(json);
	res->settled_at = 0;
	json = report(&cfg, res, AB_JSON);
	expect(json, "\"settled_at\":null");
	free(json);
	free_res(res);
}

static void long_labels(void **state)
{
	(void)state;
	struct ab_config cfg;
	const char *v = "none,bfq:low_latency=0:slice_idle=0:timeout_sync=200"; /* 47: a label's most */
	struct ab_result *res = make(&cfg, 1500, 6, v);
	char *text = report(&cfg, res, AB_TEXT);
	fits(text);
	expect(text, "~ ");
	expect(unwrapped(text), "bfq:low_latency=0:slice_idle=0:timeout_sync=200 against none:");
	free(text);
	free_res(res);
}

/* The report names the I/O on the disk that was not the tool's, and says
 * whether it could flip rounds: none beside the load's own writes; a
 * reader of 40 MB/s in one phase (of the load's 85-100) is enough. */
static void other_io(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct ab_result *res = make(&cfg, 1500, 4, "none,bfq");
	for (size_t i = 0; i < res->nphases; i++) {
		res->phases[i].own_write_MBps = res->phases[i].write_MBps;
		res->phases[i].own_read_MBps = 0;
	}
	char *text = unwrapped(report(&cfg, res, AB_TEXT));
	expect(text, "other I/O on  (not the tool's readers or load): read 0.0 MB/s, write 0.0 MB/s on average");
	expect(text, ": too little to matter");
	free(text);
	res->phases[3].read_MBps = 40;
	text = unwrapped(report(&cfg, res, AB_TEXT));
	expect(text, "40.0 MB/s at most (");
	expect(text, ": enough to flip rounds");
	free(text);
	char *json = report(&cfg, res, AB_JSON);
	expect(json, "\"other_io\":{\"read_MBps\":5.000,\"write_MBps\":0.000,\"peak_MBps\":40.000,");
	expect(json, "\"peak_phase\":4,\"matters\":true}");
	expect(json, "\"other_io_below\":null");
	free(json);
	/* a loop device's run: the disk under its file wrote 30 MB/s more
	 * than came through the loop device in one phase */
	util_strlcpy(res->below, "vda", sizeof res->below);
	for (size_t i = 0; i < res->nphases; i++) {
		res->phases[i].below_read_MBps = res->phases[i].read_MBps;
		res->phases[i].below_write_MBps = res->phases[i].write_MBps + (i == 5 ? 30 : 0);
	}
	text = unwrapped(report(&cfg, res, AB_TEXT));
	expect(text, "other I/O on vda under  (not through it): read 0.0 MB/s, write 3.8 MB/s on average, 30.0 MB/s at most");
	free(text);
	json = report(&cfg, res, AB_JSON);
	expect(json, "\"other_io_below\":{\"disk\":\"vda\",\"read_MBps\":0.000,\"write_MBps\":3.750,\"peak_MBps\":30.000,"
		     "\"peak_phase\":6,\"matters\":true}");
	free(json);
	free_res(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(verdicts),
		cmocka_unit_test(sentence_is_the_tables),
		cmocka_unit_test(one_truth),
		cmocka_unit_test(overlap),
		cmocka_unit_test(aa),
		cmocka_unit_test(next_step),
		cmocka_unit_test(cold_starts_decide_desktop),
		cmocka_unit_test(long_labels),
		cmocka_unit_test(settled_early),
		cmocka_unit_test(other_io),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
