/* abreport: see include/out/abreport.h */
#include "out/abreport.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "abnext.h"
#include "model/abverdict.h"
#include "json.h"
#include "probe/readfig.h"
#include "base/util.h"

/* One row's readers: a phase, or a variant's loaded phases pooled. */
struct row {
	char label[48];
	int round;                  /* -1: a summary row */
	double start_ts;
	struct hist h, sec_p50, paced; /* steady reads, its per-second p50s, paced reads */
	double secs;
	double read_MBps, write_MBps;
	double startup_med;         /* NAN: none */
	double fresh[AB_MAX_PHASES * AB_FRESH_RUNS];
	int nfresh, fresh_cut;
	const struct ab_phase *phase; /* a phase row's phase; NULL for a summary */
};

/* The columns. The first ten are the steady reader's per-read figures and
 * the disk's rates, as in reports before the three readers (their keys are
 * kept); text and Markdown show those marked. */
enum col {
	C_N, C_P50, C_MEAN, C_P90, C_P99, C_P999, C_MAX, C_RMB, C_WMB, C_STARTUP,
	C_P50S, C_RPS, C_ST10, C_ST100, C_FRESH, C_PP50, C_PP99, NCOL
};
/* key: CSV and JSON, in the unit it names; head: text and Markdown, where
 * every time is in ms (us: the value is in us and is shown / 1000), so one
 * table never mixes units. */
static const struct {
	const char *key, *head;
	int shown;                  /* in text and Markdown */
	int us;
} cols[NCOL] = {
	[C_N] = {"n", "n", 1, 0},
	[C_P50] = {"p50_us", "p50 ms", 1, 1},
	[C_MEAN] = {"mean_us", "mean ms", 0, 1},
	[C_P90] = {"p90_us", "p90 ms", 0, 1},
	[C_P99] = {"p99_us", "p99 ms", 1, 1},
	[C_P999] = {"p999_us", "p99.9 ms", 0, 1},
	[C_MAX] = {"max_us", "max ms", 1, 1},
	[C_RMB] = {"read_MBps", "read MB/s", 0, 0},
	[C_WMB] = {"write_MBps", "write MB/s", 1, 0},
	[C_STARTUP] = {"startup_s", "startup s", 1, 0},
	[C_P50S] = {"p50_per_s_us", "p50/s ms", 1, 1},
	[C_RPS] = {"reads_per_s", "reads/s", 1, 0},
	[C_ST10] = {"stall_10ms", ">10ms %", 1, 0},
	[C_ST100] = {"stall_100ms", ">100ms %", 1, 0},
	[C_FRESH] = {"fresh_ms", "fresh ms", 1, 0},
	[C_PP50] = {"paced_p50_us", "paced p50 ms", 1, 1},
	[C_PP99] = {"paced_p99_us", "paced p99 ms", 1, 1},
};
/* The order text and Markdown show them in: steady, fresh, paced, disk. */
static const enum col shown_order[] = {C_N,     C_P50,   C_P50S,  C_P99,  C_MAX,  C_RPS,  C_ST10,
				       C_ST100, C_FRESH, C_PP50,  C_PP99, C_WMB, C_STARTUP};
#define NSHOWN (sizeof shown_order / sizeof shown_order[0])

/* The text report's widest line: it reads whole at 100 columns. */
#define TEXT_WIDTH 100

/* Where a line of at most room bytes of p ends: at the last space that
 * fits, or (a word longer than the line) cut, never inside a UTF-8
 * character. */
static size_t line_end(const char *p, size_t room)
{
	if (strlen(p) <= room)
		return strlen(p);
	size_t k = room;
	while (k > 0 && p[k] != ' ')
		k--;
	if (k > 0)
		return k;
	for (k = room; k > 1 && ((unsigned char)p[k] & 0xC0) == 0x80;)
		k--;
	return k;
}

/* One line of prose after pre: Markdown keeps it whole (its reader
 * wraps); text breaks it at spaces within TEXT_WIDTH, continuation lines
 * indented two more than pre. Bytes are counted, never fewer than the
 * columns they take. */
static void say(FILE *f, enum ab_format fmt, const char *pre, const char *s)
{
	if (fmt != AB_TEXT) {
		fprintf(f, "%s%s\n", pre, s);
		return;
	}
	size_t lead = strlen(pre) < TEXT_WIDTH / 2 ? strlen(pre) : TEXT_WIDTH / 2;
	int first = 1;
	do {
		size_t room = TEXT_WIDTH - (first ? lead : lead + 2), k = line_end(s, room);
		fprintf(f, "%*s%.*s\n", first ? 0 : (int)lead + 2, first ? pre : "", (int)k, s);
		for (s += k; *s == ' ';)
			s++;
		first = 0;
	} while (*s);
}

/* say() with a format. */
__attribute__((format(printf, 4, 5))) static void sayf(FILE *f, enum ab_format fmt, const char *pre, const char *fmtstr,
						       ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmtstr);
	vsnprintf(buf, sizeof buf, fmtstr, ap);
	va_end(ap);
	say(f, fmt, pre, buf);
}

static double fresh_median(const struct row *r)
{
	double v[AB_MAX_PHASES * AB_FRESH_RUNS];
	memcpy(v, r->fresh, sizeof(double) * (size_t)r->nfresh);
	return util_median(v, r->nfresh);
}

