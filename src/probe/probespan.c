/* probespan: see src/probe/probespan.h */
#include "probespan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "probe/prng.h"

/* Extents a read cannot be trusted to reach the disk's own blocks for:
 * no place yet (UNKNOWN, DELALLOC: dirty pages not allocated), stored
 * differently from the data (ENCODED: compressed; DATA_ENCRYPTED),
 * in the inode or packed with others (DATA_INLINE, DATA_TAIL,
 * NOT_ALIGNED), or allocated but never written (UNWRITTEN: the kernel
 * answers zeros without reading). */
#define REFUSED_FLAGS                                                                                      \
	(FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_ENCRYPTED | \
	 FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_DATA_TAIL | FIEMAP_EXTENT_UNWRITTEN)

/* Extents asked of the kernel per FIEMAP call. */
#define EXTENTS_PER_CALL 64

int probespan_keep(const struct fiemap_extent *e, uint64_t size, uint64_t io_size, uint64_t *lo, uint64_t *hi)
{
	if (e->fe_flags & REFUSED_FLAGS || e->fe_physical == 0 || e->fe_length == 0 || io_size == 0)
		return 0;
	/* Both ends inside the extent and the file, aligned to the read. */
	uint64_t end = e->fe_logical + e->fe_length;
	if (end > size)
		end = size;
	uint64_t a = (e->fe_logical + io_size - 1) / io_size * io_size;
	uint64_t b = end / io_size * io_size;
	/* The physical place must be aligned as the logical one is, or an
	 * aligned offset in the file is not an aligned place on the disk. */
	if ((e->fe_physical - e->fe_logical) % 512 != 0 || b <= a)
		return 0;
	*lo = a;
	*hi = b;
	return 1;
}

static int add_range(struct probespan *ps, uint32_t file, uint64_t lo, uint64_t hi)
{
	if (util_grow((void **)&ps->ranges, &ps->ranges_cap, ps->nranges + 1, sizeof *ps->ranges) < 0)
		return -ENOMEM;
	ps->ranges[ps->nranges++] = (struct probespan_range){.file = file, .lo = lo, .hi = hi};
	return 0;
}

/* The kept ranges of the extents in fm, for file index file. Returns the
 * bytes kept, or a negative errno; *last: the file's last extent was seen. */
static long long keep_extents(struct probespan *ps, const struct fiemap *fm, uint32_t file, uint64_t size,
			      int *last, uint64_t *next)
{
	long long kept = 0;
	for (unsigned k = 0; k < fm->fm_mapped_extents; k++) {
		const struct fiemap_extent *e = &fm->fm_extents[k];
		uint64_t lo, hi;
		if (probespan_keep(e, size, ps->io_size, &lo, &hi)) {
			if (add_range(ps, file, lo, hi) < 0)
				return -ENOMEM;
			kept += (long long)(hi - lo);
		}
		*next = e->fe_logical + e->fe_length;
		if (e->fe_flags & FIEMAP_EXTENT_LAST)
			*last = 1;
	}
	return kept;
}

static int add_file_entry(struct probespan *ps, const char *path, const struct stat *st)
{
	if (util_grow((void **)&ps->files, &ps->files_cap, ps->nfiles + 1, sizeof *ps->files) < 0)
		return -ENOMEM;
	char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	ps->files[ps->nfiles++] = (struct probespan_file){
		.path = copy, .dev = st->st_dev, .ino = st->st_ino, .size = st->st_size, .mtime = st->st_mtim};
	return 0;
}

/* Map the whole file, EXTENTS_PER_CALL extents at a time. No
 * FIEMAP_FLAG_SYNC: that would write the file's dirty pages, and a
 * monitor writes nothing (dirty ranges show as DELALLOC and are refused). */
static long long map_file(struct probespan *ps, int fd, uint32_t file, uint64_t size)
{
	size_t bytes = sizeof(struct fiemap) + EXTENTS_PER_CALL * sizeof(struct fiemap_extent);
	struct fiemap *fm = malloc(bytes);
	if (!fm)
		return -ENOMEM;
	long long kept = 0;
	uint64_t next = 0;
	int last = 0;
	while (!last && next < size) {
		memset(fm, 0, bytes);
		fm->fm_start = next;
		fm->fm_length = FIEMAP_MAX_OFFSET - next;
		fm->fm_extent_count = EXTENTS_PER_CALL;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
			kept = errno == ENOTTY ? -EOPNOTSUPP : -errno;
			break;
		}
		if (fm->fm_mapped_extents == 0)
			break;
		long long k = keep_extents(ps, fm, file, size, &last, &next);
		if (k < 0) {
			kept = k;
			break;
		}
		kept += k;
	}
	free(fm);
	return kept;
}

