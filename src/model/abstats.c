/* abstats: see include/model/abstats.h */
#include "model/abstats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "signflip.h"
#include "probe/readfig.h"
#include "base/util.h"

#define POWER_Z 0.8416              /* 80 % power, for "about N rounds would tell" */

static const struct abv_fig_info figs[ABV_NFIGS] = {
	[ABV_RPS] = {"reads_per_s", ABV_STEADY, 1},
	[ABV_STALL] = {"stall_100ms", ABV_STEADY, 0},
	[ABV_JOB] = {"job_ms", ABV_FRESH, 0},
	[ABV_P50] = {"p50_us", ABV_PACED, 0},
	[ABV_P99] = {"p99_us", ABV_PACED, 0},
	[ABV_COLD] = {"cold_start_s", ABV_START, 0},
	[ABV_YP50] = {"your_read_p50_us", ABV_YOURS, 0},
	[ABV_YP99] = {"your_read_p99_us", ABV_YOURS, 0},
	[ABV_WMB] = {"write_MBps", ABV_WRITES, 1},
};

static const char *const readers[ABV_NREADERS] = {"steady", "fresh", "paced", "cold", "yours", "writes"};

const struct abv_fig_info *abstats_fig(enum abv_fig f)
{
	return &figs[f];
}

int abstats_reader_used(const struct ab_config *cfg, enum abv_reader rd)
{
	switch (rd) {
	case ABV_STEADY:
	case ABV_FRESH: return !cfg->live;
	case ABV_START: return !cfg->live && cfg->startup_cmd;
	case ABV_YOURS:
	case ABV_WRITES: return cfg->live;
	default: return 1;
	}
}

int abstats_fig_used(const struct ab_config *cfg, enum abv_fig f)
{
	return abstats_reader_used(cfg, figs[f].reader);
}

const char *abstats_reader_name(enum abv_reader r)
{
	return readers[r];
}

double abstats_phase_value(const struct ab_phase *p, enum abv_fig f)
{
	struct readfig rf;
	double jobs[AB_FRESH_RUNS];
	switch (f) {
	case ABV_RPS:
	case ABV_STALL:
		if (p->secs <= 0)
			return NAN;
		readfig_compute(&p->h, NULL, p->secs, &rf);
		return f == ABV_RPS ? rf.reads_per_s : rf.stall_100ms;
	case ABV_JOB:
		memcpy(jobs, p->fresh_ms, sizeof jobs);
		return util_median(jobs, p->nfresh);
	case ABV_P50:
		return hist_quantile_us(&p->paced, 0.5);
	case ABV_P99:
		return hist_quantile_us(&p->paced, 0.99);
	case ABV_COLD: {
		double starts[AB_MAX_STARTUPS];
		int n = p->nstartup < AB_MAX_STARTUPS ? p->nstartup : AB_MAX_STARTUPS;
		memcpy(starts, p->startup_s, sizeof(double) * (size_t)(n > 0 ? n : 0));
		return util_median(starts, n);
	}
	case ABV_YP50:
		return p->yours_on ? hist_quantile_us(&p->yours, 0.5) : NAN;
	case ABV_YP99:
		return p->yours_on ? hist_quantile_us(&p->yours, 0.99) : NAN;
	case ABV_WMB:
		return p->secs > 0 ? p->write_MBps : NAN;
	default:
		return NAN;
	}
}

/* How good a value is, on a log scale where higher is better. A stall
 * share under the floor counts as the floor (0.2 % against 0.5 % of the
 * time is no difference a user feels, and log 0 is none); a reader that
 * read nothing counts as a hundredth of a read a second. */
static double goodness(enum abv_fig f, double x)
{
	if (f == ABV_STALL)
		return -log(x > ABV_STALL_FLOOR ? x : ABV_STALL_FLOOR);
	if (figs[f].higher_better) /* reads/s, MB/s: nothing at all counts as a hundredth */
		return log(x > 0.01 ? x : 0.01);
	return -log(x > 1e-3 ? x : 1e-3);
}

/* The pooled figure of variant v, computed as the report's summary row is:
 * all its loaded phases' reads together. */
