/* readfig: see include/probe/readfig.h */
#include "probe/readfig.h"

#include <math.h>

#include "base/util.h"

static double share(uint64_t ns, double secs)
{
	double s = secs > 0 ? (double)ns / 1e9 / secs : 0;
	return s > 1 ? 1 : s;
}

void readfig_compute(const struct hist *reads, const struct hist *sec_p50, double secs, struct readfig *out)
{
	out->secs = secs;
	out->n = reads->n;
	out->reads_per_s = secs > 0 ? (double)reads->n / secs : NAN;
	out->mean_us = reads->n ? hist_mean_ns(reads) / 1e3 : NAN;
	out->p50_us = reads->n ? (double)hist_quantile(reads, 0.5) / 1e3 : NAN;
	out->p99_us = hist_enough(reads->n, 0.99) ? (double)hist_quantile(reads, 0.99) / 1e3 : NAN;
	out->max_us = reads->n ? (double)reads->max_ns / 1e3 : NAN;
	out->p50_per_s_us = sec_p50 && sec_p50->n ? (double)hist_quantile(sec_p50, 0.5) / 1e3 : NAN;
	out->stall_10ms = share(hist_sum_above(reads, 10000000), secs);
	out->stall_100ms = share(hist_sum_above(reads, 100000000), secs);
	out->slow_share = reads->n ? share(hist_sum_above(reads, (uint64_t)(out->p50_us * 1e3 * READFIG_SKEW)), secs)
				   : 0;
}

int readfig_skewed(const struct readfig *f)
{
	if (isnan(f->p50_us) || isnan(f->p50_per_s_us) || f->p50_us <= 0 || f->p50_per_s_us <= 0)
		return 0;
	return f->p50_per_s_us > READFIG_SKEW * f->p50_us || f->p50_us > READFIG_SKEW * f->p50_per_s_us;
}

int readfig_sentence(const struct readfig *f, char *buf, size_t len)
{
	char a[24], b[24];
	buf[0] = '\0';
	if (!readfig_skewed(f))
		return 0;
	util_format_latency((uint64_t)(f->p50_us * 1e3), a, sizeof a);
	util_format_latency((uint64_t)(f->p50_per_s_us * 1e3), b, sizeof b);
	if (f->p50_per_s_us > f->p50_us)
		util_fmt(buf, len,
			 "most reads were fast (p50 %s), but for %.0f %% of the time the reader waited on slow ones "
			 "(median of per-second p50s %s)",
			 a, f->slow_share * 100, b);
	else
		util_fmt(buf, len,
			 "most seconds were fast (median of per-second p50s %s), but most reads were slow (p50 %s): "
			 "the reads came unevenly over the time",
			 b, a);
	return 1;
}
