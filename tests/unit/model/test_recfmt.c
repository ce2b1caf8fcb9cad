/* Unit tests: the recording format, without root or devices. Samples made
 * here (every field set, every enum value, NaN, empty strings, no disks,
 * 10,000 processes) are written with record_write and read back with
 * replay_next, and compared field by field by a list written here, apart
 * from recfmt's tables (a field the tables forget fails here). A version 1
 * recording (tests/fixtures/recording-v1.rec, made by the version that
 * wrote numbers for enums, with an event of a type this version does not
 * know added by hand) still reads, and reads the same once written again
 * as the current version, which names its enums. A version 2 recording
 * (tests/fixtures/recording-v2.rec, made by 0e7b439 with
 * `-b -d 0.5 -n 3 --disk vda --probe vda --procs 8 --record`; in its first
 * tick "exits_lost" set to 3 and "prep" to 7 by hand, so that no renamed
 * field reads its default) reads its short keys as version 3's names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/record.h"
#include "model/replay.h"
#include "model/sample.h"

#define FIXTURE SRCDIR "/tests/fixtures/recording-v1.rec"
#define FIXTURE_V2 SRCDIR "/tests/fixtures/recording-v2.rec"

static int same_num(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

#define EQ(a, b) assert_true((a) == (b))
#define NUM(a, b) assert_true(same_num((a), (b)))
#define STR(a, b) assert_string_equal((a), (b))

static void same_summary(const struct probe_summary *a, const struct probe_summary *b)
{
	EQ(a->n, b->n); EQ(a->p50_ns, b->p50_ns); EQ(a->p90_ns, b->p90_ns); EQ(a->p99_ns, b->p99_ns);
	EQ(a->p999_ns, b->p999_ns); EQ(a->max_ns, b->max_ns); NUM(a->mean_ns, b->mean_ns); EQ(a->flagged, b->flagged);
}

static void same_disk(const struct disk_sample *a, const struct disk_sample *b)
{
	const struct disk_info *x = &a->info, *y = &b->info;
	STR(x->name, y->name); EQ(x->kind, y->kind); STR(x->model, y->model); EQ(x->rotational, y->rotational);
	EQ(x->size_bytes, y->size_bytes); EQ(x->logical_block, y->logical_block); EQ(x->sched.n, y->sched.n);
	EQ(x->sched.active, y->sched.active);
	for (int k = 0; k < x->sched.n; k++)
		STR(x->sched.names[k], y->sched.names[k]);
	EQ(x->nr_requests, y->nr_requests); EQ(x->read_ahead_kb, y->read_ahead_kb); EQ(x->wbt_lat_usec, y->wbt_lat_usec);
	EQ(x->zoned, y->zoned);
	EQ(a->have_rates, b->have_rates);
	NUM(a->io.r_s, b->io.r_s); NUM(a->io.w_s, b->io.w_s); NUM(a->io.rkB_s, b->io.rkB_s); NUM(a->io.wkB_s, b->io.wkB_s);
	NUM(a->io.r_await_ms, b->io.r_await_ms); NUM(a->io.w_await_ms, b->io.w_await_ms); NUM(a->io.aqu_sz, b->io.aqu_sz);
	NUM(a->io.util_pct, b->io.util_pct);
	EQ(a->in_flight, b->in_flight); EQ(a->probed, b->probed);
	EQ(a->probe_st.mode, b->probe_st.mode); EQ(a->probe_st.state, b->probe_st.state);
	STR(a->probe_st.why, b->probe_st.why); STR(a->probe_st.path, b->probe_st.path);
	NUM(a->probe_st.rate_hz, b->probe_st.rate_hz); NUM(a->probe_st.in_flight_ms, b->probe_st.in_flight_ms);
	EQ(a->probe_st.missed, b->probe_st.missed); EQ(a->probe_st.prep_pct, b->probe_st.prep_pct);
	same_summary(&a->probe, &b->probe); same_summary(&a->probe_10s, &b->probe_10s);
	same_summary(&a->probe_change, &b->probe_change);
	NUM(a->probe_rps_10s, b->probe_rps_10s); NUM(a->probe_stall10_10s, b->probe_stall10_10s);
	NUM(a->probe_stall100_10s, b->probe_stall100_10s);
	const struct switch_compare *c = &a->cmp, *d = &b->cmp;
	EQ(c->state, d->state);
	if (c->state) {
		STR(c->from, d->from); STR(c->to, d->to); NUM(c->ts, d->ts); NUM(c->rate_hz, d->rate_hz);
		same_summary(&c->before, &d->before); same_summary(&c->after, &d->after);
		NUM(c->before_s, d->before_s); NUM(c->after_s, d->after_s);
		EQ(c->fresh_before_n, d->fresh_before_n); EQ(c->fresh_after_n, d->fresh_after_n);
		NUM(c->fresh_before_ms, d->fresh_before_ms); NUM(c->fresh_after_ms, d->fresh_after_ms);
	}
	for (unsigned k = 0; k < HIST_BUCKETS; k++)
		EQ(a->probe_hist.count[k], b->probe_hist.count[k]);
	EQ(a->probe_hist.n, b->probe_hist.n); EQ(a->probe_hist.min_ns, b->probe_hist.min_ns);
	EQ(a->probe_hist.max_ns, b->probe_hist.max_ns); EQ(a->probe_hist.sum_ns, b->probe_hist.sum_ns);
	for (int k = 0; k < CHART_SECONDS; k++) {
		EQ(a->chart[k].sec, b->chart[k].sec); EQ(a->chart[k].n, b->chart[k].n);
		if (a->chart[k].n) {
			EQ(a->chart[k].p50_ns, b->chart[k].p50_ns); EQ(a->chart[k].p99_ns, b->chart[k].p99_ns);
			EQ(a->chart[k].max_ns, b->chart[k].max_ns);
		}
	}
	EQ(a->pending.jobs, b->pending.jobs); EQ(a->pending.running, b->pending.running);
	STR(a->pending.key, b->pending.key); STR(a->pending.to, b->pending.to); NUM(a->pending.secs, b->pending.secs);
	NUM(a->last_switch_ms, b->last_switch_ms); STR(a->warning, b->warning);
}

static void same_event(const struct event *a, const struct event *b)
{
	NUM(a->ts, b->ts); NUM(a->mono, b->mono); EQ(a->type, b->type); STR(a->disk, b->disk); EQ(a->pid, b->pid);
	STR(a->key, b->key); STR(a->from, b->from); STR(a->to, b->to); NUM(a->ms, b->ms); EQ(a->ok, b->ok);
	STR(a->error, b->error);
}

static void same_proc(const struct proc_row *a, const struct proc_row *b)
{
	EQ(a->pid, b->pid); EQ(a->tid, b->tid); EQ(a->ppid, b->ppid); EQ(a->uid, b->uid); STR(a->user, b->user);
	STR(a->comm, b->comm); EQ(a->cmdline == NULL, b->cmdline == NULL);
	if (a->cmdline)
		STR(a->cmdline, b->cmdline);
	EQ(a->state, b->state); EQ(a->nice, b->nice);
	EQ(a->start, b->start); EQ(a->io_readable, b->io_readable); EQ(a->kind, b->kind); EQ(a->ioprio, b->ioprio);
	NUM(a->read_Bps, b->read_Bps); NUM(a->write_Bps, b->write_Bps); NUM(a->read_calls, b->read_calls);
	NUM(a->write_calls, b->write_calls);
	EQ(a->total.rbytes, b->total.rbytes); EQ(a->total.wbytes, b->total.wbytes); EQ(a->total.syscr, b->total.syscr);
	EQ(a->total.syscw, b->total.syscw); EQ(a->total.blkio_count, b->total.blkio_count);
	EQ(a->total.blkio_ns, b->total.blkio_ns);
	EQ(a->wait, b->wait); NUM(a->io_wait_pct, b->io_wait_pct); NUM(a->avg_wait_us, b->avg_wait_us);
	EQ(a->partial, b->partial); EQ(a->moved, b->moved); EQ(a->exited, b->exited); EQ(a->count, b->count);
	EQ(a->ended_ago, b->ended_ago);
	EQ(a->cgroup == NULL, b->cgroup == NULL);
	if (a->cgroup)
		STR(a->cgroup, b->cgroup);
	EQ(a->cgroup_src, b->cgroup_src);
	for (int k = 0; k < 2; k++) {
		EQ(a->blk_n[k], b->blk_n[k]); EQ(a->blk_p50_ns[k], b->blk_p50_ns[k]);
		EQ(a->blk_p99_ns[k], b->blk_p99_ns[k]); EQ(a->blk_bytes[k], b->blk_bytes[k]);
	}
}

static void same_cgroups(const struct sample *a, const struct sample *b)
{
	EQ(a->ncgroups, b->ncgroups);
	for (size_t i = 0; i < a->ncgroups; i++) {
		const struct cgroup_sample *x = &a->cgroups[i], *y = &b->cgroups[i];
		STR(x->path, y->path); STR(x->unit, y->unit); STR(x->parent, y->parent); EQ(x->procs, y->procs);
		NUM(x->read_Bps, y->read_Bps); NUM(x->write_Bps, y->write_Bps); NUM(x->to_disk_Bps, y->to_disk_Bps);
		EQ(x->have_psi, y->have_psi); NUM(x->some_avg10, y->some_avg10); NUM(x->full_avg10, y->full_avg10);
		NUM(x->some_pct, y->some_pct); NUM(x->full_pct, y->full_pct);
		EQ(x->some_total_us, y->some_total_us); EQ(x->full_total_us, y->full_total_us);
		EQ(x->have_stat, y->have_stat); NUM(x->stat_read_Bps, y->stat_read_Bps);
		NUM(x->stat_write_Bps, y->stat_write_Bps); EQ(x->stat_rbytes, y->stat_rbytes);
		EQ(x->stat_wbytes, y->stat_wbytes); EQ(x->bfq_weight, y->bfq_weight); EQ(x->io_weight, y->io_weight);
		STR(x->source, y->source);
	}
	EQ(a->cgroups_rest.n, b->cgroups_rest.n); NUM(a->cgroups_rest.read_Bps, b->cgroups_rest.read_Bps);
	NUM(a->cgroups_rest.write_Bps, b->cgroups_rest.write_Bps);
	NUM(a->cgroups_rest.to_disk_Bps, b->cgroups_rest.to_disk_Bps);
	STR(a->cgroups_why, b->cgroups_why);
}

static void same_sample(const struct sample *a, const struct sample *b)
{
	same_cgroups(a, b);
	NUM(a->ts, b->ts); NUM(a->mono, b->mono); NUM(a->interval_s, b->interval_s); STR(a->host, b->host);
	STR(a->kernel, b->kernel); EQ(a->psi_err, b->psi_err);
	EQ(a->psi.have_some, b->psi.have_some); EQ(a->psi.have_full, b->psi.have_full);
	NUM(a->psi.some.avg10, b->psi.some.avg10); NUM(a->psi.some.avg60, b->psi.some.avg60);
	NUM(a->psi.some.avg300, b->psi.some.avg300); EQ(a->psi.some.total_us, b->psi.some.total_us);
	NUM(a->psi.full.avg10, b->psi.full.avg10); NUM(a->psi.full.avg60, b->psi.full.avg60);
	NUM(a->psi.full.avg300, b->psi.full.avg300); EQ(a->psi.full.total_us, b->psi.full.total_us);
	EQ(a->have_load, b->have_load);
	for (int k = 0; k < 3; k++)
		NUM(a->load[k], b->load[k]);
	NUM(a->probe_rate_hz, b->probe_rate_hz);
	EQ(a->ndisks, b->ndisks);
	for (size_t i = 0; i < a->ndisks; i++)
		same_disk(&a->disks[i], &b->disks[i]);
	EQ(a->nevents, b->nevents);
	for (size_t i = 0; i < a->nevents; i++)
		same_event(&a->events[i], &b->events[i]);
	EQ(a->have_procs, b->have_procs);
	EQ(a->nprocs, b->nprocs);
	for (size_t i = 0; i < a->nprocs; i++)
		same_proc(&a->procs[i], &b->procs[i]);
	if (a->have_procs) {
		EQ(a->pstat.threads, b->pstat.threads); EQ(a->pstat.taskstats, b->pstat.taskstats);
		EQ(a->pstat.delayacct, b->pstat.delayacct); STR(a->pstat.missing, b->pstat.missing);
		EQ(a->pstat.unreadable, b->pstat.unreadable); EQ(a->pstat.exits, b->pstat.exits);
		EQ(a->pstat.as_root, b->pstat.as_root); EQ(a->pstat.exits_lost, b->pstat.exits_lost);
		EQ(a->top_writer, b->top_writer);
	}
	EQ(a->wb.ok, b->wb.ok); EQ(a->wb.dirty_kB, b->wb.dirty_kB); EQ(a->wb.writeback_kB, b->wb.writeback_kB);
	EQ(a->wb.dirty_ratio, b->wb.dirty_ratio); EQ(a->wb.dirty_background_ratio, b->wb.dirty_background_ratio);
	EQ(a->wb.dirty_bytes, b->wb.dirty_bytes); EQ(a->wb.dirty_background_bytes, b->wb.dirty_background_bytes);
	NUM(a->write_MBps, b->write_MBps); NUM(a->dirty_MBps, b->dirty_MBps); EQ(a->top_disk, b->top_disk);
	EQ(a->blk_on, b->blk_on); STR(a->blk_why, b->blk_why); STR(a->blk_stage ? a->blk_stage : "", b->blk_stage);
	EQ(a->blk.nstats, b->blk.nstats);
	for (size_t i = 0; i < a->blk.nstats; i++) {
		const struct blk_stat *x = &a->blk.stats[i], *y = &b->blk.stats[i];
		EQ(x->tgid, y->tgid); STR(x->disk, y->disk); EQ(x->op, y->op); EQ(x->n, y->n); EQ(x->bytes, y->bytes);
		EQ(x->p50_ns, y->p50_ns); EQ(x->p99_ns, y->p99_ns); EQ(x->max_ns, y->max_ns);
	}
	EQ(a->blk.nreqs, b->blk.nreqs);
	for (size_t i = 0; i < a->blk.nreqs; i++) {
		const struct blk_req *x = &a->blk.reqs[i], *y = &b->blk.reqs[i];
		EQ(x->tgid, y->tgid); STR(x->disk, y->disk); EQ(x->issued, y->issued); EQ(x->age_ns, y->age_ns);
	}
}

/* Write n samples as a recording into a fresh temporary; its name into
 * path (the caller unlinks it). */
