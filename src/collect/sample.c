/* sample: see include/sample.h */
#include "sample.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <math.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <libudev.h>

#include "hotplug.h"
#include "replay.h"
#include "util.h"

/* Faster than any disk answers a 4 KiB read that reached it (the fastest
 * NVMe devices take about 7 us): such a sample came from a cache or a hole. */
#define MIN_PLAUSIBLE_NS 5000
/* Enumerate the disks again at least this often even without a uevent. */
#define RESCAN_S 30.0

int sampler_init(struct sampler *s, const struct sampler_config *cfg)
{
	memset(s, 0, sizeof *s);
	s->cfg = *cfg;
	s->prev_mono = -1;
	s->udev = udev_new();
	if (!s->udev)
		return -ENOMEM;
	if (hotplug_open(s->udev, &s->hotplug) < 0)
		s->hotplug = NULL; /* then every refresh enumerates */
	return 0;
}


static int in_list(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return 1;
	return 0;
}

static int wanted(const struct sampler *s, const char *name)
{
	return !s->cfg.only || in_list(s->cfg.only, s->cfg.nonly, name);
}

/* Shown: the disks --disk names (a hidden one too: the user asked for
 * it), else every disk but those hidden by default (disk.h) unless
 * --all-disks or x asks for them, or --probe names them. */
static int shown(const struct sampler *s, const struct disk_info *d)
{
	if (s->cfg.only)
		return in_list(s->cfg.only, s->cfg.nonly, d->name);
	return !d->hidden[0] || s->cfg.all_disks || s->show_hidden ||
	       (s->cfg.probe_only && in_list(s->cfg.probe_only, s->cfg.nprobe_only, d->name));
}

static int asked(const struct sampler *s, const char *name)
{
	for (size_t i = 0; i < s->nasked; i++)
		if (strcmp(s->asked[i], name) == 0)
			return 1;
	return 0;
}

int sampler_wants_probe(const struct sampler *s, const struct disk_info *d)
{
	if (s->held[0] && strcmp(s->held, d->name) == 0)
		return 0;
	if (asked(s, d->name))
		return 1;
	if (!s->cfg.probe)
		return 0;
	if (s->cfg.probe_file_disk && strcmp(s->cfg.probe_file_disk, d->name) == 0)
		return 1;
	if (s->cfg.probe_only)
		return in_list(s->cfg.probe_only, s->cfg.nprobe_only, d->name);
	if (d->sched.n == 0 || d->size_bytes == 0)
		return 0;
	/* By default only real disks: sixteen snap loops probed at 20 Hz
	 * each read the disk their files live on 320 times a second. A disk
	 * named with --disk is probed whatever it is. */
	return !disk_is_virtual(d) || (s->cfg.only && in_list(s->cfg.only, s->cfg.nonly, d->name));
}

static void fill_header(struct sample *out)
{
	struct utsname u;
	if (gethostname(out->host, sizeof out->host) != 0)
		util_strlcpy(out->host, "?", sizeof out->host);
	out->host[sizeof out->host - 1] = '\0';
	if (uname(&u) == 0)
		util_strlcpy(out->kernel, u.release, sizeof out->kernel);
	out->psi_err = psi_read("/proc/pressure/io", &out->psi);
	out->have_load = util_loadavg(out->load) == 0;
}

static int reserve(struct sample *out, size_t n)
{
	if (n <= out->cap)
		return 0;
	struct disk_sample *d = realloc(out->disks, n * sizeof *d);
	if (!d)
		return -ENOMEM;
	out->disks = d;
	out->cap = n;
	return 0;
}

