/* prom: see include/out/prom.h */
#include "out/prom.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/safefile.h"
#include "base/util.h"

static struct prom_disk *disk_of(struct prom_state *st, const char *disk)
{
	for (size_t i = 0; i < st->ndisks; i++)
		if (strcmp(st->disks[i].disk, disk) == 0)
			return &st->disks[i];
	if (st->ndisks == PROM_DISKS_MAX)
		return NULL;
	struct prom_disk *d = &st->disks[st->ndisks++];
	memset(d, 0, sizeof *d);
	util_strlcpy(d->disk, disk, sizeof d->disk);
	return d;
}

/* The entry of the label text key, made if there is room (an entry that
 * never had a series may make room: the one of the least recent bytes);
 * NULL when every entry has had a series. */
static struct prom_name *name_of(struct prom_state *st, const char *key)
{
	for (size_t i = 0; i < st->nnames; i++)
		if (strcmp(st->names[i].comm, key) == 0)
			return &st->names[i];
	struct prom_name *n = NULL;
	if (st->nnames < PROM_NAMES_KEPT) {
		if (util_grow((void **)&st->names, &st->names_cap, st->nnames + 1, sizeof *st->names) == 0)
			n = &st->names[st->nnames++];
	} else {
		n = prom_weakest(st->names, st->nnames, sizeof *st->names);
		if (n && (n->now > 0 || n->throttled_now > 0)) { /* this interval's: "other"'s, as the rest of its */
			st->other += n->now;
			st->other_throttled += n->throttled_now;
			st->have_other = 1;
		}
	}
	if (n) {
		memset(n, 0, sizeof *n);
		util_strlcpy(n->comm, key, sizeof n->comm);
	}
	return n;
}

static void count_to_disk(struct prom_state *st, const struct sample *s)
{
	if (!s->blk_on || !s->have_procs || !(s->interval_s > 0))
		return;
	st->to_disk = 1;
	double decay = exp(-s->interval_s / PROM_RECENT_S);
	for (size_t i = 0; i < st->nnames; i++)
		st->names[i].sr.recent *= decay;
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct proc_row *r = &s->procs[i];
		st->throttled |= r->throttled_pct >= 0;
		double b = r->to_disk_Bps > 0 ? r->to_disk_Bps * s->interval_s : 0;
		double t = r->throttled_pct > 0 ? r->throttled_pct / 100 * s->interval_s : 0;
		if (!(b > 0 || t > 0) || (r->exited && r->ended_ago))
			continue;
		char key[sizeof st->names[0].comm];
		prom_comm_key(key, sizeof key, r->comm, r->ppid);
		struct prom_name *n = name_of(st, key);
		if (n) {
			n->sr.recent += b;
			n->now += b;
			n->throttled_now += t;
		} else {
			st->other += b;
			st->other_throttled += t;
			st->have_other = 1;
		}
	}
	/* the interval's bytes go where their name's series is once the
	 * interval has counted: a large newcomer is named with its first bytes */
	prom_elect(st->names, st->nnames, sizeof *st->names, PROM_NAMES);
	for (size_t i = 0; i < st->nnames; i++) {
		struct prom_name *n = &st->names[i];
		if (n->sr.named) {
			n->bytes += n->now;
			n->throttled_s += n->throttled_now;
		} else if (n->now > 0 || n->throttled_now > 0) {
			st->other += n->now;
			st->other_throttled += n->throttled_now;
			st->have_other = 1;
		}
		n->now = n->throttled_now = 0;
	}
}

/* The interval's probe waits (its reads' summed latency) split in
 * proportion to the bytes of each kind the disk served meanwhile: a
 * second spent behind writeback counts as writeback's. */
