/* abwords: see include/out/abwords.h */
#include "out/abwords.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/util.h"

static const struct abw_fig figs[ABV_NFIGS] = {
	[ABV_RPS] = {"reads/s", "more reads/s", "fewer reads/s"},
	[ABV_STALL] = {"time in reads over 100 ms", "less time stalled", "more time stalled"},
	[ABV_JOB] = {"job time", "faster jobs", "slower jobs"},
	[ABV_P50] = {"p50", "lower p50", "higher p50"},
	[ABV_P99] = {"p99", "lower p99", "higher p99"},
	[ABV_COLD] = {"start time", "faster starts", "slower starts"},
	[ABV_YP50] = {"read p50", "lower p50 for your reads", "higher p50 for your reads"},
	[ABV_YP99] = {"read p99", "lower p99 for your reads", "higher p99 for your reads"},
	[ABV_WMB] = {"write MB/s", "more MB/s written", "fewer MB/s written"},
};

const struct abw_fig *abwords_fig(enum abv_fig f)
{
	return &figs[f];
}

/* How a reader is named in the words: its key ("steady"), but "your
 * programs'" and "the disk's" in a live run's, which read as sentences. */
static const char *reader_words(enum abv_reader rd)
{
	return rd == ABV_YOURS ? "your programs'" : rd == ABV_WRITES ? "the disk's" : abstats_reader_name(rd);
}

/* "steady" for a figure of the steady reader. */
static const char *reader_of(enum abv_fig f)
{
	return reader_words(abstats_fig(f)->reader);
}

void abwords_ratio_text(double x, char *buf, size_t len)
{
	if (isnan(x) || isinf(x))
		util_strlcpy(buf, "?", len);
	else
		util_fmt(buf, len, x < 9.95 ? "%.2fx" : "%.0fx", x);
}

static void value_text(enum abv_fig f, double x, char *buf, size_t len)
{
	if (isnan(x))
		util_strlcpy(buf, "-", len);
	else if (f == ABV_RPS)
		util_fmt(buf, len, "%.1f/s", x);
	else if (f == ABV_WMB)
		util_fmt(buf, len, "%.1f MB/s", x);
	else if (f == ABV_STALL && x <= ABV_STALL_FLOOR * (1 + 1e-9))
		util_fmt(buf, len, "under %.0f %%", ABV_STALL_FLOOR * 100); /* the floor it counts as */
	else if (f == ABV_STALL)
		util_fmt(buf, len, "%.1f %%", x * 100);
	else
		util_format_latency((uint64_t)(x * (f == ABV_COLD ? 1e9 : f == ABV_JOB ? 1e6 : 1e3)), buf, len);
}

void abwords_label(const struct ab_config *cfg, size_t v, char *buf, size_t len)
{
	int twin = 0;
	for (size_t u = 0; u < cfg->nv; u++)
		twin |= u != v && !strcmp(cfg->v[u].text, cfg->v[v].text);
	if (twin)
		util_fmt(buf, len, "%s#%zu", cfg->v[v].text, v + 1);
	else
		util_strlcpy(buf, cfg->v[v].text, len);
}

/* "5.7x more reads/s" for a ratio of a against b (above 1: a better). */
static void change_words(enum abv_fig f, double ratio, char *buf, size_t len)
{
	char x[24];
	abwords_ratio_text(ratio >= 1 ? ratio : 1 / ratio, x, sizeof x);
	util_fmt(buf, len, "%s %s", x, ratio >= 1 ? figs[f].better : figs[f].worse);
}

/* Where most slots held too few of the user's reads for a figure (a
 * bursty program: a build's reads come and go), what would give each slot
 * more: a longer --dwell, by as many times as slots lacked them. */
static void longer_dwell(const struct ab_config *cfg, const struct abv_verdict *v, char *buf, size_t len)
{
	buf[0] = '\0';
	if ((v->fig != ABV_YP50 && v->fig != ABV_YP99) || v->phases_total <= 0 || 2 * v->phases_with >= v->phases_total)
		return;
	double times = v->phases_with > 0 ? ceil((double)v->phases_total / v->phases_with) : 4;
	util_fmt(buf, len, "; %d of %d slots held too few of your reads: --dwell %.0f gives each more", v->phases_total -
		 v->phases_with, v->phases_total, cfg->dwell_s * times);
}

