/* safefile: see include/base/safefile.h */
#include "base/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "base/util.h"

/* The user a sudo run was started by (SUDO_UID), or -1: that user could
 * run anything as root already, so a directory of theirs is no threat. */
static long sudo_uid(void)
{
	const char *s = getenv("SUDO_UID");
	char *end;
	long v = s && *s ? strtol(s, &end, 10) : -1;
	return s && *s && !*end && v >= 0 ? v : -1;
}

/* Whether the directory open as fd, reached as shown, may hold a file the
 * tool writes: nobody but root, this user and sudo's caller owns it, and
 * nobody else may write it unless it is sticky (/tmp). Else they could swap
 * what the next step finds. Returns 0, or -EPERM with why in err. */
static int trusted_dir(int fd, const char *shown, char *err, size_t len)
{
	struct stat st;
	if (fstat(fd, &st) != 0) {
		util_fmt(err, len, "cannot look at the directory %s: %s", shown, strerror(errno));
		return -errno;
	}
	uid_t me = geteuid();
	long caller = sudo_uid();
	if (st.st_uid != 0 && st.st_uid != me && (long)st.st_uid != caller) {
		util_fmt(err, len, "the directory %s belongs to uid %u: its owner could swap what is in it between the "
			 "tool's steps; choose a directory of your own", shown, (unsigned)st.st_uid);
		return -EPERM;
	}
	/* With a POSIX ACL the group bits are its mask: any user it names may
	 * write, whatever the group is (the ACL's presence is enough to say) */
	int acl = (st.st_mode & S_IWGRP) && fgetxattr(fd, "system.posix_acl_access", NULL, 0) > 0;
	int others = (st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && st.st_gid != 0 && st.st_gid != getegid()) || acl;
	if (others && !(st.st_mode & S_ISVTX)) {
		util_fmt(err, len, "the directory %s can be written by %s and is not sticky (mode %04o): anyone there "
			 "could swap the file; choose another directory", shown,
			 (st.st_mode & S_IWOTH) ? "everyone" : acl ? "users its ACL names" : "its group",
			 (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* The next component c of the walk, relative to fd: opened, never through
 * a symbolic link; made first (mode, mkdirat: no link followed either)
 * when missing and mode is not 0. */
static int open_component(int fd, const char *c, mode_t mode)
{
	int next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (next < 0 && errno == ENOENT && mode) {
		if (mkdirat(fd, c, mode) != 0 && errno != EEXIST)
			return -1;
		next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	return next;
}

/* One component at a time from / (or the working directory), each step
 * relative to the last and never through a symbolic link (O_NOFOLLOW on
 * every component, not only the last: a link planted higher up would lead
 * the write anywhere), each directory checked as trusted_dir says (a step
 * into another user's directory or an open one is refused: what follows
 * it could be theirs). Makes what is missing when mode is not 0.
 */
static int open_dir_walk(const char *dir, mode_t mode, char *err, size_t len)
{
	char copy[PATH_MAX], shown[PATH_MAX];
	util_strlcpy(copy, dir, sizeof copy);
	util_strlcpy(shown, dir[0] == '/' ? "/" : ".", sizeof shown);
	int fd = open(shown, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;
	if (fd < 0) {
		util_fmt(err, len, "cannot open the directory %s: %s", shown, strerror(errno));
		return -errno;
	}
	if ((rc = trusted_dir(fd, shown, err, len)) < 0) {
		close(fd);
		return rc;
	}
	char *save = NULL;
	for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		size_t used = strlen(shown);
		util_fmt(shown + used, sizeof shown - used, "%s%s", shown[used - 1] == '/' ? "" : "/", c);
		if (!strncmp(shown, "./", 2))
			memmove(shown, shown + 2, strlen(shown + 2) + 1);
		int next = open_component(fd, c, mode);
		int e = errno;
		struct stat lst;
		if (next < 0 && (e == ELOOP || e == ENOTDIR) && fstatat(fd, c, &lst, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(lst.st_mode))
			e = ELOOP;
		close(fd);
		if (next < 0) {
			if (e == ELOOP)
				util_fmt(err, len, "%s is a symbolic link: not followed (give the path it leads to, if you "
					 "trust it)", shown);
			else
				util_fmt(err, len, "cannot open the directory %s: %s", shown, strerror(e));
			return -e;
		}
		fd = next;
		if ((rc = trusted_dir(fd, shown, err, len)) < 0) {
			close(fd);
			return rc;
		}
	}
	return fd;
}

int safefile_open_dir(const char *dir, char *err, size_t len)
{
	return open_dir_walk(dir, 0, err, len);
}

int safefile_make_dir(const char *dir, mode_t mode, char *err, size_t len)
{
	return open_dir_walk(dir, mode, err, len);
}

int safefile_dir_open(struct safefile_dir *d, const char *path, char *err, size_t len)
{
	d->fd = -1;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		util_fmt(err, len, "names a directory, not a file");
		return -EISDIR;
	}
	if (strlen(base) > NAME_MAX || strlen(path) >= sizeof d->path) {
		util_fmt(err, len, "the name is too long for a file");
		return -ENAMETOOLONG;
	}
	util_strlcpy(d->base, base, sizeof d->base);
	if (!slash)
		util_strlcpy(d->path, ".", sizeof d->path);
	else if (slash == path)
		util_strlcpy(d->path, "/", sizeof d->path);
	else
		snprintf(d->path, sizeof d->path, "%.*s", (int)(slash - path), path);
	int fd = safefile_open_dir(d->path, err, len);
	if (fd < 0)
		return fd;
	d->fd = fd;
	return 0;
}

void safefile_dir_close(struct safefile_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

int safefile_create(const struct safefile_dir *d, mode_t mode, char *err, size_t len)
{
	int fd = openat(d->fd, d->base, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
	if (fd < 0) {
		int e = errno;
		util_fmt(err, len, "%s", e == ELOOP ? "is a symbolic link: not followed" : strerror(e));
		return -e;
	}
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) != 0)
		rc = -errno;
	else if (!S_ISREG(st.st_mode))
		rc = -EINVAL, util_fmt(err, len, "is not a regular file");
	else if (st.st_uid != geteuid())
		rc = -EPERM, util_fmt(err, len, "belongs to uid %u, not to this user: not overwritten", (unsigned)st.st_uid);
	else if (st.st_nlink > 1)
		rc = -EPERM, util_fmt(err, len, "has %lu hard links: not overwritten", (unsigned long)st.st_nlink);
	else if (ftruncate(fd, 0) != 0 || fcntl(fd, F_SETFL, 0) != 0)
		rc = -errno;
	else if ((st.st_mode & 07777) != mode && fchmod(fd, mode) != 0) /* the tool's mode, not the old file's */
		rc = -errno;
	if (rc < 0) {
		if (rc != -EINVAL && rc != -EPERM)
			util_fmt(err, len, "%s", strerror(-rc));
		close(fd);
		return rc;
	}
	return fd;
}

/* Six characters from a 64-letter alphabet: 36 random bits. */
void safefile_random_suffix(char out[7])
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	unsigned char r[6];
	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
		/* No entropy yet (early boot): time and pid still make a clash
		 * unlikely, and O_EXCL makes a clash a retry, not a hazard. */
		uint64_t x = (uint64_t)(util_mono_now() * 1e9) ^ ((uint64_t)getpid() << 32);
		for (size_t i = 0; i < sizeof r; i++, x >>= 8)
			r[i] = (unsigned char)x;
	}
	for (int i = 0; i < 6; i++)
		out[i] = abc[r[i] & 63];
	out[6] = '\0';
}

int safefile_temp(const struct safefile_dir *d, mode_t mode, char *tmp, size_t len)
{
	for (int tries = 0; tries < 100; tries++) {
		char sfx[7];
		safefile_random_suffix(sfx);
		if ((size_t)snprintf(tmp, len, ".%s.%s", d->base, sfx) >= len || strlen(tmp) > NAME_MAX)
			return -ENAMETOOLONG;
		int fd = openat(d->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0) {
			/* The umask may have taken bits the file must have. */
			if (fchmod(fd, mode) != 0) {
				int e = errno;
				close(fd);
				unlinkat(d->fd, tmp, 0);
				return -e;
			}
			return fd;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

FILE *safefile_temp_stream(const struct safefile_dir *d, mode_t mode, char *tmp, size_t len, int *err)
{
	int fd = safefile_temp(d, mode, tmp, len);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		*err = fd < 0 ? fd : -errno;
		if (fd >= 0) {
			close(fd);
			safefile_discard(d, tmp);
		}
	}
	return f;
}

int safefile_finish(const struct safefile_dir *d, FILE *f, const char *tmp)
{
	int rc = fflush(f) == 0 && !ferror(f) && fsync(fileno(f)) == 0 ? 0 : errno ? -errno : -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc < 0) {
		safefile_discard(d, tmp);
		return rc;
	}
	return safefile_commit(d, tmp);
}

int safefile_commit(const struct safefile_dir *d, const char *tmp)
{
	if (renameat(d->fd, tmp, d->fd, d->base) != 0) {
		int e = errno;
		unlinkat(d->fd, tmp, 0);
		return -e;
	}
	fsync(d->fd); /* the rename itself survives a crash */
	return 0;
}

void safefile_discard(const struct safefile_dir *d, const char *tmp)
{
	unlinkat(d->fd, tmp, 0);
}

uid_t safefile_caller_uid(void)
{
	long caller = sudo_uid();
	return caller >= 0 ? (uid_t)caller : getuid();
}

int safefile_replaceable(const struct safefile_dir *d, char *err, size_t len)
{
	struct stat st;
	if (fstatat(d->fd, d->base, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode)) {
		util_fmt(err, len, "%s/%s is a symbolic link: not replaced", d->path, d->base);
		return -ELOOP;
	}
	if (!S_ISREG(st.st_mode)) {
		util_fmt(err, len, "%s/%s is not a regular file: not replaced", d->path, d->base);
		return -EINVAL;
	}
	if (st.st_uid != geteuid()) {
		util_fmt(err, len, "%s/%s belongs to uid %u, not to this user: not replaced", d->path, d->base,
			 (unsigned)st.st_uid);
		return -EPERM;
	}
	return 0;
}

int safefile_finish_replace(const struct safefile_dir *d, FILE *f, const char *tmp, char *err, size_t len)
{
	int rc = safefile_replaceable(d, err, len);
	if (rc < 0) {
		if (rc != -ELOOP && rc != -EINVAL && rc != -EPERM)
			util_fmt(err, len, "cannot look at %s/%s: %s", d->path, d->base, strerror(-rc));
		fclose(f);
		safefile_discard(d, tmp);
		return rc;
	}
	rc = safefile_finish(d, f, tmp);
	if (rc < 0)
		util_fmt(err, len, "cannot write %s/%s: %s", d->path, d->base, strerror(-rc));
	return rc;
}
