/* Unit tests: cgroup_walk_ids (read/cgroup.c), the walk that names a
 * cgroup id, on a tree made in a temporary directory: each directory is
 * given once, with its inode number and its path relative to the root
 * ("/" the root itself); a symlink to a directory and a file are left
 * out; the depth and count limits hold, and so does a stop asked by the
 * callback; a path too long to keep is left out, not cut; a root that
 * cannot be opened is an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/cgroup.h"

#define LONG_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
	       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define LONG_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/* What a walk gave. */
struct seen {
	int n, stop_at;
	uint64_t id[16];
	char path[16][CGROUP_PATH_MAX];
};

static int note(uint64_t id, const char *path, void *ctx)
{
	struct seen *s = ctx;
	assert_true(s->n < 16);
	s->id[s->n] = id;
	snprintf(s->path[s->n], sizeof s->path[s->n], "%s", path);
	s->n++;
	return s->stop_at && s->n == s->stop_at;
}

/* The index of path in s, or -1. */
static int find(const struct seen *s, const char *path)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->path[i], path) == 0)
			return i;
	return -1;
}

static uint64_t ino_of(const char *root, const char *rel)
{
	char p[1024];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s", root, rel);
	assert_int_equal(lstat(p, &st), 0);
	return (uint64_t)st.st_ino;
}

static void make(const char *root, const char *rel)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static int unlink_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* root/{a/b/c, d, f (a file), l -> a} */
static int setup(void **state)
{
	static char root[64];
	snprintf(root, sizeof root, "/tmp/iosched-cgwalk-XXXXXX");
	assert_non_null(mkdtemp(root));
	make(root, "a");
	make(root, "a/b");
	make(root, "a/b/c");
	make(root, "d");
	char p[1024];
	snprintf(p, sizeof p, "%s/f", root);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(p, sizeof p, "%s/l", root);
	assert_int_equal(symlink("a", p), 0);
	*state = root;
	return 0;
}

static int teardown(void **state)
{
	nftw(*state, unlink_one, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}

static void test_every_directory(void **state)
{
	const char *root = *state;
	struct seen s = {0};
	assert_int_equal(cgroup_walk_ids(root, 16, 100, note, &s), 5);
	assert_int_equal(s.n, 5);
	assert_int_equal(find(&s, "/"), 0); /* the root first */
	assert_true(s.id[0] == ino_of(root, "."));
	const char *dirs[] = {"a", "a/b", "a/b/c", "d"};
	for (size_t i = 0; i < 4; i++) {
		int k = find(&s, dirs[i]);
		assert_true(k > 0);
		assert_true(s.id[k] == ino_of(root, dirs[i]));
	}
	assert_true(find(&s, "a/b") < find(&s, "a/b/c")); /* parents first */
	assert_int_equal(find(&s, "l"), -1);               /* a symlink is not followed */
	assert_int_equal(find(&s, "f"), -1);
}

static void test_limits(void **state)
{
	const char *root = *state;
	struct seen s = {0};
	/* one level below the root */
	assert_int_equal(cgroup_walk_ids(root, 1, 100, note, &s), 3);
	assert_true(find(&s, "a") > 0 && find(&s, "d") > 0);
	assert_int_equal(find(&s, "a/b"), -1);
	/* two levels */
	memset(&s, 0, sizeof s);
	assert_int_equal(cgroup_walk_ids(root, 2, 100, note, &s), 4);
	assert_true(find(&s, "a/b") > 0);
	assert_int_equal(find(&s, "a/b/c"), -1);
	/* the root alone */
	memset(&s, 0, sizeof s);
	assert_int_equal(cgroup_walk_ids(root, 0, 100, note, &s), 1);
	assert_string_equal(s.path[0], "/");
	/* at most 3 directories, the root counted */
	memset(&s, 0, sizeof s);
	assert_int_equal(cgroup_walk_ids(root, 16, 3, note, &s), 3);
	assert_int_equal(s.n, 3);
	memset(&s, 0, sizeof s);
	assert_int_equal(cgroup_walk_ids(root, 16, 0, note, &s), 0);
	assert_int_equal(s.n, 0);
}

static void test_stop(void **state)
{
	struct seen s = {.stop_at = 2};
	assert_int_equal(cgroup_walk_ids(*state, 16, 100, note, &s), 2);
	assert_int_equal(s.n, 2);
}

static void test_long_path_left_out(void **state)
{
	const char *root = *state;
	make(root, LONG_A);
	make(root, LONG_A "/" LONG_B); /* 294 bytes: more than CGROUP_PATH_MAX */
	struct seen s = {0};
	assert_int_equal(cgroup_walk_ids(root, 16, 100, note, &s), 6);
	assert_true(find(&s, LONG_A) > 0);
	for (int i = 0; i < s.n; i++)
		assert_null(strstr(s.path[i], LONG_B));
}

static void test_no_root(void **state)
{
	(void)state;
	struct seen s = {0};
	assert_int_equal(cgroup_walk_ids("/nonexistent/iosched-cgwalk", 16, 100, note, &s), -ENOENT);
	assert_int_equal(s.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_path_left_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_root, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
