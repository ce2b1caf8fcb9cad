/* ablock: see src/act/ablock.h */
#include "ablock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "act/tune.h"
#include "base/safefile.h"
#include "base/util.h"

/* The private directory, or -1: made and opened as every path root
 * writes, and refused when it is another's or open to others. */
static int dir_open(char *err, size_t len)
{
	int dfd = safefile_make_dir(ABLOCK_DIR, 0700, err, len);
	struct stat st;
	if (dfd >= 0 && (fstat(dfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077))) {
		util_fmt(err, len, "%s is not root's private directory: remove it and start again", ABLOCK_DIR);
		close(dfd);
		return -1;
	}
	return dfd;
}

/* name's file locked, the file still the one at name (a run ending
 * removes its file: a lock taken on a removed one would be no lock);
 * -EWOULDBLOCK while another holds it. */
static int lock_at(int dfd, const char *name)
{
	for (int tries = 0; tries < 3; tries++) {
		int fd = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		struct stat a, b;
		if (fstat(fd, &a) == 0 && fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_ino == b.st_ino)
			return fd;
		close(fd);
	}
	return -EAGAIN;
}

int ablock_take(const char *disk, char *err, size_t len)
{
	char path[PATH_MAX], name[64];
	if (tune_path(disk, TUNE_SCHEDULER, "scheduler", path, sizeof path) < 0 || access(path, F_OK) != 0) {
		util_fmt(err, len, "%s has no scheduler file", disk);
		return -1;
	}
	if (access(path, W_OK) != 0) {
		util_fmt(err, len, "switching %s's scheduler needs root: run it with sudo", disk);
		return -1;
	}
	int dfd = dir_open(err, len);
	if (dfd < 0)
		return -1;
	util_fmt(name, sizeof name, "ab.%s.lock", disk);
	int fd = lock_at(dfd, name);
	close(dfd);
	if (fd == -EWOULDBLOCK)
		util_fmt(err, len, "%s is under an A/B of another run of the tool: wait for it to end, or stop it", disk);
	else if (fd < 0)
		util_fmt(err, len, "cannot lock %s/%s: %s", ABLOCK_DIR, name, strerror(-fd));
	return fd < 0 ? -1 : fd;
}

void ablock_release(const char *disk, int fd)
{
	if (fd < 0)
		return;
	char name[64], err[128];
	util_fmt(name, sizeof name, "ab.%s.lock", disk);
	int dfd = dir_open(err, sizeof err);
	if (dfd >= 0) {
		unlinkat(dfd, name, 0);
		close(dfd);
	}
	close(fd);
}
