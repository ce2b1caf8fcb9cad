/* detail: see include/out/detail.h */
#include "out/detail.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"

void detail_line(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	if (used + 1 >= len)
		return;
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	/* escaped as every text is: a name with a newline in it (a process
	 * may call itself "x\nFAKE LINE") must not make a line of its own */
	util_safe_text(buf + used, len - used, line);
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

/* A disk under a stacked device (a loop device's file) writes the same
 * bytes again: say which rows above are those, counted once in TO-DISK/s,
 * at this disk, as "to disks" counts them. */
static void add_stacked(char *buf, size_t len, const struct sample *s, int pid)
{
	double dt = s->interval_s > 0 ? s->interval_s : 1;
	for (size_t i = 0; i < s->blk.nstats; i++) {
		const struct blk_stat *st = &s->blk.stats[i];
		if (st->tgid != pid || !st->stacked_bytes)
			continue;
		char b[16];
		util_format_size(util_to_u64((double)st->stacked_bytes / dt), b, sizeof b);
		detail_line(buf, len, "%s write: %s/s of it are the same bytes as its writes to a device stacked on %s "
			      "(a loop device's file): TO-DISK/s counts them once, here, as \"to disks\" does", st->disk, b, st->disk);
	}
}

/* What each latency figure measures, so disagreement is not a surprise. */
static void add_meaning(char *buf, size_t len)
{
	detail_line(buf, len, "%s", "");
	detail_line(buf, len, "%s", "Block layer: each request of this process, from issue to the driver until completion;");
	detail_line(buf, len, "%s", "large or sequential requests take longer than the probe's fresh 4 KiB read, and the");
	detail_line(buf, len, "%s", "system call and wake-up are not in it. Buffered writes are issued later by [writeback]");
	detail_line(buf, len, "%s", "rows: their latency is the flusher's, their bytes are this process's TO-DISK/s.");
}

void detail_process(const struct sample *s, int pid, const char *comm, char *buf, size_t len)
{
	buf[0] = '\0';
	const struct proc_row *r = find_row(s, pid);
	detail_line(buf, len, "%d %s: block I/O per disk over the last %.1f s", pid, r ? r->comm : comm, s->interval_s);
	if (!r)
		detail_line(buf, len, "%s", "(the process has exited)");
	if (r && r->wait == WAIT_OK)
		detail_line(buf, len, "delay accounting (all disks, synchronous waits): IO-WAIT %.1f%%, average wait %.0f us",
		    r->io_wait_pct, r->avg_wait_us);
	if (r && r->throttled_pct > 0)
		detail_line(buf, len, "paused for dirty pages (THROTTLED, not block I/O): %.1f%% of the interval: it "
			    "wrote faster than its disks take it", r->throttled_pct);
	if (!s->blk_on) {
		detail_line(buf, len, "block-layer latency is off: %s", s->blk_why);
		return;
	}
	detail_line(buf, len, "%s", "");
	detail_line(buf, len, "%-12s %-5s %9s %10s %9s %9s %9s", "DISK", "OP", "REQ/s", "BYTES/s", "p50", "p99", "max");
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
		util_format_size(util_to_u64((double)st->bytes / dt), bytes, sizeof bytes);
		detail_line(buf, len, "%-12s %-5s %9.1f %10s %9s %9s %9s", st->disk, st->op == BLK_WRITE ? "write" : "read",
		    (double)st->n / dt, bytes, p50, p99, mx);
		rows++;
	}
	if (!rows)
		detail_line(buf, len, "%s", "no block requests of its own in the interval");
	add_stacked(buf, len, s, pid);
	add_meaning(buf, len);
}

static const char *comm_of(const struct sample *s, int pid)
{
	const struct proc_row *r = find_row(s, pid);
	return r ? r->comm : "?";
}

static void add_waiting(const struct sample *s, const struct disk_sample *d, char *buf, size_t len)
{
	detail_line(buf, len, "%s", "");
	if (!s->blk_on) {
		detail_line(buf, len, "waiting longest: block-layer latency is off: %s", s->blk_why);
		return;
	}
	detail_line(buf, len, "%s", "waiting longest now (oldest block request in flight):");
	const struct blk_wait *w = d->waiting;
	size_t n = d->nwaiting;
	for (size_t i = 0; i < n; i++) {
		char age[16];
		util_format_latency(w[i].oldest_ns, age, sizeof age);
		detail_line(buf, len, "  %7d %-16s %3u in flight, oldest %s", w[i].tgid, comm_of(s, w[i].tgid), w[i].inflight, age);
	}
	if (!n)
		detail_line(buf, len, "%s", "  nothing in flight (requests shorter than about 1 ms may be missed)");
	char sz[16], all[16];
	util_format_size(d->blk_unattributed, sz, sizeof sz);
	util_format_size(s->blk.unattributed, all, sizeof all);
	detail_line(buf, len, "not attributed since start: %s of file writes to %s with no known dirtier (all disks %s; "
		      "dirtied before the start, or forgotten: the maps are bounded)",
	    sz, d->info.name, all);
	detail_line(buf, len, "not timed since start, all disks: %llu requests (no free slot), %llu completions (map full)",
	    (unsigned long long)s->blk.untimed, (unsigned long long)s->blk.uncounted);
}

