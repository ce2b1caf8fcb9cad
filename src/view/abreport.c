/* abreport: see include/abreport.h */
#include "abreport.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "readfig.h"
#include "util.h"

int abreport_format_parse(const char *s)
{
	return !strcmp(s, "text") ? AB_TEXT : !strcmp(s, "md") ? AB_MD : !strcmp(s, "csv") ? AB_CSV
				    : !strcmp(s, "json") ? AB_JSON : -1;
}

/* One row's readers: a phase, or a variant's loaded phases pooled. */
struct row {
	const char *label;
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

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of v (sorted in place); NAN when empty. */
static double median(double *v, int n)
{
	if (n <= 0)
		return NAN;
	qsort(v, (size_t)n, sizeof *v, cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A quantile in us, or NAN with too few samples behind it. */
static double q_us(const struct hist *h, double q)
{
	return hist_enough(h->n, q) ? (double)hist_quantile(h, q) / 1e3 : NAN;
}

/* The columns. The first ten are the steady reader's per-read figures and
 * the disk's rates, as in reports before the three readers (their keys are
 * kept); text and Markdown show those marked. */
enum col {
	C_N, C_P50, C_MEAN, C_P90, C_P99, C_P999, C_MAX, C_RMB, C_WMB, C_STARTUP,
	C_P50S, C_RPS, C_ST10, C_ST100, C_FRESH, C_PP50, C_PP99, NCOL
};
static const struct {
	const char *key, *head;
	int shown;                  /* in text and Markdown */
} cols[NCOL] = {
	[C_N] = {"n", "n", 1},
	[C_P50] = {"p50_us", "p50 us", 1},
	[C_MEAN] = {"mean_us", "mean us", 0},
	[C_P90] = {"p90_us", "p90 us", 0},
	[C_P99] = {"p99_us", "p99 us", 1},
	[C_P999] = {"p999_us", "p99.9 us", 0},
	[C_MAX] = {"max_us", "max us", 1},
	[C_RMB] = {"read_MBps", "read MB/s", 0},
	[C_WMB] = {"write_MBps", "write MB/s", 1},
	[C_STARTUP] = {"startup_s", "startup s", 1},
	[C_P50S] = {"p50_per_s_us", "p50/s us", 1},
	[C_RPS] = {"reads_per_s", "reads/s", 1},
	[C_ST10] = {"stall_10ms", ">10ms %", 1},
	[C_ST100] = {"stall_100ms", ">100ms %", 1},
	[C_FRESH] = {"fresh_ms", "fresh ms", 1},
	[C_PP50] = {"paced_p50_us", "paced p50", 1},
	[C_PP99] = {"paced_p99_us", "paced p99", 1},
};
/* The order text and Markdown show them in: steady, fresh, paced, disk. */
static const enum col shown_order[] = {C_N,     C_P50,   C_P50S,  C_P99,  C_MAX,  C_RPS,  C_ST10,
				       C_ST100, C_FRESH, C_PP50,  C_PP99, C_WMB, C_STARTUP};
#define NSHOWN (sizeof shown_order / sizeof shown_order[0])

static double fresh_median(const struct row *r)
{
	double v[AB_MAX_PHASES * AB_FRESH_RUNS];
	memcpy(v, r->fresh, sizeof(double) * (size_t)r->nfresh);
	return median(v, r->nfresh);
}

static void values(const struct row *r, double *v)
{
	struct readfig f;
	readfig_compute(&r->h, &r->sec_p50, r->secs, &f);
	v[C_N] = (double)r->h.n;
	v[C_P50] = q_us(&r->h, 0.5);
	v[C_MEAN] = f.mean_us;
	v[C_P90] = q_us(&r->h, 0.9);
	v[C_P99] = q_us(&r->h, 0.99);
	v[C_P999] = q_us(&r->h, 0.999);
	v[C_MAX] = f.max_us;
	v[C_RMB] = r->read_MBps;
	v[C_WMB] = r->write_MBps;
	v[C_STARTUP] = r->startup_med;
	v[C_P50S] = f.p50_per_s_us;
	v[C_RPS] = f.reads_per_s;
	v[C_ST10] = r->secs > 0 ? f.stall_10ms : NAN;
	v[C_ST100] = r->secs > 0 ? f.stall_100ms : NAN;
	v[C_FRESH] = fresh_median(r);
	v[C_PP50] = q_us(&r->paced, 0.5);
	v[C_PP99] = q_us(&r->paced, 0.99);
}

/* A figure as text: "-" (text, md) or "" (csv) when it does not exist. */
static void fig(double v, enum col c, enum ab_format fmt, char *b, size_t n)
{
	if (isnan(v))
		util_strlcpy(b, fmt == AB_CSV ? "" : "-", n);
	else if ((c == C_ST10 || c == C_ST100) && fmt != AB_CSV)
		snprintf(b, n, "%.1f", v * 100);
	else
		snprintf(b, n, c == C_N ? "%.0f" : c == C_STARTUP || c == C_ST10 || c == C_ST100 ? "%.3f" : "%.1f", v);
}

static void write_head(FILE *f, enum ab_format fmt, const char *first)
{
	if (fmt == AB_TEXT) {
		fprintf(f, "%-26s %5s", first, "round");
		for (size_t i = 0; i < NSHOWN; i++)
			fprintf(f, " %10s", cols[shown_order[i]].head);
		fputc('\n', f);
	} else if (fmt == AB_MD) {
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
		fputc('\n', f);
	}
}

static void json_num(FILE *f, const char *sep, const char *key, double v)
{
	if (isnan(v))
		fprintf(f, "%s\"%s\":null", sep, key);
	else
		fprintf(f, "%s\"%s\":%.3f", sep, key, v);
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
	double med = median(s, r->nfresh); /* sorts s */
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
	if (fmt == AB_TEXT)
		fprintf(f, "%-26s %5s", r->label, rs);
	else if (fmt == AB_MD)
		fprintf(f, "| %s | %s |", r->label, rs);
	else
		fprintf(f, "%s,\"%s\",%s", kind, r->label, r->round < 0 ? "" : round);
	for (size_t i = 0; i < (fmt == AB_CSV ? (size_t)NCOL : NSHOWN); i++) {
		enum col c = fmt == AB_CSV ? (enum col)i : shown_order[i];
		fig(v[c], c, fmt, b, sizeof b);
		if (fmt == AB_TEXT)
			fprintf(f, " %10s", b);
		else if (fmt == AB_MD)
			fprintf(f, " %s |", b);
		else
			fprintf(f, ",%s", b);
	}
	fputc('\n', f);
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
	r->label = cfg->v[v].text;
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
	r->startup_med = median(st, nst);
}

static void phase_row(const struct ab_config *cfg, const struct ab_phase *p, struct row *r)
{
	double st[AB_MAX_STARTUPS];
	memset(r, 0, sizeof *r);
	r->label = cfg->v[p->variant].text;
	r->round = p->round;
	r->start_ts = p->start_ts;
	r->phase = p;
	add_phase(r, p);
	r->read_MBps = p->read_MBps;
	r->write_MBps = p->write_MBps;
	memcpy(st, p->startup_s, sizeof st);
	r->startup_med = median(st, p->nstartup);
}

/* The profiles a verdict is given for: the figure that stands for each
 * (lower is better) and how it is named. */
enum profile { PR_STEADY, PR_FRESH, PR_PACED, NPROFILE };
static const struct {
	const char *name, *figure;
	enum col col;
} profiles[NPROFILE] = {
	[PR_STEADY] = {"steady", "median of per-second p50s", C_P50S},
	[PR_FRESH] = {"fresh", "job time, median", C_FRESH},
	[PR_PACED] = {"paced", "p50", C_PP50},
};

/* A variant's figure for a profile: pooled, and its range over rounds. */
struct standing {
	double all, lo, hi;
};

static void stand(const struct ab_config *cfg, const struct ab_result *res, const struct row *sum, int v, enum col c,
		  struct standing *s)
{
	double vals[NCOL];
	struct row *r = malloc(sizeof *r);
	values(&sum[v], vals);
	s->all = vals[c];
	s->lo = INFINITY;
	s->hi = -INFINITY;
	for (size_t i = 0; r && i < res->nphases; i++) {
		if (res->phases[i].variant != v || res->phases[i].round == 0)
			continue;
		phase_row(cfg, &res->phases[i], r);
		values(r, vals);
		if (isnan(vals[c]))
			continue;
		s->lo = vals[c] < s->lo ? vals[c] : s->lo;
		s->hi = vals[c] > s->hi ? vals[c] : s->hi;
	}
	free(r);
}

static void lat_text(double us, char *b, size_t n)
{
	if (isnan(us))
		util_strlcpy(b, "-", n);
	else
		util_format_latency((uint64_t)(us * 1e3), b, n);
}

/* One profile's verdict: the best variant, unless the rounds' ranges of
 * the best and the next overlap. Returns the best's index, or -1. */
static int verdict(const struct ab_config *cfg, const struct ab_result *res, const struct row *sum, enum profile p,
		   char *text, size_t len)
{
	struct standing s[AB_MAX_VARIANTS];
	int best = -1, next = -1;
	for (size_t v = 0; v < cfg->nv; v++) {
		stand(cfg, res, sum, (int)v, profiles[p].col, &s[v]);
		if (isnan(s[v].all))
			continue;
		if (best < 0 || s[v].all < s[best].all) {
			next = best;
			best = (int)v;
		} else if (next < 0 || s[v].all < s[next].all) {
			next = (int)v;
		}
	}
	if (best < 0 || next < 0) {
		util_fmt(text, len, "%s: not measured", profiles[p].name);
		return -1;
	}
	char a[24], alo[24], ahi[24], b[24], blo[24], bhi[24];
	double k = p == PR_FRESH ? 1e3 : 1; /* job times are in ms */
	lat_text(s[best].all * k, a, sizeof a);
	lat_text(s[best].lo * k, alo, sizeof alo);
	lat_text(s[best].hi * k, ahi, sizeof ahi);
	lat_text(s[next].all * k, b, sizeof b);
	lat_text(s[next].lo * k, blo, sizeof blo);
	lat_text(s[next].hi * k, bhi, sizeof bhi);
	int overlap = s[best].hi >= s[next].lo;
	char ranges[128] = " (one round: give --rounds 2 or more to tell this from noise)";
	if (cfg->rounds >= 2)
		util_fmt(ranges, sizeof ranges, "; rounds %s-%s against %s-%s", alo, ahi, blo, bhi);
	if (overlap)
		util_fmt(text, len, "%s (%s): no clear difference, %s %s against %s %s%s", profiles[p].name,
			 profiles[p].figure, cfg->v[best].text, a, cfg->v[next].text, b, ranges);
	else
		util_fmt(text, len, "%s (%s): %s best, %s against %s %s%s", profiles[p].name, profiles[p].figure,
			 cfg->v[best].text, a, cfg->v[next].text, b, ranges);
	return overlap ? -1 : best;
}

/* "20x faster", "3.5x slower", "about the same": v against the reference;
 * "no clear change" when their rounds' ranges overlap. */
static void change_text(const struct standing *ref, const struct standing *v, int rounds, char *b, size_t n)
{
	double x = ref->all, y = v->all;
	if (isnan(x) || isnan(y) || x <= 0 || y <= 0)
		util_strlcpy(b, "not measured", n);
	else if (rounds >= 2 && v->lo <= ref->hi && ref->lo <= v->hi)
		util_strlcpy(b, "no clear change", n);
	else if (y < x / 1.1)
		util_fmt(b, n, x / y < 10 ? "%.1fx faster" : "%.0fx faster", x / y);
	else if (y > x * 1.1)
		util_fmt(b, n, y / x < 10 ? "%.1fx slower" : "%.0fx slower", y / x);
	else
		util_strlcpy(b, "about the same", n);
}

/* The closing sentence per variant against the first: the trade-off. */
static void tradeoff(const struct ab_config *cfg, const struct ab_result *res, const struct row *sum, size_t v,
		     char *text, size_t len)
{
	char ch[NPROFILE][32];
	for (int p = 0; p < NPROFILE; p++) {
		struct standing a, b;
		stand(cfg, res, sum, 0, profiles[p].col, &a);
		stand(cfg, res, sum, (int)v, profiles[p].col, &b);
		change_text(&a, &b, cfg->rounds, ch[p], sizeof ch[p]);
	}
	double ref[NCOL], x[NCOL];
	values(&sum[0], ref);
	values(&sum[v], x);
	double w = ref[C_WMB] > 0 && !isnan(x[C_WMB]) ? (x[C_WMB] / ref[C_WMB] - 1) * 100 : NAN;
	char wt[32] = "not measured";
	if (!isnan(w))
		util_fmt(wt, sizeof wt, "%+.0f %%", w);
	util_fmt(text, len, "%s against %s: new readers %s, a steady reader %s, paced reads %s, writes %s", cfg->v[v].text,
		 cfg->v[0].text, ch[PR_FRESH], ch[PR_STEADY], ch[PR_PACED], wt);
}

/* Verdicts, the trade-off and, where a variant's two p50s part, what that
 * means: as text lines, or JSON members. */
static void conclusions(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct ab_result *res,
			const struct row *sum)
{
	char text[512];
	const char *pre = fmt == AB_MD ? "- " : "  ";
	if (fmt == AB_CSV)
		return;
	fputs(fmt == AB_JSON ? ",\"verdict\":[" : "\nverdict per reader (lower is better):\n", f);
	if (fmt == AB_MD)
		fputc('\n', f);
	for (int p = 0; p < NPROFILE; p++) {
		int best = verdict(cfg, res, sum, (enum profile)p, text, sizeof text);
		if (fmt != AB_JSON) {
			fprintf(f, "%s%s\n", pre, text);
			continue;
		}
		fprintf(f, "%s{\"profile\":\"%s\",\"best\":", p ? "," : "", profiles[p].name);
		if (best >= 0)
			jsonv_write_string(f, cfg->v[best].text);
		else
			fputs("null", f);
		fputs(",\"text\":", f);
		jsonv_write_string(f, text);
		fputc('}', f);
	}
	fputs(fmt == AB_JSON ? "],\"tradeoff\":[" : "\n", f);
	for (size_t v = 1; v < cfg->nv; v++) {
		tradeoff(cfg, res, sum, v, text, sizeof text);
		if (fmt == AB_JSON) {
			fputs(v > 1 ? "," : "", f);
			jsonv_write_string(f, text);
		} else {
			fprintf(f, "%s.\n", text);
		}
	}
	if (fmt == AB_JSON) {
		fputc(']', f);
		return;
	}
	for (size_t v = 0; v < cfg->nv; v++) {
		struct readfig rf;
		readfig_compute(&sum[v].h, &sum[v].sec_p50, sum[v].secs, &rf);
		if (readfig_sentence(&rf, text, sizeof text))
			fprintf(f, "%s, steady reader: %s.\n", cfg->v[v].text, text);
	}
}

/* Cold starts per variant: min, median, max over all its loaded phases. */
static void startups(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct ab_result *res)
{
	if (!cfg->startup_cmd || fmt == AB_JSON || fmt == AB_CSV)
		return;
	fprintf(f, "\ncold starts of '%s' (s, min / median / max):\n%s", cfg->startup_cmd, fmt == AB_MD ? "\n" : "");
	for (size_t v = 0; v < cfg->nv; v++) {
		double st[AB_MAX_PHASES];
		int n = 0;
		for (size_t i = 0; i < res->nphases && n < AB_MAX_PHASES; i++)
			for (int k = 0; k < res->phases[i].nstartup && n < AB_MAX_PHASES; k++)
				if (res->phases[i].variant == (int)v && res->phases[i].round > 0)
					st[n++] = res->phases[i].startup_s[k];
		if (n == 0)
			continue;
		double med = median(st, n); /* sorts st */
		fprintf(f, "%s%-26s %.3f / %.3f / %.3f (%d)\n", fmt == AB_MD ? "- " : "  ", cfg->v[v].text, st[0], med,
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
			   "\"warmup_s\":%g,\"partial\":%s",
			cfg->paced_rate_hz, cfg->fresh_reads, AB_FRESH_RUNS, cfg->rounds, cfg->dwell_s, cfg->warmup_s,
			res->partial ? "true" : "false");
		if (cfg->startup_cmd) {
			fputs(",\"startup_cmd\":", f);
			jsonv_write_string(f, cfg->startup_cmd);
		}
		return;
	}
	if (fmt == AB_CSV)
		return;
	const char *pre = fmt == AB_MD ? "- " : "";
	fprintf(f, "%siosched-top A/B on %s, kernel %s%s\n", fmt == AB_MD ? "### " : "", res->disk, res->kernel,
		res->partial ? "  -- PARTIAL: stopped before the end" : "");
	if (fmt == AB_MD)
		fputc('\n', f);
	fprintf(f, "%sreaders: %s\n", pre, res->probe);
	fprintf(f, "%sload: %s\n", pre, res->load);
	fprintf(f, "%squeue settings not named by a variant: %s\n", pre, res->queue);
	fprintf(f, "%s%d round(s), %g s per phase after a %g s warm-up (left out); order A B B A per pair of rounds\n", pre,
		cfg->rounds, cfg->dwell_s, cfg->warmup_s);
	fprintf(f, "%ssteady reader: n, p50, p99, max per read; p50/s: median of per-second p50s; reads/s; "
		   ">10ms, >100ms: %% of the time in reads that long. fresh: job time, median. paced: per read\n",
		pre);
	if (cfg->startup_cmd)
		fprintf(f, "%sstart-up: %d cold start(s) of '%s' per phase (page cache dropped first), median\n", pre,
			cfg->startup_runs, cfg->startup_cmd);
	fputc('\n', f);
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
	if (fmt == AB_JSON)
		fputs(",\"summary\":[", f);
	write_head(f, fmt, "variant (all phases)");
	for (size_t v = 0; v < cfg->nv; v++) {
		summary(cfg, res, (int)v, &sum[v]);
		write_row(f, fmt, "summary", &sum[v], v == 0);
	}
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
	conclusions(f, fmt, cfg, res, sum);
	if (fmt == AB_JSON) {
		fputs(",\"restored\":", f);
		jsonv_write_string(f, res->original);
		fputs("}\n", f);
	} else if (fmt != AB_CSV) {
		startups(f, fmt, cfg, res);
		fprintf(f, "\n%s is back on %s.\n", res->disk, res->original);
	}
	free(r);
	free(sum);
}
