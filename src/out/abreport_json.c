/* abreport_json: the A/B report as one JSON object (include/out/abreport.h):
 * the run's settings, a row per variant and per phase, the verdicts and
 * their words, the closing sentences, the next step. Strings and doubles
 * go through base/jsonv.h's writers. */
#include "abrows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "abnext.h"
#include "out/abwords.h"
#include "out/outputs.h"
#include "base/jsonv.h"
#include "probe/readfig.h"
#include "base/util.h"

/* One other-I/O object's fields: {"read_MBps", ...} (written whole, or
 * (inner) without its braces). */
static void other_fields(FILE *f, const struct ab_other *o, int inner)
{
	fputs(inner ? "\"read_MBps\":" : "{\"read_MBps\":", f);
	jsonv_write_number(f, o->read_MBps, 3);
	jsonv_write_key_number(f, "write_MBps", o->write_MBps, 3);
	jsonv_write_key_number(f, "peak_MBps", o->peak_MBps, 3);
	fprintf(f, ",\"peak_phase\":%d,\"matters\":%s%s", o->peak_phase + 1, o->matters ? "true" : "false",
		inner ? "" : "}");
}

/* The I/O on the disk that was not the tool's (abrows_other); a live
 * run's is the user's load: not here. */
static void other_io(FILE *f, const struct ab_config *cfg, const struct ab_result *res)
{
	struct ab_other o[2];
	abrows_other(res, &o[0], &o[1]);
	if (cfg->live || o[0].peak_phase < 0)
		return;
	fputs(",\"other_io\":", f);
	other_fields(f, &o[0], 0);
	fputs(",\"other_io_below\":", f);
	if (o[1].peak_phase < 0) {
		fputs("null", f);
		return;
	}
	fputs("{\"disk\":", f);
	jsonv_write_string(f, res->below);
	fputc(',', f);
	other_fields(f, &o[1], 1);
	fputc('}', f);
}

static void header(FILE *f, const struct ab_config *cfg, const struct ab_result *res)
{
	fprintf(f, "{\"version\":%d,\"disk\":", OUTPUTS_JSON_VERSION);
	jsonv_write_string(f, res->disk);
	jsonv_write_key_string(f, "mode", cfg->live ? "live" : "built-in");
	jsonv_write_key_string(f, "kernel", res->kernel);
	jsonv_write_key_string(f, "load", res->load);
	jsonv_write_key_string(f, "probe", res->probe);
	jsonv_write_key_string(f, "queue", res->queue);
	jsonv_write_key_significant(f, "rate_hz", cfg->paced_rate_hz, 6);
	fprintf(f, ",\"fresh_reads\":%u,\"fresh_runs\":%d,\"rounds\":%d", cfg->fresh_reads, AB_FRESH_RUNS, cfg->rounds);
	jsonv_write_key_significant(f, "dwell_s", cfg->dwell_s, 6);
	jsonv_write_key_significant(f, "warmup_s", cfg->warmup_s, 6);
	fprintf(f, ",\"partial\":%s,\"settled_at\":", res->partial ? "true" : "false");
	if (res->settled_at)
		fprintf(f, "%d", res->settled_at);
	else
		fputs("null", f);
	if (cfg->startup_cmd)
		jsonv_write_key_string(f, "startup_cmd", cfg->startup_cmd);
	other_io(f, cfg, res);
	if (cfg->live) {
		jsonv_write_key_significant(f, "max_time_s", cfg->max_time_s, 6);
		fprintf(f, ",\"seed\":%llu", (unsigned long long)cfg->seed);
		jsonv_write_key_string(f, "yours", res->yours);
		jsonv_write_key_string(f, "stopped", res->stopped[0] ? res->stopped : NULL);
	}
}

/* A live slot's own: its washout, the busiest of the user's readers. */
static void slot_extra(FILE *f, const struct row *r)
{
	const struct ab_phase *p = r->phase;
	jsonv_write_key_significant(f, "washout_s", p->washout_s, 6);
	fputs(",\"top_readers\":[", f);
	for (int k = 0; k < p->ntop && k < AB_TOPS; k++) {
		fputs(k ? ",{\"comm\":" : "{\"comm\":", f);
		jsonv_write_string(f, p->top[k].comm);
		fprintf(f, ",\"n\":%llu", (unsigned long long)p->top[k].n);
		jsonv_write_key_number(f, "p50_us", p->top[k].p50_us, 3);
		jsonv_write_key_number(f, "p99_us", p->top[k].p99_us, 3);
		fputc('}', f);
	}
	fputc(']', f);
}