static void values(const struct row *r, double *v)
{
	struct readfig f;
	readfig_compute(&r->h, &r->sec_p50, r->secs, &f);
	v[C_N] = (double)r->h.n;
	v[C_P50] = hist_quantile_us(&r->h, 0.5);
	v[C_MEAN] = f.mean_us;
	v[C_P90] = hist_quantile_us(&r->h, 0.9);
	v[C_P99] = hist_quantile_us(&r->h, 0.99);
	v[C_P999] = hist_quantile_us(&r->h, 0.999);
	v[C_MAX] = f.max_us;
	v[C_RMB] = r->read_MBps;
	v[C_WMB] = r->write_MBps;
	v[C_STARTUP] = r->startup_med;
	v[C_P50S] = f.p50_per_s_us;
	v[C_RPS] = f.reads_per_s;
	v[C_ST10] = r->secs > 0 ? f.stall_10ms : NAN;
	v[C_ST100] = r->secs > 0 ? f.stall_100ms : NAN;
	v[C_FRESH] = fresh_median(r);
	v[C_PP50] = hist_quantile_us(&r->paced, 0.5);
	v[C_PP99] = hist_quantile_us(&r->paced, 0.99);
}

/* A figure as text: "-" (text, md) or "" (csv) when it does not exist. */
static void fig(double v, enum col c, enum ab_format fmt, char *b, size_t n)
{
	if (isnan(v))
		util_strlcpy(b, fmt == AB_CSV ? "" : "-", n);
	else if ((c == C_ST10 || c == C_ST100) && fmt != AB_CSV)
		snprintf(b, n, "%.1f", v * 100);
	else if (cols[c].us && fmt != AB_CSV)
		snprintf(b, n, "%.3f", v / 1000);
	else
		snprintf(b, n, c == C_N ? "%.0f" : c == C_STARTUP || c == C_ST10 || c == C_ST100 ? "%.3f" : "%.1f", v);
}

static void write_head(FILE *f, enum ab_format fmt, const char *first)
{
	if (fmt == AB_MD) {
		fprintf(f, "| %s | round |", first);
		for (size_t i = 0; i < NSHOWN; i++)
			fprintf(f, " %s |", cols[shown_order[i]].head);
		fputs("\n|---|---:|", f);
		for (size_t i = 0; i < NSHOWN; i++)
			fputs("---:|", f);
		fputc('\n', f);
	} else if (fmt == AB_CSV) {
		fprintf(f, "kind,variant,round");
		for (int i = 0; i < NCOL; i++)
			fprintf(f, ",%s", cols[i].key);
		fputs(",profile,figure,decided,ratio,ratio_lo,ratio_hi,rounds_needed,text\n", f);
	}
}

static void json_num(FILE *f, const char *sep, const char *key, double v)
{
	if (isnan(v))
		fprintf(f, "%s\"%s\":null", sep, key);
	else
		fprintf(f, "%s\"%s\":%.3f", sep, key, v);
}

/* A figure to its full precision: a share of 0.0123 or a ratio's operand
 * must not lose its digits to %.3f. */
static void json_exact(FILE *f, const char *key, double v)
{
	if (isnan(v) || isinf(v))
		fprintf(f, ",\"%s\":null", key);
	else
		fprintf(f, ",\"%s\":%.9g", key, v);
}

/* The three readers as objects of their own. */
static void json_profiles(FILE *f, const struct row *r, const double *v)
{
	struct readfig rf;
	readfig_compute(&r->h, &r->sec_p50, r->secs, &rf);
	json_num(f, ",\"steady\":{", "reads_per_s", v[C_RPS]);
	json_num(f, ",", "p50_us", v[C_P50]);
	json_num(f, ",", "p50_per_s_us", v[C_P50S]);
	json_num(f, ",", "p99_us", v[C_P99]);
	json_num(f, ",", "mean_us", v[C_MEAN]);
	json_num(f, ",", "stall_10ms", v[C_ST10]);
	json_num(f, ",", "stall_100ms", v[C_ST100]);
	json_num(f, ",", "max_us", v[C_MAX]);
	fprintf(f, ",\"n\":%llu,\"p50s_differ\":%s", (unsigned long long)r->h.n, readfig_skewed(&rf) ? "true" : "false");
	if (r->phase)
		fprintf(f, ",\"pid\":%d", r->phase->steady_pid);
	fputc('}', f);
	double s[AB_MAX_PHASES * AB_FRESH_RUNS];
	memcpy(s, r->fresh, sizeof(double) * (size_t)r->nfresh);
	double med = util_median(s, r->nfresh); /* sorts s */
	fprintf(f, ",\"fresh\":{\"runs\":%d,\"cut\":%d", r->nfresh, r->fresh_cut);
	json_num(f, ",", "job_ms_median", med);
	json_num(f, ",", "job_ms_min", r->nfresh ? s[0] : NAN);
	json_num(f, ",", "job_ms_max", r->nfresh ? s[r->nfresh - 1] : NAN);
	if (r->phase) {
		fputs(",\"pids\":[", f);
		for (int k = 0; k < r->phase->nfresh; k++)
			fprintf(f, "%s%d", k ? "," : "", r->phase->fresh_pid[k]);
		fputc(']', f);
	}
	fprintf(f, "},\"paced\":{\"n\":%llu", (unsigned long long)r->paced.n);
	json_num(f, ",", "p50_us", v[C_PP50]);
	json_num(f, ",", "p99_us", v[C_PP99]);
	if (r->phase)
		fprintf(f, ",\"pid\":%d", r->phase->paced_pid);
	fputc('}', f);
}