static struct sampler_probe *find_probe(struct sampler *s, const char *disk)
{
	for (size_t i = 0; i < s->nprobes; i++)
		if (strcmp(s->probes[i].disk, disk) == 0)
			return &s->probes[i];
	return NULL;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void post_probe_event(struct sampler *s, const char *disk, int ok, const char *msg)
{
	struct event e = {.ts = util_real_now(), .mono = util_mono_now(), .ok = ok};
	e.type = EV_PROBE;
	util_strlcpy(e.disk, disk, sizeof e.disk);
	util_strlcpy(e.error, msg, sizeof e.error);
	eventlog_add(&s->events, &e);
}

static void start_probe(struct sampler *s, const struct disk_info *d)
{
	struct sampler_probe *grown = realloc(s->probes, (s->nprobes + 1) * sizeof *grown);
	if (!grown)
		return;
	s->probes = grown;
	struct sampler_probe *sp = &s->probes[s->nprobes++];
	memset(sp, 0, sizeof *sp);
	util_strlcpy(sp->disk, d->name, sizeof sp->disk);
	sp->started = util_mono_now();

	struct probe_config pc = {0};
	util_strlcpy(pc.disk, d->name, sizeof pc.disk);
	pc.io_size = s->cfg.probe_size;
	pc.rate_hz = s->cfg.probe_rate_hz;
	/* Per disk, so two disks do not read the same offsets in step. */
	pc.seed = (s->cfg.have_seed ? s->cfg.seed : (uint64_t)getpid() ^ (uint64_t)(util_real_now() * 1e6)) ^
		  name_hash(d->name);
	pc.min_plausible_ns = d->kind == DISK_ZRAM ? 0 : MIN_PLAUSIBLE_NS;
	pc.file_size = s->cfg.probe_file_size;
	if (s->cfg.probe_file_disk && strcmp(s->cfg.probe_file_disk, d->name) == 0) {
		util_strlcpy(pc.file, s->cfg.probe_file, sizeof pc.file);
		pc.file_is_users = 1;
	}
	char err[256] = "";
	if (d->logical_block && pc.io_size % d->logical_block)
		util_fmt(err, sizeof err, "--probe-size %u is not a multiple of %s's logical block (%u)",
			 pc.io_size, d->name, d->logical_block);
	else if (probe_start(&pc, &sp->p, err, sizeof err) == 0)
		return;
	sp->p = NULL;
	sp->failed.mode = PROBE_MODE_OFF;
	sp->failed.state = PROBE_ENDED;
	sp->failed.rate_hz = pc.rate_hz;
	util_strlcpy(sp->failed.why, err, sizeof sp->failed.why);
	sp->last_state = PROBE_ENDED;
	post_probe_event(s, d->name, 0, err);
}

/* Stop the probes of disks that are gone, start those of new disks. */
static void sync_probes(struct sampler *s, const struct disk_info *disks, size_t n)
{
	for (size_t i = 0; i < s->nprobes;) {
		size_t k;
		for (k = 0; k < n && strcmp(disks[k].name, s->probes[i].disk) != 0; k++)
			;
		if (k < n && strcmp(s->held, s->probes[i].disk) != 0) {
			i++;
			continue;
		}
		if (k == n && s->probes[i].last_state != PROBE_ENDED)
			post_probe_event(s, s->probes[i].disk, 0, "disk gone; probe stopped");
		probe_stop(s->probes[i].p);
		free(s->probes[i].behind);
		s->probes[i] = s->probes[--s->nprobes];
	}
	for (size_t i = 0; i < n; i++)
		if (shown(s, &disks[i]) && sampler_wants_probe(s, &disks[i]) && !find_probe(s, disks[i].name))
			start_probe(s, &disks[i]);
}

/* The loader: its own heap block, handed over with one atomic state.
 * Whoever moves the state second cleans up: the sampler takes a finished
 * load; a load the sampler gave up on (exit) is closed by the thread. */
enum { LOADING, LOADED, ABANDONED };

struct blk_loader {
	int state;                 /* atomic */
	struct blklat *b;
	char why[96];
};

static void *load_blk(void *arg)
{
	struct blk_loader *l = arg;
	util_block_stop_signals();
	blklat_open(&l->b, l->why, sizeof l->why);
	/* Loading parsed the kernel's BTF (megabytes) and freed it: give the
	 * pages back to the system (see mallopt in main). */
	malloc_trim(0);
	int expected = LOADING;
	if (!__atomic_compare_exchange_n(&l->state, &expected, LOADED, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		blklat_close(l->b); /* nobody wants it any more */
		free(l);
	}
	return NULL;
}

/* Start loading the BPF program once, at the end of the first tick. */
static void start_blk(struct sampler *s)
{
	if (s->blk_tried)
		return;
	s->blk_tried = 2;
	if (!s->cfg.procs || !s->cfg.bpf) {
		util_strlcpy(s->blk_why, s->cfg.procs ? "turned off (--no-bpf)" : "processes are not read",
			     sizeof s->blk_why);
		return;
	}
	util_strlcpy(s->blk_why, "loading", sizeof s->blk_why);
	struct blk_loader *l = calloc(1, sizeof *l);
	pthread_t th;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (!l || pthread_create(&th, &attr, load_blk, l) != 0) {
		free(l);
		util_strlcpy(s->blk_why, "could not start the loader thread", sizeof s->blk_why);
	} else {
		s->blk_loader = l;
		s->blk_tried = 1;
	}
	pthread_attr_destroy(&attr);
}

/* Take the loader's result once it is there. The first reading after
 * that only sets the baseline: its figures would cover part of an interval. */
static int blk_ready(struct sampler *s)
{
	if (s->blk || s->blk_tried != 1 || __atomic_load_n(&s->blk_loader->state, __ATOMIC_ACQUIRE) != LOADED)
		return s->blk != NULL;
	s->blk = s->blk_loader->b;
	util_strlcpy(s->blk_why, s->blk_loader->why, sizeof s->blk_why);
	free(s->blk_loader);
	s->blk_loader = NULL;
	s->blk_tried = 2;
	return 0;
}

/* At exit: a finished load is closed here; one still running is left to
 * its thread, which closes it when done (the process may end first). */
static void stop_blk(struct sampler *s)
{
	if (s->blk_tried != 1)
		return;
	int expected = LOADING;
	if (!__atomic_compare_exchange_n(&s->blk_loader->state, &expected, ABANDONED, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		blklat_close(s->blk_loader->b);
		free(s->blk_loader);
	}
	s->blk_loader = NULL;
	s->blk_tried = 2;
}

/* Disks that came or went since the last enumeration, as events; with
 * --disk only the disks named (a snap's loop device coming and going is
 * noise to someone watching sda). */
static void post_disk_changes(struct sampler *s, const struct disk_info *cur, size_t ncur)
{
	struct hotplug_change ch[16];
	size_t n = hotplug_diff(s->disks, s->ndisks, cur, ncur, ch, 16);
	for (size_t i = 0; i < n && i < 16; i++) {
		const struct disk_info *d = NULL;
		for (size_t k = 0; !d && k < ncur; k++)
			if (!strcmp(cur[k].name, ch[i].name))
				d = &cur[k];
		for (size_t k = 0; !d && k < s->ndisks; k++)
			if (!strcmp(s->disks[k].name, ch[i].name))
				d = &s->disks[k];
		if (d ? !shown(s, d) : !wanted(s, ch[i].name))
			continue;
		struct event e = {.ts = util_real_now(), .mono = util_mono_now(), .ok = 1};
		e.type = EV_DISK;
		util_strlcpy(e.disk, ch[i].name, sizeof e.disk);
		util_strlcpy(e.from, ch[i].added ? "absent" : "present", sizeof e.from);
		util_strlcpy(e.to, ch[i].added ? "present" : "absent", sizeof e.to);
		eventlog_add(&s->events, &e);
	}
}

/* Bring s->disks up to date. Enumerating every disk (a udev walk and
 * several sysfs files per disk) happens only when the monitor saw an
 * event, a known disk is gone or emptied, there is no monitor, or
 * RESCAN_S passed (in case an event was missed); otherwise only the
 * settings that change at run time are read again. */
static int update_disks(struct sampler *s, double now)
{
	int rescan = !s->have_disks || !s->hotplug || hotplug_drain(s->hotplug) != 0 || now - s->scanned >= RESCAN_S;
	for (size_t i = 0; i < s->ndisks && !rescan; i++)
		rescan = disk_refresh(&s->disks[i]) < 0 || (s->disks[i].kind == DISK_LOOP && !s->disks[i].size_bytes);
	if (!rescan)
		return 0;
	struct disk_info *disks;
	size_t n;
	int rc = disk_scan(s->udev, &disks, &n);
	if (rc < 0)
		return rc;
	if (s->have_disks)
		post_disk_changes(s, disks, n);
	free(s->disks);
	s->disks = disks;
	s->ndisks = n;
	s->have_disks = 1;
	s->scanned = now;
	return 0;
}

void sampler_use_replay(struct sampler *s, struct replay *r)
{
	s->replay = r;
	s->cfg.probe = 0;
}

/* The process reader, made on first use; with BPF allowed, it reads the
 * tasks through the kernel's walk once that loads. */
static int open_procs(struct sampler *s)
{
	if (s->procs)
		return 0;
	int rc = procs_new(&s->procs);
	if (rc == 0)
		procs_use_iter(s->procs, s->cfg.bpf);
	return rc;
}

int sampler_prime(struct sampler *s)
{
	if (s->replay)
		return 0;
	int rc = diskstats_read("/proc/diskstats", &s->prev);
	if (rc < 0)
		return rc;
	s->prev_mono = util_mono_now();
	/* The processes' first reading too, so the first interval has rates. */
	if (s->cfg.procs && open_procs(s) == 0) {
		struct proc_row *rows = NULL;
		size_t n = 0, cap = 0;
		struct procs_status st;
		procs_collect(s->procs, s->cfg.threads, 0, s->cfg.delayacct_since, &rows, &n, &cap, &st);
		free(rows);
	}

	/* Probes start now, so the first interval has their samples too. */
	if (update_disks(s, util_mono_now()) == 0)
		sync_probes(s, s->disks, s->ndisks);
	return 0;
}

static void summarize(const struct hist *h, uint64_t flagged, struct probe_summary *out)
{
	out->n = h->n;
	out->p50_ns = hist_quantile(h, 0.50);
	out->p90_ns = hist_quantile(h, 0.90);
	out->p99_ns = hist_quantile(h, 0.99);
	out->p999_ns = hist_quantile(h, 0.999);
	out->max_ns = h->max_ns;
	out->mean_ns = hist_mean_ns(h);
	out->flagged = flagged;
}

/* The time-based figures of the last 10 s (the window latwin_window gives:
 * nine whole seconds and the current one so far). */
static void time_figures(const struct sampler_probe *sp, const struct hist *last10, double now, struct disk_sample *d)
{
	double secs = 9 + (now - floor(now));
	if (now - sp->started < secs)
		secs = now - sp->started;
	/* Only the figures the screen shows: no percentiles walked twice on
	 * the refresh path (summarize has them). */
	d->probe_rps_10s = secs > 0.5 ? (double)last10->n / secs : 0;
	d->probe_stall10_10s = secs > 0.5 ? fmin(1, (double)hist_sum_above(last10, 10000000) / 1e9 / secs) : 0;
	d->probe_stall100_10s = secs > 0.5 ? fmin(1, (double)hist_sum_above(last10, 100000000) / 1e9 / secs) : 0;
}

/* The fresh jobs on sp's disk that ended in (from, to]: how many, and
 * their median time (0 when none). */
static int fresh_in(const struct sampler_probe *sp, double from, double to, double *median_ms)
{
	double v[FRESH_KEPT];
	int n = 0;
	unsigned kept = sp->nfresh < FRESH_KEPT ? sp->nfresh : FRESH_KEPT;
	for (unsigned i = 0; i < kept; i++)
		if (sp->fresh_mono[i] > from && sp->fresh_mono[i] <= to)
			v[n++] = sp->fresh_ms[i];
	*median_ms = n == 0 ? 0 : util_median(v, n);
	return n;
}

/* The after window of the last switch fills for 10 s, then stays. */
static void compare_after(struct sampler_probe *sp, const struct hist *since_change, uint64_t flagged, double now)
{
	if (sp->cmp.state != 1)
		return;
	summarize(since_change, flagged, &sp->cmp.after);
	sp->cmp.after_s = now - sp->cmp.mono;
	sp->cmp.fresh_after_n = fresh_in(sp, sp->cmp.mono, sp->cmp.mono + 10, &sp->cmp.fresh_after_ms);
	if (sp->cmp.after_s >= 10)
		sp->cmp.state = 2;
}

static void read_probe(struct sampler *s, struct sampler_probe *sp, double now, struct disk_sample *d)
{
	d->probed = 1;
	if (!sp->p) {
		d->probe_st = sp->failed;
		return;
	}
	/* About 30 KB of histograms: on the heap, not the stack. */
	struct probe_reading *r = malloc(sizeof *r);
	if (!r)
		return;
	probe_read(sp->p, now, r);
	d->probe_st = r->st;
	summarize(&r->interval, r->flagged_interval, &d->probe);
	d->probe_hist = r->interval;
	summarize(&r->last10, r->flagged_10s, &d->probe_10s);
	summarize(&r->since_change, r->flagged_change, &d->probe_change);
	d->slow.reads = r->last10.n - hist_count_upto(&r->last10, (uint64_t)(PROBE_SLOW_US * 1e3));
	d->slow.worst_us = d->probe_10s.n ? (double)d->probe_10s.max_ns / 1e3 : 0;
	time_figures(sp, &r->last10, now, d);
	compare_after(sp, &r->since_change, r->flagged_change, now);
	d->cmp = sp->cmp;
	int64_t sec = (int64_t)floor(now);
	probe_chart(sp->p, sec - CHART_SECONDS + 1, sec, d->chart);
	if (r->st.state == PROBE_ENDED && sp->last_state != PROBE_ENDED)
		post_probe_event(s, sp->disk, 0, r->st.why);
	sp->last_state = r->st.state;
	free(r);
}

/* In the order sampler_wants_probe decides: the first that applies is
 * the reason, with the way out where there is one. */
void sampler_unprobed_why(const struct sampler *s, const struct disk_info *d, char *buf, size_t len)
{
	if (s->held[0] && strcmp(s->held, d->name) == 0)
		util_fmt(buf, len, "held off while the A/B run measures it with its own readers");
	else if (d->sched.n == 0)
		util_fmt(buf, len, "no I/O scheduler on this queue (a stacked device: probe the disks under it)");
	else if (d->size_bytes == 0)
		util_fmt(buf, len, "size 0: no medium, or a loop device with nothing attached");
	else if (!s->cfg.probe)
		util_fmt(buf, len, "--no-probe (O probes it)");
	else if (s->cfg.probe_only)
		util_fmt(buf, len, "not named with --probe (--probe %s, or O)", d->name);
	else
		util_fmt(buf, len, "%s disks are probed only when named: --probe %s, --disk %s, or O",
			 disk_kind_name(d->kind), d->name, d->name);
}

int sampler_probe_add(struct sampler *s, const struct disk_info *d, char *err, size_t len)
{
	if (find_probe(s, d->name) || asked(s, d->name)) {
		util_fmt(err, len, "%s is probed already", d->name);
		return -1;
	}
	if (d->sched.n == 0 || d->size_bytes == 0) {
		sampler_unprobed_why(s, d, err, len);
		return -1;
	}
	if (s->nasked == SAMPLER_ASKED_MAX) {
		util_fmt(err, len, "%d disks probed on request already", SAMPLER_ASKED_MAX);
		return -1;
	}
	util_strlcpy(s->asked[s->nasked++], d->name, sizeof s->asked[0]);
	return 0;
}

/* Why a disk has no probe, for the JSON and the screen. */
static void unprobed(const struct sampler *s, const struct disk_info *d, struct probe_status *st)
{
	memset(st, 0, sizeof *st);
	st->mode = PROBE_MODE_OFF;
	st->rate_hz = s->cfg.probe_rate_hz;
	sampler_unprobed_why(s, d, st->why, sizeof st->why);
}

static void fill_pending(const struct pending_change *pend, size_t n, double now, struct disk_sample *d)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(pend[i].disk, d->info.name) != 0)
			continue;
		struct disk_pending *p = &d->pending;
		if (p->jobs++ == 0) {
			p->running = pend[i].running;
			util_strlcpy(p->key, pend[i].key, sizeof p->key);
			util_strlcpy(p->to, pend[i].to, sizeof p->to);
			p->secs = now - pend[i].since;
		}
	}
}

