/* Unit tests: control and its worker against a fake sysfs — a directory
 * of plain files and a writer that acts as the kernel does when a
 * scheduler is switched: it brackets the active one, swaps the files
 * under queue/iosched/ for the new scheduler's, and gives nr_requests the
 * new scheduler's default (blk_mq_init_sched). Checked: the order of
 * undos and of a restore, what a switch reset or dropped (the old
 * scheduler's files) is put back, a restore
 * asked for while a change is in the kernel, all-or-nothing --set, the
 * worker's queue and the exit report. No root, no device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "act/controlparts.h"
#include "act/iofam.h"
#include "base/util.h"
#include "heldfs.h"

#define LOG_MAX 64

struct fake {
	char root[PATH_MAX];        /* stands for /sys */
	struct tune_sysfs sysfs;
	char log[LOG_MAX][96];      /* "queue/KEY=VALUE" per write, in order */
	int nlog;
	char fail[48];              /* a write to a path ending so fails with EINVAL */
	int gate[2];                /* while gated, a write waits for a byte here */
	_Atomic int gated;          /* read by the worker thread */
	struct control ctl;
};

/* No cmocka assertions here and below fake_write: they run on the
 * worker thread, and a failed one would jump into the main thread's
 * context. Errors are returned, as the kernel would. */
static int fake_file(struct fake *f, const char *rel, const char *value)
{
	char path[PATH_MAX];
	util_fmt(path, sizeof path, "%s/block/fake0/queue/%s", f->root, rel);
	FILE *o = fopen(path, "w");
	if (!o)
		return -errno;
	fprintf(o, "%s\n", value);
	return fclose(o) == 0 ? 0 : -EIO;
}

static const char *fake_read(struct fake *f, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	util_fmt(path, sizeof path, "%s/block/fake0/queue/%s", f->root, rel);
	if (util_read_text(path, buf, len) < 0)
		return "(none)";
	return util_trim(buf);
}

/* The active scheduler, from the bracketed name. */
static const char *fake_sched(struct fake *f)
{
	static char buf[128];
	const char *s = fake_read(f, "scheduler", buf, sizeof buf), *b = strchr(s, '[');
	if (!b)
		return "(unbracketed)";
	char *e = strchr(buf, ']');
	*e = '\0';
	return b + 1;
}

static int unlink_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* What each scheduler has under queue/iosched/ (a few of its files). */
static int fake_iosched_files(struct fake *f, const char *sched)
{
	char dir[PATH_MAX];
	util_fmt(dir, sizeof dir, "%s/block/fake0/queue/iosched", f->root);
	nftw(dir, unlink_one, 8, FTW_DEPTH | FTW_PHYS);
	if (mkdir(dir, 0755) != 0)
		return -errno;
	if (!strcmp(sched, "bfq"))
		return fake_file(f, "iosched/low_latency", "1") ?: fake_file(f, "iosched/slice_idle", "8");
	if (!strcmp(sched, "mq-deadline"))
		return fake_file(f, "iosched/read_expire", "500");
	if (!strcmp(sched, "kyber"))
		return fake_file(f, "iosched/read_lat_nsec", "2000000");
	return 0;
}

static int fake_switch(struct fake *f, const char *to)
{
	static const char *const all[] = {"none", "mq-deadline", "kyber", "bfq"};
	char line[128] = "";
	int found = 0;
	for (size_t i = 0; i < 4; i++) {
		int on = !strcmp(all[i], to);
		found |= on;
		snprintf(line + strlen(line), sizeof line - strlen(line), "%s%s%s%s", i ? " " : "", on ? "[" : "",
			 all[i], on ? "]" : "");
	}
	if (!found)
		return -EINVAL;
	/* The scheduler in force: the kernel changes nothing (its files and
	 * nr_requests stay). */
	if (!strcmp(fake_sched(f), to))
		return 0;
	/* none: the tag set's depth (128); a scheduler: twice that. */
	return fake_file(f, "scheduler", line) ?: fake_iosched_files(f, to)
						     ?: fake_file(f, "nr_requests", strcmp(to, "none") ? "256" : "128");
}

/* Called on control's worker thread; the test reads the log only once
 * the worker is idle (its mutex orders the two). */
