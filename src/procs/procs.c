/* procs: see include/procs/procs.h */
#include "procs/procs.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <libproc2/pids.h>

#include "read/iostat.h"
#include "read/proc2.h"
#include "procexit.h"
#include "bpf/taskiter.h"
#include "read/taskstats.h"
#include "base/util.h"

/* How many refreshes a process that ended stays listed (dimmed). */
#define EXIT_LINGER 3
/* An exited process whose leader record never came is let go after this. */
#define EXIT_STALE_S 5.0

/* Descriptors of /proc/PID/io stay open from one reading to the next:
 * opening and closing the file was over a third of the tool's CPU with
 * 1,000 processes (perf: the path walk and /proc's revalidation of the
 * pid), the read itself half that. Each open one costs the kernel about
 * 3.5 KiB (a file and seq_file's page; Slab grew 2.9-3.8 MiB for 912). As many as the soft RLIMIT_NOFILE
 * allows less PROCS_IO_FDS_SPARE, left for everything else the tool
 * opens; past that a task's file is opened and closed each time. Never
 * more than this many (a machine with 100,000 threads): */
#define IO_FDS_MAX 16384

#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_CLASS_SHIFT 13

struct procs {
	struct proc2 lib;            /* loaded while the /proc way is used */
	struct pids_info *info;
	/* The last reading (kept between refreshes) and, while a refresh
	 * runs, the new one: its array is freed once it is the last, so
	 * only one is resident between refreshes. */
	struct proc_seen *prev, *cur;
	size_t nprev, ncur, prev_cap, cur_cap;
	size_t io_held, io_max;      /* descriptors kept open; how many may be */
	struct taskstats_conn *ts;
	int ts_err;                 /* why taskstats is unavailable, or 0 */
	int threads;                /* the mode prev was read in */
	int self;                   /* this process's pid */
	long hz;
	double prev_up;             /* uptime (s) when prev was read; 0 before the first reading */
	/* exit records (procexit.h); NULL without CAP_NET_ADMIN */
	struct taskstats_listener *exits;
	struct procexit px;
	unsigned long exits_lost;
	long records_lost;                   /* the kernel's count of records it dropped; -1: unknown */
	/* As many as ended: two shells each ending 500 processes within a
	 * refresh are 1,000 rows to settle (a fixed 512 dropped the rest
	 * unsaid). Grouped rows are fewer. */
	struct procexit_row *settled;
	size_t settled_cap;
	struct proc_row *gone;               /* rows of ended processes still shown (ended_ago: refreshes since) */
	size_t ngone, gone_cap;
	/* The kernel's task walk (taskiter.h), when asked for and loaded:
	 * the tasks and their counters without a /proc file per task */
	int iter_want, iter_tried;
	unsigned readings;
	struct taskiter *iter;
	char iter_why[96];
	struct user_name { unsigned uid; const char *name; } *users; /* names of the uids seen */
	struct util_texts user_texts;  /* where those names are kept: rows point at them */
	size_t nusers, users_cap;
};

/* libproc2 lists the tasks and their owners (a stat() of /proc/PID, cheap).
 * The per-task files are read here with tight parsers: through libproc2
 * its sscanf-based parsing of /proc/PID/io and stat cost 17 ms per refresh
 * with 1,000 processes on the build machine (measured), 1.7 % of a core
 * by itself, over this pane's whole budget. */
/* Not const only because procps_pids_new takes a plain pointer; never written. */
static enum pids_item items[] = {PIDS_ID_PID, PIDS_ID_TID, PIDS_ID_EUID, PIDS_ID_TGID};
enum { I_PID, I_TID, I_EUID, I_TGID };

