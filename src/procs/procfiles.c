/* procfiles: a task's files in /proc, read with tight parsers: stat, io
 * (its descriptor kept open between readings) and cmdline (procparts.h;
 * the parsers in procs.h). Through libproc2 its sscanf-based parsing of
 * /proc/PID/io and stat cost 17 ms per refresh with 1,000 processes.
 * stat and io wait on a lock a task holds through part of an execve,
 * which a user can make last for good: they are read in batches through
 * timedread.h, which gives up on such a task; cmdline and cgroup do not
 * wait on it. */
#include "procparts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/timedread.h"
#include "read/cgroup.h"

/* The command line as one string (arguments joined by blanks), on the
 * heap, as long as a row holds, into *out; NULL when empty or unreadable.
 * Three system calls a task: read only for tasks named (procs_name).
 * Through p's reader too: it reads the task's memory, under a lock its own
 * page faults can hold (one on its FUSE file that is not answered).
 * Returns -ETIMEDOUT or -EBUSY when the read was given up or skipped (to
 * be tried again later), else 0. */
int procfiles_read_cmdline(struct procs *p, int pid, char **out)
{
	char path[64], buf[PROCS_CMDLINE_MAX];
	snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
	if (!p->tr)
		p->tr = timedread_new(TIMEDREAD_PATIENCE_S);
	long n = p->tr ? timedread_text(p->tr, path, pid, buf, sizeof buf) : -ENOMEM;
	*out = NULL;
	if (n == -ETIMEDOUT || n == -EBUSY)
		return (int)n;
	if (n <= 0)
		return 0;
	for (long i = 0; i < n - 1; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	*out = buf[0] ? strdup(buf) : NULL;
	return 0;
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

/* p's batch of reads (timedread.h), made the first time. */
static int batch_room(struct procs *p)
{
	if (!p->tr)
		p->tr = timedread_new(TIMEDREAD_PATIENCE_S);
	if (!p->tri)
		p->tri = calloc(PROCS_READ_CHUNK, sizeof *p->tri);
	if (!p->tri_text)
		p->tri_text = malloc((size_t)PROCS_READ_CHUNK * PROCS_READ_TEXT);
	return p->tr && p->tri && p->tri_text ? 0 : -ENOMEM;
}

static void item_for(struct procs *p, size_t j, const struct proc_row *r, int threads, const char *name)
{
	struct timedread_item *it = &p->tri[j];
	it->fd = -1;
	it->keep = 0;
	it->id = r->tid;
	it->buf = p->tri_text + j * PROCS_READ_TEXT;
	it->cap = PROCS_READ_TEXT;
	task_path(it->path, sizeof it->path, r->pid, r->tid, threads, name);
}

/* Read through the descriptor the task's previous reading held (old; it
 * moves to the item); else opened again and kept while there is room. A
 * held descriptor belongs to the task it was opened for: once that task
 * has ended it reads ESRCH, even if its pid is someone else's by now, and
 * the file is opened again by path. */
static void io_item(struct procs *p, size_t j, const struct proc_row *r, int threads, struct proc_seen *old)
{
	item_for(p, j, r, threads, "io");
	p->tri[j].keep = 1;
	if (old && old->io_held) {
		old->io_held = 0;
		p->tri[j].fd = old->io_fd;
		p->io_held--;
	}
}

static void io_take(struct procs *p, const struct timedread_item *it, struct proc_seen *e)
{
	if (it->fd >= 0 && p->io_held < p->io_max) {
		e->io_fd = it->fd;
		e->io_held = 1;
		p->io_held++;
	} else if (it->fd >= 0) {
		close(it->fd);
	}
	/* The parser looks for "\nread_bytes": the first line is rchar. */
	e->readable = it->n > 0 && procs_parse_io(it->buf, &e->c) == 0;
	/* not read for a task stuck now or lately (this refresh's give-ups
	 * are counted by the reader too): not a permission */
	p->io_skipped += it->n == -ETIMEDOUT || it->n == -EBUSY;
}

void procfiles_read_io_all(struct procs *p, int threads, const struct proc_row *rows, struct proc_seen *cur, size_t n)
{
	size_t next_prev = 0;
	if (batch_room(p) < 0) {
		for (size_t i = 0; i < n; i++)
			cur[i].readable = 0;
		return;
	}
	for (size_t from = 0; from < n; from += PROCS_READ_CHUNK) {
		size_t k = n - from < PROCS_READ_CHUNK ? n - from : PROCS_READ_CHUNK;
		for (size_t j = 0; j < k; j++)
			io_item(p, j, &rows[from + j], threads,
				procseen_lookup_next(p->prev, p->nprev, &next_prev, cur[from + j].id));
		timedread_batch(p->tr, p->tri, k);
		for (size_t j = 0; j < k; j++)
			io_take(p, &p->tri[j], &cur[from + j]);
	}
}

void procfiles_read_stats(struct procs *p, int threads, const struct procfiles_want *want, size_t n)
{
	if (n == 0 || batch_room(p) < 0)
		return;
	for (size_t j = 0; j < n; j++)
		item_for(p, j, want[j].r, threads, "stat");
	timedread_batch(p->tr, p->tri, n);
	for (size_t j = 0; j < n; j++)
		want[j].e->stat_ok = p->tri[j].n > 0 && procs_parse_stat(p->tri[j].buf, want[j].e) == 0;
}

int procs_stat_rc(long n, const char *text, struct proc_seen *e)
{
	if (n > 0)
		return procs_parse_stat(text, e) == 0 ? 0 : -ESRCH;
	return n == 0 || n == -ENOENT || n == -ESRCH ? -ESRCH : (int)n;
}

void procs_read_stats(struct timedread *tr, const int *pids, size_t n, struct proc_seen *out, int *rc)
{
	struct timedread *own = tr ? NULL : timedread_new(TIMEDREAD_PATIENCE_S);
	size_t most = n < PROCS_READ_CHUNK ? (n ? n : 1) : PROCS_READ_CHUNK; /* a few pids: a few pages */
	struct timedread_item *it = calloc(most, sizeof *it);
	char *text = malloc(most * PROCS_READ_TEXT);
	for (size_t from = 0; from < n; from += PROCS_READ_CHUNK) {
		size_t k = n - from < PROCS_READ_CHUNK ? n - from : PROCS_READ_CHUNK;
		for (size_t j = 0; it && text && j < k; j++) {
			it[j] = (struct timedread_item){.fd = -1, .id = pids[from + j], .buf = text + j * PROCS_READ_TEXT,
							.cap = PROCS_READ_TEXT};
			snprintf(it[j].path, sizeof it[j].path, "/proc/%d/stat", pids[from + j]);
		}
		if (!it || !text || (!tr && !own)) {
			for (size_t j = 0; j < k; j++)
				rc[from + j] = -ENOMEM;
			continue;
		}
		timedread_batch(tr ? tr : own, it, k);
		for (size_t j = 0; j < k; j++)
			rc[from + j] = procs_stat_rc(it[j].n, it[j].buf, &out[from + j]);
	}
	free(it);
	free(text);
	timedread_free(own);
}
