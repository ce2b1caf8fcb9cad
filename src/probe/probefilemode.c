/* probefilemode: the probe thread in file mode (probeparts.h): which file
 * it reads and when. The file is made whole first (probefile.h makes and
 * checks files; this decides which): a first run reads a small start file
 * while a thread of its own writes the whole one, then moves its reads to
 * it; a directory someone else made is passed over for one of this run's
 * own. What this run made is removed when it ends, also when probe_stop
 * leaves the thread behind. */
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
	/* Writing it: this run's to remove, even if a stop comes between its
	 * rename into place and prepare's return. One found whole (another
	 * run's) is never written, so never named here. */
	if (p->start_writing)
		util_strlcpy(p->start_made, p->preparing, sizeof p->start_made);
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
		snprintf(why, sizeof why, "%s: %s", path, strerror(e));
	}
	if (fd < 0) {
		probestatus_end(p, users ? "probe file: %s" : "%s", why);
		return fd;
	}
	p->fd = fd;
	p->span = (uint64_t)st.st_size;
	return 0;
}

static void *fill_main(void *arg)
{
	struct probe *p = arg;
	pthread_setname_np(pthread_self(), "iosched-fill");
	util_block_stop_signals();
	char why[256] = "";
	int rc = prepare(p, p->cfg.file, p->cfg.file_size, 1, why, sizeof why);
	pthread_mutex_lock(&p->mu);
	p->fill_rc = rc;
	util_strlcpy(p->fill_why, why, sizeof p->fill_why);
	p->fill_done = 1;
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void set_start_made(struct probe *p, const char *path)
{
	pthread_mutex_lock(&p->mu);
	util_strlcpy(p->start_made, path, sizeof p->start_made);
	pthread_mutex_unlock(&p->mu);
}

/* The start file goes with the run that made it, whatever ends the run but
 * SIGKILL: 64 MiB left for a later run that may never come. Under mu. */
void probefilemode_drop_start_locked(struct probe *p)
{
	if (p->start_made[0])
		probefile_discard(p->start_made);
	p->start_made[0] = '\0';
}

/* The tool's own file is not there whole (a first run, or one with another
 * size): rather than show nothing for the minute it takes to write it
 * gently on a busy disk, a start file of PROBE_START_SIZE is written first
 * (seconds) and read while a thread of its own writes the whole file;
 * then the probe moves to that (probefilemode_swap). The row says so meanwhile: a
 * small file may read faster from a cache below the filesystem (README,
 * bench/probefile-size). Returns 0 with the start file open, 1 when no
 * start file is worth it (the caller writes the file as before), or a
 * negative errno. */
static int open_start(struct probe *p)
{
	if (p->cfg.file_is_users || p->cfg.file_size < 4 * (uint64_t)PROBE_START_SIZE ||
	    probefile_whole(p->cfg.file, p->cfg.file_size))
		return 1;
	char start[sizeof p->start], why[256] = "";
	if (util_pathf(start, sizeof start, "%s.start", p->cfg.file) < 0)
		return 1;
	pthread_mutex_lock(&p->mu);
	p->start_writing = 1;
	pthread_mutex_unlock(&p->mu);
	int rc = prepare(p, start, PROBE_START_SIZE, 1, why, sizeof why);
	pthread_mutex_lock(&p->mu);
	p->start_writing = 0;
	pthread_mutex_unlock(&p->mu);
	if (rc < 0)
		set_start_made(p, ""); /* none made (nor ours to remove, with -EPERM) */
	if (rc == -EPERM)
		return 1; /* a directory someone else made: the private one, as before */
	if (rc < 0) {
		probestatus_end(p, "probe file: %s", why);
		return rc;
	}
	if ((rc = open_direct(p, start)) < 0)
		return rc;
	if (pthread_create(&p->filler, NULL, fill_main, p) != 0) {
		close(p->fd);
		p->fd = -1;
		return 1;
	}
	util_strlcpy(p->start, start, sizeof p->start);
	pthread_mutex_lock(&p->mu);
	p->st.filling = 1;
	util_strlcpy(p->st.path, start, sizeof p->st.path);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

/* The whole file is written (or could not be): wait for its thread, and
 * move the reads to it, the start file removed; on a failure go on
 * reading the start file and say why. Between reads only. */
int probefilemode_swap(struct probe *p, struct aioreader *io)
{
	pthread_join(p->filler, NULL);
	pthread_mutex_lock(&p->mu);
	int rc = p->fill_rc;
	char why[sizeof p->fill_why];
	util_strlcpy(why, p->fill_why, sizeof why);
	p->st.filling = 0;
	pthread_mutex_unlock(&p->mu);
	char start[sizeof p->start];
	util_strlcpy(start, p->start, sizeof start);
	p->start[0] = '\0';
	if (rc < 0) {
		pthread_mutex_lock(&p->mu);
		util_fmt(p->st.why + strlen(p->st.why), sizeof p->st.why - strlen(p->st.why),
			 "; the whole probe file could not be written (%s): reads the start file", why);
		pthread_mutex_unlock(&p->mu);
		return 0;
	}
	int old = p->fd;
	if (open_direct(p, p->cfg.file) < 0)
		return -1;
	if ((rc = aioreader_set_fd(io, p->fd)) < 0) {
		probestatus_end(p, "cannot hand the probe file to the reader process: %s", strerror(-rc));
		return -1;
	}
	close(old);
	pthread_mutex_lock(&p->mu);
	probefilemode_drop_start_locked(p);
	util_strlcpy(p->st.path, p->cfg.file, sizeof p->st.path);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

/* Whether the whole file's writer has ended (the reads can move to it). */
int probefilemode_fill_ended(struct probe *p)
{
	if (!p->start[0])
		return 0;
	pthread_mutex_lock(&p->mu);
	int done = p->fill_done;
	pthread_mutex_unlock(&p->mu);
	return done;
}

/* File mode: make sure the file exists whole, then open it for direct reads. */
int probefilemode_open(struct probe *p)
{
	char why[256] = "";
	int rc = open_start(p);
	if (rc <= 0)
		return rc;
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
