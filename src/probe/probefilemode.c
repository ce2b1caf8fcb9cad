/* probefilemode: the probe thread in the written file mode (probeparts.h),
 * which runs only when asked (--probe-file, --probe-file-size): which file
 * it reads. The file is made whole first (probefile.h makes and checks
 * files; this decides which), with its progress in the status; a
 * directory someone else made is passed over for one of this run's own,
 * removed when the probe ends, also when probe_stop leaves the thread
 * behind. */
#include "probeparts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe/probefile.h"
#include "base/util.h"

static int on_progress(void *ctx, int pct)
{
	struct probe *p = ctx;
	pthread_mutex_lock(&p->mu);
	p->st.prep_pct = pct;
	int stop = p->stop;
	pthread_mutex_unlock(&p->mu);
	return stop;
}

/* probefile_prepare, with the path known to probe_stop meanwhile. */
static int prepare(struct probe *p, const char *path, uint64_t size, int own_dir, char *why, size_t wlen)
{
	pthread_mutex_lock(&p->mu);
	util_strlcpy(p->preparing, path, sizeof p->preparing);
	pthread_mutex_unlock(&p->mu);
	int rc = probefile_prepare(path, size, own_dir, on_progress, p, why, wlen);
	pthread_mutex_lock(&p->mu);
	p->preparing[0] = '\0';
	pthread_mutex_unlock(&p->mu);
	return rc;
}

/* The directory made for this run goes, once: under mu, as the thread
 * ends or as probe_stop leaves a thread behind (under load the thread can
 * still be writing the file when the process exits). */
void probefilemode_drop_private_locked(struct probe *p)
{
	if (p->private_lock >= 0)
		probefile_private_remove(p->private_path, p->private_lock);
	p->private_lock = -1;
}

void probefilemode_drop_private(struct probe *p)
{
	pthread_mutex_lock(&p->mu);
	probefilemode_drop_private_locked(p);
	pthread_mutex_unlock(&p->mu);
}

/* The tool's directory for the file was made by someone else (why says
 * so): rather than let any user turn the probe off that way, a directory
 * of this run's own beside it (probefile_private_dir), said in the status,
 * removed when the probe ends. */
static int prepare_private(struct probe *p, char *why, size_t wlen)
{
	char path[sizeof p->cfg.file], refused[200];
	util_strlcpy(refused, why, sizeof refused);
	char *cut = strstr(refused, ": someone else made it");
	if (cut)
		*cut = '\0';
	int lock = probefile_private_dir(p->cfg.file, path, sizeof path, why, wlen);
	if (lock < 0)
		return lock;
	pthread_mutex_lock(&p->mu);
	p->private_lock = lock;
	util_strlcpy(p->private_path, path, sizeof p->private_path);
	pthread_mutex_unlock(&p->mu);
	int rc = prepare(p, path, p->cfg.file_size, 1, why, wlen);
	if (rc < 0) {
		probefilemode_drop_private(p);
		return rc;
	}
	util_strlcpy(p->cfg.file, path, sizeof p->cfg.file);
	pthread_mutex_lock(&p->mu);
	char first[sizeof p->st.why]; /* why the node was not read, kept */
	util_strlcpy(first, p->st.why, sizeof first);
	if ((cut = strstr(first, "; reads ")))
		*cut = '\0';
	util_strlcpy(p->st.path, path, sizeof p->st.path);
	util_fmt(p->st.why, sizeof p->st.why, "%s; %s; reads %s, made for this run", first, refused, path);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

/* One of the tool's own probe files (in its checked directory), for
 * direct reads: without blocking (a FIFO swapped in never holds the
 * probe), only a regular file of this user's. The descriptor, or a
 * negative errno with why. */
static int open_own_direct(const char *path, char *why, size_t wlen)
{
	int fd = open(path, O_RDONLY | O_DIRECT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	int rc = fd < 0 || fstat(fd, &st) != 0 ? -errno
		 : !S_ISREG(st.st_mode) || st.st_uid != geteuid() ? -EINVAL
		 : fcntl(fd, F_SETFL, O_DIRECT) != 0 ? -errno
		 : 0;
	if (rc == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	snprintf(why, wlen, "cannot open the probe file for direct reads: %s",
		 rc == -EINVAL ? "not a regular file of this user's" : strerror(-rc));
	return rc;
}

/* Open path for direct reads into p->fd and p->span. A file the user
 * named is opened as probefile_open_read says (a checked directory, no
 * link, a regular file of root's or theirs, no blocking on a FIFO). */
static int open_direct(struct probe *p, const char *path)
{
	char why[300] = "";
	int users = p->cfg.file_is_users && !strcmp(path, p->cfg.file);
	int fd = users ? probefile_open_read(path, p->cfg.io_size, 1, why, sizeof why)
		       : open_own_direct(path, why, sizeof why);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		fd = -e;
		util_fmt(why, sizeof why, "%s: %s", path, strerror(e));
	}
	if (fd < 0) {
		probestatus_end(p, users ? "probe file: %s" : "%s", why);
		return fd;
	}
	p->fd = fd;
	p->span = (uint64_t)st.st_size;
	return 0;
}

/* File mode: make sure the file exists whole, then open it for direct reads. */
int probefilemode_open(struct probe *p)
{
	char why[256] = "";
	int rc;
	if (p->cfg.file_is_users) {
		/* Looked for as it is opened (no link followed on the way), not
		 * by access(): which message came would tell whether a file
		 * exists where a planted link leads (a refused directory says
		 * the same either way). Only a missing one is made. */
		rc = probefile_check(p->cfg.file, p->cfg.io_size, why, sizeof why);
		if (rc == -ENOENT)
			rc = prepare(p, p->cfg.file, p->cfg.file_size, 0, why, sizeof why);
	} else {
		rc = prepare(p, p->cfg.file, p->cfg.file_size, 1, why, sizeof why);
		if (rc == -EPERM)
			rc = prepare_private(p, why, sizeof why);
	}
	if (rc < 0) {
		probestatus_end(p, "probe file: %s", why);
		return rc;
	}
	return open_direct(p, p->cfg.file);
}
