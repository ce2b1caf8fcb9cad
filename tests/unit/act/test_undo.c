/* Unit tests: the undo log and the udev rules (text, the search for
 * existing assignments, the atomic write that keeps other lines). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "act/udevrule.h"
#include "act/tune.h"
#include "act/undo.h"
#include "base/util.h"

static struct event ok_event(const char *from)
{
	struct event e;
	memset(&e, 0, sizeof e);
	e.ok = 1;
	util_strlcpy(e.from, from, sizeof e.from);
	return e;
}

static void test_push_pop_order(void **state)
{
	(void)state;
	struct undo_log *l = calloc(1, sizeof *l);
	struct tune_req a, b, c;
	tune_req_init(&a, "sda", TUNE_SCHEDULER, "scheduler", "bfq");
	tune_req_init(&b, "sda", TUNE_QUEUE, "read_ahead_kb", "512");
	tune_req_init(&c, "nvme0n1", TUNE_IOSCHED, "read_lat_nsec", "1000000");
	struct event ea = ok_event("mq-deadline"), eb = ok_event("128"), ec = ok_event("2000000");
	assert_int_equal(undo_push(l, &a, &ea), 0);
	assert_int_equal(undo_push(l, &b, &eb), 0);
	assert_int_equal(undo_push(l, &c, &ec), 0);
	/* Newest first, each puts the old value back and is marked as an undo. */
	struct undo_entry e;
	assert_int_equal(undo_pop(l, &e), 0);
	assert_string_equal(e.back.disk, "nvme0n1");
	assert_string_equal(e.back.key, "read_lat_nsec");
	assert_string_equal(e.back.value, "2000000");
	assert_string_equal(e.applied, "1000000");
	assert_true(e.back.undo);
	assert_int_equal(undo_pop(l, &e), 0);
	assert_string_equal(e.back.value, "128");
	undo_repush(l, &e); /* a failed undo goes back on top */
	assert_int_equal(undo_pop(l, &e), 0);
	assert_string_equal(e.back.value, "128");
	assert_int_equal(undo_pop(l, &e), 0);
	assert_string_equal(e.back.value, "mq-deadline");
	assert_int_equal(e.back.kind, TUNE_SCHEDULER);
	assert_int_equal(undo_pop(l, &e), -1);
	undo_free(l);
	free(l);
}

static void test_not_recorded(void **state)
{
	(void)state;
	struct undo_log *l = calloc(1, sizeof *l);
	struct tune_req r;
	tune_req_init(&r, "sda", TUNE_SCHEDULER, "scheduler", "bfq");
	struct event failed = ok_event("none"), unknown = ok_event("");
	failed.ok = 0;
	assert_int_equal(undo_push(l, &r, &failed), -1);   /* nothing changed */
	assert_int_equal(undo_push(l, &r, &unknown), -1);  /* old value unknown */
	r.undo = 1;
	struct event ok = ok_event("none");
	assert_int_equal(undo_push(l, &r, &ok), -1);       /* an undo is not logged again */
	assert_int_equal(l->n, 0);
	undo_free(l);
	free(l);
}

static void test_full_drops_oldest(void **state)
{
	(void)state;
	struct undo_log *l = calloc(1, sizeof *l);
	struct tune_req r;
	for (int i = 0; i < UNDO_MAX + 3; i++) {
		char v[16];
		snprintf(v, sizeof v, "%d", i);
		tune_req_init(&r, "sda", TUNE_QUEUE, "nr_requests", "64");
		struct event e = ok_event(v);
		assert_int_equal(undo_push(l, &r, &e), 0);
	}
	assert_int_equal(l->n, UNDO_MAX);
	assert_int_equal(l->dropped, 3);
	assert_string_equal(l->e[0].back.value, "3");
	undo_free(l);
	free(l);
}

