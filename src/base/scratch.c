/* scratch: see include/base/scratch.h */
#include "base/scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/safefile.h"
#include "base/util.h"

/* A scratch directory's lock file, in it. */
#define DIR_LOCK "iosched-top.lock"
/* A temporary's lock file: its name and this. */
#define TMP_LOCK ".lock"
/* What a lock file says: this tool, the machine, the boot, the maker's pid. */
#define MARK_TOOL "iosched-top"
#define MARK_MAX 160

/* The first word of a file such as /etc/machine-id into out, else "-". */
static void read_id(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	char buf[64] = "";
	if (!f || !fgets(buf, sizeof buf, f) || sscanf(buf, "%63s", out) != 1 || len < 2)
		util_strlcpy(out, "-", len);
	if (f)
		fclose(f);
}

/* This machine's and this boot's ids, for lock files. */
static void this_host(char *machine, size_t mlen, char *boot, size_t blen)
{
	read_id("/etc/machine-id", machine, mlen);
	if (!strcmp(machine, "-"))
		read_id("/var/lib/dbus/machine-id", machine, mlen);
	read_id("/proc/sys/kernel/random/boot_id", boot, blen);
}

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

/* Write the lock file name in dirfd: who made the item beside it (this
 * machine, this boot, this pid), so that a sweep removes only what a run
 * of the tool made, on this machine, whose maker is gone. Returns the
 * descriptor (O_EXCL: never one planted before), or a negative errno. */
static int mark_write(int dirfd, const char *name)
{
	char machine[64], boot[64], text[MARK_MAX];
	this_host(machine, sizeof machine, boot, sizeof boot);
	int n = snprintf(text, sizeof text, MARK_TOOL " %s %s %ld\n", machine, boot, (long)getpid());
	int fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (n <= 0 || (size_t)n >= sizeof text || write(fd, text, (size_t)n) != n) {
		int e = errno ? errno : EIO;
		close(fd);
		unlinkat(dirfd, name, 0);
		return -e;
	}
	return fd;
}

/* Whether the text of a lock file says its maker is gone: a run of this
 * tool on this machine, not one alive in this boot (a pid that lives on
 * is taken as its maker: on a filesystem whose locks another mount does
 * not see, the lock alone would not tell). why says what else it is. */
static int mark_dead(const char *text, char *why, size_t wlen)
{
	char tool[16], machine[64], boot[64], my_machine[64], my_boot[64];
	long pid;
	if (sscanf(text, "%15s %63s %63s %ld", tool, machine, boot, &pid) != 4 || strcmp(tool, MARK_TOOL) || pid <= 0) {
		util_strlcpy(why, "its lock file is not one iosched-top writes", wlen);
		return 0;
	}
	this_host(my_machine, sizeof my_machine, my_boot, sizeof my_boot);
	if (strcmp(machine, my_machine) != 0) {
		util_strlcpy(why, "made by a run on another machine (its lock file says), which may still use it", wlen);
		return 0;
	}
	int alive = pid != (long)getpid() && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
	if (!strcmp(boot, my_boot) && alive) {
		util_fmt(why, wlen, "its maker, pid %ld, still runs", pid);
		return 0;
	}
	return 1;
}

/* Open the lock file name in dirfd and take its lock: the descriptor when
 * it is a lock file of this user's whose maker is gone (mark_dead), else
 * -1 with why said ("" when there is none: not one of ours at all). */
static int mark_take(int dirfd, const char *name, char *why, size_t wlen)
{
	why[0] = '\0';
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	char text[MARK_MAX];
	ssize_t n = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1 &&
	    st.st_size < MARK_MAX)
		n = pread(fd, text, sizeof text - 1, 0);
	if (n < 0) {
		util_strlcpy(why, "its lock file is not one iosched-top writes", wlen);
		close(fd);
		return -1;
	}
	text[n] = '\0';
	if (!mark_dead(text, why, wlen) || try_lock(fd) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int scratch_dir_make(const char *parent, const char *prefix, char *path, size_t len)
{
	if (strlen(parent) + 1 + strlen(prefix) + 6 >= len)
		return -ENAMETOOLONG;
	int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	char name[NAME_MAX + 1];
	int fd = scratch_dir_make_at(pfd, prefix, name, sizeof name);
	close(pfd);
	if (fd >= 0)
		snprintf(path, len, "%s/%s", parent, name); /* fits: checked above */
	return fd;
}

void scratch_dir_remove(const char *path, int fd)
{
	unlinkat(fd, DIR_LOCK, 0);
	rmdir(path); /* follows no link */
	close(fd);   /* the lock last: no sweep sees it half gone */
}

int scratch_dir_make_at(int pfd, const char *prefix, char *name, size_t len)
{
	for (int tries = 0; tries < 100; tries++) {
		char sfx[7];
		safefile_random_suffix(sfx);
		if ((size_t)snprintf(name, len, "%s%s", prefix, sfx) >= len || strlen(name) > NAME_MAX)
			return -ENAMETOOLONG;
		/* mkdirat fails on any name that exists, a link included: the
		 * directory is one this call made */
		if (mkdirat(pfd, name, 0700) != 0) {
			if (errno == EEXIST)
				continue;
			return -errno;
		}
		int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077))) {
			close(fd);
			return -EPERM;
		}
		int rc = fd < 0 ? -errno : lock_new(fd);
		int mark = rc == 0 ? mark_write(fd, DIR_LOCK) : -1;
		if (mark >= 0) {
			close(mark); /* the directory's own lock stands for it */
			return fd;
		}
		if (rc == 0)
			rc = mark;
		if (fd >= 0) {
			unlinkat(fd, DIR_LOCK, 0);
			close(fd);
		}
		if (rc != -ESTALE) {
			unlinkat(pfd, name, AT_REMOVEDIR);
			return rc;
		}
		/* A sweep took it: it is gone; make another. */
	}
	return -EEXIST;
}

