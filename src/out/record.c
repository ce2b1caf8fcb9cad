/* record: see include/out/record.h
 *
 * Numbers are written with 17 significant digits, so a replay prints
 * exactly what the live run printed. Chart points are written once, when
 * their second is new (the newest second again, as it may still grow). */
#include "out/record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "model/recfmt.h"
#include "base/safefile.h"
#include "base/util.h"

#define RECORD_DISKS_MAX 64

struct recorder {
	FILE *f;
	int header_done;
	struct {
		char name[DISK_NAME_MAX];
		int64_t last_sec;      /* the newest chart second written */
	} disks[RECORD_DISKS_MAX];
	size_t ndisks;
};

int record_open(struct recorder **out, const char *path, char *err, size_t len)
{
	*out = NULL;
	/* 0600: a recording holds every process's command line */
	char why[300];
	struct safefile_dir d;
	int fd = safefile_dir_open(&d, path, why, sizeof why);
	if (fd == 0) {
		fd = safefile_create(&d, 0600, why, sizeof why);
		safefile_dir_close(&d);
	}
	if (fd < 0) {
		util_fmt(err, len, "--record %s: %s", path, why);
		return fd;
	}
	struct recorder *r = calloc(1, sizeof *r);
	FILE *f = fdopen(fd, "w");
	if (!r || !f) {
		free(r);
		if (f)
			fclose(f);
		else
			close(fd);
		util_fmt(err, len, "--record %s: out of memory", path);
		return -ENOMEM;
	}
	r->f = f;
	*out = r;
	return 0;
}

static void num(FILE *f, const char *key, double v)
{
	fprintf(f, ",\"%s\":%.17g", key, v);
}

static void u64(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, ",\"%s\":%llu", key, (unsigned long long)v);
}

static void i64(FILE *f, const char *key, long long v)
{
	fprintf(f, ",\"%s\":%lld", key, v);
}

static void str(FILE *f, const char *key, const char *v)
{
	fprintf(f, ",\"%s\":", key);
	jsonv_write_string(f, v);
}

/* The interval's probe histogram as [bucket, count] pairs: a few dozen at
 * most, and any window's percentiles can be computed from them. */
static void hist_sparse(FILE *f, const struct hist *h)
{
	fputs(",\"hist\":[", f);
	int first = 1;
	for (unsigned b = 0; b < HIST_BUCKETS && h->n; b++)
		if (h->count[b]) {
			fprintf(f, "%s[%u,%u]", first ? "" : ",", b, h->count[b]);
			first = 0;
		}
	fputc(']', f);
	u64(f, "hist_min", h->min_ns);
	u64(f, "hist_max", h->max_ns);
	u64(f, "hist_sum", h->sum_ns);
}

static int64_t *last_sec_of(struct recorder *r, const char *name)
{
	for (size_t i = 0; i < r->ndisks; i++)
		if (strcmp(r->disks[i].name, name) == 0)
			return &r->disks[i].last_sec;
	if (r->ndisks == RECORD_DISKS_MAX)
		return NULL;
	util_strlcpy(r->disks[r->ndisks].name, name, sizeof r->disks[0].name);
	r->disks[r->ndisks].last_sec = INT64_MIN;
	return &r->disks[r->ndisks++].last_sec;
}

static void chart_points(struct recorder *r, FILE *f, const struct disk_sample *d)
{
	int64_t *last = last_sec_of(r, d->info.name), newest = INT64_MIN;
	fputs(",\"chart\":[", f);
	int first = 1;
	for (size_t i = 0; i < CHART_SECONDS; i++) {
		const struct latwin_point *p = &d->chart[i];
		if (p->n == 0 || (last && p->sec < *last))
			continue;
		fprintf(f, "%s[%lld,%u,%llu,%llu,%llu]", first ? "" : ",", (long long)p->sec, p->n,
			(unsigned long long)p->p50_ns, (unsigned long long)p->p99_ns, (unsigned long long)p->max_ns);
		first = 0;
		if (p->sec > newest)
			newest = p->sec;
	}
	fputc(']', f);
	if (last && newest > *last)
		*last = newest;
}

/* A disk: the table's fields, then what a table cannot say: the
 * scheduler list (and which one is active), the histogram, the chart. */
