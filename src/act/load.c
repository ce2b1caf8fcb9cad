/* load: see include/act/load.h */
#include "act/load.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "aiowrite.h"
#include "probe/probefile.h"
#include "base/safefile.h"
#include "base/scratch.h"
#include "base/util.h"

#define FSYNC_FILE (16u << 10)
#define FSYNC_KEEP 256 /* files kept before the oldest go: bounded, and deletes are load too */
#define DIR_PREFIX ".iosched-top-load."
#define WRITE_FILE "write.dat"

struct load {
	enum load_kind kind;
	char dir[PATH_MAX];         /* the directory named, for messages */
	int parent_fd;              /* it, opened once (safefile_open_dir) */
	char name[NAME_MAX + 1];    /* the scratch directory's name in it */
	int lock_fd;                /* the directory, opened once and held while it exists (scratch.h); every
				     * file is made and removed through it, never by path: a user who can
				     * rename things where it lies cannot swap it for a link elsewhere */
	uint64_t size;
	pthread_t thread;
	pthread_mutex_t mu;
	int stop;
	uint64_t bytes;
	int err;
};

int load_kind_parse(const char *s)
{
	return !strcmp(s, "none") ? LOAD_NONE : !strcmp(s, "write") ? LOAD_WRITE : !strcmp(s, "fsync") ? LOAD_FSYNC : -1;
}

const char *load_kind_name(enum load_kind k)
{
	return k == LOAD_WRITE ? "write" : k == LOAD_FSYNC ? "fsync" : "none";
}

static int stopping(struct load *l)
{
	pthread_mutex_lock(&l->mu);
	int s = l->stop;
	pthread_mutex_unlock(&l->mu);
	return s;
}

static void add_bytes(struct load *l, uint64_t n)
{
	pthread_mutex_lock(&l->mu);
	l->bytes += n;
	pthread_mutex_unlock(&l->mu);
}

static int stop_hook(void *ctx)
{
	return stopping(ctx);
}

static void done_hook(void *ctx, uint64_t bytes)
{
	add_bytes(ctx, bytes);
}

/* Sequential 1 MiB direct writes, 8 in flight, wrapping at l->size. */
static void run_write(struct load *l)
{
	int fd = openat(l->lock_fd, WRITE_FILE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_DIRECT | O_CLOEXEC, 0600);
	if (fd < 0) {
		l->err = errno;
	} else {
		const struct aiowrite_hooks h = {stop_hook, done_hook, l};
		int err = aiowrite_run(fd, l->size, &h);
		if (err)
			l->err = err;
		close(fd);
	}
	unlinkat(l->lock_fd, WRITE_FILE, 0);
}

/* Small files written and fsync'd one after another; the oldest go. */
static void run_fsync(struct load *l)
{
	char *buf = malloc(FSYNC_FILE);
	if (!buf) {
		l->err = ENOMEM;
		return;
	}
	memset(buf, 0x5a, FSYNC_FILE);
	uint64_t keep = l->size / FSYNC_FILE < FSYNC_KEEP ? l->size / FSYNC_FILE : FSYNC_KEEP;
	if (keep < 1)
		keep = 1;
	uint64_t n = 0;
	char name[32];
	while (!stopping(l)) {
		snprintf(name, sizeof name, "f%llu", (unsigned long long)n);
		int fd = openat(l->lock_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			l->err = errno;
			break;
		}
		if (write(fd, buf, FSYNC_FILE) == (ssize_t)FSYNC_FILE && fsync(fd) == 0)
			add_bytes(l, FSYNC_FILE);
		close(fd);
		if (n >= keep) {
			snprintf(name, sizeof name, "f%llu", (unsigned long long)(n - keep));
			unlinkat(l->lock_fd, name, 0);
		}
		n++;
	}
	for (uint64_t i = n > keep ? n - keep : 0; i < n; i++) {
		snprintf(name, sizeof name, "f%llu", (unsigned long long)i);
		unlinkat(l->lock_fd, name, 0);
	}
	free(buf);
}

static void *load_main(void *arg)
{
	struct load *l = arg;
	util_block_stop_signals(); /* the main thread takes them, in order */
	pthread_setname_np(pthread_self(), "iosched-load");
	if (l->kind == LOAD_WRITE)
		run_write(l);
	else if (l->kind == LOAD_FSYNC)
		run_fsync(l);
	return NULL;
}

int load_pick_dir(const char *disk, const char *given, char *dir, size_t len, char *err, size_t elen)
{
	char d[64];
	if (given) {
		util_strlcpy(dir, given, len);
		return 0;
	}
	if (probefile_disk_of_path("/var/tmp", d, sizeof d) == 0 && strcmp(d, disk) == 0) {
		util_strlcpy(dir, "/var/tmp", len);
		return 0;
	}
	if (probefile_mount_of_disk(disk, dir, len) == 0)
		return 0;
	util_fmt(err, elen, "no read-write filesystem on %s for the load to write into; give --load-dir DIR on it, or --load none",
		 disk);
	return -1;
}

uint64_t load_size_fit(uint64_t avail, uint64_t want, int given)
{
	if (want <= avail / 2)
		return want;
	if (given)
		return 0;
	uint64_t size = LOAD_SIZE_MIN;
	if (size > avail / 2)
		return 0;
	while (size * 2 <= avail / 2 && size * 2 < want)
		size *= 2;
	return size;
}