int procs_new(struct procs **out)
{
	struct procs *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	int rc = proc2_open(&p->lib);
	if (rc == 0)
		rc = proc2_pids_new(&p->lib, &p->info, items, sizeof items / sizeof items[0]);
	if (rc < 0) {
		proc2_close(&p->lib);
		free(p);
		return rc;
	}
	p->ts_err = taskstats_open(&p->ts);
	if (p->ts_err == 0) {
		/* Opening works for anyone; asking needs CAP_NET_ADMIN. */
		struct ts_record self;
		int q = taskstats_query(p->ts, (uint32_t)getpid(), 1, &self);
		if (q == -EPERM || q == -EACCES) {
			taskstats_close(p->ts);
			p->ts = NULL;
			p->ts_err = q;
		}
	}
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY)
		p->io_max = nofile.rlim_cur > PROCS_IO_FDS_SPARE ? nofile.rlim_cur - PROCS_IO_FDS_SPARE : 0;
	else
		p->io_max = IO_FDS_MAX;
	if (p->io_max > IO_FDS_MAX)
		p->io_max = IO_FDS_MAX;
	p->hz = sysconf(_SC_CLK_TCK);
	p->self = getpid();
	if (p->ts) {
		/* Exit records of tasks on every CPU that can ever be online:
		 * the kernel sends a task's record to the listeners of the CPU
		 * it exits on, so a CPU brought online later would be silent. */
		char cpus[256];
		if (util_read_text("/sys/devices/system/cpu/possible", cpus, sizeof cpus) > 0) {
			cpus[strcspn(cpus, "\n")] = '\0';
			if (taskstats_listen(cpus, &p->exits) < 0)
				p->exits = NULL;
		}
	}
	*out = p;
	return 0;
}

/* Free what entries still own (tasks that were not carried into the
 * next reading): their command lines and /proc/PID/io descriptors. */
static void let_go(struct procs *p, struct proc_seen *a, size_t n)
{
	procexit_free_reaped(a, n);
	for (size_t i = 0; i < n; i++) {
		free(a[i].cmdline);
		a[i].cmdline = NULL;
		if (a[i].io_held) {
			close(a[i].io_fd);
			a[i].io_held = 0;
			p->io_held--;
		}
	}
}

void procs_use_iter(struct procs *p, int on)
{
	p->iter_want = on;
	if (on && !p->iter_tried)
		util_strlcpy(p->iter_why, "starting (from the third refresh)", sizeof p->iter_why);
	if (!on) {
		taskiter_close(p->iter);
		p->iter = NULL;
		p->iter_tried = 0;
		util_strlcpy(p->iter_why, "not asked for", sizeof p->iter_why);
	}
}

void procs_free(struct procs *p)
{
	if (!p)
		return;
	if (p->info)
		proc2_pids_unref(&p->lib, &p->info);
	proc2_close(&p->lib);
	taskstats_close(p->ts);
	taskstats_unlisten(p->exits);
	procexit_free(&p->px);
	free(p->settled);
	free(p->gone);
	let_go(p, p->prev, p->nprev);
	free(p->prev);
	free(p->cur);
	taskiter_close(p->iter);
	util_texts_free(&p->user_texts);
	free(p->users);
	free(p);
}

void procs_forget_ioprio(struct procs *p)
{
	for (size_t i = 0; i < p->nprev; i++)
		p->prev[i].ioprio = -1;
}

uint64_t procs_delta(uint64_t prev, uint64_t cur, uint64_t children)
{
	uint64_t d = iostat_counter_delta(prev, cur);
	return d > children ? d - children : 0;
}

void procs_format_ioprio(int ioprio, int nice, char *buf, size_t len)
{
	if (ioprio < 0) { /* not read: the process had ended, or refused it */
		util_strlcpy(buf, "-", len);
		return;
	}
	int cls = ioprio >> IOPRIO_CLASS_SHIFT, lvl = ioprio & 7;
	switch (cls) {
	case 1: snprintf(buf, len, "rt/%d", lvl); break;
	case 2: snprintf(buf, len, "be/%d", lvl); break;
	case 3: util_strlcpy(buf, "idle", len); break;
	default: snprintf(buf, len, "be/%d", (nice + 20) / 5); break; /* none: follows nice */
	}
}

static int has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

const char *procs_row_user(const struct proc_row *r)
{
	return r->user ? r->user : "?";
}

const char *procs_row_cmdline(const struct proc_row *r)
{
	return r->cmdline ? r->cmdline : r->comm;
}

const char *procs_kind_name(enum proc_kind k)
{
	return k == PROC_WRITEBACK ? "writeback" : k == PROC_LOOP ? "loop" : k == PROC_SELF ? "self" :
	       k == PROC_JOURNAL ? "journal" : "process";
}

