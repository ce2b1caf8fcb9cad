/* sample: see include/model/sample.h */
#include "model/sample.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <libudev.h>

#include "read/hotplug.h"
#include "model/replay.h"
#include "sampleparts.h"
#include "base/util.h"

int sampler_new(struct sampler **out, const struct sampler_config *cfg)
{
	struct sampler *s = calloc(1, sizeof *s);
	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->cfg = *cfg;
	s->prev_mono = -1;
	s->udev = udev_new();
	if (!s->udev) {
		free(s);
		return -ENOMEM;
	}
	if (hotplug_open(s->udev, &s->hotplug) < 0)
		s->hotplug = NULL; /* then every refresh enumerates */
	*out = s;
	return 0;
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
	sampleblk_first(s); /* before the baseline below: both begin the first interval */
	int rc = diskstats_read("/proc/diskstats", &s->prev);
	if (rc < 0)
		return rc;
	s->prev_mono = util_mono_now();
	/* The processes' first reading too, so the first interval has rates. */
	if (s->cfg.procs && open_procs(s) == 0) {
		struct proc_row *rows = NULL;
		size_t n = 0, cap = 0;
		struct procs_status st;
		procs_collect(s->procs, s->cfg.threads, 0, s->cfg.delayacct_since, NULL, &rows, &n, &cap, &st);
		free(rows);
	}

	/* Probes start now, so the first interval has their samples too. */
	if (sampledisks_update(s, util_mono_now()) == 0)
		sampleprobes_sync(s, s->disks, s->ndisks);
	return 0;
}

/* The process rows, every figure set as they are made: the BPF part's
 * too, from its reading (blk: whether out->blk is one). */
static void collect_procs(struct sampler *s, struct sample *out, int blk)
{
	out->have_procs = 0;
	out->top_writer = -1;
	out->write_MBps = samplefigs_to_disks_MBps(out);
	out->top_disk = samplefigs_top_disk(out);
	out->dirty_MBps = 0;
	if (!s->cfg.procs)
		return;
	if (open_procs(s) < 0)
		return;
	procs_use_cgroups(s->procs, sampler_reads_cgroups(s));
	struct procs_blk pb = {.r = blk ? &out->blk : NULL, .mono = out->mono};
	if (procs_collect(s->procs, s->cfg.threads, out->interval_s, s->cfg.delayacct_since, &pb, &out->procs,
			  &out->nprocs, &out->procs_cap, &out->pstat) == 0) {
		out->have_procs = 1;
		out->top_writer = samplefigs_top_writer(out);
		out->dirty_MBps = samplefigs_dirtying_MBps(out);
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

/* A replay shows the disks --disk names, as a live run would. */
static void replay_filter(const struct sampler *s, struct sample *out)
{
	size_t k = 0;
	int top = -1;
	for (size_t i = 0; i < out->ndisks; i++) {
		if (!sampledisks_wanted(s, out->disks[i].info.name))
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
		out->write_MBps = samplefigs_to_disks_MBps(out);
		out->top_disk = samplefigs_top_disk(out);
	}
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
		if (!sampledisks_shown(s, &disks[i])) {
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
		struct sampler_probe *sp = sampleprobes_find(s, disks[i].name);
		if (sp)
			sampleprobes_read(s, sp, now, d);
		else
			sampleprobes_unprobed(s, &disks[i], &d->probe_st);
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
		if (sampledisks_wanted(s, ev[i].disk))
			sampler_post(s, &ev[i]);
}

int sampler_collect(struct sampler *s, struct sample *out, const struct pending_change *pend, size_t npend)
{
	if (s->replay) {
		if (replay_next(s->replay, out, s->replay_msg, sizeof s->replay_msg) != 1)
			return -ENODATA;
		replay_filter(s, out);
		/* what a unit's reads waited behind is watched live, not recorded */
		out->unit_behind = (struct unit_behind){0};
		util_strlcpy(out->unit_behind.path, s->unit.path, sizeof out->unit_behind.path);
		if (s->unit.path[0])
			util_strlcpy(out->unit_behind.why, "not recorded: watched only while a live run shows the unit",
				     sizeof out->unit_behind.why);
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
	int taken = sampleblk_take(s, out); /* with the disks' counters: its bytes are compared with theirs */
	out->probe_rate_hz = s->cfg.probe_rate_hz;
	fill_header(out);
	/* at ts, as the disks' counters: the disks' scan and the probes'
	 * bookkeeping below can take a while on a loaded machine, and the
	 * page cache's figures move fast */
	writeback_read(&out->wb);

	rc = sampledisks_update(s, now);
	if (rc == 0 && reserve(out, s->ndisks) < 0)
		rc = -ENOMEM;
	if (rc < 0) {
		diskstats_free(&cur);
		return rc;
	}
	notice_external(s, pend, npend, now, out->ts);
	sampleprobes_sync(s, s->disks, s->ndisks);
	sampleprobes_poll_fresh(s); /* before the disks: a job that just ended counts in the switch comparison */
	fill_disks(s, &cur, s->disks, s->ndisks, now, pend, npend, out);
	diskstats_free(&s->prev);
	s->prev = cur;
	s->prev_mono = now;
	collect_procs(s, out, sampleblk_settle(s, out, taken));
	samplecgroups_fill(s, out);
	sampleblk_start(s, out);
	samplebehind_fill(s, out, now);
	out->nevents = eventlog_take(&s->events, out->events, EVENTLOG_PENDING);
	out->nrecent = eventlog_recent(&s->events, out->recent, EVENTLOG_RECENT);
	return 0;
}

int sampler_list_disks(struct sampler *s, struct disk_info **out, size_t *n)
{
	/* the sampler's own list brought up to date, not a walk of its own:
	 * a walk reads every disk's udev data and a dozen sysfs files, and
	 * the checks at start, the sweep and the first sample each walked
	 * (a third of `-b -n 1`'s time on 20 block devices) */
	int rc = sampledisks_update(s, util_mono_now());
	if (rc < 0)
		return rc;
	*out = malloc((s->ndisks ? s->ndisks : 1) * sizeof **out);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, s->disks, s->ndisks * sizeof **out);
	*n = s->ndisks;
	return 0;
}

void sampler_post(struct sampler *s, const struct event *e)
{
	eventlog_add(&s->events, e);
	if (e->type == EV_IOPRIO && s->procs)
		procs_forget_ioprio(s->procs);
	if (e->type == EV_SCHEDULER && e->ok) {
		extswitch_note(&s->ext, e->disk, e->to);
		struct sampler_probe *sp = sampleprobes_find(s, e->disk);
		if (sp && sp->p) {
			sampleprobes_compare_before(s, sp, e);
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

void sampler_free(struct sampler *s)
{
	if (!s)
		return;
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
	procs_free(s->procs);
	samplecgfiles_free(s);
	free(s->unit.w);
	replay_close(s->replay);
	sampleblk_stop(s);
	blklat_close(s->blk);
	diskstats_free(&s->prev);
	free(s->disks);
	hotplug_close(s->hotplug);
	if (s->udev)
		udev_unref(s->udev);
	free(s);
}

void sample_free(struct sample *smp)
{
	free(smp->disks);
	free(smp->procs);
	free(smp->cgroups);
	util_texts_free(&smp->texts);
	blk_reading_free(&smp->blk);
	memset(smp, 0, sizeof *smp);
}