/* The load's directory, opened once as every place root writes is
 * (safefile_open_dir: no symbolic link on the way, no directory another
 * user owns or may change), and its free space from that descriptor: a
 * link another user planted never leads the load elsewhere. Returns the
 * descriptor, or a negative errno with why in err. */
static int open_load_dir(const char *dir, uint64_t *avail, char *err, size_t len)
{
	char why[300];
	int fd = safefile_open_dir(dir, why, sizeof why);
	if (fd < 0) {
		util_fmt(err, len, "cannot write a load in %s: %s", dir, why);
		return fd;
	}
	struct statvfs v;
	if (fstatvfs(fd, &v) != 0) {
		int e = errno;
		util_fmt(err, len, "load directory %s: %s", dir, strerror(e));
		close(fd);
		return -e;
	}
	*avail = (uint64_t)v.f_bavail * v.f_frsize;
	return fd;
}

int load_pick_size(const char *disk, const char *dir, uint64_t want, int given, uint64_t *size, char *err,
		   size_t len)
{
	uint64_t avail;
	int fd = open_load_dir(dir, &avail, err, len);
	if (fd < 0)
		return -1;
	close(fd);
	if (want < LOAD_SIZE_MIN) {
		util_fmt(err, len, "a load of %llu MiB is below the smallest (%llu MiB): give 64M or more",
			 (unsigned long long)(want >> 20), (unsigned long long)(LOAD_SIZE_MIN >> 20));
		return -1;
	}
	*size = load_size_fit(avail, want, given);
	if (*size)
		return 0;
	unsigned long long mib = avail >> 20;
	if (given && avail / 2 >= LOAD_SIZE_MIN)
		util_fmt(err, len, "load directory %s has %llu MiB free, below twice the load size (%llu MiB): give "
			 "--load-size %lluM or less, or --load-dir on a filesystem of %s with more room",
			 dir, mib, (unsigned long long)(want >> 20), (unsigned long long)(avail >> 21), disk);
	else
		util_fmt(err, len, "load directory %s has %llu MiB free; the load needs %llu MiB (twice its smallest "
			 "size): free space there, give --load-dir on a filesystem of %s with more room, or --load none",
			 dir, mib, (unsigned long long)(2 * LOAD_SIZE_MIN >> 20), disk);
	return -1;
}

int load_start(enum load_kind kind, const char *dir, uint64_t size, struct load **out, char *err, size_t len)
{
	*out = NULL;
	if (kind == LOAD_NONE)
		return 0;
	uint64_t avail;
	int pfd = open_load_dir(dir, &avail, err, len);
	if (pfd < 0)
		return pfd;
	if (avail < 2 * size) {
		util_fmt(err, len, "load directory %s has %llu MiB free, below twice the load size (%llu MiB); use --load-size or --load-dir",
			 dir, (unsigned long long)(avail >> 20), (unsigned long long)(size >> 20));
		close(pfd);
		return -ENOSPC;
	}
	struct load *l = calloc(1, sizeof *l);
	if (!l) {
		close(pfd);
		return -ENOMEM;
	}
	l->kind = kind;
	l->size = size;
	l->parent_fd = pfd;
	util_strlcpy(l->dir, dir, sizeof l->dir);
	pthread_mutex_init(&l->mu, NULL);
	l->lock_fd = scratch_dir_make_at(pfd, DIR_PREFIX, l->name, sizeof l->name);
	int rc = l->lock_fd < 0 ? -l->lock_fd : pthread_create(&l->thread, NULL, load_main, l);
	if (rc != 0) {
		if (l->lock_fd < 0)
			util_fmt(err, len, "cannot make a scratch directory in %s: %s", dir, strerror(rc));
		else
			util_fmt(err, len, "cannot start the load thread: %s", strerror(rc));
		if (l->lock_fd >= 0)
			scratch_dir_remove_at(pfd, l->name, l->lock_fd);
		close(pfd);
		pthread_mutex_destroy(&l->mu);
		free(l);
		return -rc;
	}
	*out = l;
	return 0;
}

/* The files a load makes in its directory: write.dat, f0, f1, ... */
static int is_load_file(const char *name, const void *arg)
{
	(void)arg;
	if (strcmp(name, WRITE_FILE) == 0)
		return 1;
	if (name[0] != 'f' || !name[1])
		return 0;
	for (const char *p = name + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

int load_sweep(const char *dir, scratch_report report, void *ctx)
{
	return scratch_sweep_dirs(dir, DIR_PREFIX, is_load_file, NULL, report, ctx);
}

uint64_t load_bytes(struct load *l)
{
	if (!l)
		return 0;
	pthread_mutex_lock(&l->mu);
	uint64_t b = l->bytes;
	pthread_mutex_unlock(&l->mu);
	return b;
}

void load_stop(struct load *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	l->stop = 1;
	pthread_mutex_unlock(&l->mu);
	/* The writer reaps its requests in flight before it removes its file. */
	pthread_join(l->thread, NULL);
	scratch_dir_remove_at(l->parent_fd, l->name, l->lock_fd);
	close(l->parent_fd);
	pthread_mutex_destroy(&l->mu);
	free(l);
}
