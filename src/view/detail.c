/* detail: see include/detail.h */
#include "detail.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

/* Append a formatted line to buf; a full buffer just stops growing. */
static void add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	if (used + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
	used = strlen(buf);
	if (used + 1 < len) {
		buf[used] = '\n';
		buf[used + 1] = '\0';
	}
}

static void latency(uint64_t n, double q, uint64_t ns, char *b, size_t len)
{
	if (hist_enough(n, q))
		util_format_latency(ns, b, len);
	else
		util_strlcpy(b, "-", len);
}

static const struct proc_row *find_row(const struct sample *s, int pid)
{
	for (size_t i = 0; s->have_procs && i < s->nprocs; i++)
		if (s->procs[i].pid == pid && s->procs[i].tid == pid)
			return &s->procs[i];
	return NULL;
}

/* What each latency figure measures, so disagreement is not a surprise. */
static void add_meaning(char *buf, size_t len)
{
	add(buf, len, "%s", "");
	add(buf, len, "%s", "Block layer: each request of this process, from issue to the driver until completion;");
	add(buf, len, "%s", "large or sequential requests take longer than the probe's fresh 4 KiB read, and the");
	add(buf, len, "%s", "system call and wake-up are not in it. Buffered writes are written later by [writeback].");
}

void detail_process(const struct sample *s, int pid, const char *comm, char *buf, size_t len)
{
	buf[0] = '\0';
	const struct proc_row *r = find_row(s, pid);
	add(buf, len, "%d %s: block I/O per disk over the last %.1f s", pid, r ? r->comm : comm, s->interval_s);
	if (!r)
		add(buf, len, "%s", "(the process has exited)");
	if (r && r->wait == WAIT_OK)
		add(buf, len, "delay accounting (all disks, synchronous waits): IO-WAIT %.1f%%, average wait %.0f us",
		    r->io_wait_pct, r->avg_wait_us);
	if (!s->blk_on) {
		add(buf, len, "block-layer latency is off: %s", s->blk_why);
		return;
	}
	add(buf, len, "%s", "");
	add(buf, len, "%-12s %-5s %9s %10s %9s %9s %9s", "DISK", "OP", "REQ/s", "BYTES/s", "p50", "p99", "max");
	double dt = s->interval_s > 0 ? s->interval_s : 1;
	int rows = 0;
	for (size_t i = 0; i < s->blk.nstats; i++) {
		const struct blk_stat *st = &s->blk.stats[i];
		if (st->tgid != pid)
			continue;
		char p50[16], p99[16], mx[16], bytes[16];
		latency(st->n, 0.50, st->p50_ns, p50, sizeof p50);
		latency(st->n, 0.99, st->p99_ns, p99, sizeof p99);
		util_format_latency(st->max_ns, mx, sizeof mx);
		util_format_size((uint64_t)((double)st->bytes / dt), bytes, sizeof bytes);
		add(buf, len, "%-12s %-5s %9.1f %10s %9s %9s %9s", st->disk, st->op == BLK_WRITE ? "write" : "read",
		    (double)st->n / dt, bytes, p50, p99, mx);
		rows++;
	}
	if (!rows)
		add(buf, len, "%s", "no block requests of its own in the interval");
	add_meaning(buf, len);
}

static const char *comm_of(const struct sample *s, int pid)
{
	const struct proc_row *r = find_row(s, pid);
	return r ? r->comm : "?";
}

static void add_waiting(const struct sample *s, const struct disk_sample *d, char *buf, size_t len)
{
	add(buf, len, "%s", "");
	if (!s->blk_on) {
		add(buf, len, "waiting longest: block-layer latency is off: %s", s->blk_why);
		return;
	}
	add(buf, len, "%s", "waiting longest now (oldest block request in flight):");
	struct blk_wait w[3];
	size_t n = blklat_waiting(&s->blk, d->info.name, d->in_flight, w, 3);
	for (size_t i = 0; i < n; i++) {
		char age[16];
		util_format_latency(w[i].oldest_ns, age, sizeof age);
		add(buf, len, "  %7d %-16s %3u in flight, oldest %s", w[i].tgid, comm_of(s, w[i].tgid), w[i].inflight, age);
	}
	if (!n)
		add(buf, len, "%s", "  nothing in flight (requests shorter than about 1 ms may be missed)");
}

void detail_disk(const struct sample *s, const struct disk_sample *d, char *buf, size_t len)
{
	const struct disk_info *i = &d->info;
	char size[16], sched[160] = "";
	buf[0] = '\0';
	util_format_size(i->size_bytes, size, sizeof size);
	for (int k = 0; k < i->sched.n; k++)
		util_fmt(sched + strlen(sched), sizeof sched - strlen(sched), k == i->sched.active ? "[%s] " : "%s ",
			 i->sched.names[k]);
	add(buf, len, "%s: %s%s%s, %s, %s", i->name, disk_kind_name(i->kind), i->model[0] ? " " : "", i->model, size,
	    i->rotational == 1 ? "rotational" : i->rotational == 0 ? "non-rotational" : "rotation unknown");
	add(buf, len, "scheduler %s", sched);
	add(buf, len, "nr_requests %lld  read_ahead_kb %lld  wbt_lat_usec %lld", (long long)i->nr_requests,
	    (long long)i->read_ahead_kb, (long long)i->wbt_lat_usec);
	if (d->have_rates)
		add(buf, len, "r/s %.1f  w/s %.1f  rkB/s %.0f  wkB/s %.0f  r_await %.2f ms  w_await %.2f ms  aqu-sz %.2f  %%util %.1f",
		    d->io.r_s, d->io.w_s, d->io.rkB_s, d->io.wkB_s, d->io.r_await_ms, d->io.w_await_ms, d->io.aqu_sz,
		    d->io.util_pct);
	if (d->probed) {
		char p50[16], p99[16];
		latency(d->probe_10s.n, 0.50, d->probe_10s.p50_ns, p50, sizeof p50);
		latency(d->probe_10s.n, 0.99, d->probe_10s.p99_ns, p99, sizeof p99);
		add(buf, len, "probe (QD1 reads, %s), last 10 s: p50 %s  p99 %s  (%llu reads, %.0f/s)",
		    detail_profile(d->probe_st.rate_hz), p50, p99, (unsigned long long)d->probe_10s.n, d->probe_rps_10s);
		char cmp[400];
		char fresh[96];
		detail_switch_compare(&d->cmp, cmp, sizeof cmp);
		detail_fresh_change(&d->cmp, fresh, sizeof fresh);
		if (cmp[0])
			add(buf, len, "%s%s%s", cmp, fresh[0] ? "; " : "", fresh);
	}
	add_waiting(s, d, buf, len);
}

