/* probedevice: the probe thread's device node (probeparts.h): the mode
 * chosen at the start (the node when it opens, else the files already on
 * the disk's filesystems, read only, or a file written to read from when
 * asked: probefile.h), the node opened for each paced read or
 * reopened every REOPEN_S for a stream, and a loop device's detach
 * watched so that the probe never holds a detached device alive. */
#include "probeparts.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "probe/probefile.h"
#include "base/util.h"

int probe_falls_back(int err)
{
	return err == EPERM || err == EACCES || err == ENOENT;
}

/* A loop device's autoclear flag (0/1), or -1 for other disks. */
/* The flag is read before each paced read: its sysfs file is kept open
 * and read again from offset 0 (sysfs makes the text anew each time; an
 * open attribute does not hold the device, and reads fail once it is
 * gone). Opening it each time was half of a paced read's cost. */
static int loop_autoclear(struct probe *p)
{
	char path[96], text[32];
	if (p->autoclear_fd < 0) {
		if (util_pathf(path, sizeof path, "/sys/block/%s/loop/autoclear", p->cfg.disk) < 0)
			return -1;
		p->autoclear_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (p->autoclear_fd < 0)
			return -1;
	}
	ssize_t n = pread(p->autoclear_fd, text, sizeof text - 1, 0);
	if (n <= 0) {
		close(p->autoclear_fd);
		p->autoclear_fd = -1;
		return -1;
	}
	text[n] = '\0';
	return strtoul(text, NULL, 10) != 0;
}

/* Let go of the device node, here and in the reader child. Returns 0, or
 * -1 when the reader is gone (the probe's end is recorded). */
int probedevice_close(struct probe *p, struct aioreader *io)
{
	if (p->fd < 0)
		return 0;
	int rc = aioreader_set_fd(io, -1);
	close(p->fd);
	p->fd = -1;
	if (rc < 0) {
		probestatus_end(p, "the reader process ended: %s", strerror(-rc));
		return -1;
	}
	return 0;
}

/* Open the device node, and hand it to the reader to keep (hand: a
 * back-to-back stream; a paced read takes it along, read_once in
 * probe.c). Returns 0, or -1 when the device is gone (the probe's end is
 * recorded). */
static int device_open(struct probe *p, struct aioreader *io, int hand)
{
	p->fd = open(p->st.path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	uint64_t bytes = 0;
	if (p->fd < 0 || ioctl(p->fd, BLKGETSIZE64, &bytes) != 0 || bytes < p->cfg.io_size) {
		probestatus_end(p, "device gone (%s); probe stopped",
				p->fd < 0 ? strerror(errno) : "its size is now below one read");
		if (p->fd >= 0)
			close(p->fd); /* a detached loop device opens: let it go */
		p->fd = -1;
		return -1;
	}
	p->span = bytes;
	p->opened = util_mono_now();
	int rc = hand ? aioreader_set_fd(io, p->fd) : 0;
	if (rc < 0) {
		probestatus_end(p, "cannot hand %s to the reader process: %s", p->st.path, strerror(-rc));
		return -1;
	}
	return 0;
}

/* Has a detach of the loop device been deferred for want of the last
 * close? Looked up before each paced read, every DETACH_POLL_S otherwise. */
int probedevice_detach_asked(struct probe *p, double rate)
{
	double now = util_mono_now();
	if (!p->detaching && p->autoclear0 == 0 && (rate > 0 || now - p->autoclear_checked >= DETACH_POLL_S)) {
		p->autoclear_checked = now;
		p->detaching = loop_autoclear(p) == 1;
	}
	return p->detaching;
}

/* Before a read in device mode: the node open, and no detach asked for.
 * Returns 0, or -1 when the probe ends. */
int probedevice_ready(struct probe *p, struct aioreader *io, double rate)
{
	double now = util_mono_now();
	if (probedevice_detach_asked(p, rate)) {
		probedevice_close(p, io);
		probestatus_end(p, "the loop device is being detached (losetup -d); probe stopped");
		return -1;
	}
	if (p->fd >= 0 && rate <= 0 && now - p->opened >= REOPEN_S && probedevice_close(p, io) < 0)
		return -1;
	return p->fd >= 0 ? 0 : device_open(p, io, rate <= 0);
}

/* Decide the mode: the device node when it opens, else a file. */
int probedevice_choose(struct probe *p, char *err, size_t len)
{
	snprintf(p->st.path, sizeof p->st.path, "/dev/%s", p->cfg.disk);
	if (p->cfg.file[0]) {
		p->st.mode = PROBE_MODE_FILE;
		util_fmt(p->st.why, sizeof p->st.why, "--probe-file %s", p->cfg.file);
		util_strlcpy(p->st.path, p->cfg.file, sizeof p->st.path);
		return 0;
	}
	p->fd = open(p->st.path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (p->fd >= 0) {
		uint64_t bytes = 0;
		if (ioctl(p->fd, BLKGETSIZE64, &bytes) != 0 || bytes < p->cfg.io_size) {
			snprintf(err, len, "%s: size %llu is below one probe read", p->st.path,
				 (unsigned long long)bytes);
			return -EINVAL;
		}
		p->span = bytes;
		p->opened = util_mono_now();
		p->autoclear0 = loop_autoclear(p);
		p->st.mode = PROBE_MODE_DEVICE;
		util_fmt(p->st.why, sizeof p->st.why, "reads %s", p->st.path);
		return 0;
	}
	int e = errno;
	if (!probe_falls_back(e)) {
		snprintf(err, len, "cannot open %s: %s", p->st.path, strerror(e));
		return -e;
	}
	if (!p->cfg.write_file) {
		/* Files already on the disk, read only (probefiles.c) */
		p->st.mode = PROBE_MODE_FILES;
		util_fmt(p->st.why, sizeof p->st.why, "%s: %s", p->st.path, strerror(e));
		p->st.path[0] = '\0';
		return 0;
	}
	char why[256];
	if (probefile_locate(p->cfg.disk, p->cfg.file, sizeof p->cfg.file, why, sizeof why) < 0) {
		/* EACCES is a permission the user can get; EPERM (a locked-down
		 * node) is not, and its own message says so. */
		snprintf(err, len, "cannot open %s (%s%s) and %s", p->st.path, strerror(e),
			 e == EACCES ? ": reading it needs root or its group, e.g. disk" : "", why);
		return -e;
	}
	p->st.mode = PROBE_MODE_FILE;
	util_fmt(p->st.why, sizeof p->st.why, "%s: %s; reads %s on its filesystem", p->st.path, strerror(e),
		 p->cfg.file);
	util_strlcpy(p->st.path, p->cfg.file, sizeof p->st.path);
	return 0;
}
