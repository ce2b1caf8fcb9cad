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

#include "base/beneath.h"
#include "base/util.h"
#include "read/subuid.h"
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

static int add_range(struct probespan *ps, uint32_t file, uint64_t lo, uint64_t hi, uint64_t phys)
{
	if (util_grow((void **)&ps->ranges, &ps->ranges_cap, ps->nranges + 1, sizeof *ps->ranges) < 0)
		return -ENOMEM;
	ps->ranges[ps->nranges++] = (struct probespan_range){.file = file, .lo = lo, .hi = hi, .phys = phys};
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
			if (add_range(ps, file, lo, hi, e->fe_physical + (lo - e->fe_logical)) < 0)
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
		.path = copy, .dev = st->st_dev, .ino = st->st_ino, .uid = st->st_uid, .size = st->st_size,
		.mtime = st->st_mtim, .ctime = st->st_ctim, .blocks = st->st_blocks};
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

/* What one owner's files gave, and what its directories cost. */
struct owner {
	uid_t uid;
	uint64_t bytes;
	size_t files;
	size_t visits;
};

/* One owner's share of the walk's file and entry budgets: a user who
 * filled a directory with 4096 small files (or 200,000 names) ran the
 * walk out before root's files were reached, and the probe stopped with
 * "too little to read". */
#define OWNER_SHARE 8

/* A directory others may write (a sticky /tmp-like one, even root's) is
 * no one's: what is in it is charged to this pseudo-owner, capped as a
 * user is (anyone can put 200,000 hard links there). */
#define SHARED_OWNER ((uid_t)-2)

/* The subordinate uid ranges read from /etc/subuid (rootless containers'
 * uids): a range's files are its user's, one share, not one per uid. */
#define SUBUID_RANGES 64

/* Paths longer than this are not queued: a user's deep tree of long
 * names cost 100 MB of queued paths (a file's own path has no use past
 * it either). */
#define WALK_PATH_MAX 1024

/* The walk: directories in the order met (breadth first), each opened
 * beneath the top without following links, on want->dev alone. */
struct walk {
	struct probespan *ps;
	const struct probespan_want *want;
	char **queue;
	size_t head, n, cap;
	int unsupported;      /* FIEMAP said no: the filesystem cannot serve */
	int topfd;            /* the top, O_PATH: everything is opened beneath it */
	size_t top_len;
	ino_t top_ino;
	struct owner *owners; /* users' (not system accounts') */
	size_t nowners, owners_cap;
	struct subuid_range sub[SUBUID_RANGES]; /* /etc/subuid */
	size_t nsub;
};

