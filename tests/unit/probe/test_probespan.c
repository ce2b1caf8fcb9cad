/* Unit tests: probespan — the probe's read-only file mode. Which FIEMAP
 * extents are kept (never a hole, inline, unwritten, delayed, encoded or
 * unplaced one; both ends aligned and inside the file); on real files of
 * the filesystem under /var/tmp, a file with a hole and a fallocated one
 * are mapped so that no read lands in the hole or the unwritten range; a
 * walk keeps to its budget and its size floor; a file replaced or changed
 * after it was mapped is dropped, not read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "probe/probespan.h"
#include "probe/prng.h"

#define MiB (1024ull * 1024)
#define IO 4096ull

static struct fiemap_extent extent(uint64_t logical, uint64_t physical, uint64_t length, uint32_t flags)
{
	return (struct fiemap_extent){.fe_logical = logical, .fe_physical = physical, .fe_length = length,
				      .fe_flags = flags};
}

static void test_keep(void **state)
{
	(void)state;
	uint64_t lo, hi;
	struct fiemap_extent e = extent(0, 1 << 20, 1 << 20, FIEMAP_EXTENT_LAST);
	assert_int_equal(probespan_keep(&e, 4 * MiB, IO, &lo, &hi), 1);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, MiB);
	/* Refused whatever their size: each kind that does not read the
	 * disk's own blocks where the file says. */
	const uint32_t refused[] = {FIEMAP_EXTENT_UNKNOWN, FIEMAP_EXTENT_DELALLOC, FIEMAP_EXTENT_ENCODED,
				    FIEMAP_EXTENT_DATA_ENCRYPTED, FIEMAP_EXTENT_NOT_ALIGNED, FIEMAP_EXTENT_DATA_INLINE,
				    FIEMAP_EXTENT_DATA_TAIL, FIEMAP_EXTENT_UNWRITTEN};
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		e = extent(0, 1 << 20, 1 << 20, refused[i]);
		assert_int_equal(probespan_keep(&e, 4 * MiB, IO, &lo, &hi), 0);
	}
	e = extent(0, 0, 1 << 20, 0); /* no physical place */
	assert_int_equal(probespan_keep(&e, 4 * MiB, IO, &lo, &hi), 0);
	/* Trimmed to whole reads inside the extent and the file. */
	e = extent(1000, (1 << 20) + 1000, 20000, 0);
	assert_int_equal(probespan_keep(&e, 4 * MiB, IO, &lo, &hi), 1);
	assert_int_equal(lo, 4096);
	assert_int_equal(hi, 20480);
	e = extent(0, 1 << 20, 1 << 20, 0); /* the file ends inside it */
	assert_int_equal(probespan_keep(&e, 10000, IO, &lo, &hi), 1);
	assert_int_equal(hi, 8192);
	e = extent(4096, 1 << 20, 4095, 0); /* shorter than one read */
	assert_int_equal(probespan_keep(&e, 4 * MiB, IO, &lo, &hi), 0);
	e = extent(0, (1 << 20) + 100, 1 << 20, 0); /* an aligned offset would not be an aligned place */
	assert_int_equal(probespan_keep(&e, 4 * MiB, IO, &lo, &hi), 0);
}

static void make_top(char *top)
{
	strcpy(top, "/var/tmp/iosched-probespan-test.XXXXXX");
	assert_non_null(mkdtemp(top));
}

static void remove_top(const char *top)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
}

static void write_at(int fd, uint64_t off, uint64_t len)
{
	static char buf[65536];
	memset(buf, 0x5a, sizeof buf);
	for (uint64_t done = 0; done < len; done += sizeof buf)
		assert_int_equal(pwrite(fd, buf, sizeof buf, (off_t)(off + done)), (ssize_t)sizeof buf);
}

/* top/name: data over [0, 1 MiB) and [2, 3) MiB, a hole between (and
 * fsync'd, so nothing is delayed). */
static void make_holed(const char *top, const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", top, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	write_at(fd, 0, MiB);
	write_at(fd, 2 * MiB, MiB);
	assert_int_equal(fsync(fd), 0);
	close(fd);
}

