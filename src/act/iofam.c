/* iofam: see iofam.h */
#include "iofam.h"
#include "iofork.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/timedread.h"
#include "base/util.h"
#include "procs/procs.h"

#define IOPRIO_WHO_PROCESS 1
#define CHAIN_MAX 256 /* parents walked up from a process: deeper trees are not real */

/* A field of /proc/PID/status ("Uid:", "CapEff:"): its first word, as
 * a number in base; 0, or -ESRCH when gone or absent. */
static int status_field(int pid, const char *name, int base, unsigned long long *out)
{
	char path[64], text[4096], key[32];
	util_fmt(path, sizeof path, "/proc/%d/status", pid);
	util_fmt(key, sizeof key, "\n%s", name);
	if (util_read_text(path, text, sizeof text) < 0)
		return -ESRCH;
	const char *f = strstr(text, key);
	char *end;
	if (!f)
		return -ESRCH;
	*out = strtoull(f + strlen(key), &end, base);
	return end == f + strlen(key) ? -ESRCH : 0;
}

/* Whether pid could set the realtime I/O class itself: CAP_SYS_ADMIN or
 * CAP_SYS_NICE in its effective set, in the tool's own user namespace (a
 * process in one of its own, `unshare -U`, shows every capability, but
 * they count only there). Unreadable: it could. */
static int can_take_rt(int pid)
{
	char path[64];
	struct stat mine, its;
	unsigned long long eff;
	util_fmt(path, sizeof path, "/proc/%d/ns/user", pid);
	if (stat("/proc/self/ns/user", &mine) < 0 || stat(path, &its) < 0 || status_field(pid, "CapEff:", 16, &eff) < 0)
		return 1;
	if (mine.st_ino != its.st_ino || mine.st_dev != its.st_dev)
		return 0;
	return (eff >> 21 & 1) || (eff >> 23 & 1);
}

int iofam_uid(int pid, unsigned *uid)
{
	unsigned long long v;
	if (status_field(pid, "Uid:", 10, &v) < 0)
		return -ESRCH;
	*uid = (unsigned)v;
	return 0;
}

/* iofam_start, read through tr (procs_read_stats: -ETIMEDOUT for a task
 * held in execve) */
static int start_through(struct timedread *tr, int pid, unsigned long long *start)
{
	struct proc_seen e;
	int rc;
	procs_read_stats(tr, &pid, 1, &e, &rc);
	if (rc < 0)
		return rc;
	*start = e.start;
	return 0;
}

int iofam_start(int pid, unsigned long long *start)
{
	return start_through(NULL, pid, start);
}

unsigned long long iofam_ticks_now(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (unsigned long long)ts.tv_sec * (unsigned long long)hz +
	       (unsigned long long)ts.tv_nsec / (1000000000ULL / (unsigned long long)hz);
}

/* Whether thread tid of pid still runs: an ended thread (a main thread
 * that called pthread_exit stays a zombie while the others run) has no
 * I/O priority that counts. From status, not stat: status does not wait
 * on a task held in execve. */
static int thread_live(int pid, int tid)
{
	char path[64], text[4096];
	util_fmt(path, sizeof path, "/proc/%d/task/%d/status", pid, tid);
	const char *s = util_read_text(path, text, sizeof text) < 0 ? NULL : strstr(text, "\nState:");
	if (!s)
		return 0;
	s += strspn(s + 7, " \t") + 7;
	return *s && *s != 'Z' && *s != 'X';
}

static DIR *open_tasks(int pid)
{
	char dir[64];
	util_fmt(dir, sizeof dir, "/proc/%d/task", pid);
	return opendir(dir);
}

int iofam_threads_differ(int pid, long *prio, long *its)
{
	DIR *d = open_tasks(pid);
	if (!d)
		return -1;
	struct dirent *e;
	int apart = 0, seen = 0;
	while (!apart && (e = readdir(d))) {
		int tid = atoi(e->d_name);
		long v = tid > 0 && thread_live(pid, tid) ? syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, tid) : -1;
		if (v < 0)
			continue;
		if (!seen++)
			*prio = v;
		else if (v != *prio) {
			apart = tid;
			*its = v;
		}
	}
	closedir(d);
	return seen ? apart : -1;
}

/* What one pass over a process's threads saw. */
struct pass {
	int at_value;  /* threads found at the value (and set back) */
	int vanished;  /* threads listed that ended before they were read or set */
	int kept;      /* live threads at another value (their owner's) */
	int n;         /* threads listed */
	unsigned long long sig; /* of the listed tids: two passes alike list the same threads */
};