void scratch_dir_remove_at(int pfd, const char *name, int fd)
{
	unlinkat(fd, DIR_LOCK, 0);
	unlinkat(pfd, name, AT_REMOVEDIR);
	close(fd); /* the lock last: no sweep sees it half gone */
}

/* name's lock file name: NAME.lock. */
static int tmp_lock_name(const char *name, char *out, size_t len)
{
	return (size_t)snprintf(out, len, "%s" TMP_LOCK, name) < len && strlen(out) <= NAME_MAX ? 0 : -ENAMETOOLONG;
}

int scratch_tmp_create(int dirfd, const char *name, int *lock)
{
	char lname[NAME_MAX + 1];
	if (tmp_lock_name(name, lname, sizeof lname) < 0)
		return -ENAMETOOLONG;
	for (int tries = 0; tries < 4; tries++) {
		int lfd = mark_write(dirfd, lname);
		if (lfd < 0)
			return lfd;
		int rc = lock_new(lfd);
		if (rc == -ESTALE) { /* a sweep took it: it is gone; again */
			close(lfd);
			continue;
		}
		int fd = rc < 0 ? rc : openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			*lock = lfd;
			return fd;
		}
		rc = rc < 0 ? rc : -errno;
		unlinkat(dirfd, lname, 0);
		close(lfd);
		return rc;
	}
	return -ESTALE;
}

void scratch_tmp_release(int dirfd, const char *name, int lock)
{
	char lname[NAME_MAX + 1];
	if (tmp_lock_name(name, lname, sizeof lname) == 0)
		unlinkat(dirfd, lname, 0);
	close(lock); /* after the unlink: no sweep takes it for a dead run's */
}

