/* freshjob: see include/probe/freshjob.h */
#include "probe/freshjob.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe/probefile.h"
#include "base/util.h"

/* Open what the probe reads, and how many bytes of it can be read. A file
 * is reopened as the probe opened it (probefile_open_read: a checked
 * directory, no link, a regular file of root's or the caller's, no
 * blocking on a FIFO swapped in meanwhile). */
static int open_target(const char *path, int is_file, uint64_t *span)
{
	struct stat st;
	if (is_file) {
		char why[300];
		int fd = probefile_open_read(path, 0, 1, why, sizeof why);
		if (fd >= 0 && fstat(fd, &st) != 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (fd >= 0)
			*span = (uint64_t)st.st_size;
		return fd;
	}
	int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKGETSIZE64, span) != 0) {
		int e = errno ? errno : EINVAL;
		close(fd);
		return -e;
	}
	return fd;
}

int freshjob_start(struct freshjob *j, const char *path, int is_file, uint32_t io_size, uint32_t reads, uint64_t seed,
		   char *err, size_t len)
{
	memset(j, 0, sizeof *j);
	uint64_t span = 0;
	int fd = open_target(path, is_file, &span);
	if (fd < 0) {
		util_fmt(err, len, "fresh reader: cannot open %s: %s", path, strerror(-fd));
		return -1;
	}
	if (span < io_size) {
		close(fd);
		util_fmt(err, len, "fresh reader: %s is smaller than one read", path);
		return -1;
	}
	int rc = aioreader_start(&j->io, io_size);
	if (rc == 0)
		rc = aioreader_set_fd(&j->io, fd);
	close(fd); /* the child has its own; the tool holds nothing */
	if (rc == 0) {
		j->started = util_mono_now();
		rc = aioreader_submit_job(&j->io, span, reads, seed);
	}
	if (rc < 0) {
		aioreader_stop_within(&j->io, 0.3);
		j->started = 0;
		util_fmt(err, len, "fresh reader: cannot start its process: %s", strerror(-rc));
		return -1;
	}
	j->reads = reads;
	return 0;
}

int freshjob_poll(struct freshjob *j, double *ms, char *err, size_t len)
{
	if (!j->started)
		return -1;
	int64_t res, ns;
	int rc = aioreader_wait(&j->io, 0, &res, &ns);
	if (rc == 0)
		return 0;
	freshjob_cancel(j);
	if (rc < 0 || res != (int64_t)j->reads) {
		util_fmt(err, len, "fresh reader: %s",
			 rc < 0 ? "its process ended" : res < 0 ? strerror((int)-res) : "the job stopped short");
		return -1;
	}
	*ms = (double)ns / 1e6;
	return 1;
}

double freshjob_elapsed_ms(const struct freshjob *j, double mono_now)
{
	return j->started ? (mono_now - j->started) * 1e3 : 0;
}

void freshjob_cancel(struct freshjob *j)
{
	aioreader_stop_within(&j->io, 0.3);
	j->started = 0;
}
