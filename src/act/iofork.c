/* iofork: see iofork.h */
#include "iofork.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "base/timedread.h"
#include "base/util.h"
#include "procs/procs.h"

/* Whether nr is a system call that forks. x86-64 also runs 32-bit
 * programs, whose /proc/TID/syscall shows the i386 numbers: taken too
 * (among native calls they are open, getresgid and fremovexattr, which
 * rarely block for long: at worst an undo waits its rounds out). */
static int forks(long nr)
{
	static const long calls[] = {
		SYS_clone,
#ifdef SYS_fork
		SYS_fork,
#endif
#ifdef SYS_vfork
		SYS_vfork,
#endif
		435, /* clone3, on every architecture */
#ifdef __x86_64__
		120, 2, 190, /* i386: clone, fork, vfork */
#endif
	};
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (nr == calls[i])
			return 1;
	return 0;
}

/* Whether thread tid of pid is blocked inside a fork that has not
 * attached its child: /proc/TID/syscall gives the call a blocked thread
 * is in ("running" for one that runs); a vfork parent waits in
 * wait_for_vfork_done with its child attached. */
static int thread_forking(struct timedread *tr, int pid, int tid, int alone)
{
	char path[80], text[128], *end;
	util_fmt(path, sizeof path, "/proc/%d/task/%d/syscall", pid, tid);
	long n = timedread_text(tr, path, tid, text, sizeof text);
	if (n == -ENOENT || n == -ESRCH)
		return 0; /* gone */
	if (n == -ETIMEDOUT && tid == pid && alone)
		return 0; /* held in execve: its other threads are gone by then, and it is not in a fork */
	if (n < 0)
		return 1; /* not known (another thread stuck, the reader full or short): not settled */
	long nr = strtol(text, &end, 10);
	if (end == text || !forks(nr))
		return 0;
	util_fmt(path, sizeof path, "/proc/%d/task/%d/wchan", pid, tid);
	return timedread_text(tr, path, tid, text, sizeof text) < 0 ||
	       strcmp(util_trim(text), "wait_for_vfork_done") != 0;
}

/* pid's threads in a fork: its task directory listed first (it does not
 * wait on an exec), so that a lone thread is known as one. */
static int process_forking(struct timedread *tr, int pid)
{
	char dir[64];
	util_fmt(dir, sizeof dir, "/proc/%d/task", pid);
	DIR *d = opendir(dir);
	struct dirent *e;
	int *tids = NULL, n = 0;
	size_t cap = 0, k = 0;
	while (d && (e = readdir(d)))
		if (atoi(e->d_name) > 0 && util_grow((void **)&tids, &cap, k + 1, sizeof *tids) == 0)
			tids[k++] = atoi(e->d_name);
	if (d)
		closedir(d);
	for (size_t i = 0; i < k; i++)
		n += thread_forking(tr, pid, tids[i], k == 1);
	free(tids);
	return n;
}

int *iofork_list_pids(size_t *n)
{
	DIR *d = opendir("/proc");
	size_t cap = 0;
	int *pids = NULL;
	struct dirent *e;
	*n = 0;
	while (d && (e = readdir(d))) {
		int pid = atoi(e->d_name);
		if (pid > 0 && util_grow((void **)&pids, &cap, *n + 1, sizeof *pids) == 0)
			pids[(*n)++] = pid;
	}
	if (d)
		closedir(d);
	return d ? pids : NULL;
}

/* Whether pid is t's process or its owner's (real uid, as iofam counts
 * owners): read from status, which does not wait on an exec. */
static int owners(int pid, const struct iofam_target *t)
{
	char path[64], text[4096];
	if (pid == t->pid)
		return 1;
	util_fmt(path, sizeof path, "/proc/%d/status", pid);
	const char *u = util_read_text(path, text, sizeof text) < 0 ? NULL : strstr(text, "\nUid:");
	return t->uid && u && strtoul(u + 5, NULL, 10) == t->uid;
}

/* The processes that may carry t's value: t's process, its owner's, or
 * started since the change (stat lines read in one batch). */
int iofork_in_flight(const struct iofam_target *t)
{
	size_t n;
	int *pids = iofork_list_pids(&n), *rc = calloc(n ? n : 1, sizeof *rc);
	struct proc_seen *st = calloc(n ? n : 1, sizeof *st);
	int forking = 0;
	if (!pids || !rc || !st)
		n = 0;
	procs_read_stats(t->tr, pids, n, st, rc);
	/* one whose stat could not be read for want of the reader (too many
	 * held, no memory) may be anyone's: looked at */
	for (size_t i = 0; i < n; i++)
		if (owners(pids[i], t) || (rc[i] == 0 && st[i].start >= t->since) ||
		    (rc[i] < 0 && rc[i] != -ESRCH && rc[i] != -ETIMEDOUT))
			forking += process_forking(t->tr, pids[i]);
	free(pids);
	free(rc);
	free(st);
	return forking;
}
