/* iostat: the figures `iostat -x` prints, from two /proc/diskstats rows.
 * Formulas follow sysstat (rd_stats.c, compute_ext_disk_stats): rates per
 * second over the measured interval, awaits as ticks per completed request. */
#ifndef IOSCHED_IOSTAT_H
#define IOSCHED_IOSTAT_H

#include <stdint.h>

#include "read/diskstats.h"

struct iostat_rates {
	double r_s, w_s;           /* requests completed per second */
	double rkB_s, wkB_s;       /* kB (1024 bytes) per second */
	double r_await_ms;         /* mean ms per completed read (0 with none) */
	double w_await_ms;
	double aqu_sz;             /* mean queue length */
	double util_pct;           /* share of the interval with I/O in flight, 0..100 */
};

/* Difference of a kernel counter between two readings, wrap-safe.
 * The kernel keeps these as unsigned long: 32 bits wide on 32-bit kernels,
 * so a smaller new value below 2^32 is a 32-bit wrap. A smaller value after
 * a 64-bit one cannot be a wrap in practice: it is a reset (device removed
 * and re-added under the same name) and the new value is the delta. */
uint64_t iostat_counter_delta(uint64_t prev, uint64_t cur);

/* Compute rates between prev and cur over interval_s seconds (> 0).
 * Returns 0, or -EINVAL when the interval is not positive. */
int iostat_compute(const struct diskstats_row *prev, const struct diskstats_row *cur,
		   double interval_s, struct iostat_rates *out);

#endif
