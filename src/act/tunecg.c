/* tunecg: see tunecg.h */
#include "tunecg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/beneath.h"
#include "base/util.h"
#include "read/cgroup.h"

_Static_assert(TUNE_CGROUP_MAX == CGROUP_PATH_MAX, "a request holds any path the reader keeps");

/* bfq's range (BFQ_MIN_WEIGHT, BFQ_MAX_WEIGHT in block/bfq-iosched.h). */
#define BFQ_WEIGHT_MIN 1
#define BFQ_WEIGHT_MAX 1000

/* A path as a sample's cgroups have it (relative to the v2 root, not
 * the root itself: "a.slice/b.service"): names, none "." or "..", no
 * empty one, nothing a terminal or the revert line (inside sh -c '...')
 * could take for something else: no quote, no control character (C1
 * included), no bidirectional or invisible character, only UTF-8. The
 * kernel never gives the rest; a path that is not so is refused. */
static int path_ok(const char *p)
{
	for (const char *c = p;; c = strchr(c, '/') + 1) {
		size_t n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		if (!c[n])
			break;
	}
	for (const unsigned char *c = (const unsigned char *)p; *c;) {
		int n = util_utf8_len(c);
		if (n == 0 || *c < 32 || *c == 127 || *c == '\'' || (n > 1 && util_hidden_char(c, n)))
			return 0; /* not UTF-8, a control (C1 too), bidi or invisible */
		c += n;
	}
	return 1;
}

int tunecg_path(const struct tune_req *r, char *buf, size_t len)
{
	char mount[PATH_MAX];
	if (!path_ok(r->cgroup))
		return -EINVAL;
	if (r->sysfs && r->sysfs->cgroot)
		util_strlcpy(mount, r->sysfs->cgroot, sizeof mount);
	else if (cgroup_v2_mount(mount, sizeof mount) < 0)
		return -ENOENT;
	return util_pathf(buf, len, "%s/%s/io.bfq.weight", mount, r->cgroup);
}

/* The v2 root, opened (O_PATH): cgroup_v2_open_root(), or a test's tree
 * (cgroot, any filesystem). Returns the descriptor or a negative errno
 * (-ENOENT: no v2 mount). */