/* One pass over pid's threads: each set to prio, or with only >= 0 just
 * those whose priority is that value now (an undo). 0 or a negative errno
 * (-ESRCH: no such process). */
static int set_threads(int pid, int prio, long only, struct pass *p)
{
	DIR *d = open_tasks(pid);
	memset(p, 0, sizeof *p);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		int tid = atoi(e->d_name);
		if (tid <= 0)
			continue;
		p->n++;
		p->sig = p->sig * 1000003ULL + (unsigned long long)tid;
		if (only >= 0 && !thread_live(pid, tid)) {
			/* A main thread that ended stays a zombie while the
			 * others run: nothing to set, for good. Any other thread
			 * that ended was listed as one passed on to a new one,
			 * perhaps with the value, after the listing: not settled. */
			p->vanished += tid != pid;
			continue;
		}
		long v = only >= 0 ? syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, tid) : only;
		if (only >= 0 && v != only) {
			if (v < 0 || !thread_live(pid, tid))
				p->vanished++;
			else if (v != prio)
				p->kept++; /* neither the tool's value nor the one put back: its owner's */
			continue;
		}
		p->at_value++;
		if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, tid, prio) == 0)
			continue;
		if (errno == ESRCH)
			p->vanished++;
		else
			rc = -errno;
	}
	closedir(d);
	return rc;
}

int iofam_set(int pid, int prio)
{
	struct pass p;
	int rc = set_threads(pid, prio, -1, &p);
	return rc < 0 ? rc : p.at_value > p.vanished ? 0 : -ESRCH;
}

struct snap {
	int pid;
	long v;
};

/* Every process but skip, with its main thread's I/O priority now. */
/* One process's live threads into the snapshot (every thread: one whose
 * process's main thread has ended shares a context as well). */
static void snap_threads(int pid, struct snap **t, size_t *cap, size_t *n)
{
	DIR *d = open_tasks(pid);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		int tid = atoi(e->d_name);
		long v = tid > 0 ? syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, tid) : -1;
		if (v >= 0 && util_grow((void **)t, cap, *n + 1, sizeof **t) == 0)
			(*t)[(*n)++] = (struct snap){tid, v};
	}
	if (d)
		closedir(d);
}

/* Every thread of every process but skip, with its I/O priority now. */
static struct snap *snap_read(int skip, size_t *n)
{
	DIR *d = opendir("/proc");
	size_t cap = 0;
	struct snap *t = NULL;
	struct dirent *e;
	*n = 0;
	while (d && (e = readdir(d))) {
		int p = atoi(e->d_name);
		if (p > 0 && p != skip)
			snap_threads(p, &t, &cap, n);
	}
	if (d)
		closedir(d);
	return t;
}

int iofam_set_alone(int pid, int prio, int before, int *sharer)
{
	size_t n;
	struct snap *was = snap_read(pid, &n);
	int rc = iofam_set(pid, prio);
	*sharer = 0;
	for (size_t i = 0; rc == 0 && i < n && !*sharer; i++)
		if (was[i].v != prio && syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, was[i].pid) == prio)
			*sharer = was[i].pid;
	free(was);
	if (*sharer) {
		iofam_set(pid, before); /* the sharer's goes back with it: one context */
		return -EBUSY;
	}
	return rc;
}

/* Undo on one process until two passes in a row list the same threads,
 * all alive, none at the value: a thread started while a pass ran (by
 * one not yet set back) inherited the value and would show in the next
 * listing. 0 (*any: some thread was at the value), or a negative errno;
 * -EAGAIN after IOFAM_PASSES (threads that keep replacing themselves). */
static int undo_threads(int pid, int prio, int applied, int *kept, int *any)
{
	struct pass last = {.n = -1};
	for (int i = 0; i < IOFAM_PASSES; i++) {
		struct pass p;
		int rc = set_threads(pid, prio, applied, &p);
		if (rc < 0)
			return rc;
		*kept = p.kept;
		*any |= p.at_value > 0;
		int clean = !p.at_value && !p.vanished;
		if (clean && last.n == p.n && last.sig == p.sig)
			return 0;
		last = clean ? p : (struct pass){.n = -1};
	}
	return -EAGAIN;
}

struct fam_proc {
	int pid, ppid;
	unsigned long long start;
	int at_value; /* started since the change, and a thread had the value when listed */
};