/* Why a figure has no verdict at all. */
static void unmeasured(const struct ab_config *cfg, const struct abv_verdict *v, char *buf, size_t len)
{
	const char *head = reader_of(v->fig);
	if (v->fig == ABV_P99 && v->phases_total > 0)
		util_fmt(buf, len,
			 "%s %s: not measured: a p99 needs 100 reads in a phase, %d of %d phases had them "
			 "(--dwell %.0f or more at %g reads/s)",
			 head, figs[v->fig].name, v->phases_with, v->phases_total,
			 cfg->paced_rate_hz > 0 ? ceil(100 / cfg->paced_rate_hz) + 1 : 10, cfg->paced_rate_hz);
	else
		util_fmt(buf, len, "%s %s: not measured in any round (%d of %d %s have it)", head, figs[v->fig].name,
			 v->phases_with, v->phases_total, cfg->live ? "slots" : "phases");
	longer_dwell(cfg, v, buf + strlen(buf), len - strlen(buf));
}

/* Why a phase gave no figure f (paced_n: its paced reads). */
static void missing_why(enum abv_fig f, unsigned long long paced_n, char *buf, size_t len)
{
	if (f == ABV_JOB)
		util_strlcpy(buf, "no fresh job ended", len);
	else if (f == ABV_YP50)
		util_strlcpy(buf, "no reads of your programs (or the BPF part is off)", len);
	else if (f == ABV_YP99)
		util_strlcpy(buf, "under 100 reads of yours (or the BPF part is off)", len);
	else if (f == ABV_WMB)
		util_strlcpy(buf, "no disk statistics", len);
	else if (f == ABV_COLD)
		util_strlcpy(buf, "no cold start timed", len);
	else if (f == ABV_P99 && paced_n > 0)
		util_fmt(buf, len, "%llu paced reads, a p99 needs 100", paced_n);
	else if (f == ABV_P50 || f == ABV_P99)
		util_strlcpy(buf, "no paced reads", len);
	else
		util_strlcpy(buf, "no steady reads measured", len);
}

/* The rounds the verdict left out, and why: "; left out: round 3 (bfq: no
 * fresh job ended)", the first three named. Empty when none. */
static void dropped(const struct ab_config *cfg, const struct abv_verdict *v, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int n = 0; n < v->ngaps && n < 3 && n < ABV_MAX_GAPS; n++) {
		const struct abv_gap *g = &v->gap[n];
		char why[160] = "the run stopped before its phases", name[48];
		if (g->variant >= 0) {
			char w[96];
			missing_why(v->fig, g->paced_n, w, sizeof w);
			abwords_label(cfg, (size_t)g->variant, name, sizeof name);
			util_fmt(why, sizeof why, "%s: %s", name, w);
		}
		size_t used = strlen(buf);
		util_fmt(buf + used, len - used, "%sround %d (%s)", n == 0 ? "; left out: " : ", ", g->round, why);
	}
	if (v->ngaps > 3) {
		size_t used = strlen(buf);
		util_fmt(buf + used, len - used, " and %d more", v->ngaps - 3);
	}
	longer_dwell(cfg, v, buf + strlen(buf), len - strlen(buf));
}

/* The tail of an undecided verdict: why, in numbers, and what would decide. */
static void why_not(const struct abv_report *r, const struct ab_config *cfg, const struct abv_verdict *v, char *buf,
		    size_t len)
{
	char a[48], b[48], t[24], own[200] = "";
	abwords_label(cfg, (size_t)v->leader, a, sizeof a);
	abwords_label(cfg, (size_t)v->against, b, sizeof b);
	double sa = r->own_spread[v->leader][v->fig], sb = r->own_spread[v->against][v->fig];
	if (!isnan(sa) && !isnan(sb)) {
		char xa[24], xb[24];
		abwords_ratio_text(sa, xa, sizeof xa);
		abwords_ratio_text(sb, xb, sizeof xb);
		util_fmt(own, sizeof own, "; %s's own phases differed %s, %s's %s", a, xa, b, xb);
	}
	abwords_ratio_text(v->target, t, sizeof t);
	if (v->c.npairs < r->min_pairs && v->rounds_needed > r->min_pairs && v->rounds_needed <= ABV_MAX_ROUNDS)
		util_fmt(buf, len, "%d round(s) cannot decide anything: the test needs %d or more; about %d would tell %s "
			 "(--rounds %d)%s", v->c.npairs, r->min_pairs, v->rounds_needed, t, v->rounds_needed, own);
	else if (v->c.npairs < r->min_pairs)
		util_fmt(buf, len, "%d round(s) cannot decide anything: the test needs %d or more (--rounds %d)%s",
			 v->c.npairs, r->min_pairs, r->min_pairs, own);
	else if (v->rounds_needed > ABV_MAX_ROUNDS)
		util_fmt(buf, len, "too noisy%s; more than %d rounds would be needed to tell %s: longer dwells or a "
			 "quieter disk", own, ABV_MAX_ROUNDS, t);
	else if (v->rounds_needed > 0)
		util_fmt(buf, len, "within noise%s; about %d rounds would tell %s", own, v->rounds_needed, t);
	else
		util_fmt(buf, len, "no difference in any round%s", own);
}