long long probespan_add_file(struct probespan *ps, int fd, const char *path, const struct stat *st)
{
	if (ps->nfiles >= UINT32_MAX)
		return -E2BIG;
	size_t ranges0 = ps->nranges;
	int rc = add_file_entry(ps, path, st);
	if (rc < 0)
		return rc;
	long long kept = map_file(ps, fd, (uint32_t)(ps->nfiles - 1), (uint64_t)st->st_size);
	if (kept <= 0) { /* nothing of it is read: it is not one of the set */
		ps->nranges = ranges0;
		free(ps->files[--ps->nfiles].path);
	}
	return kept;
}

/* The walk: directories in the order met (breadth first), each opened
 * through its parent without following links, on want->dev alone. */
struct walk {
	struct probespan *ps;
	const struct probespan_want *want;
	char **queue;
	size_t head, n, cap;
	int unsupported;      /* FIEMAP said no: the filesystem cannot serve */
};

static int walk_push(struct walk *w, const char *dir, const char *name)
{
	if (util_grow((void **)&w->queue, &w->cap, w->n + 1, sizeof *w->queue) < 0)
		return -ENOMEM;
	char *p;
	if (asprintf(&p, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name) < 0)
		return -ENOMEM;
	/* A directory that is one of the roots is walked as that root, once
	 * ("/usr" first, then "/" without it again). */
	for (size_t i = 0; i < w->want->nroots + w->want->nskip; i++)
		if (!strcmp(p, i < w->want->nroots ? w->want->roots[i] : w->want->skip[i - w->want->nroots])) {
			free(p);
			return 0;
		}
	w->queue[w->n++] = p;
	return 0;
}

static int walk_done(const struct walk *w)
{
	const struct probespan *ps = w->ps;
	return ps->span >= w->want->bytes || ps->visited >= w->want->max_visit || ps->nfiles >= w->want->max_files ||
	       w->unsupported;
}

/* A regular file met in the walk: opened without blocking or following a
 * link, checked to be the one the directory named, and mapped. */
static void walk_file(struct walk *w, int dfd, const char *dir, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == w->want->dev &&
	    (uint64_t)st.st_size >= w->want->min_file) {
		char path[4096];
		util_fmt(path, sizeof path, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name);
		long long kept = probespan_add_file(w->ps, fd, path, &st);
		if (kept == -EOPNOTSUPP)
			w->unsupported = 1;
		else if (kept <= 0)
			w->ps->refused++;
		else
			w->ps->span += (uint64_t)kept;
	}
	close(fd);
}

/* The entry's type: from the directory, or looked at without following
 * a link where the directory does not say. Only regular files are opened
 * (opening a device node can act: a tape rewinds). */
static int entry_type(int dfd, const struct dirent *de)
{
	struct stat st;
	if (de->d_type != DT_UNKNOWN)
		return de->d_type;
	if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return DT_UNKNOWN;
	return S_ISREG(st.st_mode) ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR : DT_UNKNOWN;
}

static void walk_dir(struct walk *w, const char *dir)
{
	/* O_NOATIME where allowed (root, or the directory's owner): reading a
	 * directory may otherwise update its access time (relatime: once a
	 * day), a write the monitor would cause. */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
	if (dfd < 0 && errno == EPERM)
		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return;
	struct stat st;
	DIR *d = fstat(dfd, &st) == 0 && st.st_dev == w->want->dev ? fdopendir(dfd) : NULL;
	if (!d) {
		close(dfd);
		return;
	}
	struct dirent *de;
	while (!walk_done(w) && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		w->ps->visited++;
		int type = entry_type(dirfd(d), de);
		if (type == DT_DIR)
			walk_push(w, dir, de->d_name);
		else if (type == DT_REG)
			walk_file(w, dirfd(d), dir, de->d_name);
	}
	closedir(d);
}

static void ranges_index(struct probespan *ps)
{
	free(ps->cum);
	ps->cum = ps->nranges ? malloc(ps->nranges * sizeof *ps->cum) : NULL;
	uint64_t sum = 0;
	for (size_t i = 0; ps->cum && i < ps->nranges; i++) {
		const struct probespan_range *r = &ps->ranges[i];
		if (!ps->files[r->file].dropped)
			sum += r->hi - r->lo;
		ps->cum[i] = sum;
	}
	ps->span = ps->cum ? sum : 0;
}

