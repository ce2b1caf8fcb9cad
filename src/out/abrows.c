/* abrows: see src/out/abrows.h */
#include "abrows.h"

#include <math.h>
#include <string.h>

#include "out/abwords.h"
#include "probe/readfig.h"
#include "base/util.h"

static const struct col_info cols[NCOL] = {
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
	[C_YN] = {"your_reads", "your reads", 1, 0},
	[C_YP50] = {"your_read_p50_us", "your p50 ms", 1, 1},
	[C_YP99] = {"your_read_p99_us", "your p99 ms", 1, 1},
	[C_DIRTY] = {"dirty_MB", "dirty MB", 1, 0},
};

int abrows_col_used(const struct ab_config *cfg, enum col c)
{
	if (!cfg->live)
		return c < C_YN; /* every column a built-in run's reports have always listed */
	switch (c) {
	case C_YN:
	case C_YP50:
	case C_YP99:
	case C_DIRTY:
	case C_PP50:
	case C_PP99:
	case C_RMB:
	case C_WMB: return 1;
	default: return 0;
	}
}

const struct col_info *abrows_col(enum col c)
{
	return &cols[c];
}

static double fresh_median(const struct row *r)
{
	double v[AB_MAX_PHASES * AB_FRESH_RUNS];
	memcpy(v, r->fresh, sizeof(double) * (size_t)r->nfresh);
	return util_median(v, r->nfresh);
}

void abrows_values(const struct row *r, double *v)
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
	v[C_YN] = r->yours_on ? (double)r->yours.n : NAN;
	v[C_YP50] = r->yours_on ? hist_quantile_us(&r->yours, 0.5) : NAN;
	v[C_YP99] = r->yours_on ? hist_quantile_us(&r->yours, 0.99) : NAN;
	v[C_DIRTY] = r->dirty_MB;
}

void abrows_fig(double v, enum col c, enum ab_format fmt, char *b, size_t n)
{
	if (isnan(v))
		util_strlcpy(b, fmt == AB_CSV ? "" : "-", n);
	else if ((c == C_ST10 || c == C_ST100) && fmt != AB_CSV)
		snprintf(b, n, "%.1f", v * 100);
	else if (cols[c].us && fmt != AB_CSV)
		snprintf(b, n, "%.3f", v / 1000);
	else
		snprintf(b, n, c == C_N || c == C_YN ? "%.0f" : c == C_STARTUP || c == C_ST10 || c == C_ST100 ? "%.3f" : "%.1f", v);
}

static void add_phase(struct row *r, const struct ab_phase *p)
{
	hist_merge(&r->h, &p->h);
	hist_merge(&r->sec_p50, &p->sec_p50);
	hist_merge(&r->paced, &p->paced);
	hist_merge(&r->yours, &p->yours);
	r->yours_on |= p->yours_on;
	r->secs += p->secs;
	for (int k = 0; k < p->nfresh && r->nfresh < (int)(sizeof r->fresh / sizeof r->fresh[0]); k++)
		r->fresh[r->nfresh++] = p->fresh_ms[k];
	r->fresh_cut += p->fresh_cut;
}

/* Pool a variant's loaded phases. */
void abrows_summary(const struct ab_config *cfg, const struct ab_result *res, int v, struct row *r)
{
	double st[AB_MAX_PHASES * 4];
	int nst = 0, n = 0;
	memset(r, 0, sizeof *r);
	abwords_label(cfg, (size_t)v, r->label, sizeof r->label);
	r->round = -1;
	for (size_t i = 0; i < res->nphases; i++) {
		const struct ab_phase *p = &res->phases[i];
		if (p->variant != v || p->round == 0)
			continue;
		add_phase(r, p);
		r->read_MBps += p->read_MBps;
		r->write_MBps += p->write_MBps;
		r->dirty_MB += p->dirty_MB;
		n++;
		for (int k = 0; k < p->nstartup && nst < (int)(sizeof st / sizeof st[0]); k++)
			st[nst++] = p->startup_s[k];
	}
	r->read_MBps = n ? r->read_MBps / n : NAN;
	r->write_MBps = n ? r->write_MBps / n : NAN;
	r->dirty_MB = n ? r->dirty_MB / n : NAN;
	r->startup_med = util_median(st, nst);
}

void abrows_phase(const struct ab_config *cfg, const struct ab_phase *p, struct row *r)
{
	double st[AB_MAX_STARTUPS];
	memset(r, 0, sizeof *r);
	abwords_label(cfg, (size_t)p->variant, r->label, sizeof r->label);
	r->round = p->round;
	r->start_ts = p->start_ts;
	r->phase = p;
	add_phase(r, p);
	r->read_MBps = p->read_MBps;
	r->write_MBps = p->write_MBps;
	r->dirty_MB = p->dirty_MB;
	r->washout_s = p->washout_s;
	memcpy(st, p->startup_s, sizeof st);
	r->startup_med = util_median(st, p->nstartup);
}

/* One phase's other I/O (MB/s, reads and writes; the disk's total in
 * *all): on the disk less the tool's own, or (below) on the disk under a
 * loop device less what went through it; -1 when not known. */
static double phase_other(const struct ab_phase *p, int below, double *rd, double *wr, double *all)
{
	double r = below ? p->below_read_MBps : p->read_MBps, w = below ? p->below_write_MBps : p->write_MBps;
	double own_r = below ? p->read_MBps : p->own_read_MBps, own_w = below ? p->write_MBps : p->own_write_MBps;
	if (r < 0 || w < 0 || own_r < 0 || own_w < 0 || !(p->secs > 0))
		return -1;
	*rd = r > own_r ? r - own_r : 0;
	*wr = w > own_w ? w - own_w : 0;
	*all = r + w;
	return *rd + *wr;
}

static void other_of(const struct ab_result *res, int below, struct ab_other *o)
{
	memset(o, 0, sizeof *o);
	o->peak_phase = -1;
	int n = 0, peak_matters = 0;
	for (size_t i = 0; i < res->nphases; i++) {
		double rd, wr, all, other = phase_other(&res->phases[i], below, &rd, &wr, &all);
		if (other < 0)
			continue;
		n++;
		o->read_MBps += rd;
		o->write_MBps += wr;
		o->disk_MBps += all;
		if (o->peak_phase < 0 || other > o->peak_MBps) {
			o->peak_MBps = other;
			o->peak_phase = (int)i;
			peak_matters = other >= 1 && other >= 0.25 * all;
		}
	}
	if (!n)
		return;
	o->read_MBps /= n;
	o->write_MBps /= n;
	o->disk_MBps /= n;
	double mean = o->read_MBps + o->write_MBps;
	o->matters = peak_matters || (mean >= 1 && mean >= 0.1 * o->disk_MBps);
}

void abrows_other(const struct ab_result *res, struct ab_other *o, struct ab_other *below)
{
	other_of(res, 0, o);
	if (res->below[0])
		other_of(res, 1, below);
	else
		*below = (struct ab_other){.peak_phase = -1};
}

double abrows_write_change(const struct row *sum, size_t v)
{
	return sum[0].write_MBps > 0 && !isnan(sum[v].write_MBps) ? (sum[v].write_MBps / sum[0].write_MBps - 1) * 100
								   : NAN;
}
