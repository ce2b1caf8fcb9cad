/* Unit tests: scratch directories and temporaries — a live one (its lock
 * held) is never swept, a dead one is, with only the tool's own files in
 * it; symlinks, other modes, other names and foreign files are left, and
 * so is anything whose lock file does not say a dead run of the tool on
 * this machine made it (none, another machine's, a live pid's), and
 * everything in a directory reached through a symlink. A lock held
 * through a second open file description stands for another live
 * process: flock(2) locks belong to the description. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "act/load.h"
#include "probe/probefile.h"
#include "base/scratch.h"
#include "base/util.h"

#define PREFIX ".iosched-top-load."

struct lines {
	int n;
	char last[1024];
	char all[4096];             /* every line, one after another */
};

static void collect(void *ctx, const char *line)
{
	struct lines *l = ctx;
	l->n++;
	util_strlcpy(l->last, line, sizeof l->last);
	size_t used = strlen(l->all);
	snprintf(l->all + used, sizeof l->all - used, "%s\n", line);
}

static void make_file(const char *dir, const char *name)
{
	char path[2100];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "data", 4), 4);
	close(fd);
}

static int exists(const char *dir, const char *name)
{
	char path[2100];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return lstat(path, &st) == 0;
}

/* A temporary as a run of the tool makes it, the run then killed (its
 * lock dropped, its lock file left). */
static void make_dead_tmp(const char *dir, const char *name)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	int lock = -1;
	int fd = scratch_tmp_create(dfd, name, &lock);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "data", 4), 4);
	close(fd);
	close(lock);
	close(dfd);
}

/* A lock file name in dir saying "iosched-top MACHINE BOOT PID". */
static void make_mark(const char *dir, const char *name, const char *machine, const char *boot, long pid)
{
	char path[2100];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "iosched-top %s %s %ld\n", machine, boot, pid);
	fclose(f);
}

static void read_first_word(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	char word[64];
	if (f && fscanf(f, "%63s", word) == 1)
		util_strlcpy(out, word, len);
	else
		util_strlcpy(out, "-", len);
	if (f)
		fclose(f);
}

static void make_top(char *top)
{
	strcpy(top, "/tmp/iosched-scratch-test.XXXXXX");
	assert_non_null(mkdtemp(top));
}

static void remove_top(const char *top)
{
	char cmd[1100];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
}