static void write_row(FILE *f, enum ab_format fmt, const char *kind, const struct row *r, int first)
{
	double v[NCOL];
	char b[32], round[16];
	values(r, v);
	snprintf(round, sizeof round, "%d", r->round);
	if (fmt == AB_JSON) {
		fprintf(f, "%s{\"scheduler\":", first ? "" : ",");
		jsonv_write_string(f, r->label);
		if (r->round >= 0)
			fprintf(f, ",\"round\":%d,\"baseline\":%s,\"start_ts\":%.3f", r->round, r->round == 0 ? "true" : "false",
				r->start_ts);
		for (int i = 0; i < NCOL; i++)
			json_num(f, ",", cols[i].key, v[i]);
		json_profiles(f, r, v);
		fputc('}', f);
		return;
	}
	const char *rs = r->round < 0 ? "all" : r->round == 0 ? "base" : round;
	if (fmt == AB_MD)
		fprintf(f, "| %s | %s |", r->label, rs);
	else
		fprintf(f, "%s,\"%s\",%s", kind, r->label, r->round < 0 ? "" : round);
	for (size_t i = 0; i < (fmt == AB_CSV ? (size_t)NCOL : NSHOWN); i++) {
		enum col c = fmt == AB_CSV ? (enum col)i : shown_order[i];
		fig(v[c], c, fmt, b, sizeof b);
		if (fmt == AB_MD)
			fprintf(f, " %s |", b);
		else
			fprintf(f, ",%s", b);
	}
	fputs(fmt == AB_CSV ? ",,,,,,,,\n" : "\n", f);
}

static void add_phase(struct row *r, const struct ab_phase *p)
{
	hist_merge(&r->h, &p->h);
	hist_merge(&r->sec_p50, &p->sec_p50);
	hist_merge(&r->paced, &p->paced);
	r->secs += p->secs;
	for (int k = 0; k < p->nfresh && r->nfresh < (int)(sizeof r->fresh / sizeof r->fresh[0]); k++)
		r->fresh[r->nfresh++] = p->fresh_ms[k];
	r->fresh_cut += p->fresh_cut;
}

/* Pool a variant's loaded phases. */
static void summary(const struct ab_config *cfg, const struct ab_result *res, int v, struct row *r)
{
	double st[AB_MAX_PHASES * 4];
	int nst = 0, n = 0;
	memset(r, 0, sizeof *r);
	abverdict_label(cfg, (size_t)v, r->label, sizeof r->label);
	r->round = -1;
	for (size_t i = 0; i < res->nphases; i++) {
		const struct ab_phase *p = &res->phases[i];
		if (p->variant != v || p->round == 0)
			continue;
		add_phase(r, p);
		r->read_MBps += p->read_MBps;
		r->write_MBps += p->write_MBps;
		n++;
		for (int k = 0; k < p->nstartup && nst < (int)(sizeof st / sizeof st[0]); k++)
			st[nst++] = p->startup_s[k];
	}
	r->read_MBps = n ? r->read_MBps / n : NAN;
	r->write_MBps = n ? r->write_MBps / n : NAN;
	r->startup_med = util_median(st, nst);
}

static void phase_row(const struct ab_config *cfg, const struct ab_phase *p, struct row *r)
{
	double st[AB_MAX_STARTUPS];
	memset(r, 0, sizeof *r);
	abverdict_label(cfg, (size_t)p->variant, r->label, sizeof r->label);
	r->round = p->round;
	r->start_ts = p->start_ts;
	r->phase = p;
	add_phase(r, p);
	r->read_MBps = p->read_MBps;
	r->write_MBps = p->write_MBps;
	memcpy(st, p->startup_s, sizeof st);
	r->startup_med = util_median(st, p->nstartup);
}

/* The text report's tables, one per reader so that each fits TEXT_WIDTH:
 * the steady reader's figures, then the fresh and paced readers' with the
 * writer's MB/s (and the cold starts when timed). Markdown and CSV keep
 * every figure in one table. */
static const enum col text_steady[] = {C_N, C_P50, C_P50S, C_P99, C_MAX, C_RPS, C_ST10, C_ST100};
static const enum col text_others[] = {C_FRESH, C_PP50, C_PP99, C_WMB, C_STARTUP};

struct ttable {
	const char *title;          /* the first column's head */
	const enum col *cols;
	size_t ncols;
	int w[NCOL];                /* each column's width, by enum col */
	int label_w, gap;
};

struct trow {
	char label[48], round[8];
	double v[NCOL];
};

/* Widths from the heads and every row's figures, two spaces apart where
 * that fits, else one; the label column takes what is left, down to 8 (a
 * longer label is cut, marked with '~'). */
static void ttable_fit(struct ttable *t, const struct trow *rows, size_t n)
{
	char b[32];
	int figs = 0;
	t->label_w = (int)strlen(t->title);
	for (size_t i = 0; i < t->ncols; i++) {
		enum col c = t->cols[i];
		t->w[c] = (int)strlen(cols[c].head);
		for (size_t r = 0; r < n; r++) {
			fig(rows[r].v[c], c, AB_TEXT, b, sizeof b);
			t->w[c] = (int)strlen(b) > t->w[c] ? (int)strlen(b) : t->w[c];
		}
		figs += t->w[c];
	}
	for (size_t r = 0; r < n; r++)
		t->label_w = (int)strlen(rows[r].label) > t->label_w ? (int)strlen(rows[r].label) : t->label_w;
	t->gap = t->label_w + 7 + figs + 2 * (int)t->ncols <= TEXT_WIDTH ? 2 : 1;
	int room = TEXT_WIDTH - (t->gap + 5) - figs - t->gap * (int)t->ncols;
	if (t->label_w > room)
		t->label_w = room > 8 ? room : 8;
}