static void test_script(void **state)
{
	(void)state;
	struct undo_log *l = calloc(1, sizeof *l);
	char buf[512];
	assert_int_equal(undo_script(l, buf, sizeof buf), 0);
	assert_string_equal(buf, "");
	/* A switch to the scheduler in force changed nothing: not logged. */
	struct tune_req same;
	tune_req_init(&same, "sda", TUNE_SCHEDULER, "scheduler", "bfq");
	struct event esame = ok_event("bfq");
	assert_int_equal(undo_push(l, &same, &esame), -1);
	assert_int_equal(l->n, 0);
	struct tune_req a, b;
	tune_req_init(&a, "sda", TUNE_SCHEDULER, "scheduler", "bfq");
	tune_req_init(&b, "sda", TUNE_IOSCHED, "slice_idle", "0");
	struct event ea = ok_event("mq-deadline"), eb = ok_event("8");
	undo_push(l, &a, &ea);
	undo_push(l, &b, &eb);
	assert_int_equal(undo_script(l, buf, sizeof buf), 2);
	/* Newest first: bfq's slice_idle back while bfq is still active. */
	assert_string_equal(buf, "echo 8 > /sys/block/sda/queue/iosched/slice_idle; "
				 "echo mq-deadline > /sys/block/sda/queue/scheduler");
	/* No room for the older command: the newer one alone, never a piece. */
	char small[60];
	assert_int_equal(undo_script(l, small, sizeof small), 1);
	assert_string_equal(small, "echo 8 > /sys/block/sda/queue/iosched/slice_idle");
	assert_int_equal(undo_script(l, small, 20), 0);
	assert_string_equal(small, "");
	/* A switch goes whole, with its resets, or not at all. */
	struct tune_req c;
	tune_req_init(&c, "sda", TUNE_SCHEDULER, "scheduler", "kyber");
	struct event ec = ok_event("bfq");
	undo_push(l, &c, &ec);
	struct tune_reset rs[2] = {{.kind = TUNE_QUEUE, .key = "nr_requests", .before = "64", .after = "256"},
				   {.kind = TUNE_IOSCHED, .key = "low_latency", .before = "0"}};
	undo_attach_resets(l, rs, 2);
	char mid[120]; /* room for the switch and nr_requests, not low_latency */
	assert_int_equal(undo_script(l, mid, sizeof mid), 0);
	assert_string_equal(mid, "");
	assert_int_equal(undo_script(l, buf, sizeof buf), 3);
	assert_non_null(strstr(buf, "echo bfq > /sys/block/sda/queue/scheduler; echo 64 > /sys/block/sda/queue/nr_requests; "
				    "echo 0 > /sys/block/sda/queue/iosched/low_latency; echo 8 > "));
	undo_free(l);
	free(l);
}

static void test_rule_text(void **state)
{
	(void)state;
	struct udevrule_ident id = {.name = "sda"};
	char buf[512];
	assert_int_equal(udevrule_line(&id, "bfq", buf, sizeof buf), 0);
	assert_string_equal(buf, "ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"disk\", "
				 "KERNEL==\"sda\", ATTR{queue/scheduler}=\"bfq\"");
	util_strlcpy(id.serial, "Samsung_SSD_860_S3Z9NB0K123456", sizeof id.serial);
	assert_int_equal(udevrule_line(&id, "kyber", buf, sizeof buf), 0);
	assert_string_equal(buf, "ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"disk\", "
				 "ENV{ID_SERIAL}==\"Samsung_SSD_860_S3Z9NB0K123456\", ATTR{queue/scheduler}=\"kyber\"");
	util_strlcpy(id.wwn, "0x5002538e40a1b2c3", sizeof id.wwn);
	assert_int_equal(udevrule_line(&id, "none", buf, sizeof buf), 0);
	assert_non_null(strstr(buf, "ENV{ID_WWN}==\"0x5002538e40a1b2c3\""));
	/* Nothing that could break out of the quotes gets into a rule. */
	assert_int_equal(udevrule_line(&id, "bfq\"", buf, sizeof buf), -22);
	struct udevrule_ident bad = {.name = "sd\"a"};
	assert_int_equal(udevrule_line(&bad, "bfq", buf, sizeof buf), -22);
}

static void test_find_existing(void **state)
{
	(void)state;
	const char *dirs[] = {SRCDIR "/tests/fixtures/udev", NULL};
	struct udevrule_found f[8];
	struct udevrule_ident sda = {.name = "sda", .serial = "Samsung_SSD_860_S3Z9NB0K123456"};
	size_t n = udevrule_find(dirs, &sda, f, 8);
	/* The distribution's sd* rule, the serial rule, the rule for every
	 * rotational disk; not the nvme one, not read_ahead_kb, not the
	 * comment, not the README. */
	assert_int_equal(n, 3);
	assert_non_null(strstr(f[0].file, "60-block-scheduler.rules"));
	assert_int_equal(f[0].line, 2);
	assert_non_null(strstr(f[1].text, "ID_SERIAL"));
	assert_int_equal(f[1].line, 5);
	assert_non_null(strstr(f[2].text, "rotational"));
	struct udevrule_ident nvme = {.name = "nvme0n1"};
	n = udevrule_find(dirs, &nvme, f, 8);
	assert_int_equal(n, 2); /* the nvme rule and the rotational one */
	assert_non_null(strstr(f[0].text, "nvme"));
}

