/* iofork: see iofork.h */
#include "iofork.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

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
static int thread_forking(int pid, int tid)
{
	char path[80], text[128], *end;
	util_fmt(path, sizeof path, "/proc/%d/task/%d/syscall", pid, tid);
	if (util_read_text(path, text, sizeof text) < 0)
		return 0;
	long nr = strtol(text, &end, 10);
	if (end == text || !forks(nr))
		return 0;
	util_fmt(path, sizeof path, "/proc/%d/task/%d/wchan", pid, tid);
	return util_read_text(path, text, sizeof text) < 0 || strcmp(util_trim(text), "wait_for_vfork_done") != 0;
}

static int process_forking(int pid)
{
	char dir[64];
	util_fmt(dir, sizeof dir, "/proc/%d/task", pid);
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += atoi(e->d_name) > 0 && thread_forking(pid, atoi(e->d_name));
	if (d)
		closedir(d);
	return n;
}

/* Whether pid may carry t's value: t's process, its owner's (real uid,
 * as iofam counts owners), or started since the change. */
static int may_carry(int pid, const struct iofam_target *t)
{
	char path[64], text[4096];
	struct proc_seen s;
	if (pid == t->pid)
		return 1;
	util_fmt(path, sizeof path, "/proc/%d/status", pid);
	const char *u = util_read_text(path, text, sizeof text) < 0 ? NULL : strstr(text, "\nUid:");
	if (t->uid && u && strtoul(u + 5, NULL, 10) == t->uid)
		return 1;
	util_fmt(path, sizeof path, "/proc/%d/stat", pid);
	return util_read_text(path, text, sizeof text) >= 0 && procs_parse_stat(text, &s) == 0 && s.start >= t->since;
}

int iofork_in_flight(const struct iofam_target *t)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d))) {
		int pid = atoi(e->d_name);
		if (pid > 0 && may_carry(pid, t))
			n += process_forking(pid);
	}
	if (d)
		closedir(d);
	return n;
}