static int fake_write(const struct tune_sysfs *s, const char *path, const char *value)
{
	struct fake *f = s->ctx;
	char c;
	if (f->gated && read(f->gate[0], &c, 1) != 1)
		return -EIO;
	const char *rel = strstr(path, "/queue/");
	if (!rel)
		return -ENOENT;
	rel += strlen("/queue/");
	if (f->nlog < LOG_MAX)
		snprintf(f->log[f->nlog++], sizeof f->log[0], "%s=%s", rel, value);
	if (f->fail[0] && strlen(rel) >= strlen(f->fail) && !strcmp(rel + strlen(rel) - strlen(f->fail), f->fail))
		return -EINVAL;
	if (!strcmp(rel, "scheduler"))
		return fake_switch(f, value);
	if (access(path, F_OK) != 0)
		return -ENOENT;
	return fake_file(f, rel, value);
}

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof *f);
	assert_non_null(f);
	/* Under make check, the suite's own temporary root (checked for
	 * leftovers at the end). */
	const char *tmp = getenv("IOSCHED_TEST_TMP") ? getenv("IOSCHED_TEST_TMP") : getenv("TMPDIR");
	snprintf(f->root, sizeof f->root, "%s/iosched-control-test.XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(f->root));
	char dir[PATH_MAX];
	util_fmt(dir, sizeof dir, "%s/block", f->root);
	assert_int_equal(mkdir(dir, 0755), 0);
	util_fmt(dir, sizeof dir, "%s/block/fake0", f->root);
	assert_int_equal(mkdir(dir, 0755), 0);
	util_fmt(dir, sizeof dir, "%s/block/fake0/queue", f->root);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(fake_switch(f, "none"), 0);
	/* The user's own values, which the tool must give back. */
	assert_int_equal(fake_file(f, "nr_requests", "100"), 0);
	assert_int_equal(fake_file(f, "read_ahead_kb", "128"), 0);
	f->sysfs = (struct tune_sysfs){.root = f->root, .write = fake_write, .ctx = f};
	assert_int_equal(pipe(f->gate), 0);
	assert_int_equal(control_init(&f->ctl, &f->sysfs), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;
	if (f->gated)
		assert_int_equal(write(f->gate[1], "xxxxxxxx", 8), 8);
	FILE *sink = fopen("/dev/null", "w");
	/* (a worker thread not joined in the wait goes on alone and frees
	 * itself once released: on a loaded machine the held tests' worker
	 * took over a second to come back) */
	control_finish(&f->ctl, 0, 10.0, sink);
	fclose(sink);
	close(f->gate[0]);
	close(f->gate[1]);
	nftw(f->root, unlink_one, 8, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};
	nanosleep(&ts, NULL);
}

/* Until every queued change is done and its result taken. */
static void settle(struct fake *f)
{
	for (int i = 0; i < 500 && !worker_idle(f->ctl.w); i++)
		sleep_ms(10);
	assert_true(worker_idle(f->ctl.w));
	control_poll(&f->ctl);
}

static void request(struct fake *f, enum tune_kind kind, const char *key, const char *value)
{
	struct tune_req r;
	char msg[256];
	tune_req_init(&r, "fake0", kind, key, value);
	assert_int_equal(control_request(&f->ctl, &r, msg, sizeof msg), 0);
	settle(f);
	assert_true(f->ctl.last_ok);
}

/* Restore everything and wait until it is done. */
static void restore_all(struct fake *f)
{
	control_restore_to(&f->ctl, 0);
	settle(f);
}

/* The user's own tuning, made before the tool started: scheduler sched
 * in force, with its file key set to value. */
static void user_tuned(struct fake *f, const char *sched, const char *key, const char *value)
{
	char rel[64];
	util_fmt(rel, sizeof rel, "iosched/%s", key);
	assert_int_equal(fake_switch(f, sched), 0);
	assert_int_equal(fake_file(f, rel, value), 0);
}

/* control_finish into text, then a fresh control at once: teardown
 * finishes it again, and a failed assertion after this must not leave
 * it a finished one (its worker freed). Returns control_finish's. */
static int finish(struct fake *f, int restore, double wait_s, char *text, size_t len)
{
	FILE *o = fmemopen(text, len, "w");
	assert_non_null(o);
	int rc = control_finish(&f->ctl, restore, wait_s, o);
	fclose(o);
	assert_int_equal(control_init(&f->ctl, &f->sysfs), 0);
	return rc;
}

/* The writes since the log was last cleared, joined by spaces. */
static const char *writes(struct fake *f)
{
	static char out[2048];
	out[0] = '\0';
	for (int i = 0; i < f->nlog; i++)
		snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? " " : "", f->log[i]);
	f->nlog = 0;
	return out;
}

static void test_undo_newest_first(void **state)
{
	struct fake *f = *state;
	char msg[256], buf[64];
	request(f, TUNE_SCHEDULER, "scheduler", "bfq");
	request(f, TUNE_SCHEDULER, "scheduler", "kyber");
	assert_string_equal(fake_sched(f), "kyber");
	writes(f);
	assert_int_equal(control_undo(&f->ctl, msg, sizeof msg), 0);
	settle(f);
	assert_string_equal(fake_sched(f), "bfq");
	assert_int_equal(control_undo(&f->ctl, msg, sizeof msg), 0);
	/* The first switch also reset nr_requests: it is given back with it. */
	assert_non_null(strstr(msg, "(and the 1 queue setting(s) it had reset)"));
	settle(f);
	assert_string_equal(fake_sched(f), "none");
	assert_string_equal(writes(f), "scheduler=bfq scheduler=none nr_requests=100");
	assert_string_equal(fake_read(f, "nr_requests", buf, sizeof buf), "100");
	assert_int_equal(control_undo(&f->ctl, msg, sizeof msg), -1);
	assert_string_equal(msg, "nothing to undo");
}

