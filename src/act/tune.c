/* tune: see include/act/tune.h */
#include "act/tune.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procs/procs.h"
#include "read/cgroup.h"
#include "read/sched.h"
#include "base/util.h"
#include "iofam.h"
#include "tunecg.h"

/* The queue attributes the panel offers, with the values the kernel takes. */
static const struct {
	const char *key;
	long long lo, hi;
} queue_attrs[] = {
	{"nr_requests", 4, 1 << 20},
	{"read_ahead_kb", 0, 1 << 30},
	{"wbt_lat_usec", -1, (long long)1 << 40}, /* -1: back to the default, 0: off */
	{"nomerges", 0, 2},
	{"rq_affinity", 0, 2},
};

#define NQUEUE (sizeof queue_attrs / sizeof queue_attrs[0])
_Static_assert(NQUEUE <= TUNE_QUEUE_MAX, "a switch may reset every queue attribute");

#define IOPRIO_WHO_PROCESS 1

void tune_req_ioprio(struct tune_req *r, int pid, unsigned long long start, const char *comm, const char *value)
{
	tune_req_init(r, comm, TUNE_IOPRIO, "ioprio", value);
	r->pid = pid;
	r->since = iofam_ticks_now();
	if (iofam_start(pid, &r->start) < 0 || iofam_uid(pid, &r->uid) < 0)
		r->start = 0;
	/* the process chosen, not whichever has its pid now: one that ended
	 * since its row was drawn left the pid to another (tune_req_same_process
	 * refuses it then) */
	if (start && r->start)
		r->start = start;
}

int tune_req_same_process(const struct tune_req *r)
{
	unsigned long long now;
	if (r->kind != TUNE_IOPRIO)
		return 1;
	int rc = r->start ? iofam_start(r->pid, &now) : -ESRCH;
	if (rc == -ETIMEDOUT)
		return -1; /* held in execve: this process, or another's on its pid */
	return rc == 0 && now == r->start;
}

int tune_parse_ioprio(const char *s, int *out)
{
	int lvl;
	char tail;
	if (strcmp(s, "none") == 0)
		*out = 0;
	else if (strcmp(s, "idle") == 0)
		*out = 3 << 13;
	else if (sscanf(s, "be/%d%c", &lvl, &tail) == 1 && lvl >= 0 && lvl <= 7)
		*out = (2 << 13) | lvl;
	else if (sscanf(s, "rt/%d%c", &lvl, &tail) == 1 && lvl >= 0 && lvl <= 7)
		*out = (1 << 13) | lvl;
	else
		return -EINVAL;
	return 0;
}

static void format_ioprio(int v, char *buf, size_t len)
{
	int cls = v >> 13, lvl = v & 7;
	if (cls == 1)
		util_fmt(buf, len, "rt/%d", lvl);
	else if (cls == 2)
		util_fmt(buf, len, "be/%d", lvl);
	else if (cls == 3)
		util_strlcpy(buf, "idle", len);
	else
		util_strlcpy(buf, "none", len);
}

void tune_req_init(struct tune_req *r, const char *disk, enum tune_kind kind, const char *key,
		   const char *value)
{
	memset(r, 0, sizeof *r);
	util_strlcpy(r->disk, disk, sizeof r->disk);
	r->kind = kind;
	util_strlcpy(r->key, kind == TUNE_SCHEDULER ? "scheduler" : key, sizeof r->key);
	util_strlcpy(r->value, value, sizeof r->value);
}

void tune_req_bfq_weight(struct tune_req *r, const char *path, const char *value)
{
	char unit[CGROUP_PATH_MAX];
	cgroup_unit_name(path, unit, sizeof unit);
	tune_req_init(r, unit, TUNE_BFQ_WEIGHT, "io.bfq.weight", value);
	util_strlcpy(r->cgroup, path, sizeof r->cgroup);
}

static const char *root_of(const struct tune_sysfs *s)
{
	return s && s->root ? s->root : "/sys";
}

static int path_in(const struct tune_sysfs *s, const char *disk, enum tune_kind kind, const char *key, char *buf,
		   size_t len)
{
	if (strchr(disk, '/') || !*disk || disk[0] == '.')
		return -EINVAL;
	if (kind != TUNE_SCHEDULER && (strchr(key, '/') || !*key || key[0] == '.'))
		return -EINVAL;
	switch (kind) {
	case TUNE_SCHEDULER:
		return util_pathf(buf, len, "%s/block/%s/queue/scheduler", root_of(s), disk);
	case TUNE_QUEUE:
		return util_pathf(buf, len, "%s/block/%s/queue/%s", root_of(s), disk, key);
	case TUNE_IOSCHED:
		return util_pathf(buf, len, "%s/block/%s/queue/iosched/%s", root_of(s), disk, key);
	case TUNE_IOPRIO:
		return -EINVAL; /* a process's, set by a system call */
	case TUNE_BFQ_WEIGHT:
		return -EINVAL; /* a cgroup's: its path is in the request (tunecg.c) */
	}
	return -EINVAL;
}