static int walk_push(struct walk *w, const char *dir, const char *name)
{
	if (util_grow((void **)&w->queue, &w->cap, w->n + 1, sizeof *w->queue) < 0)
		return -ENOMEM;
	char *p;
	if (strlen(dir) + strlen(name) + 1 > WALK_PATH_MAX)
		return 0;
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

/* A path of the walk as a name beneath its top ("." for the top). */
static const char *walk_rel(const struct walk *w, const char *path)
{
	const char *r = path + w->top_len;
	while (*r == '/')
		r++;
	return *r ? r : ".";
}

/* Another name of a file already kept (a hard link): a user could make
 * thousands of names for one small file of theirs. Only files with more
 * than one name are looked for. */
static int walk_repeat(const struct walk *w, const struct stat *st)
{
	if (st->st_nlink < 2)
		return 0;
	for (size_t i = 0; i < w->ps->nfiles; i++)
		if (w->ps->files[i].ino == st->st_ino && w->ps->files[i].dev == st->st_dev)
			return 1;
	return 0;
}

/* The owner's entry, made when new; NULL for root and system accounts
 * (never capped, also inside a range that covers them) or where there is
 * no cap. A subordinate range's other uids are one owner: its user (one
 * share with the user's own files), or, for a system account's range (a
 * CI runner's rootless containers; the account itself is never capped),
 * the range, under a key no real uid has (the top of uid_t, down by the
 * range's index). */
static struct owner *walk_owner(struct walk *w, uid_t uid)
{
	const struct subuid_range *r = subuid_range_of(w->sub, w->nsub, uid);
	if (r && uid >= PROBESPAN_SYSTEM_UIDS)
		uid = r->owner >= PROBESPAN_SYSTEM_UIDS ? r->owner : (uid_t)-2 - (uid_t)(r - w->sub);
	if (!w->want->owner_cap || uid < PROBESPAN_SYSTEM_UIDS)
		return NULL;
	for (size_t i = 0; i < w->nowners; i++)
		if (w->owners[i].uid == uid)
			return &w->owners[i];
	if (util_grow((void **)&w->owners, &w->owners_cap, w->nowners + 1, sizeof *w->owners) < 0)
		return NULL;
	w->owners[w->nowners] = (struct owner){.uid = uid};
	return &w->owners[w->nowners++];
}

/* Keep at most room bytes of the ranges from r0 on (the file just
 * added); returns what is kept. */
static uint64_t trim_ranges(struct probespan *ps, size_t r0, uint64_t room)
{
	uint64_t kept = 0;
	size_t i = r0;
	for (; i < ps->nranges && kept < room; i++) {
		struct probespan_range *r = &ps->ranges[i];
		if (r->hi - r->lo > room - kept)
			r->hi = r->lo + (room - kept) / ps->io_size * ps->io_size;
		kept += r->hi - r->lo;
	}
	ps->nranges = i;
	while (ps->nranges > r0 && ps->ranges[ps->nranges - 1].hi == ps->ranges[ps->nranges - 1].lo)
		ps->nranges--;
	return kept;
}

/* Map the regular file open as fd into the set, within its owner's cap. */
static void walk_add(struct walk *w, int fd, const char *path, const struct stat *st)
{
	struct owner *o = walk_owner(w, st->st_uid);
	if (o && (w->want->owner_cap - o->bytes < w->ps->io_size || o->files * OWNER_SHARE >= w->want->max_files)) {
		w->ps->capped++;
		return;
	}
	size_t r0 = w->ps->nranges;
	long long kept = probespan_add_file(w->ps, fd, path, st);
	if (kept == -EOPNOTSUPP) {
		w->unsupported = 1;
		return;
	}
	if (kept <= 0) {
		w->ps->refused++;
		return;
	}
	struct probespan_file *f = &w->ps->files[w->ps->nfiles - 1];
	f->top_len = w->top_len;
	f->top_ino = w->top_ino;
	if (o) {
		kept = (long long)trim_ranges(w->ps, r0, w->want->owner_cap - o->bytes);
		o->bytes += (uint64_t)kept;
		o->files++;
	}
	w->ps->span += (uint64_t)kept;
}

/* An entry the directory says is a regular file: looked at first through
 * an O_PATH handle (which opens nothing: the name may have been made a
 * FIFO or a device since), and opened for FIEMAP through that handle only
 * when it is a regular file of the filesystem, large enough, not one of
 * the set under another name. */
static void walk_file(struct walk *w, int dfd, const char *dir, const char *name)
{
	int pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return;
	struct stat st;
	if (fstat(pfd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == w->want->dev &&
	    (uint64_t)st.st_size >= w->want->min_file) {
		int fd = -1;
		if (walk_repeat(w, &st))
			w->ps->repeats++;
		else if ((fd = beneath_reopen(pfd, O_RDONLY | O_NONBLOCK | O_NOCTTY)) >= 0) {
			char path[4096];
			util_fmt(path, sizeof path, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name);
			walk_add(w, fd, path, &st);
			close(fd);
		}
	}
	close(pfd);
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
	/* Beneath the top, no link followed on the way: a user who owns a
	 * directory on the path may have swapped it for a link since it was
	 * queued. O_NOATIME where allowed (root, or the directory's owner):
	 * reading a directory may otherwise update its access time
	 * (relatime: once a day), a write the monitor would cause. */
	const char *rel = walk_rel(w, dir);
	int dfd = beneath_open(w->topfd, rel, O_RDONLY | O_DIRECTORY | O_NOATIME);
	if (dfd == -EPERM)
		dfd = beneath_open(w->topfd, rel, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return;
	struct stat st;
	DIR *d = fstat(dfd, &st) == 0 && st.st_dev == w->want->dev ? fdopendir(dfd) : NULL;
	if (!d) {
		close(dfd);
		return;
	}
	uid_t owner = st.st_mode & S_IWOTH ? SHARED_OWNER : st.st_uid;
	struct dirent *de;
	size_t here = 0;
	while (!walk_done(w) && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		/* (looked up each time: walk_file may grow the owners) */
		struct owner *o = walk_owner(w, owner);
		if ((o && o->visits++ * OWNER_SHARE >= w->want->max_visit) ||
		    here++ * OWNER_SHARE >= w->want->max_visit) {
			w->ps->capped++;
			break; /* the rest of this directory: past its owner's share, or its own */
		}
		w->ps->visited++;
		int type = entry_type(dirfd(d), de);
		if (type == DT_DIR)
			walk_push(w, dir, de->d_name);
		else if (type == DT_REG)
			walk_file(w, dirfd(d), dir, de->d_name);
	}
	closedir(d);
}

/* The top the next root is walked beneath: want->top, else the root
 * itself. Returns 0, or -1 when it cannot be opened, is not on the
 * filesystem, or the root is not beneath it (the root is left out). */
static int walk_set_top(struct walk *w, const char *root)
{
	const char *top = w->want->top ? w->want->top : root;
	size_t len = strlen(top);
	if (strncmp(root, top, len) != 0 || (root[len] && root[len] != '/' && strcmp(top, "/") != 0))
		return -1;
	if (w->topfd >= 0 && w->want->top)
		return 0; /* opened for an earlier root */
	if (w->topfd >= 0)
		close(w->topfd);
	struct stat st;
	w->topfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (w->topfd < 0 || fstat(w->topfd, &st) < 0 || st.st_dev != w->want->dev) {
		if (w->topfd >= 0)
			close(w->topfd);
		w->topfd = -1;
		return -1;
	}
	w->top_len = len;
	w->top_ino = st.st_ino;
	return 0;
}

static int by_phys(const void *a, const void *b, void *arg)
{
	const struct probespan_range *r = arg;
	uint64_t x = r[*(const size_t *)a].phys, y = r[*(const size_t *)b].phys;
	return x < y ? -1 : x > y;
}

/* Blocks kept twice (files sharing extents: reflinks, a copy made with
 * cp --reflink) are kept once: the range met later in the walk's order is
 * left out where it overlaps one met before. Returns 0 or -ENOMEM. */
static int drop_shared(struct probespan *ps)
{
	if (ps->nranges < 2)
		return 0;
	size_t *idx = malloc(ps->nranges * sizeof *idx);
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < ps->nranges; i++)
		idx[i] = i;
	qsort_r(idx, ps->nranges, sizeof *idx, by_phys, ps->ranges);
	uint64_t end = 0;
	size_t keep_at = 0; /* the range whose blocks reach end */
	for (size_t k = 0; k < ps->nranges; k++) {
		struct probespan_range *r = &ps->ranges[idx[k]];
		uint64_t rend = r->phys + (r->hi - r->lo);
		if (k > 0 && r->phys < end) {
			/* overlap: the later of the two (in the walk's order) goes */
			struct probespan_range *o = &ps->ranges[keep_at];
			struct probespan_range *gone = idx[k] > keep_at ? r : o;
			if (gone == o) {
				keep_at = idx[k];
				end = rend;
			}
			gone->hi = gone->lo;
			continue;
		}
		keep_at = idx[k];
		end = rend;
	}
	free(idx);
	size_t n = 0;
	for (size_t i = 0; i < ps->nranges; i++)
		if (ps->ranges[i].hi > ps->ranges[i].lo)
			ps->ranges[n++] = ps->ranges[i];
	ps->nranges = n;
	return 0;
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

/* Files left with no range (all their blocks another file's): dropped. */
static void drop_empty(struct probespan *ps)
{
	char *has = calloc(ps->nfiles ? ps->nfiles : 1, 1);
	if (!has)
		return;
	for (size_t i = 0; i < ps->nranges; i++)
		has[ps->ranges[i].file] = 1;
	for (size_t i = 0; i < ps->nfiles; i++)
		if (!has[i] && !ps->files[i].dropped) {
			ps->files[i].dropped = 1;
			ps->repeats++;
		}
	free(has);
}

static void walk_roots(struct walk *w)
{
	const struct probespan_want *want = w->want;
	/* Each root walked whole (breadth first) before the next: the roots
	 * come in the order the caller prefers them. */
	for (size_t i = 0; i < want->nroots && !walk_done(w); i++) {
		if (walk_set_top(w, want->roots[i]) < 0)
			continue;
		char *root = strdup(want->roots[i]);
		if (!root || util_grow((void **)&w->queue, &w->cap, w->n + 1, sizeof *w->queue) < 0) {
			free(root);
			break;
		}
		w->queue[w->n++] = root;
		for (; w->head < w->n && !walk_done(w); w->head++)
			walk_dir(w, w->queue[w->head]);
	}
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
	struct walk w = {.ps = ps, .want = want, .topfd = -1};
	if (want->owner_cap)
		w.nsub = subuid_read(want->subuid ? want->subuid : "/etc/subuid", w.sub, SUBUID_RANGES);
	walk_roots(&w);
	for (size_t i = 0; i < w.n; i++)
		free(w.queue[i]);
	free(w.queue);
	free(w.owners);
	if (w.topfd >= 0)
		close(w.topfd);
	if (w.unsupported) {
		util_fmt(why, wlen, "the filesystem cannot say where a file's blocks are (no FIEMAP)");
		return -EOPNOTSUPP;
	}
	if (probespan_settle(ps) < 0) {
		util_fmt(why, wlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int probespan_settle(struct probespan *ps)
{
	int rc = drop_shared(ps);
	drop_empty(ps);
	ranges_index(ps);
	return rc < 0 || (ps->nranges && !ps->cum) ? -ENOMEM : 0;
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
	uint64_t phys;
	return probespan_pick_phys(ps, rng, file, off, &phys);
}

int probespan_pick_phys(const struct probespan *ps, struct prng *rng, size_t *file, uint64_t *off, uint64_t *phys)
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
	*phys = r->phys + (*off - r->lo);
	return 0;
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