/* What a session reads of a control (controlstate.c): nothing before a
 * change; after one, its count, its result once (then no newer one), the
 * same result "after" a time before it and none after it; a control made
 * with control_new on the same fake /sys works the same. */
static void test_state_read(void **state)
{
	struct fake *f = *state;
	struct control *c;
	const char *why;
	double seen = util_mono_now();
	assert_int_equal(control_new(&c, &f->sysfs), 0);
	assert_int_equal(control_changes(c), 0);
	assert_false(control_busy(c));
	assert_null(control_result_since(c, &seen));
	assert_int_equal(control_result_after(c, seen, &why), -1);
	struct tune_req r;
	char msg[256];
	tune_req_init(&r, "fake0", TUNE_SCHEDULER, "scheduler", "kyber");
	assert_int_equal(control_request(c, &r, msg, sizeof msg), 0);
	for (int i = 0; i < 500 && control_busy(c); i++)
		sleep_ms(10);
	assert_false(control_busy(c));
	control_poll(c);
	assert_int_equal(control_changes(c), 1);
	assert_int_equal(control_result_after(c, seen, &why), 1);
	const char *res = control_result_since(c, &seen);
	assert_non_null(res);
	assert_non_null(strstr(res, "kyber"));
	assert_null(control_result_since(c, &seen)); /* seen once */
	assert_int_equal(control_result_after(c, util_mono_now() + 1, &why), -1);
	assert_string_equal(fake_sched(f), "kyber");
	FILE *sink = fopen("/dev/null", "w");
	control_finish(c, 1, 5.0, sink);
	fclose(sink);
	control_free(c);
	assert_string_equal(fake_sched(f), "none");
}

/* A restore puts a scheduler's own files back while it is in force, then
 * the schedulers, then the queue attributes (a switch resets them). */
static void test_restore_order(void **state)
{
	struct fake *f = *state;
	char buf[64];
	request(f, TUNE_QUEUE, "read_ahead_kb", "512");
	request(f, TUNE_SCHEDULER, "scheduler", "bfq");
	request(f, TUNE_IOSCHED, "low_latency", "0");
	request(f, TUNE_QUEUE, "nr_requests", "32");
	writes(f);
	assert_true(control_restore_to(&f->ctl, 0) > 0);
	settle(f);
	assert_string_equal(writes(f),
			    "iosched/low_latency=1 scheduler=none nr_requests=100 read_ahead_kb=128");
	assert_string_equal(fake_sched(f), "none");
	assert_string_equal(fake_read(f, "nr_requests", buf, sizeof buf), "100");
	assert_string_equal(fake_read(f, "read_ahead_kb", buf, sizeof buf), "128");
	assert_int_equal(f->ctl.undo.n, 0);
}

/* The same setting changed several times goes back to its oldest value,
 * once; files of a scheduler no longer in force are not written. */
/* An undo's status line names the change it undid, not a setting put back
 * after it; and a setting the switch back already gave its old value is
 * not written again (no event that changed nothing). */
static void test_undo_says_the_switch(void **state)
{
	struct fake *f = *state;
	char msg[256], buf[64];
	assert_int_equal(fake_file(f, "nr_requests", "128"), 0); /* none's own default here */
	request(f, TUNE_SCHEDULER, "scheduler", "bfq");
	assert_string_equal(fake_read(f, "nr_requests", buf, sizeof buf), "256");
	writes(f);
	assert_int_equal(control_undo(&f->ctl, msg, sizeof msg), 0);
	settle(f);
	assert_string_equal(writes(f), "scheduler=none"); /* nr_requests is 128 again by itself */
	assert_string_equal(fake_read(f, "nr_requests", buf, sizeof buf), "128");
	assert_non_null(strstr(f->ctl.last, "fake0: scheduler bfq -> none in "));
	assert_non_null(strstr(f->ctl.last, "(undo)"));
	/* And when the setting does need its write, the line still names the switch. */
	assert_int_equal(fake_file(f, "nr_requests", "100"), 0);
	request(f, TUNE_SCHEDULER, "scheduler", "kyber");
	writes(f);
	assert_int_equal(control_undo(&f->ctl, msg, sizeof msg), 0);
	settle(f);
	assert_string_equal(writes(f), "scheduler=none nr_requests=100");
	assert_non_null(strstr(f->ctl.last, "fake0: scheduler kyber -> none in "));
}

static void test_restore_oldest_once(void **state)
{
	struct fake *f = *state;
	char buf[64];
	request(f, TUNE_SCHEDULER, "scheduler", "bfq");
	request(f, TUNE_IOSCHED, "slice_idle", "0");
	request(f, TUNE_SCHEDULER, "scheduler", "mq-deadline");
	request(f, TUNE_SCHEDULER, "scheduler", "kyber");
	writes(f);
	restore_all(f);
	assert_string_equal(writes(f), "scheduler=none nr_requests=100");
	assert_string_equal(fake_read(f, "nr_requests", buf, sizeof buf), "100");
}

