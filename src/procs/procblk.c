/* procblk: the block layer's figures on a row as it is made (procparts.h):
 * its requests' counts, bytes and latencies, TO-DISK and its running
 * total, the kind of a kernel thread that wrote (journal or writeback),
 * the disk it used most, and rows of their own for writers that ended
 * before their pages were written. From the BPF part's reading of the
 * interval (blklat.h), which the sampler takes before the rows are made. */
#include "procparts.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/blklat.h"

/* Whether b wrote in the reading: at the top of a stack or at its
 * bottom (a write on a loop device in one interval reaches the disk under
 * it in the next, and TO-DISK counts it there). */
static int wrote(const struct blk_proc *b)
{
	return b->bytes[BLK_WRITE] || b->to_disk_bytes;
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
 * mode onto the main thread's row, as they are the whole process's.
 * Whether b has a row (its pid's, started when it did), and whether its
 * pid is listed at all (pid_listed). */
static int has_row(const struct blk_reading *blk, const struct proc_row *rows, size_t n, const struct blk_proc *b,
		   int *pid_listed)
{
	*pid_listed = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i].pid == b->tgid) {
			*pid_listed = 1;
			if (blklat_find_proc(blk, b->tgid, rows[i].start) == b)
				return 1;
		}
	return 0;
}

/* The cgroup of a writer that ended, with no /proc to read now: the one
 * it dirtied the pages in (the BPF part's id: right even when no listing
 * saw it, or it moved there after its parent's last reading), else the
 * one it was last seen in, if it was. */
static void gone_cgroup(struct procs *p, uint64_t cgroup_id, struct proc_row *r)
{
	r->cgroup = proccgroup_of_id(p, cgroup_id);
	r->cgroup_src = CGSRC_DIRTIER;
	if (!r->cgroup) {
		r->cgroup = proccgroup_last(p, r->pid);
		r->cgroup_src = r->cgroup ? CGSRC_LAST : CGSRC_UNKNOWN;
	}
}

/* A process that dirtied pages and ended before they were written: its
 * writeback is charged to it (blklat.bpf.c), under an [exited] row of its
 * own name, as long as its pages are being written (its figures are then
 * filled as any row's). Also when its pid is listed as another process's
 * (a later start): that one did not write them. A pid alive but not
 * listed is taken for the writer's. */
