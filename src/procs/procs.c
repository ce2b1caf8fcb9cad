/* procs: see include/procs/procs.h; the reader's parts: procparts.h.
 * Here: the reader made and freed, and a reading's rows made. */
#include "procs/procs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "procparts.h"
#include "base/timedread.h"
#include "bpf/taskiter.h"
#include "read/taskstats.h"

int procs_new(struct procs **out)
{
	struct procs *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	int rc = procwalk_open(p);
	if (rc < 0) {
		proc2_close(&p->lib);
		free(p);
		return rc;
	}
	procwaits_open(p);
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY)
		p->io_max = nofile.rlim_cur > PROCS_IO_FDS_SPARE ? nofile.rlim_cur - PROCS_IO_FDS_SPARE : 0;
	else
		p->io_max = IO_FDS_MAX;
	if (p->io_max > IO_FDS_MAX)
		p->io_max = IO_FDS_MAX;
	p->hz = sysconf(_SC_CLK_TCK);
	p->self = getpid();
	*out = p;
	return 0;
}

void procs_use_iter(struct procs *p, int on)
{
	p->iter_want = on;
	if (on && !p->iter_tried)
		util_strlcpy(p->iter_why, "starting (from the third refresh)", sizeof p->iter_why);
	if (!on) {
		taskiter_close(p->iter);
		p->iter = NULL;
		p->iter_tried = 0;
		util_strlcpy(p->iter_why, "not asked for", sizeof p->iter_why);
	}
}

void procs_free(struct procs *p)
{
	if (!p)
		return;
	if (p->info)
		proc2_pids_unref(&p->lib, &p->info);
	proc2_close(&p->lib);
	taskstats_close(p->ts);
	taskstats_unlisten(p->exits);
	procexit_free(&p->px);
	free(p->settled);
	free(p->gone);
	free(p->to_disk);
	procseen_let_go(p, p->prev, p->nprev);
	free(p->prev);
	free(p->cur);
	taskiter_close(p->iter);
	util_texts_free(&p->user_texts);
	free(p->users);
	proccgroup_free(p);
	timedread_free(p->tr);
	free(p->tri);
	free(p->tri_text);
	free(p);
}

static int counters_moved(const struct proc_seen *old, const struct proc_seen *e)
{
	return old && (old->c.rbytes != e->c.rbytes || old->c.wbytes != e->c.wbytes || old->c.syscr != e->c.syscr ||
		       old->c.syscw != e->c.syscw);
}

/* Whether e's stat line is read in this reading: only for new tasks and
 * tasks that did I/O: their state and nice may have changed, and a new
 * start time means a reused pid. The others keep what was read before. */
static int wants_stat(const struct proc_seen *old, const struct proc_seen *e)
{
	return e->from_walk != 1 && (!old || counters_moved(old, e));
}

/* The stat lines this reading wants, read in batches before the rows are
 * made (procfiles_read_stats: a task whose files do not answer is given
 * up on, not waited for). */
static void read_stats(struct procs *p, int threads, const struct proc_row *rows, size_t n)
{
	struct procfiles_want want[PROCS_READ_CHUNK];
	size_t k = 0, next_cur = 0, next_prev = 0;
	for (size_t i = 0; i < n; i++) {
		struct proc_seen *e = procseen_lookup_next(p->cur, p->ncur, &next_cur, rows[i].tid);
		if (e && wants_stat(procseen_lookup_next(p->prev, p->nprev, &next_prev, rows[i].tid), e))
			want[k++] = (struct procfiles_want){.r = &rows[i], .e = e};
		if (k == PROCS_READ_CHUNK || (i + 1 == n && k)) {
			procfiles_read_stats(p, threads, want, k);
			k = 0;
		}
	}
}

/* What read_stats read for e (wants_stat), else what its previous
 * reading had. */
static void refresh_stat(int moved, const struct proc_seen *old, struct proc_seen *e)
{
	if (e->from_walk == 1)
		return; /* all of it fresh from the task walk */
	if (e->from_walk == 2 && old && !moved) {
		/* a workqueue worker that did nothing: its name as last read */
		memcpy(e->comm, old->comm, sizeof e->comm);
		return;
	}
	if ((!old || moved) && e->stat_ok)
		return; /* fresh: state, nice, ppid, start as they are now */
	if (old) {
		e->start = old->start;
		e->ppid = old->ppid;
		e->state = old->state;
		e->nice = old->nice;
		memcpy(e->comm, old->comm, sizeof e->comm);
	}
}

/* A task born since the last reading did all its I/O in this interval
 * (its counters start at 0 at fork): without this, what a short-lived
 * writer (dpkg's unpacker) wrote before it was first seen was charged to
 * no one. One tick of slack: start times are in ticks. */
static int born_since(const struct procs *p, const struct reading *rd, const struct proc_seen *old,
		      const struct proc_seen *e)
{
	return (!old || old->start != e->start) && p->prev_up > 0 && e->start > 0 &&
	       (double)e->start / rd->hz >= p->prev_up - 1.0 / rd->hz;
}

