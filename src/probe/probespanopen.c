/* probespanopen: see probespan.h. A chosen file opened again for a read,
 * without trusting its name: beneath the walk's top, no link followed, as
 * O_PATH first, checked to be the very file the walk mapped, and checked
 * again when the read is done. */
#include "probespan.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/beneath.h"
#include "base/util.h"

static int same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static int same_file(const struct probespan_file *f, const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_dev == f->dev && st->st_ino == f->ino && st->st_size == f->size &&
	       same_time(st->st_mtim, f->mtime) && same_time(st->st_ctim, f->ctime) && st->st_blocks == f->blocks;
}

int probespan_unchanged(const struct probespan *ps, size_t i, int fd)
{
	struct stat st;
	return i < ps->nfiles && !ps->files[i].dropped && fstat(fd, &st) == 0 && same_file(&ps->files[i], &st);
}

/* The walk's top of file f, opened again (O_PATH) and checked to be the
 * same directory. The top is a mount point or a directory beneath it that
 * root chose (/usr): no user can swap it. */
static int open_top(const struct probespan_file *f)
{
	char top[4096];
	util_fmt(top, sizeof top, "%.*s", (int)f->top_len, f->path);
	int fd = open(f->top_len ? top : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (f->top_ino && (fstat(fd, &st) < 0 || st.st_ino != f->top_ino || st.st_dev != f->dev)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* A file's path is only a name: a directory on the way may have been
 * swapped for a symlink by its owner since the walk, and an open of a
 * device, a FIFO or a socket has effects of its own (a watchdog arms, a
 * tape rewinds, a FIFO's writer goes on). So the name is looked up
 * beneath the walk's top with no link followed anywhere (base/beneath.h),
 * as O_PATH (no open of the object itself happens), checked to be the very
 * regular file the walk chose, and only then opened for reading through
 * that handle, never by the name again. */
static int reopen_checked(const struct probespan_file *f, int direct)
{
	int top = open_top(f);
	if (top < 0)
		return top;
	const char *rel = f->path + f->top_len;
	while (*rel == '/')
		rel++;
	int pfd = beneath_open(top, *rel ? rel : ".", O_PATH);
	close(top);
	if (pfd < 0)
		return pfd;
	struct stat st;
	if (fstat(pfd, &st) < 0 || !same_file(f, &st)) {
		close(pfd);
		return -ESTALE;
	}
	/* O_NOATIME where the kernel allows it (the file's owner, or root):
	 * otherwise a read may update the access time, which relatime does at
	 * most once a day per file. */
	int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | (direct ? O_DIRECT : 0);
	int fd = beneath_reopen(pfd, flags | O_NOATIME);
	if (fd == -EPERM)
		fd = beneath_reopen(pfd, flags);
	close(pfd);
	return fd;
}

int probespan_open(struct probespan *ps, size_t i, int direct)
{
	if (i >= ps->nfiles || ps->files[i].dropped)
		return -ENOENT;
	int fd = reopen_checked(&ps->files[i], direct);
	if (fd == -EMFILE || fd == -ENFILE || fd == -ENOMEM)
		return fd; /* this process's trouble, not the file's */
	if (fd < 0) {
		/* Gone, replaced, made a socket, a directory or anything else:
		 * whatever its owner did, the probe drops it and goes on. */
		probespan_drop(ps, i);
		return -ESTALE;
	}
	return fd;
}

int probespan_still_at(int fd, uint64_t off, uint64_t len, uint64_t phys)
{
	union {
		struct fiemap fm;
		char bytes[sizeof(struct fiemap) + sizeof(struct fiemap_extent)];
	} u;
	memset(&u, 0, sizeof u);
	u.fm.fm_start = off;
	u.fm.fm_length = len;
	u.fm.fm_extent_count = 1; /* no FIEMAP_FLAG_SYNC: nothing is written */
	if (ioctl(fd, FS_IOC_FIEMAP, &u.fm) < 0 || u.fm.fm_mapped_extents != 1)
		return 0;
	const struct fiemap_extent *e = &u.fm.fm_extents[0];
	return e->fe_logical <= off && off + len <= e->fe_logical + e->fe_length &&
	       e->fe_physical + (off - e->fe_logical) == phys;
}
