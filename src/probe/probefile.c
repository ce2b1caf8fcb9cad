/* probefile: see include/probe/probefile.h */
#include "probe/probefile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "read/diskstats.h"
#include "probe/prng.h"
#include "base/beneath.h"
#include "base/safefile.h"
#include "base/scratch.h"
#include "base/util.h"
#include "read/mountinfo.h"

#define CHUNK (1u << 20)
#define MAX_DEPTH 8

static int first_slave(const char *slaves, char *out, size_t len)
{
	struct dirent **names;
	int n = scandir(slaves, &names, NULL, alphasort);
	int rc = -ENOENT;
	for (int i = 0; i < n; i++) {
		if (rc != 0 && names[i]->d_name[0] != '.') {
			rc = util_pathf(out, len, "%s/%s", slaves, names[i]->d_name);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return rc;
}

/* Resolve a sysfs block directory to its whole disk: a partition's parent;
 * for a stacked device (dm, md, LUKS) the whole disk of its first slave. */
static int whole_from_sysdir(const char *sysdir, char *disk, size_t len, int depth)
{
	char path[PATH_MAX], real[PATH_MAX];
	if (depth > MAX_DEPTH || !realpath(sysdir, real))
		return -ENOENT;
	if (util_pathf(path, sizeof path, "%s/partition", real) < 0)
		return -ENAMETOOLONG;
	if (access(path, F_OK) == 0) {
		*strrchr(real, '/') = '\0';
		util_strlcpy(disk, basename(real), len);
		return 0;
	}
	char slave[PATH_MAX];
	if (util_pathf(path, sizeof path, "%s/slaves", real) == 0 && first_slave(path, slave, sizeof slave) == 0)
		return whole_from_sysdir(slave, disk, len, depth + 1);
	util_strlcpy(disk, basename(real), len);
	return 0;
}

int probefile_whole_disk(dev_t dev, char *disk, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/sys/dev/block/%u:%u", major(dev), minor(dev));
	return whole_from_sysdir(path, disk, len, 0);
}

/* btrfs and some others report an anonymous device (major 0) for their
 * files; the mount's source device is the real one. */
static int is_anon_of_blockdev(const struct mountinfo_entry *m, const void *ctx)
{
	struct stat st;
	return makedev(m->major, m->minor) == *(const dev_t *)ctx && stat(m->source, &st) == 0 &&
	       S_ISBLK(st.st_mode);
}

static int source_of_anon(dev_t anon, dev_t *real)
{
	struct mountinfo_entry m;
	struct stat st;
	int rc = mountinfo_find(is_anon_of_blockdev, &anon, &m);
	if (rc == 0 && stat(m.source, &st) == 0)
		*real = st.st_rdev;
	return rc;
}

int probefile_disk_of_path(const char *path, char *disk, size_t len)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -errno;
	dev_t dev = st.st_dev;
	if (major(dev) == 0 && source_of_anon(dev, &dev) < 0)
		return -ENODEV; /* tmpfs, overlay without a block source, ... */
	return probefile_whole_disk(dev, disk, len);
}

static int on_disk(const char *dir, const char *disk)
{
	char d[64];
	return probefile_disk_of_path(dir, d, sizeof d) == 0 && strcmp(d, disk) == 0;
}

/* A whole read-write filesystem (a bind of one file is no place for
 * ours) on the disk named by ctx. */
static int writable_on_disk(const struct mountinfo_entry *m, const void *ctx)
{
	struct stat st;
	return strcmp(m->root, "/") == 0 && strncmp(m->opts, "rw", 2) == 0 && stat(m->point, &st) == 0 &&
	       S_ISDIR(st.st_mode) && on_disk(m->point, ctx);
}

int probefile_mount_of_disk(const char *disk, char *mnt, size_t len)
{
	struct mountinfo_entry m;
	int rc = mountinfo_find(writable_on_disk, disk, &m);
	if (rc == 0)
		util_strlcpy(mnt, m.point, len);
	return rc;
}

struct each_mount {
	probefile_mount_fn fn;
	void *ctx;
	int with_readonly;
};

/* A match that never matches: it hands every mount on a block device to
 * the caller's function, and mountinfo_find goes on to the next line. */
static int visit(const struct mountinfo_entry *m, const void *arg)
{
	const struct each_mount *e = arg;
	dev_t dev = makedev(m->major, m->minor), fsdev = dev;
	struct stat st;
	char disk[64];
	int readonly = strncmp(m->opts, "rw", 2) != 0;
	if (strcmp(m->root, "/") != 0 || (readonly && !e->with_readonly))
		return 0;
	/* An anonymous device (btrfs) names its block device as the source;
	 * a /dev node, so the stat cannot hang as a network mount's could. */
	if (major(dev) == 0) {
		if (m->source[0] != '/' || stat(m->source, &st) != 0 || !S_ISBLK(st.st_mode))
			return 0;
		dev = st.st_rdev;
	}
	if (probefile_whole_disk(dev, disk, sizeof disk) == 0)
		e->fn(e->ctx, m->point, disk, fsdev, readonly);
	return 0;
}

int probefile_each_mount(probefile_mount_fn fn, void *ctx, int with_readonly)
{
	struct each_mount e = {fn, ctx, with_readonly};
	struct mountinfo_entry m;
	int rc = mountinfo_find(visit, &e, &m);
	return rc == -ENOENT ? 0 : rc;
}

int probefile_locate(const char *disk, char *path, size_t len, char *why, size_t wlen)
{
	char mnt[1024];
	/* A directory per user: one user's runs never stand in another's way
	 * (a shared name made by one user turned the next user's probe off) */
	unsigned uid = (unsigned)geteuid();
	if (on_disk("/var/tmp", disk)) {
		snprintf(path, len, "/var/tmp/iosched-top-%u/%s.probe", uid, disk);
		return 0;
	}
	if (probefile_mount_of_disk(disk, mnt, sizeof mnt) == 0) {
		snprintf(path, len, "%s%s.iosched-top-%u/%s.probe", mnt, strcmp(mnt, "/") ? "/" : "", uid, disk);
		return 0;
	}
	snprintf(why, wlen, "no read-write filesystem on %s to hold a probe file; give one with --probe-file", disk);
	return -ENOENT;
}

int probefile_check(const char *path, uint64_t min, char *why, size_t wlen)
{
	int fd = probefile_open_read(path, min, 0, why, wlen);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* Open (creating 0700 if needed) a directory that must belong to us and be
 * writable by nobody else, so no one can swap the file under us. */
static int own_dir_open(const char *dir, char *why, size_t wlen)
{
	int made = mkdir(dir, 0700) == 0;
	if (!made && errno != EEXIST) {
		snprintf(why, wlen, "cannot create %s: %s", dir, strerror(errno));
		return -errno;
	}
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && !made && (errno == EACCES || errno == ELOOP || errno == ENOTDIR)) {
		/* Something planted at the name (another user's 0700 directory,
		 * a symlink, a file): -EPERM, so the caller falls back to a
		 * private directory of this run's rather than go without. */
		snprintf(why, wlen, "%s is not a private directory of this user (%s): someone else made it; remove it or "
			 "use --probe-file", dir, errno == EACCES ? "not ours to open" : errno == ELOOP ? "a symbolic link"
			 : "not a directory");
		return -EPERM;
	}
	if (fd < 0) {
		snprintf(why, wlen, "cannot open %s: %s", dir, strerror(errno));
		return -errno;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		snprintf(why, wlen, "%s is not a private directory of this user (uid %u, mode %03o): someone else made it; "
			 "remove it or use --probe-file", dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Whether the file base in our directory can serve as it is: a regular
 * file of ours, written by nobody else, whole, large enough. Checked at
 * every start: an earlier run's file is taken only if it still is. */
static int own_file_usable(int dfd, const char *base, uint64_t min)
{
	struct stat st;
	return fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & 022) && (uint64_t)st.st_size >= min && (uint64_t)st.st_blocks * 512 >= (uint64_t)st.st_size;
}

static int enough_space(int dirfd, uint64_t size, const char *dir, char *why, size_t wlen)
{
	struct statvfs vfs;
	if (fstatvfs(dirfd, &vfs) != 0)
		return 0; /* cannot tell: the write itself will fail if short */
	uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	uint64_t total = (uint64_t)vfs.f_blocks * vfs.f_frsize;
	/* Leave 5 % of the filesystem (at least 64 MiB) free after it. */
	uint64_t reserve = total / 20 > (64ull << 20) ? total / 20 : (64ull << 20);
	if (avail < size + reserve) {
		snprintf(why, wlen,
			 "not enough free space in %s for a %llu MiB probe file (keeps %llu MiB free); use --probe-file-size or --probe-file",
			 dir, (unsigned long long)(size >> 20), (unsigned long long)(reserve >> 20));
		return -ENOSPC;
	}
	return 0;
}

/* Bytes written to disk so far (/proc/diskstats), or 0 when unknown. */
static uint64_t disk_written(const char *disk)
{
	struct diskstats_table t = {0};
	uint64_t b = 0;
	if (disk[0] && diskstats_read("/proc/diskstats", &t) == 0) {
		const struct diskstats_row *r = diskstats_find(&t, disk);
		if (r)
			b = r->f[DS_WR_SECTORS] * 512;
	}
	diskstats_free(&t);
	return b;
}

/* The pace of the probe file's writing: the tool must not be the top
 * writer of the disk it was started to diagnose (a first start wrote 1
 * GiB at 383 MB/s). At most PROBEFILE_RATE_MAX, and while others write to
 * the disk, at most a tenth of what they write (never below
 * PROBEFILE_RATE_MIN, so it ends). Re-read every second. */
struct pace {
	char disk[64];
	double rate;               /* bytes per second now */
	double since;              /* mono time of the last look */
	uint64_t disk_then;        /* the disk's written bytes then */
	uint64_t ours_then;        /* ours then */
	double start;
	uint64_t start_done;       /* bytes done when this second began */
};

static void pace_look(struct pace *p, uint64_t done)
{
	double now = util_mono_now();
	if (now - p->since < 1.0)
		return;
	uint64_t disk = disk_written(p->disk);
	double secs = now - p->since;
	double others = disk > p->disk_then ? (double)(disk - p->disk_then) - (double)(done - p->ours_then) : 0;
	double rate = PROBEFILE_RATE_MAX;
	if (p->disk_then && others > 0 && others / secs / 10 < rate)
		rate = others / secs / 10;
	p->rate = rate < PROBEFILE_RATE_MIN ? PROBEFILE_RATE_MIN : rate;
	p->since = now;
	p->disk_then = disk;
	p->ours_then = done;
}

/* Sleep so that done bytes since start keep to the pace. */
static void pace_wait(struct pace *p, uint64_t done)
{
	pace_look(p, done);
	double due = p->start + (double)(done - p->start_done) / p->rate;
	double now = util_mono_now();
	if (due > now + 1.0) { /* the pace changed: count from here */
		p->start = now;
		p->start_done = done;
		return;
	}
	if (due > now)
		util_sleep_until(due);
}

#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_IDLE (3 << 13)

static int fill(int fd, uint64_t size, const char *disk, probefile_progress cb, void *ctx, char *why, size_t wlen)
{
	struct prng rng;
	prng_seed(&rng, (uint64_t)getpid() ^ (uint64_t)(util_mono_now() * 1e9));
	uint64_t *buf = malloc(CHUNK);
	if (!buf)
		return -ENOMEM;
	/* At idle I/O priority (this thread only: who 0): other programs' I/O
	 * goes first. Put back before the probe reads, which must not be idle
	 * (the reader process is forked from this thread and inherits it). */
	long was = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0);
	syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_IDLE);
	struct pace pace = {.rate = PROBEFILE_RATE_MAX, .start = util_mono_now(), .since = util_mono_now()};
	/* A start file (PROBE_START_SIZE) is written at the top pace even
	 * beside other writers: seconds, at an idle priority, so the figures
	 * come soon; the whole file yields to them. */
	if (size > PROBEFILE_START_MAX)
		util_strlcpy(pace.disk, disk ? disk : "", sizeof pace.disk);
	pace.disk_then = disk_written(pace.disk);
	int rc = 0;
	uint64_t synced = 0;
	for (uint64_t done = 0; done < size && rc == 0;) {
		pace_wait(&pace, done);
		size_t n = size - done < CHUNK ? (size_t)(size - done) : CHUNK;
		for (size_t i = 0; i < CHUNK / 8; i++)
			buf[i] = prng_next(&rng);
		ssize_t w = write(fd, buf, n);
		if (w <= 0) {
			rc = w < 0 ? -errno : -EIO;
			snprintf(why, wlen, "writing the probe file failed: %s", strerror(-rc));
			break;
		}
		done += (uint64_t)w;
		/* Flush as we go: the final fsync stays short, so a cancel
		 * (quit while preparing) is never stuck behind a gigabyte. */
		if (done - synced >= (64u << 20)) {
			fdatasync(fd);
			synced = done;
		}
		/* Asked after every chunk, not every percent: a stop (the
		 * exit) must not wait for 10 MB at an idle priority. */
		if (cb && cb(ctx, (int)(done * 100 / size))) {
			rc = -ECANCELED;
			snprintf(why, wlen, "cancelled");
		}
	}
	free(buf);
	if (rc == 0 && fsync(fd) != 0) {
		rc = -errno;
		snprintf(why, wlen, "fsync of the probe file failed: %s", strerror(errno));
	}
	if (was >= 0)
		syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, (int)was);
	return rc;
}

