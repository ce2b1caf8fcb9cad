/* procfiles: a task's files in /proc, read with tight parsers: stat, io
 * (its descriptor kept open between readings) and cmdline (procparts.h;
 * the parsers in procs.h). Through libproc2 its sscanf-based parsing of
 * /proc/PID/io and stat cost 17 ms per refresh with 1,000 processes. */
#include "procparts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/cgroup.h"

/* The command line as one string (arguments joined by blanks), on the
 * heap, as long as a row holds; NULL when empty or unreadable. Three
 * system calls a task: read only for tasks named (procs_name). */
char *procfiles_read_cmdline(int pid)
{
	char path[64], buf[PROCS_CMDLINE_MAX];
	snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
	long n = util_read_text(path, buf, sizeof buf);
	if (n <= 0)
		return NULL;
	for (long i = 0; i < n - 1; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	return buf[0] ? strdup(buf) : NULL;
}

int procfiles_read_cgroup(int pid, int tid, int threads, char *path, size_t len)
{
	char file[64], buf[2048], full[CGROUP_PATH_MAX + 1];
	if (threads && tid != pid)
		snprintf(file, sizeof file, "/proc/%d/task/%d/cgroup", pid, tid);
	else
		snprintf(file, sizeof file, "/proc/%d/cgroup", pid);
	long n = util_read_text(file, buf, sizeof buf);
	if (n < 0)
		return (int)n;
	/* A file longer than buf (a v2 path of up to 4 KiB after the v1
	 * lines): its last line, cut, is left out, not taken whole. */
	if ((size_t)n == sizeof buf - 1 && buf[n - 1] != '\n') {
		char *end = strrchr(buf, '\n');
		*(end ? end + 1 : buf) = '\0';
	}
	int rc = cgroup_parse_proc(buf, full, sizeof full);
	if (rc < 0)
		return rc;
	/* relative to the v2 root, as the JSON and the metrics label it */
	util_strlcpy(path, full[1] ? full + 1 : "/", len);
	return 0;
}

static const char *after(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	return p ? p + strlen(key) : NULL;
}

int procs_parse_io(const char *text, struct proc_counters *c)
{
	const char *rb = after(text, "\nread_bytes: "), *wb = after(text, "\nwrite_bytes: ");
	const char *sr = after(text, "syscr: "), *sw = after(text, "syscw: ");
	if (!rb || !wb || !sr || !sw)
		return -EINVAL;
	c->rbytes = strtoull(rb, NULL, 10);
	c->wbytes = strtoull(wb, NULL, 10);
	c->syscr = strtoull(sr, NULL, 10);
	c->syscw = strtoull(sw, NULL, 10);
	return 0;
}

int procs_parse_stat(const char *text, struct proc_seen *e)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	if (!open || !close || close < open || close[1] != ' ')
		return -EINVAL;
	size_t n = (size_t)(close - open - 1);
	if (n >= sizeof e->comm)
		n = sizeof e->comm - 1;
	memcpy(e->comm, open + 1, n);
	e->comm[n] = '\0';
	/* After ") ": state is field 3; ppid 4; nice 19; starttime 22. */
	const char *p = close + 2;
	e->state = *p;
	char *end;
	int field = 3;
	while (*p && field < 22) {
		p = strchr(p, ' ');
		if (!p)
			return -EINVAL;
		p++;
		field++;
		if (field == 4)
			e->ppid = (int)strtol(p, &end, 10);
		else if (field == 19)
			e->nice = (int)strtol(p, &end, 10);
	}
	if (field != 22)
		return -EINVAL;
	e->start = strtoull(p, &end, 10);
	return end == p ? -EINVAL : 0;
}

/* /proc/PID or /proc/PID/task/TID of a task, + "/name". */
static void task_path(char *buf, size_t len, int pid, int tid, int threads, const char *name)
{
	if (threads)
		snprintf(buf, len, "/proc/%d/task/%d/%s", pid, tid, name);
	else
		snprintf(buf, len, "/proc/%d/%s", pid, name);
}

static ssize_t read_at_0(int fd, char *buf, size_t len)
{
	ssize_t n;
	do
		n = pread(fd, buf, len - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n >= 0)
		buf[n] = '\0';
	return n < 0 ? -errno : n;
}

/* The task's I/O counters into e->c: through the descriptor its previous
 * reading held (old; it moves to e), else a new one, kept while there is
 * room. A held descriptor belongs to the task it was opened for: once that
 * task has ended it reads ESRCH, even if its pid is someone else's by now,
 * and the file is opened again by path. */
int procfiles_read_io(struct procs *p, struct proc_seen *old, int pid, int tid, int threads, struct proc_seen *e)
{
	char path[64], buf[512];
	ssize_t n;
	if (old && old->io_held) {
		old->io_held = 0;
		n = read_at_0(old->io_fd, buf, sizeof buf);
		if (n > 0) {
			e->io_fd = old->io_fd;
			e->io_held = 1;
			/* The parser looks for "\nread_bytes": the first line is rchar. */
			return procs_parse_io(buf, &e->c);
		}
		close(old->io_fd);
		p->io_held--;
	}
	task_path(path, sizeof path, pid, tid, threads, "io");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read_at_0(fd, buf, sizeof buf);
	if (n > 0 && p->io_held < p->io_max) {
		e->io_fd = fd;
		e->io_held = 1;
		p->io_held++;
	} else {
		close(fd);
	}
	if (n <= 0)
		return n < 0 ? (int)n : -EIO;
	return procs_parse_io(buf, &e->c);
}

int procfiles_read_stat(int pid, int tid, int threads, struct proc_seen *e)
{
	char path[64], buf[1024];
	task_path(path, sizeof path, pid, tid, threads, "stat");
	long n = util_read_small(path, buf, sizeof buf);
	return n < 0 ? (int)n : procs_parse_stat(buf, e);
}