void tune_req_reset(struct tune_req *r, const struct tune_req *sw, const struct tune_reset *rs)
{
	tune_req_init(r, sw->disk, rs->kind == TUNE_IOSCHED ? TUNE_IOSCHED : TUNE_QUEUE, rs->key, rs->before);
	r->sysfs = sw->sysfs;
	r->undo = 1;
	r->reset = 1;
}

int tune_path(const char *disk, enum tune_kind kind, const char *key, char *buf, size_t len)
{
	return path_in(NULL, disk, kind, key, buf, len);
}

int tune_req_path(const struct tune_req *r, char *buf, size_t len)
{
	if (r->kind == TUNE_BFQ_WEIGHT)
		return tunecg_path(r, buf, len);
	return path_in(r->sysfs, r->disk, r->kind, r->key, buf, len);
}

void tune_label(enum tune_kind kind, const char *key, char *buf, size_t len)
{
	util_fmt(buf, len, "%s%s", kind == TUNE_IOSCHED ? "iosched/" : "", kind == TUNE_SCHEDULER ? "scheduler" : key);
}

static int read_ioprio(int pid, char *out, size_t len)
{
	long v = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, pid);
	if (v < 0)
		return -errno;
	format_ioprio((int)v, out, len);
	return 0;
}

static int read_in(const struct tune_sysfs *sys, const char *disk, enum tune_kind kind, const char *key, char *out,
		   size_t len)
{
	char path[PATH_MAX], buf[512];
	int rc = path_in(sys, disk, kind, key, path, sizeof path);
	if (rc < 0)
		return rc;
	long n = util_read_text(path, buf, sizeof buf);
	if (n < 0)
		return (int)n;
	if (kind != TUNE_SCHEDULER) {
		util_strlcpy(out, util_trim(buf), len);
		return 0;
	}
	struct sched_list s;
	if (sched_parse(buf, &s) < 0 || !sched_active(&s))
		return -EINVAL;
	util_strlcpy(out, sched_active(&s), len);
	return 0;
}

int tune_read(const char *disk, enum tune_kind kind, const char *key, char *out, size_t len)
{
	return read_in(NULL, disk, kind, key, out, len);
}

