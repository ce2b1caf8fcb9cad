/* procwalk: the tasks of a reading, who each is and its I/O counters:
 * from the kernel's task walk (taskiter.h) when it is loaded, else
 * libproc2's listing and a /proc/PID/io per task (procfiles.c). */
#include "procparts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libproc2/pids.h>

#include "bpf/taskiter.h"

/* libproc2 lists the tasks and their owners (a stat() of /proc/PID, cheap).
 * The per-task files are read here with tight parsers: through libproc2
 * its sscanf-based parsing of /proc/PID/io and stat cost 17 ms per refresh
 * with 1,000 processes on the build machine (measured), 1.7 % of a core
 * by itself, over this pane's whole budget. */
/* Not const only because procps_pids_new takes a plain pointer; never written. */
static enum pids_item items[] = {PIDS_ID_PID, PIDS_ID_TID, PIDS_ID_EUID, PIDS_ID_TGID};
enum { I_PID, I_TID, I_EUID, I_TGID };

int procwalk_open(struct procs *p)
{
	int rc = proc2_open(&p->lib);
	if (rc == 0)
		rc = proc2_pids_new(&p->lib, &p->info, items, sizeof items / sizeof items[0]);
	return rc;
}

/* One libproc2 row: who the task is (its I/O counters are read for all
 * rows at once, after). */
static void take(struct procs *p, const struct pids_stack *s, int threads, struct proc_seen *e, struct proc_row *r)
{
	const struct pids_info *info = p->info;
	(void)info; /* PIDS_VAL names it but does not use it */
	memset(r, 0, sizeof *r);
	memset(e, 0, sizeof *e);
	/* A thread's entry says its own id as PID: its process is TGID. */
	r->pid = threads ? PIDS_VAL(I_TGID, s_int, s, info) : PIDS_VAL(I_PID, s_int, s, info);
	r->tid = threads ? PIDS_VAL(I_TID, s_int, s, info) : r->pid;
	r->uid = PIDS_VAL(I_EUID, u_int, s, info);
	r->user = procname_user(p, r->uid);
	e->id = r->tid;
	e->ioprio = -1;
}

/* Room for this many rows. */
int procwalk_rows_room(size_t want, struct proc_row **rows, size_t *cap)
{
	if (*cap < want) {
		struct proc_row *r = realloc(*rows, want * sizeof *r);
		if (!r)
			return -ENOMEM;
		*rows = r;
		*cap = want;
	}
	return 0;
}

/* Room for this many tasks (the exit rows are made room for once known). */
static int make_room(struct procs *p, size_t total, struct proc_row **rows, size_t *cap)
{
	if (procseen_reserve(p, total) < 0)
		return -ENOMEM;
	return procwalk_rows_room(total, rows, cap);
}

