/* sampleblk: the BPF part in the sampler (sampleparts.h): loaded by a
 * thread of its own, then read once a tick, before the process rows are
 * made. The figures it gives a row (block requests, TO-DISK and its
 * totals, writers that ended) are set where the row is made
 * (src/procs/procblk.c); the disks' unattributed bytes here. */
#include "model/sample.h"

#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "sampleparts.h"
#include "base/util.h"

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
void sampleblk_stop(struct sampler *s)
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

/* The interval's reading into out->blk, taken right after the disks'
 * counters: the rows' TO-DISK is compared with the disks' writes, and a
 * loop device's writeback completes in bursts, so a reading taken after
 * the disk scan and the probes' bookkeeping (hundreds of ms on a loaded
 * machine) put a burst in the rows' interval and the disks' next one.
 * Whether there is one to use: not while the program loads, nor at the
 * first reading after (the baseline), nor when it fails. */
int sampleblk_take(struct sampler *s, struct sample *out)
{
	int ready = blk_ready(s);
	out->blk_on = ready;
	out->blk.unattributed = out->blk.untimed = out->blk.uncounted = 0; /* until a reading says otherwise */
	util_strlcpy(out->blk_why, s->blk && !ready ? "starting (figures from the next refresh)" : s->blk_why,
		     sizeof out->blk_why);
	out->blk_stage = blklat_owner_stage(s->blk);
	if (!s->blk)
		return 0;
	if (blklat_read(s->blk, &out->blk) < 0 || !ready) {
		out->blk.nstats = out->blk.nprocs = out->blk.nreqs = out->blk.nunattr = out->blk.ntops = 0;
		return 0;
	}
	return 1;
}

/* The bytes st's process wrote to the loop devices whose file is on
 * st's disk (the sampler's disks: shown or not); -1 when none of the
 * sampler's loop devices is on it (nothing to hold st's figure to). */
static int64_t written_above(const struct sampler *s, const struct sample *out, const struct blk_stat *st)
{
	int64_t sum = -1;
	for (size_t k = 0; k < s->ndisks; k++) {
		const struct disk_info *d = &s->disks[k];
		if (d->kind != DISK_LOOP || strcmp(d->below, st->disk) != 0)
			continue;
		sum = sum < 0 ? 0 : sum;
		for (size_t i = 0; i < out->blk.nstats; i++) {
			const struct blk_stat *a = &out->blk.stats[i];
			if (a->op == BLK_WRITE && a->tgid == st->tgid && a->start == st->start && !strcmp(a->disk, d->name))
				sum += (int64_t)a->bytes;
		}
	}
	return sum;
}

/* A request on the disk under a loop device is marked as the same bytes
 * as the loop device's when its first page came down from it; bytes the
 * filesystem under the file adds to the same request (ext4 zeroes the
 * rest of an unwritten extent of a preallocated backing file, up to 32
 * KiB, merged behind the data) are not those bytes. So a process's bytes
 * marked so on a disk are held to what it wrote to the loop devices on
 * it in the interval, and the rest are its own writes there (its writes,
 * each byte once, grow by them; TO-DISK counts them at that disk anyway). */
static void settle_stacked(const struct sampler *s, struct sample *out)
{
	for (size_t i = 0; i < out->blk.nstats; i++) {
		struct blk_stat *st = &out->blk.stats[i];
		if (st->op != BLK_WRITE || !st->stacked_bytes)
			continue;
		int64_t above = written_above(s, out, st);
		if (above < 0 || st->stacked_bytes <= (uint64_t)above)
			continue;
		uint64_t extra = st->stacked_bytes - (uint64_t)above;
		st->stacked_bytes = (uint64_t)above;
		struct blk_proc *b = (struct blk_proc *)blklat_find_proc(&out->blk, st->tgid, st->start);
		if (b) {
			b->bytes[BLK_WRITE] += extra;
			b->to_disk_bytes += extra; /* (as read, until sample_settle_to_disk) */
		}
	}
}

/* The taken reading settled on the disks (once they are filled), before
 * the process rows are made (procs_collect gives them its figures). */
int sampleblk_settle(const struct sampler *s, struct sample *out, int taken)
{
	for (size_t i = 0; i < out->ndisks; i++) {
		struct disk_sample *d = &out->disks[i];
		d->nwaiting = 0; /* until a reading says otherwise */
		d->blk_unattributed = 0;
	}
	if (!taken)
		return 0;
	settle_stacked(s, out);
	sample_settle_waiting(out);
	sample_settle_to_disk(out);
	for (size_t i = 0; i < out->ndisks; i++) {
		struct disk_sample *d = &out->disks[i];
		for (size_t k = 0; k < out->blk.nunattr; k++)
			if (!strcmp(out->blk.unattr[k].disk, d->info.name))
				d->blk_unattributed = out->blk.unattr[k].bytes;
	}
	return 1;
}

void sampleblk_first(struct sampler *s)
{
	if (!(s->cfg.bpf_first_s > 0) || s->blk_tried)
		return;
	start_blk(s);
	double end = util_mono_now() + s->cfg.bpf_first_s;
	while (s->blk_tried == 1 && __atomic_load_n(&s->blk_loader->state, __ATOMIC_ACQUIRE) == LOADING &&
	       util_mono_now() < end)
		util_sleep_until(util_mono_now() + 0.005);
	blk_ready(s); /* taken now (if loaded): the next reading counts */
	struct blk_reading base = {0};
	if (s->blk)
		blklat_read(s->blk, &base); /* the baseline, as the diskstats' that follows */
	blk_reading_free(&base);
}

/* Loading starts after the first sample's rows are made: verifying the
 * program takes tens of ms of CPU, which the first sample must not wait
 * for. */
void sampleblk_start(struct sampler *s, struct sample *out)
{
	if (s->blk_tried)
		return;
	start_blk(s);
	util_strlcpy(out->blk_why, s->blk_why, sizeof out->blk_why);
}
