/* Unit tests: safefile — files created and replaced through a directory
 * opened once. A symlink, another user's file or a hard-linked one is not
 * written; a world-writable directory that is not sticky is refused; a
 * temporary has a fresh random name, the mode asked for (whatever the
 * umask) and is created O_EXCL; a commit replaces the file in the
 * directory that was opened even when the path now leads elsewhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/safefile.h"

static void make_top(char *top)
{
	strcpy(top, "/tmp/iosched-safefile-test.XXXXXX");
	assert_non_null(mkdtemp(top));
}

static void remove_top(const char *top)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
}

static void write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	ssize_t n = read(fd, buf, len - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
}

static void test_create_refuses(void **state)
{
	(void)state;
	char top[64], path[200], target[200], err[300];
	make_top(top);
	struct safefile_dir d;
	/* a symlink planted at the name: not followed, the target unchanged */
	snprintf(target, sizeof target, "%s/victim", top);
	write_text(target, "precious");
	snprintf(path, sizeof path, "%s/out", top);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), 0);
	assert_int_equal(safefile_create(&d, 0600, err, sizeof err), -ELOOP);
	assert_non_null(strstr(err, "symbolic link"));
	safefile_dir_close(&d);
	char buf[64];
	read_text(target, buf, sizeof buf);
	assert_string_equal(buf, "precious");
	/* a hard link to a file: not truncated */
	snprintf(path, sizeof path, "%s/linked", top);
	assert_int_equal(link(target, path), 0);
	assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), 0);
	assert_int_equal(safefile_create(&d, 0600, err, sizeof err), -EPERM);
	assert_non_null(strstr(err, "hard links"));
	safefile_dir_close(&d);
	read_text(target, buf, sizeof buf);
	assert_string_equal(buf, "precious");
	/* a FIFO: neither blocks nor is taken */
	snprintf(path, sizeof path, "%s/fifo", top);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), 0);
	assert_true(safefile_create(&d, 0600, err, sizeof err) < 0);
	safefile_dir_close(&d);
	/* a new file: created with the mode, empty */
	snprintf(path, sizeof path, "%s/new", top);
	assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), 0);
	int fd = safefile_create(&d, 0600, err, sizeof err);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	close(fd);
	safefile_dir_close(&d);
	/* an existing file of ours left 0644: truncated and made 0600 */
	snprintf(path, sizeof path, "%s/old.rec", top);
	write_text(path, "command lines");
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), 0);
	fd = safefile_create(&d, 0600, err, sizeof err);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, 0);
	close(fd);
	safefile_dir_close(&d);
	remove_top(top);
}

static void test_dir_checks(void **state)
{
	(void)state;
	char top[64], dir[200], path[300], err[300];
	make_top(top);
	struct safefile_dir d;
	snprintf(dir, sizeof dir, "%s/open", top);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(chmod(dir, 0777), 0); /* everyone may write, not sticky */
	snprintf(path, sizeof path, "%s/file", dir);
	assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), -EPERM);
	assert_non_null(strstr(err, "not sticky"));
	assert_non_null(strstr(err, dir));
	assert_int_equal(chmod(dir, 01777), 0); /* as /tmp: fine */
	assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), 0);
	assert_string_equal(d.base, "file");
	assert_string_equal(d.path, dir);
	safefile_dir_close(&d);
	/* names that are not a file's */
	assert_int_equal(safefile_dir_open(&d, "/tmp/", err, sizeof err), -EISDIR);
	assert_int_equal(safefile_dir_open(&d, "/tmp/..", err, sizeof err), -EISDIR);
	snprintf(path, sizeof path, "%s/missing/file", top);
	assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), -ENOENT);
	/* a bare name is in the current directory */
	assert_int_equal(safefile_dir_open(&d, "name", err, sizeof err), 0);
	assert_string_equal(d.path, ".");
	safefile_dir_close(&d);
	remove_top(top);
}