static void ttable_write(FILE *f, const struct ttable *t, const struct trow *rows, size_t n)
{
	char b[32];
	fprintf(f, "%-*.*s%*s", t->label_w, t->label_w, t->title, t->gap + 5, "round");
	for (size_t i = 0; i < t->ncols; i++)
		fprintf(f, "%*s", t->gap + t->w[t->cols[i]], cols[t->cols[i]].head);
	fputc('\n', f);
	for (size_t r = 0; r < n; r++) {
		int cut = (int)strlen(rows[r].label) > t->label_w, lw = cut ? t->label_w - 1 : t->label_w;
		fprintf(f, "%-*.*s%s%*s", lw, lw, rows[r].label, cut ? "~" : "", t->gap + 5, rows[r].round);
		for (size_t i = 0; i < t->ncols; i++) {
			fig(rows[r].v[t->cols[i]], t->cols[i], AB_TEXT, b, sizeof b);
			fprintf(f, "%*s", t->gap + t->w[t->cols[i]], b);
		}
		fputc('\n', f);
	}
}

static void trow_set(struct trow *t, const struct row *r)
{
	util_strlcpy(t->label, r->label, sizeof t->label);
	if (r->round < 0)
		util_strlcpy(t->round, "all", sizeof t->round);
	else if (r->round == 0)
		util_strlcpy(t->round, "base", sizeof t->round);
	else
		util_fmt(t->round, sizeof t->round, "%d", r->round);
	values(r, t->v);
}

/* The summary rows (sum, one per variant), then the phases: two tables
 * each, the widths shared by the summary's and the phases' tables. */
static void text_tables(FILE *f, const struct ab_config *cfg, const struct ab_result *res, const struct row *sum)
{
	size_t n = cfg->nv + res->nphases;
	struct trow *rows = calloc(n, sizeof *rows);
	struct row *r = malloc(sizeof *r);
	if (!rows || !r) {
		free(rows);
		free(r);
		return;
	}
	for (size_t v = 0; v < cfg->nv; v++)
		trow_set(&rows[v], &sum[v]);
	for (size_t i = 0; i < res->nphases; i++) {
		phase_row(cfg, &res->phases[i], r);
		trow_set(&rows[cfg->nv + i], r);
	}
	size_t nothers = sizeof text_others / sizeof text_others[0] - !cfg->startup_cmd;
	struct ttable t[2] = {{"steady reader", text_steady, sizeof text_steady / sizeof text_steady[0], {0}, 0, 0},
			      {"fresh, paced, writer", text_others, nothers, {0}, 0, 0}};
	for (int k = 0; k < 2; k++)
		ttable_fit(&t[k], rows, n);
	sayf(f, AB_TEXT, "", "per variant, pooled over all phases%s:", cfg->baseline ? " with load (the baselines apart)" : "");
	for (int k = 0; k < 2; k++) {
		ttable_write(f, &t[k], rows, cfg->nv);
		fputc('\n', f);
	}
	say(f, AB_TEXT, "", "per phase:");
	for (int k = 0; k < 2; k++) {
		ttable_write(f, &t[k], rows + cfg->nv, res->nphases);
		if (k == 0)
			fputc('\n', f);
	}
	free(r);
	free(rows);
}

static void json_dbl(FILE *f, const char *key, double v)
{
	json_num(f, ",", key, isinf(v) ? NAN : v);
}