static void test_write_merges(void **state)
{
	(void)state;
	char dir[] = "/tmp/iosched-udev-test.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char file[256], err[256], text[4096];
	snprintf(file, sizeof file, "%s/60-iosched-top.rules", dir);
	struct udevrule_ident sda = {.name = "sda"}, sdb = {.name = "sdb"};
	assert_int_equal(udevrule_write(file, &sda, "RULE-SDA-1", err, sizeof err), 0);
	assert_int_equal(udevrule_write(file, &sdb, "RULE-SDB", err, sizeof err), 0);
	assert_int_equal(udevrule_write(file, &sda, "RULE-SDA-2", err, sizeof err), 0);
	assert_true(util_read_text(file, text, sizeof text) > 0);
	/* One header, sdb kept, sda replaced (not duplicated). */
	assert_non_null(strstr(text, "# Written by iosched-top"));
	assert_null(strstr(text, "RULE-SDA-1"));
	assert_non_null(strstr(text, "# iosched-top: sdb\nRULE-SDB\n"));
	assert_non_null(strstr(text, "# iosched-top: sda\nRULE-SDA-2\n"));
	assert_null(strstr(strstr(text, "Written") + 1, "Written"));
	/* No temporary file is left behind. */
	char cmd[512];
	snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 1", dir);
	assert_int_equal(system(cmd), 0);
	unlink(file);
	rmdir(dir);
	/* A directory that cannot be written: an error, not a crash. */
	assert_true(udevrule_write("/nonexistent-dir/x.rules", &sda, "R", err, sizeof err) < 0);
	assert_non_null(strstr(err, "/nonexistent-dir"));
}

/* A long rules file is kept whole (900 lines, 89 kB, lines over 1 KiB
 * too), its mode stays (0640), and one that is a symlink is refused:
 * its target is neither read into the rules nor written. */