/* path's directory and file name, each into its buffer. */
static void split_path(const char *path, char *dir, size_t dlen, char *base, size_t blen)
{
	char tmp[PATH_MAX];
	util_strlcpy(tmp, path, sizeof tmp);
	util_strlcpy(base, basename(tmp), blen);
	util_strlcpy(tmp, path, sizeof tmp);
	util_strlcpy(dir, dirname(tmp), dlen);
}

/* Whether the file open as fd, fstat'd into st, may be read as a probe
 * file for the user running the tool: a regular file of root's or theirs
 * (never another user's: it is theirs to change at will, a FIFO in its
 * place one day), whole and large enough. Said in that order: nothing of
 * a file that is refused is told (its size neither). */
static int usable_probe_file(const char *path, const struct stat *st, uint64_t min, char *why, size_t wlen)
{
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, wlen, "%s is not a regular file", path);
		return -EINVAL;
	}
	uid_t caller = safefile_caller_uid();
	if (st->st_uid != 0 && st->st_uid != geteuid() && st->st_uid != caller) {
		snprintf(why, wlen, "%s belongs to uid %u, not to root or to the user running the tool (uid %u): not read",
			 path, (unsigned)st->st_uid, (unsigned)caller);
		return -EPERM;
	}
	if ((uint64_t)st->st_size < min) {
		snprintf(why, wlen, "%s is %lld bytes, smaller than one probe read (%llu)", path,
			 (long long)st->st_size, (unsigned long long)min);
		return -EINVAL;
	}
	/* Holes answer without touching the disk: figures from them would lie. */
	if ((uint64_t)st->st_blocks * 512 < (uint64_t)st->st_size) {
		snprintf(why, wlen, "%s is sparse (has holes); write it fully first, e.g. with dd if=/dev/urandom", path);
		return -EINVAL;
	}
	return 0;
}