/* Every component of the path is walked without following a link and
 * checked: a symlink higher up (recdir -> a root-only directory) is not
 * followed, a step through an open directory or another user's is
 * refused, unless that user started the run through sudo. */
static void test_walk_components(void **state)
{
	(void)state;
	char top[64], dir[200], link[200], path[300], err[400];
	make_top(top);
	struct safefile_dir d;
	snprintf(dir, sizeof dir, "%s/private", top);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(link, sizeof link, "%s/recdir", top);
	assert_int_equal(symlink(dir, link), 0);
	snprintf(path, sizeof path, "%s/rec.jsonl", link);
	assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), -ELOOP);
	assert_non_null(strstr(err, "recdir is a symbolic link: not followed"));
	snprintf(path, sizeof path, "%s/./recdir/../private/rec.jsonl", top); /* .. is no link */
	assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), -ELOOP);
	snprintf(path, sizeof path, "%s/./private/../private/rec.jsonl", top);
	assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), 0);
	safefile_dir_close(&d);
	/* an open directory higher up: what follows it could be anyone's */
	snprintf(dir, sizeof dir, "%s/open", top);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	snprintf(path, sizeof path, "%s/sub", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/sub/file", dir);
	assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), -EPERM);
	assert_non_null(strstr(err, "can be written by everyone and is not sticky"));
	if (geteuid() == 0) { /* another user's directory: only root can make one */
		snprintf(dir, sizeof dir, "%s/theirs", top);
		assert_int_equal(mkdir(dir, 0755), 0);
		assert_int_equal(chown(dir, 65534, 65534), 0);
		snprintf(path, sizeof path, "%s/file", dir);
		unsetenv("SUDO_UID");
		assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), -EPERM);
		assert_non_null(strstr(err, "belongs to uid 65534"));
		setenv("SUDO_UID", "65534", 1); /* the one who ran sudo: trusted with root already */
		assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), 0);
		safefile_dir_close(&d);
		unsetenv("SUDO_UID");
	}
	remove_top(top);
}

static void test_temp_and_commit(void **state)
{
	(void)state;
	char top[64], moved[100], path[200], tmp1[NAME_MAX + 1], tmp2[NAME_MAX + 1], err[300], buf[64];
	make_top(top);
	snprintf(path, sizeof path, "%s/a.prom", top);
	write_text(path, "old");
	struct safefile_dir d;
	assert_int_equal(safefile_dir_open(&d, path, err, sizeof err), 0);
	mode_t um = umask(077);
	int f1 = safefile_temp(&d, 0644, tmp1, sizeof tmp1);
	int f2 = safefile_temp(&d, 0644, tmp2, sizeof tmp2);
	umask(um);
	assert_true(f1 >= 0 && f2 >= 0);
	assert_string_not_equal(tmp1, tmp2);
	assert_int_equal(strncmp(tmp1, ".a.prom.", 8), 0);
	assert_int_equal(strlen(tmp1), strlen(".a.prom.") + 6);
	struct stat st;
	assert_int_equal(fstat(f1, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644); /* not the umask's 0600 */
	assert_int_equal(write(f1, "new", 3), 3);
	close(f1);
	close(f2);
	safefile_discard(&d, tmp2);
	/* The path is made to lead elsewhere between the temporary and the
	 * commit: the commit still lands in the directory that was opened. */
	snprintf(moved, sizeof moved, "%s.moved", top);
	assert_int_equal(rename(top, moved), 0);
	assert_int_equal(mkdir(top, 0700), 0);
	assert_int_equal(safefile_commit(&d, tmp1), 0);
	safefile_dir_close(&d);
	struct stat none;
	assert_int_not_equal(stat(path, &none), 0); /* nothing in the new place */
	snprintf(path, sizeof path, "%s/a.prom", moved);
	read_text(path, buf, sizeof buf);
	assert_string_equal(buf, "new");
	char left[400];
	snprintf(left, sizeof left, "%s/%s", moved, tmp2);
	assert_int_not_equal(stat(left, &none), 0); /* the discarded one is gone */
	remove_top(top);
	remove_top(moved);
}

/* Count the entries of dir other than . and .. */
static int entries(const char *dir)
{
	char cmd[300], out[16] = "";
	snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, sizeof out, p));
	pclose(p);
	return atoi(out);
}

