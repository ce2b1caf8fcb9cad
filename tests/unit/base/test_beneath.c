/* Unit tests: beneath — a name opened below a directory with no symbolic
 * link followed anywhere on the way, no ".." out of it, no absolute name;
 * both ways (openat2, and the steps kernels before 5.6 take) say the same. */
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

#include "base/beneath.h"

typedef int (*opener)(int, const char *, int);

struct fixture {
	char top[64];
	int fd;
};

static void path_in(const struct fixture *f, const char *rel, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", f->top, rel);
}

/* top/a/b/file, top/a/link -> top/a/b (a link in the middle of a name),
 * top/a/flink -> top/a/b/file, top/a/fifo. */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	char p[160];
	strcpy(f->top, "/var/tmp/iosched-beneath-test.XXXXXX");
	if (!mkdtemp(f->top))
		return -1;
	path_in(f, "a", p, sizeof p);
	mkdir(p, 0755);
	path_in(f, "a/b", p, sizeof p);
	mkdir(p, 0755);
	path_in(f, "a/b/file", p, sizeof p);
	close(open(p, O_WRONLY | O_CREAT | O_EXCL, 0644));
	path_in(f, "a/link", p, sizeof p);
	if (symlink("b", p) < 0)
		return -1;
	path_in(f, "a/flink", p, sizeof p);
	if (symlink("b/file", p) < 0)
		return -1;
	path_in(f, "a/fifo", p, sizeof p);
	if (mkfifo(p, 0644) < 0)
		return -1;
	f->fd = open(f->top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	*state = f;
	return f->fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];
	close(f->fd);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->top);
	int rc = system(cmd);
	free(f);
	return rc == 0 ? 0 : -1;
}

static void check_one(const struct fixture *f, opener op)
{
	int fd = op(f->fd, "a/b/file", O_RDONLY);
	assert_true(fd >= 0);
	close(fd);
	fd = op(f->fd, ".", O_PATH | O_DIRECTORY);
	assert_true(fd >= 0);
	close(fd);
	fd = op(f->fd, "a/./b/file", O_RDONLY);
	assert_true(fd >= 0);
	close(fd);
	/* a link in the middle, or last: not followed */
	assert_int_equal(op(f->fd, "a/link/file", O_RDONLY), -ELOOP);
	assert_int_equal(op(f->fd, "a/flink", O_RDONLY), -ELOOP);
	/* out of the top */
	assert_int_equal(op(f->fd, "a/../../x", O_RDONLY), -EXDEV);
	assert_int_equal(op(f->fd, "..", O_PATH), -EXDEV);
	assert_int_equal(op(f->fd, "/etc/passwd", O_RDONLY), -EINVAL);
	assert_int_equal(op(f->fd, "", O_RDONLY), -EINVAL);
	assert_int_equal(op(f->fd, "a/missing", O_RDONLY), -ENOENT);
	/* O_PATH looks at a FIFO without opening it (an open for reading
	 * would wait for a writer): its type is known before any open */
	fd = op(f->fd, "a/fifo", O_PATH);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	close(fd);
}

static void test_openat2(void **state)
{
	check_one(*state, beneath_open);
}

static void test_steps(void **state)
{
	check_one(*state, beneath_open_steps);
}

/* The reopen of an O_PATH handle reaches the object the handle is, even
 * once its name leads elsewhere. */
static void test_reopen(void **state)
{
	struct fixture *f = *state;
	char p[160], q[160];
	int pfd = beneath_open(f->fd, "a/b/file", O_PATH);
	assert_true(pfd >= 0);
	path_in(f, "a/b/file", p, sizeof p);
	path_in(f, "a/b/file.old", q, sizeof q);
	assert_int_equal(rename(p, q), 0);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "new", 3), 3);
	close(fd);
	fd = beneath_reopen(pfd, O_RDONLY);
	assert_true(fd >= 0);
	struct stat a, b;
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat(q, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);
	close(fd);
	close(pfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_openat2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reopen, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