static void count_waits(struct prom_disk *d, const struct sample *s, const struct disk_sample *ds)
{
	double by_kind[BLK_NKINDS] = {0}, all = 0;
	for (size_t i = 0; i < s->blk.nbehind; i++) {
		const struct blk_behind *e = &s->blk.behind[i];
		if (strcmp(e->disk, ds->info.name) == 0 && e->kind < BLK_NKINDS) {
			by_kind[e->kind] += (double)e->bytes;
			all += (double)e->bytes;
		}
	}
	double waited = ds->probe.mean_ns * (double)ds->probe.n / 1e9;
	for (int k = 0; all > 0 && k < BLK_NKINDS; k++)
		d->waited[k] += waited * by_kind[k] / all;
}

void prom_count(struct prom_state *st, const struct sample *s)
{
	count_to_disk(st, s);
	prom_count_cgroups(st, s);
	for (size_t i = 0; i < s->ndisks; i++) {
		const struct disk_sample *ds = &s->disks[i];
		struct prom_disk *d = disk_of(st, ds->info.name); /* every disk has counters, 0 at first */
		if (!d)
			continue;
		if (ds->have_rates && s->interval_s > 0) {
			/* rate x interval gives back the interval's diskstats delta */
			d->read_bytes += ds->io.rkB_s * 1024.0 * s->interval_s;
			d->write_bytes += ds->io.wkB_s * 1024.0 * s->interval_s;
			d->reads += ds->io.r_s * s->interval_s;
			d->writes += ds->io.w_s * s->interval_s;
		}
		if (ds->probed && ds->probe_hist.n > 0) {
			if (!d->probe && (d->probe = malloc(sizeof *d->probe)) != NULL)
				hist_reset(d->probe);
			if (d->probe)
				hist_merge(d->probe, &ds->probe_hist);
			count_waits(d, s, ds);
		}
	}
	for (size_t i = 0; i < s->nevents; i++) {
		const struct event *e = &s->events[i];
		struct prom_disk *d = e->ok && e->type == EV_SCHEDULER ? disk_of(st, e->disk) : NULL;
		if (d)
			d->switches++;
	}
}

void prom_free(struct prom_state *st)
{
	for (size_t i = 0; i < st->ndisks; i++)
		free(st->disks[i].probe);
	st->ndisks = 0;
	free(st->names);
	st->names = NULL;
	st->nnames = st->names_cap = 0;
	prom_free_cgroups(st);
}

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void per_disk(FILE *f, const struct sample *s, const char *name, const char *type, const char *help,
		     double (*get)(const struct disk_sample *))
{
	head(f, name, type, help);
	for (size_t i = 0; i < s->ndisks; i++) {
		const struct disk_sample *d = &s->disks[i];
		if (!d->have_rates)
			continue;
		fprintf(f, "%s{disk=\"", name);
		prom_label(f, d->info.name);
		fprintf(f, "\"} %.9g\n", get(d));
	}
}

static double r_bytes(const struct disk_sample *d) { return d->io.rkB_s * 1024.0; }
static double w_bytes(const struct disk_sample *d) { return d->io.wkB_s * 1024.0; }
static double r_ops(const struct disk_sample *d) { return d->io.r_s; }
static double w_ops(const struct disk_sample *d) { return d->io.w_s; }
static double r_await(const struct disk_sample *d) { return d->io.r_await_ms / 1e3; }
static double w_await(const struct disk_sample *d) { return d->io.w_await_ms / 1e3; }
static double queue(const struct disk_sample *d) { return d->io.aqu_sz; }
static double util(const struct disk_sample *d) { return d->io.util_pct / 100.0; }

static void schedulers(FILE *f, const struct sample *s)
{
	head(f, "iosched_scheduler", "gauge", "I/O scheduler of the disk: 1 for the active one, 0 for the others offered.");
	for (size_t i = 0; i < s->ndisks; i++) {
		const struct sched_list *l = &s->disks[i].info.sched;
		for (int k = 0; k < l->n; k++) {
			fputs("iosched_scheduler{disk=\"", f);
			prom_label(f, s->disks[i].info.name);
			fputs("\",scheduler=\"", f);
			prom_label(f, l->names[k]);
			fprintf(f, "\"} %d\n", k == l->active);
		}
	}
}

/* One series of 1 per disk with what it is (node_exporter's info-metric
 * convention): `device` as node_disk_* name it, so their series can be
 * grouped by scheduler with `* on(instance, device) group_left(scheduler)`. */
