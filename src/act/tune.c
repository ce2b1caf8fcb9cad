/* tune: see include/tune.h */
#include "tune.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sched.h"
#include "util.h"

static const char *hint(int e)
{
	switch (e) {
	case EACCES:
	case EPERM:
	case EROFS:
		return " (changing a scheduler needs root)";
	case EINVAL:
	case ENOENT:
		return " (the kernel does not offer it for this disk; is its module loaded? try modprobe)";
	case EBUSY:
		return " (the queue is busy; try again)";
	}
	return "";
}

int tune_set_scheduler(const char *disk, const char *sched, struct event *ev)
{
	char path[PATH_MAX], buf[256];
	struct sched_list before;
	memset(ev, 0, sizeof *ev);
	util_strlcpy(ev->type, "scheduler", sizeof ev->type);
	util_strlcpy(ev->disk, disk, sizeof ev->disk);
	util_strlcpy(ev->to, sched, sizeof ev->to);
	ev->ts = util_real_now();
	ev->mono = util_mono_now();
	snprintf(path, sizeof path, "/sys/block/%s/queue/scheduler", disk);
	if (util_read_text(path, buf, sizeof buf) >= 0 && sched_parse(buf, &before) == 0 && sched_active(&before))
		util_strlcpy(ev->from, sched_active(&before), sizeof ev->from);

	int rc = 0;
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
	} else {
		ssize_t w = write(fd, sched, strlen(sched));
		if (w < 0)
			rc = -errno;
		close(fd);
	}
	double t1 = util_mono_now();
	ev->ms = (t1 - ev->mono) * 1e3;
	/* Mark the chart where the switch completed: that is when the new
	 * scheduler takes the requests. */
	ev->mono = t1;
	ev->ok = rc == 0;
	if (rc < 0)
		util_fmt(ev->error, sizeof ev->error, "cannot switch %s to %s: %s%s", disk, sched, strerror(-rc),
			 hint(-rc));
	return rc;
}