static int pool(const struct ab_result *res, int v, double *out)
{
	struct hist *h = calloc(3, sizeof *h);
	double *jobs = malloc(sizeof(double) * AB_FRESH_RUNS * (res->nphases + 1));
	double *starts = malloc(sizeof(double) * AB_MAX_STARTUPS * (res->nphases + 1));
	if (!h || !jobs || !starts) {
		free(h);
		free(jobs);
		free(starts);
		return -1;
	}
	double secs = 0, wmb = 0;
	int nj = 0, ns = 0, nw = 0;
	for (size_t i = 0; i < res->nphases; i++) {
		const struct ab_phase *p = &res->phases[i];
		if (p->variant != v || p->round == 0)
			continue;
		hist_merge(&h[0], &p->h);
		hist_merge(&h[1], &p->paced);
		hist_merge(&h[2], &p->yours);
		secs += p->secs;
		if (p->secs > 0) {
			wmb += p->write_MBps;
			nw++;
		}
		for (int k = 0; k < p->nfresh; k++)
			jobs[nj++] = p->fresh_ms[k];
		for (int k = 0; k < p->nstartup && k < AB_MAX_STARTUPS; k++)
			starts[ns++] = p->startup_s[k];
	}
	struct readfig rf;
	readfig_compute(&h[0], NULL, secs, &rf);
	out[ABV_RPS] = rf.reads_per_s;
	out[ABV_STALL] = secs > 0 ? rf.stall_100ms : NAN;
	out[ABV_JOB] = util_median(jobs, nj);
	out[ABV_P50] = hist_quantile_us(&h[1], 0.5);
	out[ABV_P99] = hist_quantile_us(&h[1], 0.99);
	out[ABV_COLD] = util_median(starts, ns);
	out[ABV_YP50] = hist_quantile_us(&h[2], 0.5);
	out[ABV_YP99] = hist_quantile_us(&h[2], 0.99);
	out[ABV_WMB] = nw ? wmb / nw : NAN;
	free(h);
	free(jobs);
	free(starts);
	return 0;
}

/* Every phase's figures, worked out once (each is a pass over a
 * histogram), and the number of rounds. */
struct table {
	const struct ab_result *res;
	double (*val)[ABV_NFIGS];   /* [phase][figure], NAN where the phase cannot give it */
	int rounds;
};

static int table_build(const struct ab_config *cfg, const struct ab_result *res, struct table *t)
{
	t->res = res;
	t->rounds = 0;
	t->val = malloc(sizeof *t->val * (res->nphases ? res->nphases : 1));
	if (!t->val)
		return -1;
	for (size_t i = 0; i < res->nphases; i++) {
		t->rounds = res->phases[i].round > t->rounds ? res->phases[i].round : t->rounds;
		for (int f = 0; f < ABV_NFIGS; f++)
			t->val[i][f] = abstats_fig_used(cfg, (enum abv_fig)f) ? abstats_phase_value(&res->phases[i], (enum abv_fig)f)
									    : NAN;
	}
	return 0;
}

/* The index of variant v's phase in round r, or -1. */
static int phase_of(const struct table *t, int v, int r)
{
	for (size_t i = 0; i < t->res->nphases; i++)
		if (t->res->phases[i].variant == v && t->res->phases[i].round == r)
			return (int)i;
	return -1;
}

/* Phase i's figure f; NAN for a phase that is not there (-1). */
static double value_of(const struct table *t, int i, enum abv_fig f)
{
	return i < 0 ? NAN : t->val[i][f];
}

/* The log ratios of a against b over rounds 1..upto where both were
 * measured; ga and gb (may be NULL) the goodness of each side. */
static int pairs(const struct table *t, int a, int b, enum abv_fig f, int upto, double *d, double *ga, double *gb)
{
	int n = 0;
	for (int r = 1; r <= upto && r <= t->rounds && n < AB_MAX_PHASES; r++) {
		double va = value_of(t, phase_of(t, a, r), f), vb = value_of(t, phase_of(t, b, r), f);
		if (isnan(va) || isnan(vb))
			continue;
		d[n] = goodness(f, va) - goodness(f, vb);
		if (ga && gb) {
			ga[n] = goodness(f, va);
			gb[n] = goodness(f, vb);
		}
		n++;
	}
	return n;
}

/* a against b as the looks see it: the first look (its rounds, its share
 * of alpha); when it does not decide and a last look exists, the last. */
static int compare_looks(const struct abv_report *r, const struct table *t, int a, int b, enum abv_fig f,
			 struct abv_cmp *c)
{
	double *d = malloc(sizeof(double) * AB_MAX_PHASES);
	if (!d)
		return -1;
	int n = pairs(t, a, b, f, r->look[0], d, NULL, NULL);
	signflip_compare(d, n, r->look_alpha[0], r->min_pairs, c);
	c->look = r->look[0];
	if (!c->decided && r->nlooks == 2) {
		n = pairs(t, a, b, f, r->look[1], d, NULL, NULL);
		signflip_compare(d, n, r->look_alpha[1], r->min_pairs, c);
		c->look = r->look[1];
	}
	free(d);
	return 0;
}