static int by_pid(const void *a, const void *b)
{
	const struct fam_proc *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int has_value(int pid, int applied);

/* Every process now, sorted by pid, those started since (t) with a
 * thread at applied marked; NULL on no memory. A process held in execve
 * (its stat does not answer; its other threads are gone by then) is left
 * out, unless a thread of it is at applied: then its pid in *held (it
 * cannot be placed in the family). A stat that could not be read for
 * want of the reader (too many held, no memory, no thread): *err. */
static struct fam_proc *table_read(const struct iofam_target *tg, int applied, size_t *n, int *held, int *err)
{
	size_t np;
	int *pids = iofork_list_pids(&np), *rc = calloc(np ? np : 1, sizeof *rc);
	struct proc_seen *st = calloc(np ? np : 1, sizeof *st);
	struct fam_proc *t = calloc(np ? np : 1, sizeof *t);
	*n = 0;
	if (!pids || !rc || !st || !t) {
		free(t);
		t = NULL;
		np = 0;
	}
	/* the stat lines in batches: one wait on the reader a batch, not a
	 * process (a round must be quick beside a fork storm) */
	procs_read_stats(tg->tr, pids, np, st, rc);
	for (size_t i = 0; i < np; i++) {
		if (rc[i] == -ETIMEDOUT && has_value(pids[i], applied)) /* every live thread: not its stat */
			*held = pids[i];
		else if (rc[i] < 0 && rc[i] != -ETIMEDOUT && rc[i] != -ESRCH)
			*err = rc[i];
		if (rc[i] == 0)
			t[(*n)++] = (struct fam_proc){.pid = pids[i], .ppid = st[i].ppid, .start = st[i].start,
						      .at_value = st[i].start >= tg->since && has_value(pids[i], applied)};
	}
	free(pids);
	free(rc);
	free(st);
	if (t)
		qsort(t, *n, sizeof *t, by_pid);
	return t;
}

static const struct fam_proc *table_find(const struct fam_proc *t, size_t n, int pid)
{
	struct fam_proc key = {.pid = pid};
	return bsearch(&key, t, n, sizeof *t, by_pid);
}

/* Whether p, started since the change, descends from the process (alive:
 * its pid is still its own). */
static int descends(const struct fam_proc *tab, size_t n, const struct fam_proc *p, const struct iofam_target *t)
{
	if (!t->alive || p->pid == t->pid || p->start < t->since)
		return 0;
	/* Every process between it and the process started since the change
	 * too: one from before has its own value, which p may have from it. */
	const struct fam_proc *q = p;
	for (int step = 0; q && q->ppid > 1 && step < CHAIN_MAX; step++) {
		if (q->ppid == t->pid)
			return 1;
		q = table_find(tab, n, q->ppid);
		if (q && q->start < t->since)
			return 0;
	}
	return 0;
}

/* Whether a live thread of pid has the value (every thread: they may
 * have three values or more). */
static int has_value(int pid, int applied)
{
	DIR *d = open_tasks(pid);
	if (!d)
		return 0;
	struct dirent *e;
	int found = 0;
	while (!found && (e = readdir(d))) {
		int tid = atoi(e->d_name);
		found = tid > 0 && syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, tid) == applied && thread_live(pid, tid);
	}
	closedir(d);
	return found;
}

/* Whether the owner's: its real uid is the changed process's owner's,
 * not root. */
static int owners(int pid, const struct iofam_target *t)
{
	unsigned uid;
	return t->uid != 0 && iofam_uid(pid, &uid) == 0 && uid == t->uid;
}

/* Whether an ancestor of p has the value now and explains p's: one that
 * started before the change, or another owner's (another change of the
 * same value, or its own parent's class). An owner's ancestor started
 * since is a stray itself, explained by nothing. */
static int ancestor_has(const struct fam_proc *tab, size_t n, const struct fam_proc *p, const struct iofam_target *t,
			int applied)
{
	const struct fam_proc *q = p;
	for (int step = 0; q && q->ppid > 1 && step < CHAIN_MAX; step++) {
		const struct fam_proc *up = table_find(tab, n, q->ppid);
		if (syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, q->ppid) == applied &&
		    (!up || up->start < t->since || !owners(q->ppid, t)))
			return 1;
		q = up;
	}
	return 0;
}