const char *procs_wait_name(enum proc_wait w)
{
	return w == WAIT_OK ? "ok" : w == WAIT_NA ? "n/a" : w == WAIT_NONE ? "none" : w == WAIT_BEFORE ? "before_delayacct" : "off";
}

enum proc_kind procs_classify(const char *comm, int ppid, int pid)
{
	if (ppid != 2 && pid != 2)
		return PROC_NORMAL; /* only kernel threads write on others' behalf */
	if (has_prefix(comm, "jbd2/") || has_prefix(comm, "xfsaild/"))
		return PROC_JOURNAL; /* the journal's commits, the log's metadata */
	if (has_prefix(comm, "btrfs-") || has_prefix(comm, "flush-") ||
	    /* "kworker/u8:3-flush-254:0" runs a disk's writeback; not
	     * "kworker/R-slub_flushwq", which only names its queue. */
	    (has_prefix(comm, "kworker/") && (strstr(comm, "-flush-") || strstr(comm, "-writeback"))))
		return PROC_WRITEBACK;
	if (has_prefix(comm, "loop") || (has_prefix(comm, "kworker/") && strstr(comm, "loop")))
		return PROC_LOOP;
	return PROC_NORMAL;
}

/* The name of uid, as /etc/passwd (or NSS) has it, else the number;
 * looked up once per uid, and kept in p's texts for p's lifetime: rows
 * point at it. */
static const char *user_of(struct procs *p, unsigned uid)
{
	for (size_t i = 0; i < p->nusers; i++)
		if (p->users[i].uid == uid)
			return p->users[i].name;
	char name[PROCS_USER_MAX], buf[1024];
	struct passwd pw, *found = NULL;
	if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found)
		util_strlcpy(name, found->pw_name, sizeof name);
	else
		util_fmt(name, sizeof name, "%u", uid);
	const char *kept = util_texts_keep(&p->user_texts, name, strlen(name));
	if (!kept || util_grow((void **)&p->users, &p->users_cap, p->nusers + 1, sizeof *p->users) < 0)
		return "?";
	p->users[p->nusers++] = (struct user_name){.uid = uid, .name = kept};
	return kept;
}

static int by_id(const void *a, const void *b)
{
	return ((const struct proc_seen *)a)->id - ((const struct proc_seen *)b)->id;
}

static struct proc_seen *lookup(const struct proc_seen *arr, size_t n, int id)
{
	struct proc_seen key = {.id = id};
	return n ? (struct proc_seen *)bsearch(&key, arr, n, sizeof *arr, by_id) : NULL; /* (arr may be NULL then) */
}

/* lookup for ids asked in rising order, as the rows mostly are: the
 * entry at *next (where the last one found was followed) is tried first,
 * and a search only when it is not the one. Two searches a row were a
 * third of a refresh's own time at 10,000 tasks. */
static struct proc_seen *lookup_next(const struct proc_seen *arr, size_t n, size_t *next, int id)
{
	const struct proc_seen *e = *next < n && arr[*next].id == id ? &arr[*next] : lookup(arr, n, id);
	if (e)
		*next = (size_t)(e - arr) + 1;
	return (struct proc_seen *)e;
}

/* Room for a reading of n tasks (a few more than the last had, so a
 * growing machine seldom moves it). */
static int reserve(struct procs *p, size_t n)
{
	if (n <= p->cur_cap)
		return 0;
	size_t cap = n + 64;
	struct proc_seen *a = realloc(p->cur, cap * sizeof *a);
	if (!a)
		return -ENOMEM;
	p->cur = a;
	p->cur_cap = cap;
	return 0;
}

/* The command line as one string (arguments joined by blanks), on the
 * heap, as long as a row holds; NULL when empty or unreadable. Three
 * system calls a task: read only for tasks named (procs_name). */
static char *read_cmdline(int pid)
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
static int read_io(struct procs *p, struct proc_seen *old, int pid, int tid, int threads, struct proc_seen *e)
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

static int read_stat(int pid, int tid, int threads, struct proc_seen *e)
{
	char path[64], buf[1024];
	task_path(path, sizeof path, pid, tid, threads, "stat");
	long n = util_read_small(path, buf, sizeof buf);
	return n < 0 ? (int)n : procs_parse_stat(buf, e);
}