/* One replace of name in top by a rename: the result, why in err. */
static int replace(const char *top, const char *name, char *err, size_t len)
{
	char path[200], tmp[NAME_MAX + 1];
	snprintf(path, sizeof path, "%s/%s", top, name);
	struct safefile_dir d;
	assert_int_equal(safefile_dir_open(&d, path, err, len), 0);
	int rc;
	FILE *f = safefile_temp_stream(&d, 0644, tmp, sizeof tmp, &rc);
	assert_non_null(f);
	fputs("new\n", f);
	err[0] = '\0';
	rc = safefile_finish_replace(&d, f, tmp, err, len);
	safefile_dir_close(&d);
	return rc;
}

static void test_finish_replace(void **state)
{
	(void)state;
	char top[64], path[200], target[200], err[300], buf[64];
	make_top(top);
	/* a link at the name stays a link (a rename would have replaced it) */
	snprintf(target, sizeof target, "%s/victim", top);
	write_text(target, "victim\n");
	snprintf(path, sizeof path, "%s/link", top);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(replace(top, "link", err, sizeof err), -ELOOP);
	assert_non_null(strstr(err, "link is a symbolic link: not replaced"));
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* a FIFO stays */
	snprintf(path, sizeof path, "%s/fifo", top);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(replace(top, "fifo", err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "fifo is not a regular file: not replaced"));
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	/* no temporary is left beside them: victim, link, fifo */
	assert_int_equal(entries(top), 3);
	/* another user's file stays theirs (root can give one away) */
	if (geteuid() == 0) {
		snprintf(path, sizeof path, "%s/theirs", top);
		write_text(path, "theirs\n");
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(replace(top, "theirs", err, sizeof err), -EPERM);
		assert_non_null(strstr(err, "theirs belongs to uid 65534, not to this user: not replaced"));
		read_text(path, buf, sizeof buf);
		assert_string_equal(buf, "theirs\n");
	}
	/* this user's own file, and a new name, are replaced and made */
	assert_int_equal(replace(top, "victim", err, sizeof err), 0);
	read_text(target, buf, sizeof buf);
	assert_string_equal(buf, "new\n");
	assert_int_equal(replace(top, "fresh", err, sizeof err), 0);
	remove_top(top);
}

/* safefile_make_dir makes what is missing, and nothing through a link. */
static void test_make_dir(void **state)
{
	(void)state;
	char top[64], path[200], target[200], err[300];
	make_top(top);
	snprintf(path, sizeof path, "%s/a/b/c", top);
	int fd = safefile_make_dir(path, 0700, err, sizeof err);
	assert_true(fd >= 0);
	close(fd);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	fd = safefile_make_dir(path, 0700, err, sizeof err); /* all there: opened */
	assert_true(fd >= 0);
	close(fd);
	/* a link on the way: refused, nothing made where it leads */
	snprintf(target, sizeof target, "%s/victim", top);
	assert_int_equal(mkdir(target, 0700), 0);
	snprintf(path, sizeof path, "%s/link", top);
	assert_int_equal(symlink(target, path), 0);
	snprintf(path, sizeof path, "%s/link/x/y", top);
	assert_int_equal(safefile_make_dir(path, 0700, err, sizeof err), -ELOOP);
	assert_non_null(strstr(err, "link is a symbolic link: not followed"));
	assert_int_equal(entries(target), 0);
	remove_top(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_refuses),
		cmocka_unit_test(test_dir_checks),
		cmocka_unit_test(test_walk_components),
		cmocka_unit_test(test_temp_and_commit),
		cmocka_unit_test(test_finish_replace),
		cmocka_unit_test(test_make_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