static void test_live_kept_dead_removed(void **state)
{
	(void)state;
	char top[64], dir[1024];
	make_top(top);
	int lock = scratch_dir_make(top, PREFIX, dir, sizeof dir);
	assert_true(lock >= 0);
	struct stat st;
	assert_int_equal(lstat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(strncmp(dir + strlen(top) + 1, PREFIX, strlen(PREFIX)), 0);
	make_file(dir, "write.dat");
	make_file(dir, "f12");
	struct lines l = {0};
	/* Its maker lives (the lock is held): left alone. */
	assert_int_equal(load_sweep(top, collect, &l), 0);
	assert_int_equal(l.n, 0);
	assert_true(exists(dir, "write.dat"));
	/* Its maker is gone (the kernel drops the lock): removed, said once. */
	close(lock);
	assert_int_equal(load_sweep(top, collect, &l), 1);
	assert_int_equal(l.n, 1);
	assert_non_null(strstr(l.last, "removed scratch directory"));
	assert_non_null(strstr(l.last, dir));
	assert_int_not_equal(lstat(dir, &st), 0);
	remove_top(top);
}

static void test_foreign_files_left(void **state)
{
	(void)state;
	char top[64], dir[1024];
	make_top(top);
	int lock = scratch_dir_make(top, PREFIX, dir, sizeof dir);
	assert_true(lock >= 0);
	close(lock);
	make_file(dir, "f3");
	make_file(dir, "notes.txt"); /* not a name the load uses */
	make_file(dir, "fx");
	struct lines l = {0};
	assert_int_equal(load_sweep(top, collect, &l), 0);
	assert_int_equal(l.n, 1);
	assert_non_null(strstr(l.last, "does not make"));
	assert_false(exists(dir, "f3"));
	assert_true(exists(dir, "notes.txt"));
	assert_true(exists(dir, "fx"));
	/* the directory keeps its lock file: the next sweep says the same,
	 * not that it holds no lock file */
	assert_true(exists(dir, "iosched-top.lock"));
	assert_int_equal(load_sweep(top, collect, &l), 0);
	assert_int_equal(l.n, 2);
	assert_non_null(strstr(l.last, "does not make"));
	assert_true(exists(dir, "iosched-top.lock"));
	remove_top(top);
}

static void test_not_ours_left(void **state)
{
	(void)state;
	char top[64], path[1024], target[1024];
	make_top(top);
	/* A symlink with our name, to a directory holding our file names. */
	snprintf(target, sizeof target, "%s/elsewhere", top);
	assert_int_equal(mkdir(target, 0700), 0);
	make_file(target, "write.dat");
	snprintf(path, sizeof path, "%s/" PREFIX "Sym123", top);
	assert_int_equal(symlink(target, path), 0);
	/* Our prefix, but not as mkdtemp makes it: open to others, or
	 * another length. */
	snprintf(path, sizeof path, "%s/" PREFIX "Open12", top);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chmod(path, 0755), 0);
	make_file(path, "write.dat");
	snprintf(path, sizeof path, "%s/" PREFIX "Longer1", top);
	assert_int_equal(mkdir(path, 0700), 0);
	/* A regular file with our name. */
	make_file(top, PREFIX "File12");
	struct lines l = {0};
	assert_int_equal(load_sweep(top, collect, &l), 0);
	assert_int_equal(l.n, 0);
	assert_true(exists(target, "write.dat"));
	assert_true(exists(top, PREFIX "Sym123"));
	assert_true(exists(top, PREFIX "Open12/write.dat"));
	assert_true(exists(top, PREFIX "Longer1"));
	assert_true(exists(top, PREFIX "File12"));
	remove_top(top);
}