/* One libproc2 row: who the task is, and its I/O counters. */
static void take(struct procs *p, const struct pids_stack *s, int threads, struct proc_seen *e, struct proc_row *r,
		 size_t *next_prev)
{
	const struct pids_info *info = p->info;
	(void)info; /* PIDS_VAL names it but does not use it */
	memset(r, 0, sizeof *r);
	memset(e, 0, sizeof *e);
	/* A thread's entry says its own id as PID: its process is TGID. */
	r->pid = threads ? PIDS_VAL(I_TGID, s_int, s, info) : PIDS_VAL(I_PID, s_int, s, info);
	r->tid = threads ? PIDS_VAL(I_TID, s_int, s, info) : r->pid;
	r->uid = PIDS_VAL(I_EUID, u_int, s, info);
	r->user = user_of(p, r->uid);
	e->id = r->tid;
	e->ioprio = -1;
	/* An unreadable /proc/PID/io is told apart from a real 0 here. */
	e->readable = read_io(p, lookup_next(p->prev, p->nprev, next_prev, e->id), r->pid, r->tid, threads, e) == 0;
}

/* The record of reaped children moves on, its interval's part emptied;
 * or, when this interval's children made e one already, what old had
 * since first read is added to it. Once: old no longer holds it (an id
 * listed twice in a racing /proc listing comes here twice). */
static void carry_reaped(struct proc_seen *old, struct proc_seen *e)
{
	if (!old->reaped)
		return;
	if (!e->reaped) {
		e->reaped = old->reaped;
		e->reaped->children = (struct proc_io){0};
	} else {
		procread_io_add(&e->reaped->cum, &old->reaped->cum);
		free(old->reaped);
	}
	old->reaped = NULL;
}

/* The command line read for old moves over to e (old no longer owns
 * it), unless the task's name changed: it ran another program (exec), and
 * the line is read again when the row is next named. A kernel thread's
 * name may change (a workqueue worker's says its work item), but it has
 * no command line to lose. */
static void carry_cmdline(struct proc_seen *old, struct proc_seen *e)
{
	if (e->cmdline_read)
		return; /* once: an id listed twice (a race in /proc) comes here twice */
	if (old->cmdline && strcmp(old->comm, e->comm) != 0) {
		free(old->cmdline);
	} else {
		e->cmdline = old->cmdline;
		e->cmdline_read = old->cmdline_read;
	}
	old->cmdline = NULL;
	old->cmdline_read = 0;
}

/* Carry what is known of a task from its previous reading. */
static void carry(struct proc_seen *old, struct proc_seen *e)
{
	if (old && old->start == e->start) {
		e->base = old->base;
		carry_reaped(old, e);
		e->ioprio = old->ioprio;
		e->waiting = old->waiting;
		e->c.blkio_count = old->c.blkio_count;
		e->c.blkio_ns = old->c.blkio_ns;
		carry_cmdline(old, e);
		return;
	}
	e->ioprio = -1;
	/* New task (or a reused pid with a new start time): its first reading. */
	e->base = procread_io_of(&e->c);
}

/* Row r's command line from its task's entry e, read the first time. */
static void name_from(struct proc_seen *e, struct proc_row *r)
{
	if (!e->cmdline_read) {
		e->cmdline = read_cmdline(r->pid);
		e->cmdline_read = 1;
	}
	r->cmdline = e->cmdline;
}

void procs_name(struct procs *p, struct proc_row *r)
{
	if (r->cmdline || r->exited)
		return;
	struct proc_seen *e = lookup(p->prev, p->nprev, r->tid);
	if (e && e->start == r->start)
		name_from(e, r);
}

int procs_row_notable(const struct proc_row *r)
{
	return r->moved || r->kind == PROC_SELF || r->blk_n[0] || r->blk_n[1] ||
	       (r->wait == WAIT_OK && r->io_wait_pct > 0);
}

/* Children reaped in the interval added their totals to their parent's
 * /proc/PID/io: remember them against the parent, to take them out. */

