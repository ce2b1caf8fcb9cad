/* Unit tests of the A/B report's judgement (issue 15) on phases made by
 * hand: the verdict per reader, "no clear difference" when the rounds'
 * ranges overlap, the trade-off sentence, and the words that explain a
 * steady reader whose two p50s part. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "abreport.h"

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

/* none, bfq, bfq, none; bfq's second round given by the caller. */
static struct ab_result *make(struct ab_config *cfg, double none_paced_us2)
{
	memset(cfg, 0, sizeof *cfg);
	char err[128];
	assert_int_equal(ab_parse_variants("none,bfq", cfg, err, sizeof err), 0);
	cfg->rounds = 2;
	cfg->dwell_s = 10;
	cfg->fresh_reads = 2000;
	cfg->paced_rate_hz = 20;
	struct ab_result *res = calloc(1, sizeof *res);
	res->phases = calloc(4, sizeof *res->phases);
	res->nphases = 4;
	int order[4] = {0, 1, 1, 0};
	for (int i = 0; i < 4; i++) {
		struct ab_phase *p = &res->phases[i];
		p->variant = order[i];
		p->round = i < 2 ? 1 : 2;
		if (p->variant == 0) {
			steady(p, 5000, 2000000, 10);
			paced(p, i == 0 ? 1500000 : (uint64_t)(none_paced_us2 * 1e3));
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

static char *report(const struct ab_config *cfg, const struct ab_result *res, enum ab_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	abreport_write(f, cfg, res, fmt);
	fclose(f);
	return buf;
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

static void free_res(struct ab_result *res)
{
	ab_result_free(res);
	free(res);
}

static void verdicts(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct ab_result *res = make(&cfg, 1500);
	char *text = report(&cfg, res, AB_TEXT);
	/* The steady reader: per read bfq looks 33x better; over time it
	 * waited 55x longer. The verdict goes by the time. */
	expect(text, "steady (median of per-second p50s): none best, 2.00ms against bfq 109.6ms");
	expect(text, "fresh (job time, median): bfq best, 151.0ms against none 3.00s");
	/* paced: 1.5 ms against 1.6 ms, each the same in both rounds. */
	expect(text, "paced (p50): none best");
	expect(text, "bfq against none: new readers 20x faster, a steady reader 55x slower, paced reads about the same, "
		     "writes -15 %.");
	expect(text, "bfq, steady reader: most reads were fast (p50 60us), but for 89 % of the time the reader "
		     "waited on slow ones");
	assert_null(strstr(text, "none, steady reader:")); /* none's p50s agree */
	free(text);
	char *json = report(&cfg, res, AB_JSON);
	expect(json, "\"verdict\":[{\"profile\":\"steady\",\"best\":\"none\"");
	expect(json, "{\"profile\":\"fresh\",\"best\":\"bfq\"");
	expect(json, "\"tradeoff\":[\"bfq against none: new readers 20x faster");
	expect(json, "\"fresh\":{\"runs\":6,\"cut\":0,\"job_ms_median\":151.000,\"job_ms_min\":150.000,"
		     "\"job_ms_max\":152.000}");
	free(json);
	free_res(res);
}

/* none's paced p50 is 1.5 ms in one round and 1.7 ms in the other; bfq's
 * 1.6 ms lies between: no clear difference, and no "best". */
static void overlap(void **state)
{
	(void)state;
	struct ab_config cfg;
	struct ab_result *res = make(&cfg, 1700);
	char *text = report(&cfg, res, AB_TEXT);
	expect(text, "paced (p50): no clear difference, none 1.50ms against bfq 1.60ms; rounds 1.50ms-1.70ms against 1.60ms-1.60ms");
	expect(text, "paced reads no clear change");
	free(text);
	char *json = report(&cfg, res, AB_JSON);
	expect(json, "{\"profile\":\"paced\",\"best\":null");
	free(json);
	/* One round: no range to judge by, and the report says so. */
	cfg.rounds = 1;
	res->nphases = 2;
	text = report(&cfg, res, AB_TEXT);
	expect(text, "(one round: give --rounds 2 or more to tell this from noise)");
	free(text);
	free_res(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(verdicts),
		cmocka_unit_test(overlap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