/* Row r from its task's reading e and the one before, old (NULL: new). */
static void fill_row(struct procs *p, const struct reading *rd, struct proc_seen *e, struct proc_seen *old,
		     struct proc_row *r, struct procs_status *st)
{
	int moved = counters_moved(old, e);
	refresh_stat(moved, old, e);
	procseen_carry(old, e);
	proccgroup_fill(p, rd, old, e, moved, r);
	struct proc_seen born = {.start = e->start};
	int newborn = born_since(p, rd, old, e);
	if (newborn)
		memset(&e->base, 0, sizeof e->base);
	r->ppid = e->ppid;
	r->state = e->state;
	r->nice = e->nice;
	r->start = e->start;
	util_strlcpy(r->comm, e->comm, sizeof r->comm);
	/* The tool's children carry its probe reads and its switches. */
	r->kind = r->pid == p->self || r->ppid == p->self ? PROC_SELF : procs_classify(r->comm, r->ppid, r->pid);
	r->io_readable = e->readable;
	if (!r->io_readable)
		st->unreadable++;
	r->moved = (old && old->start == e->start && moved) ||
		   (newborn && (e->c.rbytes || e->c.wbytes || e->c.syscr || e->c.syscw));
	if (rd->wait_known)
		procwaits_query(p, rd->threads, e, old, r);
	if (e->ioprio < 0 || r->moved)
		e->ioprio = procprio_read(r->tid);
	r->ioprio = e->ioprio;
	/* A newborn's bytes count from 0; its waits do not: a share of the
	 * interval it lived only part of would read low. */
	procs_rates(old ? old : newborn ? &born : NULL, e, rd->interval_s, rd->wait_known && old, r);
	/* A kernel thread that writes does so for others (writeback,
	 * journal), whatever work item its name shows right now. */
	if (r->kind == PROC_NORMAL && (r->ppid == 2 || r->pid == 2) && r->write_Bps > 0)
		r->kind = PROC_WRITEBACK;
	r->partial = rd->delayacct_since > 0 && (double)r->start / rd->hz < rd->delayacct_since;
	if (r->partial && r->wait != WAIT_OK && r->wait != WAIT_OFF)
		r->wait = WAIT_BEFORE;
	/* lives until let_go, after the next reading */
	if (procs_row_notable(r))
		procname_from(p, e, r);
	else
		r->cmdline = e->cmdline;
}

int procs_collect(struct procs *p, int threads, double interval_s, double delayacct_since, const struct procs_blk *blk,
		  struct proc_row **rows, size_t *n, size_t *cap, struct procs_status *st)
{
	/* The rows' command lines may be freed from here on. */
	*n = 0;
	if (threads != p->threads) {
		procseen_let_go(p, p->prev, p->nprev);
		p->nprev = 0; /* ids change meaning: start afresh */
		p->threads = threads;
	}
	/* Since boot, as start times are (CLOCK_BOOTTIME, what /proc/uptime
	 * reads): a clock, not a file to open and parse every refresh. */
	procwalk_prepare(p);
	/* this refresh's reads of /proc wait for tasks held in execve about
	 * TIMEDREAD_BUDGET_S in all, then only briefly (timedread.h); the
	 * names read after it, for rows shown, count in the same refresh */
	if (!p->tr)
		p->tr = timedread_new(TIMEDREAD_PATIENCE_S);
	if (p->tr)
		timedread_deadline(p->tr, util_mono_now() + TIMEDREAD_BUDGET_S);
	double up = util_boot_now();
	unsigned long given_up0 = p->tr ? timedread_given_up(p->tr) : 0;
	p->io_skipped = 0;
	ssize_t got = procwalk_take_all(p, threads, rows, cap);
	if (got < 0) {
		if (blk && blk->r)
			procblk_totals(p, blk, NULL, 0); /* the writes count even so */
		return (int)got;
	}
	size_t total = (size_t)got;
	procwaits_status(p, threads, st);
	/* /proc's counters are divided by the time between this walk and the
	 * last, not by the tick's interval: a walk that starts late in one
	 * tick (behind a slow /proc, a cgroup walk) put part of one second's
	 * I/O into the next (39 then 61 MB/s for a steady 50). */
	double walk_s = p->prev_up > 0 && up > p->prev_up ? up - p->prev_up : interval_s;
	st->walk_s = walk_s;
	struct reading rd = {.threads = threads, .interval_s = walk_s, .delayacct_since = delayacct_since,
			     .hz = p->hz > 0 ? (double)p->hz : 100.0, .wait_known = st->taskstats && st->delayacct, .up = up};
	/* The new readings; rows keep the listing's order and find their
	 * entry by id. */
	p->ncur = total;
	procseen_sort_current(p);
	size_t nx = procgone_settle(p, threads, st);
	read_stats(p, threads, *rows, total);
	st->stuck = p->tr ? timedread_stuck(p->tr, st->stuck_pid, PROCS_STUCK_NAMED) : 0;
	/* (reads given up on whose tasks answered again by now are not
	 * stuck, but their rows have no figures all the same) */
	st->given_up = p->tr ? timedread_given_up(p->tr) - given_up0 : 0;
	if (p->io_skipped > st->given_up)
		st->given_up = p->io_skipped; /* skipped for a read stuck since an earlier refresh */
	size_t next_cur = 0, next_prev = 0;
	for (size_t i = 0; i < total; i++) {
		struct proc_row *r = &(*rows)[i];
		fill_row(p, &rd, procseen_lookup_next(p->cur, p->ncur, &next_cur, r->tid),
			 procseen_lookup_next(p->prev, p->nprev, &next_prev, r->tid), r, st);
	}
	/* Processes that ended: after the live ones, for the sort to place. */
	if (!threads && p->exits) {
		procgone_add(p, nx, walk_s, blk);
		if (p->ngone && procwalk_rows_room(total + p->ngone, rows, cap) == 0) {
			memcpy(*rows + total, p->gone, p->ngone * sizeof **rows);
			total += p->ngone;
		}
	}
	*n = total;
	proccgroup_note_ended(p);
	procseen_keep_as_previous(p, up);
	/* after: procs_name finds the tasks of this reading in p->prev */
	procblk_fill(p, blk, threads, interval_s, rows, n, cap);
	proccgroup_forget(p, *rows, *n); /* last: the rows are among what points at paths */
	return 0;
}
