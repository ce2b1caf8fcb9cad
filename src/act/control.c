/* control: see include/act/control.h */
#include "controlparts.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <string.h>
#include <time.h>

#include "base/util.h"

#define DELAYACCT "/proc/sys/kernel/task_delayacct"
/* Root's record of the runs that turned it on (act/sysctlhold.h). */
static const struct sysctl_share delayacct_share = {
	.sysctl = DELAYACCT, .dir = "/run/iosched-top", .stem = "task_delayacct"};

int control_init(struct control *c, const struct tune_sysfs *sysfs)
{
	memset(c, 0, sizeof *c);
	c->sysfs = sysfs;
	sysctlhold_init(&c->delayacct);
	return worker_start(&c->w);
}

size_t control_take_events(struct control *c, struct event *out, size_t max)
{
	return eventlog_take(&c->out, out, max);
}

size_t control_pending(struct control *c, struct pending_change *out, size_t max)
{
	struct worker_job jobs[WORKER_QUEUE];
	size_t n = worker_jobs(c->w, jobs, WORKER_QUEUE);
	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++) {
		struct pending_change *p = &out[i];
		memset(p, 0, sizeof *p);
		util_strlcpy(p->disk, jobs[i].req.disk, sizeof p->disk);
		tune_label(jobs[i].req.kind, jobs[i].req.key, p->key, sizeof p->key);
		util_strlcpy(p->to, jobs[i].req.value, sizeof p->to);
		p->running = jobs[i].running;
		p->since = jobs[i].since;
	}
	return n;
}

static void describe(const struct tune_req *r, char *buf, size_t len)
{
	char label[80];
	if (r->kind == TUNE_IOPRIO) {
		util_fmt(buf, len, "pid %d (%s) I/O priority -> %s", r->pid, r->disk, r->value);
		return;
	}
	tune_label(r->kind, r->key, label, sizeof label);
	util_fmt(buf, len, "%s %s -> %s", r->disk, label, r->value);
}

int control_request(struct control *c, const struct tune_req *req, char *msg, size_t len)
{
	struct tune_req r = *req;
	r.sysfs = c->sysfs;
	if (tune_validate(&r, msg, len) < 0)
		return -1;
	char what[160];
	describe(&r, what, sizeof what);
	struct worker_job jobs[WORKER_QUEUE];
	size_t ahead = worker_jobs(c->w, jobs, WORKER_QUEUE);
	if (worker_submit(c->w, &r, NULL, 0) < 0) {
		util_fmt(msg, len, "%s refused: %d changes already waiting; wait for them", what, WORKER_QUEUE);
		return -1;
	}
	if (ahead)
		util_fmt(msg, len, "%s: queued behind %zu change(s) still in the kernel", what, ahead);
	else
		util_fmt(msg, len, "%s ...", what);
	return 0;
}

/* Queue the undo of entry e; a switch puts back what it had reset once
 * it has succeeded (worker.c). */
static int submit_undo(struct control *c, const struct undo_entry *e)
{
	return worker_submit(c->w, &e->back, e->resets, e->nresets);
}

int control_undo(struct control *c, char *msg, size_t len)
{
	struct undo_entry e;
	if (undo_pop(&c->undo, &e) < 0) {
		util_fmt(msg, len, "%s", worker_idle(c->w) ? "nothing to undo"
						      : "nothing to undo yet: a change is still in the kernel; u again when it is done");
		return -1;
	}
	char what[160];
	describe(&e.back, what, sizeof what);
	if (submit_undo(c, &e) < 0) {
		undo_repush(&c->undo, &e);
		util_fmt(msg, len, "undo refused: %d changes already waiting", WORKER_QUEUE);
		return -1;
	}
	size_t nq = 0;
	for (size_t i = 0; i < e.nresets; i++)
		nq += e.resets[i].kind == TUNE_QUEUE;
	char with[128] = "";
	if (nq && nq < e.nresets)
		util_fmt(with, sizeof with, " (and the %zu queue setting(s) it had reset, and %s's own settings as they were)",
			 nq, e.back.value);
	else if (nq)
		util_fmt(with, sizeof with, " (and the %zu queue setting(s) it had reset)", nq);
	else if (e.nresets)
		util_fmt(with, sizeof with, " (and %s's own settings as they were)", e.back.value);
	util_fmt(msg, len, "undo: %s%s", what, with);
	return 0;
}