void abwords_verdict(const struct abv_report *r, const struct ab_config *cfg, enum abv_fig f, char *buf,
		     size_t len)
{
	const struct abv_verdict *v = &r->v[f];
	if (v->leader < 0) {
		unmeasured(cfg, v, buf, len);
		return;
	}
	char a[48], b[48], va[24], vb[24], ch[64], lo[24], hi[24], tail[400], gone[240];
	abwords_label(cfg, (size_t)v->leader, a, sizeof a);
	abwords_label(cfg, (size_t)v->against, b, sizeof b);
	/* the figures the table shows (pooled); the ratio and its range are
	 * the rounds' (the mean of each round's log ratio), which the
	 * sentence says: the two need not divide to it */
	value_text(f, r->pooled[v->leader][f], va, sizeof va);
	value_text(f, r->pooled[v->against][f], vb, sizeof vb);
	change_words(f, v->c.ratio, ch, sizeof ch);
	abwords_ratio_text(v->c.lo, lo, sizeof lo);
	abwords_ratio_text(v->c.hi, hi, sizeof hi);
	dropped(cfg, v, gone, sizeof gone);
	const char *head = reader_of(f);
	if (v->best >= 0) {
		util_fmt(buf, len, "%s %s: %s best, %s against %s %s; by round %s (%s-%s, %d rounds)%s", head,
			 figs[f].name, a, va, b, vb, ch, lo, hi, v->c.npairs, gone);
		return;
	}
	if (v->all_decided && !v->pooled_agrees)
		util_fmt(tail, sizeof tail, "the rounds favour %s, the pooled figures %s", a, b);
	else
		why_not(r, cfg, v, tail, sizeof tail);
	if (isnan(v->c.lo))
		util_fmt(buf, len, "%s %s: not decided, %s %s against %s %s (%s by these rounds): %s%s", head,
			 figs[f].name, a, va, b, vb, ch, tail, gone);
	else
		util_fmt(buf, len, "%s %s: not decided, %s %s against %s %s (%s, %s-%s): %s%s", head, figs[f].name, a,
			 va, b, vb, ch, lo, hi, tail, gone);
}

void abwords_reader(const struct abv_report *r, const struct ab_config *cfg, enum abv_reader rd, char *buf,
		    size_t len)
{
	const struct abv_reader_verdict *out = &r->reader[rd];
	const char *name_rd = rd == ABV_YOURS ? "your programs' reads" : rd == ABV_WRITES ? "the disk's writes"
							      : abstats_reader_name(rd);
	int any = out->best >= 0 || out->tradeoff; /* a figure of the reader decided */
	char parts[300] = "", name[48];
	for (int f = 0; f < ABV_NFIGS; f++) {
		if (abstats_fig((enum abv_fig)f)->reader != rd)
			continue;
		const struct abv_verdict *v = &r->v[f];
		char p[120], ch[64];
		if (v->leader < 0) {
			util_fmt(p, sizeof p, "%s not measured", figs[f].name);
		} else {
			abwords_label(cfg, (size_t)v->leader, name, sizeof name);
			change_words((enum abv_fig)f, v->c.ratio, ch, sizeof ch);
			util_fmt(p, sizeof p, "%s %s%s", name, ch, v->best >= 0 || !any ? "" : " (not decided)");
		}
		size_t used = strlen(parts);
		util_fmt(parts + used, sizeof parts - used, "%s%s", used ? ", " : "", p);
	}
	if (!any) {
		util_fmt(buf, len, "%s: not decided (%s)", name_rd, parts);
	} else if (out->tradeoff) {
		util_fmt(buf, len, "%s: a trade-off, no best: %s", name_rd, parts);
	} else {
		abwords_label(cfg, (size_t)out->best, name, sizeof name);
		util_fmt(buf, len, "%s: %s better (%s)", name_rd, name, parts);
	}
}