static void fill_last_switch(const struct eventlog *l, struct disk_sample *d)
{
	struct event recent[EVENTLOG_RECENT];
	size_t n = eventlog_recent(l, recent, EVENTLOG_RECENT);
	d->last_switch_ms = -1;
	for (size_t i = n; i-- > 0;)
		if (recent[i].ok && recent[i].type == EV_SCHEDULER && strcmp(recent[i].disk, d->info.name) == 0 &&
		    strcmp(recent[i].key, EVENT_KEY_EXTERNAL) != 0) { /* how long an outside switch took is unknown */
			d->last_switch_ms = recent[i].ms;
			return;
		}
}

const struct proc_row *sample_top_writer(const struct sample *s)
{
	return s->have_procs && s->procs && s->top_writer >= 0 && (size_t)s->top_writer < s->nprocs
		       ? &s->procs[s->top_writer] : NULL;
}

const struct proc_row *sample_top_to_disk(const struct sample *s)
{
	const struct proc_row *top = NULL;
	for (size_t i = 0; s->have_procs && i < s->nprocs; i++) {
		const struct proc_row *r = &s->procs[i];
		if (r->to_disk_Bps > 0 && (!top || r->to_disk_Bps > top->to_disk_Bps) && (!r->exited || !r->ended_ago))
			top = r;
	}
	return top;
}