void procs_charge_reaped(const struct proc_seen *prev, size_t nprev, struct proc_seen *cur, size_t ncur)
{
	size_t at = 0; /* both by id: one pass finds who is still there */
	for (size_t i = 0; i < nprev; i++) {
		const struct proc_seen *old = &prev[i];
		while (at < ncur && cur[at].id < old->id)
			at++;
		if (old->settled || (at < ncur && cur[at].id == old->id))
			continue; /* accounted from its exit record, or still there */
		struct proc_seen *parent = lookup(cur, ncur, old->ppid);
		if (!parent)
			continue;
		struct proc_io by = procread_io_of(&old->c);
		procexit_reaped_add(parent, &by);
	}
}

static void query_waits(struct procs *p, int threads, struct proc_seen *e, const struct proc_seen *old, struct proc_row *r)
{
	int need = !old || old->start != e->start || r->moved || r->state == 'D' || e->waiting;
	if (!need)
		return;
	struct ts_record t;
	if (taskstats_query(p->ts, (uint32_t)e->id, !threads, &t) == 0) {
		e->c.blkio_count = t.blkio_count;
		e->c.blkio_ns = t.blkio_delay_ns;
	}
}

void procs_rates(const struct proc_seen *old, struct proc_seen *e, double dt, int wait_known, struct proc_row *r)
{
	int cont = old && old->start == e->start;
	r->read_Bps = r->write_Bps = r->read_calls = r->write_calls = 0;
	r->io_wait_pct = r->avg_wait_us = 0;
	if (cont && dt > 0) {
		struct proc_io kids = procexit_reaped_now(e);
		r->read_Bps = (double)procs_delta(old->c.rbytes, e->c.rbytes, kids.rbytes) / dt;
		r->write_Bps = (double)procs_delta(old->c.wbytes, e->c.wbytes, kids.wbytes) / dt;
		r->read_calls = (double)procs_delta(old->c.syscr, e->c.syscr, kids.syscr) / dt;
		r->write_calls = (double)procs_delta(old->c.syscw, e->c.syscw, kids.syscw) / dt;
	}
	r->total.rbytes = e->c.rbytes - e->base.rbytes;
	r->total.wbytes = e->c.wbytes - e->base.wbytes;
	r->total.syscr = e->c.syscr - e->base.syscr;
	r->total.syscw = e->c.syscw - e->base.syscw;
	r->wait = WAIT_OFF;
	e->waiting = 0;
	if (!wait_known || !cont || dt <= 0)
		return;
	uint64_t dn = iostat_counter_delta(old->c.blkio_count, e->c.blkio_count);
	uint64_t dns = iostat_counter_delta(old->c.blkio_ns, e->c.blkio_ns);
	if (dn) {
		r->wait = WAIT_OK;
		r->io_wait_pct = (double)dns / (dt * 1e9) * 100.0;
		r->avg_wait_us = (double)dns / (double)dn / 1e3;
		e->waiting = 1;
	} else {
		r->wait = r->read_Bps > 0 || r->write_Bps > 0 ? WAIT_NA : WAIT_NONE;
	}
}

static int delayacct_on(void)
{
	uint64_t v = 0;
	return util_read_u64("/proc/sys/kernel/task_delayacct", &v) == 0 && v;
}

static void status(const struct procs *p, int threads, struct procs_status *st)
{
	memset(st, 0, sizeof *st);
	st->threads = threads;
	st->delayacct = delayacct_on();
	st->taskstats = p->ts && p->ts_err == 0;
	st->exits = p->exits != NULL;
	st->as_root = geteuid() == 0;
	st->exits_lost = p->exits_lost;
	st->exit_records_lost = p->exits ? p->records_lost : -1;
	st->from_iter = p->iter != NULL;
	util_strlcpy(st->iter_why, p->iter_want ? p->iter_why : "not asked for", sizeof st->iter_why);
	if (!st->taskstats)
		util_fmt(st->missing, sizeof st->missing, "no taskstats (%s): I/O wait needs CAP_NET_ADMIN (root)",
			 strerror(-p->ts_err));
	else if (!st->delayacct)
		util_strlcpy(st->missing, "delay accounting is off (kernel.task_delayacct=0)",
			     sizeof st->missing);
}

static void take_exit(void *ctx, const struct ts_record *r, int tgid)
{
	struct procs *p = ctx;
	if (!tgid) /* the thread group's record has delays only */
		procexit_add(&p->px, r, util_mono_now());
}

