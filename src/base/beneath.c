/* beneath: see include/base/beneath.h */
#include "base/beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/util.h"

/* The names every path here is made of: NAME_MAX each, PATH_MAX in all. */
#define REL_MAX 4096

static int rel_ok(const char *rel)
{
	return rel && rel[0] && rel[0] != '/' && strlen(rel) < REL_MAX;
}

int beneath_open(int top, const char *rel, int flags)
{
	if (!rel_ok(rel))
		return -EINVAL;
#ifdef SYS_openat2
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_NOFOLLOW | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, top, rel, &how, sizeof how);
	if (fd >= 0)
		return (int)fd;
	/* ENOSYS: a kernel before 5.6; a container's filter may say so too */
	if (errno != ENOSYS)
		return -errno;
#endif
	return beneath_open_steps(top, rel, flags);
}

/* The next directory component c below fd, on filesystem dev. */
static int step_dir(int fd, const char *c, dev_t dev)
{
	if (!strcmp(c, ".."))
		return -EXDEV; /* RESOLVE_BENEATH says so for a ".." too */
	int next = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (next < 0)
		return errno == ENOTDIR ? -ELOOP : -errno; /* a link here is ENOTDIR: say ELOOP as openat2 does */
	struct stat st;
	if (fstat(next, &st) < 0 || st.st_dev != dev) {
		close(next);
		return -EXDEV;
	}
	return next;
}

int beneath_open_steps(int top, const char *rel, int flags)
{
	struct stat st;
	if (!rel_ok(rel))
		return -EINVAL;
	if (fstat(top, &st) < 0)
		return -errno;
	char copy[REL_MAX];
	util_strlcpy(copy, rel, sizeof copy);
	char *name = copy, *slash;
	int fd = top, rc = 0;
	/* every component but the last is a directory stepped into */
	while ((slash = strchr(name, '/')) != NULL) {
		*slash = '\0';
		if (*name && strcmp(name, ".") != 0) {
			int next = step_dir(fd, name, st.st_dev);
			if (fd != top)
				close(fd);
			if (next < 0)
				return next;
			fd = next;
		}
		name = slash + 1;
	}
	if (!strcmp(name, ".."))
		rc = -EXDEV;
	else {
		rc = openat(fd, *name ? name : ".", flags | O_NOFOLLOW | O_CLOEXEC);
		if (rc < 0)
			rc = -errno;
	}
	if (fd != top)
		close(fd);
	struct stat got;
	if (rc >= 0 && (fstat(rc, &got) < 0 || got.st_dev != st.st_dev)) {
		close(rc);
		return -EXDEV; /* a mount on the last name */
	}
	return rc;
}

int beneath_reopen(int pfd, int flags)
{
	char via[64];
	util_fmt(via, sizeof via, "/proc/self/fd/%d", pfd);
	int fd = open(via, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int beneath_open_file(int dirfd, const char *name, int flags, struct stat *st)
{
	struct stat own;
	st = st ? st : &own;
	int pfd = openat(dirfd, name, O_PATH | O_CLOEXEC | (flags & O_NOFOLLOW));
	if (pfd < 0)
		return -errno;
	int rc = fstat(pfd, st) != 0 ? -errno : S_ISLNK(st->st_mode) ? -ELOOP : !S_ISREG(st->st_mode) ? -EINVAL : 0;
	/* the reopen follows /proc/self/fd's link: O_NOFOLLOW would refuse it */
	if (rc == 0)
		rc = beneath_reopen(pfd, flags & ~(O_NOFOLLOW | O_CREAT | O_EXCL | O_TRUNC));
	close(pfd);
	return rc;
}