static int same_setting(const struct tune_req *a, const struct tune_req *b)
{
	return a->kind == b->kind && a->pid == b->pid && !strcmp(a->disk, b->disk) && !strcmp(a->key, b->key) &&
	       !strcmp(a->cgroup, b->cgroup);
}

/* Whether the setting's file exists now (a scheduler file: the scheduler
 * in force has it). */
static int in_force(const struct tune_req *r)
{
	char path[PATH_MAX];
	return tune_req_path(r, path, sizeof path) == 0 && access(path, F_OK) == 0;
}

static int same_key(const struct tune_req *a, const char *disk, const struct tune_reset *rs)
{
	return a->kind == rs->kind && !strcmp(a->disk, disk) && !strcmp(a->key, rs->key);
}

/* e, older than the switches kept, changed a file of a scheduler: a
 * switch away from that scheduler noted the file's value then, which e
 * had set; the value to go back to is the one before e. */
static void own_older(struct undo_entry *kept, size_t n, const struct undo_entry *e)
{
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; kept[i].back.kind == TUNE_SCHEDULER && r < kept[i].nresets; r++)
			if (same_key(&e->back, kept[i].back.disk, &kept[i].resets[r]))
				util_strlcpy(kept[i].resets[r].before, e->back.value, sizeof kept[i].resets[r].before);
}

/* A switch's queue attributes first, then the scheduler's files: writing
 * nr_requests makes mq-deadline work out its async_depth again. */
static void resets_queue_first(struct undo_entry *e)
{
	struct tune_reset sorted[TUNE_RESETS_MAX];
	size_t n = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t r = 0; r < e->nresets; r++)
			if ((e->resets[r].kind == TUNE_QUEUE) == (pass == 0))
				sorted[n++] = e->resets[r];
	memcpy(e->resets, sorted, n * sizeof *sorted);
}

/* Keep in kept (n entries) entry e, popped after them and so older: of
 * the same setting, the oldest value is the one to go back to. A switch's
 * resets are changes of their settings at the switch, older than any
 * kept entry of those settings (a queue attribute, a file of the
 * scheduler switched away from): those go, the reset puts the value back
 * (once, and not by way of a value in between). Two switches of one
 * disk: the older one's resets win, the newer one's add the queue
 * attributes the older did not touch; the newer one's scheduler files
 * belong to a scheduler in between, not the one the older switch goes
 * back to. */
static void keep_oldest(struct undo_entry *kept, size_t *n, const struct undo_entry *e)
{
	if (e->back.kind == TUNE_IOSCHED)
		own_older(kept, *n, e);
	for (size_t r = 0; r < e->nresets; r++)
		for (size_t i = 0; i < *n; i++)
			if (same_key(&kept[i].back, e->back.disk, &e->resets[r])) {
				memmove(&kept[i], &kept[i + 1], (*n - i - 1) * sizeof *kept);
				(*n)--;
				break;
			}
	size_t i;
	for (i = 0; i < *n && !same_setting(&kept[i].back, &e->back); i++)
		;
	struct undo_entry merged = *e;
	if (i < *n)
		for (size_t r = 0; r < kept[i].nresets && merged.nresets < TUNE_RESETS_MAX; r++) {
			size_t k;
			if (kept[i].resets[r].kind != TUNE_QUEUE)
				continue;
			for (k = 0; k < merged.nresets && strcmp(merged.resets[k].key, kept[i].resets[r].key); k++)
				;
			if (k == merged.nresets)
				merged.resets[merged.nresets++] = kept[i].resets[r];
		}
	resets_queue_first(&merged);
	kept[i] = merged;
	if (i == *n)
		(*n)++;
}