/* Map path alone. Returns what probespan_add_file returned. */
static long long map_one(struct probespan *ps, const char *path)
{
	*ps = (struct probespan){.io_size = IO};
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	long long kept = probespan_add_file(ps, fd, path, &st);
	close(fd);
	return kept;
}

static void test_holes_never_read(void **state)
{
	(void)state;
	char top[64], path[128];
	make_top(top);
	make_holed(top, "holed", path, sizeof path);
	struct probespan ps;
	long long kept = map_one(&ps, path);
	if (kept == -EOPNOTSUPP) {
		remove_top(top);
		skip(); /* FIEMAP not on this filesystem: nothing to check here */
	}
	assert_int_equal(kept, 2 * MiB);
	assert_int_equal(ps.nfiles, 1);
	probespan_free(&ps);

	const char *roots[] = {top};
	struct stat st;
	assert_int_equal(stat(top, &st), 0);
	struct probespan_want want = {.dev = st.st_dev, .roots = roots, .nroots = 1, .bytes = 1ull << 30,
				      .min_file = 0, .io_size = IO, .max_visit = 1000, .max_files = 100};
	char why[200] = "";
	assert_int_equal(probespan_build(&ps, &want, why, sizeof why), 0);
	assert_int_equal(ps.span, 2 * MiB);
	struct prng rng;
	prng_seed(&rng, 42);
	int low = 0, high = 0;
	for (int i = 0; i < 20000; i++) {
		size_t f;
		uint64_t off;
		assert_int_equal(probespan_pick(&ps, &rng, &f, &off), 0);
		assert_int_equal(f, 0);
		assert_int_equal(off % IO, 0);
		assert_true(off + IO <= MiB || (off >= 2 * MiB && off + IO <= 3 * MiB));
		low += off < MiB;
		high += off >= 2 * MiB;
	}
	assert_true(low > 9000 && high > 9000); /* both ranges, by their size */
	probespan_free(&ps);
	remove_top(top);
}

static void test_unwritten_refused(void **state)
{
	(void)state;
	char top[64], path[128];
	make_top(top);
	snprintf(path, sizeof path, "%s/fallocated", top);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	int rc = posix_fallocate(fd, 0, (off_t)(4 * MiB));
	write_at(fd, 4 * MiB, MiB); /* and 1 MiB of data after the unwritten part */
	assert_int_equal(fsync(fd), 0);
	close(fd);
	if (rc != 0) {
		remove_top(top);
		skip(); /* no fallocate here */
	}
	struct probespan ps;
	long long kept = map_one(&ps, path);
	if (kept == -EOPNOTSUPP) {
		remove_top(top);
		skip();
	}
	assert_int_equal(kept, MiB); /* the written MiB alone */
	for (size_t i = 0; i < ps.nranges; i++)
		assert_true(ps.ranges[i].lo >= 4 * MiB);
	probespan_free(&ps);
	remove_top(top);
}

/* n empty files in dir: names that cost the walk a visit each. */
static void make_names(const char *dir, int n)
{
	char path[200];
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/n%d", dir, i);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		assert_true(fd >= 0);
		close(fd);
	}
}