/* A restore asked for while a switch is still in the kernel waits for it
 * (its old value enters the log only when it completes). */
static void test_restore_waits_for_change_in_flight(void **state)
{
	struct fake *f = *state;
	struct tune_req r;
	char msg[256];
	f->gated = 1;
	tune_req_init(&r, "fake0", TUNE_SCHEDULER, "scheduler", "bfq");
	assert_int_equal(control_request(&f->ctl, &r, msg, sizeof msg), 0);
	assert_int_equal(control_restore_to(&f->ctl, 0), 0);
	assert_true(f->ctl.restore_due);
	assert_string_equal(fake_sched(f), "none");
	f->gated = 0;
	assert_int_equal(write(f->gate[1], "x", 1), 1);
	for (int i = 0; i < 500 && (f->ctl.restore_due || !worker_idle(f->ctl.w)); i++) {
		control_poll(&f->ctl);
		sleep_ms(10);
	}
	settle(f);
	assert_string_equal(writes(f), "scheduler=bfq scheduler=none nr_requests=100");
	assert_string_equal(fake_sched(f), "none");
}

/* --set is all or nothing: a failure puts back what the call had made. */
static void test_apply_now_all_or_nothing(void **state)
{
	struct fake *f = *state;
	struct tune_req r[3];
	char err[256], buf[64];
	tune_req_init(&r[0], "fake0", TUNE_SCHEDULER, "scheduler", "bfq");
	tune_req_init(&r[1], "fake0", TUNE_QUEUE, "nr_requests", "32");
	tune_req_init(&r[2], "fake0", TUNE_QUEUE, "read_ahead_kb", "64");
	snprintf(f->fail, sizeof f->fail, "read_ahead_kb");
	assert_int_equal(control_apply_now(&f->ctl, r, 3, err, sizeof err), -1);
	assert_non_null(strstr(err, "read_ahead_kb"));
	settle(f);
	assert_string_equal(fake_sched(f), "none");
	assert_string_equal(fake_read(f, "nr_requests", buf, sizeof buf), "100");
	assert_int_equal(f->ctl.undo.n, 0);
	f->fail[0] = '\0';
	assert_int_equal(control_apply_now(&f->ctl, r, 3, err, sizeof err), 0);
	assert_string_equal(fake_sched(f), "bfq");
	assert_string_equal(fake_read(f, "read_ahead_kb", buf, sizeof buf), "64");
}

/* A failed undo stays in the log, so u can try again. */
static void test_failed_undo_kept(void **state)
{
	struct fake *f = *state;
	char msg[256];
	request(f, TUNE_QUEUE, "read_ahead_kb", "512");
	snprintf(f->fail, sizeof f->fail, "read_ahead_kb");
	assert_int_equal(control_undo(&f->ctl, msg, sizeof msg), 0);
	settle(f);
	assert_false(f->ctl.last_ok);
	assert_int_equal(f->ctl.undo.n, 1);
	f->fail[0] = '\0';
	assert_int_equal(control_undo(&f->ctl, msg, sizeof msg), 0);
	settle(f);
	assert_true(f->ctl.last_ok);
	assert_int_equal(f->ctl.undo.n, 0);
}

/* A switch back that fails writes none of what it owes (under the
 * scheduler still in force the kernel would reset it again) and keeps it
 * for the next u. */
static void test_failed_switch_back_keeps_resets(void **state)
{
	struct fake *f = *state;
	char msg[256], buf[64];
	request(f, TUNE_SCHEDULER, "scheduler", "bfq");
	writes(f);
	snprintf(f->fail, sizeof f->fail, "scheduler");
	assert_int_equal(control_undo(&f->ctl, msg, sizeof msg), 0);
	settle(f);
	assert_false(f->ctl.last_ok);
	assert_string_equal(writes(f), "scheduler=none");
	assert_string_equal(fake_read(f, "nr_requests", buf, sizeof buf), "256");
	assert_int_equal(f->ctl.undo.n, 1);
	assert_int_equal(f->ctl.undo.e[0].nresets, 1);
	f->fail[0] = '\0';
	assert_int_equal(control_undo(&f->ctl, msg, sizeof msg), 0);
	settle(f);
	assert_string_equal(writes(f), "scheduler=none nr_requests=100");
	assert_string_equal(fake_read(f, "nr_requests", buf, sizeof buf), "100");
	assert_int_equal(f->ctl.undo.n, 0);
}

/* A setting changed after a switch that had reset it goes back to the
 * value before the switch, whichever came first. */
static void test_restore_reset_then_set(void **state)
{
	struct fake *f = *state;
	char buf[64];
	request(f, TUNE_QUEUE, "nr_requests", "50");
	request(f, TUNE_SCHEDULER, "scheduler", "mq-deadline");
	request(f, TUNE_QUEUE, "nr_requests", "32");
	request(f, TUNE_SCHEDULER, "scheduler", "none");
	request(f, TUNE_SCHEDULER, "scheduler", "kyber");
	writes(f);
	restore_all(f);
	assert_string_equal(fake_sched(f), "none");
	assert_string_equal(fake_read(f, "nr_requests", buf, sizeof buf), "100");
	assert_int_equal(f->ctl.undo.n, 0);
}