/* A realtime value on p, started since the change, outside the family
 * tree, nor had from an ancestor that explains it: it came from
 * somewhere, most likely the change through a double fork, a setuid
 * program (sg, su to oneself) or a change of user. 1 when it is the
 * process's owner's (put back, whatever capabilities a setuid program
 * gave it), 2 when another's that could not have taken the class itself
 * (named, not touched: it cannot be told from a class another change
 * gave), else 0. */
static int stray(const struct fam_proc *tab, size_t n, const struct fam_proc *p, const struct iofam_target *t,
		 int applied)
{
	if (applied >> 13 != 1 || p->pid == t->pid || p->start < t->since || descends(tab, n, p, t) ||
	    !has_value(p->pid, applied) || ancestor_has(tab, n, p, t, applied))
		return 0;
	if (owners(p->pid, t))
		return 1;
	return can_take_rt(p->pid) ? 0 : 2;
}

static int seen_add(int **pids, int *n, int pid)
{
	for (int i = 0; i < *n; i++)
		if ((*pids)[i] == pid)
			return 0;
	int *more = realloc(*pids, (size_t)(*n + 1) * sizeof **pids);
	if (!more)
		return 0;
	*pids = more;
	more[(*n)++] = pid;
	return 1;
}

/* The last pid the kernel gave out in this pid namespace (the last field
 * of /proc/loadavg), or -1. */
static int last_pid(void)
{
	char text[128];
	if (util_read_text("/proc/loadavg", text, sizeof text) < 0)
		return -1;
	const char *p = strrchr(text, ' ');
	return p ? atoi(p + 1) : -1;
}

/* Whether pid, not looked at in tab, started since the change and has a
 * thread at the value now. */
static int unseen_at_value(int pid, int rc, const struct proc_seen *s, const struct iofam_target *t, int applied,
			   const struct fam_proc *tab, size_t n)
{
	if (rc == -ETIMEDOUT) /* held in execve: cannot be placed; settled only if no thread is at the value */
		return has_value(pid, applied);
	if (rc < 0 && rc != -ESRCH)
		return 1; /* not read (the reader is full or short): not settled */
	if (rc < 0 || s->start < t->since)
		return 0; /* gone: a child it had comes later in the range */
	const struct fam_proc *was = table_find(tab, n, pid);
	if (was && was->start == s->start)
		return 0;
	/* only what a round would act on (a descendant, a stray): another's
	 * process at the same value, forking away, is none of this undo's */
	struct fam_proc p = {.pid = pid, .ppid = s->ppid, .start = s->start, .at_value = 1};
	return (descends(tab, n, &p, t) && has_value(pid, applied)) || stray(tab, n, &p, t, applied);
}

#define NEW_PIDS_CHUNK 256

/* The pids after *from up to to, at most NEW_PIDS_CHUNK and *left, one
 * batch of their stat lines read: how many are at the value. */
static int new_chunk(const struct iofam_target *t, int applied, const struct fam_proc *tab, size_t n, int *from, int to,
		     uint64_t most, int *left)
{
	int pids[NEW_PIDS_CHUNK] = {0}, rc[NEW_PIDS_CHUNK] = {0}, at = 0;
	struct proc_seen *st = calloc(NEW_PIDS_CHUNK, sizeof *st);
	size_t k = 0;
	while (*from != to && k < NEW_PIDS_CHUNK && *left > 0) {
		*from = (uint64_t)*from + 1 >= most ? 1 : *from + 1;
		pids[k++] = *from;
		(*left)--;
	}
	if (!st)
		return 1; /* cannot tell: not settled */
	procs_read_stats(t->tr, pids, k, st, rc);
	for (size_t j = 0; j < k; j++)
		at += unseen_at_value(pids[j], rc[j], &st[j], t, applied, tab, n);
	free(st);
	return at;
}

#define NEW_PIDS_MAX 65536 /* given out while a round ran: more is a fork storm */

/* After a round whose listing found nothing at the value: processes
 * given pids after from (the last pid before the listing) and not in
 * its table, at the value. A listing of /proc shows nothing started
 * after it reached its end, so one that ended meanwhile (a chain of
 * short processes, each forking the next) can hand the value to a child
 * it never shows; every such child has a pid given out since, checked
 * here one by one until no new pid comes. The count; 0: the round
 * holds. After a pid wrap the order is lost (a known limit). */