static void test_walk_limits(void **state)
{
	(void)state;
	char top[64], path[160], sub[128];
	make_top(top);
	snprintf(sub, sizeof sub, "%s/sub", top);
	assert_int_equal(mkdir(sub, 0755), 0);
	make_holed(top, "a", path, sizeof path);
	make_holed(sub, "b", path, sizeof path);
	snprintf(path, sizeof path, "%s/small", top); /* under the size floor */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	write_at(fd, 0, 65536);
	fsync(fd);
	close(fd);
	snprintf(path, sizeof path, "%s/link", top); /* a link is not followed */
	assert_int_equal(symlink("/usr/lib", path), 0);
	const char *roots[] = {top};
	struct stat st;
	assert_int_equal(stat(top, &st), 0);
	struct probespan_want want = {.dev = st.st_dev, .roots = roots, .nroots = 1, .bytes = 1ull << 30,
				      .min_file = MiB, .io_size = IO, .max_visit = 1000, .max_files = 100};
	struct probespan ps = {0};
	char why[200] = "";
	int rc = probespan_build(&ps, &want, why, sizeof why);
	if (rc == -EOPNOTSUPP) {
		remove_top(top);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(ps.nfiles, 2); /* a and sub/b; not small, not the link's target */
	assert_int_equal(ps.span, 4 * MiB);
	/* A directory to skip is not walked (sub/b left out). */
	const char *skip[] = {sub};
	want.skip = skip;
	want.nskip = 1;
	assert_int_equal(probespan_build(&ps, &want, why, sizeof why), 0);
	assert_int_equal(ps.nfiles, 1);
	assert_string_equal(ps.files[0].path + strlen(top), "/a");
	want.nskip = 0;
	/* Enough bytes: the walk stops there. */
	want.bytes = MiB;
	assert_int_equal(probespan_build(&ps, &want, why, sizeof why), 0);
	assert_int_equal(ps.nfiles, 1);
	/* Another filesystem's dev: nothing is taken from it. */
	want.bytes = 1ull << 30;
	want.dev = st.st_dev + 1;
	assert_int_equal(probespan_build(&ps, &want, why, sizeof why), 0);
	assert_int_equal(ps.nfiles, 0);
	assert_int_equal(ps.span, 0);
	size_t f;
	uint64_t off;
	struct prng rng;
	prng_seed(&rng, 1);
	assert_int_equal(probespan_pick(&ps, &rng, &f, &off), -ENOENT);
	/* A bad read size is refused with a reason. */
	want.io_size = 3000;
	assert_int_equal(probespan_build(&ps, &want, why, sizeof why), -EINVAL);
	assert_non_null(strstr(why, "power of two"));
	probespan_free(&ps);
	remove_top(top);
}

/* The files of 1 MiB or more under top, as the probe chooses them (the
 * test skips where the filesystem has no FIEMAP). */
/* The files under top chosen into ps, one owner's at most owner_cap
 * bytes (0: no cap), subuid the subordinate uids' file (NULL: /etc/subuid). */
static void build_subuid(const char *top, uint64_t owner_cap, const char *subuid, struct probespan *ps)
{
	const char *roots[] = {top};
	struct stat st;
	assert_int_equal(stat(top, &st), 0);
	struct probespan_want want = {.dev = st.st_dev, .roots = roots, .nroots = 1, .bytes = 1ull << 30,
				      .min_file = MiB, .io_size = IO, .max_visit = 1000, .max_files = 100,
				      .owner_cap = owner_cap, .subuid = subuid};
	char why[200] = "";
	*ps = (struct probespan){0};
	int rc = probespan_build(ps, &want, why, sizeof why);
	if (rc == -EOPNOTSUPP) {
		remove_top(top);
		skip();
	}
	assert_int_equal(rc, 0);
}

static void build_capped(const char *top, uint64_t owner_cap, struct probespan *ps)
{
	build_subuid(top, owner_cap, NULL, ps);
}

static void build_under(const char *top, struct probespan *ps)
{
	build_capped(top, 0, ps);
}

static void test_replaced_dropped(void **state)
{
	(void)state;
	char top[64], a[128], b[128], tmp[160];
	make_top(top);
	make_holed(top, "a", a, sizeof a);
	make_holed(top, "b", b, sizeof b);
	struct probespan ps;
	build_under(top, &ps);
	assert_int_equal(ps.nfiles, 2);
	size_t ia = strcmp(ps.files[0].path, a) == 0 ? 0 : 1, ib = 1 - ia;
	int fd = probespan_open(&ps, ia, 1);
	assert_true(fd >= 0);
	close(fd);
	/* a is replaced as a package upgrade does: a new file renamed over it. */
	make_holed(top, "a.new", tmp, sizeof tmp);
	assert_int_equal(rename(tmp, a), 0);
	assert_int_equal(probespan_open(&ps, ia, 1), -ESTALE);
	assert_int_equal(probespan_live_files(&ps), 1);
	assert_int_equal(ps.span, 2 * MiB);
	struct prng rng;
	prng_seed(&rng, 7);
	for (int i = 0; i < 1000; i++) {
		size_t f;
		uint64_t off;
		assert_int_equal(probespan_pick(&ps, &rng, &f, &off), 0);
		assert_int_equal(f, ib);
	}
	/* b changed in place (its time moves): dropped too; then nothing is left. */
	fd = open(b, O_WRONLY);
	assert_true(fd >= 0);
	write_at(fd, 0, 65536);
	close(fd);
	struct timespec t[2] = {{0, UTIME_OMIT}, {12345, 0}};
	assert_int_equal(utimensat(AT_FDCWD, b, t, 0), 0);
	assert_int_equal(probespan_open(&ps, ib, 1), -ESTALE);
	size_t f;
	uint64_t off;
	assert_int_equal(probespan_pick(&ps, &rng, &f, &off), -ENOENT);
	/* A file gone: dropped. */
	assert_int_equal(probespan_open(&ps, ia, 1), -ENOENT);
	probespan_free(&ps);
	remove_top(top);
}

/* A directory on the way swapped for a symlink to where a FIFO has the
 * chosen file's name (as a device could): the probe must not open it (a
 * FIFO's writer, blocked in open, would go on; a watchdog would arm), and
 * drops the file and goes on. Then the file made a socket: dropped too. */
static void test_swapped_dir_not_followed(void **state)
{
	(void)state;
	char top[64], d[96], a[128], real[128], other[128], fifo[160];
	make_top(top);
	util_fmt(d, sizeof d, "%s/d", top);
	assert_int_equal(mkdir(d, 0755), 0);
	make_holed(d, "a", a, sizeof a);
	struct probespan ps;
	build_under(top, &ps);
	assert_int_equal(ps.nfiles, 1);
	util_fmt(real, sizeof real, "%s/d.real", top);
	util_fmt(other, sizeof other, "%s/other", top);
	util_fmt(fifo, sizeof fifo, "%s/a", other);
	assert_int_equal(mkdir(other, 0755), 0);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(rename(d, real), 0);
	assert_int_equal(symlink(other, d), 0);
	pid_t w = fork(); /* the FIFO's writer: its open returns once a reader opens */
	assert_true(w >= 0);
	if (w == 0) {
		int fd = open(fifo, O_WRONLY);
		_exit(fd >= 0 ? 0 : 1);
	}
	usleep(100 * 1000);
	assert_int_equal(probespan_open(&ps, 0, 1), -ESTALE);
	usleep(200 * 1000);
	int status;
	assert_int_equal(waitpid(w, &status, WNOHANG), 0); /* still blocked: nobody opened the FIFO */
	kill(w, SIGKILL);
	waitpid(w, &status, 0);
	assert_int_equal(probespan_live_files(&ps), 0);
	probespan_free(&ps);
	assert_int_equal(unlink(d), 0);
	assert_int_equal(unlink(fifo), 0);
	assert_int_equal(rmdir(other), 0);
	assert_int_equal(rename(real, d), 0);
	remove_top(top);
}

/* 100 more names (hard links) for one file: kept once. */
static void test_links_once(void **state)
{
	(void)state;
	char top[64], a[128], name[160];
	make_top(top);
	make_holed(top, "a", a, sizeof a);
	for (int i = 0; i < 100; i++) {
		util_fmt(name, sizeof name, "%s/link%d", top, i);
		assert_int_equal(link(a, name), 0);
	}
	struct probespan ps;
	build_under(top, &ps);
	assert_int_equal(ps.nfiles, 1);
	assert_int_equal(ps.repeats, 100);
	assert_int_equal(ps.span, 2 * MiB);
	probespan_free(&ps);
	remove_top(top);
}

/* The files of a user give at most owner_cap bytes (the file that
 * crosses it trimmed, the next left out); root's are not capped. */
static void test_owner_cap(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* files of another owner need root to make */
	char top[64], path[128];
	make_top(top);
	const char *names[] = {"u1", "u2", "u3"};
	for (int i = 0; i < 3; i++) {
		make_holed(top, names[i], path, sizeof path);
		assert_int_equal(chown(path, 65534, 65534), 0);
	}
	make_holed(top, "root", path, sizeof path);
	struct probespan ps;
	build_capped(top, 3 * MiB, &ps);
	assert_int_equal(ps.span, 3 * MiB + 2 * MiB); /* nobody's 3 of 6 MiB, root's 2 */
	assert_int_equal(ps.capped, 1);
	assert_int_equal(ps.nfiles, 3);
	uint64_t nobody = 0;
	for (size_t i = 0; i < ps.nranges; i++)
		if (ps.files[ps.ranges[i].file].uid == 65534)
			nobody += ps.ranges[i].hi - ps.ranges[i].lo;
	assert_int_equal(nobody, 3 * MiB);
	probespan_free(&ps);
	remove_top(top);
}

/* One user's files are at most an eighth of the files the walk may take,
 * and their directories at most an eighth of the entries it may visit:
 * a directory of many small files, or many names, no longer runs the walk
 * out before root's files (it stopped the probe). */
static void test_owner_share(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* files of another owner */
	char top[64], path[160], dir[128];
	make_top(top);
	make_holed(top, "root", path, sizeof path);
	snprintf(dir, sizeof dir, "%s/many", top);
	assert_int_equal(mkdir(dir, 0755), 0);
	make_names(dir, 300); /* names, under the size floor */
	assert_int_equal(chown(dir, 65534, 65534), 0);
	snprintf(dir, sizeof dir, "%s/nob", top);
	assert_int_equal(mkdir(dir, 0755), 0);
	for (int i = 0; i < 14; i++) {
		char name[16];
		snprintf(name, sizeof name, "f%d", i);
		make_holed(dir, name, path, sizeof path);
		assert_int_equal(chown(path, 65534, 65534), 0);
	}
	struct probespan ps;
	build_capped(top, 1ull << 30, &ps); /* 100 files, 1000 entries at most */
	size_t nobody = 0, root = 0;
	for (size_t i = 0; i < ps.nfiles; i++)
		ps.files[i].uid == 65534 ? nobody++ : root++;
	assert_int_equal(root, 1);
	assert_int_equal(nobody, 13); /* 13 x 8 >= 100 */
	assert_true(ps.visited < 300);
	probespan_free(&ps);
	remove_top(top);
}

/* A directory others may write (1777, even root's) is charged as a user's
 * share, and any directory at most an eighth of the entries: 300 names
 * there no longer run the walk out before root's file elsewhere. */
static void test_shared_dir_capped(void **state)
{
	(void)state;
	char top[64], path[160], dir[128];
	make_top(top);
	snprintf(dir, sizeof dir, "%s/a-shared", top);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(chmod(dir, 01777), 0);
	make_names(dir, 300);
	snprintf(dir, sizeof dir, "%s/z", top);
	assert_int_equal(mkdir(dir, 0755), 0);
	make_holed(dir, "root", path, sizeof path);
	struct probespan ps;
	build_capped(top, 1ull << 30, &ps); /* 1000 entries at most: 125 a share */
	assert_int_equal(ps.nfiles, 1);
	assert_true(ps.capped >= 1);
	assert_true(ps.visited < 300);
	probespan_free(&ps);
	remove_top(top);
}

/* The uids of a user's subordinate range (/etc/subuid: rootless
 * containers) are that user's: one share among them, not one each; a
 * system account's range (its own files never capped) is one share too;
 * root's files in a range that covers uid 0 stay root's, never capped. */
static void test_subuid_one_share(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* files of other owners */
	static const char *const ranges[] = {"65534:100000:65536", "999:100000:65536", "1:0:200000"};
	for (size_t k = 0; k < 3; k++) {
		char top[64], path[160], sub[160];
		make_top(top);
		snprintf(sub, sizeof sub, "%s/subuid", top); /* under the size floor: not chosen */
		FILE *f = fopen(sub, "w");
		assert_non_null(f);
		fprintf(f, "# a comment line is no range\n%s\n", ranges[k]);
		fclose(f);
		for (int i = 0; i < 14; i++) {
			char name[16];
			snprintf(name, sizeof name, "f%d", i);
			make_holed(top, name, path, sizeof path);
			if (k < 2) /* the third: root's own */
				assert_int_equal(chown(path, 100000 + (uid_t)i, 100000), 0);
		}
		struct probespan ps;
		build_subuid(top, 1ull << 30, sub, &ps);
		/* 13 x 8 >= 100: one share, not 14 owners'; root's: all 14 */
		assert_int_equal(ps.nfiles, k < 2 ? 13 : 14);
		probespan_free(&ps);
		remove_top(top);
	}
}

/* Blocks two files share (a reflink copy) are read as one: the range met
 * first keeps them; a file left with none is dropped. Made by hand: this
 * filesystem may have no reflinks. */
static void test_shared_blocks_once(void **state)
{
	(void)state;
	struct probespan ps = {.io_size = IO};
	ps.files = calloc(3, sizeof *ps.files);
	ps.ranges = calloc(4, sizeof *ps.ranges);
	assert_non_null(ps.files);
	assert_non_null(ps.ranges);
	ps.nfiles = 3;
	for (int i = 0; i < 3; i++)
		ps.files[i].path = strdup("x");
	/* file 0: [0,1M) at 10M; file 1: the same blocks under its name, and
	 * [1M,2M) at 11M half shared with file 2's [0,1M) at 11.5M */
	ps.ranges[0] = (struct probespan_range){.file = 0, .lo = 0, .hi = MiB, .phys = 10 * MiB};
	ps.ranges[1] = (struct probespan_range){.file = 1, .lo = 0, .hi = MiB, .phys = 10 * MiB};
	ps.ranges[2] = (struct probespan_range){.file = 1, .lo = MiB, .hi = 2 * MiB, .phys = 11 * MiB};
	ps.ranges[3] = (struct probespan_range){.file = 2, .lo = 0, .hi = MiB, .phys = 11 * MiB + MiB / 2};
	ps.nranges = 4;
	assert_int_equal(probespan_settle(&ps), 0);
	assert_int_equal(ps.nranges, 2);
	assert_int_equal(ps.span, 2 * MiB);
	assert_int_equal(ps.ranges[0].file, 0);
	assert_int_equal(ps.ranges[1].file, 1);
	assert_int_equal(ps.ranges[1].lo, MiB);
	assert_int_equal(probespan_live_files(&ps), 2); /* file 2 had nothing of its own */
	probespan_free(&ps);
}

/* A root beneath the top with a symbolic link on its way (a user's
 * directory swapped for one before the walk reached it): not walked. */
static void test_root_link_not_walked(void **state)
{
	(void)state;
	char top[64], d[96], link[96], a[128], via[128];
	make_top(top);
	util_fmt(d, sizeof d, "%s/d", top);
	util_fmt(link, sizeof link, "%s/l", top);
	util_fmt(via, sizeof via, "%s/l/sub", top);
	assert_int_equal(mkdir(d, 0755), 0);
	util_fmt(d, sizeof d, "%s/d/sub", top);
	assert_int_equal(mkdir(d, 0755), 0);
	make_holed(d, "a", a, sizeof a);
	assert_int_equal(symlink("d", link), 0);
	const char *roots[] = {via};
	struct stat st;
	assert_int_equal(stat(top, &st), 0);
	struct probespan_want want = {.dev = st.st_dev, .top = top, .roots = roots, .nroots = 1,
				      .bytes = 1ull << 30, .min_file = MiB, .io_size = IO, .max_visit = 1000,
				      .max_files = 100};
	struct probespan ps = {0};
	char why[200] = "";
	assert_int_equal(probespan_build(&ps, &want, why, sizeof why), 0);
	assert_int_equal(ps.nfiles, 0);
	roots[0] = d; /* the same directory by its own name is walked */
	int rc = probespan_build(&ps, &want, why, sizeof why);
	if (rc == -EOPNOTSUPP) {
		remove_top(top);
		skip();
	}
	assert_int_equal(ps.nfiles, 1);
	assert_int_equal(ps.files[0].top_len, strlen(top));
	int fd = probespan_open(&ps, 0, 1);
	assert_true(fd >= 0);
	close(fd);
	probespan_free(&ps);
	remove_top(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_holes_never_read),
		cmocka_unit_test(test_unwritten_refused),
		cmocka_unit_test(test_walk_limits),
		cmocka_unit_test(test_replaced_dropped),
		cmocka_unit_test(test_swapped_dir_not_followed),
		cmocka_unit_test(test_links_once),
		cmocka_unit_test(test_owner_cap),
		cmocka_unit_test(test_owner_share),
		cmocka_unit_test(test_shared_dir_capped),
		cmocka_unit_test(test_subuid_one_share),
		cmocka_unit_test(test_shared_blocks_once),
		cmocka_unit_test(test_root_link_not_walked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