/* Refused before anything is written: a scheduler the disk lacks, a key
 * it lacks, a value out of range. */
static void test_validate_refuses(void **state)
{
	struct fake *f = *state;
	struct tune_req r;
	char msg[256];
	tune_req_init(&r, "fake0", TUNE_SCHEDULER, "scheduler", "cfq");
	assert_int_equal(control_request(&f->ctl, &r, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "offers no scheduler 'cfq'"));
	tune_req_init(&r, "fake0", TUNE_IOSCHED, "low_latency", "0");
	assert_int_equal(control_request(&f->ctl, &r, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "under its current scheduler"));
	tune_req_init(&r, "fake0", TUNE_QUEUE, "nr_requests", "2");
	assert_int_equal(control_request(&f->ctl, &r, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "from 4 to"));
	settle(f);
	assert_string_equal(writes(f), "");
}

/* The worker shows what waits and what runs, refuses a full queue, and
 * control says a change is queued behind others. */
static void test_worker_queue(void **state)
{
	struct fake *f = *state;
	struct tune_req r;
	char msg[256];
	f->gated = 1;
	tune_req_init(&r, "fake0", TUNE_QUEUE, "read_ahead_kb", "256");
	assert_int_equal(control_request(&f->ctl, &r, msg, sizeof msg), 0);
	int sent = 1;
	while (control_request(&f->ctl, &r, msg, sizeof msg) == 0)
		sent++;
	assert_int_equal(sent, WORKER_QUEUE);
	assert_non_null(strstr(msg, "refused"));
	struct pending_change p[WORKER_QUEUE];
	size_t n = control_pending(&f->ctl, p, WORKER_QUEUE);
	assert_int_equal(n, WORKER_QUEUE);
	for (int i = 0; i < 100 && !p[0].running; i++) {
		sleep_ms(10);
		control_pending(&f->ctl, p, WORKER_QUEUE);
	}
	assert_true(p[0].running);
	assert_false(p[1].running);
	assert_string_equal(p[1].key, "read_ahead_kb");
	f->gated = 0;
	char go[WORKER_QUEUE];
	memset(go, 'x', sizeof go);
	assert_int_equal(write(f->gate[1], go, sizeof go), (ssize_t)sizeof go);
	settle(f);
	assert_int_equal(control_pending(&f->ctl, p, WORKER_QUEUE), 0);
}

/* Without --restore the exit report lists every change, the kernel's
 * resets marked, and a command line that reverts them; with it, all go
 * back and the report says so. */
static void test_finish_report(void **state)
{
	struct fake *f = *state;
	char text[4096], buf[64];
	request(f, TUNE_SCHEDULER, "scheduler", "bfq");
	assert_int_equal(finish(f, 1, 5.0, text, sizeof text), 0);
	assert_non_null(strstr(text, "restored 1 change(s) and 1 queue setting(s) a switch had reset, all settings are as they were"));
	assert_string_equal(fake_read(f, "nr_requests", buf, sizeof buf), "100");
	request(f, TUNE_SCHEDULER, "scheduler", "kyber");
	assert_int_equal(finish(f, 0, 1.0, text, sizeof text), 0);
	assert_non_null(strstr(text, "  fake0 scheduler: none -> kyber\n    fake0 nr_requests: 100 -> 256 (reset by the kernel with this switch)\n"));
	char want[PATH_MAX * 2];
	util_fmt(want, sizeof want, "echo none > %s/block/fake0/queue/scheduler; echo 100 > %s/block/fake0/queue/nr_requests",
		 f->root, f->root);
	assert_non_null(strstr(text, want));
}

/* A child that pauses, forked to have pid want (through ns_last_pid: a
 * pid given back to another process, as a busy machine does in time);
 * -1 when another fork took it each time. */
static pid_t fork_at(pid_t want)
{
	for (int i = 0; i < 50; i++) {
		FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
		if (!f)
			return -1;
		fprintf(f, "%d", want - 1);
		fclose(f);
		pid_t c = fork();
		if (c == 0) {
			pause();
			_exit(0);
		}
		if (c == want)
			return c;
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
	}
	return -1;
}

/* i on a process chosen from a row, which ended before Enter, its pid
 * another process's by then: refused (the row's start time is not the
 * pid's now), that other process left as it was. It was given the value
 * before (a review saw nobody's process get rt/0 meant for another). */