/* The exit records that came, into p->px; in thread mode they are only
 * taken off the socket (rows are threads, the fallback is not needed). */
static void drain_exits(struct procs *p, int threads)
{
	if (!p->exits)
		return;
	int rc = threads ? taskstats_drain(p->exits, NULL, NULL) : taskstats_drain(p->exits, take_exit, p);
	if (rc == -ENOBUFS) {
		/* The socket is empty now, so every drop of this overflow has
		 * been counted; a later one says ENOBUFS again. */
		unsigned long dropped;
		p->exits_lost++;
		p->records_lost = taskstats_dropped(p->exits, &dropped) == 0 ? (long)dropped : -1;
	}
	if (threads) {
		procexit_free(&p->px);
		p->ngone = 0;
	}
}

static int same_group(const struct proc_row *a, const struct procexit_row *b)
{
	return a->ppid == b->ppid && strcmp(a->comm, b->comm) == 0;
}

/* Processes that ended this interval become rows, one per command and
 * parent (with a count), shown with the I/O of this interval for
 * EXIT_LINGER refreshes; older ones count down. */
static void add_gone(struct procs *p, const struct procexit_row *x, size_t nx, double dt)
{
	size_t keep = 0;
	for (size_t i = 0; i < p->ngone; i++)
		if (p->gone[i].ended_ago + 1 < EXIT_LINGER) {
			p->gone[i].ended_ago++;
			p->gone[keep++] = p->gone[i];
		}
	p->ngone = keep;
	size_t first_new = p->ngone;
	/* (out of memory: a new one that joins no row of this refresh is
	 * left out, its I/O not shown) */
	util_grow((void **)&p->gone, &p->gone_cap, p->ngone + nx, sizeof *p->gone);
	for (size_t i = 0; i < nx; i++) {
		struct proc_row *r = NULL;
		for (size_t k = first_new; k < p->ngone && !r; k++)
			if (same_group(&p->gone[k], &x[i]))
				r = &p->gone[k];
		if (!r) {
			if (p->ngone == p->gone_cap)
				continue;
			r = &p->gone[p->ngone++];
			memset(r, 0, sizeof *r);
			r->ppid = x[i].ppid;
			util_strlcpy(r->comm, x[i].comm, sizeof r->comm);
			r->exited = 1;
			r->io_readable = 1;
			r->ioprio = -1;
			r->wait = WAIT_OFF;
			r->state = 'X';
			/* the tool's own children (a switch, a fresh reader) are its own */
			r->kind = r->ppid == p->self ? PROC_SELF : procs_classify(r->comm, r->ppid, x[i].pid);
			r->user = user_of(p, x[i].uid);
		}
		r->pid = r->tid = x[i].pid; /* the last one's */
		r->count++;
		r->total.rbytes += x[i].last.rbytes;
		r->total.wbytes += x[i].last.wbytes;
		r->total.syscr += x[i].last.syscr;
		r->total.syscw += x[i].last.syscw;
		if (dt > 0) {
			r->read_Bps += (double)x[i].last.rbytes / dt;
			r->write_Bps += (double)x[i].last.wbytes / dt;
			r->read_calls += (double)x[i].last.syscr / dt;
			r->write_calls += (double)x[i].last.syscw / dt;
		}
		r->moved = r->read_Bps > 0 || r->write_Bps > 0 || r->read_calls > 0 || r->write_calls > 0;
	}
}

/* What one reading is made with, the same for every task. */
struct reading {
	int threads;
	double interval_s;
	double delayacct_since; /* when delay accounting came on; 0: not by us */
	double hz;              /* clock ticks a second: start times are in them */
	int wait_known;         /* taskstats and delay accounting both work */
};

/* Room for this many rows. */
static int rows_room(size_t want, struct proc_row **rows, size_t *cap)
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
	if (reserve(p, total) < 0)
		return -ENOMEM;
	return rows_room(total, rows, cap);
}

/* cur sorted by id for the lookups; /proc lists pids in order already,
 * and sorting entries this large moves a lot of memory, so only when
 * needed. */
