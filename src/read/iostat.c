/* iostat: see include/read/iostat.h */
#include "read/iostat.h"

#include <errno.h>
#include <string.h>

uint64_t iostat_counter_delta(uint64_t prev, uint64_t cur)
{
	if (cur >= prev)
		return cur - prev;
	if (prev <= UINT32_MAX)
		return (uint64_t)(uint32_t)(cur - prev);
	return cur;
}

int iostat_compute(const struct diskstats_row *prev, const struct diskstats_row *cur,
		   double interval_s, struct iostat_rates *out)
{
	memset(out, 0, sizeof *out);
	if (!(interval_s > 0))
		return -EINVAL;
	uint64_t d[DS_NFIELDS];
	for (int i = 0; i < DS_NFIELDS; i++)
		d[i] = iostat_counter_delta(prev->f[i], cur->f[i]);

	out->r_s = (double)d[DS_RD_IOS] / interval_s;
	out->w_s = (double)d[DS_WR_IOS] / interval_s;
	/* diskstats sectors are always 512 bytes: two per kB. */
	out->rkB_s = (double)d[DS_RD_SECTORS] / 2.0 / interval_s;
	out->wkB_s = (double)d[DS_WR_SECTORS] / 2.0 / interval_s;
	out->r_await_ms = d[DS_RD_IOS] ? (double)d[DS_RD_TICKS] / (double)d[DS_RD_IOS] : 0.0;
	out->w_await_ms = d[DS_WR_IOS] ? (double)d[DS_WR_TICKS] / (double)d[DS_WR_IOS] : 0.0;
	out->aqu_sz = (double)d[DS_TIME_IN_QUEUE] / (interval_s * 1000.0);
	double util = (double)d[DS_IO_TICKS] / (interval_s * 10.0);
	/* io_ticks advance in jiffies; a measured interval a little shorter
	 * than the kernel's view can push the share just past 100. */
	out->util_pct = util > 100.0 ? 100.0 : util;
	return 0;
}