static void test_ioprio_pid_reused(void **state)
{
	struct fake *f = *state;
	char msg[256];
	pid_t a = fork();
	if (a == 0) {
		pause();
		_exit(0);
	}
	assert_true(a > 0);
	unsigned long long chosen;
	assert_int_equal(iofam_start(a, &chosen), 0);
	kill(a, SIGKILL);
	waitpid(a, NULL, 0);
	sleep_ms(30); /* start times are in clock ticks (10 ms): the next one's is later */
	pid_t b = fork_at(a);
	if (b < 0)
		skip(); /* the pid went elsewhere 50 times: nothing to test */
	long before = syscall(SYS_ioprio_get, 1, b);
	struct tune_req r;
	tune_req_ioprio(&r, a, chosen, "chosen", "idle");
	assert_int_equal(control_request(&f->ctl, &r, msg, sizeof msg), 0);
	settle(f);
	long after = syscall(SYS_ioprio_get, 1, b);
	kill(b, SIGKILL); /* first: a failed check below must leave no child */
	waitpid(b, NULL, 0);
	assert_false(f->ctl.last_ok);
	assert_non_null(strstr(f->ctl.last, "has ended"));
	assert_int_equal(after, before);
}

/* --restore with a change whose process is held in execve now (its start
 * time cannot be read: it may be another's on the pid): the report says
 * the change stayed because its undo failed, not to run with --restore;
 * it tells root to check the start time before setting it by hand; and
 * it prints no empty revert line. */
static void test_restore_held_report(void **state)
{
	struct fake *f = *state;
	char text[4096], want[128];
	struct heldfs h;
	if (heldfs_start(&h) < 0)
		skip();
	pid_t held = heldfs_hold(&h, (2 << 13) | 4);
	struct tune_req r;
	tune_req_ioprio(&r, held, 0, "gone", "rt/4");
	r.start = 12345; /* the process changed: started then, ended since */
	r.since = iofam_ticks_now();
	struct event ev = {.ok = 1};
	util_strlcpy(ev.from, "be/4", sizeof ev.from);
	assert_int_equal(undo_push(&f->ctl.undo, &r, &ev), 0);
	int rc = finish(f, 1, 1.0, text, sizeof text);
	heldfs_stop(&h);
	fprintf(stderr, "beside pid %d held in execve: %s", held, text);
	util_fmt(want, sizeof want, "field 22 of /proc/%d/stat is still 12345", held);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(text, "left in place (their undo failed"));
	assert_null(strstr(text, "run with --restore"));
	assert_non_null(strstr(text, want));
	assert_null(strstr(text, "to revert"));
}

/* --restore when the process given an I/O priority has ended: nothing to
 * put back (its pid may be another's now), said so, and no failure. */
static void test_restore_ioprio_ended(void **state)
{
	struct fake *f = *state;
	char text[4096], msg[256];
	pid_t child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	assert_true(child > 0);
	struct tune_req r;
	tune_req_ioprio(&r, child, 0, "sleeper", "idle");
	assert_int_equal(control_request(&f->ctl, &r, msg, sizeof msg), 0);
	settle(f);
	assert_true(f->ctl.last_ok);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	assert_int_equal(finish(f, 1, 5.0, text, sizeof text), 0);
	assert_non_null(strstr(text, "restored 0 change(s); 1 I/O priority not put back: the process had ended, all settings are as they were"));
	assert_null(strstr(text, "failed"));
}

/* --restore at exit after the process has ended: what it started since
 * (here nobody's child, its parent gone) inherited the realtime class and
 * goes back too; the report counts it restored (it skipped every ended
 * process, which left the child realtime under "all settings are as
 * they were"). */
static void test_restore_ioprio_ended_child(void **state)
{
	struct fake *f = *state;
	char text[4096], msg[256], b;
	int go[2], back[2];
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(back), 0);
	pid_t child = fork();
	if (child == 0) {
		if (setgid(65534) || setuid(65534) || read(go[0], &b, 1) != 1)
			_exit(1);
		pid_t k = fork();
		if (k == 0) {
			pid_t me = getpid();
			if (write(back[1], &me, sizeof me) != sizeof me)
				_exit(1);
			for (;;)
				pause();
		}
		_exit(0);
	}
	assert_true(child > 0);
	usleep(50000);
	long before = syscall(SYS_ioprio_get, 1, child);
	struct tune_req r;
	tune_req_ioprio(&r, child, 0, "forker", "rt/0");
	assert_int_equal(control_request(&f->ctl, &r, msg, sizeof msg), 0);
	settle(f);
	assert_true(f->ctl.last_ok);
	pid_t kid = 0;
	assert_int_equal(write(go[1], "x", 1), 1);
	assert_int_equal(read(back[0], &kid, sizeof kid), (ssize_t)sizeof kid);
	waitpid(child, NULL, 0);
	assert_int_equal(syscall(SYS_ioprio_get, 1, kid), 1 << 13);
	int rc = finish(f, 1, 5.0, text, sizeof text);
	long kid_now = syscall(SYS_ioprio_get, 1, kid);
	kill(kid, SIGKILL);
	assert_int_equal(rc, 0);
	assert_int_equal(kid_now, before);
	assert_non_null(strstr(text, "restored 1 change(s)"));
	assert_null(strstr(text, "failed"));
}

/* At exit the disks' settings go back before the I/O priorities: a
 * priority's undo that takes long (here it fails after the read of a
 * process held in execve at the value has been given up on) must not
 * hold back an older queue setting past the wait. */