static int open_root(const struct tune_req *r)
{
	if (!(r->sysfs && r->sysfs->cgroot))
		return cgroup_v2_open_root();
	int fd = open(r->sysfs->cgroot, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The cgroup's io.bfq.weight opened with flags, looked up from the root
 * open above and never through a symbolic link, a ".." or another mount
 * (beneath.h): cgroupfs holds no links, so a tree that has one is not
 * the kernel's and its file is not written. Returns the descriptor or a
 * negative errno (-ELOOP, -EXDEV: such a tree). */
static int open_weight(const struct tune_req *r, int flags)
{
	char rel[TUNE_CGROUP_MAX + 32];
	if (!path_ok(r->cgroup))
		return -EINVAL;
	if (util_pathf(rel, sizeof rel, "%s/io.bfq.weight", r->cgroup) < 0)
		return -ENAMETOOLONG;
	int root = open_root(r);
	if (root < 0)
		return root;
	int fd = beneath_open(root, rel, flags);
	close(root);
	return fd;
}

/* The default weight, as a number ("default 100" and a bare "100" both
 * give "100"; the per-device lines after it are not the default). */
int tunecg_read(const struct tune_req *r, char *out, size_t len)
{
	char text[4096];
	int fd = open_weight(r, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	ssize_t n = read(fd, text, sizeof text - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	text[n] = '\0';
	int w = cgroup_parse_weight(text);
	if (w < 0)
		return w;
	util_fmt(out, len, "%d", w);
	return 0;
}

/* A whole number in bfq's range, or -1. */
static int parse_weight(const char *v)
{
	char *end;
	if (!*v || *v == '-' || *v == '+' || *v == ' ')
		return -1;
	errno = 0;
	long w = strtol(v, &end, 10);
	return errno || *end || w < BFQ_WEIGHT_MIN || w > BFQ_WEIGHT_MAX ? -1 : (int)w;
}

int tunecg_validate(const struct tune_req *r, char *err, size_t len)
{
	if (!path_ok(r->cgroup)) {
		util_fmt(err, len, "the cgroup path '%.*s' is not one the kernel gives (not NAME/..., or a quote or control character in it): not changed",
			 60, r->cgroup);
		return -EINVAL;
	}
	int fd = open_weight(r, O_RDONLY | O_NONBLOCK);
	if (fd == -ELOOP || fd == -EXDEV) {
		util_fmt(err, len, "%s: the way to its io.bfq.weight has a symbolic link or another mount on it: not the kernel's cgroup tree; not changed",
			 r->disk);
		return fd;
	}
	if (fd < 0) {
		int mounted = open_root(r);
		if (mounted >= 0)
			close(mounted);
		util_fmt(err, len, "%s has no io.bfq.weight%s", r->disk,
			 mounted == -ENOENT ? ": no cgroup v2 hierarchy is mounted"
					    : " (bfq is not loaded, or the io controller is not on cgroup v2 or not enabled for this cgroup)");
		return -ENOENT;
	}
	close(fd);
	if (parse_weight(r->value) < 0) {
		util_fmt(err, len, "io.bfq.weight: '%s' is not accepted; give a whole number from %d to %d (bfq's default is 100)",
			 r->value, BFQ_WEIGHT_MIN, BFQ_WEIGHT_MAX);
		return -EINVAL;
	}
	return 0;
}

/* A cgroup file takes the write at once (no queue to freeze): written
 * here, on the worker thread, opened as open_weight says. O_TRUNC as the
 * shell's ">". */
static int write_file(const struct tune_req *r)
{
	int fd = open_weight(r, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return fd;
	int rc = write(fd, r->value, strlen(r->value)) < 0 ? -errno : 0;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

static const char *hint(int e)
{
	switch (e) {
	case EACCES:
	case EPERM:
	case EROFS:
		return " (needs root)";
	case EINVAL:
	case ERANGE:
		return " (bfq takes 1 to 1000)";
	case ENOENT:
	case ENODEV:
		return " (the unit is gone, or bfq was unloaded)";
	case ELOOP:
	case EXDEV:
		return " (a symbolic link or another mount on the way: not the kernel's cgroup tree)";
	}
	return "";
}

/* Write, then read back: the value the kernel shows is the one logged. */
static int write_checked(const struct tune_req *r, const char *path, char *now, size_t len)
{
	int rc = r->sysfs && r->sysfs->write ? r->sysfs->write(r->sysfs, path, r->value) : write_file(r);
	if (rc == 0)
		rc = tunecg_read(r, now, len);
	if (rc == 0 && parse_weight(now) != parse_weight(r->value))
		rc = -EIO;
	return rc;
}

int tunecg_apply(const struct tune_req *r, struct event *ev)
{
	char path[PATH_MAX], now[TUNE_VALUE_MAX] = "";
	ev->type = EV_BFQ_WEIGHT;
	ev->disk[0] = '\0'; /* a unit, not a disk: named in the key */
	util_fmt(ev->key, sizeof ev->key, "io.bfq.weight %.32s", r->disk);
	tunecg_read(r, ev->from, sizeof ev->from);
	int rc = tunecg_path(r, path, sizeof path);
	if (rc == 0)
		rc = write_checked(r, path, now, sizeof now);
	ev->ms = (util_mono_now() - ev->mono) * 1e3;
	ev->ok = rc == 0;
	if (rc == -EIO && now[0])
		util_fmt(ev->error, sizeof ev->error, "io.bfq.weight of %.120s: wrote %s, it reads %s", r->cgroup, r->value,
			 now);
	else if (rc < 0)
		util_fmt(ev->error, sizeof ev->error, "cannot set io.bfq.weight of %.120s to %s: %s%s", r->cgroup, r->value,
			 strerror(-rc), hint(-rc));
	return rc;
}