static void sort_current(struct procs *p)
{
	size_t k = 1;
	while (k < p->ncur && p->cur[k - 1].id < p->cur[k].id)
		k++;
	if (k < p->ncur)
		qsort(p->cur, p->ncur, sizeof *p->cur, by_id);
}

/* After /proc was listed, a process missing from it has sent its exit
 * record by now: the records are read and settled against the two
 * listings. How many exit rows are settled. */
static size_t settle_exits(struct procs *p, int threads, struct procs_status *st)
{
	size_t nx = 0;
	drain_exits(p, threads);
	if (!threads) {
		/* at most one row per process waiting (out of memory: the rest
		 * wait for the next refresh) */
		util_grow((void **)&p->settled, &p->settled_cap, p->px.n, sizeof *p->settled);
		if (p->exits)
			nx = procexit_settle(&p->px, p->cur, p->ncur, p->prev, p->nprev, util_mono_now(), EXIT_STALE_S,
					     p->settled, p->settled_cap);
		procs_charge_reaped(p->prev, p->nprev, p->cur, p->ncur);
	}
	/* drain_exits just counted this refresh's drops: both counts of the
	 * line come from it (status() ran before it) */
	st->exits_lost = p->exits_lost;
	st->exit_records_lost = p->exits ? p->records_lost : -1;
	return nx;
}

/* stat only for new tasks and tasks that did I/O: their state and nice
 * may have changed, and a new start time means a reused pid. The others
 * keep what was read before. */
static void refresh_stat(const struct proc_row *r, int threads, int moved, const struct proc_seen *old,
			 struct proc_seen *e)
{
	if (e->from_walk == 1)
		return; /* all of it fresh from the task walk */
	if (e->from_walk == 2 && old && !moved) {
		/* a workqueue worker that did nothing: its name as last read */
		memcpy(e->comm, old->comm, sizeof e->comm);
		return;
	}
	if ((!old || moved) && read_stat(r->pid, r->tid, threads, e) == 0)
		return; /* fresh: state, nice, ppid, start as they are now */
	if (old) {
		e->start = old->start;
		e->ppid = old->ppid;
		e->state = old->state;
		e->nice = old->nice;
		memcpy(e->comm, old->comm, sizeof e->comm);
	}
}

/* A task born since the last reading did all its I/O in this interval
 * (its counters start at 0 at fork): without this, what a short-lived
 * writer (dpkg's unpacker) wrote before it was first seen was charged to
 * no one. One tick of slack: start times are in ticks. */
static int born_since(const struct procs *p, const struct reading *rd, const struct proc_seen *old,
		      const struct proc_seen *e)
{
	return (!old || old->start != e->start) && p->prev_up > 0 && e->start > 0 &&
	       (double)e->start / rd->hz >= p->prev_up - 1.0 / rd->hz;
}

/* Row r from its task's reading e and the one before, old (NULL: new). */
static void fill_row(struct procs *p, const struct reading *rd, struct proc_seen *e, struct proc_seen *old,
		     struct proc_row *r, struct procs_status *st)
{
	int moved = old && (old->c.rbytes != e->c.rbytes || old->c.wbytes != e->c.wbytes ||
			    old->c.syscr != e->c.syscr || old->c.syscw != e->c.syscw);
	refresh_stat(r, rd->threads, moved, old, e);
	carry(old, e);
	struct proc_seen born = {.start = e->start};
	int newborn = born_since(p, rd, old, e);
	if (newborn)
		memset(&e->base, 0, sizeof e->base);
	r->ppid = e->ppid;
	r->state = e->state;
	r->nice = e->nice;
	r->start = e->start;
	util_strlcpy(r->comm, e->comm, sizeof r->comm);
	/* The tool's children carry its probe reads and its switches. */
	r->kind = r->pid == p->self || r->ppid == p->self ? PROC_SELF : procs_classify(r->comm, r->ppid, r->pid);
	r->io_readable = e->readable;
	if (!r->io_readable)
		st->unreadable++;
	r->moved = (old && old->start == e->start && moved) ||
		   (newborn && (e->c.rbytes || e->c.wbytes || e->c.syscr || e->c.syscw));
	if (rd->wait_known)
		query_waits(p, rd->threads, e, old, r);
	if (e->ioprio < 0 || r->moved)
		e->ioprio = (int)syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, r->tid);
	r->ioprio = e->ioprio;
	/* A newborn's bytes count from 0; its waits do not: a share of the
	 * interval it lived only part of would read low. */
	procs_rates(old ? old : newborn ? &born : NULL, e, rd->interval_s, rd->wait_known && old, r);
	/* A kernel thread that writes does so for others (writeback,
	 * journal), whatever work item its name shows right now. */
	if (r->kind == PROC_NORMAL && (r->ppid == 2 || r->pid == 2) && r->write_Bps > 0)
		r->kind = PROC_WRITEBACK;
	r->partial = rd->delayacct_since > 0 && (double)r->start / rd->hz < rd->delayacct_since;
	if (r->partial && r->wait != WAIT_OK && r->wait != WAIT_OFF)
		r->wait = WAIT_BEFORE;
	/* lives until let_go, after the next reading */
	if (procs_row_notable(r))
		name_from(e, r);
	else
		r->cmdline = e->cmdline;
}