const struct disk_sample *sample_top_disk(const struct sample *s)
{
	return s->disks && s->top_disk >= 0 && (size_t)s->top_disk < s->ndisks ? &s->disks[s->top_disk] : NULL;
}

void sample_warning(const struct disk_sample *d, char *buf, size_t len)
{
	const char *a = sched_active(&d->info.sched);
	buf[0] = '\0';
	if (!a)
		return;
	if (d->info.zoned && strcmp(a, "mq-deadline") != 0)
		util_fmt(buf, len, "zoned disk on %s: mq-deadline keeps zone writes in order", a);
	else if (d->info.rotational == 1 && d->info.kind != DISK_LOOP && (!strcmp(a, "kyber") || !strcmp(a, "none")))
		util_fmt(buf, len, "%s on a rotational disk: seeks are not sorted", a);
	else if (!strcmp(a, "bfq") && d->have_rates && d->io.r_s + d->io.w_s > 100000)
		util_fmt(buf, len, "bfq at %.0fk IOPS: its CPU cost may limit the disk", (d->io.r_s + d->io.w_s) / 1000);
}

/* Real disks first (the one the user cares about is there), then the
 * virtual ones; by name within each. */
static int real_first(const void *a, const void *b)
{
	const struct disk_sample *x = a, *y = b;
	int vx = disk_is_virtual(&x->info), vy = disk_is_virtual(&y->info);
	return vx != vy ? vx - vy : strverscmp(x->info.name, y->info.name);
}

static void describe_hidden(struct sample *out, size_t loops)
{
	size_t others = out->nhidden - loops;
	if (!out->nhidden)
		out->hidden_what[0] = '\0';
	else if (!others)
		util_fmt(out->hidden_what, sizeof out->hidden_what, "%zu loop device%s", loops, loops == 1 ? "" : "s");
	else if (!loops)
		util_fmt(out->hidden_what, sizeof out->hidden_what, "%zu virtual disk%s", others, others == 1 ? "" : "s");
	else
		util_fmt(out->hidden_what, sizeof out->hidden_what, "%zu loop device%s and %zu other virtual disk%s", loops,
			 loops == 1 ? "" : "s", others, others == 1 ? "" : "s");
}

static void fill_disks(struct sampler *s, const struct diskstats_table *cur, struct disk_info *disks,
		       size_t n, double now, const struct pending_change *pend, size_t npend, struct sample *out)
{
	out->ndisks = 0;
	size_t hidden_loops = 0;
	out->nhidden = 0;
	for (size_t i = 0; i < n; i++) {
		if (!shown(s, &disks[i])) {
			if (!s->cfg.only) { /* --disk: the others are not "hidden", just not asked for */
				out->nhidden++;
				hidden_loops += disks[i].kind == DISK_LOOP;
			}
			continue;
		}
		const struct diskstats_row *c = diskstats_find(cur, disks[i].name);
		if (!c)
			continue; /* listed by udev, gone from diskstats: vanished meanwhile */
		struct disk_sample *d = &out->disks[out->ndisks++];
		memset(d, 0, sizeof *d);
		d->info = disks[i];
		d->in_flight = c->f[DS_IN_FLIGHT];
		const struct diskstats_row *p = diskstats_find(&s->prev, disks[i].name);
		/* Same name but another device number: a new device, no rates yet. */
		if (p && p->major == c->major && p->minor == c->minor && out->interval_s > 0)
			d->have_rates = iostat_compute(p, c, out->interval_s, &d->io) == 0;
		struct sampler_probe *sp = find_probe(s, disks[i].name);
		if (sp)
			read_probe(s, sp, now, d);
		else
			unprobed(s, &disks[i], &d->probe_st);
		fill_pending(pend, npend, now, d);
		fill_last_switch(&s->events, d);
		sample_warning(d, d->warning, sizeof d->warning);
	}
	describe_hidden(out, hidden_loops);
	qsort(out->disks, out->ndisks, sizeof *out->disks, real_first);
}

/* A switch made outside the tool is posted as the tool's own are: it is
 * logged, marked on the chart, compared before and after, counted. Every
 * disk is watched (a hidden one may be shown later), but with --disk only
 * the disks it names are reported: the others' switches are not what the
 * user asked to see. */
static void notice_external(struct sampler *s, const struct pending_change *pend, size_t npend, double now, double ts)
{
	struct event ev[8];
	int n = extswitch_check(&s->ext, s->disks, s->ndisks, pend, npend, now, ts, ev, 8);
	for (int i = 0; i < n; i++)
		if (wanted(s, ev[i].disk))
			sampler_post(s, &ev[i]);
}

static int stacked(const struct disk_sample *d)
{
	return d->info.kind == DISK_LOOP || d->info.kind == DISK_DM || d->info.kind == DISK_MD;
}

/* Whether the writes of d count in "to disks": physical writes, so not a
 * disk stacked on others (loop, dm and md pass their writes to the disks
 * below, which count them again), unless only stacked ones are shown
 * (--disk loop0): then theirs. */
static int counts_to_disks(const struct sample *out, const struct disk_sample *d)
{
	if (!d->have_rates)
		return 0;
	if (!stacked(d))
		return 1;
	for (size_t i = 0; i < out->ndisks; i++)
		if (!stacked(&out->disks[i]))
			return 0;
	return 1;
}

static double leaf_write_MBps(const struct sample *out)
{
	double sum = 0;
	for (size_t i = 0; i < out->ndisks; i++)
		if (counts_to_disks(out, &out->disks[i]))
			sum += out->disks[i].io.wkB_s / 1024.0;
	return sum;
}

