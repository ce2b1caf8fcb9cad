/* procgone: processes that ended, as rows of their own: the exit records
 * taken off taskstats' socket, settled (procexit.h) once /proc shows them
 * reaped, and shown for EXIT_LINGER refreshes. In thread mode the records
 * are only drained. */
#include "procparts.h"

#include <errno.h>
#include <string.h>

#include "bpf/blklat.h"
#include "read/taskstats.h"

static void take_exit(void *ctx, const struct ts_record *r, int tgid)
{
	struct procs *p = ctx;
	if (!tgid) /* the thread group's record has delays only */
		procexit_add(&p->px, r, util_mono_now());
}

/* The exit records that came, into p->px; in thread mode they are only
 * taken off the socket (rows are threads, the fallback is not needed). */
static void drain_exits(struct procs *p, int threads)
{
	if (!p->exits)
		return;
	int rc = threads ? taskstats_drain(p->exits, NULL, NULL) : taskstats_drain(p->exits, take_exit, p);
	if (rc == -ENOBUFS) {
		/* The socket is empty now, so every drop of this overflow has
		 * been counted; a later one says ENOBUFS again. */
		unsigned long dropped;
		p->exits_lost++;
		p->records_lost = taskstats_dropped(p->exits, &dropped) == 0 ? (long)dropped : -1;
	}
	if (threads) {
		procexit_free(&p->px);
		p->ngone = 0;
	}
}

/* After /proc was listed, a process missing from it has sent its exit
 * record by now: the records are read and settled against the two
 * listings. How many exit rows are settled. */
size_t procgone_settle(struct procs *p, int threads, struct procs_status *st)
{
	size_t nx = 0;
	drain_exits(p, threads);
	if (!threads) {
		/* at most one row per process waiting (out of memory: the rest
		 * wait for the next refresh) */
		util_grow((void **)&p->settled, &p->settled_cap, p->px.n, sizeof *p->settled);
		p->px.hz = p->hz;
		p->px.boot_off = util_boot_now() - util_mono_now();
		if (p->exits)
			nx = procexit_settle(&p->px, p->cur, p->ncur, p->prev, p->nprev, util_mono_now(), EXIT_STALE_S,
					     p->settled, p->settled_cap);
		procs_charge_reaped(p->prev, p->nprev, p->cur, p->ncur);
	}
	/* drain_exits just counted this refresh's drops: both counts of the
	 * line come from it (procwaits_status ran before it) */
	st->exits_lost = p->exits_lost;
	st->exit_records_lost = p->exits ? p->records_lost : -1;
	return nx;
}

/* One [exited] row per parent, user, cgroup and name: orphans share their
 * reaper as parent, and another user's process named as a victim's job
 * must not join its row (and add its bytes under the victim's name). */
static int same_group(const struct proc_row *a, const struct procexit_row *b, const char *cgroup)
{
	/* cgroups are kept once each: the same path is the same pointer */
	return a->ppid == b->ppid && a->uid == b->uid && a->cgroup == cgroup && strcmp(a->comm, b->comm) == 0;
}

/* The cgroup of a process that ended unseen, where the block layer saw it
 * issue requests: the one it issued them from (its parent's is a guess,
 * wrong for one that moved itself). x's own otherwise. */
static const char *issuer_cgroup(struct procs *p, const struct procs_blk *blk, const struct procexit_row *x,
				 enum proc_cgsrc *src)
{
	*src = x->cgroup_src;
	if (x->cgroup_src == CGSRC_LAST || !blk || !blk->r || !p->cg_on)
		return x->cgroup;
	const struct blk_proc *b = blklat_find_proc(blk->r, x->pid, x->start);
	const char *path = b && b->cgroup_id ? proccgroup_of_id(p, b->cgroup_id) : NULL;
	if (!path)
		return x->cgroup;
	*src = CGSRC_ISSUER;
	return path;
}

/* Processes that ended this interval become rows, one per command,
 * parent, user and cgroup (with a count), shown with the I/O of this
 * interval for EXIT_LINGER refreshes; older ones count down. */
void procgone_add(struct procs *p, size_t nx, double dt, const struct procs_blk *blk)
{
	const struct procexit_row *x = p->settled;
	size_t keep = 0;
	for (size_t i = 0; i < p->ngone; i++)
		if (p->gone[i].ended_ago + 1 < EXIT_LINGER) {
			p->gone[i].ended_ago++;
			p->gone[keep++] = p->gone[i];
		}
	p->ngone = keep;
	size_t first_new = p->ngone;
	/* (out of memory: a new one that joins no row of this refresh is
	 * left out, its I/O not shown) */
	util_grow((void **)&p->gone, &p->gone_cap, p->ngone + nx, sizeof *p->gone);
	for (size_t i = 0; i < nx; i++) {
		enum proc_cgsrc src;
		const char *cgroup = issuer_cgroup(p, blk, &x[i], &src);
		/* (one the listings saw is remembered by proccgroup_note_ended) */
		if (src != CGSRC_LAST)
			proccgroup_note_exit(p, x[i].pid, cgroup);
		struct proc_row *r = NULL;
		for (size_t k = first_new; k < p->ngone && !r; k++)
			if (same_group(&p->gone[k], &x[i], cgroup))
				r = &p->gone[k];
		if (!r) {
			if (p->ngone == p->gone_cap)
				continue;
			r = &p->gone[p->ngone++];
			memset(r, 0, sizeof *r);
			r->ppid = x[i].ppid;
			util_strlcpy(r->comm, x[i].comm, sizeof r->comm);
			r->exited = 1;
			r->io_readable = 1;
			r->ioprio = -1;
			r->wait = WAIT_OFF;
			r->state = 'X';
			/* the tool's own children (a switch, a fresh reader) are its own */
			r->kind = r->ppid == p->self ? PROC_SELF : procs_classify(r->comm, r->ppid, x[i].pid);
			r->uid = x[i].uid;
			r->user = procname_user(p, x[i].uid);
			r->cgroup = cgroup;
			r->cgroup_src = src;
		}
		r->pid = r->tid = x[i].pid; /* the last one's */
		r->start = x[i].start;
		r->count++;
		r->total.rbytes += x[i].last.rbytes;
		r->total.wbytes += x[i].last.wbytes;
		r->total.syscr += x[i].last.syscr;
		r->total.syscw += x[i].last.syscw;
		if (dt > 0) {
			r->read_Bps += (double)x[i].last.rbytes / dt;
			r->write_Bps += (double)x[i].last.wbytes / dt;
			r->read_calls += (double)x[i].last.syscr / dt;
			r->write_calls += (double)x[i].last.syscw / dt;
		}
		r->moved = r->read_Bps > 0 || r->write_Bps > 0 || r->read_calls > 0 || r->write_calls > 0;
	}
}