static void json_verdicts(FILE *f, const struct ab_config *cfg, const struct abv_report *vr)
{
	char name[48];
	fputs(",\"verdict\":[", f);
	for (int k = 0; k < ABV_NFIGS; k++) {
		const struct abv_verdict *v = &vr->v[k];
		const struct abv_fig_info *fi = abverdict_fig((enum abv_fig)k);
		fprintf(f, "%s{\"profile\":\"%s\",\"figure\":\"%s\",\"best\":", k ? "," : "",
			abverdict_reader_name(fi->reader), fi->key);
		const int who[3] = {v->best, v->leader, v->against};
		for (int i = 0; i < 3; i++) {
			fputs(i == 1 ? ",\"leader\":" : i == 2 ? ",\"against\":" : "", f);
			if (who[i] < 0) {
				fputs("null", f);
				continue;
			}
			abverdict_label(cfg, (size_t)who[i], name, sizeof name);
			jsonv_write_string(f, name);
		}
		fprintf(f, ",\"decided\":%s", v->best >= 0 ? "true" : "false");
		json_exact(f, "leader_value", v->val_leader);
		json_exact(f, "against_value", v->val_against);
		json_dbl(f, "ratio", v->c.ratio);
		json_dbl(f, "ratio_lo", v->c.lo);
		json_dbl(f, "ratio_hi", v->c.hi);
		json_dbl(f, "p", v->leader < 0 ? NAN : v->c.p);
		fprintf(f, ",\"rounds\":%d,\"rounds_needed\":", v->c.npairs);
		if (v->best >= 0 || v->rounds_needed == 0)
			fputs("null", f);
		else
			fprintf(f, "%d", v->rounds_needed);
		fputs(",\"text\":", f);
		jsonv_write_string(f, v->text);
		fputc('}', f);
	}
	fputs("],\"readers\":[", f);
	for (int rd = 0; rd < ABV_NREADERS; rd++) {
		fprintf(f, "%s{\"profile\":\"%s\",\"best\":", rd ? "," : "", abverdict_reader_name((enum abv_reader)rd));
		if (vr->reader[rd].best >= 0) {
			abverdict_label(cfg, (size_t)vr->reader[rd].best, name, sizeof name);
			jsonv_write_string(f, name);
		} else {
			fputs("null", f);
		}
		fprintf(f, ",\"tradeoff\":%s,\"text\":", vr->reader[rd].tradeoff ? "true" : "false");
		jsonv_write_string(f, vr->reader[rd].text);
		fputc('}', f);
	}
	fprintf(f, "],\"aa\":%s,\"test\":{\"name\":\"sign-flip over paired rounds\",\"alpha\":%.4f,"
		   "\"false_positive_bound\":%.4f,\"rounds\":%d,\"min_rounds\":%d},\"noise\":[",
		vr->aa ? "true" : "false", vr->alpha, vr->level, vr->rounds, vr->min_pairs);
	for (int k = 0; k < ABV_NFIGS; k++) {
		double worst = NAN;
		for (size_t v = 0; v < vr->nv; v++)
			if (!isnan(vr->own_spread[v][k]) && (isnan(worst) || vr->own_spread[v][k] > worst))
				worst = vr->own_spread[v][k];
		fprintf(f, "%s{\"figure\":\"%s\"", k ? "," : "", abverdict_fig((enum abv_fig)k)->key);
		json_dbl(f, "own_spread", worst);
		json_dbl(f, "smallest_decidable", vr->smallest[k]);
		fputc('}', f);
	}
	fputc(']', f);
}

/* The verdicts as CSV rows under the same header: kind "verdict", the
 * best variant (empty when none), then the verdict's own columns. */
static void csv_verdicts(FILE *f, const struct ab_config *cfg, const struct abv_report *vr)
{
	char name[48] = "", num[4][32];
	for (int k = 0; k < ABV_NFIGS; k++) {
		const struct abv_verdict *v = &vr->v[k];
		const struct abv_fig_info *fi = abverdict_fig((enum abv_fig)k);
		name[0] = '\0';
		if (v->best >= 0)
			abverdict_label(cfg, (size_t)v->best, name, sizeof name);
		fprintf(f, "verdict,\"%s\",", name);
		for (int i = 0; i < NCOL; i++)
			fputc(',', f);
		const double x[3] = {v->c.ratio, v->c.lo, v->c.hi};
		for (int i = 0; i < 3; i++)
			fig(isinf(x[i]) ? NAN : x[i], C_MEAN, AB_CSV, num[i], sizeof num[i]);
		util_fmt(num[3], sizeof num[3], "%d", v->rounds_needed);
		fprintf(f, ",%s,%s,%s,%s,%s,%s,%s,\"", abverdict_reader_name(fi->reader), fi->key,
			v->best >= 0 ? "true" : "false", num[0], num[1], num[2],
			v->best >= 0 || v->rounds_needed == 0 ? "" : num[3]);
		for (const char *p = v->text; *p; p++)
			fputs(*p == '"' ? "\"\"" : (char[2]){*p, 0}, f);
		fputs("\"\n", f);
	}
}

/* Verdicts per figure and per reader, the closing sentences and, where a
 * variant's two p50s part, what that means: all from abverdict. */
static void conclusions(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct abv_report *vr,
			const struct row *sum)
{
	char text[1024];
	const char *pre = fmt == AB_MD ? "- " : "  ";
	if (fmt == AB_CSV) {
		csv_verdicts(f, cfg, vr);
		return;
	}
	if (fmt == AB_JSON) {
		json_verdicts(f, cfg, vr);
		fputs(",\"tradeoff\":[", f);
	} else {
		fputc('\n', f);
		sayf(f, fmt, "", "verdicts (each phase one observation, rounds paired A B B A; a sign-flip test over the "
				 "rounds: at most %.1f %% false positives per verdict%s):%s",
		     vr->level * 100, vr->nv > 2 ? ", corrected for the pairs of variants" : "", fmt == AB_MD ? "\n" : "");
		if (vr->aa)
			say(f, fmt, pre, "A/A: every variant is the same setting, so a verdict decided here is a false positive");
		for (int k = 0; k < ABV_NFIGS; k++)
			say(f, fmt, pre, vr->v[k].text);
		fprintf(f, "\nper reader:\n%s", fmt == AB_MD ? "\n" : "");
		for (int rd = 0; rd < ABV_NREADERS; rd++)
			say(f, fmt, pre, vr->reader[rd].text);
		if (vr->aa) {
			fprintf(f, "\nthis disk's noise with these settings:\n%s", fmt == AB_MD ? "\n" : "");
			for (int k = 0; k < ABV_NFIGS; k++) {
				abverdict_noise(vr, (enum abv_fig)k, text, sizeof text);
				say(f, fmt, pre, text);
			}
		}
		fputc('\n', f);
	}
	for (size_t v = 1; v < cfg->nv; v++) {
		double w = sum[0].write_MBps > 0 && !isnan(sum[v].write_MBps)
				   ? (sum[v].write_MBps / sum[0].write_MBps - 1) * 100 : NAN;
		abverdict_change(vr, cfg, v, w, text, sizeof text);
		if (fmt == AB_JSON) {
			fputs(v > 1 ? "," : "", f);
			jsonv_write_string(f, text);
		} else {
			sayf(f, fmt, "", "%s.", text);
		}
	}
	if (fmt == AB_JSON) {
		fputc(']', f);
		return;
	}
	for (size_t v = 0; v < cfg->nv; v++) {
		struct readfig rf;
		char name[48];
		readfig_compute(&sum[v].h, &sum[v].sec_p50, sum[v].secs, &rf);
		abverdict_label(cfg, v, name, sizeof name);
		if (readfig_sentence(&rf, text, sizeof text))
			sayf(f, fmt, "", "%s, steady reader: %s.", name, text);
	}
}