int probefile_open_read(const char *path, uint64_t min, int direct, char *why, size_t wlen)
{
	char dir[PATH_MAX], base[NAME_MAX + 1], err[300];
	why[0] = '\0';
	split_path(path, dir, sizeof dir, base, sizeof base);
	int dfd = safefile_open_dir(dir, err, sizeof err);
	if (dfd < 0) {
		snprintf(why, wlen, "cannot use a probe file in %s: %s", dir, err);
		return dfd;
	}
	/* Nothing but a regular file is opened (beneath_open_file: a FIFO, a
	 * device or a socket put in the file's place, in a sticky directory
	 * others write to, is looked at through O_PATH and never opened:
	 * the open of a FIFO releases its writer, a device's acts). */
	struct stat st;
	int fd = beneath_open_file(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, &st);
	close(dfd);
	int rc = fd >= 0 || fd == -EINVAL ? usable_probe_file(path, &st, min, why, wlen) : fd;
	if (fd == -ELOOP)
		snprintf(why, wlen, "%s: is a symbolic link: not followed", path);
	if (fd < 0) {
		if (!why[0])
			snprintf(why, wlen, "%s: %s", path, strerror(-fd));
		return rc < 0 ? rc : fd;
	}
	if (rc == 0 && fcntl(fd, F_SETFL, direct ? O_DIRECT : 0) != 0) {
		rc = -errno;
		snprintf(why, wlen, "%s: cannot read it directly (O_DIRECT): %s", path, strerror(errno));
	}
	if (rc < 0) {
		if (rc != -EINVAL && rc != -EPERM && !why[0])
			snprintf(why, wlen, "%s: %s", path, strerror(-rc));
		close(fd);
		return rc;
	}
	return fd;
}