/* The three readers as objects of their own. */
static void profiles(FILE *f, const struct row *r, const double *v)
{
	struct readfig rf;
	readfig_compute(&r->h, &r->sec_p50, r->secs, &rf);
	fputs(",\"steady\":{\"reads_per_s\":", f);
	jsonv_write_number(f, v[C_RPS], 3);
	jsonv_write_key_number(f, "p50_us", v[C_P50], 3);
	jsonv_write_key_number(f, "p50_per_s_us", v[C_P50S], 3);
	jsonv_write_key_number(f, "p99_us", v[C_P99], 3);
	jsonv_write_key_number(f, "mean_us", v[C_MEAN], 3);
	jsonv_write_key_number(f, "stall_10ms", v[C_ST10], 3);
	jsonv_write_key_number(f, "stall_100ms", v[C_ST100], 3);
	jsonv_write_key_number(f, "max_us", v[C_MAX], 3);
	fprintf(f, ",\"n\":%llu,\"p50s_differ\":%s", (unsigned long long)r->h.n, readfig_skewed(&rf) ? "true" : "false");
	if (r->phase)
		fprintf(f, ",\"pid\":%d", r->phase->steady_pid);
	fputc('}', f);
	double s[AB_MAX_PHASES * AB_FRESH_RUNS];
	memcpy(s, r->fresh, sizeof(double) * (size_t)r->nfresh);
	double med = util_median(s, r->nfresh); /* sorts s */
	fprintf(f, ",\"fresh\":{\"runs\":%d,\"cut\":%d", r->nfresh, r->fresh_cut);
	jsonv_write_key_number(f, "job_ms_median", med, 3);
	jsonv_write_key_number(f, "job_ms_min", r->nfresh ? s[0] : NAN, 3);
	jsonv_write_key_number(f, "job_ms_max", r->nfresh ? s[r->nfresh - 1] : NAN, 3);
	if (r->phase) {
		fputs(",\"pids\":[", f);
		for (int k = 0; k < r->phase->nfresh; k++)
			fprintf(f, "%s%d", k ? "," : "", r->phase->fresh_pid[k]);
		fputc(']', f);
	}
	fprintf(f, "},\"paced\":{\"n\":%llu", (unsigned long long)r->paced.n);
	jsonv_write_key_number(f, "p50_us", v[C_PP50], 3);
	jsonv_write_key_number(f, "p99_us", v[C_PP99], 3);
	if (r->phase)
		fprintf(f, ",\"pid\":%d", r->phase->paced_pid);
	fputc('}', f);
}

static void write_row(FILE *f, const struct ab_config *cfg, const struct row *r, int first)
{
	double v[NCOL];
	abrows_values(r, v);
	fputs(first ? "{\"scheduler\":" : ",{\"scheduler\":", f);
	jsonv_write_string(f, r->label);
	if (r->round >= 0) {
		fprintf(f, ",\"round\":%d,\"baseline\":%s", r->round, r->round == 0 ? "true" : "false");
		jsonv_write_key_number(f, "start_ts", r->start_ts, 3);
	}
	for (int i = 0; i < NCOL; i++)
		if (abrows_col_used(cfg, (enum col)i))
			jsonv_write_key_number(f, abrows_col((enum col)i)->key, v[i], 3);
	if (!cfg->live)
		profiles(f, r, v);
	else if (r->phase)
		slot_extra(f, r);
	fputc('}', f);
}

/* Every figure, one row per variant (its phases pooled) and one per phase. */
static void tables(FILE *f, const struct ab_config *cfg, const struct ab_result *res, const struct row *sum)
{
	struct row *r = malloc(sizeof *r);
	fputs(",\"summary\":[", f);
	for (size_t v = 0; v < cfg->nv; v++)
		write_row(f, cfg, &sum[v], v == 0);
	fprintf(f, "],\"%s\":[", cfg->live ? "slots" : "phases");
	for (size_t i = 0; i < res->nphases && r; i++) {
		abrows_phase(cfg, &res->phases[i], r);
		write_row(f, cfg, r, i == 0);
	}
	fputc(']', f);
	free(r);
}

