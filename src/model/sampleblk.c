/* sampleblk: the BPF part in the sampler: loaded by a thread of its own,
 * then each reading's block figures onto the process rows, TO-DISK with
 * its totals, and writers that ended (sampleparts.h). */
#include "model/sample.h"

#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <signal.h>
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

void sampleblk_collect(struct sampler *s, struct sample *out)
{
	int ready = blk_ready(s);
	out->blk_on = ready;
	out->blk.unattributed = out->blk.untimed = out->blk.uncounted = 0; /* until a reading says otherwise */
	for (size_t i = 0; out->have_procs && i < out->nprocs; i++) {
		out->procs[i].to_disk_Bps = -1; /* not known, until the reading below */
		out->procs[i].disk = NULL;
	}
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
		r->disk = b ? blklat_top_disk(&out->blk, r->pid) : NULL;
	}
}