/* The next step's parts as words (abnext decides): each reader's use,
 * the desktop's and the server's choice, the keep commands (""), what the
 * rule must add for a variant's tunables, and the undo. */
struct next_words {
	struct abn_next n;
	char reader[ABV_NREADERS][96], use[ABN_NUSES][96];
	char keep[256], keep_other[256], adds[400], adds_other[400], undo[320], undo_cmd[160];
	char keep_name[48], other_name[48];
};

static void next_words(const struct abv_report *vr, const struct ab_config *cfg, const char *original,
		       struct next_words *w)
{
	abnext_decide(vr, &w->n);
	for (int rd = 0; rd < ABV_NREADERS; rd++)
		abnext_choice_text(&w->n.reader[rd], cfg, w->reader[rd], sizeof w->reader[rd]);
	for (int u = 0; u < ABN_NUSES; u++)
		abnext_choice_text(&w->n.use[u], cfg, w->use[u], sizeof w->use[u]);
	abnext_keep(cfg, w->n.keep, w->keep, sizeof w->keep);
	abnext_keep(cfg, w->n.keep_other, w->keep_other, sizeof w->keep_other);
	abnext_rule_adds(cfg, w->n.keep, w->adds, sizeof w->adds);
	abnext_rule_adds(cfg, w->n.keep_other, w->adds_other, sizeof w->adds_other);
	abnext_undo(cfg, original, w->undo, sizeof w->undo);
	abnext_undo_command(cfg, original, w->undo_cmd, sizeof w->undo_cmd);
	w->keep_name[0] = w->other_name[0] = '\0';
	if (w->n.keep >= 0)
		abverdict_label(cfg, (size_t)w->n.keep, w->keep_name, sizeof w->keep_name);
	if (w->n.keep_other >= 0)
		abverdict_label(cfg, (size_t)w->n.keep_other, w->other_name, sizeof w->other_name);
}

/* "sep"key": a string, or null when there is none. */
static void json_str_or_null(FILE *f, const char *sep, const char *key, const char *s)
{
	fprintf(f, "%s\"%s\":", sep, key);
	if (s && *s)
		jsonv_write_string(f, s);
	else
		fputs("null", f);
}

/* A choice's variant as a JSON string, or null. */
static void json_choice(FILE *f, const char *sep, const char *key, const struct ab_config *cfg,
			const struct abn_choice *c)
{
	char name[48] = "";
	if (c->v >= 0)
		abverdict_label(cfg, (size_t)c->v, name, sizeof name);
	json_str_or_null(f, sep, key, name);
}

/* JSON: "next": desktop, server (a variant, or null: no choice), keep and
 * undo (null: nothing to keep), keep_server (the server's command where it
 * differs from the desktop's), rule_adds (a variant's tunables), uses (each
 * reader's variant) and why (each choice in words). */
static void next_json(FILE *f, const struct ab_config *cfg, const struct next_words *w)
{
	json_choice(f, ",\"next\":{", "desktop", cfg, &w->n.use[ABN_DESKTOP]);
	json_choice(f, ",", "server", cfg, &w->n.use[ABN_SERVER]);
	json_str_or_null(f, ",", "keep", w->keep);
	json_str_or_null(f, ",", "undo", w->n.keep >= 0 ? w->undo : NULL);
	json_str_or_null(f, ",", "keep_server", w->keep_other);
	json_str_or_null(f, ",", "rule_adds", w->adds);
	json_str_or_null(f, ",", "rule_adds_server", w->adds_other);
	for (int rd = 0; rd < ABV_NREADERS; rd++)
		json_choice(f, rd ? "," : ",\"uses\":{", abverdict_reader_name((enum abv_reader)rd), cfg, &w->n.reader[rd]);
	json_str_or_null(f, "},\"why\":{", "desktop", w->use[ABN_DESKTOP]);
	json_str_or_null(f, ",", "server", w->use[ABN_SERVER]);
	fputs("}}", f);
}

/* CSV: rows of kind "next" under the same header: the variant (empty for
 * none), what it is for in the profile column, the words or the command
 * in text. */
static void next_csv_row(FILE *f, const char *variant, const char *what, const char *text)
{
	fprintf(f, "next,\"%s\",", variant);
	for (int i = 0; i < NCOL; i++)
		fputc(',', f);
	fprintf(f, ",%s,,,,,,,\"", what);
	for (const char *p = text; *p; p++)
		fputs(*p == '"' ? "\"\"" : (char[2]){*p, 0}, f);
	fputs("\"\n", f);
}

