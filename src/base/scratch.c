/* scratch: see include/scratch.h */
#include "scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* Take the lock of an item without waiting. 0: taken, so no live process
 * holds it; -EWOULDBLOCK: in use; another error: cannot tell. */
static int try_lock(int fd)
{
	return flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : -errno;
}

/* A new item's lock: without waiting, since the only other holder can be
 * a sweep of another run that is removing it right now, and then checked
 * still linked (a sweep may have removed it between creation and lock). */
static int lock_new(int fd)
{
	int rc = try_lock(fd);
	if (rc == -EWOULDBLOCK)
		return -ESTALE;
	struct stat st;
	if (fstat(fd, &st) != 0)
		return -errno;
	if (st.st_nlink == 0)
		return -ESTALE;
	/* No lock support here (some network filesystems): the item works
	 * unlocked, and sweeps never remove what they cannot lock either. */
	return rc == -EOPNOTSUPP || rc == -ENOLCK || rc == -EBADF || rc == -EINVAL ? 0 : rc;
}

int scratch_dir_make(const char *parent, const char *prefix, char *path, size_t len)
{
	for (int tries = 0; tries < 4; tries++) {
		if (util_pathf(path, len, "%s/%sXXXXXX", parent, prefix) < 0)
			return -ENAMETOOLONG;
		if (!mkdtemp(path))
			return -errno;
		int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		/* the one mkdtemp made, not one swapped in since: ours, 0700 */
		if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077))) {
			close(fd);
			return -EPERM;
		}
		int rc = fd < 0 ? -errno : lock_new(fd);
		if (rc == 0)
			return fd;
		if (fd >= 0)
			close(fd);
		if (rc != -ESTALE) {
			rmdir(path);
			return rc;
		}
		/* A sweep took it: it is gone; make another. */
	}
	return -ESTALE;
}

int scratch_file_lock(int fd)
{
	return lock_new(fd);
}

/* The entry name of dirfd, not followed if a symlink, as a directory or
 * regular file (want: S_IFDIR or S_IFREG) owned by this user. 0 with st. */
static int own_entry(int dirfd, const char *name, mode_t want, struct stat *st)
{
	if (fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	return (st->st_mode & S_IFMT) == want && st->st_uid == geteuid() ? 0 : -EPERM;
}

static int same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Open the entry and take its lock; the descriptor when the entry is the
 * one checked (no swap in between) and its owner is gone, else -1. */
static int open_stale(int dirfd, const char *name, int flags, const struct stat *seen)
{
	int fd = openat(dirfd, name, flags | O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || !same_inode(&st, seen) || try_lock(fd) != 0 || st.st_nlink == 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void report_removed(scratch_report report, void *ctx, const char *dir, const char *name, uint64_t bytes,
			   const char *what)
{
	char size[16], line[PATH_MAX + 200];
	util_format_size(bytes, size, sizeof size);
	util_fmt(line, sizeof line, "removed %s %s/%s (%s), left by a run that was killed or crashed", what, dir, name, size);
	report(ctx, line);
}

/* Empty a stale directory of the files that are ours; the bytes freed. */
static uint64_t empty_dir(int fd, scratch_match files, const void *arg)
{
	int dup_fd = dup(fd);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return 0;
	}
	uint64_t bytes = 0;
	struct dirent *e;
	struct stat st;
	while ((e = readdir(d)))
		if (files(e->d_name, arg) && own_entry(fd, e->d_name, S_IFREG, &st) == 0 &&
		    unlinkat(fd, e->d_name, 0) == 0)
			bytes += (uint64_t)st.st_blocks * 512;
	closedir(d);
	return bytes;
}

/* One entry of a sweep of directories; 1 when it was removed. */
static int sweep_dir(int pfd, const char *parent, const char *name, const struct stat *pst, scratch_match files,
		     const void *arg, scratch_report report, void *ctx)
{
	struct stat st;
	/* mkdtemp makes 0700; anything else (or on another filesystem: a
	 * mount over it) is not one of ours as made. */
	if (own_entry(pfd, name, S_IFDIR, &st) != 0 || (st.st_mode & 077) || st.st_dev != pst->st_dev)
		return 0;
	int fd = open_stale(pfd, name, O_DIRECTORY, &st);
	if (fd < 0)
		return 0;
	uint64_t bytes = empty_dir(fd, files, arg);
	int removed = unlinkat(pfd, name, AT_REMOVEDIR) == 0;
	if (removed) {
		report_removed(report, ctx, parent, name, bytes, "scratch directory");
	} else {
		char line[PATH_MAX + 200];
		util_fmt(line, sizeof line, "left %s/%s, scratch of a run that was killed or crashed: %s%s", parent, name,
			 strerror(errno), errno == ENOTEMPTY ? " (it holds files iosched-top does not make)" : "");
		report(ctx, line);
	}
	close(fd); /* the lock last: no other sweep saw it half removed */
	return removed;
}

/* One entry of a sweep of temporary files; 1 when it was removed. */
static int sweep_file(int dfd, const char *dir, const char *name, scratch_report report, void *ctx)
{
	struct stat st;
	if (own_entry(dfd, name, S_IFREG, &st) != 0)
		return 0;
	int fd = open_stale(dfd, name, 0, &st);
	if (fd < 0)
		return 0;
	/* Still the same file under that name (a rename into place would
	 * have taken the name away while we opened it). */
	struct stat now;
	int removed = fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && same_inode(&now, &st) &&
		      unlinkat(dfd, name, 0) == 0;
	if (removed)
		report_removed(report, ctx, dir, name, (uint64_t)st.st_blocks * 512, "temporary file");
	close(fd);
	return removed;
}

/* Open dir for a sweep: the descriptor, its stat and its listing. */
static DIR *open_listing(const char *dir, int *fd, struct stat *st)
{
	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	int dup_fd = dup(*fd);
	DIR *d = dup_fd >= 0 && fstat(*fd, st) == 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		close(*fd);
	}
	return d;
}

int scratch_sweep_dirs(const char *parent, const char *prefix, scratch_match files, const void *arg,
		       scratch_report report, void *ctx)
{
	int pfd, n = 0;
	struct stat pst;
	DIR *d = open_listing(parent, &pfd, &pst);
	if (!d)
		return 0; /* no such place (yet), or not ours to read */
	size_t pl = strlen(prefix);
	struct dirent *e;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, prefix, pl) == 0 && strlen(e->d_name) == pl + 6)
			n += sweep_dir(pfd, parent, e->d_name, &pst, files, arg, report, ctx);
	closedir(d);
	close(pfd);
	return n;
}

int scratch_sweep_files(const char *dir, scratch_match tmp, const void *arg, scratch_report report, void *ctx)
{
	int dfd, n = 0;
	struct stat dst;
	DIR *d = open_listing(dir, &dfd, &dst);
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (tmp(e->d_name, arg))
			n += sweep_file(dfd, dir, e->d_name, report, ctx);
	closedir(d);
	close(dfd);
	return n;
}

int scratch_is_tmp_of(const char *name, const void *arg)
{
	const char *base = arg;
	size_t n = strlen(name);
	if (n < 7 || name[0] != '.' || strcmp(name + n - 4, ".tmp") != 0)
		return 0;
	/* The pid: the digits before ".tmp", after a dot. */
	const char *p = name + n - 4;
	while (p > name + 1 && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p == name + n - 4 || p[-1] != '.' || p - 1 == name + 1)
		return 0;
	size_t bl = (size_t)(p - 1 - (name + 1));
	return !base || (strlen(base) == bl && strncmp(name + 1, base, bl) == 0);
}