/* The disk counted in "to disks" written most, or -1 when none was. */
static int top_disk(const struct sample *out)
{
	int best = -1;
	for (size_t i = 0; i < out->ndisks; i++) {
		const struct disk_sample *d = &out->disks[i];
		if (counts_to_disks(out, d) && d->io.wkB_s > 0 && (best < 0 || d->io.wkB_s > out->disks[best].io.wkB_s))
			best = (int)i;
	}
	return best;
}

/* What processes dirty per second: their write_bytes (a process that
 * ended counts in the interval it ended in only). Not the kernel threads
 * that write for others: a loop device's worker writing the backing file
 * would count its user's bytes a second time. */
static double dirtying_MBps(const struct sample *out)
{
	double sum = 0;
	for (size_t i = 0; i < out->nprocs; i++) {
		const struct proc_row *r = &out->procs[i];
		if (r->io_readable && (r->kind == PROC_NORMAL || r->kind == PROC_SELF) && !(r->exited && r->ended_ago))
			sum += r->write_Bps;
	}
	return sum / (1024.0 * 1024.0);
}

static int top_writer(const struct sample *out)
{
	int best = -1;
	for (size_t i = 0; i < out->nprocs; i++) {
		const struct proc_row *r = &out->procs[i];
		if (r->kind == PROC_NORMAL && r->write_Bps > 0 && !(r->exited && r->ended_ago) &&
		    (best < 0 || r->write_Bps > out->procs[best].write_Bps))
			best = (int)i;
	}
	return best;
}

/* Whether tgid wrote blocks to a loop device in the reading. */
static int writes_to_loop(const struct blk_reading *b, int tgid)
{
	for (size_t i = 0; i < b->nstats; i++)
		if (b->stats[i].tgid == tgid && b->stats[i].op == BLK_WRITE && strncmp(b->stats[i].disk, "loop", 4) == 0)
			return 1;
	return 0;
}

/* The block-layer figures of each process go onto its row; in thread
 * mode onto the main thread's row, as they are the whole process's. */
static int has_row(const struct sample *out, int tgid)
{
	for (size_t i = 0; i < out->nprocs; i++)
		if (out->procs[i].pid == tgid)
			return 1;
	return 0;
}

/* A process that dirtied pages and ended before they were written: its
 * writeback is charged to it (blklat.bpf.c), under an [exited] row of its
 * own name, as long as its pages are being written (the loop in
 * collect_blk fills its figures as any row's). */
static void add_gone_writers(struct sampler *s, struct sample *out)
{
	for (size_t i = 0; i < out->blk.nprocs; i++) {
		const struct blk_proc *b = &out->blk.procs[i];
		if (!b->bytes[BLK_WRITE] || has_row(out, b->tgid) || kill(b->tgid, 0) == 0)
			continue;
		if (util_grow((void **)&out->procs, &out->procs_cap, out->nprocs + 1, sizeof *out->procs) < 0)
			return;
		struct proc_row *r = &out->procs[out->nprocs++];
		/* It has ended: its own reads and writes this interval are 0,
		 * known, not unknown (a null would stop a sum of the rows). */
		*r = (struct proc_row){.pid = b->tgid, .tid = b->tgid, .state = 'X', .ioprio = -1, .exited = 1,
				       .count = 1, .moved = 1, .io_readable = 1};
		r->user = "-";
		if (blklat_name(s->blk, b->tgid, r->comm, sizeof r->comm) < 0)
			util_fmt(r->comm, sizeof r->comm, "pid %d", b->tgid);
	}
}

/* What a kernel thread that wrote blocks wrote for. A flusher's
 * /proc/PID/io shows nothing (the bytes were charged to whoever dirtied
 * the pages), but its requests say it. A kworker's name shows only its
 * current work item: one named "-loop0" now may have flushed pages a
 * moment ago (seen here). A loop worker writes to the backing disk, never
 * to a loop device: block writes to one are writeback. What is left on a
 * kernel thread once file data went to its dirtiers is mostly the
 * filesystem's own (journal, metadata): labelled so when it is, unless
 * its name already says what it is (a flusher, jbd2). */
static enum proc_kind writer_kind(const struct proc_row *r, const struct blk_proc *b, const struct blk_reading *blk)
{
	if ((r->ppid != 2 && r->pid != 2) || !r->blk_n[BLK_WRITE] || !b)
		return r->kind;
	if (r->kind == PROC_JOURNAL || (r->kind == PROC_WRITEBACK && procs_classify(r->comm, r->ppid, r->pid) == PROC_WRITEBACK))
		return r->kind; /* named for what it does */
	if (r->kind != PROC_NORMAL && r->kind != PROC_WRITEBACK && !(r->kind == PROC_LOOP && writes_to_loop(blk, r->pid)))
		return r->kind;
	return b->journal_bytes * 2 >= b->bytes[BLK_WRITE] ? PROC_JOURNAL : PROC_WRITEBACK;
}

static int by_tgid(const void *a, const void *b)
{
	return ((const struct to_disk_total *)a)->tgid - ((const struct to_disk_total *)b)->tgid;
}

static struct to_disk_total *find_total(struct sampler *s, int tgid)
{
	struct to_disk_total key = {.tgid = tgid};
	return s->nto_disk ? bsearch(&key, s->to_disk, s->nto_disk, sizeof key, by_tgid) : NULL;
}

/* This reading's block writes into each process's TO-DISK total (the
 * pane's totals mode). Entries of processes neither listed nor writing for
 * 10 minutes are dropped, so the table holds what can be shown. */
static void add_to_disk_totals(struct sampler *s, const struct sample *out)
{
	size_t n0 = s->nto_disk;
	for (size_t i = 0; i < out->blk.nprocs; i++) {
		const struct blk_proc *b = &out->blk.procs[i];
		if (!b->bytes[BLK_WRITE])
			continue;
		struct to_disk_total *t = n0 ? bsearch(&(struct to_disk_total){.tgid = b->tgid}, s->to_disk, n0,
						       sizeof *t, by_tgid) : NULL;
		if (!t && util_grow((void **)&s->to_disk, &s->to_disk_cap, s->nto_disk + 1, sizeof *t) == 0) {
			t = &s->to_disk[s->nto_disk++];
			*t = (struct to_disk_total){.tgid = b->tgid};
		}
		if (t) {
			t->bytes += b->bytes[BLK_WRITE];
			t->last = out->mono;
		}
	}
	if (s->nto_disk > n0)
		qsort(s->to_disk, s->nto_disk, sizeof *s->to_disk, by_tgid);
	for (size_t i = 0; i < out->nprocs; i++) { /* a listed process stays */
		struct to_disk_total *t = out->procs[i].tid == out->procs[i].pid ? find_total(s, out->procs[i].pid) : NULL;
		if (t)
			t->last = out->mono;
	}
	size_t w = 0; /* (dropping keeps the order) */
	for (size_t k = 0; k < s->nto_disk; k++)
		if (out->mono - s->to_disk[k].last < 600)
			s->to_disk[w++] = s->to_disk[k];
	s->nto_disk = w;
}