const char *detail_profile(double rate_hz)
{
	return rate_hz > 0 ? "paced" : "steady";
}

/* "1.60ms -> 120ms (+7400 %)", or with "-" where too few reads stand behind. */
static void change(uint64_t n0, uint64_t n1, double q, uint64_t a, uint64_t b, char *out, size_t len)
{
	char x[16], y[16];
	latency(n0, q, a, x, sizeof x);
	latency(n1, q, b, y, sizeof y);
	if (hist_enough(n0, q) && hist_enough(n1, q) && a > 0)
		util_fmt(out, len, "%s->%s %+.0f%%", x, y, ((double)b / (double)a - 1) * 100);
	else
		util_fmt(out, len, "%s->%s", x, y);
}

void detail_switch_compare(const struct switch_compare *c, char *buf, size_t len)
{
	buf[0] = '\0';
	if (c->state == 0)
		return;
	char p50[64], p99[64], rps[64] = "reads/s -";
	change(c->before.n, c->after.n, 0.50, c->before.p50_ns, c->after.p50_ns, p50, sizeof p50);
	change(c->before.n, c->after.n, 0.99, c->before.p99_ns, c->after.p99_ns, p99, sizeof p99);
	if (c->before_s > 0 && c->after_s > 0) {
		double r0 = (double)c->before.n / c->before_s, r1 = (double)c->after.n / c->after_s;
		if (r0 > 0)
			util_fmt(rps, sizeof rps, "reads/s %.0f->%.0f %+.0f%%", r0, r1, (r1 / r0 - 1) * 100);
		else
			util_fmt(rps, sizeof rps, "reads/s %.0f->%.0f", r0, r1);
	}
	/* reads/s first: the figure per-read percentiles hide, and the one
	 * to keep when a narrow screen cuts the line. */
	util_fmt(buf, len, "%s->%s %s, %.0fs before vs %.0fs after: %s, p50 %s, p99 %s", c->from, c->to,
		 detail_profile(c->rate_hz), c->before_s, c->state == 2 ? 10.0 : floor(c->after_s), rps, p50, p99);
}

void detail_fresh_change(const struct switch_compare *c, char *buf, size_t len)
{
	buf[0] = '\0';
	if (c->fresh_before_n == 0 && c->fresh_after_n == 0)
		return;
	char x[24] = "-", y[24] = "-";
	if (c->fresh_before_n)
		util_fmt(x, sizeof x, "%.0fms", c->fresh_before_ms);
	if (c->fresh_after_n)
		util_fmt(y, sizeof y, "%.0fms", c->fresh_after_ms);
	if (c->fresh_before_n && c->fresh_after_n && c->fresh_before_ms > 0)
		util_fmt(buf, len, "fresh job %s->%s %+.0f%%", x, y, (c->fresh_after_ms / c->fresh_before_ms - 1) * 100);
	else
		util_fmt(buf, len, "fresh job %s->%s", x, y);
}

void detail_writers(const struct sample *s, char *buf, size_t len)
{
	char dirt[96] = "", top[64] = "", disk[64] = "";
	if (s->have_procs) {
		if (s->top_writer >= 0) {
			char sz[16], comm[64];
			util_format_size((uint64_t)s->procs[s->top_writer].write_Bps, sz, sizeof sz);
			util_safe_text(comm, sizeof comm, s->procs[s->top_writer].comm); /* text output prints it */
			util_fmt(top, sizeof top, " (%s %d %s/s)", comm, s->procs[s->top_writer].pid, sz);
		}
		util_fmt(dirt, sizeof dirt, "dirtying %.1f MB/s%s | ", s->dirty_MBps, top);
	}
	if (s->top_disk >= 0)
		util_fmt(disk, sizeof disk, " (%s %.1f)", s->disks[s->top_disk].info.name, s->disks[s->top_disk].io.wkB_s / 1024);
	util_fmt(buf, len, "%sto disks %.1f MB/s%s", dirt, s->write_MBps, disk);
}

void detail_unreadable(const struct procs_status *ps, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!ps->unreadable)
		return;
	/* Needs root only when it is not root already: as root an EPERM comes
	 * from a container or a hardened kernel (ptrace rules), and root is
	 * not the cure. */
	if (ps->as_root)
		util_fmt(buf, len, "%zu without I/O figures (/proc/PID/io refused to root: a container or a hardened kernel)",
			 ps->unreadable);
	else
		util_fmt(buf, len, "%zu without I/O figures (other users': needs root or CAP_SYS_PTRACE)", ps->unreadable);
}