static double own_spread(const struct table *t, int v, enum abv_fig f)
{
	double lo = INFINITY, hi = -INFINITY;
	int n = 0;
	for (size_t i = 0; i < t->res->nphases; i++) {
		const struct ab_phase *p = &t->res->phases[i];
		double x = p->variant == v && p->round > 0 ? t->val[i][f] : NAN;
		if (isnan(x))
			continue;
		double g = goodness(f, x);
		lo = g < lo ? g : lo;
		hi = g > hi ? g : hi;
		n++;
	}
	return n >= 2 ? exp(hi - lo) : NAN;
}

/* The alpha a run of more rounds than the first look gives its last look. */
static double later_alpha(const struct abv_report *r)
{
	return r->alpha - ldexp(2, -r->min_pairs);
}

/* The alpha of this run's last look. */
static double final_alpha(const struct abv_report *r)
{
	return r->nlooks == 2 ? r->look_alpha[1] : r->alpha;
}

/* Rounds that would decide: for the difference seen when it is 1.2x or
 * more, else for 1.5x; from the spread of the rounds' log ratios. */
static void need(struct abv_report *r, struct abv_verdict *v)
{
	const struct abv_cmp *c = &v->c;
	v->rounds_needed = 0;
	v->target = NAN;
	if (c->decided || c->npairs == 0)
		return;
	if (c->npairs < 2 || isnan(c->spread)) {
		v->rounds_needed = r->min_pairs;
		return;
	}
	double m = fabs(log(c->ratio));
	double e = m >= log(1.2) ? m : log(1.5);
	v->target = exp(e);
	if (c->spread <= 0) {
		v->rounds_needed = c->npairs < r->min_pairs ? r->min_pairs : 0;
		return;
	}
	double k = (signflip_z(later_alpha(r)) + POWER_Z) * c->spread / e;
	double n = ceil(k * k);
	n = n < r->min_pairs ? r->min_pairs : n;
	n = n <= c->npairs ? c->npairs + 2 : n;
	v->rounds_needed = n > ABV_MAX_ROUNDS ? ABV_MAX_ROUNDS + 1 : (int)n;
}

static int phases_with(const struct table *t, enum abv_fig f, int *total)
{
	int n = 0;
	*total = 0;
	for (size_t i = 0; i < t->res->nphases; i++) {
		if (t->res->phases[i].round == 0)
			continue;
		(*total)++;
		n += !isnan(t->val[i][f]);
	}
	return n;
}

/* The variant whose worst pairwise ratio is best (for two: the one ahead). */
static void leader_of(struct abv_report *r, enum abv_fig f, struct abv_verdict *v)
{
	double best_worst = -INFINITY;
	v->leader = v->against = -1;
	for (size_t a = 0; a < r->nv; a++) {
		double worst = INFINITY;
		int closest = -1;
		for (size_t b = 0; b < r->nv; b++) {
			if (a == b || r->pair[a][b][f].npairs == 0)
				continue;
			if (r->pair[a][b][f].ratio < worst) {
				worst = r->pair[a][b][f].ratio;
				closest = (int)b;
			}
		}
		if (closest >= 0 && worst > best_worst) {
			best_worst = worst;
			v->leader = (int)a;
			v->against = closest;
		}
	}
}

/* The pooled figures (the table) point the same way as the rounds. */
static int table_agrees(const struct abv_report *r, const struct abv_verdict *v)
{
	double gl = goodness(v->fig, r->pooled[v->leader][v->fig]);
	double ga = goodness(v->fig, r->pooled[v->against][v->fig]);
	return isnan(gl) || isnan(ga) || gl >= ga;
}

/* A value back from its goodness (the inverse of goodness()). */
static double from_goodness(enum abv_fig f, double g)
{
	return figs[f].higher_better ? exp(g) : exp(-g);
}

/* The verdict's two figures: each variant's geometric mean over the rounds
 * its ratio used, so that their ratio is that ratio. */
static int verdict_values(const struct table *t, struct abv_verdict *v)
{
	double *buf = malloc(sizeof(double) * AB_MAX_PHASES * 3);
	if (!buf)
		return -1;
	double *d = buf, *ga = buf + AB_MAX_PHASES, *gb = buf + 2 * AB_MAX_PHASES, sa = 0, sb = 0;
	int n = pairs(t, v->leader, v->against, v->fig, v->c.look, d, ga, gb);
	for (int i = 0; i < n; i++) {
		sa += ga[i];
		sb += gb[i];
	}
	v->val_leader = n ? from_goodness(v->fig, sa / n) : NAN;
	v->val_against = n ? from_goodness(v->fig, sb / n) : NAN;
	free(buf);
	return 0;
}