static void disk_info(FILE *f, const struct sample *s)
{
	head(f, "iosched_disk_info", "gauge",
	     "What each disk is: its active scheduler, rotational (1, 0, or empty when unknown) and model; always 1.");
	for (size_t i = 0; i < s->ndisks; i++) {
		const struct disk_info *d = &s->disks[i].info;
		const char *act = sched_active(&d->sched);
		fputs("iosched_disk_info{disk=\"", f);
		prom_label(f, d->name);
		fputs("\",device=\"", f);
		prom_label(f, d->name);
		fputs("\",scheduler=\"", f);
		prom_label(f, act ? act : "");
		fprintf(f, "\",rotational=\"%s\",model=\"", d->rotational < 0 ? "" : d->rotational ? "1" : "0");
		prom_label(f, d->model);
		fputs("\"} 1\n", f);
	}
}

static void disk_label(FILE *f, const char *name, const char *disk)
{
	fprintf(f, "%s{disk=\"", name);
	prom_label(f, disk);
	fputc('"', f);
}

/* The probe's last 10 s: p50, p90 and p99 where enough samples stand
 * behind them, as gauges (they go down as well as up); a gauge may not
 * carry a "quantile" label, so one name each. */
static void probe_recent(FILE *f, const struct sample *s)
{
	static const struct {
		double q;
		const char *name, *help;
	} qs[] = {
		{0.5, "iosched_probe_p50_10s_seconds", "Median read latency of the tool's QD1 probe over the last 10 s."},
		{0.9, "iosched_probe_p90_10s_seconds", "90th percentile of the probe's read latency over the last 10 s."},
		{0.99, "iosched_probe_p99_10s_seconds", "99th percentile of the probe's read latency over the last 10 s."},
	};
	for (size_t k = 0; k < 3; k++) {
		head(f, qs[k].name, "gauge", qs[k].help);
		for (size_t i = 0; i < s->ndisks; i++) {
			const struct disk_sample *d = &s->disks[i];
			const struct probe_summary *p = &d->probe_10s;
			if (!d->probed || !hist_enough(p->n, qs[k].q))
				continue;
			uint64_t v = k == 0 ? p->p50_ns : k == 1 ? p->p90_ns : p->p99_ns;
			disk_label(f, qs[k].name, d->info.name);
			fprintf(f, "} %.9g\n", (double)v / 1e9);
		}
	}
}

/* Every probe read since the start, as a cumulative histogram: rate() of
 * its buckets over any range, then histogram_quantile(), gives that
 * range's quantiles. */
static void probe_histogram(FILE *f, const struct prom_state *st)
{
	static const double les[] = {10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3,
				     10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1, 2.5, 5, 10};
	head(f, "iosched_probe_latency_seconds", "histogram",
	     "Read latency of the tool's QD1 probe (4 KiB O_DIRECT random reads), every read since the tool started.");
	for (size_t i = 0; i < st->ndisks; i++) {
		const struct hist *h = st->disks[i].probe;
		if (!h)
			continue;
		for (size_t k = 0; k < sizeof les / sizeof les[0]; k++) {
			disk_label(f, "iosched_probe_latency_seconds_bucket", st->disks[i].disk);
			fprintf(f, ",le=\"%g\"} %llu\n", les[k],
				(unsigned long long)hist_count_upto(h, (uint64_t)(les[k] * 1e9 + 0.5)));
		}
		disk_label(f, "iosched_probe_latency_seconds_bucket", st->disks[i].disk);
		fprintf(f, ",le=\"+Inf\"} %llu\n", (unsigned long long)h->n);
		disk_label(f, "iosched_probe_latency_seconds_sum", st->disks[i].disk);
		fprintf(f, "} %.9g\n", (double)h->sum_ns / 1e9);
		disk_label(f, "iosched_probe_latency_seconds_count", st->disks[i].disk);
		fprintf(f, "} %llu\n", (unsigned long long)h->n);
	}
}