static int new_at_value(const struct iofam_target *t, int applied, const struct fam_proc *tab, size_t n, int from)
{
	uint64_t most = 4194304;
	int at = 0, left = NEW_PIDS_MAX;
	util_read_u64("/proc/sys/kernel/pid_max", &most);
	for (int to = last_pid(); from >= 0 && to >= 0 && from != to; to = last_pid()) {
		while (from != to && left > 0)
			at += new_chunk(t, applied, tab, n, &from, to, most, &left);
		if (left <= 0)
			return 1;
	}
	return from < 0 || last_pid() < 0 ? 1 : at;
}

/* One round over /proc: the family's processes set back (descendants,
 * and strays of the owner); strays of others noted in out. The number
 * that had a task at the value (0: none left), or a negative errno (the
 * first; the round goes on past a process that keeps its tasks coming). */
static int family_round(const struct iofam_target *t, int prio, int applied, int **seen, int *nseen,
			struct iofam_undo *out)
{
	size_t n;
	/* forks held now: one let go while the round lists /proc attaches a
	 * child whose pid the listing may have passed and the walk from
	 * `before` does not reach (its pid is older): looked at again after */
	int forking = iofork_in_flight(t);
	int before = last_pid();
	int err = 0;
	struct fam_proc *tab = table_read(t, applied, &n, &out->stuck_pid, &err);
	if (!tab)
		return -ENOMEM;
	if (err) {
		free(tab);
		return err;
	}
	int put = 0, rc = 0, gone = 0;
	out->others = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned long long st;
		int kept = 0, any = 0, s = descends(tab, n, &tab[i], t) ? 1 : stray(tab, n, &tab[i], t, applied);
		if (s == 2 && out->others < IOFAM_OTHERS)
			out->other_pid[out->others] = tab[i].pid;
		out->others += s == 2;
		int r = s == 1 ? undo_threads(tab[i].pid, prio, applied, &kept, &any) : 0;
		if (r < 0 && r != -ESRCH && !rc)
			rc = r;
		put += any;
		if (any)
			seen_add(seen, nseen, tab[i].pid);
		/* listed at the value and ended by now, set back or not: it may
		 * have passed the value to a child forked after the listing
		 * (a chain of short processes) before it was set back or
		 * looked at, so the round is not settled. Checked after the
		 * look: one that ends between a check and the look would slip. */
		gone += tab[i].at_value && !any && (start_through(t->tr, tab[i].pid, &st) < 0 || st != tab[i].start);
	}
	int left = rc ? rc : put + gone ? put + gone : new_at_value(t, applied, tab, n, before);
	if (!left)
		left = forking + iofork_in_flight(t); /* a child not in /proc yet has the value it had */
	free(tab);
	/* a process at the value held in execve could not be placed: it
	 * stays so for as long as its owner likes, so the undo fails now */
	return out->stuck_pid ? -ETIMEDOUT : left;
}

int iofam_undo(const struct iofam_target *t, int prio, int applied, struct iofam_undo *out)
{
	int any = 0, rc = 0, *seen = NULL, nseen = 0;
	memset(out, 0, sizeof *out);
	if (prio == applied)
		return 0; /* the change changed nothing */
	if (t->alive)
		rc = undo_threads(t->pid, prio, applied, &out->kept, &any);
	int fam = rc == 0 || rc == -ESRCH ? 1 : 0;
	struct iofam_target now = *t;
	struct timedread *own = t->tr ? NULL : timedread_new(TIMEDREAD_PATIENCE_S);
	now.tr = t->tr ? t->tr : own;
	if (!now.tr)
		return -ENOMEM;
	/* done after two settled rounds in a row: what one round's checks
	 * raced with (a fork let go as they looked) shows in the next */
	for (int round = 0, settled = 0; fam >= 0 && settled < 2 && round < IOFAM_PASSES && (rc == 0 || rc == -ESRCH);
	     round++) {
		/* it may end while the undo runs, and its pid go to another,
		 * whose children are not its */
		unsigned long long st;
		now.alive = now.alive && (!t->start || (start_through(now.tr, t->pid, &st) == 0 && st == t->start));
		fam = family_round(&now, prio, applied, &seen, &nseen, out);
		settled = fam == 0 ? settled + 1 : 0;
		if (fam == 0 && settled < 2)
			fam = 1; /* not done until the second */
	}
	free(seen);
	timedread_free(own);
	out->procs = nseen;
	if (fam > 0)
		return -EAGAIN;
	if (fam < 0)
		return fam;
	if (rc == -ESRCH && (nseen || out->kept || out->others))
		return 0;
	return !t->alive && !nseen && !out->others ? -ESRCH : rc;
}