/* One owner of what the disk served while probe reads waited:
 * "dd (4186) 92% writeback". */
static void ahead_text(const struct probe_ahead *a, char *out, size_t len)
{
	char comm[64];
	util_safe_text(comm, sizeof comm, a->comm);
	util_fmt(out, len, "%s (%d) %.0f%% %s", comm, a->pid, a->share * 100, blk_kind_name(a->kind));
}

/* Why the probe's reads were slow: its slowest reads of the last 10 s,
 * each with what the disk served most meanwhile, then everything it
 * served while the probe's reads waited. */
static void add_slow(const struct sample *s, const struct disk_sample *d, char *buf, size_t len)
{
	const struct probe_slow *sl = &d->slow;
	char t[96], sz[16];
	detail_line(buf, len, "%s", "");
	if (!s->blk_on) {
		detail_line(buf, len, "why reads were slow: block-layer latency is off: %s", s->blk_why);
		return;
	}
	detail_line(buf, len, "slowest probe reads, last 10 s (%llu over %.0f ms):", (unsigned long long)sl->reads,
	    PROBE_SLOW_US / 1e3);
	for (int i = 0; i < sl->nslowest && i < PROBE_SLOWEST_MAX; i++) {
		char clock[16], lat[16];
		util_clock(sl->slowest[i].ts, clock, sizeof clock);
		util_format_latency(util_to_u64(sl->slowest[i].us * 1e3), lat, sizeof lat);
		if (sl->slowest[i].top.bytes)
			ahead_text(&sl->slowest[i].top, t, sizeof t);
		detail_line(buf, len, "  %s  %8s  %s%s", clock, lat, sl->slowest[i].top.bytes ? "behind " : "",
		    sl->slowest[i].top.bytes ? t : "nothing else was served meanwhile");
	}
	if (!sl->nslowest)
		detail_line(buf, len, "  none over %.0f ms", PROBE_SLOW_US / 1e3);
	util_format_size(sl->total, sz, sizeof sz);
	detail_line(buf, len, "served while probe reads waited, last 10 s (%s):", sz);
	for (int i = 0; i < sl->n && i < PROBE_AHEAD_MAX; i++) {
		char comm[64];
		util_safe_text(comm, sizeof comm, sl->ahead[i].comm);
		util_format_size(sl->ahead[i].bytes, sz, sizeof sz);
		detail_line(buf, len, "  %7d %-16s %-9s %8s %3.0f%%", sl->ahead[i].pid, comm, blk_kind_name(sl->ahead[i].kind), sz,
		    sl->ahead[i].share * 100);
	}
	if (!sl->n)
		detail_line(buf, len, "%s", "  nothing: the probe's reads had the disk to themselves");
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
	detail_line(buf, len, "%s: %s%s%s, %s, %s", i->name, disk_kind_name(i->kind), i->model[0] ? " " : "", i->model, size,
	    i->rotational == 1 ? "rotational" : i->rotational == 0 ? "non-rotational" : "rotation unknown");
	detail_line(buf, len, "scheduler %s", sched);
	detail_line(buf, len, "nr_requests %lld  read_ahead_kb %lld  wbt_lat_usec %lld", (long long)i->nr_requests,
	    (long long)i->read_ahead_kb, (long long)i->wbt_lat_usec);
	if (d->have_rates)
		detail_line(buf, len, "r/s %.1f  w/s %.1f  rkB/s %.0f  wkB/s %.0f  r_await %.2f ms  w_await %.2f ms  aqu-sz %.2f  %%util %.1f",
		    d->io.r_s, d->io.w_s, d->io.rkB_s, d->io.wkB_s, d->io.r_await_ms, d->io.w_await_ms, d->io.aqu_sz,
		    d->io.util_pct);
	if (d->probed) {
		char p50[16], p99[16];
		latency(d->probe_10s.n, 0.50, d->probe_10s.p50_ns, p50, sizeof p50);
		latency(d->probe_10s.n, 0.99, d->probe_10s.p99_ns, p99, sizeof p99);
		detail_line(buf, len, "probe (QD1 reads, %s), last 10 s: p50 %s  p99 %s  (%llu reads, %.0f/s)",
		    detail_profile(d->probe_st.rate_hz), p50, p99, (unsigned long long)d->probe_10s.n, d->probe_rps_10s);
		char cmp[400];
		char fresh[96];
		detail_switch_compare(&d->cmp, 0, cmp, sizeof cmp);
		detail_fresh_change(&d->cmp, fresh, sizeof fresh);
		if (cmp[0])
			detail_line(buf, len, "%s%s%s", cmp, fresh[0] ? "; " : "", fresh);
		char served[200];
		detail_behind_change(&d->cmp, s->blk_on, served, sizeof served);
		if (served[0])
			detail_line(buf, len, "%s", served);
	}
	add_waiting(s, d, buf, len);
	if (d->probed)
		add_slow(s, d, buf, len);
}