/* One counter per disk from st. */
static void counter(FILE *f, const struct prom_state *st, const char *name, const char *help, size_t off)
{
	head(f, name, "counter", help);
	for (size_t i = 0; i < st->ndisks; i++) {
		double v;
		memcpy(&v, (const char *)&st->disks[i] + off, sizeof v);
		disk_label(f, name, st->disks[i].disk);
		fprintf(f, "} %.0f\n", v);
	}
}

/* One series per named process of metric, its value the double at off in
 * its entry, and "other" (other: its value) once it has been counted. */
static void name_series(FILE *f, const struct prom_state *st, const char *metric, size_t off, int decimals,
			double other)
{
	for (size_t i = 0; i < st->nnames; i++) {
		if (!st->names[i].sr.named)
			continue;
		double v;
		memcpy(&v, (const char *)&st->names[i] + off, sizeof v);
		fprintf(f, "%s{comm=\"", metric);
		prom_label(f, st->names[i].comm);
		fprintf(f, "\"} %.*f\n", decimals, v);
	}
	if (st->have_other)
		fprintf(f, "%s{comm=\"other\"} %.*f\n", metric, decimals, other);
}

/* The same names' pauses in dirty-page throttling (the kernel's tracepoint
 * of another shape: none). */
static void throttled_series(FILE *f, const struct prom_state *st)
{
	if (!st->throttled)
		return;
	head(f, "iosched_process_throttled_seconds_total", "counter",
	     "Seconds each process name was paused for dirty pages since the tool started (THROTTLED): it wrote "
	     "faster than its disks take it and the kernel made it sleep; the names of "
	     "iosched_process_to_disk_bytes_total.");
	name_series(f, st, "iosched_process_throttled_seconds_total", offsetof(struct prom_name, throttled_s), 6,
		    st->other_throttled);
}

/* Whose data the disks wrote, and what the probe's reads waited behind
 * (BPF: nothing without it). */
static void who_the_disk_serves(FILE *f, const struct prom_state *st)
{
	if (!st->to_disk)
		return;
	head(f, "iosched_process_to_disk_bytes_total", "counter",
	     "Bytes written to disks for each process name since the tool started: its own writes and the writeback "
	     "of pages it dirtied (TO-DISK/s); the 16 names that wrote the most lately, the rest as \"other\" "
	     "(a process named other is \"" PROM_OTHER_PROCESS "\").");
	name_series(f, st, "iosched_process_to_disk_bytes_total", offsetof(struct prom_name, bytes), 0, st->other);
	throttled_series(f, st);
	head(f, "iosched_probe_wait_seconds_total", "counter",
	     "Seconds the probe's reads waited since the tool started, split by the kind of what the disk served "
	     "meanwhile (direct, writeback, journal, read, readahead, swap), in proportion to its bytes.");
	for (size_t i = 0; i < st->ndisks; i++)
		for (int k = 0; k < BLK_NKINDS; k++) {
			disk_label(f, "iosched_probe_wait_seconds_total", st->disks[i].disk);
			fprintf(f, ",kind=\"%s\"} %.6f\n", blk_kind_name((enum blk_kind)k), st->disks[i].waited[k]);
		}
}

