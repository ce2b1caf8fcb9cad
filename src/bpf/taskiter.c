/* taskiter: see include/bpf/taskiter.h */
#include "bpf/taskiter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfready.h"
#include "base/util.h"

#ifndef HAVE_BPF

int taskiter_open(struct taskiter **out, char *why, size_t len)
{
	*out = NULL;
	util_strlcpy(why, "built without BPF", len);
	return -ENOTSUP;
}

int taskiter_read(struct taskiter *t, const struct task_info **tasks, size_t *n)
{
	(void)t;
	*tasks = NULL;
	*n = 0;
	return -ENOTSUP;
}

void taskiter_close(struct taskiter *t)
{
	(void)t;
}

#else

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "taskiter.skel.h"
#include "taskiter_maps.h"
#include "taskmerge.h"

#define TASKITER_BUF 65536

struct taskiter {
	struct taskiter_bpf *skel;
	struct bpf_link *link;         /* the walk */
	struct bpf_link *fork_link;    /* its count of task starts (taskiter.bpf.c) */
	struct taskmerge tab;          /* the tasks as last read */
	char buf[TASKITER_BUF];        /* what the walk writes, a read at a time */
};

/* How many tasks the walk may have to remember: twice the threads alive
 * now (the fourth field of /proc/loadavg), within bounds. */
static unsigned seen_size(void)
{
	char text[128];
	unsigned running, total = 0;
	if (util_read_text("/proc/loadavg", text, sizeof text) > 0)
		sscanf(text, "%*s %*s %*s %u/%u", &running, &total);
	unsigned want = total * 2;
	return want < TASKMAP_SEEN_MIN ? TASKMAP_SEEN_MIN : want > TASKMAP_SEEN_MAX ? TASKMAP_SEEN_MAX : want;
}

/* A task the table no longer holds: the walk forgets it too (an LRU map
 * would, later), and sends it whole if it is seen again. */
static void forget(void *ctx, int tid)
{
	struct taskiter *t = ctx;
	__u32 key = (__u32)tid;
	bpf_map_delete_elem(bpf_map__fd(t->skel->maps.seen), &key);
}

static int fail(struct taskiter *t, int err, char *why, size_t len, const char *what)
{
	util_fmt(why, len, "%s: %s", what, strerror(err > 0 ? err : -err));
	taskiter_close(t);
	return err > 0 ? -err : err;
}

int taskiter_open(struct taskiter **out, char *why, size_t len)
{
	*out = NULL;
	int ready = bpfready_check(why, len);
	if (ready < 0)
		return ready;
	struct taskiter *t = calloc(1, sizeof *t);
	if (!t) {
		util_strlcpy(why, "out of memory", len);
		return -ENOMEM;
	}
	t->skel = taskiter_bpf__open();
	if (!t->skel)
		return fail(t, errno ? errno : EINVAL, why, len, "BPF open failed");
	int err = bpf_map__set_max_entries(t->skel->maps.seen, seen_size());
	if (!err)
		err = taskiter_bpf__load(t->skel);
	if (err)
		return fail(t, err, why, len, "BPF load failed");
	t->tab.forget = forget;
	t->tab.ctx = t;
	/* Before the first walk: the walk trusts it to count task starts. */
	t->fork_link = bpf_program__attach(t->skel->progs.on_fork);
	if (!t->fork_link)
		return fail(t, errno ? errno : EINVAL, why, len, "BPF task-start tracepoint attach failed");
	t->link = bpf_program__attach_iter(t->skel->progs.walk, NULL);
	if (!t->link)
		return fail(t, errno ? errno : EINVAL, why, len, "BPF task iterator attach failed");
	*out = t;
	return 0;
}

void taskiter_close(struct taskiter *t)
{
	if (!t)
		return;
	bpf_link__destroy(t->link);
	bpf_link__destroy(t->fork_link);
	taskiter_bpf__destroy(t->skel);
	taskmerge_free(&t->tab);
	free(t);
}

static void from_record(const struct taskmap_rec *r, struct task_info *i)
{
	i->tid = (int)r->h.tid;
	i->tgid = (int)r->tgid;
	i->ppid = (int)r->ppid;
	i->euid = r->euid;
	i->nice = r->nice;
	i->state = r->state;
	memcpy(i->comm, r->comm, sizeof i->comm);
	i->comm[sizeof i->comm - 1] = '\0';
	i->pf = r->pf;
	i->start_ns = r->start_ns;
	i->rbytes = r->own.rbytes;
	i->wbytes = r->own.wbytes;
	i->syscr = r->own.syscr;
	i->syscw = r->own.syscw;
	i->dead_rbytes = r->dead.rbytes;
	i->dead_wbytes = r->dead.wbytes;
	i->dead_syscr = r->dead.syscr;
	i->dead_syscw = r->dead.syscw;
}

/* The whole records at the start of b (len bytes) into the table;
 * returns how many bytes they took (a record cut by the end of a read
 * waits for the next). */
static ssize_t take_records(struct taskiter *t, const char *b, size_t len)
{
	size_t pos = 0;
	while (pos + sizeof(struct taskmap_head) <= len) {
		struct taskmap_head h;
		memcpy(&h, b + pos, sizeof h);
		size_t size = h.full ? sizeof(struct taskmap_rec) : sizeof h;
		if (pos + size > len)
			break;
		struct task_info full;
		if (h.full) {
			struct taskmap_rec r;
			memcpy(&r, b + pos, sizeof r);
			from_record(&r, &full);
		}
		pos += size;
		if (taskmerge_add(&t->tab, (int)h.tid, h.full ? &full : NULL) < 0)
			return -ENOMEM;
	}
	return (ssize_t)pos;
}

/* One walk, read through a buffer of a fixed size (what the kernel writes
 * for 10,000 new tasks would be 1.5 MiB). */
static int walk(struct taskiter *t)
{
	int fd = bpf_iter_create(bpf_link__fd(t->link));
	if (fd < 0)
		return -errno;
	size_t have = 0;
	int err = 0;
	for (;;) {
		ssize_t got = read(fd, t->buf + have, TASKITER_BUF - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			err = got < 0 ? -errno : 0;
			break;
		}
		have += (size_t)got;
		ssize_t used = take_records(t, t->buf, have);
		if (used < 0) {
			err = (int)used;
			break;
		}
		memmove(t->buf, t->buf + used, have - (size_t)used);
		have -= (size_t)used;
	}
	close(fd);
	return err;
}

int taskiter_read(struct taskiter *t, const struct task_info **tasks, size_t *n)
{
	taskmerge_begin(&t->tab);
	int err = walk(t);
	taskmerge_end(&t->tab, err == 0);
	if (err < 0)
		return err;
	*tasks = t->tab.tab;
	*n = t->tab.n;
	return 0;
}

#endif