static void test_tmp_files(void **state)
{
	(void)state;
	char top[64], path[1024];
	make_top(top);
	make_dead_tmp(top, ".sda.probe.123.tmp"); /* dead: removed */
	make_file(top, ".sdb.probe.77.tmp");   /* live: kept */
	char machine[64], boot[64];
	read_first_word("/etc/machine-id", machine, sizeof machine);
	read_first_word("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
	make_mark(top, ".sdb.probe.77.tmp.lock", machine, boot, (long)getpid());
	make_file(top, "sda.probe");           /* a whole probe file: kept */
	make_file(top, ".sda.probe.tmp");      /* no pid: not our pattern */
	snprintf(path, sizeof path, "%s/sda.probe", top);
	char link[1024];
	snprintf(link, sizeof link, "%s/.sdc.probe.9.tmp", top);
	assert_int_equal(symlink(path, link), 0); /* not a regular file */
	snprintf(path, sizeof path, "%s/.sdb.probe.77.tmp.lock", top);
	int live = open(path, O_RDONLY);
	assert_true(live >= 0);
	assert_int_equal(flock(live, LOCK_EX | LOCK_NB), 0);
	struct lines l = {0};
	snprintf(path, sizeof path, "%s/sda.probe", top);
	/* A user's directory: only that file's temporaries. */
	make_dead_tmp(top, ".other.5.tmp");
	assert_int_equal(probefile_sweep(path, 0, collect, &l), 1);
	assert_false(exists(top, ".sda.probe.123.tmp"));
	assert_true(exists(top, ".other.5.tmp"));
	/* The tool's own directory: any probe file's, never a live one's. */
	assert_int_equal(probefile_sweep(path, 1, collect, &l), 1);
	assert_int_equal(l.n, 2);
	assert_non_null(strstr(l.last, "removed temporary file"));
	assert_false(exists(top, ".other.5.tmp"));
	assert_true(exists(top, ".sdb.probe.77.tmp"));
	assert_true(exists(top, "sda.probe"));
	assert_true(exists(top, ".sda.probe.tmp"));
	assert_true(exists(top, ".sdc.probe.9.tmp"));
	assert_false(exists(top, ".sda.probe.123.tmp.lock"));
	assert_true(exists(top, ".sdb.probe.77.tmp.lock"));
	close(live);
	remove_top(top);
}

/* Only what a lock file says a dead run of the tool on this machine made
 * (a temporary with no lock file: test_lockless_tmp): not a
 * scratch directory without one, or one made on another machine (a shared
 * filesystem: its maker may live there), or one whose maker's pid lives. */
static void test_lock_file_says(void **state)
{
	(void)state;
	char top[64], path[1024], dir[1024], machine[64], boot[64];
	make_top(top);
	read_first_word("/etc/machine-id", machine, sizeof machine);
	read_first_word("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
	make_file(top, ".sda.probe.8.tmp");
	make_mark(top, ".sda.probe.8.tmp.lock", "another-machine", boot, 1);
	snprintf(path, sizeof path, "%s/sda.probe", top);
	struct lines l = {0};
	assert_int_equal(probefile_sweep(path, 1, collect, &l), 0);
	assert_true(exists(top, ".sda.probe.8.tmp"));
	/* directories: none, another machine's, a live pid's */
	const char *names[] = {PREFIX "NoLock", PREFIX "Elsewh", PREFIX "Living"};
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	for (int i = 0; i < 3; i++) {
		snprintf(dir, sizeof dir, "%s/%s", top, names[i]);
		assert_int_equal(mkdir(dir, 0700), 0);
		make_file(dir, "write.dat");
		if (i == 1)
			make_mark(dir, "iosched-top.lock", "another-machine", boot, 1);
		if (i == 2)
			make_mark(dir, "iosched-top.lock", machine, boot, (long)child);
	}
	assert_int_equal(load_sweep(top, collect, &l), 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	assert_int_equal(l.n, 3);
	for (int i = 0; i < 3; i++) {
		snprintf(dir, sizeof dir, "%s/%s", top, names[i]);
		assert_true(exists(dir, "write.dat"));
	}
	assert_non_null(strstr(l.all, "still runs"));
	assert_non_null(strstr(l.all, "another machine"));
	assert_non_null(strstr(l.all, "no lock file"));
	/* its maker gone now: removed */
	l.n = 0;
	assert_int_equal(load_sweep(top, collect, &l), 1);
	assert_false(exists(top, PREFIX "Living"));
	remove_top(top);
}

/* A pid that no process has now: a child's that ended. */
static pid_t dead_pid(void)
{
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	return child;
}

/* Temporaries without a lock file, as earlier versions left them when
 * killed: in a user's directory (it may be another program's with the same
 * pattern) only said; in the tool's own directory removed, but not one
 * whose pid is a live run of the tool nor one whose flock is held. */
static void test_lockless_tmp(void **state)
{
	(void)state;
	char top[64], dead[64], live[64], held[64], path[1024];
	make_top(top);
	pid_t tool = fork();
	assert_true(tool >= 0);
	if (tool == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* gone with the test, whatever fails */
		prctl(PR_SET_NAME, "iosched-top");
		pause();
		_exit(0);
	}
	snprintf(dead, sizeof dead, ".vda.probe.%d.tmp", (int)dead_pid());
	snprintf(live, sizeof live, ".vda.probe.%d.tmp", (int)tool);
	snprintf(held, sizeof held, ".vdb.probe.%d.tmp", (int)dead_pid());
	make_file(top, dead);
	make_file(top, live);
	make_file(top, held);
	snprintf(path, sizeof path, "%s/%s", top, held);
	int hold = open(path, O_RDONLY);
	assert_true(hold >= 0);
	assert_int_equal(flock(hold, LOCK_EX | LOCK_NB), 0);
	usleep(100000); /* the child has its name */
	struct lines l = {0};
	snprintf(path, sizeof path, "%s/vda.probe", top);
	assert_int_equal(probefile_sweep(path, 0, collect, &l), 0);
	assert_true(exists(top, dead));
	assert_int_equal(l.n, 1);
	assert_non_null(strstr(l.last, dead));
	assert_non_null(strstr(l.last, "without a lock file"));
	l.n = 0;
	assert_int_equal(probefile_sweep(path, 1, collect, &l), 1);
	assert_int_equal(l.n, 1);
	assert_non_null(strstr(l.last, "removed temporary file"));
	assert_false(exists(top, dead));
	assert_true(exists(top, live));
	assert_true(exists(top, held));
	kill(tool, SIGKILL);
	waitpid(tool, NULL, 0);
	close(hold);
	remove_top(top);
}

/* The tool's own directory reached through a symlink (someone planted
 * /var/tmp/iosched-top-0 -> a directory of root's): nothing in the
 * directory it leads to is removed, even what looks like a dead run's. */
static void test_symlinked_dir_left(void **state)
{
	(void)state;
	char top[64], victim[200], link[200], path[300];
	make_top(top);
	snprintf(victim, sizeof victim, "%s/victim", top);
	assert_int_equal(mkdir(victim, 0700), 0);
	make_dead_tmp(victim, ".shadow.1.tmp");
	make_dead_tmp(victim, ".vda.probe.7.tmp");
	snprintf(link, sizeof link, "%s/iosched-top-0", top);
	assert_int_equal(symlink(victim, link), 0);
	snprintf(path, sizeof path, "%s/vda.probe", link);
	struct lines l = {0};
	assert_int_equal(probefile_sweep(path, 1, collect, &l), 0);
	assert_int_equal(probefile_sweep(path, 0, collect, &l), 0);
	assert_true(exists(victim, ".shadow.1.tmp"));
	assert_true(exists(victim, ".vda.probe.7.tmp"));
	/* and a directory of ours open to others is not taken for the tool's */
	assert_int_equal(unlink(link), 0);
	assert_int_equal(chmod(victim, 0755), 0);
	snprintf(path, sizeof path, "%s/vda.probe", victim);
	assert_int_equal(probefile_sweep(path, 1, collect, &l), 0);
	assert_true(exists(victim, ".shadow.1.tmp"));
	assert_int_equal(l.n, 0);
	remove_top(top);
}

static void test_tmp_names(void **state)
{
	(void)state;
	assert_true(scratch_is_tmp_of(".vda.probe.123.tmp", NULL));
	assert_true(scratch_is_tmp_of(".vda.probe.123.tmp", "vda.probe"));
	assert_false(scratch_is_tmp_of(".vda.probe.123.tmp", "vd.probe"));
	assert_false(scratch_is_tmp_of(".vda.probe.123.tmp", "vda.probe.1"));
	assert_false(scratch_is_tmp_of("vda.probe.123.tmp", NULL));
	assert_false(scratch_is_tmp_of(".vda.probe.tmp", NULL));
	assert_false(scratch_is_tmp_of(".vda.probe.12a.tmp", NULL));
	assert_false(scratch_is_tmp_of("..1.tmp", NULL));
	assert_false(scratch_is_tmp_of(".x.1.tmpx", NULL));
	assert_false(scratch_is_tmp_of(".tmp", NULL));
}

/* A probe directory made by someone else: a private one beside it for the
 * run, kept while its lock is held, swept once the lock is free (the run
 * was killed), removed with its file when the probe ends. */
static void test_probe_private_dir(void **state)
{
	(void)state;
	char top[64], planted[100], path[200], priv[300], priv2[300], why[300];
	make_top(top);
	snprintf(planted, sizeof planted, "%s/iosched-top-0", top);
	assert_int_equal(mkdir(planted, 0755), 0);
	snprintf(path, sizeof path, "%s/vda.probe", planted);
	int lock = probefile_private_dir(path, priv, sizeof priv, why, sizeof why);
	assert_true(lock >= 0);
	assert_int_equal(strncmp(priv, planted, strlen(planted)), 0);
	assert_int_equal(priv[strlen(planted)], '.');
	assert_string_equal(priv + strlen(planted) + 7, "/vda.probe");
	char dir[300];
	snprintf(dir, sizeof dir, "%.*s", (int)(strlen(planted) + 7), priv);
	struct stat st;
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	char *slash = strrchr(priv, '/');
	*slash = '\0';
	make_file(priv, "vda.probe");
	*slash = '/';
	struct lines l = {0};
	assert_int_equal(probefile_sweep(path, 1, collect, &l), 0); /* live: kept */
	assert_int_equal(stat(dir, &st), 0);
	close(lock); /* the run died */
	assert_int_equal(probefile_sweep(path, 1, collect, &l), 1);
	assert_non_null(strstr(l.last, dir + strlen(top) + 1));
	assert_int_not_equal(stat(dir, &st), 0);
	/* the normal end: file and directory go */
	lock = probefile_private_dir(path, priv2, sizeof priv2, why, sizeof why);
	assert_true(lock >= 0);
	slash = strrchr(priv2, '/');
	*slash = '\0';
	make_file(priv2, "vda.probe");
	char d2[300];
	util_strlcpy(d2, priv2, sizeof d2);
	*slash = '/';
	probefile_private_remove(priv2, lock);
	assert_int_not_equal(stat(d2, &st), 0);
	assert_int_equal(stat(planted, &st), 0); /* the planted one is not ours to touch */
	remove_top(top);
}

/* scratch_dir_make_at: made through the parent's descriptor (0700, the
 * prefix and a random name), swept as scratch_dir_make's once its maker is
 * gone, removed through the descriptor too. */
static void test_dir_make_at(void **state)
{
	(void)state;
	char top[64], name[256], dir[1100];
	make_top(top);
	int pfd = open(top, O_RDONLY | O_DIRECTORY);
	assert_true(pfd >= 0);
	int lock = scratch_dir_make_at(pfd, PREFIX, name, sizeof name);
	assert_true(lock >= 0);
	assert_int_equal(strncmp(name, PREFIX, strlen(PREFIX)), 0);
	assert_int_equal(strlen(name), strlen(PREFIX) + 6);
	snprintf(dir, sizeof dir, "%s/%s", top, name);
	struct stat st;
	assert_int_equal(lstat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	struct lines l = {0};
	assert_int_equal(load_sweep(top, collect, &l), 0); /* its maker lives */
	scratch_dir_remove_at(pfd, name, lock);
	assert_int_not_equal(lstat(dir, &st), 0);
	/* a killed maker's: swept */
	lock = scratch_dir_make_at(pfd, PREFIX, name, sizeof name);
	assert_true(lock >= 0);
	snprintf(dir, sizeof dir, "%s/%s", top, name);
	make_file(dir, "write.dat");
	close(lock);
	assert_int_equal(load_sweep(top, collect, &l), 1);
	assert_int_not_equal(lstat(dir, &st), 0);
	close(pfd);
	remove_top(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_kept_dead_removed), cmocka_unit_test(test_foreign_files_left),
		cmocka_unit_test(test_not_ours_left),          cmocka_unit_test(test_tmp_files),
		cmocka_unit_test(test_lock_file_says),         cmocka_unit_test(test_symlinked_dir_left),
		cmocka_unit_test(test_tmp_names),              cmocka_unit_test(test_lockless_tmp),
		cmocka_unit_test(test_probe_private_dir),
		cmocka_unit_test(test_dir_make_at),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