void prom_format(FILE *f, const struct sample *s, const struct prom_state *st)
{
	schedulers(f, s);
	disk_info(f, s);
	per_disk(f, s, "iosched_read_bytes_per_second", "gauge", "Bytes read per second over the last interval.", r_bytes);
	per_disk(f, s, "iosched_write_bytes_per_second", "gauge", "Bytes written per second over the last interval.",
		 w_bytes);
	per_disk(f, s, "iosched_reads_per_second", "gauge", "Reads completed per second (iostat r/s).", r_ops);
	per_disk(f, s, "iosched_writes_per_second", "gauge", "Writes completed per second (iostat w/s).", w_ops);
	per_disk(f, s, "iosched_read_await_seconds", "gauge", "Mean time of a completed read (iostat r_await).", r_await);
	per_disk(f, s, "iosched_write_await_seconds", "gauge", "Mean time of a completed write (iostat w_await).",
		 w_await);
	per_disk(f, s, "iosched_queue_depth", "gauge", "Mean number of requests in the queue (iostat aqu-sz).", queue);
	per_disk(f, s, "iosched_utilization_ratio", "gauge", "Share of the interval with I/O in flight (iostat %util / 100).",
		 util);
	counter(f, st, "iosched_read_bytes_total", "Bytes read from the disk since the tool started (diskstats).",
		offsetof(struct prom_disk, read_bytes));
	counter(f, st, "iosched_written_bytes_total", "Bytes written to the disk since the tool started (diskstats).",
		offsetof(struct prom_disk, write_bytes));
	counter(f, st, "iosched_reads_total", "Reads completed since the tool started (diskstats).",
		offsetof(struct prom_disk, reads));
	counter(f, st, "iosched_writes_total", "Writes completed since the tool started (diskstats).",
		offsetof(struct prom_disk, writes));
	probe_recent(f, s);
	probe_histogram(f, st);
	head(f, "iosched_scheduler_switches_total", "counter",
	     "Scheduler switches that took effect since the tool started (by it or seen in its event log).");
	for (size_t i = 0; i < st->ndisks; i++) {
		disk_label(f, "iosched_scheduler_switches_total", st->disks[i].disk);
		fprintf(f, "} %llu\n", st->disks[i].switches);
	}
	who_the_disk_serves(f, st);
	prom_format_cgroups(f, st);
	if (s->have_procs && s->pstat.exits && s->pstat.exit_records_lost >= 0) {
		head(f, "iosched_exit_records_lost_total", "counter",
		     "Exit records the kernel dropped since the tool started (its socket was full): tasks in no row.");
		fprintf(f, "iosched_exit_records_lost_total %ld\n", s->pstat.exit_records_lost);
	}
	head(f, "iosched_last_update_seconds", "gauge", "Unix time of the reading these figures come from.");
	fprintf(f, "iosched_last_update_seconds %.3f\n", s->ts);
}

int prom_write(const char *path, const struct sample *s, const struct prom_state *st, char *err, size_t len)
{
	/* Formatted whole first, then every line escaped on its way out
	 * (util_safe_write: the labels are escaped already; this catches
	 * what a writer forgets). */
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	if (m)
		prom_format(m, s, st);
	if (!m || fclose(m) != 0) {
		free(buf);
		util_fmt(err, len, "--prometheus-textfile %s: out of memory", path);
		return -ENOMEM;
	}
	/* A temporary of a name nobody could have planted (a symlink at a
	 * fixed PATH.tmp would have had root truncate its target), readable
	 * by node_exporter, in the directory opened once (safefile.h). */
	struct safefile_dir d;
	char why[300], tmp[NAME_MAX + 1];
	int rc = safefile_dir_open(&d, path, why, sizeof why);
	if (rc < 0) {
		free(buf);
		util_fmt(err, len, "--prometheus-textfile %s: %s", path, why);
		return rc;
	}
	FILE *f = safefile_temp_stream(&d, 0644, tmp, sizeof tmp, &rc);
	if (!f) {
		free(buf);
		safefile_dir_close(&d);
		util_fmt(err, len, "--prometheus-textfile: cannot write a temporary beside %s: %s", path, strerror(-rc));
		return rc;
	}
	why[0] = '\0';
	rc = util_safe_write(f, buf, n);
	free(buf);
	if (rc < 0) { /* a half-written file never replaces the last whole one */
		fclose(f);
		safefile_discard(&d, tmp);
	} else {
		/* Another user's file in a shared directory stays theirs, as
		 * --record leaves it (safefile_replaceable). */
		rc = safefile_finish_replace(&d, f, tmp, why, sizeof why);
	}
	safefile_dir_close(&d);
	if (rc < 0 && why[0])
		util_fmt(err, len, "--prometheus-textfile: %s", why);
	else if (rc < 0)
		util_fmt(err, len, "--prometheus-textfile: cannot write %s: %s", path, strerror(-rc));
	return rc;
}