static void write_recording(const struct sample *in, size_t n, size_t max_procs, char path[32])
{
	strcpy(path, "/tmp/iosched-recfmt-test.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path); /* record_open creates it afresh */
	struct recorder *rec;
	char err[300];
	assert_int_equal(record_open(&rec, path, err, sizeof err), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(record_write(rec, &in[i], max_procs), 0);
	record_close(rec);
}

/* Write each sample as a recording, read it back into out[i]. */
static void round_trip(const struct sample *in, struct sample *out, size_t n, size_t max_procs)
{
	char path[32], err[300];
	write_recording(in, n, max_procs, path);
	struct replay *r;
	assert_int_equal(replay_open(&r, path, err, sizeof err), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(replay_next(r, &out[i], err, sizeof err), 1);
	assert_int_equal(replay_next(r, &out[0], err, sizeof err), 0);
	assert_string_equal(err, "");
	replay_close(r);
	unlink(path);
}

/* Every tick of the recording at path, up to max, into out (the caller
 * frees them); how many there were. */
static size_t read_all(const char *path, struct sample *out, size_t max)
{
	struct replay *r;
	char err[300];
	assert_int_equal(replay_open(&r, path, err, sizeof err), 0);
	memset(out, 0, max * sizeof *out);
	size_t n = 0;
	while (n < max && replay_next(r, &out[n], err, sizeof err) == 1)
		n++;
	assert_string_equal(err, "");
	replay_close(r);
	return n;
}

/* The n samples written as a recording of this version and read back:
 * the same, field by field. Frees them. */
static void rewrite_same(struct sample *in, size_t n, size_t max_procs)
{
	struct sample out[8];
	assert_true(n <= 8);
	memset(out, 0, sizeof out);
	round_trip(in, out, n, max_procs);
	for (size_t i = 0; i < n; i++) {
		same_sample(&in[i], &out[i]);
		sample_free(&in[i]);
		sample_free(&out[i]);
	}
}

static void fill_summary(struct probe_summary *p, uint64_t k)
{
	*p = (struct probe_summary){k, k + 1, k + 2, k + 3, k + 4, k + 5, (double)k + 0.25, k + 6};
}

/* A disk with every field set (odd ones where it matters: NaN, an empty
 * model, a value near 2^53). */
static void fill_disk(struct disk_sample *d, int i, double mono)
{
	memset(d, 0, sizeof *d);
	snprintf(d->info.name, sizeof d->info.name, "disk%d", i);
	d->info.kind = (enum disk_kind)(i % (DISK_OTHER + 1));
	strcpy(d->info.model, i % 2 ? "" : "Model \"quoted\" \\ \x01 é");
	d->info.rotational = i % 3 - 1;
	d->info.size_bytes = 1ull << 40;
	d->info.logical_block = 4096;
	d->info.sched.n = 4;
	d->info.sched.active = i % 4;
	strcpy(d->info.sched.names[0], "none");
	strcpy(d->info.sched.names[1], "mq-deadline");
	strcpy(d->info.sched.names[2], "kyber");
	strcpy(d->info.sched.names[3], "bfq");
	d->info.nr_requests = 256;
	d->info.read_ahead_kb = -1;
	d->info.wbt_lat_usec = 75000;
	d->info.zoned = i % 2;
	d->have_rates = 1;
	d->io = (struct iostat_rates){1.5, 2.5, 3.5, 4.5, NAN, 6.5, 7.5, 99.9};
	d->in_flight = 7;
	d->probed = 1;
	d->probe_st.mode = (enum probe_mode)(i % (PROBE_MODE_FILE + 1));
	d->probe_st.state = (enum probe_state)(i % (PROBE_ENDED + 1));
	strcpy(d->probe_st.why, "reads /dev/x");
	strcpy(d->probe_st.path, "/dev/x");
	d->probe_st.rate_hz = 20;
	d->probe_st.in_flight_ms = 1.25;
	d->probe_st.missed = 3;
	d->probe_st.prep_pct = 42;
	fill_summary(&d->probe, 10);
	fill_summary(&d->probe_10s, 20);
	fill_summary(&d->probe_change, (1ull << 53) - 7); /* numbers are read as doubles: exact to 2^53 */
	d->probe_rps_10s = 19.75;
	d->probe_stall10_10s = 0.125;
	d->probe_stall100_10s = NAN;
	if (i % 2 == 0) {
		d->cmp.state = 2;
		strcpy(d->cmp.from, "none");
		strcpy(d->cmp.to, "bfq");
		d->cmp.ts = 1.7e9;
		d->cmp.rate_hz = 0;
		fill_summary(&d->cmp.before, 30);
		fill_summary(&d->cmp.after, 40);
		d->cmp.before_s = 10;
		d->cmp.after_s = 9.5;
		d->cmp.fresh_before_n = 3;
		d->cmp.fresh_after_n = 0;
		d->cmp.fresh_before_ms = 45.5;
	}
	d->probe_hist.count[3] = 5;
	d->probe_hist.count[17] = 2;
	d->probe_hist.n = 7;
	d->probe_hist.min_ns = 1000;
	d->probe_hist.max_ns = 900000;
	d->probe_hist.sum_ns = 1234567;
	int64_t to = (int64_t)floor(mono);
	for (int k = 0; k < CHART_SECONDS; k++) {
		d->chart[k].sec = to - CHART_SECONDS + 1 + k;
		d->chart[k].n = k % 3 ? (uint32_t)k : 0;
		if (d->chart[k].n)
			d->chart[k].p50_ns = 100 + (uint64_t)k, d->chart[k].p99_ns = 200 + (uint64_t)k,
			d->chart[k].max_ns = 300 + (uint64_t)k;
	}
	d->pending = (struct disk_pending){.jobs = 2, .running = 1, .secs = 0.5};
	strcpy(d->pending.key, "scheduler");
	strcpy(d->pending.to, "kyber");
	d->last_switch_ms = i ? 12.5 : -1;
	strcpy(d->warning, i ? "" : "zoned disk on bfq");
}

/* Command lines point into texts (the sample's, as a replayed one's do);
 * every seventh row has none (a kernel thread's: written as null). */
static void fill_proc(struct proc_row *p, int i, struct util_texts *texts)
{
	memset(p, 0, sizeof *p);
	p->pid = 1000 + i;
	p->tid = i % 5 ? p->pid : p->pid + 1;
	p->ppid = 1;
	p->uid = (unsigned)(i % 3 ? 1000 : 0);
	char user[16];
	snprintf(user, sizeof user, "user%d", i % 7);
	p->user = util_texts_keep(texts, user, strlen(user));
	snprintf(p->comm, sizeof p->comm, "cmd\t%d", i);
	char cmd[64];
	snprintf(cmd, sizeof cmd, "/bin/cmd --n=%d \"x\"", i);
	p->cmdline = i % 7 == 3 ? NULL : util_texts_keep(texts, cmd, strlen(cmd));
	char cg[64];
	snprintf(cg, sizeof cg, "test.slice/u%d.service", i % 4);
	p->cgroup = i % 5 == 2 ? NULL : util_texts_keep(texts, cg, strlen(cg));
	p->cgroup_src = p->cgroup ? (enum proc_cgsrc)(i % CGSRC_UNKNOWN) : CGSRC_UNKNOWN; /* each known source */
	p->state = "RSDZ"[i % 4];
	p->nice = i % 40 - 20;
	p->start = 123456789ull + (unsigned long long)i;
	p->io_readable = i % 2;
	p->kind = (enum proc_kind)(i % (PROC_SELF + 1));
	p->ioprio = i % 9 - 1;
	p->read_Bps = i * 1.5;
	p->write_Bps = i * 2.5;
	p->read_calls = i % 2 ? NAN : 3;
	p->write_calls = 4;
	p->total = (struct proc_counters){1, 2, 3, 4, 5, (uint64_t)i};
	p->wait = (enum proc_wait)(i % (WAIT_BEFORE + 1));
	p->io_wait_pct = 12.5;
	p->avg_wait_us = 800;
	p->partial = i % 2;
	p->moved = 1;
	p->exited = i % 10 == 0;
	p->count = p->exited ? 3 : 0;
	p->ended_ago = p->exited ? i % 3 : 0;
	for (int k = 0; k < 2; k++)
		p->blk_n[k] = (uint64_t)(i + k), p->blk_p50_ns[k] = 10, p->blk_p99_ns[k] = 20, p->blk_bytes[k] = 4096;
}

/* Two cgroups, every field set (a figure not known: -1 and NaN). */
static void fill_cgroups(struct sample *s)
{
	s->cgroups_cap = 2;
	s->cgroups = calloc(2, sizeof *s->cgroups);
	assert_non_null(s->cgroups);
	s->ncgroups = 2;
	s->cgroups[0] = (struct cgroup_sample){.procs = 3, .read_Bps = 1.5, .write_Bps = 2e6, .to_disk_Bps = 3e6,
					       .have_psi = 1, .some_avg10 = 1.25, .full_avg10 = 0.5, .some_pct = 12.5,
					       .full_pct = 10, .some_total_us = 1ull << 40, .full_total_us = 7,
					       .have_stat = 1, .stat_read_Bps = 0, .stat_write_Bps = 2.5e6,
					       .stat_rbytes = 1, .stat_wbytes = 2, .bfq_weight = 100, .io_weight = 200};
	strcpy(s->cgroups[0].path, "test.slice/w\"x.service");
	strcpy(s->cgroups[0].unit, "w\"x.service");
	strcpy(s->cgroups[0].parent, "test.slice");
	strcpy(s->cgroups[0].source, "bytes: /proc/PID/io");
	s->cgroups[1] = (struct cgroup_sample){.to_disk_Bps = -1, .some_pct = -1, .full_pct = NAN,
					       .stat_read_Bps = -1, .stat_write_Bps = -1, .bfq_weight = -1, .io_weight = -1};
	strcpy(s->cgroups[1].unit, "?");
	s->cgroups_rest = (struct cgroup_rest){4, 1, 2, 3};
	strcpy(s->cgroups_why, "io.stat: the io controller is bound to cgroup v1 on this machine");
}

static void fill_sample(struct sample *s, size_t ndisks, size_t nprocs)
{
	memset(s, 0, sizeof *s);
	s->ts = 1.7e9 + 0.5;
	s->mono = 5000.25;
	s->interval_s = 1.0;
	strcpy(s->host, "host\x1b]0;title\x07");
	strcpy(s->kernel, "6.1.0");
	s->psi_err = 0;
	s->psi = (struct psi){1, 1, {1.5, 2.5, 3.5, 1ull << 50}, {0.5, 0.25, NAN, 7}};
	s->have_load = 1;
	s->load[0] = 0.5, s->load[1] = 1.5, s->load[2] = 2.5;
	s->probe_rate_hz = 20;
	s->cap = ndisks ? ndisks : 1;
	s->disks = calloc(s->cap, sizeof *s->disks);
	assert_non_null(s->disks);
	s->ndisks = ndisks;
	for (size_t i = 0; i < ndisks; i++)
		fill_disk(&s->disks[i], (int)i, s->mono);
	/* One event of each type. */
	for (int t = 0; t < EV_NTYPES; t++) {
		struct event *e = &s->events[s->nevents++];
		*e = (struct event){.ts = s->ts, .mono = s->mono, .type = (enum event_type)t, .pid = t == EV_IOPRIO ? 42 : 0,
				    .ms = t * 1.5, .ok = t % 2};
		strcpy(e->disk, t == EV_IOPRIO ? "" : "disk0");
		strcpy(e->key, "iosched/slice_idle");
		strcpy(e->from, "8");
		strcpy(e->to, "0");
		strcpy(e->error, e->ok ? "" : "Invalid argument");
	}
	s->have_procs = 1;
	s->procs_cap = nprocs ? nprocs : 1;
	s->procs = calloc(s->procs_cap, sizeof *s->procs);
	assert_non_null(s->procs);
	s->nprocs = nprocs;
	for (size_t i = 0; i < nprocs; i++)
		fill_proc(&s->procs[i], (int)i, &s->texts);
	s->top_writer = nprocs > 3 ? 3 : -1;
	s->pstat = (struct procs_status){.threads = 0, .taskstats = 1, .delayacct = 1, .unreadable = 2, .as_root = 1,
					 .exits = 1, .exits_lost = 5};
	strcpy(s->pstat.missing, "");
	s->wb = (struct writeback_info){1, 4492, 8, 20, 10, 0, 0};
	s->write_MBps = 200.5;
	s->dirty_MBps = NAN;
	s->top_disk = ndisks ? 0 : -1;
	s->blk_on = 1;
	strcpy(s->blk_why, "");
	s->blk_stage = "block_io_start";
	s->blk.stats = calloc(2, sizeof *s->blk.stats);
	s->blk.reqs = calloc(1, sizeof *s->blk.reqs);
	s->blk.stats_cap = 2, s->blk.reqs_cap = 1;
	s->blk.nstats = 2, s->blk.nreqs = 1;
	s->blk.stats[0] = (struct blk_stat){.tgid = 1001, .op = BLK_READ, .n = 5, .bytes = 20480, .p50_ns = 1, .p99_ns = 2,
					    .max_ns = 3};
	s->blk.stats[1] = (struct blk_stat){.tgid = 1001, .op = BLK_WRITE, .n = 6, .bytes = 1, .p50_ns = 4, .p99_ns = 5,
					    .max_ns = 6};
	strcpy(s->blk.stats[0].disk, "disk0");
	strcpy(s->blk.stats[1].disk, "disk1");
	s->blk.reqs[0] = (struct blk_req){.tgid = 1002, .issued = 1, .age_ns = 77};
	strcpy(s->blk.reqs[0].disk, "disk0");
	fill_cgroups(s);
}

static void test_synthetic_round_trip(void **state)
{
	(void)state;
	struct sample in[3];
	fill_sample(&in[0], 3, 50);
	fill_sample(&in[1], 0, 0);      /* no disks, no processes */
	fill_sample(&in[2], 2, 10000);  /* many processes, all kept (each moved) */
	in[1].have_procs = 0;
	in[1].top_writer = -1;
	rewrite_same(in, 3, 10);
}

static void test_v1_fixture(void **state)
{
	(void)state;
	struct sample v1[8];
	size_t n = read_all(FIXTURE, v1, 8);
	assert_int_equal(n, 4);
	/* the numbers version 1 wrote for enums, read as the enums */
	const struct sample *t = &v1[1];
	assert_int_equal(t->ndisks, 1);
	assert_string_equal(t->disks[0].info.name, "vda");
	assert_int_equal(t->disks[0].info.kind, DISK_VIRTIO);
	assert_int_equal(t->disks[0].probe_st.mode, PROBE_MODE_FILE);
	assert_int_equal(t->disks[0].probe_st.state, PROBE_RUNNING);
	int kinds[PROC_SELF + 1] = {0};
	for (size_t i = 0; i < t->nprocs; i++)
		kinds[t->procs[i].kind]++;
	for (int k = 0; k <= PROC_SELF; k++)
		assert_true(kinds[k] > 0);
	/* the hand-added event of an unknown type is left out, the other read */
	assert_int_equal(t->nevents, 1);
	assert_int_equal(t->events[0].type, EV_SCHEDULER);
	assert_string_equal(t->events[0].to, "bfq");
	assert_true(t->events[0].ms == 12.5);
	/* before cgroups: none, and no row's is known */
	assert_int_equal(t->ncgroups, 0);
	assert_null(t->procs[0].cgroup);
	assert_int_equal(t->procs[0].cgroup_src, CGSRC_UNKNOWN);
	rewrite_same(v1, n, 1000);
}

static void test_v3_names(void **state)
{
	(void)state;
	struct sample s;
	fill_sample(&s, 1, 1);
	s.disks[0].info.kind = DISK_LOOP;
	s.disks[0].probe_st.mode = PROBE_MODE_DEVICE;
	s.procs[0].wait = WAIT_BEFORE;
	char path[32];
	write_recording(&s, 1, 10, path);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[1 << 16];
	size_t got = fread(buf, 1, sizeof buf - 1, f);
	buf[got] = '\0';
	fclose(f);
	unlink(path);
	assert_non_null(strstr(buf, "\"version\":3"));
	/* the JSON output's names, not versions 1 and 2's short keys */
	assert_non_null(strstr(buf, "\"rotational\":"));
	assert_non_null(strstr(buf, "\"schedulers\":["));
	assert_non_null(strstr(buf, "\"rate_hz\":"));
	assert_non_null(strstr(buf, "\"exit_record_overflows\":"));
	assert_null(strstr(buf, "\"rot\":"));
	assert_null(strstr(buf, "\"scheds\":"));
	assert_non_null(strstr(buf, "\"kind\":\"loop\""));
	assert_non_null(strstr(buf, "\"mode\":\"device\""));
	assert_non_null(strstr(buf, "\"wait\":\"before_delayacct\""));
	assert_non_null(strstr(buf, "\"type\":\"cleanup\""));
	assert_null(strstr(buf, "\"kind\":5"));
	sample_free(&s);
}

/* Version 2's short keys ("rot", "size", "nr", "ra", "wbt", "rate",
 * "prep", "exits", "exits_lost", "write_MBps", "dirty_MBps", "scheds")
 * read as the fields version 3 names after the JSON output; written again
 * and read back, the same. */
static void test_v2_fixture(void **state)
{
	(void)state;
	struct sample v2[4];
	size_t n = read_all(FIXTURE_V2, v2, 4);
	assert_int_equal(n, 3);
	const struct sample *t = &v2[0];
	assert_int_equal(t->ndisks, 1);
	const struct disk_sample *d = &t->disks[0];
	assert_string_equal(d->info.name, "vda");
	assert_int_equal(d->info.rotational, 1);
	assert_true(d->info.size_bytes == 274877906944ull);
	assert_int_equal(d->info.nr_requests, 256);
	assert_int_equal(d->info.read_ahead_kb, 8192);
	assert_int_equal(d->info.wbt_lat_usec, 75000);
	assert_int_equal(d->info.sched.n, 4);
	assert_string_equal(d->info.sched.names[3], "bfq");
	assert_int_equal(d->info.sched.active, 1);
	assert_true(d->probe_st.rate_hz == 20);
	assert_int_equal(d->probe_st.prep_pct, 7);
	assert_int_equal(t->pstat.exits, 1);
	assert_int_equal(t->pstat.exits_lost, 3);
	assert_true(t->write_MBps > 0.646 && t->write_MBps < 0.647);
	assert_true(t->dirty_MBps > 10.279 && t->dirty_MBps < 10.28);
	assert_true(t->nprocs > 0);
	assert_int_equal(t->ncgroups, 0);
	assert_null(t->procs[0].cgroup);
	rewrite_same(v2, n, 1000);
}

/* A command line is read back at most PROCS_CMDLINE_MAX - 1 bytes long
 * (a hand-made recording may hold any length); none is written as null
 * and read back as none, which shows the command name. */
static void test_cmdline_bounds(void **state)
{
	(void)state;
	struct sample s, out;
	fill_sample(&s, 1, 2);
	char long_cmd[1000];
	memset(long_cmd, 'a', sizeof long_cmd);
	s.procs[0].cmdline = util_texts_keep(&s.texts, long_cmd, sizeof long_cmd);
	s.procs[1].cmdline = NULL;
	memset(&out, 0, sizeof out);
	round_trip(&s, &out, 1, 10);
	assert_int_equal(out.nprocs, 2);
	assert_non_null(out.procs[0].cmdline);
	assert_int_equal(strlen(out.procs[0].cmdline), PROCS_CMDLINE_MAX - 1);
	assert_memory_equal(out.procs[0].cmdline, long_cmd, PROCS_CMDLINE_MAX - 1);
	assert_null(out.procs[1].cmdline);
	assert_string_equal(procs_row_cmdline(&out.procs[1]), s.procs[1].comm);
	sample_free(&s);
	sample_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic_round_trip),
		cmocka_unit_test(test_v1_fixture),
		cmocka_unit_test(test_v2_fixture),
		cmocka_unit_test(test_cmdline_bounds),
		cmocka_unit_test(test_v3_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
