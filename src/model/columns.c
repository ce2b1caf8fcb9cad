/* columns: see include/model/columns.h */
#include "model/columns.h"

#include <stdio.h>
#include <string.h>

#include "base/util.h"

static void fmt_name(const struct disk_sample *d, char *b, size_t n)
{
	util_strlcpy(b, d->info.name, n);
}

static void fmt_kind(const struct disk_sample *d, char *b, size_t n)
{
	util_strlcpy(b, disk_kind_name(d->info.kind), n);
}

static void fmt_rot(const struct disk_sample *d, char *b, size_t n)
{
	util_strlcpy(b, d->info.rotational < 0 ? "-" : d->info.rotational ? "yes" : "no", n);
}

static void fmt_size(const struct disk_sample *d, char *b, size_t n)
{
	util_format_size(d->info.size_bytes, b, n);
}

static void fmt_model(const struct disk_sample *d, char *b, size_t n)
{
	util_strlcpy(b, d->info.model[0] ? d->info.model : "-", n);
}

/* While a switch is queued or in the kernel the row says so:
 * "mq-deadline -> kyber 3.2s" (running) or "... queued". */
static void fmt_sched(const struct disk_sample *d, char *b, size_t n)
{
	const struct disk_pending *p = &d->pending;
	const char *a = sched_active(&d->info.sched);
	if (p->jobs && strcmp(p->key, "scheduler") == 0) {
		if (p->running)
			snprintf(b, n, "%s -> %s %.1fs", a ? a : "-", p->to, p->secs);
		else
			snprintf(b, n, "%s -> %s queued", a ? a : "-", p->to);
		return;
	}
	sched_format(&d->info.sched, b, n);
}

/* The last switch's duration, or the running change's elapsed time. */
static void fmt_switch(const struct disk_sample *d, char *b, size_t n)
{
	if (d->pending.jobs && d->pending.running)
		snprintf(b, n, "%.1fs..", d->pending.secs);
	else if (d->last_switch_ms >= 0)
		snprintf(b, n, "%.0fms", d->last_switch_ms);
	else
		util_strlcpy(b, "", n);
}

static void fmt_note(const struct disk_sample *d, char *b, size_t n)
{
	util_strlcpy(b, d->warning[0] ? d->warning : "", n);
}

static void fmt_i64(int64_t v, char *b, size_t n)
{
	if (v < 0)
		util_strlcpy(b, "-", n);
	else
		snprintf(b, n, "%lld", (long long)v);
}

static void fmt_nr(const struct disk_sample *d, char *b, size_t n)
{
	fmt_i64(d->info.nr_requests, b, n);
}

static void fmt_ra(const struct disk_sample *d, char *b, size_t n)
{
	fmt_i64(d->info.read_ahead_kb, b, n);
}

static void fmt_wbt(const struct disk_sample *d, char *b, size_t n)
{
	fmt_i64(d->info.wbt_lat_usec, b, n);
}

/* Rates exist only from a disk's second reading on. */
static void fmt_rate(const struct disk_sample *d, double v, int decimals, char *b, size_t n)
{
	if (!d->have_rates)
		util_strlcpy(b, "-", n);
	else
		snprintf(b, n, "%.*f", decimals, v);
}

static void fmt_rs(const struct disk_sample *d, char *b, size_t n)
{
	fmt_rate(d, d->io.r_s, 2, b, n);
}

static void fmt_ws(const struct disk_sample *d, char *b, size_t n)
{
	fmt_rate(d, d->io.w_s, 2, b, n);
}

static void fmt_rmb(const struct disk_sample *d, char *b, size_t n)
{
	fmt_rate(d, d->io.rkB_s / 1024.0, 2, b, n);
}

static void fmt_wmb(const struct disk_sample *d, char *b, size_t n)
{
	fmt_rate(d, d->io.wkB_s / 1024.0, 2, b, n);
}

static void fmt_rawait(const struct disk_sample *d, char *b, size_t n)
{
	fmt_rate(d, d->io.r_await_ms, 2, b, n);
}

static void fmt_wawait(const struct disk_sample *d, char *b, size_t n)
{
	fmt_rate(d, d->io.w_await_ms, 2, b, n);
}

static void fmt_aqu(const struct disk_sample *d, char *b, size_t n)
{
	fmt_rate(d, d->io.aqu_sz, 2, b, n);
}

static void fmt_util(const struct disk_sample *d, char *b, size_t n)
{
	fmt_rate(d, d->io.util_pct, 1, b, n);
}