static void next_csv(FILE *f, const struct ab_config *cfg, const struct next_words *w)
{
	char name[48];
	for (int rd = 0; rd < ABV_NREADERS; rd++) {
		name[0] = '\0';
		if (w->n.reader[rd].v >= 0)
			abverdict_label(cfg, (size_t)w->n.reader[rd].v, name, sizeof name);
		next_csv_row(f, name, abverdict_reader_name((enum abv_reader)rd), w->reader[rd]);
	}
	for (int u = 0; u < ABN_NUSES; u++) {
		name[0] = '\0';
		if (w->n.use[u].v >= 0)
			abverdict_label(cfg, (size_t)w->n.use[u].v, name, sizeof name);
		next_csv_row(f, name, u == ABN_DESKTOP ? "desktop" : "server", w->use[u]);
	}
	if (w->n.keep < 0)
		return;
	next_csv_row(f, w->keep_name, "keep", w->keep);
	if (w->adds[0])
		next_csv_row(f, w->keep_name, "rule_adds", w->adds);
	if (w->n.keep_other >= 0)
		next_csv_row(f, w->other_name, "keep_server", w->keep_other);
	if (w->adds_other[0])
		next_csv_row(f, w->other_name, "rule_adds_server", w->adds_other);
	next_csv_row(f, "", "undo", w->undo);
}

/* A command on a line of its own (Markdown: in backticks), to be copied
 * whole. */
static void command_line(FILE *f, enum ab_format fmt, const char *cmd)
{
	if (fmt == AB_MD)
		sayf(f, fmt, "  ", "`%s`", cmd);
	else
		say(f, fmt, "    ", cmd);
}

/* What a kept variant's tunables need in the rule, if it has any. */
static void adds_line(FILE *f, enum ab_format fmt, const char *pre, const char *name, const char *adds)
{
	if (adds[0])
		sayf(f, fmt, pre, "the rule keeps the scheduler only: for %s's tunables add %s%s%s at the end of its line",
		     name, fmt == AB_MD ? "`" : "", adds, fmt == AB_MD ? "`" : "");
}

/* Text and Markdown: the plain lines that end the report, uses in the
 * order people name them (starting programs, long-running, interactive). */
static void next_lines(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct next_words *w)
{
	static const enum abv_reader order[ABV_NREADERS] = {ABV_FRESH, ABV_STEADY, ABV_PACED};
	const char *pre = fmt == AB_MD ? "- " : "  ";
	fprintf(f, "\nnext step:\n%s", fmt == AB_MD ? "\n" : "");
	for (int k = 0; k < ABV_NREADERS; k++)
		sayf(f, fmt, pre, "%s: %s", abnext_reader_use(order[k]), w->reader[order[k]]);
	for (int u = 0; u < ABN_NUSES; u++)
		sayf(f, fmt, pre, "%s: %s", abnext_use_name((enum abn_use)u), w->use[u]);
	if (w->n.keep < 0) {
		sayf(f, fmt, pre, "nothing to keep: %s stays as it is", cfg->disk);
		return;
	}
	sayf(f, fmt, pre, "to keep %s on %s across reboots, as root (it switches now and prints the udev rule and "
			  "where it goes; or P, then w, in the full screen):", w->keep_name, cfg->disk);
	command_line(f, fmt, w->keep);
	adds_line(f, fmt, pre, w->keep_name, w->adds);
	if (w->n.keep_other >= 0) {
		sayf(f, fmt, pre, "for a server, %s instead:", w->other_name);
		command_line(f, fmt, w->keep_other);
		adds_line(f, fmt, pre, w->other_name, w->adds_other);
	}
	sayf(f, fmt, pre, "to undo: delete the rule for %s from the rules file it went into, then switch back now "
			  "(the keep command's message names any other setting the switch reset):", cfg->disk);
	command_line(f, fmt, w->undo_cmd);
}

/* The next step in the format asked for. */
static void next_step(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct abv_report *vr,
		      const char *original)
{
	struct next_words *w = malloc(sizeof *w);
	if (!w)
		return;
	next_words(vr, cfg, original, w);
	if (fmt == AB_JSON)
		next_json(f, cfg, w);
	else if (fmt == AB_CSV)
		next_csv(f, cfg, w);
	else
		next_lines(f, fmt, cfg, w);
	free(w);
}

/* Cold starts per variant: min, median, max over all its loaded phases. */
static void startups(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct ab_result *res)
{
	if (!cfg->startup_cmd || fmt == AB_JSON || fmt == AB_CSV)
		return;
	fputc('\n', f);
	sayf(f, fmt, "", "cold starts of '%s' (s, min / median / max):", cfg->startup_cmd);
	if (fmt == AB_MD)
		fputc('\n', f);
	for (size_t v = 0; v < cfg->nv; v++) {
		double st[AB_MAX_PHASES];
		int n = 0;
		for (size_t i = 0; i < res->nphases && n < AB_MAX_PHASES; i++)
			for (int k = 0; k < res->phases[i].nstartup && n < AB_MAX_PHASES; k++)
				if (res->phases[i].variant == (int)v && res->phases[i].round > 0)
					st[n++] = res->phases[i].startup_s[k];
		if (n == 0)
			continue;
		double med = util_median(st, n); /* sorts st */
		sayf(f, fmt, fmt == AB_MD ? "- " : "  ", "%-26s %.3f / %.3f / %.3f (%d)", cfg->v[v].text, st[0], med,
		     st[n - 1], n);
	}
}