static void disk(struct recorder *r, FILE *f, const struct disk_sample *d)
{
	int first = 1;
	fputc('{', f);
	recfmt_write(f, recfmt_disk, d, &first);
	i64(f, "active", d->info.sched.active);
	fputs(",\"schedulers\":[", f);
	for (int k = 0; k < d->info.sched.n; k++) {
		if (k)
			fputc(',', f);
		jsonv_write_string(f, d->info.sched.names[k]);
	}
	fputc(']', f);
	hist_sparse(f, &d->probe_hist);
	chart_points(r, f, d);
	fputc('}', f);
}

static void event(FILE *f, const struct event *e)
{
	int first = 1;
	fputc('{', f);
	recfmt_write(f, recfmt_event, e, &first);
	fputc('}', f);
}

/* Which rows to keep: the notable ones (procs_row_notable, with their
 * command lines) and the busiest, as --json lists them. */
static void procs(FILE *f, const struct sample *s, size_t max_procs)
{
	char *keep = calloc(s->nprocs ? s->nprocs : 1, 1);
	size_t *top = malloc((max_procs ? max_procs : 1) * sizeof *top);
	if (!keep || !top) {
		free(keep);
		free(top);
		fputs(",\"procs\":[]", f);
		return;
	}
	size_t ntop = json_busiest(s, max_procs, top);
	for (size_t i = 0; i < ntop; i++)
		keep[top[i]] = 1;
	/* In the live order: a replay then ranks ties the same way. */
	fputs(",\"procs\":[", f);
	int first = 1;
	for (size_t i = 0; i < s->nprocs; i++) {
		if (!keep[i] && !procs_row_notable(&s->procs[i]))
			continue;
		if (!first)
			fputc(',', f);
		first = 0;
		int one = 1;
		fputc('{', f);
		recfmt_write(f, recfmt_proc, &s->procs[i], &one);
		fputc('}', f);
	}
	fputc(']', f);
	free(keep);
	free(top);
	int one = 1;
	fputs(",\"pstat\":{", f);
	recfmt_write(f, recfmt_pstat, &s->pstat, &one);
	fputc('}', f);
	i64(f, "top_writer", sample_top_writer(s) ? sample_top_writer(s)->tid : -1);
}

static void blk(FILE *f, const struct sample *s)
{
	int first = 1;
	fputs(",\"blk\":{", f);
	recfmt_write(f, recfmt_blk, s, &first);
	str(f, "stage", s->blk_stage ? s->blk_stage : "");
	fputs(",\"stats\":[", f);
	for (size_t i = 0; i < s->blk.nstats; i++) {
		if (i)
			fputc(',', f);
		recfmt_write_tuple(f, recfmt_blk_stat, &s->blk.stats[i]);
	}
	fputs("],\"reqs\":[", f);
	for (size_t i = 0; i < s->blk.nreqs; i++) {
		if (i)
			fputc(',', f);
		recfmt_write_tuple(f, recfmt_blk_req, &s->blk.reqs[i]);
	}
	fputs("]}", f);
}

static void header(struct recorder *r, const struct sample *s)
{
	fprintf(r->f, "{\"format\":\"%s\",\"version\":%d", RECORD_FORMAT, RECORD_VERSION);
	str(r->f, "program", "iosched-top " IOSCHED_VERSION);
	str(r->f, "host", s->host);
	str(r->f, "kernel", s->kernel);
	num(r->f, "start", s->ts);
	fputs("}\n", r->f);
	r->header_done = 1;
}

int record_write(struct recorder *r, const struct sample *s, size_t max_procs)
{
	FILE *f = r->f;
	if (!r->header_done)
		header(r, s);
	int first = 1;
	fputc('{', f);
	recfmt_write(f, recfmt_tick, s, &first);
	fputs(",\"disks\":[", f);
	for (size_t i = 0; i < s->ndisks; i++) {
		if (i)
			fputc(',', f);
		disk(r, f, &s->disks[i]);
	}
	fputs("],\"events\":[", f);
	for (size_t i = 0; i < s->nevents; i++) {
		if (i)
			fputc(',', f);
		event(f, &s->events[i]);
	}
	fputc(']', f);
	if (s->have_procs)
		procs(f, s, max_procs);
	blk(f, s);
	fputs("}\n", f);
	/* One tick at most is lost to a crash or a power cut. */
	if (fflush(f) != 0 || fdatasync(fileno(f)) != 0)
		return -errno;
	return 0;
}

void record_close(struct recorder *r)
{
	if (!r)
		return;
	fclose(r->f);
	free(r);
}