int probespan_build(struct probespan *ps, const struct probespan_want *want, char *why, size_t wlen)
{
	probespan_free(ps);
	if (want->io_size < 512 || (want->io_size & (want->io_size - 1))) {
		util_fmt(why, wlen, "read size %llu is not a power of two of at least 512",
			 (unsigned long long)want->io_size);
		return -EINVAL;
	}
	ps->io_size = want->io_size;
	struct walk w = {.ps = ps, .want = want};
	/* Each root walked whole (breadth first) before the next: the roots
	 * come in the order the caller prefers them. */
	for (size_t i = 0; i < want->nroots && !walk_done(&w); i++) {
		char *root = strdup(want->roots[i]);
		if (!root || util_grow((void **)&w.queue, &w.cap, w.n + 1, sizeof *w.queue) < 0) {
			free(root);
			break;
		}
		w.queue[w.n++] = root;
		for (; w.head < w.n && !walk_done(&w); w.head++)
			walk_dir(&w, w.queue[w.head]);
	}
	for (size_t i = 0; i < w.n; i++)
		free(w.queue[i]);
	free(w.queue);
	if (w.unsupported) {
		util_fmt(why, wlen, "the filesystem cannot say where a file's blocks are (no FIEMAP)");
		return -EOPNOTSUPP;
	}
	ranges_index(ps);
	if (ps->nranges && !ps->cum) {
		util_fmt(why, wlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int probespan_merge(struct probespan *to, struct probespan *from)
{
	int rc = 0;
	size_t base = to->nfiles, r0 = to->nranges;
	if (util_grow((void **)&to->files, &to->files_cap, to->nfiles + from->nfiles, sizeof *to->files) < 0 ||
	    util_grow((void **)&to->ranges, &to->ranges_cap, to->nranges + from->nranges, sizeof *to->ranges) < 0) {
		rc = -ENOMEM;
	} else {
		memcpy(to->files + base, from->files, from->nfiles * sizeof *from->files);
		to->nfiles += from->nfiles;
		for (size_t i = 0; i < from->nranges; i++) {
			to->ranges[r0 + i] = from->ranges[i];
			to->ranges[r0 + i].file += (uint32_t)base;
		}
		to->nranges += from->nranges;
		from->nfiles = 0; /* the paths are to's now */
		to->visited += from->visited;
		to->refused += from->refused;
		ranges_index(to);
	}
	probespan_free(from);
	return rc;
}

int probespan_pick(const struct probespan *ps, struct prng *rng, size_t *file, uint64_t *off)
{
	if (!ps->span || !ps->cum)
		return -ENOENT;
	uint64_t x = prng_below(rng, ps->span);
	size_t lo = 0, hi = ps->nranges - 1; /* the first range whose cum passes x */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ps->cum[mid] > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	const struct probespan_range *r = &ps->ranges[lo];
	uint64_t slots = (r->hi - r->lo) / ps->io_size;
	*file = r->file;
	*off = r->lo + prng_below(rng, slots) * ps->io_size;
	return 0;
}

static int same_file(const struct probespan_file *f, const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_dev == f->dev && st->st_ino == f->ino && st->st_size == f->size &&
	       st->st_mtim.tv_sec == f->mtime.tv_sec && st->st_mtim.tv_nsec == f->mtime.tv_nsec;
}

/* A file's path is only a name: a directory on the way may have been
 * swapped for a symlink by its owner since the walk, and an open of a
 * device, a FIFO or a socket has effects of its own (a watchdog arms, a
 * tape rewinds, a FIFO's writer goes on). So the name is first opened
 * with O_PATH (no open of the object itself happens), checked to be the
 * very regular file the walk chose, and only then opened for reading
 * through that handle (/proc/self/fd), never by the name again. */
static int reopen_checked(const struct probespan_file *f, int direct)
{
	int pfd = open(f->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	struct stat st;
	if (fstat(pfd, &st) < 0 || !same_file(f, &st)) {
		close(pfd);
		return -ESTALE;
	}
	char via[64];
	util_fmt(via, sizeof via, "/proc/self/fd/%d", pfd);
	/* O_NOATIME where the kernel allows it (the file's owner, or root):
	 * otherwise a read may update the access time, which relatime does at
	 * most once a day per file. */
	int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (direct ? O_DIRECT : 0);
	int fd = open(via, flags | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = open(via, flags);
	int e = errno;
	close(pfd);
	return fd < 0 ? -e : fd;
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

void probespan_drop(struct probespan *ps, size_t i)
{
	if (i >= ps->nfiles || ps->files[i].dropped)
		return;
	ps->files[i].dropped = 1;
	ranges_index(ps);
}

size_t probespan_live_files(const struct probespan *ps)
{
	size_t n = 0;
	for (size_t i = 0; i < ps->nfiles; i++)
		n += !ps->files[i].dropped;
	return n;
}

void probespan_free(struct probespan *ps)
{
	for (size_t i = 0; i < ps->nfiles; i++)
		free(ps->files[i].path);
	free(ps->files);
	free(ps->ranges);
	free(ps->cum);
	*ps = (struct probespan){0};
}