/* One figure of v against the first, for the closing sentence. */
static void cmp_phrase(const struct abv_cmp *c, enum abv_fig f, char *buf, size_t len)
{
	char ch[64], lo[24], hi[24];
	if (c->npairs == 0) {
		util_fmt(buf, len, "%s not measured", figs[f].name);
		return;
	}
	if (!c->decided) {
		util_fmt(buf, len, "%s no clear change", figs[f].name);
		return;
	}
	change_words(f, c->ratio, ch, sizeof ch);
	/* the interval, turned the way the words are */
	abwords_ratio_text(c->ratio >= 1 ? c->lo : 1 / c->hi, lo, sizeof lo);
	abwords_ratio_text(c->ratio >= 1 ? c->hi : 1 / c->lo, hi, sizeof hi);
	util_fmt(buf, len, "%s (%s-%s)", ch, lo, hi);
}

void abwords_change(const struct abv_report *r, const struct ab_config *cfg, size_t v, double write_change,
		    char *buf, size_t len)
{
	static const char *const who[ABV_NREADERS] = {"a steady reader", "new readers", "paced reads", "cold starts",
						      "your programs' reads", "the disk's writes"};
	static const enum abv_reader order[] = {ABV_START, ABV_FRESH, ABV_STEADY, ABV_YOURS, ABV_PACED, ABV_WRITES};
	char a[48], b[48];
	abwords_label(cfg, v, a, sizeof a);
	abwords_label(cfg, 0, b, sizeof b);
	util_fmt(buf, len, "%s against %s:", a, b);
	for (size_t k = 0, first_k = 1; k < sizeof order / sizeof order[0]; k++) {
		if (!abstats_reader_used(cfg, order[k]))
			continue;
		size_t used = strlen(buf);
		util_fmt(buf + used, len - used, "%s %s:", first_k ? "" : ";", who[order[k]]);
		first_k = 0;
		for (int f = 0, first = 1; f < ABV_NFIGS; f++) {
			if (abstats_fig((enum abv_fig)f)->reader != order[k])
				continue;
			char p[120];
			cmp_phrase(&r->pair[v][0][f], (enum abv_fig)f, p, sizeof p);
			used = strlen(buf);
			util_fmt(buf + used, len - used, "%s %s", first ? "" : ",", p);
			first = 0;
		}
	}
	size_t used = strlen(buf);
	if (cfg->live) /* the writes are a figure of their own there */
		return;
	if (isnan(write_change))
		util_fmt(buf + used, len - used, "; the writer not measured");
	else
		util_fmt(buf + used, len - used, "; the writer %+.0f %% MB/s (not tested)", write_change);
}

void abwords_noise(const struct abv_report *r, enum abv_fig f, char *buf, size_t len)
{
	char own[24] = "-", small[24];
	const char *head = reader_of(f);
	double worst = r->noise[f];
	abwords_ratio_text(worst, own, sizeof own);
	abwords_ratio_text(r->smallest[f], small, sizeof small);
	if (isnan(worst))
		util_fmt(buf, len, "%s %s: too few phases to see its noise", head, figs[f].name);
	else if (worst < 1.0005 && f == ABV_STALL)
		util_fmt(buf, len, "%s %s: under 1 %% of the time in every phase (counted as 1 %%): no noise to see", head,
			 figs[f].name);
	else if (worst < 1.0005)
		util_fmt(buf, len, "%s %s: the same in every phase", head, figs[f].name);
	else if (r->rounds < r->min_pairs)
		util_fmt(buf, len, "%s %s: the same setting's phases differed up to %s; %d round(s) can decide "
			 "nothing (the test needs %d)", head, figs[f].name, own, r->rounds, r->min_pairs);
	else if (isnan(r->smallest[f]))
		util_fmt(buf, len, "%s %s: the same setting's phases differed up to %s", head, figs[f].name, own);
	else
		util_fmt(buf, len, "%s %s: the same setting's phases differed up to %s; %d rounds would decide "
			 "about %s or more", head, figs[f].name, own, r->rounds, small);
}