/* The rounds up to the verdict's look that gave leader against `against`
 * no pair on its figure, and whose phase lacked it. */
static void gaps(const struct table *t, struct abv_verdict *v)
{
	v->ngaps = 0;
	for (int r = 1; r <= v->c.look; r++) {
		int a = v->leader, b = v->against, ia = phase_of(t, a, r), ib = phase_of(t, b, r);
		int side = ia < 0 || ib < 0 ? -1 : isnan(t->val[ia][v->fig]) ? a : isnan(t->val[ib][v->fig]) ? b : -2;
		if (side == -2)
			continue;
		if (v->ngaps < ABV_MAX_GAPS) {
			struct abv_gap *g = &v->gap[v->ngaps];
			g->round = r;
			g->variant = side;
			g->paced_n = side >= 0 ? (unsigned long long)t->res->phases[side == a ? ia : ib].paced.n : 0;
		}
		v->ngaps++;
	}
}

static int verdict(struct abv_report *r, const struct table *t, enum abv_fig f)
{
	struct abv_verdict *v = &r->v[f];
	v->fig = f;
	v->best = -1;
	v->phases_with = phases_with(t, f, &v->phases_total);
	leader_of(r, f, v);
	if (v->leader < 0) {
		memset(&v->c, 0, sizeof v->c);
		v->c.ratio = v->c.lo = v->c.hi = v->c.spread = NAN;
		v->val_leader = v->val_against = NAN;
		return 0;
	}
	v->c = r->pair[v->leader][v->against][f];
	if (verdict_values(t, v) < 0)
		return -1;
	int all = 1;
	for (size_t b = 0; b < r->nv; b++)
		if ((int)b != v->leader && r->pair[v->leader][b][f].npairs > 0)
			all &= r->pair[v->leader][b][f].decided && r->pair[v->leader][b][f].ratio > 1;
	v->all_decided = all;
	v->pooled_agrees = table_agrees(r, v);
	v->best = all && v->pooled_agrees ? v->leader : -1;
	need(r, v);
	gaps(t, v);
	return 0;
}

/* Whether variant x loses figure g of its reader widely: decided against
 * it, or ABV_WIDE times over. */
static int loses_widely(const struct abv_report *r, int x, enum abv_fig g)
{
	int y = r->v[g].leader;
	if (y < 0 || y == x)
		return 0;
	const struct abv_cmp *c = &r->pair[y][x][g];
	return c->npairs > 0 && c->ratio > 1 && (c->decided || c->ratio >= ABV_WIDE);
}

/* A reader's verdict: the variant its decided figures name, unless
 * another figure of the reader names another or that variant loses one
 * widely (a trade-off). */
static void reader_verdict(struct abv_report *r, enum abv_reader rd)
{
	struct abv_reader_verdict *out = &r->reader[rd];
	int x = -1, trade = 0;
	out->best = -1;
	out->tradeoff = 0;
	for (int f = 0; f < ABV_NFIGS; f++) {
		if (figs[f].reader != rd || r->v[f].best < 0)
			continue;
		x = x < 0 ? r->v[f].best : x;
		trade |= r->v[f].best != x;
		for (int g = 0; g < ABV_NFIGS; g++)
			if (g != f && figs[g].reader == rd)
				trade |= loses_widely(r, r->v[f].best, (enum abv_fig)g);
	}
	if (x >= 0 && trade)
		out->tradeoff = 1;
	else if (x >= 0)
		out->best = x;
}

/* The looks (abstats.h): the first at min_pairs rounds, spending the
 * smallest p-value those rounds can give; the last at the rounds the run
 * ended with, spending the rest. */
static void looks_plan(struct abv_report *out, int planned)
{
	int n0 = out->min_pairs;
	planned = planned > out->rounds ? planned : out->rounds;
	out->nlooks = 1;
	out->look[0] = out->look[1] = out->rounds > n0 ? n0 : out->rounds;
	out->look_alpha[0] = out->look_alpha[1] = out->alpha;
	if (planned <= n0) { /* one look, at the rounds there are */
		out->level = out->rounds < n0 ? out->alpha : signflip_attained(out->alpha, out->rounds);
		return;
	}
	out->look_alpha[0] = ldexp(2, -n0);
	out->look_alpha[1] = out->alpha - out->look_alpha[0];
	out->level = out->rounds < n0 ? out->alpha : signflip_attained(out->look_alpha[0], n0);
	if (out->rounds > n0) {
		out->nlooks = 2;
		out->look[1] = out->rounds;
		out->level += signflip_attained(out->look_alpha[1], out->rounds);
	}
}