/* The restore itself, once every change made is in the log. */
static size_t restore_now(struct control *c, size_t base)
{
	/* On the heap: UNDO_MAX entries with their resets are 850 KiB. */
	struct undo_entry *keep = c->undo.n > base ? calloc(c->undo.n - base, sizeof *keep) : NULL;
	if (!keep) {
		if (c->undo.n > base)
			util_strlcpy(c->last, "restore: no memory to work it out; u or the exit puts changes back one by one",
				     sizeof c->last);
		return 0;
	}
	size_t n = 0;
	struct undo_entry e;
	while (c->undo.n > base && undo_pop(&c->undo, &e) == 0)
		keep_oldest(keep, &n, &e);
	/* A scheduler's own files first, while the scheduler they belong to
	 * is in force: the switch back would take them away (restoring
	 * bfq's low_latency after the switch to mq-deadline fails), and the
	 * scheduler that is switched back to starts with its defaults. A file
	 * that is not there now belonged to a scheduler already gone: nothing
	 * to put back. Then the schedulers (each with what it had reset),
	 * then the queue attributes, which a switch resets. What the worker's
	 * queue has no room for goes back into the log: u or the exit puts
	 * it back. */
	static const enum tune_kind order[] = {TUNE_IOSCHED, TUNE_SCHEDULER, TUNE_QUEUE, TUNE_IOPRIO,
						TUNE_BFQ_WEIGHT};
	size_t sent = 0;
	for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
		for (size_t i = 0; i < n; i++) {
			if (keep[i].back.kind != order[k] || (order[k] == TUNE_IOSCHED && !in_force(&keep[i].back)))
				continue;
			if (submit_undo(c, &keep[i]) == 0)
				sent++;
			else
				undo_repush(&c->undo, &keep[i]);
		}
	free(keep);
	return sent;
}

size_t control_restore_to(struct control *c, size_t base)
{
	c->restoring = 1;
	/* A change still queued or in the kernel (an A/B stopped while it
	 * switched) enters the log only when it completes, with the value
	 * before it as the one to go back to: a restore worked out now would
	 * miss it, and a later undo of it would set that in-between value
	 * again. So the restore waits until the worker is idle; control_poll
	 * does it then. */
	if (!worker_idle(c->w)) {
		c->restore_due = 1;
		c->restore_base = base;
		return 0;
	}
	control_poll(c);
	return restore_now(c, base);
}

/* What a switch in the exit report made the kernel reset: each queue
 * attribute on a line; the old scheduler's files, which it dropped, on
 * one (the revert script below puts them back). */
/* What the exit report adds to a process's I/O priority change left in
 * place, into buf: nothing while it is the process changed. One held in
 * execve gets no revert command, and the advice is to check it is still
 * that process first (its pid may be another's: the tool refused to
 * guess, a bare ionice would not). */
static const char *ioprio_state(const struct tune_req *b, char *buf, size_t len)
{
	int same = tune_req_same_process(b);
	if (same < 0)
		util_fmt(buf, len, " (it does not answer, held in execve?: whether it is the process changed cannot be "
			 "told, so no command for it below; once it answers, set it by hand only if field 22 of "
			 "/proc/%d/stat is still %llu)", b->pid, b->start);
	else
		util_fmt(buf, len, "%s", same ? "" : " (it has ended; what it started may have it)");
	return buf;
}

static void print_resets(FILE *f, const struct undo_entry *e)
{
	size_t own = 0;
	for (size_t k = 0; k < e->nresets; k++) {
		const struct tune_reset *rs = &e->resets[k];
		if (rs->kind == TUNE_QUEUE)
			fprintf(f, "    %s %s: %s -> %s (reset by the kernel with this switch)\n", e->back.disk, rs->key,
				rs->before, rs->after);
		else
			own++;
	}
	if (!own)
		return;
	fprintf(f, "    %s %s's own settings before the switch, dropped by the kernel:", e->back.disk, e->back.value);
	for (size_t k = 0; k < e->nresets; k++)
		if (e->resets[k].kind == TUNE_IOSCHED)
			fprintf(f, " %s=%s", e->resets[k].key, e->resets[k].before);
	fputc('\n', f);
}