void scratch_tmp_abandon(int dirfd, const char *name)
{
	char lname[NAME_MAX + 1];
	unlinkat(dirfd, name, 0);
	if (tmp_lock_name(name, lname, sizeof lname) == 0)
		unlinkat(dirfd, lname, 0);
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

/* The directory's lock file back as it was (mark: the one unlinked, still
 * open) when the directory could not go: a later sweep tells it again for
 * a dead run's, and says what else it holds. */
static void mark_restore(int dirfd, int mark)
{
	char text[MARK_MAX];
	ssize_t n = pread(mark, text, sizeof text, 0);
	int fd = n > 0 ? openat(dirfd, DIR_LOCK, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
	if (fd < 0)
		return;
	if (write(fd, text, (size_t)n) != n)
		unlinkat(dirfd, DIR_LOCK, 0);
	close(fd);
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
	char why[200];
	int mark = mark_take(fd, DIR_LOCK, why, sizeof why);
	if (mark < 0) {
		/* Not what a dead run of the tool on this machine left: someone
		 * else's (a run elsewhere on a shared filesystem), or no run's. */
		char line[PATH_MAX + 300];
		util_fmt(line, sizeof line, "left %s/%s: %s; remove it by hand if nothing uses it", parent, name,
			 why[0] ? why : "it holds no lock file of iosched-top's");
		report(ctx, line);
		close(fd);
		return 0;
	}
	uint64_t bytes = empty_dir(fd, files, arg);
	unlinkat(fd, DIR_LOCK, 0);
	int removed = unlinkat(pfd, name, AT_REMOVEDIR) == 0, err = errno;
	if (!removed)
		mark_restore(fd, mark);
	close(mark);
	errno = err;
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

/* One lock file of a temporary (NAME.lock) in a sweep: when its maker is
 * gone, the temporary NAME (a regular file of this user's) and then the
 * lock file go. 1 when a temporary was removed. */
static int sweep_file(int dfd, const char *dir, const char *lname, scratch_report report, void *ctx)
{
	char name[NAME_MAX + 1], why[200];
	size_t n = strlen(lname) - strlen(TMP_LOCK);
	snprintf(name, sizeof name, "%.*s", (int)n, lname);
	int lock = mark_take(dfd, lname, why, sizeof why);
	if (lock < 0)
		return 0;
	struct stat st;
	int removed = own_entry(dfd, name, S_IFREG, &st) == 0 && unlinkat(dfd, name, 0) == 0;
	if (removed)
		report_removed(report, ctx, dir, name, (uint64_t)st.st_blocks * 512, "temporary file");
	unlinkat(dfd, lname, 0); /* with it or alone (killed before it was made) */
	close(lock);
	return removed;
}

/* Whether pid is a live run of the tool (or cannot be told apart from
 * one): this process, or one alive whose name is the tool's or unreadable. */
static int live_tool(long long pid)
{
	if (pid <= 0 || pid > INT32_MAX)
		return 0; /* no process has it */
	if (pid == (long long)getpid())
		return 1;
	if (kill((pid_t)pid, 0) != 0 && errno != EPERM)
		return 0;
	char path[64], comm[64]; /* read_id writes up to 64 */
	snprintf(path, sizeof path, "/proc/%lld/comm", pid);
	read_id(path, comm, sizeof comm);
	return !strcmp(comm, "-") || !strcmp(comm, MARK_TOOL);
}

/* A temporary ".NAME.PID.tmp" without a lock file: what a run of an
 * earlier version left when killed (a run of this one makes the lock file
 * first and removes it last). Gone when its lock is free and PID is no
 * live run of the tool, in the tool's own directory; elsewhere it could
 * be another program's with the same pattern: only said. 1 if removed. */
static int sweep_lockless(int dfd, const char *dir, const char *name, int private_dir, scratch_report report,
			  void *ctx)
{
	char lname[NAME_MAX + 1];
	struct stat st;
	if (tmp_lock_name(name, lname, sizeof lname) < 0 || fstatat(dfd, lname, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    errno != ENOENT || own_entry(dfd, name, S_IFREG, &st) != 0)
		return 0; /* it has a lock file (sweep_file's), or is not a file of ours */
	int fd = open_stale(dfd, name, 0, &st);
	if (fd < 0)
		return 0; /* in use, or it cannot be locked: cannot tell */
	const char *pid = strrchr(name, '.') - 1; /* ".tmp": its digits are before */
	while (pid[-1] != '.')
		pid--;
	int removed = 0;
	if (!live_tool(strtoll(pid, NULL, 10))) {
		removed = private_dir && unlinkat(dfd, name, 0) == 0;
		if (removed) {
			report_removed(report, ctx, dir, name, (uint64_t)st.st_blocks * 512, "temporary file");
		} else {
			char line[PATH_MAX + 200];
			util_fmt(line, sizeof line, "left %s/%s: a temporary without a lock file (an earlier version's "
				 "run that was killed?); remove it by hand if nothing uses it", dir, name);
			report(ctx, line);
		}
	}
	close(fd);
	return removed;
}

/* Open dir for a sweep: the descriptor, its stat and its listing. As every
 * path root writes in: component by component, never through a link, no
 * directory on the way another user could change (safefile_open_dir); a
 * link planted at the tool's own name would lead the removals anywhere. */
static DIR *open_listing(const char *dir, int *fd, struct stat *st)
{
	char err[PATH_MAX + 200];
	*fd = safefile_open_dir(dir, err, sizeof err);
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

/* Whether name is the lock file of a temporary that tmp() accepts. */
static int is_tmp_lock(const char *name, scratch_match tmp, const void *arg)
{
	size_t n = strlen(name), l = strlen(TMP_LOCK);
	char stem[NAME_MAX + 1];
	if (n <= l || n > NAME_MAX || strcmp(name + n - l, TMP_LOCK) != 0)
		return 0;
	snprintf(stem, sizeof stem, "%.*s", (int)(n - l), name);
	return tmp(stem, arg);
}

int scratch_sweep_files(const char *dir, int private_dir, scratch_match tmp, const void *arg, scratch_report report,
			void *ctx)
{
	int dfd, n = 0;
	struct stat dst;
	DIR *d = open_listing(dir, &dfd, &dst);
	if (!d)
		return 0;
	/* The tool's own directory is as it made it, or nothing in it is
	 * taken for the tool's: this user's, open to nobody else. */
	if (private_dir && (dst.st_uid != geteuid() || (dst.st_mode & 077))) {
		closedir(d);
		close(dfd);
		return 0;
	}
	struct dirent *e;
	while ((e = readdir(d)))
		if (is_tmp_lock(e->d_name, tmp, arg))
			n += sweep_file(dfd, dir, e->d_name, report, ctx);
		else if (tmp(e->d_name, arg) && scratch_is_tmp_of(e->d_name, NULL))
			n += sweep_lockless(dfd, dir, e->d_name, private_dir, report, ctx);
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