static void test_restore_disk_before_slow_prio(void **state)
{
	struct fake *f = *state;
	char text[4096], msg[256], buf[64];
	struct heldfs h;
	if (heldfs_start(&h) < 0)
		skip();
	pid_t child = idle_child();
	request(f, TUNE_QUEUE, "nr_requests", "32");
	struct tune_req r;
	tune_req_ioprio(&r, child, 0, "target", "rt/0");
	assert_int_equal(control_request(&f->ctl, &r, msg, sizeof msg), 0);
	settle(f);
	assert_true(f->ctl.last_ok);
	pid_t held = heldfs_hold(&h, 1 << 13);
	int rc = finish(f, 1, 0.2, text, sizeof text);
	long child_now = syscall(SYS_ioprio_get, 1, child);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	heldfs_stop(&h);
	fprintf(stderr, "beside pid %d held in execve: %s", held, text);
	assert_string_equal(fake_read(f, "nr_requests", buf, sizeof buf), "100");
	assert_int_not_equal(child_now, 1 << 13); /* its own threads went back */
	assert_int_equal(rc, 1);                  /* the family's check did not */
}

static void *thread_pause(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* The live threads of pid, at most 2, into tid; how many. */
static int two_threads(pid_t pid, int *tid)
{
	char dir[64];
	snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
	for (int tries = 0; tries < 500; tries++) {
		DIR *d = opendir(dir);
		int n = 0;
		struct dirent *e;
		while (d && (e = readdir(d)))
			if (atoi(e->d_name) > 0 && n < 2)
				tid[n++] = atoi(e->d_name);
		if (d)
			closedir(d);
		if (n == 2)
			return 2;
		usleep(10000);
	}
	return 0;
}

/* --restore after the owner changed one of the process's threads since
 * the tool's change (their right: it is their thread): the threads still
 * at the tool's value go back, the owner's keeps the owner's value, and
 * the restore counts as done (it used to refuse the whole process, which
 * left the tool's realtime class on it for good). */
static void test_restore_ioprio_owner_changed(void **state)
{
	struct fake *f = *state;
	char text[4096], msg[256];
	pid_t child = fork();
	if (child == 0) {
		pthread_t t;
		pthread_create(&t, NULL, thread_pause, NULL);
		for (;;)
			pause();
	}
	assert_true(child > 0);
	int tid[2];
	assert_int_equal(two_threads(child, tid), 2);
	long before = syscall(SYS_ioprio_get, 1, tid[0]);
	struct tune_req r;
	tune_req_ioprio(&r, child, 0, "twothreads", "rt/0");
	assert_int_equal(control_request(&f->ctl, &r, msg, sizeof msg), 0);
	settle(f);
	assert_true(f->ctl.last_ok);
	assert_int_equal(syscall(SYS_ioprio_get, 1, tid[1]), 1 << 13);
	/* the owner: ionice -c2 -n7 -p TID */
	assert_int_equal(syscall(SYS_ioprio_set, 1, tid[1], (2 << 13) | 7), 0);
	int rc = finish(f, 1, 5.0, text, sizeof text);
	long main_now = syscall(SYS_ioprio_get, 1, tid[0]), other_now = syscall(SYS_ioprio_get, 1, tid[1]);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(text, "restored 1 change(s)"));
	assert_null(strstr(text, "failed"));
	assert_int_equal(main_now, before);
	assert_int_equal(other_now, (2 << 13) | 7);
}

/* A switch away from a scheduler the user had tuned (bfq with
 * low_latency 0, set before the tool started) drops its files; undoing
 * the switch puts back the ones that differ from the defaults bfq comes
 * back with, and only those. */
static void test_undo_gives_scheduler_files_back(void **state)
{
	struct fake *f = *state;
	char msg[256], buf[64];
	user_tuned(f, "bfq", "low_latency", "0");
	request(f, TUNE_SCHEDULER, "scheduler", "mq-deadline");
	assert_string_equal(fake_read(f, "iosched/low_latency", buf, sizeof buf), "(none)");
	writes(f);
	assert_int_equal(control_undo(&f->ctl, msg, sizeof msg), 0);
	assert_non_null(strstr(msg, "(and bfq's own settings as they were)"));
	settle(f);
	assert_string_equal(writes(f), "scheduler=bfq iosched/low_latency=0");
	assert_string_equal(fake_read(f, "iosched/low_latency", buf, sizeof buf), "0");
	assert_string_equal(fake_read(f, "iosched/slice_idle", buf, sizeof buf), "8");
	assert_int_equal(f->ctl.undo.n, 0);
}

/* The exit report names the dropped files on one line and the revert
 * command writes them after the switch back; --restore puts them back. */