/* This reading is the next one's previous; what it did not carry over
 * has ended. */
static void keep_as_previous(struct procs *p, double up)
{
	let_go(p, p->prev, p->nprev);
	p->prev_up = up;
	free(p->prev);
	p->prev = p->cur;
	p->prev_cap = p->cur_cap;
	p->nprev = p->ncur;
	p->cur = NULL;
	p->cur_cap = 0;
	p->ncur = 0;
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
	r->user = user_of(p, k->euid);
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

/* The tasks, their owners and counters: from the kernel's walk when it is
 * loaded (asked for, from the third reading on: loading it must not delay
 * the first sample), else libproc2's listing and a /proc/PID/io per task.
 * Returns how many, or a negative errno. */
static ssize_t take_all(struct procs *p, int threads, struct proc_row **rows, size_t *cap)
{
	if (p->iter_want && !p->iter_tried && ++p->readings > 2) {
		p->iter_tried = 1;
		if (taskiter_open(&p->iter, p->iter_why, sizeof p->iter_why) == 0)
			p->iter_why[0] = '\0';
	}
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
	size_t next_prev = 0;
	for (size_t i = 0; i < total; i++)
		take(p, f->stacks[i], threads, &p->cur[i], &(*rows)[i], &next_prev);
	return (ssize_t)total;
}

int procs_collect(struct procs *p, int threads, double interval_s, double delayacct_since, struct proc_row **rows,
		  size_t *n, size_t *cap, struct procs_status *st)
{
	/* The rows' command lines may be freed from here on. */
	*n = 0;
	if (threads != p->threads) {
		let_go(p, p->prev, p->nprev);
		p->nprev = 0; /* ids change meaning: start afresh */
		p->threads = threads;
	}
	/* Since boot, as start times are (CLOCK_BOOTTIME, what /proc/uptime
	 * reads): a clock, not a file to open and parse every refresh. */
	double up = util_boot_now();
	ssize_t got = take_all(p, threads, rows, cap);
	if (got < 0)
		return (int)got;
	size_t total = (size_t)got;
	status(p, threads, st);
	struct reading rd = {.threads = threads, .interval_s = interval_s, .delayacct_since = delayacct_since,
			     .hz = p->hz > 0 ? (double)p->hz : 100.0, .wait_known = st->taskstats && st->delayacct};
	/* The new readings; rows keep the listing's order and find their
	 * entry by id. */
	p->ncur = total;
	sort_current(p);
	size_t nx = settle_exits(p, threads, st);
	size_t next_cur = 0, next_prev = 0;
	for (size_t i = 0; i < total; i++) {
		struct proc_row *r = &(*rows)[i];
		fill_row(p, &rd, lookup_next(p->cur, p->ncur, &next_cur, r->tid),
			 lookup_next(p->prev, p->nprev, &next_prev, r->tid), r, st);
	}
	/* Processes that ended: after the live ones, for the sort to place. */
	if (!threads && p->exits) {
		add_gone(p, p->settled, nx, interval_s);
		if (p->ngone && rows_room(total + p->ngone, rows, cap) == 0) {
			memcpy(*rows + total, p->gone, p->ngone * sizeof **rows);
			total += p->ngone;
		}
	}
	*n = total;
	keep_as_previous(p, up);
	return 0;
}