static void record(struct control *c, const struct worker_result *res)
{
	eventlog_add(&c->out, &res->ev);
	if (res->ev.ok && !res->req.undo) {
		if (undo_push(&c->undo, &res->req, &res->ev) == 0)
			undo_attach_resets(&c->undo, res->resets, res->nresets);
	} else if (!res->ev.ok && res->req.undo && res->req.kind == TUNE_IOPRIO && res->rc == -ESRCH) {
		/* Its process has ended, and nothing it started since has the
		 * tool's value: nothing to put back, nothing failed (the pid
		 * may be another's now). */
		c->undone_ended++;
	} else if (!res->ev.ok && res->req.undo) {
		/* The undo failed: keep it, with what it still owes, so u can
		 * try again. */
		struct undo_entry e = {.back = res->req, .ts = res->ev.ts};
		util_strlcpy(e.applied, res->ev.from, sizeof e.applied);
		memcpy(e.resets, res->resets, res->nresets * sizeof *res->resets);
		e.nresets = res->nresets;
		undo_repush(&c->undo, &e);
	} else if (res->ev.ok && !res->req.reset) {
		c->undone++;
	} else if (res->ev.ok) {
		(*(res->req.kind == TUNE_IOSCHED ? &c->undone_own : &c->undone_resets))++;
	}
	/* The status line names the change asked for: a setting put back
	 * after a switch back follows in the same batch and would hide it
	 * (the event log lists it); only its failure is said. */
	if (res->ev.ok && res->req.reset)
		return;
	c->last_ok = res->ev.ok;
	if (res->ev.ok && res->ev.type == EV_IOPRIO) /* a process, not a disk */
		util_fmt(c->last, sizeof c->last, "%s (pid %d): I/O priority %s -> %s%s", res->req.disk, res->ev.pid,
			 res->ev.from, res->ev.to, res->req.undo ? " (undo)" : "");
	else if (res->ev.ok && res->ev.type == EV_BFQ_WEIGHT) /* a unit, not a disk */
		util_fmt(c->last, sizeof c->last, "%s: io.bfq.weight %s -> %s%s", res->req.cgroup, res->ev.from,
			 res->ev.to, res->req.undo ? " (undo)" : "");
	else if (res->ev.ok)
		util_fmt(c->last, sizeof c->last, "%s: %s %s -> %s in %.0f ms%s", res->ev.disk, res->ev.key,
			 res->ev.from, res->ev.to, res->ev.ms, res->req.undo ? " (undo)" : "");
	else
		util_strlcpy(c->last, res->ev.error, sizeof c->last);
	c->last_mono = util_mono_now();
}

static size_t take_results(struct control *c)
{
	struct worker_result res[8];
	size_t total = 0, n;
	while ((n = worker_take(c->w, res, 8)) > 0) {
		for (size_t i = 0; i < n; i++)
			record(c, &res[i]);
		total += n;
	}
	return total;
}

