/* abreport: see include/abreport.h */
#include "abreport.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

int abreport_format_parse(const char *s)
{
	return !strcmp(s, "text") ? AB_TEXT : !strcmp(s, "md") ? AB_MD : !strcmp(s, "csv") ? AB_CSV
				    : !strcmp(s, "json") ? AB_JSON : -1;
}

/* One row's figures. */
struct row {
	const char *label;
	int round;                  /* -1: a summary row */
	double start_ts;
	const struct hist *h;
	double read_MBps, write_MBps;
	double startup_med;         /* < 0: none */
	uint64_t n_phases;
};

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	if (n <= 0)
		return -1;
	qsort(v, (size_t)n, sizeof *v, cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A quantile in us, or NAN with too few samples behind it. */
static double q_us(const struct hist *h, double q)
{
	return hist_enough(h->n, q) ? (double)hist_quantile(h, q) / 1e3 : NAN;
}

static const char *const keys[] = {"n", "p50_us", "mean_us", "p90_us", "p99_us", "p999_us", "max_us", "read_MBps",
				   "write_MBps", "startup_s"};
static const char *const heads[] = {"n", "p50 us", "mean us", "p90 us", "p99 us", "p99.9 us", "max us", "read MB/s",
				    "write MB/s", "startup s"};
#define NV 10

static void values(const struct row *r, double *v)
{
	const struct hist *h = r->h;
	v[0] = (double)h->n;
	v[1] = q_us(h, 0.5);
	v[2] = h->n ? hist_mean_ns(h) / 1e3 : NAN;
	v[3] = q_us(h, 0.9);
	v[4] = q_us(h, 0.99);
	v[5] = q_us(h, 0.999);
	v[6] = h->n ? (double)h->max_ns / 1e3 : NAN;
	v[7] = r->read_MBps;
	v[8] = r->write_MBps;
	v[9] = r->startup_med >= 0 ? r->startup_med : NAN;
}

/* A figure as text: "-" (text, md) or "" (csv) when it does not exist. */
static void fig(double v, int i, enum ab_format fmt, char *b, size_t n)
{
	if (isnan(v))
		util_strlcpy(b, fmt == AB_CSV ? "" : "-", n);
	else
		snprintf(b, n, i == 0 ? "%.0f" : i == 9 ? "%.3f" : "%.1f", v);
}

static void write_head(FILE *f, enum ab_format fmt, const char *first)
{
	if (fmt == AB_TEXT) {
		fprintf(f, "%-26s %5s", first, "round");
		for (int i = 0; i < NV; i++)
			fprintf(f, " %10s", heads[i]);
		fputc('\n', f);
	} else if (fmt == AB_MD) {
		fprintf(f, "| %s | round |", first);
		for (int i = 0; i < NV; i++)
			fprintf(f, " %s |", heads[i]);
		fputs("\n|---|---:|", f);
		for (int i = 0; i < NV; i++)
			fputs("---:|", f);
		fputc('\n', f);
	} else if (fmt == AB_CSV) {
		fprintf(f, "kind,variant,round");
		for (int i = 0; i < NV; i++)
			fprintf(f, ",%s", keys[i]);
		fputc('\n', f);
	}
}

static void write_row(FILE *f, enum ab_format fmt, const char *kind, const struct row *r, int first)
{
	double v[NV];
	char b[32], round[16];
	values(r, v);
	snprintf(round, sizeof round, "%d", r->round);
	if (fmt == AB_JSON) {
		fprintf(f, "%s{\"scheduler\":", first ? "" : ",");
		json_write_string(f, r->label);
		if (r->round >= 0)
			fprintf(f, ",\"round\":%d,\"baseline\":%s,\"start_ts\":%.3f", r->round, r->round == 0 ? "true" : "false",
				r->start_ts);
		for (int i = 0; i < NV; i++) {
			if (isnan(v[i]))
				fprintf(f, ",\"%s\":null", keys[i]);
			else
				fprintf(f, ",\"%s\":%.3f", keys[i], v[i]);
		}
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
	for (int i = 0; i < NV; i++) {
		fig(v[i], i, fmt, b, sizeof b);
		if (fmt == AB_TEXT)
			fprintf(f, " %10s", b);
		else if (fmt == AB_MD)
			fprintf(f, " %s |", b);
		else
			fprintf(f, ",%s", b);
	}
	fputc('\n', f);
}

/* Pool a variant's loaded phases. */
static void summary(const struct ab_config *cfg, const struct ab_result *res, int v, struct hist *h, struct row *r)
{
	double st[AB_MAX_PHASES * 4];
	int nst = 0;
	hist_reset(h);
	memset(r, 0, sizeof *r);
	r->label = cfg->v[v].text;
	r->round = -1;
	r->h = h;
	for (size_t i = 0; i < res->nphases; i++) {
		const struct ab_phase *p = &res->phases[i];
		if (p->variant != v || p->round == 0)
			continue;
		hist_merge(h, &p->h);
		r->read_MBps += p->read_MBps;
		r->write_MBps += p->write_MBps;
		r->n_phases++;
		for (int k = 0; k < p->nstartup && nst < (int)(sizeof st / sizeof st[0]); k++)
			st[nst++] = p->startup_s[k];
	}
	if (r->n_phases) {
		r->read_MBps /= (double)r->n_phases;
		r->write_MBps /= (double)r->n_phases;
	} else {
		r->read_MBps = r->write_MBps = NAN;
	}
	r->startup_med = median(st, nst);
}

static void phase_row(const struct ab_config *cfg, const struct ab_phase *p, struct row *r)
{
	double st[AB_MAX_STARTUPS];
	memset(r, 0, sizeof *r);
	r->label = cfg->v[p->variant].text;
	r->round = p->round;
	r->start_ts = p->start_ts;
	r->h = &p->h;
	r->read_MBps = p->read_MBps;
	r->write_MBps = p->write_MBps;
	memcpy(st, p->startup_s, sizeof st);
	r->startup_med = median(st, p->nstartup);
}

/* Spread of the per-round p50 of each variant: is the difference between
 * variants bigger than the noise between rounds of one? */
static void spread(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct ab_result *res)
{
	if (fmt == AB_JSON || fmt == AB_CSV)
		return;
	fprintf(f, fmt == AB_MD ? "\nSpread between rounds (p50 us, min - max):\n\n" : "\nspread between rounds (p50 us, min - max):\n");
	for (size_t v = 0; v < cfg->nv; v++) {
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < res->nphases; i++) {
			const struct ab_phase *p = &res->phases[i];
			double q = q_us(&p->h, 0.5);
			if (p->variant != (int)v || p->round == 0 || isnan(q))
				continue;
			lo = q < lo ? q : lo;
			hi = q > hi ? q : hi;
		}
		if (hi >= lo)
			fprintf(f, "%s%-26s %.1f - %.1f (%.0f%%)\n", fmt == AB_MD ? "- " : "  ", cfg->v[v].text, lo, hi,
				lo > 0 ? (hi - lo) / lo * 100 : 0);
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
		json_write_string(f, res->disk);
		fputs(",\"kernel\":", f);
		json_write_string(f, res->kernel);
		fputs(",\"load\":", f);
		json_write_string(f, res->load);
		fputs(",\"probe\":", f);
		json_write_string(f, res->probe);
		fputs(",\"queue\":", f);
		json_write_string(f, res->queue);
		fprintf(f, ",\"rate_hz\":%g,\"rounds\":%d,\"dwell_s\":%g,\"warmup_s\":%g,\"partial\":%s", cfg->probe_rate_hz,
			cfg->rounds, cfg->dwell_s, cfg->warmup_s, res->partial ? "true" : "false");
		if (cfg->startup_cmd) {
			fputs(",\"startup_cmd\":", f);
			json_write_string(f, cfg->startup_cmd);
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
	fprintf(f, "%sprobe: %s; load: %s\n", pre, res->probe, res->load);
	fprintf(f, "%squeue settings not named by a variant: %s\n", pre, res->queue);
	fprintf(f, "%s%d round(s), %g s per phase after a %g s warm-up (left out); order A B B A per pair of rounds\n", pre,
		cfg->rounds, cfg->dwell_s, cfg->warmup_s);
	if (cfg->startup_cmd)
		fprintf(f, "%sstart-up: %d cold start(s) of '%s' per phase (page cache dropped first), median\n", pre,
			cfg->startup_runs, cfg->startup_cmd);
	fputc('\n', f);
}

void abreport_write(FILE *f, const struct ab_config *cfg, const struct ab_result *res, enum ab_format fmt)
{
	struct hist *h = malloc(sizeof *h * cfg->nv);
	if (!h)
		return;
	struct row r;
	header(f, fmt, cfg, res);
	if (fmt == AB_JSON)
		fputs(",\"summary\":[", f);
	write_head(f, fmt, "variant (all phases)");
	for (size_t v = 0; v < cfg->nv; v++) {
		summary(cfg, res, (int)v, &h[v], &r);
		write_row(f, fmt, "summary", &r, v == 0);
	}
	if (fmt == AB_JSON)
		fputs("],\"phases\":[", f);
	else if (fmt != AB_CSV)
		fputc('\n', f);
	if (fmt != AB_CSV)
		write_head(f, fmt, "phase");
	for (size_t i = 0; i < res->nphases; i++) {
		phase_row(cfg, &res->phases[i], &r);
		write_row(f, fmt, "phase", &r, i == 0);
	}
	if (fmt == AB_JSON) {
		fputs("],\"restored\":", f);
		json_write_string(f, res->original);
		fputs("}\n", f);
	} else {
		spread(f, fmt, cfg, res);
		startups(f, fmt, cfg, res);
		fprintf(f, "\n%s%s is back on %s.\n", fmt == AB_MD ? "" : "", res->disk, res->original);
	}
	free(h);
}
