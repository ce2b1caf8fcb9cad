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

/* The interval's probe histogram as [bucket, count] pairs: a few dozen at
 * most, and any window's percentiles can be computed from them (its min,
 * max and sum are recfmt_disk's). */
static void hist_sparse(struct jsonv_w *w, const struct hist *h)
{
	jsonv_w_open(w, "hist", '[');
	for (unsigned b = 0; b < HIST_BUCKETS && h->n; b++)
		if (h->count[b]) {
			jsonv_w_open(w, NULL, '[');
			jsonv_w_uint(w, NULL, b);
			jsonv_w_uint(w, NULL, h->count[b]);
			jsonv_w_close(w);
		}
	jsonv_w_close(w);
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

static void chart_points(struct recorder *r, struct jsonv_w *w, const struct disk_sample *d)
{
	int64_t *last = last_sec_of(r, d->info.name), newest = INT64_MIN;
	jsonv_w_open(w, "chart", '[');
	for (size_t i = 0; i < CHART_SECONDS; i++) {
		const struct latwin_point *p = &d->chart[i];
		if (p->n == 0 || (last && p->sec < *last))
			continue;
		recfmt_write_tuple(jsonv_w_next(w, NULL), recfmt_chart_point, p);
		if (p->sec > newest)
			newest = p->sec;
	}
	jsonv_w_close(w);
	if (last && newest > *last)
		*last = newest;
}

/* A disk: the table's fields, then what a table cannot say: the
 * scheduler list, the histogram's buckets, the chart. */
static void disk(struct recorder *r, struct jsonv_w *w, const struct disk_sample *d)
{
	jsonv_w_open(w, NULL, '{');
	recfmt_write(w->f, recfmt_disk, d, jsonv_w_first(w));
	jsonv_w_open(w, "schedulers", '[');
	for (int k = 0; k < d->info.sched.n; k++)
		jsonv_w_string(w, NULL, d->info.sched.names[k]);
	jsonv_w_close(w);
	hist_sparse(w, &d->probe_hist);
	chart_points(r, w, d);
	jsonv_w_close(w);
}

/* An object of table t in the open array. */
static void object(struct jsonv_w *w, const struct rf_field *t, const void *base)
{
	jsonv_w_open(w, NULL, '{');
	recfmt_write(w->f, t, base, jsonv_w_first(w));
	jsonv_w_close(w);
}

/* Which rows to keep: the notable ones (procs_row_notable, with their
 * command lines) and the busiest, as --json lists them. */
static void procs(struct jsonv_w *w, const struct sample *s, size_t max_procs)
{
	char *keep = calloc(s->nprocs ? s->nprocs : 1, 1);
	size_t *top = malloc((max_procs ? max_procs : 1) * sizeof *top);
	jsonv_w_open(w, "procs", '[');
	if (!keep || !top) {
		free(keep);
		free(top);
		jsonv_w_close(w);
		return;
	}
	size_t ntop = json_busiest(s, max_procs, top);
	for (size_t i = 0; i < ntop; i++)
		keep[top[i]] = 1;
	/* In the live order: a replay then ranks ties the same way. */
	for (size_t i = 0; i < s->nprocs; i++)
		if (keep[i] || procs_row_notable(&s->procs[i]))
			object(w, recfmt_proc, &s->procs[i]);
	jsonv_w_close(w);
	free(keep);
	free(top);
	jsonv_w_open(w, "pstat", '{');
	recfmt_write(w->f, recfmt_pstat, &s->pstat, jsonv_w_first(w));
	jsonv_w_close(w);
	jsonv_w_int(w, "top_writer", sample_top_writer(s) ? sample_top_writer(s)->tid : -1);
}

/* The cgroups' list and their own fields, in a "cgroups" object. */
static void cgroups(struct jsonv_w *w, const struct sample *s)
{
	jsonv_w_open(w, "cgroups", '{');
	recfmt_write(w->f, recfmt_cgroups, s, jsonv_w_first(w));
	jsonv_w_open(w, "list", '[');
	for (size_t i = 0; i < s->ncgroups; i++)
		object(w, recfmt_cgroup, &s->cgroups[i]);
	jsonv_w_close(w);
	jsonv_w_close(w);
}

static void blk(struct jsonv_w *w, const struct sample *s)
{
	jsonv_w_open(w, "blk", '{');
	recfmt_write(w->f, recfmt_blk, s, jsonv_w_first(w));
	jsonv_w_string(w, "stage", s->blk_stage ? s->blk_stage : "");
	jsonv_w_open(w, "stats", '[');
	for (size_t i = 0; i < s->blk.nstats; i++)
		recfmt_write_tuple(jsonv_w_next(w, NULL), recfmt_blk_stat, &s->blk.stats[i]);
	jsonv_w_close(w);
	jsonv_w_open(w, "reqs", '[');
	for (size_t i = 0; i < s->blk.nreqs; i++)
		recfmt_write_tuple(jsonv_w_next(w, NULL), recfmt_blk_req, &s->blk.reqs[i]);
	jsonv_w_close(w);
	jsonv_w_close(w);
}

static void header(struct recorder *r, const struct sample *s)
{
	struct recfmt_header h = {.version = RECORD_VERSION, .start = s->ts};
	util_strlcpy(h.format, RECORD_FORMAT, sizeof h.format);
	util_strlcpy(h.program, "iosched-top " IOSCHED_VERSION, sizeof h.program);
	util_strlcpy(h.host, s->host, sizeof h.host);
	util_strlcpy(h.kernel, s->kernel, sizeof h.kernel);
	struct jsonv_w w;
	jsonv_w_init(&w, r->f);
	object(&w, recfmt_header, &h);
	fputc('\n', r->f); /* one JSON text a line */
	r->header_done = 1;
}

int record_write(struct recorder *r, const struct sample *s, size_t max_procs)
{
	FILE *f = r->f;
	if (!r->header_done)
		header(r, s);
	struct jsonv_w w;
	jsonv_w_init(&w, f);
	jsonv_w_open(&w, NULL, '{');
	recfmt_write(f, recfmt_tick, s, jsonv_w_first(&w));
	jsonv_w_open(&w, "disks", '[');
	for (size_t i = 0; i < s->ndisks; i++)
		disk(r, &w, &s->disks[i]);
	jsonv_w_close(&w);
	jsonv_w_open(&w, "events", '[');
	for (size_t i = 0; i < s->nevents; i++)
		object(&w, recfmt_event, &s->events[i]);
	jsonv_w_close(&w);
	if (s->have_procs)
		procs(&w, s, max_procs);
	cgroups(&w, s);
	blk(&w, s);
	jsonv_w_close(&w);
	fputc('\n', f);
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