static int complete_rounds(const struct table *t, size_t nv)
{
	int complete = 0;
	for (int rd = 1; rd <= t->rounds; rd++) {
		int all = 1;
		for (size_t v = 0; v < nv; v++)
			all &= phase_of(t, (int)v, rd) >= 0;
		complete += all;
	}
	return complete;
}

/* Every pair of variants on figure f, then its verdict and the smallest
 * ratio these rounds could decide. */
static int figure_compute(struct abv_report *out, size_t nv, const struct table *t, enum abv_fig f)
{
	for (size_t a = 0; a < nv; a++)
		for (size_t b = a; b < nv; b++) {
			if (a == b)
				signflip_compare(NULL, 0, out->alpha, out->min_pairs, &out->pair[a][b][f]);
			else if (compare_looks(out, t, (int)a, (int)b, f, &out->pair[a][b][f]) < 0)
				return -1;
			signflip_mirror(&out->pair[a][b][f], &out->pair[b][a][f]);
		}
	if (verdict(out, t, f) < 0)
		return -1;
	const struct abv_cmp *c = &out->v[f].c;
	double z = signflip_z(final_alpha(out)) + POWER_Z;
	out->smallest[f] = c->npairs >= out->min_pairs && !isnan(c->spread) ? exp(z * c->spread / sqrt(c->npairs)) : NAN;
	return 0;
}

/* Each pair of variants' share of ABV_ALPHA (Bonferroni). */
static double pair_alpha(size_t nv)
{
	double npairs_k = (double)nv * (double)(nv - 1) / 2;
	return ABV_ALPHA / (npairs_k > 1 ? npairs_k : 1);
}

int abstats_min_rounds(size_t nv)
{
	return (int)ceil(1 + log2(1 / pair_alpha(nv)) - 1e-9);
}

int abstats_compute(const struct ab_config *cfg, const struct ab_result *res, struct abv_report *out)
{
	struct table t;
	if (table_build(cfg, res, &t) < 0)
		return -1;
	memset(out, 0, sizeof *out);
	out->nv = cfg->nv;
	out->live = cfg->live;
	out->aa = 1;
	for (size_t v = 1; v < cfg->nv; v++)
		out->aa &= !strcmp(cfg->v[v].text, cfg->v[0].text);
	out->alpha = pair_alpha(cfg->nv);
	out->min_pairs = abstats_min_rounds(cfg->nv);
	out->rounds = complete_rounds(&t, cfg->nv);
	looks_plan(out, cfg->rounds);
	int rc = 0;
	for (size_t v = 0; v < cfg->nv && rc == 0; v++) {
		rc = pool(res, (int)v, out->pooled[v]);
		for (int f = 0; f < ABV_NFIGS; f++) {
			if (!abstats_fig_used(cfg, (enum abv_fig)f))
				out->pooled[v][f] = NAN;
			out->own_spread[v][f] = own_spread(&t, (int)v, (enum abv_fig)f);
		}
	}
	for (int f = 0; f < ABV_NFIGS; f++) {
		out->noise[f] = NAN;
		for (size_t v = 0; v < cfg->nv; v++)
			if (!isnan(out->own_spread[v][f]) && (isnan(out->noise[f]) || out->own_spread[v][f] > out->noise[f]))
				out->noise[f] = out->own_spread[v][f];
	}
	for (int f = 0; f < ABV_NFIGS && rc == 0; f++)
		rc = figure_compute(out, cfg->nv, &t, (enum abv_fig)f);
	for (int rd = 0; rd < ABV_NREADERS && rc == 0; rd++)
		reader_verdict(out, (enum abv_reader)rd);
	free(t.val);
	return rc;
}

int abstats_settled(const struct ab_config *cfg, const struct ab_result *res)
{
	struct abv_report *r = malloc(sizeof *r);
	if (!r || abstats_compute(cfg, res, r) < 0) {
		free(r);
		return 0;
	}
	int settled = r->rounds == r->min_pairs && cfg->rounds > r->min_pairs, measured = 0;
	for (int f = 0; f < ABV_NFIGS; f++) {
		settled &= r->v[f].leader < 0 || r->v[f].best >= 0;
		measured += r->v[f].leader >= 0;
	}
	settled &= measured > 0;
	free(r);
	return settled;
}