static void collect_blk(struct sampler *s, struct sample *out)
{
	int ready = blk_ready(s);
	out->blk_on = ready;
	out->blk.unattributed = out->blk.untimed = out->blk.uncounted = 0; /* until a reading says otherwise */
	for (size_t i = 0; out->have_procs && i < out->nprocs; i++)
		out->procs[i].to_disk_Bps = -1; /* not known, until the reading below */
	util_strlcpy(out->blk_why, s->blk && !ready ? "starting (figures from the next refresh)" : s->blk_why,
		     sizeof out->blk_why);
	out->blk_stage = blklat_owner_stage(s->blk);
	/* Loading starts after the first sample is out: verifying the program
	 * takes tens of ms of CPU, which the first sample must not wait for. */
	if (!s->blk_tried) {
		start_blk(s);
		util_strlcpy(out->blk_why, s->blk_why, sizeof out->blk_why);
	}
	if (!s->blk)
		return;
	if (blklat_read(s->blk, &out->blk) < 0 || !ready) {
		out->blk.nstats = out->blk.nprocs = out->blk.nreqs = out->blk.nunattr = 0;
		return;
	}
	for (size_t i = 0; i < out->ndisks; i++) {
		struct disk_sample *d = &out->disks[i];
		d->blk_unattributed = 0;
		for (size_t k = 0; k < out->blk.nunattr; k++)
			if (!strcmp(out->blk.unattr[k].disk, d->info.name))
				d->blk_unattributed = out->blk.unattr[k].bytes;
	}
	if (out->have_procs && !out->pstat.threads)
		add_gone_writers(s, out);
	add_to_disk_totals(s, out);
	for (size_t i = 0; out->have_procs && i < out->nprocs; i++) {
		struct proc_row *r = &out->procs[i];
		const struct blk_proc *b = r->tid == r->pid ? blklat_find_proc(&out->blk, r->pid) : NULL;
		for (int op = 0; op < 2; op++) {
			r->blk_n[op] = b ? b->n[op] : 0;
			r->blk_bytes[op] = b ? b->bytes[op] : 0;
			r->blk_p50_ns[op] = b ? b->p50_ns[op] : 0;
			r->blk_p99_ns[op] = b ? b->p99_ns[op] : 0;
		}
		if (b) /* its requests make it notable: procs_collect named the others */
			procs_name(s->procs, r);
		/* An ended process whose pages are written after the interval it
		 * ended in: its row is this interval's again, for those bytes
		 * alone (its own I/O was counted when it ended). */
		if (r->exited && r->ended_ago && b && b->bytes[BLK_WRITE]) {
			r->ended_ago = 0;
			r->read_Bps = r->write_Bps = r->read_calls = r->write_calls = 0;
			r->count = 0; /* none ended in this interval: a sum of counts counts each once */
		}
		/* a thread's requests are its process's (the BPF part keys by process) */
		r->to_disk_Bps = r->tid != r->pid ? -1
				 : out->interval_s > 0 ? (double)r->blk_bytes[BLK_WRITE] / out->interval_s : 0;
		const struct to_disk_total *t = r->tid == r->pid ? find_total(s, r->pid) : NULL;
		r->to_disk_total = t ? t->bytes : 0;
		r->kind = writer_kind(r, b, &out->blk);
	}
}

static void collect_procs(struct sampler *s, struct sample *out)
{
	out->have_procs = 0;
	out->top_writer = -1;
	out->write_MBps = leaf_write_MBps(out);
	out->top_disk = top_disk(out);
	out->dirty_MBps = 0;
	if (!s->cfg.procs)
		return;
	if (open_procs(s) < 0)
		return;
	if (procs_collect(s->procs, s->cfg.threads, out->interval_s, s->cfg.delayacct_since, &out->procs, &out->nprocs,
			  &out->procs_cap, &out->pstat) == 0) {
		out->have_procs = 1;
		out->top_writer = top_writer(out);
		out->dirty_MBps = dirtying_MBps(out);
	}
}

void sampler_name_rows(struct sampler *s, struct sample *out, const size_t *idx, size_t n)
{
	if (!s->procs || s->replay || !out->have_procs)
		return;
	for (size_t k = 0; k < (idx ? n : out->nprocs); k++) {
		size_t i = idx ? idx[k] : k;
		if (i < out->nprocs)
			procs_name(s->procs, &out->procs[i]);
	}
}

int sampler_fresh_start(struct sampler *s, const char *disk, uint32_t reads, char *err, size_t len)
{
	if (s->fresh.started) {
		util_fmt(err, len, "a fresh reader is still running on %s", s->fresh_disk);
		return -1;
	}
	struct sampler_probe *sp = find_probe(s, disk);
	struct probe_status st = {0};
	if (sp && sp->p)
		probe_get_status(sp->p, util_mono_now(), &st);
	if (st.state != PROBE_RUNNING) {
		util_fmt(err, len, "%s has no running probe: a fresh reader reads what the probe reads", disk);
		return -1;
	}
	uint64_t seed = (uint64_t)getpid() ^ (uint64_t)(util_real_now() * 1e6);
	if (freshjob_start(&s->fresh, st.path, st.mode == PROBE_MODE_FILE, s->cfg.probe_size, reads, seed, err, len) < 0)
		return -1;
	util_strlcpy(s->fresh_disk, disk, sizeof s->fresh_disk);
	return 0;
}

/* A fresh reader's job that ended becomes an event (the chart marks it). */
static void poll_fresh(struct sampler *s)
{
	if (!s->fresh.started)
		return;
	double ms;
	char err[200] = "";
	uint32_t reads = s->fresh.reads;
	int rc = freshjob_poll(&s->fresh, &ms, err, sizeof err);
	if (rc == 0)
		return;
	struct event e = {.ts = util_real_now(), .mono = util_mono_now(), .ok = rc == 1, .ms = rc == 1 ? ms : 0};
	struct sampler_probe *sp = find_probe(s, s->fresh_disk);
	if (sp && rc == 1) {
		sp->fresh_mono[sp->nfresh % FRESH_KEPT] = e.mono;
		sp->fresh_ms[sp->nfresh % FRESH_KEPT] = ms;
		sp->nfresh++;
	}
	e.type = EV_FRESH;
	util_strlcpy(e.disk, s->fresh_disk, sizeof e.disk);
	util_fmt(e.to, sizeof e.to, "%u reads", reads);
	util_strlcpy(e.error, err, sizeof e.error);
	eventlog_add(&s->events, &e);
}

/* A replay shows the disks --disk names, as a live run would. */
static void replay_filter(const struct sampler *s, struct sample *out)
{
	size_t k = 0;
	int top = -1;
	for (size_t i = 0; i < out->ndisks; i++) {
		if (!wanted(s, out->disks[i].info.name))
			continue;
		if ((int)i == out->top_disk)
			top = (int)k;
		if (k != i)
			out->disks[k] = out->disks[i];
		k++;
	}
	out->ndisks = k;
	out->top_disk = top;
	/* "to disks" is of the shown disks, as in a live run with --disk */
	if (s->cfg.only) {
		out->write_MBps = leaf_write_MBps(out);
		out->top_disk = top_disk(out);
	}
}