const char *detail_profile(double rate_hz)
{
	return rate_hz > 0 ? "paced" : "steady";
}

/* How far a figure moved by itself between the before window's halves
 * (|log| of their ratio), or NAN when the halves cannot say. */
static double half_noise(double a, double b)
{
	return a > 0 && b > 0 ? fabs(log(b / a)) : NAN;
}

/* "+233%", or "within noise" when the change is no larger than the before
 * window's own halves moved (noise NAN: not judged). */
static void change_word(double before, double after, double noise, char *out, size_t len)
{
	out[0] = '\0';
	if (!(before > 0) || !(after >= 0))
		return;
	if (!isnan(noise) && after > 0 && fabs(log(after / before)) <= noise)
		util_strlcpy(out, " within noise", len);
	else
		util_fmt(out, len, " %+.0f%%", (after / before - 1) * 100);
}

/* One figure's part of the line: "p50 1.60ms->120ms +7400%" in full, or
 * "p50 +7400%" / "p50 within noise" short; "-" where too few reads stand
 * behind a value. */
static void figure(const char *name, const char *x, const char *y, const char *w, int full, char *out, size_t len)
{
	if (full || !w[0])
		util_fmt(out, len, "%s %s->%s%s", name, x, y, w);
	else
		util_fmt(out, len, "%s%s", name, w);
}

static void change(const struct switch_compare *c, const char *name, double q, uint64_t a, uint64_t b, uint64_t h1,
		   uint64_t h2, int full, char *out, size_t len)
{
	char x[16], y[16], w[24] = "";
	latency(c->before.n, q, a, x, sizeof x);
	latency(c->after.n, q, b, y, sizeof y);
	int halves = c->half_s > 0 && hist_enough(c->half1.n, q) && hist_enough(c->half2.n, q);
	if (hist_enough(c->before.n, q) && hist_enough(c->after.n, q))
		change_word((double)a, (double)b, halves ? half_noise((double)h1, (double)h2) : NAN, w, sizeof w);
	figure(name, x, y, w, full, out, len);
}

/* The after window is not full yet: no change to show. */
static void measuring(const struct switch_compare *c, char *buf, size_t len)
{
	char p50[16], p99[16];
	double r0 = c->before_s > 0 ? (double)c->before.n / c->before_s : 0;
	latency(c->before.n, 0.5, c->before.p50_ns, p50, sizeof p50);
	latency(c->before.n, 0.99, c->before.p99_ns, p99, sizeof p99);
	util_fmt(buf, len, "%s->%s: measuring (%.0f s of 10); %.0fs before: reads/s %.0f, p50 %s, p99 %s (n %llu)", c->from,
		 c->to, floor(c->after_s), c->before_s, r0, p50, p99, (unsigned long long)c->before.n);
}

/* The complete comparison, full (values and changes, then what the
 * windows were) or short (changes only, for a narrow screen). Returns how
 * much of buf must be seen: up to the reads behind the p99. */
