/* sysctlhold: see include/act/sysctlhold.h */
#include "act/sysctlhold.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/safefile.h"
#include "base/util.h"

void sysctlhold_init(struct sysctl_hold *h)
{
	h->fd = -1;
	h->orig = -1;
}

static int sysctl_read(const char *path, int *v)
{
	uint64_t u = 0;
	int rc = util_read_u64(path, &u);
	*v = (int)u;
	return rc;
}

static int sysctl_write(const char *path, int v)
{
	FILE *f = fopen(path, "we");
	if (!f)
		return -errno;
	int rc = fprintf(f, "%d\n", v) < 0 ? -EIO : 0;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

/* The record's directory, opened as every path root writes, ours alone,
 * and locked for one step. */
static int registry_open(const struct sysctl_share *s)
{
	char err[256];
	int fd = safefile_make_dir(s->dir, 0700, err, sizeof err);
	if (fd < 0)
		return fd;
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return -EPERM; /* another's, or open to others: not a record to trust */
	}
	if (flock(fd, LOCK_EX) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd; /* closing it drops the lock */
}

static void holder_name(const struct sysctl_share *s, long pid, char *buf, size_t len)
{
	util_fmt(buf, len, "%s.holder.%ld", s->stem, pid);
}

/* Live holders other than this process (one's pid in *pid); the files of
 * dead ones (their lock free) are removed on the way. */
static int holders_scan(const struct sysctl_share *s, int dfd, int *pid)
{
	int dup_fd = dup(dfd);
	DIR *dir = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	if (!dir) {
		if (dup_fd >= 0)
			close(dup_fd);
		return 0;
	}
	rewinddir(dir);
	char prefix[64];
	util_fmt(prefix, sizeof prefix, "%s.holder.", s->stem);
	size_t plen = strlen(prefix);
	int live = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		char *end;
		if (strncmp(e->d_name, prefix, plen) != 0)
			continue;
		long p = strtol(e->d_name + plen, &end, 10);
		if (*end || p <= 0 || p == (long)getpid())
			continue;
		int fd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			unlinkat(dfd, e->d_name, 0); /* its run is gone */
		} else {
			live++;
			*pid = (int)p;
		}
		close(fd);
	}
	closedir(dir);
	return live;
}

static void orig_name(const struct sysctl_share *s, char *buf, size_t len)
{
	util_fmt(buf, len, "%s.orig", s->stem);
}

static int orig_read(const struct sysctl_share *s, int dfd)
{
	char name[80], buf[16] = "";
	orig_name(s, name, sizeof name);
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	char *end;
	long v = strtol(buf, &end, 10);
	return end == buf || v < 0 || v > 1000000 ? -1 : (int)v;
}

static int orig_write(const struct sysctl_share *s, int dfd, int v)
{
	char name[80], buf[16];
	orig_name(s, name, sizeof name);
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	int n = snprintf(buf, sizeof buf, "%d\n", v);
	int rc = write(fd, buf, (size_t)n) == n ? 0 : -EIO;
	close(fd);
	return rc;
}

static void orig_remove(const struct sysctl_share *s, int dfd)
{
	char name[80];
	orig_name(s, name, sizeof name);
	unlinkat(dfd, name, 0);
}

/* This process's holder file, locked for as long as it holds. */
static int holder_make(const struct sysctl_share *s, int dfd)
{
	char name[80];
	holder_name(s, (long)getpid(), name, sizeof name);
	int fd = openat(dfd, name, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* Take a hold: the first live holder records the value before it (unless
 * a dead group's record is there: that is the machine's own value). */
static void hold_take(const struct sysctl_share *s, struct sysctl_hold *h, int cur)
{
	int dfd = registry_open(s);
	if (dfd >= 0) {
		int pid = 0;
		if (holders_scan(s, dfd, &pid) == 0 && orig_read(s, dfd) < 0 && orig_write(s, dfd, cur) < 0) {
			close(dfd);
			dfd = -1;
		}
	}
	if (dfd >= 0) {
		h->fd = holder_make(s, dfd);
		close(dfd);
	}
	if (h->fd < 0 && h->orig < 0)
		h->orig = cur; /* no shared record: this run's own */
}

int sysctlhold_set(const struct sysctl_share *s, struct sysctl_hold *h, int value, int *was, char *err, size_t len)
{
	int cur = 0;
	if (sysctl_read(s->sysctl, &cur) < 0) {
		util_fmt(err, len, "%s missing", s->sysctl);
		return -ENOENT;
	}
	*was = cur;
	if (h->fd < 0 && h->orig < 0)
		hold_take(s, h, cur);
	int rc = sysctl_write(s->sysctl, value);
	if (rc < 0)
		util_fmt(err, len, "%s", strerror(-rc));
	return rc;
}

int sysctlhold_others(const struct sysctl_share *s, int *pid)
{
	int dfd = registry_open(s);
	if (dfd < 0)
		return 0;
	int n = holders_scan(s, dfd, pid);
	close(dfd);
	return n;
}

/* The last holder's part: the recorded value back, the record gone. */
static int put_back(const struct sysctl_share *s, int dfd, int *value)
{
	int o = orig_read(s, dfd), cur = -1;
	if (o < 0)
		return 0;
	*value = o;
	int rc = 0;
	if (sysctl_read(s->sysctl, &cur) < 0 || cur != o)
		rc = sysctl_write(s->sysctl, o) < 0 ? -EIO : 1;
	if (rc >= 0)
		orig_remove(s, dfd);
	return rc;
}

int sysctlhold_release(const struct sysctl_share *s, struct sysctl_hold *h, int *value)
{
	if (h->fd < 0) {
		int o = h->orig, cur = -1;
		h->orig = -1;
		if (o < 0 || (sysctl_read(s->sysctl, &cur) == 0 && cur == o))
			return 0;
		*value = o;
		return sysctl_write(s->sysctl, o) < 0 ? -EIO : 1;
	}
	int dfd = registry_open(s);
	char name[80];
	holder_name(s, (long)getpid(), name, sizeof name);
	if (dfd >= 0)
		unlinkat(dfd, name, 0);
	close(h->fd);
	h->fd = -1;
	if (dfd < 0)
		return 0; /* the record went (removed by hand): nothing to go by */
	int pid = 0, rc;
	if (holders_scan(s, dfd, &pid) > 0) {
		*value = pid;
		rc = 2;
	} else {
		rc = put_back(s, dfd, value);
	}
	close(dfd);
	return rc;
}