/* The probe's readers, watched by the BPF part (what their reads wait
 * behind is counted). */
static void watch_readers(struct sampler *s, double now)
{
	int pids[SAMPLER_WATCH_MAX];
	size_t n = 0;
	for (size_t i = 0; i < s->nprobes && n < SAMPLER_WATCH_MAX; i++) {
		struct probe_status st;
		if (!s->probes[i].p)
			continue;
		probe_get_status(s->probes[i].p, util_mono_now(), &st);
		if (st.reader_pid <= 0)
			continue;
		pids[n++] = st.reader_pid;
		if (s->probes[i].watched_since == 0)
			s->probes[i].watched_since = now; /* watched from this refresh on */
	}
	blklat_watch(s->blk, pids, n);
}

/* This interval's entries of sp's disk into its 10 s window. */
static void behind_add(struct sampler_probe *sp, const struct blk_reading *r, double now)
{
	size_t w = 0;
	for (size_t i = 0; i < sp->nbehind; i++)
		if (sp->behind[i].mono > now - 10.0)
			sp->behind[w++] = sp->behind[i];
	sp->nbehind = w;
	for (size_t i = 0; i < r->nbehind; i++)
		if (strcmp(r->behind[i].disk, sp->disk) == 0 &&
		    util_grow((void **)&sp->behind, &sp->behind_cap, sp->nbehind + 1, sizeof *sp->behind) == 0)
			sp->behind[sp->nbehind++] = (struct behind_tick){.mono = now, .e = r->behind[i]};
}

/* A process's name as the sample has it, else as the BPF part noted it. */
static void name_of(struct sampler *s, const struct sample *out, int pid, char *comm, size_t len)
{
	for (size_t i = 0; i < out->nprocs; i++)
		if (out->procs[i].pid == pid) {
			util_strlcpy(comm, out->procs[i].comm, len);
			return;
		}
	if (blklat_name(s->blk, pid, comm, len) < 0)
		util_fmt(comm, len, "pid %d", pid);
}

/* The window's entries of intervals that ended in (from, to], summed by
 * owner and kind: the largest max of them into top, largest first, with
 * their shares of the total. Returns how many; *total gets the sum. */
static int behind_top(struct sampler *s, const struct sample *out, const struct sampler_probe *sp, double from,
		      double to, struct probe_ahead *top, int max, uint64_t *total)
{
	struct probe_ahead all[64];
	size_t n = 0;
	int got = 0;
	*total = 0;
	for (size_t i = 0; i < sp->nbehind; i++) {
		const struct blk_behind *e = &sp->behind[i].e;
		if (!(sp->behind[i].mono > from && sp->behind[i].mono <= to))
			continue;
		size_t k = 0;
		while (k < n && !(all[k].pid == e->tgid && all[k].kind == e->kind))
			k++;
		if (k == n && n < sizeof all / sizeof all[0])
			all[n++] = (struct probe_ahead){.pid = e->tgid, .kind = e->kind};
		if (k < n)
			all[k].bytes += e->bytes;
		*total += e->bytes;
	}
	while (got < max && *total) {
		size_t best = n;
		for (size_t k = 0; k < n; k++)
			if (all[k].bytes && (best == n || all[k].bytes > all[best].bytes))
				best = k;
		if (best == n)
			break;
		struct probe_ahead *a = &top[got++];
		*a = all[best];
		a->share = (double)a->bytes / (double)*total;
		name_of(s, out, a->pid, a->comm, sizeof a->comm);
		all[best].bytes = 0;
	}
	return got;
}

/* Whether second sec is part of a read already listed (a read that spans
 * seconds is the slowest of each of them). */
static int listed(const struct latwin_point *const *chosen, int n, const struct latwin_point *p)
{
	for (int i = 0; i < n; i++)
		if (chosen[i]->max_ns == p->max_ns && llabs(chosen[i]->sec - p->sec) <= (long long)(p->max_ns / 1000000000u) + 1)
			return 1;
	return 0;
}

/* The slowest reads of the last 10 s (d->chart's seconds) since the
 * probe's reader is watched, each with what the disk served most in the
 * intervals that overlap its second (a second before the watch began has
 * no such figure: it is left out, not shown as "nothing"). */
static void slowest_of(struct sampler *s, const struct sample *out, const struct sampler_probe *sp, double now,
		       struct disk_sample *d)
{
	struct probe_slow *sl = &d->slow;
	double ts0 = out->ts - now; /* unix seconds = mono + ts0 */
	int64_t from = (int64_t)floor(now) - 9;
	if (from < (int64_t)ceil(sp->watched_since))
		from = (int64_t)ceil(sp->watched_since);
	const struct latwin_point *chosen[PROBE_SLOWEST_MAX];
	sl->nslowest = 0;
	while (sl->nslowest < PROBE_SLOWEST_MAX) {
		const struct latwin_point *best = NULL;
		for (int i = 0; i < CHART_SECONDS; i++) {
			const struct latwin_point *p = &d->chart[i];
			if (p->n == 0 || p->sec < from || (double)p->max_ns < PROBE_SLOW_US * 1e3 ||
			    listed(chosen, sl->nslowest, p))
				continue;
			if (!best || p->max_ns > best->max_ns)
				best = p;
		}
		if (!best)
			break;
		chosen[sl->nslowest] = best;
		struct probe_slowest *w = &sl->slowest[sl->nslowest++];
		*w = (struct probe_slowest){.ts = (double)best->sec + ts0, .us = (double)best->max_ns / 1e3};
		uint64_t total;
		double iv = out->interval_s > 0 ? out->interval_s : 1;
		behind_top(s, out, sp, (double)best->sec, (double)best->sec + 1 + iv, &w->top, 1, &total);
	}
}

/* What the probe's reads waited behind, by kind, over (from, to]. */
static void behind_kinds(const struct sampler_probe *sp, double from, double to, struct blk_kind_bytes *kinds)
{
	*kinds = (struct blk_kind_bytes){0};
	for (size_t i = 0; i < sp->nbehind; i++)
		if (sp->behind[i].mono > from && sp->behind[i].mono <= to && sp->behind[i].e.kind < BLK_NKINDS)
			kinds->b[sp->behind[i].e.kind] += sp->behind[i].e.bytes;
}

