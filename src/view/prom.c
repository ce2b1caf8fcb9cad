/* prom: see include/prom.h */
#include "prom.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static unsigned long long *switches_of(struct prom_state *st, const char *disk)
{
	for (size_t i = 0; i < st->ndisks; i++)
		if (strcmp(st->disks[i].disk, disk) == 0)
			return &st->disks[i].switches;
	if (st->ndisks == PROM_DISKS_MAX)
		return NULL;
	util_strlcpy(st->disks[st->ndisks].disk, disk, sizeof st->disks[0].disk);
	st->disks[st->ndisks].switches = 0;
	return &st->disks[st->ndisks++].switches;
}

void prom_count(struct prom_state *st, const struct sample *s)
{
	for (size_t i = 0; i < s->ndisks; i++)
		switches_of(st, s->disks[i].info.name); /* every disk has a counter, 0 at first */
	for (size_t i = 0; i < s->nevents; i++) {
		const struct event *e = &s->events[i];
		unsigned long long *c = e->ok && strcmp(e->type, "scheduler") == 0 ? switches_of(st, e->disk) : NULL;
		if (c)
			(*c)++;
	}
}

/* Label values escape \, " and newline (the format's rule). */
static void label(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*v, f);
	}
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
		label(f, d->info.name);
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
			label(f, s->disks[i].info.name);
			fputs("\",scheduler=\"", f);
			label(f, l->names[k]);
			fprintf(f, "\"} %d\n", k == l->active);
		}
	}
}

/* The probe's last 10 s as a summary: quantiles where enough samples
 * stand behind them. */
static void probe(FILE *f, const struct sample *s)
{
	head(f, "iosched_probe_latency_seconds", "summary",
	     "Read latency of the tool's QD1 probe (4 KiB O_DIRECT random reads) over the last 10 s.");
	static const double qs[] = {0.5, 0.9, 0.99};
	for (size_t i = 0; i < s->ndisks; i++) {
		const struct disk_sample *d = &s->disks[i];
		const struct probe_summary *p = &d->probe_10s;
		if (!d->probed || p->n == 0)
			continue;
		const uint64_t v[] = {p->p50_ns, p->p90_ns, p->p99_ns};
		for (size_t k = 0; k < 3; k++) {
			if (!hist_enough(p->n, qs[k]))
				continue;
			fputs("iosched_probe_latency_seconds{disk=\"", f);
			label(f, d->info.name);
			fprintf(f, "\",quantile=\"%g\"} %.9g\n", qs[k], (double)v[k] / 1e9);
		}
		fputs("iosched_probe_latency_seconds_sum{disk=\"", f);
		label(f, d->info.name);
		fprintf(f, "\"} %.9g\n", p->mean_ns * (double)p->n / 1e9);
		fputs("iosched_probe_latency_seconds_count{disk=\"", f);
		label(f, d->info.name);
		fprintf(f, "\"} %llu\n", (unsigned long long)p->n);
	}
}

void prom_format(FILE *f, const struct sample *s, const struct prom_state *st)
{
	schedulers(f, s);
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
	probe(f, s);
	head(f, "iosched_scheduler_switches_total", "counter",
	     "Scheduler switches that took effect since the tool started (by it or seen in its event log).");
	for (size_t i = 0; i < st->ndisks; i++) {
		fputs("iosched_scheduler_switches_total{disk=\"", f);
		label(f, st->disks[i].disk);
		fprintf(f, "\"} %llu\n", st->disks[i].switches);
	}
	head(f, "iosched_last_update_seconds", "gauge", "Unix time of the reading these figures come from.");
	fprintf(f, "iosched_last_update_seconds %.3f\n", s->ts);
}

int prom_write(const char *path, const struct sample *s, const struct prom_state *st, char *err, size_t len)
{
	char tmp[4096];
	util_fmt(tmp, sizeof tmp, "%s.tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		util_fmt(err, len, "--prometheus-textfile: cannot write %s: %s", tmp, strerror(e));
		return -e;
	}
	prom_format(f, s, st);
	int bad = ferror(f);
	if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
		int e = errno ? errno : EIO;
		unlink(tmp);
		util_fmt(err, len, "--prometheus-textfile: cannot write %s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}