int tune_req_read(const struct tune_req *r, char *out, size_t len)
{
	if (r->kind == TUNE_BFQ_WEIGHT)
		return tunecg_read(r, out, len);
	return read_in(r->sysfs, r->disk, r->kind, r->key, out, len);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_dot(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* The names of the active scheduler's files, sorted (scandir: free each
 * and the array). Returns how many, or -1 (none: no iosched directory). */
static int iosched_names(const struct tune_sysfs *s, const char *disk, struct dirent ***names)
{
	char dir[PATH_MAX];
	/* queue/scheduler's path (path_in checks the disk's name), then its
	 * sibling queue/iosched, a shorter name in the same place. */
	if (path_in(s, disk, TUNE_SCHEDULER, "", dir, sizeof dir) < 0)
		return -1;
	strcpy(strrchr(dir, '/') + 1, "iosched");
	return scandir(dir, names, not_dot, by_name);
}

/* A whole decimal number, '-' allowed. */
static int parse_ll(const char *v, long long *out)
{
	const char *p = v + (*v == '-');
	if (!*p)
		return -1;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -1;
	errno = 0;
	*out = strtoll(v, NULL, 10);
	return errno ? -1 : 0;
}

static int validate_scheduler(const struct tune_req *r, char *err, size_t len)
{
	char path[PATH_MAX], buf[256];
	struct sched_list s;
	if (path_in(r->sysfs, r->disk, TUNE_SCHEDULER, "", path, sizeof path) < 0 ||
	    util_read_text(path, buf, sizeof buf) < 0 || sched_parse(buf, &s) < 0) {
		util_fmt(err, len, "%s: cannot read its schedulers (device gone?)", r->disk);
		return -ENOENT;
	}
	for (int i = 0; i < s.n; i++)
		if (strcmp(s.names[i], r->value) == 0)
			return 0;
	sched_format(&s, buf, sizeof buf);
	util_fmt(err, len, "%s offers no scheduler '%s'; it offers: %s (others need their module: modprobe kyber-iosched / bfq)",
		 r->disk, r->value, s.n ? buf : "none");
	return -EINVAL;
}

int tune_validate(const struct tune_req *r, char *err, size_t len)
{
	int prio;
	if (r->kind == TUNE_IOPRIO) {
		if (tune_parse_ioprio(r->value, &prio) < 0) {
			util_fmt(err, len, "I/O priority '%s' is not accepted; give none, idle, be/0-7 or rt/0-7", r->value);
			return -EINVAL;
		}
		return 0;
	}
	if (r->kind == TUNE_SCHEDULER)
		return validate_scheduler(r, err, len);
	if (r->kind == TUNE_BFQ_WEIGHT)
		return tunecg_validate(r, err, len);
	char path[PATH_MAX], label[80];
	tune_label(r->kind, r->key, label, sizeof label);
	if (tune_req_path(r, path, sizeof path) < 0 || access(path, F_OK) != 0) {
		util_fmt(err, len, "%s has no %s%s", r->disk, label,
			 r->kind == TUNE_IOSCHED ? " under its current scheduler" : "");
		return -ENOENT;
	}
	long long v, lo = 0, hi = INT_MAX;
	for (size_t i = 0; i < NQUEUE; i++)
		if (r->kind == TUNE_QUEUE && strcmp(queue_attrs[i].key, r->key) == 0) {
			lo = queue_attrs[i].lo;
			hi = queue_attrs[i].hi;
		}
	if (parse_ll(r->value, &v) < 0 || v < lo || v > hi) {
		util_fmt(err, len, "%s: '%s' is not accepted; give a whole number from %lld to %lld", label, r->value, lo,
			 hi);
		return -EINVAL;
	}
	return 0;
}

static const char *hint(int e)
{
	switch (e) {
	case EACCES:
	case EPERM:
	case EROFS:
		return " (switching needs root)";
	case EINVAL:
		return " (the kernel refused the value; for a scheduler: is its module loaded? modprobe kyber-iosched / bfq)";
	case ENODEV:
	case ENOENT:
	case ENXIO:
		return " (device gone)";
	case EBUSY:
		return " (the queue is busy; try again)";
	case ESRCH:
		return " (the process has exited)";
	}
	return "";
}

/* What an undo did, in the event's "to": the value, then what else it
 * did, as much as fits. */
static void undo_words(const struct tune_req *r, const struct iofam_undo *u, struct event *ev)
{
	char procs[48] = "", kept[48] = "";
	if (u->procs)
		util_fmt(procs, sizeof procs, ", and %d it started since", u->procs);
	if (u->kept)
		util_fmt(kept, sizeof kept, "; %d thread(s) kept the owner's", u->kept);
	if ((size_t)snprintf(ev->to, sizeof ev->to, "%s%s%s", r->value, procs, kept) >= sizeof ev->to)
		util_fmt(ev->to, sizeof ev->to, "%s; +%d procs; %d kept", r->value, u->procs, u->kept);
}

/* The undo did its part, but processes of other owners started since
 * have the realtime value without a way to have taken it: they may have
 * it from the change, and the undo does not say all is as it was. */
static int others_left(const struct tune_req *r, const struct iofam_undo *u, struct event *ev)
{
	char pids[64] = "";
	size_t at = 0;
	for (int i = 0; i < u->others && i < IOFAM_OTHERS; i++)
		at += (size_t)snprintf(pids + at, sizeof pids - at, "%s%d", i ? " " : "", u->other_pid[i]);
	ev->ok = 0;
	util_fmt(ev->error, sizeof ev->error, "pid %d (%s) back to %s, but %d other process(es) started since have %s, "
		 "which they could not take (pid %s%s): from this change? (ionice -p PID)", r->pid, r->disk, r->value,
		 u->others, r->expect, pids, u->others > IOFAM_OTHERS ? " ..." : "");
	return -EEXIST;
}

/* An undo: every task still at the value the change set goes back, the
 * process's threads and the processes it started since (they inherited
 * the value: a child, or a thread started while the undo ran, must not
 * keep a realtime class the tool gave); a thread whose owner changed it
 * since keeps the owner's value (the owner may: it is their thread). */
static int undo_ioprio(const struct tune_req *r, struct event *ev, struct timedread *tr)
{
	int prio, applied;
	struct iofam_undo u = {0};
	int same = tune_req_same_process(r);
	struct iofam_target t = {.pid = r->pid, .alive = same == 1, .start = r->start, .since = r->since,
				  .uid = r->uid, .tr = tr};
	util_strlcpy(ev->from, r->expect, sizeof ev->from);
	int rc = tune_parse_ioprio(r->value, &prio) == 0 && tune_parse_ioprio(r->expect, &applied) == 0 ? 0 : -EINVAL;
	if (rc == 0 && r->since)
		rc = iofam_undo(&t, prio, applied, &u);
	else if (rc == 0)
		rc = -ESRCH; /* not a change this run made: no time to tell its children by */
	ev->ms = (util_mono_now() - ev->mono) * 1e3;
	if (same < 0 && (rc == 0 || rc == -ESRCH))
		rc = -EHOSTDOWN; /* what it started was seen to; the pid itself is left */
	ev->ok = rc == 0;
	if (rc == -EHOSTDOWN)
		util_fmt(ev->error, sizeof ev->error, "pid %d (%s) does not answer (held in execve?): whether it is still the "
			 "process changed cannot be told, so its I/O priority is left as it is (ionice -p %d; try u again "
			 "once it runs)", r->pid, r->disk, r->pid);
	else if (rc == -ESRCH)
		util_fmt(ev->error, sizeof ev->error, "pid %d (%s) has ended: its I/O priority is not set (the pid may name another process now)",
			 r->pid, r->disk);
	else if (rc == -EAGAIN)
		util_fmt(ev->error, sizeof ev->error, "pid %d (%s) or what it started keeps starting tasks at %s, or is held "
			 "in a fork: after %d passes some may still have it (ionice -p PID shows one; try u again)",
			 r->pid, r->disk, r->expect, IOFAM_PASSES);
	else if (rc == -EBUSY)
		util_fmt(ev->error, sizeof ev->error, "what pid %d (%s) started cannot be checked: too many processes on "
			 "this machine are held in execve (their /proc files do not answer); some may still have %s "
			 "(try u again once they run)", r->pid, r->disk, r->expect);
	else if (rc == -ETIMEDOUT)
		util_fmt(ev->error, sizeof ev->error, "pid %d is at %s and held in execve (its /proc files do not answer): "
			 "whether pid %d (%s) started it cannot be told, so it is left as it is (ionice -p %d; try u "
			 "again once it runs)", u.stuck_pid, r->expect, r->pid, r->disk, u.stuck_pid);
	else if (rc < 0)
		util_fmt(ev->error, sizeof ev->error, "cannot set the I/O priority of %d (%s) back to %s: %s%s", r->pid,
			 r->disk, r->value, strerror(-rc), hint(-rc));
	else if (u.others)
		rc = others_left(r, &u, ev);
	else
		undo_words(r, &u, ev);
	return rc;
}

static int apply_ioprio(const struct tune_req *r, struct event *ev, struct timedread *tr)
{
	int prio;
	ev->type = EV_IOPRIO;
	ev->pid = r->pid; /* a process, not a disk: its own column in the log */
	ev->disk[0] = '\0';
	util_fmt(ev->key, sizeof ev->key, "ioprio %.32s", r->disk);
	/* An undo at exit may come long after the change: the process may have
	 * ended and its pid gone to another's, which must not get the class
	 * (a realtime one, say) that was this one's. */
	if (r->undo && r->expect[0])
		return undo_ioprio(r, ev, tr); /* its children get theirs back even where it has ended */
	int same = tune_req_same_process(r);
	if (same != 1) {
		ev->ok = 0;
		if (same < 0)
			util_fmt(ev->error, sizeof ev->error, "pid %d (%s) does not answer (held in execve?): whether it is "
				 "still the process chosen cannot be told, so its I/O priority is not set", r->pid, r->disk);
		else
			util_fmt(ev->error, sizeof ev->error, "pid %d (%s) has ended: its I/O priority is not set (the pid may name another process now)",
				 r->pid, r->disk);
		ev->ms = (util_mono_now() - ev->mono) * 1e3;
		return -ESRCH;
	}
	/* The value before: the live threads' (a main thread that ended
	 * reads as none). One value for every thread would lose a thread's own
	 * (a realtime audio thread, say), and the undo, which keeps one value,
	 * could not put it back: such a process is left as it is. */
	long before = 0, its = 0;
	int tid = iofam_threads_differ(r->pid, &before, &its);
	if (tid >= 0)
		format_ioprio((int)before, ev->from, sizeof ev->from);
	else
		read_ioprio(r->pid, ev->from, sizeof ev->from);
	if (tid > 0) {
		char v[16];
		format_ioprio((int)its, v, sizeof v);
		ev->ok = 0;
		util_fmt(ev->error, sizeof ev->error, "pid %d (%s) is left as it is: its thread %d has I/O priority %s, the "
			 "process %s; one value for all would lose it (ionice -p TID sets one thread)", r->pid, r->disk, tid,
			 v, ev->from);
		ev->ms = (util_mono_now() - ev->mono) * 1e3;
		return -EINVAL;
	}
	int rc = tune_parse_ioprio(r->value, &prio), sharer = 0;
	if (rc == 0)
		rc = iofam_set_alone(r->pid, prio, (int)before, &sharer);
	if (rc == -EBUSY) {
		ev->ok = 0;
		util_fmt(ev->error, sizeof ev->error, "pid %d (%s) is left as it is: pid %d shares its I/O context (started "
			 "with CLONE_IO) and would take %s too, where an undo could not follow", r->pid, r->disk, sharer,
			 r->value);
		ev->ms = (util_mono_now() - ev->mono) * 1e3;
		return rc;
	}
	double t1 = util_mono_now();
	ev->ms = (t1 - ev->mono) * 1e3;
	ev->ok = rc == 0;
	if (rc < 0)
		util_fmt(ev->error, sizeof ev->error, "cannot set the I/O priority of %d (%s) to %s: %s%s", r->pid, r->disk,
			 r->value, strerror(-rc), -rc == EPERM ? " (another user's process, or rt: needs root)" : hint(-rc));
	return rc;
}

/* Write value to the sysfs file path from a child process. A scheduler
 * switch freezes the queue and waits, uninterruptibly, until every request
 * in it is done: on a hung disk that is for ever, and a process does not
 * end while one of its threads is in such a wait (measured: q took 21 s
 * with a 30 s FUSE delay). The child carries the wait instead; the worker
 * thread waits for its answer in an ordinary, interruptible read, so the
 * tool can leave, and the child finishes the switch (which the user asked
 * for) on its own. Returns 0 or a negative errno. */
static int write_in_child(const char *path, const char *value)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	pid_t pid = fork();
	if (pid == 0) {
		/* Only system calls: the tool has threads. */
		close(p[0]);
		int out = util_child_fds(p[1], "iosched-switch");
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		int e = fd < 0 ? errno : write(fd, value, strlen(value)) < 0 ? errno : 0;
		if (out >= 0 && write(out, &e, sizeof e) < 0)
			_exit(1);
		_exit(0);
	}
	int e = pid < 0 ? errno : 0;
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -e;
	}
	ssize_t n;
	do
		n = read(p[0], &e, sizeof e);
	while (n < 0 && errno == EINTR);
	close(p[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return n != (ssize_t)sizeof e ? -EIO : -e;
}

/* The queue attributes' values now ("" for one this queue lacks). */
static void read_queue(const struct tune_req *r, char vals[][TUNE_VALUE_MAX])
{
	for (size_t i = 0; i < NQUEUE; i++)
		if (read_in(r->sysfs, r->disk, TUNE_QUEUE, queue_attrs[i].key, vals[i], TUNE_VALUE_MAX) < 0)
			vals[i][0] = '\0';
}

/* The old scheduler's own files and their values, before a switch takes
 * them away (elevator_exit frees them; the scheduler switched back to
 * starts from its defaults). */
static size_t read_iosched(const struct tune_req *r, struct tune_reset *out, size_t max)
{
	struct dirent **names;
	int k = iosched_names(r->sysfs, r->disk, &names);
	size_t n = 0;
	for (int i = 0; i < k; i++) {
		if (n < max && strlen(names[i]->d_name) < TUNE_KEY_MAX) {
			struct tune_reset *o = &out[n];
			memset(o, 0, sizeof *o);
			o->kind = TUNE_IOSCHED;
			util_strlcpy(o->key, names[i]->d_name, sizeof o->key);
			if (read_in(r->sysfs, r->disk, TUNE_IOSCHED, o->key, o->before, sizeof o->before) == 0)
				n++;
		}
		free(names[i]);
	}
	if (k >= 0)
		free(names);
	return n;
}

/* What a switch changed besides the scheduler: the kernel gives
 * nr_requests the new scheduler's default (blk_mq_init_sched), so a
 * user's own value is lost unless it is noted here. */
static size_t diff_queue(char before[][TUNE_VALUE_MAX], char after[][TUNE_VALUE_MAX], struct tune_reset *out,
			 size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < NQUEUE && n < max; i++) {
		if (!before[i][0] || !after[i][0] || !strcmp(before[i], after[i]))
			continue;
		out[n].kind = TUNE_QUEUE;
		util_strlcpy(out[n].key, queue_attrs[i].key, sizeof out[n].key);
		util_strlcpy(out[n].before, before[i], sizeof out[n].before);
		util_strlcpy(out[n].after, after[i], sizeof out[n].after);
		n++;
	}
	return n;
}