/* A probe quantile over the last 10 s, or why there is none. */
static void fmt_probe_q(const struct disk_sample *d, double q, uint64_t v, char *b, size_t n)
{
	if (!d->probed)
		util_strlcpy(b, "-", n);
	else if (d->probe_st.state == PROBE_ENDED)
		util_strlcpy(b, "off", n);
	else if (!hist_enough(d->probe_10s.n, q))
		util_strlcpy(b, "-", n);
	else
		util_format_latency(v, b, n);
}

static void fmt_p50(const struct disk_sample *d, char *b, size_t n)
{
	fmt_probe_q(d, 0.50, d->probe_10s.p50_ns, b, n);
}

/* A read in flight longer than any in the window (and over 100 ms) is
 * news the user must see even on a disk that is not selected: ">1.25s". */
static void fmt_p99(const struct disk_sample *d, char *b, size_t n)
{
	double ns = d->probe_st.in_flight_ms * 1e6;
	if (d->probed && ns >= 1e8 && ns > (double)d->probe_10s.max_ns) {
		char t[16];
		util_format_latency(util_to_u64(ns), t, sizeof t); /* a replay's figure may be any */
		snprintf(b, n, ">%s", t);
		return;
	}
	fmt_probe_q(d, 0.99, d->probe_10s.p99_ns, b, n);
}

/* Priorities answer, in order, "which disk, which scheduler, how slow, how
 * busy, who reads and writes": on a narrow terminal (80x24) the lowest
 * numbers are kept first, each column on its own (a wide one that does not
 * fit leaves room for a narrower one after it). SWITCH is empty unless a
 * switch is on its way; KIND (loop, nvme...) comes next, so a 120-column
 * screen names what each disk is. */
static const struct column table[] = {
	{"DEVICE", 8, 0, 1, fmt_name},
	{"KIND", 9, 8, 1, fmt_kind},
	{"ROT", 3, 13, 1, fmt_rot},
	{"SIZE", 6, 15, 0, fmt_size},
	{"MODEL", 16, 20, 1, fmt_model},
	{"SCHEDULER", 28, 1, 1, fmt_sched},
	{"SWITCH", 7, 7, 0, fmt_switch},
	{"NR_RQ", 5, 17, 0, fmt_nr},
	{"RA_KB", 6, 18, 0, fmt_ra},
	{"WBT_US", 7, 19, 0, fmt_wbt},
	{"r/s", 8, 6, 0, fmt_rs},
	{"w/s", 8, 5, 0, fmt_ws},
	{"rMB/s", 7, 11, 0, fmt_rmb},
	{"wMB/s", 7, 10, 0, fmt_wmb},
	{"r_await_ms", 10, 9, 0, fmt_rawait},
	{"p50", 7, 2, 0, fmt_p50},
	{"p99", 7, 3, 0, fmt_p99},
	{"w_await_ms", 10, 12, 0, fmt_wawait},
	{"aqu-sz", 6, 14, 0, fmt_aqu},
	{"%util", 5, 4, 0, fmt_util},
	{"NOTE", 40, 16, 1, fmt_note},
};

#define NCOLS (sizeof table / sizeof table[0])

const struct column *columns_table(size_t *n)
{
	*n = NCOLS;
	return table;
}

size_t columns_fit(int width, size_t *idx)
{
	int chosen[NCOLS] = {0};
	int used = 0, maxprio = 0;
	for (size_t i = 0; i < NCOLS; i++)
		if (table[i].priority > maxprio)
			maxprio = table[i].priority;
	for (int p = 0; p <= maxprio; p++) {
		for (size_t i = 0; i < NCOLS; i++) {
			if (table[i].priority != p)
				continue;
			int need = table[i].width + (used ? 1 : 0);
			if (used + need <= width) {
				chosen[i] = 1;
				used += need;
			}
		}
	}
	size_t k = 0;
	for (size_t i = 0; i < NCOLS; i++)
		if (chosen[i])
			idx[k++] = i;
	return k;
}

static void pad(const struct column *c, const char *text, char *buf, size_t len)
{
	int w = c->width;
	if ((size_t)w >= len)
		w = (int)len - 1;
	char fit[128];
	util_safe_text(fit, sizeof fit, text); /* a disk model is the device's own string */
	/* A figure too wide keeps its unit (">931ms", not ">930.6m") */
	util_fit_figure(fit, w);
	snprintf(buf, len, c->left ? "%-*s" : "%*s", w, fit);
}

void columns_cell(const struct column *c, const struct disk_sample *d, char *buf, size_t len)
{
	char text[128];
	c->format(d, text, sizeof text);
	pad(c, text, buf, len);
}

void columns_header(const struct column *c, char *buf, size_t len)
{
	pad(c, c->header, buf, len);
}