static void header(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct ab_result *res)
{
	if (fmt == AB_JSON) {
		fputs("{\"disk\":", f);
		jsonv_write_string(f, res->disk);
		fputs(",\"kernel\":", f);
		jsonv_write_string(f, res->kernel);
		fputs(",\"load\":", f);
		jsonv_write_string(f, res->load);
		fputs(",\"probe\":", f);
		jsonv_write_string(f, res->probe);
		fputs(",\"queue\":", f);
		jsonv_write_string(f, res->queue);
		fprintf(f, ",\"rate_hz\":%g,\"fresh_reads\":%u,\"fresh_runs\":%d,\"rounds\":%d,\"dwell_s\":%g,"
			   "\"warmup_s\":%g,\"partial\":%s,\"settled_at\":",
			cfg->paced_rate_hz, cfg->fresh_reads, AB_FRESH_RUNS, cfg->rounds, cfg->dwell_s, cfg->warmup_s,
			res->partial ? "true" : "false");
		if (res->settled_at)
			fprintf(f, "%d", res->settled_at);
		else
			fputs("null", f);
		if (cfg->startup_cmd) {
			fputs(",\"startup_cmd\":", f);
			jsonv_write_string(f, cfg->startup_cmd);
		}
		return;
	}
	if (fmt == AB_CSV)
		return;
	const char *pre = fmt == AB_MD ? "- " : "";
	sayf(f, fmt, fmt == AB_MD ? "### " : "", "iosched-top A/B on %s, kernel %s%s", res->disk, res->kernel,
	     res->partial ? "  -- PARTIAL: stopped before the end" : "");
	if (fmt == AB_MD)
		fputc('\n', f);
	sayf(f, fmt, pre, "readers: %s", res->probe);
	sayf(f, fmt, pre, "load: %s", res->load);
	sayf(f, fmt, pre, "queue settings not named by a variant: %s", res->queue);
	sayf(f, fmt, pre, "%d round(s), %g s per phase after a %g s warm-up (left out); order A B B A per pair of rounds",
	     cfg->rounds, cfg->dwell_s, cfg->warmup_s);
	if (res->settled_at)
		sayf(f, fmt, pre, "stopped after %d of the %d rounds: every figure was decided there (the first look; "
			     "the bound below covers both looks)", res->settled_at, cfg->rounds);
	say(f, fmt, pre, "steady reader: n, p50, p99, max per read; p50/s: median of per-second p50s; reads/s; "
		       ">10ms, >100ms: % of the time in reads that long. fresh: job time, median. paced: per read");
	if (cfg->startup_cmd)
		sayf(f, fmt, pre, "start-up: %d cold start(s) of '%s' per phase (page cache dropped first), median",
		     cfg->startup_runs, cfg->startup_cmd);
	fputc('\n', f);
}

/* Markdown, CSV and JSON: every figure, one row per variant (its phases
 * pooled) and one per phase. */
static void tables(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct ab_result *res,
		   const struct row *sum, struct row *r)
{
	if (fmt == AB_JSON)
		fputs(",\"summary\":[", f);
	if (fmt == AB_MD)
		fprintf(f, "per variant, pooled over all phases%s:\n\n",
			cfg->baseline ? " with load (the baselines apart)" : "");
	write_head(f, fmt, "variant (all phases)");
	for (size_t v = 0; v < cfg->nv; v++)
		write_row(f, fmt, "summary", &sum[v], v == 0);
	if (fmt == AB_JSON)
		fputs("],\"phases\":[", f);
	else if (fmt != AB_CSV)
		fputc('\n', f);
	if (fmt != AB_CSV)
		write_head(f, fmt, "phase");
	for (size_t i = 0; i < res->nphases; i++) {
		phase_row(cfg, &res->phases[i], r);
		write_row(f, fmt, "phase", r, i == 0);
	}
	if (fmt == AB_JSON)
		fputc(']', f);
}

void abreport_write(FILE *f, const struct ab_config *cfg, const struct ab_result *res, enum ab_format fmt)
{
	struct row *sum = calloc(cfg->nv, sizeof *sum), *r = malloc(sizeof *r);
	if (!sum || !r) {
		free(sum);
		free(r);
		return;
	}
	header(f, fmt, cfg, res);
	for (size_t v = 0; v < cfg->nv; v++)
		summary(cfg, res, (int)v, &sum[v]);
	if (fmt == AB_TEXT)
		text_tables(f, cfg, res, sum);
	else
		tables(f, fmt, cfg, res, sum, r);
	struct abv_report *vr = malloc(sizeof *vr);
	if (vr && abverdict_compute(cfg, res, vr) < 0) {
		free(vr);
		vr = NULL;
	}
	if (vr)
		conclusions(f, fmt, cfg, vr, sum);
	if (fmt == AB_JSON) {
		fputs(",\"restored\":", f);
		jsonv_write_string(f, res->original);
	} else if (fmt != AB_CSV) {
		startups(f, fmt, cfg, res);
		fputc('\n', f);
		sayf(f, fmt, "", "%s is back on %s.", res->disk, res->original);
	}
	if (vr)
		next_step(f, fmt, cfg, vr, res->original);
	if (fmt == AB_JSON)
		fputs("}\n", f);
	free(vr);
	free(r);
	free(sum);
}