static void test_finish_scheduler_files(void **state)
{
	struct fake *f = *state;
	char text[4096], buf[64];
	user_tuned(f, "bfq", "slice_idle", "0");
	request(f, TUNE_SCHEDULER, "scheduler", "kyber");
	assert_int_equal(finish(f, 0, 1.0, text, sizeof text), 0);
	assert_non_null(strstr(text, "    fake0 bfq's own settings before the switch, dropped by the kernel: low_latency=1 slice_idle=0\n"));
	char want[PATH_MAX * 2];
	util_fmt(want, sizeof want, "echo bfq > %s/block/fake0/queue/scheduler; echo 1 > %s/block/fake0/queue/iosched/low_latency; echo 0 > %s/block/fake0/queue/iosched/slice_idle",
		 f->root, f->root, f->root);
	assert_non_null(strstr(text, want));
	assert_int_equal(fake_file(f, "iosched/read_lat_nsec", "1000000"), 0);
	request(f, TUNE_SCHEDULER, "scheduler", "none");
	assert_int_equal(finish(f, 1, 5.0, text, sizeof text), 0);
	/* nr_requests: the switch back to kyber gave it 256 again, the value
	 * owed; a write of it would change nothing and is not made. */
	assert_non_null(strstr(text, "restored 1 change(s) and 1 scheduler setting(s) a switch had dropped, all settings are as they were"));
	assert_string_equal(fake_sched(f), "kyber");
	assert_string_equal(fake_read(f, "iosched/read_lat_nsec", buf, sizeof buf), "1000000");
}

/* A restore goes back to the value a scheduler file had before the
 * tool's first change of it, not to the value a later switch away noted
 * (the tool's own); the files of a scheduler in between are not
 * written to the one switched back to. */
static void test_restore_scheduler_files_oldest(void **state)
{
	struct fake *f = *state;
	char buf[64];
	user_tuned(f, "bfq", "slice_idle", "4");
	request(f, TUNE_IOSCHED, "low_latency", "0");
	request(f, TUNE_SCHEDULER, "scheduler", "mq-deadline");
	request(f, TUNE_IOSCHED, "read_expire", "100");
	request(f, TUNE_SCHEDULER, "scheduler", "bfq");
	request(f, TUNE_SCHEDULER, "scheduler", "kyber");
	writes(f);
	restore_all(f);
	assert_string_equal(writes(f), "scheduler=bfq iosched/slice_idle=4");
	assert_string_equal(fake_sched(f), "bfq");
	assert_string_equal(fake_read(f, "iosched/low_latency", buf, sizeof buf), "1");
	assert_string_equal(fake_read(f, "iosched/slice_idle", buf, sizeof buf), "4");
	assert_int_equal(f->ctl.undo.n, 0);
}

/* A restore writes a scheduler file once, with the value before the
 * tool's first change, even when that write fails: the failure is kept
 * for u (which then puts back that value, not one in between). */
static void test_restore_scheduler_file_once(void **state)
{
	struct fake *f = *state;
	char msg[256], buf[64];
	user_tuned(f, "mq-deadline", "read_expire", "77");
	request(f, TUNE_SCHEDULER, "scheduler", "bfq");
	request(f, TUNE_SCHEDULER, "scheduler", "mq-deadline");
	request(f, TUNE_IOSCHED, "read_expire", "1002");
	writes(f);
	snprintf(f->fail, sizeof f->fail, "read_expire");
	restore_all(f);
	assert_string_equal(writes(f), "scheduler=mq-deadline iosched/read_expire=77");
	f->fail[0] = '\0';
	while (f->ctl.undo.n && control_undo(&f->ctl, msg, sizeof msg) == 0)
		settle(f);
	assert_string_equal(fake_read(f, "iosched/read_expire", buf, sizeof buf), "77");
	assert_string_equal(fake_sched(f), "mq-deadline");
}

/* --restore at exit with a scheduler file that cannot be written: the
 * report says a write failed and lists it, with its revert command. */
static void test_finish_failed_file_listed(void **state)
{
	struct fake *f = *state;
	char text[4096];
	user_tuned(f, "bfq", "low_latency", "0");
	request(f, TUNE_SCHEDULER, "scheduler", "mq-deadline");
	snprintf(f->fail, sizeof f->fail, "low_latency");
	assert_int_equal(finish(f, 1, 5.0, text, sizeof text), 1);
	assert_string_equal(fake_sched(f), "bfq");
	assert_non_null(strstr(text, "write(s) to put things back failed"));
	assert_non_null(strstr(text, "changed and left in place"));
	assert_non_null(strstr(text, "  fake0 iosched/low_latency: 0 -> "));
	assert_non_null(strstr(text, "/block/fake0/queue/iosched/low_latency'"));
	f->fail[0] = '\0';
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_undo_newest_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undo_says_the_switch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_oldest_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_waits_for_change_in_flight, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_now_all_or_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_undo_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_switch_back_keeps_resets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_reset_then_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_validate_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_worker_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_ioprio_ended, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_ioprio_ended_child, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_ioprio_owner_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_disk_before_slow_prio, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finish_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undo_gives_scheduler_files_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finish_scheduler_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_scheduler_files_oldest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_scheduler_file_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finish_failed_file_listed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ioprio_pid_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_held_report, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