/* A probe file's name or its temporary's: what a private directory of a
 * run (probefile_private_dir) may hold. */
static int is_probe_file(const char *name, const void *arg)
{
	(void)arg;
	size_t n = strlen(name);
	return (n > 6 && strcmp(name + n - 6, ".probe") == 0) || scratch_is_tmp_of(name, NULL);
}

/* The prefix of the private directories made beside dir: "NAME." */
static void private_prefix(const char *dir, char *parent, size_t plen, char *prefix, size_t xlen)
{
	char name[256];
	split_path(dir, parent, plen, name, sizeof name);
	snprintf(prefix, xlen, "%s.", name);
}

static void quiet(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

int probefile_sweep(const char *path, int own_dir, scratch_report report, void *ctx)
{
	char dir[PATH_MAX], base[256];
	split_path(path, dir, sizeof dir, base, sizeof base);
	/* The tool's own directory holds only its files: any probe file's
	 * temporary there is ours. In a user's directory only this file's. */
	int n = scratch_sweep_files(dir, own_dir, scratch_is_tmp_of, own_dir ? NULL : base, report, ctx);
	if (own_dir) {
		/* Private directories of runs that were killed (their lock is free). */
		char parent[PATH_MAX], prefix[270];
		private_prefix(dir, parent, sizeof parent, prefix, sizeof prefix);
		n += scratch_sweep_dirs(parent, prefix, is_probe_file, NULL, report, ctx);
	}
	return n;
}

int probefile_private_dir(const char *path, char *out, size_t len, char *why, size_t wlen)
{
	char dir[PATH_MAX], base[256], parent[PATH_MAX], prefix[270], made[PATH_MAX];
	split_path(path, dir, sizeof dir, base, sizeof base);
	private_prefix(dir, parent, sizeof parent, prefix, sizeof prefix);
	int lock = scratch_dir_make(parent, prefix, made, sizeof made);
	if (lock < 0) {
		snprintf(why, wlen, "cannot make a private directory in %s: %s", parent, strerror(-lock));
		return lock;
	}
	if (util_pathf(out, len, "%s/%s", made, base) < 0) {
		scratch_dir_remove(made, lock);
		snprintf(why, wlen, "%s/%s: path too long", made, base);
		return -ENAMETOOLONG;
	}
	return lock;
}

void probefile_private_remove(const char *path, int lock_fd)
{
	char dir[PATH_MAX], base[256];
	split_path(path, dir, sizeof dir, base, sizeof base);
	/* Our 0700 directory, locked: nobody else can have put anything here,
	 * and a temporary of a cancelled fill was already removed by it. The
	 * file goes through the directory's descriptor (the lock), not by
	 * path: whoever owns the place it lies in could have swapped the
	 * directory for a link meanwhile; rmdir follows no link. */
	unlinkat(lock_fd, base, 0);
	scratch_dir_remove(dir, lock_fd);
}

int probefile_whole(const char *path, uint64_t size)
{
	char dir[PATH_MAX], base[256], why[256];
	split_path(path, dir, sizeof dir, base, sizeof base);
	struct stat st;
	if (stat(dir, &st) != 0) /* not made yet: own_dir_open would make it */
		return 0;
	int dfd = own_dir_open(dir, why, sizeof why);
	if (dfd < 0)
		return 0;
	int whole = own_file_usable(dfd, base, size);
	close(dfd);
	return whole;
}

void probefile_discard(const char *path)
{
	char dir[PATH_MAX], base[256];
	split_path(path, dir, sizeof dir, base, sizeof base);
	/* Through the directory, and only if it is still ours and private:
	 * what another user made at the name is not ours to remove. */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (dfd < 0)
		return;
	if (fstat(dfd, &st) == 0 && st.st_uid == geteuid() && !(st.st_mode & 077) &&
	    fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
		unlinkat(dfd, base, 0);
	close(dfd);
}

/* The temporary a probe file is written under by this process. */
static void tmp_name(const char *base, char *tmp, size_t len)
{
	snprintf(tmp, len, ".%s.%ld.tmp", base, (long)getpid());
}

void probefile_abandon(const char *path)
{
	char dir[PATH_MAX], base[256], tmp[300];
	split_path(path, dir, sizeof dir, base, sizeof base);
	tmp_name(base, tmp, sizeof tmp);
	/* This process's own name in a directory it made or checked: the
	 * writer may still hold the file; its blocks go when it closes. */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return;
	scratch_tmp_abandon(dfd, tmp);
	close(dfd);
}

/* Write the file under tmp and rename it to base when whole. */
static int write_tmp(int dfd, const char *dir, const char *tmp, const char *base, uint64_t size,
		     probefile_progress cb, void *ctx, char *why, size_t wlen)
{
	/* Locked while it is written, with a lock file that says a run of the
	 * tool made it (scratch.h): a sweep by another run tells it from a
	 * killed run's, and from a file of another program's. */
	int lock = -1;
	int fd = scratch_tmp_create(dfd, tmp, &lock);
	if (fd < 0) {
		snprintf(why, wlen, "cannot create %s/%s: %s", dir, tmp, strerror(-fd));
		return fd;
	}
	char disk[64];
	if (probefile_disk_of_path(dir, disk, sizeof disk) < 0)
		disk[0] = '\0';
	int rc = fill(fd, size, disk, cb, ctx, why, wlen);
	/* Renamed before the close: the lock covers the temporary until its
	 * name is gone, so no sweep can take a whole file for a stale one. */
	if (rc == 0 && renameat(dfd, tmp, dfd, base) != 0) {
		rc = -errno;
		snprintf(why, wlen, "cannot rename the probe file into place: %s", strerror(errno));
	}
	if (rc != 0)
		unlinkat(dfd, tmp, 0);
	close(fd);
	scratch_tmp_release(dfd, tmp, lock);
	if (rc == 0)
		fsync(dfd);
	return rc;
}

int probefile_prepare(const char *path, uint64_t size, int own_dir, probefile_progress cb,
		      void *ctx, char *why, size_t wlen)
{
	/* A user's own file (--probe-file) is checked as it is; ours only
	 * through our checked directory, below. */
	if (!own_dir && probefile_check(path, size, why, wlen) == 0)
		return 0;
	char dir[PATH_MAX], base[256], tmp[300];
	split_path(path, dir, sizeof dir, base, sizeof base);
	/* A directory the user named is reached as every path root writes:
	 * no symbolic link on the way, none another user owns or may write
	 * (it followed a link another user planted to a root-only place). */
	char err[300];
	int dfd = own_dir ? own_dir_open(dir, why, wlen) : safefile_open_dir(dir, err, sizeof err);
	if (dfd < 0) {
		if (!own_dir)
			snprintf(why, wlen, "cannot use a probe file in %s: %s", dir, err);
		return dfd;
	}
	if (own_dir && own_file_usable(dfd, base, size)) {
		close(dfd);
		return 0; /* a complete one from an earlier run */
	}
	/* This file's temporary from a killed run, whose pid may be ours now
	 * (O_EXCL would refuse it). Quietly: the start of a run has swept
	 * and said what it removed (probefile_sweep); this is the backstop
	 * for a probe started later. */
	scratch_sweep_files(dir, own_dir, scratch_is_tmp_of, base, quiet, NULL);
	struct stat st;
	int rc = 0;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		/* In our own directory a file that fails the check is ours from
		 * a run with another size: replace it. A user's file is theirs:
		 * never touch it (the caller checked it can serve as it is). */
		if (!own_dir || !S_ISREG(st.st_mode))
			rc = -EEXIST;
		else if (unlinkat(dfd, base, 0) != 0)
			rc = -errno;
		if (rc && (own_dir || !why[0])) /* a user's file: why the check refused it stands */
			snprintf(why, wlen, "%s exists and is not a usable probe file", path);
	}
	if (rc == 0)
		rc = enough_space(dfd, size, dir, why, wlen);
	if (rc == 0) {
		/* Written under a temporary name and renamed when complete, so a
		 * file with the final name is always whole. */
		tmp_name(base, tmp, sizeof tmp);
		rc = write_tmp(dfd, dir, tmp, base, size, cb, ctx, why, wlen);
	}
	close(dfd);
	return rc;
}