static size_t compared(const struct switch_compare *c, int full, char *buf, size_t len)
{
	char rps[80] = "reads/s -", p50[64], p99[64], w[24] = "", x[16], y[16];
	if (c->before_s > 0 && c->after_s > 0) {
		double r0 = (double)c->before.n / c->before_s, r1 = (double)c->after.n / c->after_s;
		double noise = c->half_s > 0 ? half_noise((double)c->half1.n, (double)c->half2.n) : NAN;
		change_word(r0, r1, noise, w, sizeof w);
		util_fmt(x, sizeof x, "%.0f", r0);
		util_fmt(y, sizeof y, "%.0f", r1);
		figure("reads/s", x, y, w, full, rps, sizeof rps);
	}
	change(c, "p50", 0.50, c->before.p50_ns, c->after.p50_ns, c->half1.p50_ns, c->half2.p50_ns, full, p50, sizeof p50);
	change(c, "p99", 0.99, c->before.p99_ns, c->after.p99_ns, c->half1.p99_ns, c->half2.p99_ns, full, p99, sizeof p99);
	if (!full) {
		util_fmt(buf, len, "switch: %s, %s, %s (n %llu)", rps, p50, p99, (unsigned long long)c->after.n);
		return strlen(buf);
	}
	util_fmt(buf, len, "%s->%s: %s, %s, %s (n %llu/%llu)", c->from, c->to, rps, p50, p99,
		 (unsigned long long)c->before.n, (unsigned long long)c->after.n);
	size_t must = strlen(buf);
	util_fmt(buf + must, len - must, "; %s, %.0fs before vs 10s after", detail_profile(c->rate_hz), c->before_s);
	return must;
}

void detail_switch_compare(const struct switch_compare *c, int width, char *buf, size_t len)
{
	buf[0] = '\0';
	if (c->state == 0)
		return;
	if (c->state == 1) {
		measuring(c, buf, len);
		return;
	}
	/* reads/s, p50 and p99 with the reads behind them come first: a
	 * narrow screen may cut what the windows were, not a figure */
	if (compared(c, 1, buf, len) > (size_t)width && width > 0)
		compared(c, 0, buf, len);
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

/* Whether another process of the list has entry i's name: then each is
 * told by its pid ("dd 15088"). */
static int name_repeats(const struct probe_slow *sl, int i)
{
	for (int j = 0; j < sl->n && j < PROBE_AHEAD_MAX; j++)
		if (j != i && sl->ahead[j].pid != sl->ahead[i].pid && !strcmp(sl->ahead[j].comm, sl->ahead[i].comm))
			return 1;
	return 0;
}

void detail_behind(const struct probe_slow *sl, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!sl->n)
		return;
	size_t at = (size_t)snprintf(buf, len, "waited behind:");
	/* under 1 % is noise on one line: the detail panel lists it */
	for (int i = 0; i < sl->n && i < PROBE_AHEAD_MAX && at < len && (i == 0 || sl->ahead[i].share >= 0.005); i++) {
		char comm[64], who[80];
		util_safe_text(comm, sizeof comm, sl->ahead[i].comm);
		if (name_repeats(sl, i) && sl->ahead[i].pid > 0)
			util_fmt(who, sizeof who, "%s %d", comm, sl->ahead[i].pid);
		else
			util_strlcpy(who, comm, sizeof who);
		at += (size_t)snprintf(buf + at, len - at, "%s %s %.0f%% %s", i ? "," : "", who, sl->ahead[i].share * 100,
				       blk_kind_name(sl->ahead[i].kind));
	}
}

/* A kind's share of a window's bytes, in percent (0 when none). */
static double kind_pct(const struct blk_kind_bytes *k, int kind)
{
	uint64_t total = 0;
	for (int i = 0; i < BLK_NKINDS; i++)
		total += k->b[i];
	return total ? 100.0 * (double)k->b[kind] / (double)total : 0;
}