size_t control_poll(struct control *c)
{
	size_t total = take_results(c);
	if (c->restore_due && worker_idle(c->w)) {
		/* Idle: whatever finished since the take above is waiting; with
		 * it taken, the log is complete. */
		total += take_results(c);
		c->restore_due = 0;
		restore_now(c, c->restore_base);
	}
	return total;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Wait until the worker is idle or deadline (mono) passes; collects results
 * (again when that queued a restore that was waiting for the idle worker). */
static int wait_idle(struct control *c, double deadline)
{
	do {
		while (!worker_idle(c->w) && util_mono_now() < deadline)
			sleep_ms(10);
		control_poll(c);
	} while (!worker_idle(c->w) && util_mono_now() < deadline);
	return worker_idle(c->w) ? 0 : -1;
}

/* Walk the undo log back completely. Returns the number that failed. */
/* Whether r's setting has an undo set aside as failed: an older change
 * of it is held back too, or its revert would pass over the failed one
 * (the revert line would then give the older value). */
static int behind_failed(const struct undo_log *aside, const struct tune_req *r)
{
	for (size_t i = 0; i < aside->n; i++)
		if (same_setting(&aside->e[i].back, r))
			return 1;
	return 0;
}

static void note_failed(struct control *c)
{
	if (!c->first_failed[0])
		util_strlcpy(c->first_failed, c->last, sizeof c->first_failed);
}

static int undo_pass(struct control *c, double deadline)
{
	int failed = 0;
	struct undo_log aside = {0};
	struct undo_entry e;
	while (undo_pop(&c->undo, &e) == 0) {
		if (util_mono_now() >= deadline) {
			/* past the wait: nothing more is begun; listed, as not done */
			undo_repush(&c->undo, &e);
			failed++;
			note_failed(c);
			break;
		}
		if (behind_failed(&aside, &e.back)) {
			undo_repush(&aside, &e);
			failed++;
			continue;
		}
		/* An I/O priority whose process has ended goes too: what it
		 * started since inherited the value (record counts it as ended
		 * when nothing of it is left). */
		if (submit_undo(c, &e) < 0) {
			undo_repush(&c->undo, &e);
			failed++;
			note_failed(c);
			break;
		}
		if (wait_idle(c, deadline) < 0) {
			/* still under way: listed with its revert line, as not done */
			undo_repush(&c->undo, &e);
			failed++;
			util_fmt(c->last, sizeof c->last, "an undo still under way after the wait (%s)", e.back.disk);
			note_failed(c);
			break;
		}
		/* A failed undo was pushed back by record() (a switch's reset that
		 * failed, as an entry of its own, is tried once more first): put
		 * it aside so the walk ends, and back into the log after it, so
		 * the exit report lists it with its revert command. */
		const struct tune_req *top = c->undo.n ? &c->undo.e[c->undo.n - 1].back : NULL;
		if (top && same_setting(top, &e.back) && !strcmp(top->value, e.back.value)) {
			undo_repush(&aside, &c->undo.e[--c->undo.n]);
			failed++;
			note_failed(c);
		}
	}
	/* Set aside newest first: back in the log oldest first. */
	for (size_t i = aside.n; i-- > 0;)
		undo_repush(&c->undo, &aside.e[i]);
	undo_free(&aside);
	return failed;
}

/* The entries of from moved to the end of to, in their order (to keeps
 * what it counts as dropped or lost). */
static void move_all(struct undo_log *from, struct undo_log *to)
{
	for (size_t i = 0; i < from->n; i++)
		undo_repush(to, &from->e[i]);
	from->n = 0;
}

/* The I/O priorities of log moved to out, both kept in their order. */
static void split_prios(struct undo_log *log, struct undo_log *out)
{
	size_t k = 0;
	for (size_t i = 0; i < log->n; i++) {
		if (log->e[i].back.kind == TUNE_IOPRIO)
			undo_repush(out, &log->e[i]);
		else
			log->e[k++] = log->e[i];
	}
	log->n = k;
}

/* Every change put back, newest first: the disks' and units' settings,
 * then the I/O priorities. A priority's undo can take long or fail (a
 * family that keeps forking, a process held in execve) and must not hold
 * back a scheduler's, which does not depend on it. What a pass leaves
 * (failed, held back) is not tried again by the next; the priorities are
 * not begun past the deadline (one queued then would run after the
 * report). */
static int undo_all(struct control *c, double deadline)
{
	struct undo_log prios = {0}, left = {0};
	c->first_failed[0] = '\0';
	split_prios(&c->undo, &prios);
	int failed = undo_pass(c, deadline);
	move_all(&c->undo, &left);
	move_all(&prios, &c->undo);
	if (c->undo.n && util_mono_now() < deadline && worker_idle(c->w))
		failed += undo_pass(c, deadline);
	else if (c->undo.n) {
		failed += (int)c->undo.n; /* not tried: listed with their revert lines */
		util_fmt(c->last, sizeof c->last, "%zu I/O priorit%s not tried: the wait had ended", c->undo.n,
			 c->undo.n == 1 ? "y" : "ies");
		note_failed(c);
	}
	move_all(&c->undo, &left);
	move_all(&left, &c->undo);
	undo_free(&prios);
	undo_free(&left);
	return failed;
}

int control_apply_now(struct control *c, const struct tune_req *r, size_t n, char *err, size_t len)
{
	size_t before = c->undo.n;
	for (size_t i = 0; i < n; i++) {
		if (control_request(c, &r[i], err, len) < 0 || wait_idle(c, util_mono_now() + 3600) < 0)
			return -1;
		if (!c->last_ok) { /* its event says why */
			util_strlcpy(err, c->last, len);
			/* All or nothing: put back what this call already made
			 * (a failed undo goes back into the log: once each). */
			for (size_t k = c->undo.n - before; k > 0 && c->undo.n > before; k--) {
				struct undo_entry e;
				undo_pop(&c->undo, &e);
				if (submit_undo(c, &e) == 0)
					wait_idle(c, util_mono_now() + 60);
			}
			return -1;
		}
	}
	return 0;
}

int control_delayacct(struct control *c, int on, char *msg, size_t len)
{
	uint64_t now = 0;
	if (util_read_u64(DELAYACCT, &now) < 0) {
		util_fmt(msg, len, "this kernel has no delay accounting (%s missing)", DELAYACCT);
		return -1;
	}
	int pid = 0;
	if (!on && now && sysctlhold_others(&delayacct_share, &pid) > 0) {
		util_fmt(msg, len, "kernel.task_delayacct left on: another iosched-top run (pid %d) uses it; "
			 "it goes back to what it was when the last such run ends", pid);
		return -1;
	}
	struct event ev = {.ts = util_real_now(), .mono = util_mono_now()};
	ev.type = EV_DELAYACCT;
	util_strlcpy(ev.key, "kernel.task_delayacct", sizeof ev.key);
	snprintf(ev.to, sizeof ev.to, "%d", on ? 1 : 0);
	int was = 0;
	char err[160] = "";
	int rc = sysctlhold_set(&delayacct_share, &c->delayacct, on ? 1 : 0, &was, err, sizeof err);
	snprintf(ev.from, sizeof ev.from, "%d", was ? 1 : 0);
	ev.ok = rc == 0;
	if (rc < 0)
		util_fmt(ev.error, sizeof ev.error, "cannot set kernel.task_delayacct: %s%s", err,
			 -rc == EACCES || -rc == EPERM ? " (needs root)" : "");
	eventlog_add(&c->out, &ev);
	if (rc < 0) {
		util_strlcpy(msg, ev.error, len);
		return -1;
	}
	/* Tasks started before this moment have only part of their waits. */
	c->delayacct_since = on ? util_boot_now() : 0;
	util_fmt(msg, len, "kernel.task_delayacct = %d%s", on ? 1 : 0,
		 on ? " (I/O wait per process; tasks already running show partial figures, marked *)" : "");
	return 0;
}

/* "sudo " before a command that needs root, for a user who came through
 * sudo (or is not root); none for a root login, where sudo may not even
 * be installed. */
static const char *sudo_prefix(void)
{
	const char *via = getenv("SUDO_USER");
	return geteuid() != 0 || (via && via[0]) ? "sudo " : "";
}

/* At exit: the last run holding delay accounting puts it back. */
static void delayacct_release(struct control *c, FILE *f)
{
	int v = 0;
	int rc = sysctlhold_release(&delayacct_share, &c->delayacct, &v);
	if (rc == 1)
		fprintf(f, "iosched-top: kernel.task_delayacct set back to %d, as it was\n", v);
	else if (rc == 2)
		fprintf(f, "iosched-top: kernel.task_delayacct left as it is: another iosched-top run (pid %d) uses it, "
			   "and the last such run puts it back\n", v);
	else if (rc < 0)
		fprintf(f, "iosched-top: could not set kernel.task_delayacct back to %d: sysctl -w kernel.task_delayacct=%d\n",
			v, v);
}

static int finish_report(struct control *c, int restore, double wait_s, FILE *f)
{
	/* Queued restores must land (never leave a half-changed system); a
	 * user's switch stuck in the kernel must not hold the exit. */
	wait_idle(c, util_mono_now() + (restore || c->restoring ? wait_s : 0.5));
	if (!worker_idle(c->w)) {
		struct worker_job j;
		if (worker_jobs(c->w, &j, 1) == 1)
			fprintf(f, "iosched-top: %s %s -> %s is still in the kernel after %.1f s; it will finish on its own\n",
				j.req.disk, j.req.key, j.req.value, util_mono_now() - j.since);
	}
	int rc = 0;
	delayacct_release(c, f);
	if (restore && c->undo.n) {
		c->undone = c->undone_resets = c->undone_own = c->undone_ended = 0;
		int failed = undo_all(c, util_mono_now() + wait_s);
		fprintf(f, "iosched-top: restored %zu change(s)", c->undone);
		if (c->undone_resets)
			fprintf(f, " and %zu queue setting(s) a switch had reset", c->undone_resets);
		if (c->undone_own)
			fprintf(f, " and %zu scheduler setting(s) a switch had dropped", c->undone_own);
		if (c->undone_ended)
			fprintf(f, "; %zu I/O priorit%s not put back: the process had ended", c->undone_ended,
				c->undone_ended == 1 ? "y" : "ies");
		fprintf(f, "%s\n", failed || c->undo.n || c->undo.dropped || c->undo.lost ? "" : ", all settings are as they were");
		/* Whatever undo_all left in the log, it counted as failed. */
		if (failed) {
			rc = 1;
			fprintf(f, "iosched-top: %d write(s) to put things back failed or were held back (the first: %s)\n",
				failed, c->first_failed[0] ? c->first_failed : c->last);
		}
	}
	if (c->undo.n) {
		char script[8192];
		fprintf(f, "iosched-top: changed and left in place (%s):\n",
			restore ? "their undo failed or was held back, as said above"
				: "run with --restore to put them back at exit");
		for (size_t i = 0; i < c->undo.n; i++) {
			const struct undo_entry *e = &c->undo.e[i];
			char label[80];
			tune_label(e->back.kind, e->back.key, label, sizeof label);
			char why[320];
			if (e->back.kind == TUNE_IOPRIO)
				fprintf(f, "  pid %d (%s) I/O priority: %s -> %s%s\n", e->back.pid, e->back.disk, e->back.value,
					e->applied, ioprio_state(&e->back, why, sizeof why));
			else if (e->back.kind == TUNE_BFQ_WEIGHT)
				fprintf(f, "  cgroup %s io.bfq.weight: %s -> %s\n", e->back.cgroup, e->back.value, e->applied);
			else
				fprintf(f, "  %s %s: %s -> %s\n", e->back.disk, label, e->back.value, e->applied);
			print_resets(f, e);
		}
		size_t whole = undo_script(&c->undo, script, sizeof script);
		const char *sudo = sudo_prefix();
		/* none at all when every change left is one it can give no
		 * command for (a process held in execve) */
		if (script[0] && whole == c->undo.n)
			fprintf(f, "to revert: %ssh -c '%s'\n", sudo, script);
		else if (script[0])
			fprintf(f, "to revert the newest %zu of these %zu changes (all would not fit on one line; run it, then revert the rest as listed): %ssh -c '%s'\n",
				whole, c->undo.n, sudo, script);
	}
	if (c->undo.dropped) {
		/* The log keeps the newest UNDO_MAX: the oldest values are gone. */
		fprintf(f, "iosched-top: %zu older change(s) fell out of the log (it keeps %d) and were %s\n",
			c->undo.dropped, UNDO_MAX, restore ? "not put back" : "not listed");
		rc = restore ? 1 : rc;
	}
	if (c->undo.lost) {
		fprintf(f, "iosched-top: %zu change(s) could not be logged (out of memory) and were %s\n", c->undo.lost,
			restore ? "not put back" : "not listed");
		rc = restore ? 1 : rc;
	}
	/* A switch still in the kernel is left to finish on its own. */
	worker_stop(c->w, 0.2);
	undo_free(&c->undo);
	return rc;
}

int control_finish(struct control *c, int restore, double wait_s, FILE *f)
{
	/* The report names processes and cgroups, which anyone can name with
	 * a terminal's escapes, and goes to root's terminal: written whole,
	 * then every line through util_safe_write, as the text outputs are. */
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		fprintf(f, "iosched-top: out of memory: the exit report is not shown\n");
		FILE *null = fopen("/dev/null", "we");
		int rc = null ? finish_report(c, restore, wait_s, null) : 1;
		if (null)
			fclose(null);
		return rc;
	}
	int rc = finish_report(c, restore, wait_s, m);
	if (fclose(m) == 0)
		util_safe_write(f, buf, len);
	free(buf);
	return rc;
}