int tune_apply(const struct tune_req *r, struct event *ev, struct tune_reset *resets, size_t *nresets,
	       struct timedread *tr)
{
	char path[PATH_MAX], label[80];
	char before[NQUEUE][TUNE_VALUE_MAX], after[NQUEUE][TUNE_VALUE_MAX];
	struct tune_reset own[TUNE_IOSCHED_MAX];
	size_t nown = 0;
	*nresets = 0;
	memset(ev, 0, sizeof *ev);
	util_strlcpy(ev->cause, r->cause, sizeof ev->cause);
	ev->ts = util_real_now();
	ev->mono = util_mono_now();
	util_strlcpy(ev->to, r->value, sizeof ev->to);
	if (r->kind == TUNE_IOPRIO)
		return apply_ioprio(r, ev, tr);
	if (r->kind == TUNE_BFQ_WEIGHT)
		return tunecg_apply(r, ev);
	ev->type = r->kind == TUNE_SCHEDULER ? EV_SCHEDULER : EV_TUNABLE;
	util_strlcpy(ev->disk, r->disk, sizeof ev->disk);
	tune_label(r->kind, r->key, label, sizeof label);
	util_strlcpy(ev->key, label, sizeof ev->key);
	util_strlcpy(ev->to, r->value, sizeof ev->to);
	ev->ts = util_real_now();
	ev->mono = util_mono_now();
	read_in(r->sysfs, r->disk, r->kind, r->key, ev->from, sizeof ev->from);

