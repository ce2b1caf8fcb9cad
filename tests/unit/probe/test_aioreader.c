/* Unit tests: the reader child's stream of back-to-back reads (the probe's
 * back-to-back mode) on a file of its own: batches of whole, timed reads
 * in completion order; a halt ends the stream and the child answers single
 * reads again; a read past the end ends the stream with that read; no
 * descriptor, no stream; a read that brings its own descriptor leaves
 * none behind. O_DIRECT needs a filesystem that has it, hence
 * /var/tmp (tmpfs in /tmp may not). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "probe/aioreader.h"
#include "base/util.h"

#define IO 4096
#define FILE_SIZE (1 << 20)

struct fixture {
	char dir[64];
	char path[96];
	int fd;
	struct aioreader r;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	strcpy(f->dir, "/var/tmp/iosched-aioreader-test.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof f->path, "%s/data", f->dir);
	int w = open(f->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	static char block[IO];
	memset(block, 'x', sizeof block);
	for (int i = 0; w >= 0 && i < FILE_SIZE / IO; i++)
		if (write(w, block, sizeof block) != (ssize_t)sizeof block)
			return -1;
	if (w < 0 || fsync(w) != 0 || close(w) != 0)
		return -1;
	f->fd = open(f->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (f->fd < 0 || aioreader_start(&f->r, IO) != 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	aioreader_stop(&f->r);
	close(f->fd);
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* Batches until one has end set; returns the reads seen. */
static int drain(struct aioreader *r, struct aioreader_batch *last)
{
	int n = 0;
	for (int tries = 0; tries < 500; tries++) {
		int rc = aioreader_next(r, 100, last);
		assert_true(rc >= 0);
		if (rc == 1) {
			n += last->n;
			if (last->end)
				return n;
		}
	}
	fail_msg("the stream did not end within 50 s");
	return n;
}

/* Wait for one answer, a whole timed read. */
static void wait_one(struct aioreader *r)
{
	int64_t res = 0, ns = 0;
	int rc;
	while ((rc = aioreader_wait(r, 5000, &res, &ns)) == 0)
		;
	assert_int_equal(rc, 1);
	assert_int_equal(res, IO);
	assert_true(ns > 0);
}

static void test_stream_then_single(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(aioreader_set_fd(&f->r, f->fd), 0);
	assert_int_equal(aioreader_stream(&f->r, FILE_SIZE, 42), 0);
	struct aioreader_batch b;
	int reads = 0, batches = 0;
	int64_t prev = 0;
	while (reads < 300) {
		int rc = aioreader_next(&f->r, 5000, &b);
		assert_int_equal(rc, 1);
		assert_false(b.end);
		assert_true(b.n >= 1 && b.n <= AIOREADER_BATCH);
		for (int i = 0; i < b.n; i++) {
			assert_int_equal(b.e[i].res, IO);
			assert_true(b.e[i].ns > 0);
			/* in completion order, and each read fits in the time since the last */
			assert_true(b.e[i].done_ns >= prev);
			if (prev)
				assert_true(b.e[i].done_ns - b.e[i].ns >= prev);
			prev = b.e[i].done_ns;
		}
		assert_true((double)prev / 1e9 <= util_mono_now());
		reads += b.n;
		batches++;
	}
	assert_true(batches >= 2);
	assert_int_equal(aioreader_halt(&f->r), 0);
	drain(&f->r, &b);
	for (int i = 0; i < b.n; i++)
		assert_int_equal(b.e[i].res, IO);
	/* Back to one answer per request. */
	assert_int_equal(aioreader_submit(&f->r, 8 * IO), 0);
	wait_one(&f->r);
	/* A halt with no stream: an empty ended batch, nothing else. */
	assert_int_equal(aioreader_halt(&f->r), 0);
	assert_int_equal(drain(&f->r, &b), 0);
	assert_int_equal(aioreader_set_fd(&f->r, -1), 0);
}

static void test_stream_ends_on_failed_read(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(aioreader_set_fd(&f->r, f->fd), 0);
	/* Offsets up to 64 times the file: almost every read is past its end. */
	assert_int_equal(aioreader_stream(&f->r, 64ull * FILE_SIZE, 7), 0);
	struct aioreader_batch b;
	drain(&f->r, &b);
	assert_true(b.n >= 1);
	assert_true(b.e[b.n - 1].res != IO);
	for (int i = 0; i < b.n - 1; i++)
		assert_int_equal(b.e[i].res, IO);
	/* The child is still there for requests. */
	assert_int_equal(aioreader_set_fd(&f->r, f->fd), 0);
}

static void test_no_descriptor_no_stream(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(aioreader_set_fd(&f->r, -1), 0);
	assert_int_equal(aioreader_stream(&f->r, FILE_SIZE, 1), -EBADF);
}

/* How many of pid's descriptors are open on path. */
static int open_copies(int pid, const char *path)
{
	char dir[64], link[PATH_MAX + 64], to[PATH_MAX];
	snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
		ssize_t len = readlink(link, to, sizeof to - 1);
		if (len > 0) {
			to[len] = '\0';
			n += strcmp(to, path) == 0;
		}
	}
	closedir(d);
	return n;
}

/* A paced probe in device mode hands the node over with each read: the
 * child reads through it and has closed it by the time it answers, so
 * between reads neither process holds the device (losetup -d is not held
 * up); a descriptor given with aioreader_set_fd is left as it was. */
static void test_read_brings_its_descriptor(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(aioreader_set_fd(&f->r, -1), 0);
	for (int i = 0; i < 3; i++) {
		int fd = open(f->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
		assert_true(fd >= 0);
		assert_int_equal(aioreader_submit_on(&f->r, fd, (uint64_t)i * IO), 0);
		close(fd);
		wait_one(&f->r);
		assert_int_equal(open_copies(f->r.pid, f->path), 0);
	}
	/* Nothing kept for a read that brings no descriptor. */
	assert_int_equal(aioreader_submit(&f->r, 0), -EBADF);
	assert_int_equal(aioreader_submit_on(&f->r, -1, 0), -EBADF);
	/* The one set stays through a read that brought its own. */
	assert_int_equal(aioreader_set_fd(&f->r, f->fd), 0);
	int fd = open(f->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(aioreader_submit_on(&f->r, fd, IO), 0);
	close(fd);
	wait_one(&f->r);
	assert_int_equal(open_copies(f->r.pid, f->path), 1);
	assert_int_equal(aioreader_submit(&f->r, 2 * IO), 0);
	wait_one(&f->r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stream_then_single, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_ends_on_failed_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_descriptor_no_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_brings_its_descriptor, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
