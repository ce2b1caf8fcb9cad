/* procexit: see src/procs/procexit.h */
#include "procexit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static struct procexit_proc *find(struct procexit *x, int pid)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i].pid == pid)
			return &x->v[i];
	return NULL;
}

static void add_counters(struct proc_counters *a, const struct proc_counters *b)
{
	a->rbytes += b->rbytes;
	a->wbytes += b->wbytes;
	a->syscr += b->syscr;
	a->syscw += b->syscw;
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* Slack on a start time's bounds, seconds. Below: a listing's start is in
 * whole ticks (up to one early), and the kernel reads the clock for a
 * record a moment before it sends it, which can fall before the listener
 * last found the socket empty (a task preempted between the two). Above:
 * none is needed (the record is read after the clock was; a tick rounds
 * down), but for the sums' rounding. */
#define START_SLACK_S 0.25
#define START_ROUND_S 0.002

/* The entry of r's process: pid's, whose start bounds meet r's. The
 * records of one process all bound its one start; a process that got the
 * pid after it ended started after its end: the two are told apart unless
 * the first lived less than the slack (an unprivileged user cannot get a
 * pid back that fast: the pids must wrap). */
static struct procexit_proc *entry_of(struct procexit *x, int pid, double lo, double hi)
{
	for (size_t i = 0; i < x->n; i++) {
		struct procexit_proc *e = &x->v[i];
		if (e->pid == pid && lo - START_SLACK_S <= e->start_hi + START_ROUND_S &&
		    e->start_lo - START_SLACK_S <= hi + START_ROUND_S)
			return e;
	}
	return NULL;
}

static struct procexit_proc *new_entry(struct procexit *x, int pid, double lo, double hi, double now)
{
	if (util_grow((void **)&x->v, &x->cap, x->n + 1, sizeof *x->v) < 0)
		return NULL;
	struct procexit_proc *e = &x->v[x->n++];
	memset(e, 0, sizeof *e);
	e->pid = pid;
	e->since = now;
	e->start_lo = lo;
	e->start_hi = hi;
	return e;
}

static void name_from(struct procexit_proc *e, const struct ts_record *r)
{
	e->ppid = (int)r->ppid;
	e->uid = r->uid;
	util_strlcpy(e->comm, r->comm, sizeof e->comm);
}

int procexit_add(struct procexit *x, const struct ts_record *r, double now)
{
	/* Before version 12 there is no tgid: each record is taken as a
	 * process of its own (right for single-threaded ones). */
	int pid = (int)(r->tgid ? r->tgid : r->pid);
	double age = (double)r->age_us / 1e6;
	/* Its process started its age before its task ended. */
	double lo = r->ended_after - age, hi = r->read_at - age;
	struct procexit_proc *e = entry_of(x, pid, lo, hi);
	if (!e) {
		if (!(e = new_entry(x, pid, lo, hi, now)))
			return -ENOMEM;
	} else {
		e->start_lo = lo > e->start_lo && lo <= e->start_hi ? lo : e->start_lo;
		e->start_hi = hi < e->start_hi && hi >= e->start_lo ? hi : e->start_hi;
	}
	struct proc_counters c = {.rbytes = r->read_bytes, .wbytes = r->write_bytes, .syscr = r->read_syscalls,
				  .syscw = r->write_syscalls};
	add_counters(&e->own, &c);
	if ((int)r->pid == pid) {
		name_from(e, r);
		e->named = 1;
	}
	/* The process is over with its last task's record, which need not be
	 * the leader's: a main thread can end before its workers. */
	if (r->group_last && !e->complete) {
		if (!e->named) /* no leader's record (lost, or still to come): a thread has the same parent and user */
			name_from(e, r);
		e->complete = 1;
		e->order = ++x->next;
	}
	return 0;
}

static int by_id(const void *a, const void *b)
{
	return ((const struct proc_seen *)a)->id - ((const struct proc_seen *)b)->id;
}

static const struct proc_seen *seen_in(const struct proc_seen *arr, size_t n, int id)
{
	struct proc_seen key = {.id = id};
	return n ? bsearch(&key, arr, n, sizeof *arr, by_id) : NULL;
}

/* seen_in for an array the caller may change */
static struct proc_seen *seen(struct proc_seen *arr, size_t n, int id)
{
	return (struct proc_seen *)seen_in(arr, n, id);
}

/* Whether listed s is e's process: e's pid, and a start that can be e's.
 * The listing's start is on the boot clock, e's bounds on the monotonic
 * one, which stops while the machine is suspended: on the boot clock a
 * process started at least as late as on the monotonic one, and at most
 * the whole time suspended so far later. Without a start (not read) the
 * pid decides. */
static int is_listed_as(const struct procexit *x, const struct procexit_proc *e, const struct proc_seen *s)
{
	if (x->hz <= 0 || !s->start)
		return 1;
	double t = (double)s->start / (double)x->hz;
	return t >= e->start_lo - START_SLACK_S && t - x->boot_off <= e->start_hi + START_ROUND_S;
}

/* e's process in a listing, or NULL. */
static struct proc_seen *listed(const struct procexit *x, struct proc_seen *arr, size_t n,
				const struct procexit_proc *e)
{
	struct proc_seen *s = seen(arr, n, e->pid);
	return s && is_listed_as(x, e, s) ? s : NULL;
}

/* The reaped ones first, in completion order. */
static int by_reaped_order(const void *a, const void *b)
{
	const struct procexit_proc *x = a, *y = b;
	if (x->reaped != y->reaped)
		return y->reaped - x->reaped;
	return (x->order > y->order) - (x->order < y->order);
}

/* Mark the complete entries gone from cur, and put them first in
 * completion order (one sort: a scan for the next one per row was
 * quadratic in a burst of thousands). How many. */
static size_t order_reaped(struct procexit *x, struct proc_seen *cur, size_t ncur)
{
	size_t n = 0;
	for (size_t i = 0; i < x->n; i++) {
		struct procexit_proc *e = &x->v[i];
		e->reaped = e->complete && !listed(x, cur, ncur, e);
		n += (size_t)e->reaped;
	}
	if (n)
		qsort(x->v, x->n, sizeof *x->v, by_reaped_order);
	return n;
}

static void drop(struct procexit *x, struct procexit_proc *e)
{
	*e = x->v[--x->n];
}

/* The cgroup of an exited process that no listing saw: the one it was
 * forked into, its parent's as last read; a parent that ended unseen too
 * (cc1 under gcc under make) has its own parent's. NULL: none known. The
 * parent's entry of this reading has no cgroup yet: the last one's. */
static const char *cgroup_above(struct procexit *x, int ppid, struct proc_seen *prev, size_t nprev)
{
	/* (init forks nothing into its own cgroup; a process under it is an
	 * orphan it reaps, which it did not fork: its cgroup is not known) */
	for (int depth = 0; depth < 8 && ppid > 1; depth++) {
		const struct proc_seen *pp = seen(prev, nprev, ppid);
		if (pp)
			return pp->cgroup;
		const struct procexit_proc *pe = find(x, ppid);
		if (!pe || !pe->complete)
			return NULL;
		ppid = pe->ppid;
	}
	return NULL;
}

/* e's start in ticks as the listings count them, where its bounds fall in
 * one tick; else 0 (unknown). */
static unsigned long long tick_of(const struct procexit *x, const struct procexit_proc *e)
{
	if (x->hz <= 0 || e->start_hi + x->boot_off < 0)
		return 0;
	double lo = (e->start_lo + x->boot_off) * (double)x->hz, hi = (e->start_hi + x->boot_off) * (double)x->hz;
	return lo >= 0 && (unsigned long long)lo == (unsigned long long)hi ? (unsigned long long)hi : 0;
}

/* How far up the parents a reaper is looked for. */
#define ANCESTORS_MAX 16

/* Whether listed a's counters moved since its last reading (in prev, the
 * same process) by at least what it was already given as reaped this
 * interval and jump: what a process that reaped one with that jump shows. */
static int moved_by(const struct proc_seen *a, const struct proc_seen *prev, size_t nprev,
		    const struct proc_io *jump)
{
	const struct proc_seen *old = seen_in(prev, nprev, a->id);
	if (!old || old->start != a->start)
		return 0;
	struct proc_io had = procexit_reaped_now(a);
	return minus(a->c.rbytes, old->c.rbytes) >= had.rbytes + jump->rbytes &&
	       minus(a->c.wbytes, old->c.wbytes) >= had.wbytes + jump->wbytes &&
	       minus(a->c.syscr, old->c.syscr) >= had.syscr + jump->syscr &&
	       minus(a->c.syscw, old->c.syscw) >= had.syscw + jump->syscw;
}

/* The parent of id as last known: listed now, at the last reading, or as
 * an exited entry; -1 unknown. */
static int parent_of(struct procexit *x, int id, const struct proc_seen *cur, size_t ncur,
		     const struct proc_seen *prev, size_t nprev)
{
	const struct proc_seen *s = seen_in(cur, ncur, id);
	if (!s)
		s = seen_in(prev, nprev, id);
	if (s)
		return s->ppid;
	const struct procexit_proc *pe = x ? find(x, id) : NULL;
	return pe ? pe->ppid : -1;
}

void procexit_reaped_above(struct procexit *x, int ppid, int folded, const struct proc_io *jump,
			   struct proc_seen *cur, size_t ncur, const struct proc_seen *prev, size_t nprev)
{
	int id = parent_of(x, ppid, cur, ncur, prev, nprev), init_seen = 0;
	for (int depth = 0; depth < ANCESTORS_MAX && id > 0; depth++) {
		struct proc_seen *a = seen(cur, ncur, id);
		if (a && folded)
			folded = 0; /* the fold brings it the jump */
		else if (a && moved_by(a, prev, nprev, jump))
			procexit_reaped_add(a, jump);
		init_seen |= id == 1;
		id = parent_of(x, id, cur, ncur, prev, nprev);
	}
	/* the namespace's init reaps what has no subreaper above it, also
	 * where the line of parents is not known to the top */
	struct proc_seen *init = init_seen ? NULL : seen(cur, ncur, 1);
	if (init && moved_by(init, prev, nprev, jump))
		procexit_reaped_add(init, jump);
}

/* One reaped process: its last interval, and its jump to its parent. */
static void settle_one(struct procexit *x, struct procexit_proc *e, struct proc_seen *cur, size_t ncur,
		       struct proc_seen *prev, size_t nprev, struct procexit_row *row)
{
	struct proc_seen *old = listed(x, prev, nprev, e);
	struct proc_counters last = e->own, jump;
	if (old) {
		/* Its own I/O at the last reading: that reading less what it had
		 * reaped (exact when we saw all its children go). */
		struct proc_io cum = procexit_reaped_cum(old);
		struct proc_counters own0 = {minus(old->c.rbytes, cum.rbytes), minus(old->c.wbytes, cum.wbytes),
					     minus(old->c.syscr, cum.syscr),   minus(old->c.syscw, cum.syscw), 0, 0};
		last.rbytes = minus(e->own.rbytes, own0.rbytes);
		last.wbytes = minus(e->own.wbytes, own0.wbytes);
		last.syscr = minus(e->own.syscr, own0.syscr);
		last.syscw = minus(e->own.syscw, own0.syscw);
		jump = old->c;
		old->settled = 1;
	} else {
		memset(&jump, 0, sizeof jump);
	}
	add_counters(&jump, &last);
	add_counters(&jump, &e->folded);
	row->pid = e->pid;
	row->start = old ? old->start : tick_of(x, e);
	row->ppid = e->ppid;
	row->uid = e->uid;
	util_strlcpy(row->comm, e->comm, sizeof row->comm);
	row->last = last;
	row->cgroup = old && old->cgroup ? old->cgroup : cgroup_above(x, e->ppid, prev, nprev);
	row->cgroup_src = !row->cgroup ? CGSRC_UNKNOWN : old && old->cgroup ? CGSRC_LAST : CGSRC_PARENT;
	/* its parent when it ended; or, if a listing saw it as a zombie since,
	 * as listed then: a parent that ends hands its zombies to a reaper */
	int ppid = old && old->state == 'Z' ? old->ppid : e->ppid;
	struct proc_seen *parent = seen(cur, ncur, ppid);
	struct procexit_proc *pe = parent ? NULL : find(x, ppid);
	struct proc_io by = procread_io_of(&jump);
	if (parent) {
		procexit_reaped_add(parent, &by);
		return;
	}
	/* The parent ended too. If it reaped this one first, the jump is in
	 * its own, to its parent: folded into its entry. If not, the kernel
	 * gave this one to a reaper above it (the nearest subreaper, or init),
	 * whose counters jumped when it reaped it; which of the two is not
	 * known, so every listed ancestor that moved by the jump, but the
	 * one the fold brings it to, has it taken out (one that reaped
	 * something else loses at most that much of its own I/O for an
	 * interval; left in, the reaper, often root's init, would show the
	 * child's writes as its own). */
	int fold = pe && pe != e;
	if (fold)
		add_counters(&pe->folded, &jump);
	procexit_reaped_above(x, ppid, fold, &by, cur, ncur, prev, nprev);
}

size_t procexit_settle(struct procexit *x, struct proc_seen *cur, size_t ncur, struct proc_seen *prev, size_t nprev,
		       double now, double stale_s, struct procexit_row *out, size_t max)
{
	size_t n = order_reaped(x, cur, ncur);
	if (n > max)
		n = max; /* a full out leaves the rest for the next call, not dropped */
	/* A child's jump may fold into its parent's entry further on (it
	 * completed after); a settled one is not looked at again. */
	for (size_t i = 0; i < n; i++)
		settle_one(x, &x->v[i], cur, ncur, prev, nprev, &out[i]);
	if (n)
		memmove(x->v, x->v + n, (x->n - n) * sizeof *x->v);
	x->n -= n;
	/* A process whose last task's record never came (lost in an overflow)
	 * would wait for ever: once it is gone from /proc and old, let go. */
	struct procexit_proc *e;
	for (size_t i = 0; i < x->n;) {
		e = &x->v[i];
		if (!e->complete && now - e->since > stale_s && !listed(x, cur, ncur, e))
			drop(x, e);
		else
			i++;
	}
	return n;
}

void procexit_free(struct procexit *x)
{
	free(x->v);
	memset(x, 0, sizeof *x);
}

int procexit_reaped_add(struct proc_seen *e, const struct proc_io *by)
{
	if (!e->reaped && !(e->reaped = calloc(1, sizeof *e->reaped)))
		return -ENOMEM;
	procread_io_add(&e->reaped->children, by);
	procread_io_add(&e->reaped->cum, by);
	return 0;
}

struct proc_io procexit_reaped_now(const struct proc_seen *e)
{
	return e->reaped ? e->reaped->children : (struct proc_io){0};
}

struct proc_io procexit_reaped_cum(const struct proc_seen *e)
{
	return e->reaped ? e->reaped->cum : (struct proc_io){0};
}

void procexit_free_reaped(struct proc_seen *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].reaped);
		a[i].reaped = NULL;
	}
}