static void fill_slow(struct sampler *s, struct sample *out, double now)
{
	if (!s->blk || !out->blk_on)
		return;
	watch_readers(s, now);
	for (size_t i = 0; i < out->ndisks; i++) {
		struct sampler_probe *sp = find_probe(s, out->disks[i].info.name);
		struct disk_sample *d = &out->disks[i];
		if (!sp)
			continue;
		behind_add(sp, &out->blk, now);
		d->slow.n = behind_top(s, out, sp, -INFINITY, INFINITY, d->slow.ahead, PROBE_AHEAD_MAX, &d->slow.total);
		slowest_of(s, out, sp, now, d);
		/* the after window's part, while its intervals are all kept */
		if (sp->cmp.state >= 1 && now <= sp->cmp.mono + 10.0 + out->interval_s) {
			behind_kinds(sp, sp->cmp.mono, sp->cmp.mono + 10.0, &sp->cmp.behind_after);
			d->cmp.behind_after = sp->cmp.behind_after;
		}
	}
}

int sampler_collect(struct sampler *s, struct sample *out, const struct pending_change *pend, size_t npend)
{
	if (s->replay) {
		if (replay_next(s->replay, out, s->replay_msg, sizeof s->replay_msg) != 1)
			return -ENODATA;
		replay_filter(s, out);
		return 0;
	}
	struct diskstats_table cur = {0};
	int rc = diskstats_read("/proc/diskstats", &cur);
	if (rc < 0)
		return rc;
	double now = util_mono_now();
	out->ts = util_real_now();
	out->mono = now;
	out->interval_s = s->prev_mono >= 0 ? now - s->prev_mono : 0;
	out->probe_rate_hz = s->cfg.probe_rate_hz;
	fill_header(out);
	/* at ts, as the disks' counters: the disks' scan and the probes'
	 * bookkeeping below can take a while on a loaded machine, and the
	 * page cache's figures move fast */
	writeback_read(&out->wb);

	rc = update_disks(s, now);
	if (rc == 0 && reserve(out, s->ndisks) < 0)
		rc = -ENOMEM;
	if (rc < 0) {
		diskstats_free(&cur);
		return rc;
	}
	notice_external(s, pend, npend, now, out->ts);
	sync_probes(s, s->disks, s->ndisks);
	poll_fresh(s); /* before the disks: a job that just ended counts in the switch comparison */
	fill_disks(s, &cur, s->disks, s->ndisks, now, pend, npend, out);
	diskstats_free(&s->prev);
	s->prev = cur;
	s->prev_mono = now;
	collect_procs(s, out);
	collect_blk(s, out);
	fill_slow(s, out, now);
	out->nevents = eventlog_take(&s->events, out->events, EVENTLOG_PENDING);
	out->nrecent = eventlog_recent(&s->events, out->recent, EVENTLOG_RECENT);
	return 0;
}

int sampler_list_disks(struct sampler *s, struct disk_info **out, size_t *n)
{
	return disk_scan(s->udev, out, n);
}

/* A switch ended: the 10 whole seconds before it began are the before
 * window (fewer when the probe is younger, or when a slow switch pushed
 * some out of the probe's 16 s memory); the after window starts now. */
static void compare_before(const struct sampler *s, struct sampler_probe *sp, const struct event *e)
{
	struct hist *h = malloc(sizeof *h);
	if (!h)
		return;
	int64_t now_sec = (int64_t)floor(e->mono);
	int64_t end = (int64_t)floor(e->mono - e->ms / 1e3) - 1;
	int64_t lo = end - 9;
	if (lo < now_sec - LATWIN_SLOTS + 1)
		lo = now_sec - LATWIN_SLOTS + 1;
	if ((double)lo < ceil(sp->started))
		lo = (int64_t)ceil(sp->started);
	uint64_t flagged = probe_window(sp->p, end, 10, h);
	struct switch_compare *c = &sp->cmp;
	memset(c, 0, sizeof *c);
	summarize(h, flagged, &c->before);
	c->before_s = end >= lo ? (double)(end - lo + 1) : 0;
	int half = (int)(c->before_s / 2);
	if (half >= 2) {
		flagged = probe_window(sp->p, end - half, half, h);
		summarize(h, flagged, &c->half1);
		flagged = probe_window(sp->p, end, half, h);
		summarize(h, flagged, &c->half2);
		c->half_s = half;
	}
	double began = e->mono - e->ms / 1e3;
	c->fresh_before_n = fresh_in(sp, began - 10, began, &c->fresh_before_ms);
	behind_kinds(sp, began - 10, began, &c->behind_before);
	c->state = 1;
	c->mono = e->mono;
	c->ts = e->ts;
	c->rate_hz = s->cfg.probe_rate_hz;
	util_strlcpy(c->from, e->from, sizeof c->from);
	util_strlcpy(c->to, e->to, sizeof c->to);
	free(h);
}

void sampler_post(struct sampler *s, const struct event *e)
{
	eventlog_add(&s->events, e);
	if (e->type == EV_IOPRIO && s->procs)
		procs_forget_ioprio(s->procs);
	if (e->type == EV_SCHEDULER && e->ok) {
		extswitch_note(&s->ext, e->disk, e->to);
		struct sampler_probe *sp = find_probe(s, e->disk);
		if (sp && sp->p) {
			compare_before(s, sp, e);
			probe_mark_change(sp->p);
		}
	}
}

void sampler_refresh_pending(struct sampler *s, struct sample *out, const struct pending_change *pend, size_t n)
{
	if (s->replay)
		return; /* the recording has the pending changes it saw */
	double now = util_mono_now();
	for (size_t i = 0; i < out->ndisks; i++) {
		memset(&out->disks[i].pending, 0, sizeof out->disks[i].pending);
		fill_pending(pend, n, now, &out->disks[i]);
	}
}

void sampler_hold_probe(struct sampler *s, const char *disk)
{
	util_strlcpy(s->held, disk ? disk : "", sizeof s->held);
}

void sampler_set_probe_rate(struct sampler *s, double hz)
{
	s->cfg.probe_rate_hz = hz;
	for (size_t i = 0; i < s->nprobes; i++)
		if (s->probes[i].p)
			probe_set_rate(s->probes[i].p, hz);
}

void sampler_free(struct sampler *s)
{
	extswitch_free(&s->ext);
	if (s->fresh.started)
		freshjob_cancel(&s->fresh);
	/* Tell every probe first, so their waits overlap. */
	for (size_t i = 0; i < s->nprobes; i++)
		probe_request_stop(s->probes[i].p);
	for (size_t i = 0; i < s->nprobes; i++) {
		probe_stop(s->probes[i].p);
		free(s->probes[i].behind);
	}
	free(s->probes);
	free(s->to_disk);
	procs_free(s->procs);
	replay_close(s->replay);
	stop_blk(s);
	blklat_close(s->blk);
	diskstats_free(&s->prev);
	free(s->disks);
	hotplug_close(s->hotplug);
	if (s->udev)
		udev_unref(s->udev);
	memset(s, 0, sizeof *s);
}

void sample_free(struct sample *smp)
{
	free(smp->disks);
	free(smp->procs);
	util_texts_free(&smp->texts);
	blk_reading_free(&smp->blk);
	memset(smp, 0, sizeof *smp);
}