static void test_write_whole_no_symlink(void **state)
{
	(void)state;
	char dir[] = "/tmp/iosched-udev-test.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char file[256], link[256], target[256], err[256], cmd[700];
	snprintf(file, sizeof file, "%s/60-long.rules", dir);
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	for (int i = 0; i < 900; i++)
		fprintf(f, "# line %d %0*d\n", i, i == 450 ? 2000 : 80, i);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(file, 0640), 0);
	struct stat st0, st1;
	assert_int_equal(stat(file, &st0), 0);
	struct udevrule_ident sda = {.name = "sda"};
	assert_int_equal(udevrule_write(file, &sda, "RULE-SDA", err, sizeof err), 0);
	assert_int_equal(stat(file, &st1), 0);
	assert_int_equal(st1.st_mode & 0777, 0640);
	/* every old line, then the marker and the rule */
	snprintf(cmd, sizeof cmd, "test $(grep -c '^# line ' %s) -eq 900 && test $(wc -c < %s) -gt %lld", file, file,
		 (long long)st0.st_size);
	assert_int_equal(system(cmd), 0);
	/* a symlink where the rules file goes */
	snprintf(target, sizeof target, "%s/secret", dir);
	snprintf(link, sizeof link, "%s/61-link.rules", dir);
	f = fopen(target, "w");
	assert_non_null(f);
	fputs("root-only secret\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(symlink(target, link), 0);
	assert_true(udevrule_write(link, &sda, "RULE", err, sizeof err) < 0);
	assert_non_null(strstr(err, "symbolic link"));
	struct stat lst;
	assert_int_equal(lstat(link, &lst), 0);
	assert_true(S_ISLNK(lst.st_mode));
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A planted rules file: its mode never carries setuid, setgid, sticky or
 * write by others into root's file, and a file others could have written,
 * or another user's, is refused with why. */
static void test_write_planted_modes(void **state)
{
	(void)state;
	char dir[] = "/tmp/iosched-udev-mode.XXXXXX", file[300], cmd[400], err[400];
	assert_non_null(mkdtemp(dir));
	struct udevrule_ident sda = {.name = "sda"};
	struct stat st;
	snprintf(file, sizeof file, "%s/60-x.rules", dir);
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	fputs("# planted\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(file, 04755), 0);
	assert_int_equal(udevrule_write(file, &sda, "RULE", err, sizeof err), 0);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(chmod(file, 0666), 0);
	assert_true(udevrule_write(file, &sda, "RULE2", err, sizeof err) < 0);
	assert_non_null(strstr(err, "can be written by others (mode 0666)"));
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0666); /* untouched */
	if (geteuid() == 0) { /* another user's file: only root can make one */
		assert_int_equal(chmod(file, 0644), 0);
		assert_int_equal(chown(file, 65534, 65534), 0);
		assert_true(udevrule_write(file, &sda, "RULE3", err, sizeof err) < 0);
		assert_non_null(strstr(err, "belongs to uid 65534, not to this user"));
		assert_int_equal(stat(file, &st), 0);
		assert_int_equal((int)st.st_uid, 65534);
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The revert line, run by sh, puts the process's priority back; with
 * another start time in it (a pid given to another process since) it
 * sets nothing. */
static void revert_runs(const char *line, pid_t child, unsigned long long start)
{
	char cmd[1400], other[1200], num[32], *at;
	long be1 = (2 << 13) | 1, be4 = (2 << 13) | 4;
	snprintf(num, sizeof num, "= %llu ]", start);
	assert_non_null(at = strstr(line, num));
	snprintf(other, sizeof other, "%.*s= %llu ]%s", (int)(at - line), line, start + 1, at + strlen(num));
	assert_int_equal(syscall(SYS_ioprio_set, 1, child, be1), 0);
	snprintf(cmd, sizeof cmd, "sh -c '%s' 2>/dev/null", other);
	assert_int_not_equal(system(cmd), -1);
	assert_int_equal(syscall(SYS_ioprio_get, 1, child), be1);
	snprintf(cmd, sizeof cmd, "sh -c '%s'", line);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(syscall(SYS_ioprio_get, 1, child), be4);
}

/* An I/O priority's undo names its process by pid and start time: once
 * the process has ended (or its pid names another, with another start
 * time), the revert line has no ionice for it, which would reach
 * whoever holds the pid now. */
static void test_ioprio_ended(void **state)
{
	(void)state;
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	struct undo_log l = {0};
	struct tune_req r;
	struct event ev = {.ok = 1, .ts = 1};
	char buf[1024];
	util_strlcpy(ev.from, "be/4", sizeof ev.from);
	tune_req_ioprio(&r, child, 0, "sleeper", "be/1");
	assert_true(r.start > 0);
	assert_true(tune_req_same_process(&r));
	assert_int_equal(undo_push(&l, &r, &ev), 0);
	undo_script(&l, buf, sizeof buf);
	/* every thread named, as the change set every thread, and only
	 * while the pid's start time is this process's */
	char want[128];
	snprintf(want, sizeof want, "for t in /proc/%d/task/*; do ionice -c 2 -n 4 -p ${t##*/}; done", (int)child);
	assert_non_null(strstr(buf, want));
	revert_runs(buf, child, r.start);
	/* an unknown start time is no process to act on */
	unsigned long long st = l.e[0].back.start;
	l.e[0].back.start = 0;
	assert_false(tune_req_same_process(&l.e[0].back));
	l.e[0].back.start = st;
	/* The same pid, another start time: another process. */
	l.e[0].back.start++;
	assert_false(tune_req_same_process(&l.e[0].back));
	undo_script(&l, buf, sizeof buf);
	assert_null(strstr(buf, "ionice"));
	l.e[0].back.start--;
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	assert_false(tune_req_same_process(&l.e[0].back));
	undo_script(&l, buf, sizeof buf);
	assert_null(strstr(buf, "ionice"));
	undo_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_planted_modes),   cmocka_unit_test(test_ioprio_ended),
		cmocka_unit_test(test_push_pop_order), cmocka_unit_test(test_not_recorded),
		cmocka_unit_test(test_full_drops_oldest), cmocka_unit_test(test_script),
		cmocka_unit_test(test_rule_text),      cmocka_unit_test(test_find_existing),
		cmocka_unit_test(test_write_merges),   cmocka_unit_test(test_write_whole_no_symlink),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