static void add_gone_writers(struct procs *p, const struct procs_blk *blk, struct proc_row **rows, size_t *n,
			     size_t *cap)
{
	for (size_t i = 0; i < blk->r->nprocs; i++) {
		const struct blk_proc *b = &blk->r->procs[i];
		int listed;
		if (!wrote(b) || has_row(blk->r, *rows, *n, b, &listed) || (!listed && kill(b->tgid, 0) == 0))
			continue;
		if (util_grow((void **)rows, cap, *n + 1, sizeof **rows) < 0)
			return;
		struct proc_row *r = &(*rows)[(*n)++];
		/* It has ended: its own reads and writes this interval are 0,
		 * known, not unknown (a null would stop a sum of the rows). */
		*r = (struct proc_row){.pid = b->tgid, .tid = b->tgid, .start = b->start, .state = 'X', .ioprio = -1,
				       .exited = 1, .count = 1, .moved = 1, .io_readable = 1};
		r->user = "-";
		if (b->dirtier_comm[0])
			util_strlcpy(r->comm, b->dirtier_comm, sizeof r->comm);
		else
			util_fmt(r->comm, sizeof r->comm, "pid %d", b->tgid);
		gone_cgroup(p, b->dirtier_cgroup_id, r);
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
	const struct procs_to_disk *x = a, *y = b;
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* The running total of the process tgid that started at start, among
 * the first n (sorted); by blklat_find_proc's rule for starts. */
static struct procs_to_disk *find_total_in(struct procs *p, size_t n, int tgid, unsigned long long start)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->to_disk[mid].tgid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	struct procs_to_disk *found = NULL;
	for (size_t i = lo; i < n && p->to_disk[i].tgid == tgid; i++)
		if (blklat_same_start(p->to_disk[i].start, start))
			found = &p->to_disk[i]; /* (as blklat_find_proc: the latest, for an unknown start) */
	return found;
}

static struct procs_to_disk *find_total(struct procs *p, int tgid, unsigned long long start)
{
	return find_total_in(p, p->nto_disk, tgid, start);
}

void procblk_totals(struct procs *p, const struct procs_blk *blk, const struct proc_row *rows, size_t n)
{
	size_t n0 = p->nto_disk;
	for (size_t i = 0; i < blk->r->nprocs; i++) {
		const struct blk_proc *b = &blk->r->procs[i];
		if (!b->to_disk_bytes)
			continue;
		struct procs_to_disk *t = find_total_in(p, n0, b->tgid, b->start);
		if (!t && util_grow((void **)&p->to_disk, &p->to_disk_cap, p->nto_disk + 1, sizeof *t) == 0) {
			t = &p->to_disk[p->nto_disk++];
			*t = (struct procs_to_disk){.tgid = b->tgid, .start = b->start};
		}
		if (t) {
			t->bytes += b->to_disk_bytes;
			t->last = blk->mono;
		}
	}
	if (p->nto_disk > n0)
		qsort(p->to_disk, p->nto_disk, sizeof *p->to_disk, by_tgid);
	for (size_t i = 0; i < n; i++) { /* a listed process stays */
		struct procs_to_disk *t = rows[i].tid == rows[i].pid ? find_total(p, rows[i].pid, rows[i].start) : NULL;
		if (t)
			t->last = blk->mono;
	}
	size_t w = 0; /* (dropping keeps the order) */
	for (size_t k = 0; k < p->nto_disk; k++)
		if (blk->mono - p->to_disk[k].last < 600)
			p->to_disk[w++] = p->to_disk[k];
	p->nto_disk = w;
}

/* Row r's block-layer figures from the reading. */
static void fill_one(struct procs *p, const struct blk_reading *blk, double interval_s, struct proc_row *r)
{
	const struct blk_proc *b = r->tid == r->pid ? blklat_find_proc(blk, r->pid, r->start) : NULL;
	for (int op = 0; op < 2; op++) {
		r->blk_n[op] = b ? b->n[op] : 0;
		r->blk_bytes[op] = b ? b->bytes[op] : 0;
		r->blk_p50_ns[op] = b ? b->p50_ns[op] : 0;
		r->blk_p99_ns[op] = b ? b->p99_ns[op] : 0;
	}
	if (b) /* its requests make it notable: the reading named the others */
		procs_name(p, r);
	/* An ended process whose pages are written after the interval it
	 * ended in: its row is this interval's again, for those bytes
	 * alone (its own I/O was counted when it ended). */
	if (r->exited && r->ended_ago && b && wrote(b)) {
		r->ended_ago = 0;
		r->read_Bps = r->write_Bps = r->read_calls = r->write_calls = 0;
		r->count = 0; /* none ended in this interval: a sum of counts counts each once */
	}
	/* An ended process's cgroup taken from its parent is a guess: the one
	 * it dirtied its pages in, as the block layer noted it, is known (a
	 * writer that moved itself into a unit, then ended unseen, had its
	 * writeback put on its parent's unit). */
	if (r->exited && b && b->dirtier_cgroup_id && (r->cgroup_src == CGSRC_PARENT || r->cgroup_src == CGSRC_UNKNOWN)) {
		const char *path = proccgroup_of_id(p, b->dirtier_cgroup_id);
		if (path) {
			r->cgroup = path;
			r->cgroup_src = CGSRC_DIRTIER;
		}
	}
	/* a thread's requests are its process's (the BPF part keys by process) */
	/* on the disks the header's total counts (sample_settle_to_disk) */
	r->to_disk_Bps = r->tid != r->pid ? -1 : interval_s > 0 && b ? (double)b->to_disk_bytes / interval_s : 0;
	const struct procs_to_disk *t = r->tid == r->pid ? find_total(p, r->pid, r->start) : NULL;
	r->to_disk_total = t ? t->bytes : 0;
	r->kind = writer_kind(r, b, blk);
	r->disk = b ? blklat_top_disk(blk, r->pid) : NULL;
	int64_t paused = r->tid == r->pid ? blklat_throttled_ns(blk, r->pid) : -1;
	r->throttled_pct = paused < 0 ? -1 : interval_s > 0 ? (double)paused / (interval_s * 1e9) * 100.0 : 0;
}

void procblk_fill(struct procs *p, const struct procs_blk *blk, int threads, double interval_s,
		  struct proc_row **rows, size_t *n, size_t *cap)
{
	if (!blk || !blk->r) {
		for (size_t i = 0; i < *n; i++) {
			(*rows)[i].to_disk_Bps = -1; /* not known */
			(*rows)[i].throttled_pct = -1;
			(*rows)[i].disk = NULL;
		}
		return;
	}
	if (!threads)
		add_gone_writers(p, blk, rows, n, cap);
	procblk_totals(p, blk, *rows, *n);
	for (size_t i = 0; i < *n; i++)
		fill_one(p, blk->r, interval_s, &(*rows)[i]);
}