	if (r->kind == TUNE_SCHEDULER) {
		read_queue(r, before);
		nown = read_iosched(r, own, TUNE_IOSCHED_MAX);
	}
	int rc = tune_req_path(r, path, sizeof path);
	if (rc == 0)
		rc = r->sysfs && r->sysfs->write ? r->sysfs->write(r->sysfs, path, r->value)
						 : write_in_child(path, r->value);
	if (rc == 0 && r->kind == TUNE_SCHEDULER) {
		read_queue(r, after);
		*nresets = diff_queue(before, after, resets, TUNE_QUEUE_MAX);
		/* Writing the scheduler in force changes nothing: its files stay. */
		if (strcmp(ev->from, r->value) != 0) {
			memcpy(resets + *nresets, own, nown * sizeof *own);
			*nresets += nown;
		}
	}
	double t1 = util_mono_now();
	ev->ms = (t1 - ev->mono) * 1e3;
	/* The chart marks the switch where it completed: that is when the
	 * new scheduler takes the requests. */
	ev->mono = t1;
	ev->ok = rc == 0;
	if (rc < 0)
		util_fmt(ev->error, sizeof ev->error, "cannot set %s %s to %s: %s%s", r->disk, label, r->value,
			 strerror(-rc), hint(-rc));
	return rc;
}

static int add(struct tunable *out, size_t max, size_t *n, const char *disk, enum tune_kind kind, const char *key)
{
	if (*n == max)
		return -1;
	struct tunable *t = &out[*n];
	char path[PATH_MAX];
	memset(t, 0, sizeof *t);
	t->kind = kind;
	util_strlcpy(t->key, key, sizeof t->key);
	if (tune_read(disk, kind, key, t->value, sizeof t->value) < 0)
		return 0; /* this queue has no such file */
	struct stat st;
	t->writable = tune_path(disk, kind, key, path, sizeof path) == 0 && stat(path, &st) == 0 && (st.st_mode & 0222);
	(*n)++;
	return 0;
}

size_t tune_list(const char *disk, struct tunable *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < NQUEUE; i++)
		add(out, max, &n, disk, TUNE_QUEUE, queue_attrs[i].key);
	struct dirent **names;
	int k = iosched_names(NULL, disk, &names);
	for (int i = 0; i < k; i++) {
		add(out, max, &n, disk, TUNE_IOSCHED, names[i]->d_name);
		free(names[i]);
	}
	if (k >= 0)
		free(names);
	return n;
}