/* Variant v's label as a JSON string, or null (v < 0). */
static void variant_value(FILE *f, const struct ab_config *cfg, int v)
{
	char name[48];
	if (v < 0) {
		fputs("null", f);
		return;
	}
	abwords_label(cfg, (size_t)v, name, sizeof name);
	jsonv_write_string(f, name);
}

/* ,"key": variant v's label, or null (v < 0). */
static void key_variant(FILE *f, const char *key, const struct ab_config *cfg, int v)
{
	char name[48];
	if (v >= 0)
		abwords_label(cfg, (size_t)v, name, sizeof name);
	jsonv_write_key_string(f, key, v >= 0 ? name : NULL);
}

static void verdict(FILE *f, const struct ab_config *cfg, const struct abv_report *vr, enum abv_fig k, int first)
{
	const struct abv_verdict *v = &vr->v[k];
	const struct abv_fig_info *fi = abstats_fig(k);
	char text[ABW_VERDICT_LEN];
	fputs(first ? "{\"profile\":" : ",{\"profile\":", f);
	jsonv_write_string(f, abstats_reader_name(fi->reader));
	jsonv_write_key_string(f, "figure", fi->key);
	key_variant(f, "best", cfg, v->best);
	key_variant(f, "leader", cfg, v->leader);
	key_variant(f, "against", cfg, v->against);
	fprintf(f, ",\"decided\":%s", v->best >= 0 ? "true" : "false");
	/* a verdict's two figures to their full precision: a share of 0.0123
	 * or a ratio's operand must not lose its digits to three decimals */
	jsonv_write_key_significant(f, "leader_value", v->val_leader, 9);
	jsonv_write_key_significant(f, "against_value", v->val_against, 9);
	jsonv_write_key_number(f, "ratio", v->c.ratio, 3);
	jsonv_write_key_number(f, "ratio_lo", v->c.lo, 3);
	jsonv_write_key_number(f, "ratio_hi", v->c.hi, 3);
	jsonv_write_key_number(f, "p", v->leader < 0 ? NAN : v->c.p, 3);
	fprintf(f, ",\"rounds\":%d,\"rounds_needed\":", v->c.npairs);
	if (v->best >= 0 || v->rounds_needed == 0)
		fputs("null", f);
	else
		fprintf(f, "%d", v->rounds_needed);
	abwords_verdict(vr, cfg, k, text, sizeof text);
	jsonv_write_key_string(f, "text", text);
	fputc('}', f);
}

/* "verdict" per figure, "readers", "aa", the "test" and the "noise". */
static void verdicts(FILE *f, const struct ab_config *cfg, const struct abv_report *vr)
{
	char text[ABW_READER_LEN];
	fputs(",\"verdict\":[", f);
	for (int k = 0, first = 1; k < ABV_NFIGS; k++)
		if (abstats_fig_used(cfg, (enum abv_fig)k)) {
			verdict(f, cfg, vr, (enum abv_fig)k, first);
			first = 0;
		}
	fputs("],\"readers\":[", f);
	for (int rd = 0, first = 1; rd < ABV_NREADERS; rd++) {
		if (!abstats_reader_used(cfg, (enum abv_reader)rd))
			continue;
		fputs(first ? "{\"profile\":" : ",{\"profile\":", f);
		first = 0;
		jsonv_write_string(f, abstats_reader_name((enum abv_reader)rd));
		key_variant(f, "best", cfg, vr->reader[rd].best);
		fprintf(f, ",\"tradeoff\":%s", vr->reader[rd].tradeoff ? "true" : "false");
		abwords_reader(vr, cfg, (enum abv_reader)rd, text, sizeof text);
		jsonv_write_key_string(f, "text", text);
		fputc('}', f);
	}
	fprintf(f, "],\"aa\":%s,\"test\":{\"name\":", vr->aa ? "true" : "false");
	jsonv_write_string(f, "sign-flip over paired rounds");
	jsonv_write_key_number(f, "alpha", vr->alpha, 4);
	jsonv_write_key_number(f, "false_positive_bound", vr->level, 4);
	fprintf(f, ",\"rounds\":%d,\"min_rounds\":%d},\"noise\":[", vr->rounds, vr->min_pairs);
	for (int k = 0, first = 1; k < ABV_NFIGS; k++) {
		if (!abstats_fig_used(cfg, (enum abv_fig)k))
			continue;
		fputs(first ? "{\"figure\":" : ",{\"figure\":", f);
		first = 0;
		jsonv_write_string(f, abstats_fig((enum abv_fig)k)->key);
		jsonv_write_key_number(f, "own_spread", vr->noise[k], 3);
		jsonv_write_key_number(f, "smallest_decidable", vr->smallest[k], 3);
		fputc('}', f);
	}
	fputc(']', f);
}