static int seen_by_id(const void *a, const void *b)
{
	const struct proc_seen *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/* One entry and its row from a task of the walk; counters from the task
 * alone (a thread, or a leader before its threads are added). */
static void from_task(struct procs *p, const struct task_info *k, int threads, struct proc_seen *e, struct proc_row *r)
{
	memset(r, 0, sizeof *r);
	memset(e, 0, sizeof *e);
	r->pid = k->tgid;
	r->tid = threads ? k->tid : k->tgid;
	r->uid = k->euid;
	r->user = procname_user(p, k->euid);
	e->id = r->tid;
	e->ioprio = -1;
	e->readable = 1;
	e->ppid = k->ppid;
	e->state = k->state;
	e->nice = k->nice;
	e->start = p->hz > 0 ? k->start_ns / (1000000000ull / (unsigned long long)p->hz) : 0; /* as /proc: ticks */
	util_strlcpy(e->comm, k->comm, sizeof e->comm);
	/* PF_WQ_WORKER: /proc names a kworker after its work ("-writeback") */
	e->from_walk = k->pf & 0x20 ? 2 : 1;
	e->c.rbytes = k->rbytes;
	e->c.wbytes = k->wbytes;
	e->c.syscr = k->syscr;
	e->c.syscw = k->syscw;
	if (!threads) { /* what /proc/PID/io adds: the group's ended threads */
		e->c.rbytes += k->dead_rbytes;
		e->c.wbytes += k->dead_wbytes;
		e->c.syscr += k->dead_syscr;
		e->c.syscw += k->dead_syscw;
	}
}

/* The entries and rows of this reading from the kernel's task walk: per
 * thread, or per process (its leader's entry with every thread's
 * counters added, as /proc/PID/io sums them). Returns how many, or a
 * negative errno. */
static ssize_t take_from_iter(struct procs *p, int threads, struct proc_row **rows, size_t *cap)
{
	const struct task_info *tasks;
	size_t nt;
	int rc = taskiter_read(p->iter, &tasks, &nt);
	if (rc < 0)
		return rc;
	if (make_room(p, nt, rows, cap) < 0)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < nt; i++) {
		if (!threads && tasks[i].tid != tasks[i].tgid)
			continue; /* a thread: added to its leader below */
		from_task(p, &tasks[i], threads, &p->cur[n], &(*rows)[n]);
		n++;
	}
	for (size_t i = 0; !threads && i < nt; i++) {
		if (tasks[i].tid == tasks[i].tgid)
			continue;
		struct proc_seen key = {.id = tasks[i].tgid};
		struct proc_seen *lead = n ? bsearch(&key, p->cur, n, sizeof key, seen_by_id) : NULL;
		if (!lead)
			continue; /* its leader is not in this walk (it is being reaped) */
		lead->c.rbytes += tasks[i].rbytes;
		lead->c.wbytes += tasks[i].wbytes;
		lead->c.syscr += tasks[i].syscr;
		lead->c.syscw += tasks[i].syscw;
	}
	return (ssize_t)n;
}

void procwalk_prepare(struct procs *p)
{
	if (p->iter_want && !p->iter_tried && ++p->readings > 2) {
		p->iter_tried = 1;
		if (taskiter_open(&p->iter, p->iter_why, sizeof p->iter_why) == 0)
			p->iter_why[0] = '\0';
	}
}

/* The tasks, their owners and counters: from the kernel's walk when it is
 * loaded (procwalk_prepare), else libproc2's listing and a /proc/PID/io
 * per task. Returns how many, or a negative errno. */
ssize_t procwalk_take_all(struct procs *p, int threads, struct proc_row **rows, size_t *cap)
{
	if (p->iter) {
		ssize_t n = take_from_iter(p, threads, rows, cap);
		if (n >= 0) {
			/* libproc2's tables of every task are not needed now, nor
			 * the library (see proc2.h) */
			if (p->info)
				proc2_pids_unref(&p->lib, &p->info);
			p->info = NULL;
			proc2_close(&p->lib);
			return n;
		}
		util_fmt(p->iter_why, sizeof p->iter_why, "the task walk failed: %s", strerror((int)-n));
		taskiter_close(p->iter);
		p->iter = NULL;
	}
	if (!p->info && proc2_open(&p->lib) < 0)
		return -ENOENT;
	if (!p->info && proc2_pids_new(&p->lib, &p->info, items, sizeof items / sizeof items[0]) < 0)
		return -ENOMEM;
	struct pids_fetch *f = proc2_pids_reap(&p->lib, p->info, threads ? PIDS_FETCH_THREADS_TOO : PIDS_FETCH_TASKS_ONLY);
	if (!f)
		return -errno ? -errno : -EIO;
	size_t total = (size_t)f->counts->total;
	if (make_room(p, total, rows, cap) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < total; i++)
		take(p, f->stacks[i], threads, &p->cur[i], &(*rows)[i]);
	/* An unreadable /proc/PID/io is told apart from a real 0 here. */
	procfiles_read_io_all(p, threads, *rows, p->cur, total);
	return (ssize_t)total;
}