void detail_behind_change(const struct switch_compare *c, int blk_on, char *buf, size_t len)
{
	buf[0] = '\0';
	if (c->state == 0 || !blk_on)
		return;
	int order[BLK_NKINDS], n = 0;
	double moved[BLK_NKINDS];
	for (int k = 0; k < BLK_NKINDS; k++) {
		moved[k] = fabs(kind_pct(&c->behind_after, k) - kind_pct(&c->behind_before, k));
		if (c->behind_before.b[k] || c->behind_after.b[k])
			order[n++] = k;
	}
	if (!n) {
		util_fmt(buf, len, "served first: nothing else while probe reads waited, %s", c->state == 2 ? "before or after" : "so far");
		return;
	}
	for (int i = 1; i < n; i++) /* the kinds that moved most first */
		for (int j = i; j > 0 && moved[order[j]] > moved[order[j - 1]]; j--) {
			int x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	size_t at = (size_t)snprintf(buf, len, "served while probe reads waited, before->after:");
	for (int i = 0; i < n && i < 3 && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s %s %.0f%%->%.0f%%", i ? "," : "", blk_kind_name((enum blk_kind)order[i]),
				       kind_pct(&c->behind_before, order[i]), kind_pct(&c->behind_after, order[i]));
}

static void writers(const struct sample *s, int pids, char *buf, size_t len)
{
	char dirt[96] = "", top[64] = "", disk[160] = "";
	const struct proc_row *tw = sample_top_writer(s);
	const struct disk_sample *td = sample_top_disk(s);
	if (s->have_procs) {
		if (tw) {
			char sz[16], comm[64];
			util_format_size(util_to_u64(tw->write_Bps), sz, sizeof sz);
			util_safe_text(comm, sizeof comm, tw->comm); /* text output prints it */
			if (pids)
				util_fmt(top, sizeof top, " (%s %d %s/s)", comm, tw->pid, sz);
			else
				util_fmt(top, sizeof top, " (%s %s/s)", comm, sz);
		}
		util_fmt(dirt, sizeof dirt, "dirtying %.1f MB/s%s | ", s->dirty_MBps, top);
	}
	if (td) {
		char name[4 * DISK_NAME_MAX + 1]; /* a replayed name is the recording's: escaped for text */
		util_safe_text(name, sizeof name, td->info.name);
		util_fmt(disk, sizeof disk, " (%s %.1f", name, td->io.wkB_s / 1024);
		/* whose data it is: the dirtier of what the flushers write */
		const struct proc_row *tp = sample_top_to_disk(s);
		if (tp) {
			char sz[16], comm[64];
			/* its part of the total: a loop device's writer counted
			 * at the disk below, as the total counts it */
			util_format_size(util_to_u64(sample_to_disks_part_Bps(s, tp)), sz, sizeof sz);
			util_safe_text(comm, sizeof comm, tp->comm);
			char pid[16] = "";
			if (pids)
				util_fmt(pid, sizeof pid, " %d", tp->pid);
			util_fmt(disk + strlen(disk), sizeof disk - strlen(disk), "; for %s%s%s %s/s",
				 tp->exited ? "[exited] " : "", comm, pid, sz);
		}
		util_fmt(disk + strlen(disk), sizeof disk - strlen(disk), ")");
	}
	/* processes whose exit records the kernel dropped: their I/O is in no row */
	char lost[64] = "";
	const struct procs_status *ps = &s->pstat;
	if (s->have_procs && ps->exits && ps->exit_records_lost > 0)
		util_fmt(lost, sizeof lost, " | %ld exits lost", ps->exit_records_lost);
	else if (s->have_procs && ps->exits && ps->exit_records_lost < 0 && ps->exits_lost)
		util_strlcpy(lost, " | exits lost (how many unknown)", sizeof lost);
	util_fmt(buf, len, "%sto disks %.1f MB/s%s%s", dirt, s->write_MBps, disk, lost);
}

void detail_writers(const struct sample *s, char *buf, size_t len)
{
	writers(s, 1, buf, len);
}

void detail_writers_brief(const struct sample *s, char *buf, size_t len)
{
	writers(s, 0, buf, len);
}

void detail_unreadable(const struct procs_status *ps, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!ps->unreadable)
		return;
	if (!ps->stuck && ps->given_up) {
		util_fmt(buf, len, "%zu without I/O figures: /proc files of some tasks did not answer in time (held in "
			 "execve for a while?)", ps->unreadable);
		return;
	}
	if (ps->stuck) {
		/* first: the cause is on the machine, not in a permission */
		char pids[64] = "";
		for (size_t i = 0; i < ps->stuck && i < PROCS_STUCK_NAMED; i++)
			util_fmt(pids + strlen(pids), sizeof pids - strlen(pids), "%s%d", i ? ", " : "", ps->stuck_pid[i]);
		util_fmt(buf, len, "%zu without I/O figures: /proc files of %zu task(s) do not answer (pid %s%s: held in execve?)",
			 ps->unreadable, ps->stuck, pids, ps->stuck > PROCS_STUCK_NAMED ? ", ..." : "");
		return;
	}
	/* Needs root only when it is not root already: as root an EPERM comes
	 * from a container or a hardened kernel (ptrace rules), and root is
	 * not the cure. */
	if (ps->as_root)
		util_fmt(buf, len, "%zu without I/O figures (/proc/PID/io refused to root: a container or a hardened kernel)",
			 ps->unreadable);
	else
		util_fmt(buf, len, "%zu without I/O figures (other users': needs root or CAP_SYS_PTRACE)", ps->unreadable);
}
