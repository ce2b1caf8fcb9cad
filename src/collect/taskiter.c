/* taskiter: see include/taskiter.h */
#include "taskiter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfready.h"
#include "util.h"

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
#include "taskmaps.h"

#define TASKITER_BUF 65536

struct taskiter {
	struct taskiter_bpf *skel;
	struct bpf_link *link;
	struct task_info *cur, *prev;  /* this reading and the last, by tid */
	size_t ncur, nprev, cur_cap, prev_cap;
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
	taskiter_bpf__destroy(t->skel);
	free(t->cur);
	free(t->prev);
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

static int by_tid(const void *a, const void *b)
{
	const struct task_info *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The last reading's entry of tid: the walk goes in tid order, so the
 * next one after *at, else a search. */
static const struct task_info *previous(const struct taskiter *t, size_t *at, int tid)
{
	while (*at < t->nprev && t->prev[*at].tid < tid)
		(*at)++;
	if (*at < t->nprev && t->prev[*at].tid == tid)
		return &t->prev[*at];
	struct task_info key = {.tid = tid};
	return t->nprev ? bsearch(&key, t->prev, t->nprev, sizeof key, by_tid) : NULL;
}

/* Tasks of the last reading missing from this one have ended: the walk
 * forgets them (an LRU map would too, later). */
static void forget_ended(struct taskiter *t)
{
	int fd = bpf_map__fd(t->skel->maps.seen);
	size_t k = 0;
	for (size_t i = 0; i < t->nprev; i++) {
		while (k < t->ncur && t->cur[k].tid < t->prev[i].tid)
			k++;
		if (k < t->ncur && t->cur[k].tid == t->prev[i].tid)
			continue;
		__u32 tid = (__u32)t->prev[i].tid;
		bpf_map_delete_elem(fd, &tid);
	}
}

/* The whole records at the start of b (len bytes) into t->cur; returns
 * how many bytes they took (a record cut by the end of a read waits for
 * the next). */
static ssize_t take_records(struct taskiter *t, const char *b, size_t len, size_t *at)
{
	size_t pos = 0;
	int fd = bpf_map__fd(t->skel->maps.seen);
	while (pos + sizeof(struct taskmap_head) <= len) {
		struct taskmap_head h;
		memcpy(&h, b + pos, sizeof h);
		size_t size = h.full ? sizeof(struct taskmap_rec) : sizeof h;
		if (pos + size > len)
			break;
		if (util_grow((void **)&t->cur, &t->cur_cap, t->ncur + 1, sizeof *t->cur) < 0)
			return -ENOMEM;
		struct task_info *e = &t->cur[t->ncur];
		const struct task_info *old = h.full ? NULL : previous(t, at, (int)h.tid);
		if (h.full) {
			struct taskmap_rec r;
			memcpy(&r, b + pos, sizeof r);
			from_record(&r, e);
			t->ncur++;
		} else if (old) {
			*e = *old;
			t->ncur++;
		} else {
			/* unchanged, but not known here: the walk sends it whole next time */
			__u32 tid = h.tid;
			bpf_map_delete_elem(fd, &tid);
		}
		pos += size;
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
	size_t have = 0, at = 0;
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
		ssize_t used = take_records(t, t->buf, have, &at);
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
	/* the last reading is looked up while this one is made, then freed:
	 * one table between refreshes */
	free(t->prev);
	t->prev = t->cur;
	t->prev_cap = t->cur_cap;
	t->nprev = t->ncur;
	t->cur = NULL;
	t->cur_cap = t->ncur = 0;
	if (util_grow((void **)&t->cur, &t->cur_cap, t->nprev + 64, sizeof *t->cur) < 0)
		return -ENOMEM;
	int err = walk(t);
	if (err < 0)
		return err;
	/* the walk goes in tid order; a search needs it */
	for (size_t i = 1; i < t->ncur; i++)
		if (t->cur[i - 1].tid >= t->cur[i].tid) {
			qsort(t->cur, t->ncur, sizeof *t->cur, by_tid);
			break;
		}
	forget_ended(t);
	free(t->prev);
	t->prev = NULL;
	t->prev_cap = t->nprev = 0;
	*tasks = t->cur;
	*n = t->ncur;
	return 0;
}

#endif