/* "tradeoff": the closing sentences, each variant against the first. */
static void closing(FILE *f, const struct ab_config *cfg, const struct abv_report *vr, const struct row *sum)
{
	char text[1024];
	fputs(",\"tradeoff\":[", f);
	for (size_t v = 1; v < cfg->nv; v++) {
		abwords_change(vr, cfg, v, abrows_write_change(sum, v), text, sizeof text);
		fputs(v > 1 ? "," : "", f);
		jsonv_write_string(f, text);
	}
	fputc(']', f);
}

/* ,"key": s, or null when there is none (""). */
static void key_text(FILE *f, const char *key, const char *s)
{
	jsonv_write_key_string(f, key, s && *s ? s : NULL);
}

/* "next": desktop, server (a variant, or null: no choice), keep and undo
 * (null: nothing to keep), keep_server (the server's command where it
 * differs from the desktop's), rule_adds (a variant's tunables), uses
 * (each reader's variant) and why (each choice in words). */
static void next(FILE *f, const struct ab_config *cfg, const struct abn_words *w)
{
	fprintf(f, ",\"next\":{\"%s\":", abnext_use_key(ABN_DESKTOP, cfg));
	variant_value(f, cfg, w->n.use[ABN_DESKTOP].v);
	key_variant(f, abnext_use_key(ABN_SERVER, cfg), cfg, w->n.use[ABN_SERVER].v);
	key_text(f, "keep", w->keep);
	key_text(f, "undo", w->n.keep >= 0 ? w->undo : NULL);
	key_text(f, "keep_server", w->keep_other);
	key_text(f, "rule_adds", w->adds);
	key_text(f, "rule_adds_server", w->adds_other);
	fprintf(f, ",\"keep_is_now\":%s", w->keep_is_now ? "true" : "false");
	fputs(",\"uses\":{", f);
	for (int rd = 0, first = 1; rd < ABV_NREADERS; rd++) {
		if (!abstats_reader_used(cfg, (enum abv_reader)rd))
			continue;
		fputs(first ? "" : ",", f);
		first = 0;
		jsonv_write_string(f, abstats_reader_name((enum abv_reader)rd));
		fputc(':', f);
		variant_value(f, cfg, w->n.reader[rd].v);
	}
	fprintf(f, "},\"why\":{\"%s\":", abnext_use_key(ABN_DESKTOP, cfg));
	if (w->use[ABN_DESKTOP][0])
		jsonv_write_string(f, w->use[ABN_DESKTOP]);
	else
		fputs("null", f);
	key_text(f, abnext_use_key(ABN_SERVER, cfg), w->use[ABN_SERVER]);
	fputs("}}", f);
}

void abreport_json(FILE *f, const struct ab_config *cfg, const struct ab_result *res, const struct row *sum,
		   const struct abv_report *vr)
{
	header(f, cfg, res);
	tables(f, cfg, res, sum);
	if (vr) {
		verdicts(f, cfg, vr);
		closing(f, cfg, vr, sum);
	}
	jsonv_write_key_string(f, "restored", res->original);
	struct abn_words *w = vr ? malloc(sizeof *w) : NULL;
	if (w) {
		abnext_words(vr, cfg, res->original, w);
		next(f, cfg, w);
	}
	fputs("}\n", f);
	free(w);
}
