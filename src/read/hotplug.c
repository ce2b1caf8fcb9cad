/* hotplug: see include/read/hotplug.h */
#include "read/hotplug.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <libudev.h>

#include "base/util.h"

struct hotplug {
	struct udev_monitor *mon;
	int fd;
};

int hotplug_open(struct udev *udev, struct hotplug **out)
{
	*out = NULL;
	struct hotplug *h = calloc(1, sizeof *h);
	if (!h)
		return -ENOMEM;
	/* "kernel", not "udev": without a udev daemon (containers, this
	 * project's test machines) only the kernel's own events exist. */
	h->mon = udev_monitor_new_from_netlink(udev, "kernel");
	int rc = h->mon ? udev_monitor_filter_add_match_subsystem_devtype(h->mon, "block", "disk") : -ENOMEM;
	if (rc >= 0)
		rc = udev_monitor_enable_receiving(h->mon);
	if (rc < 0) {
		hotplug_close(h);
		return rc;
	}
	h->fd = udev_monitor_get_fd(h->mon);
	*out = h;
	return 0;
}

int hotplug_drain(struct hotplug *h)
{
	int n = 0;
	for (;;) {
		struct pollfd p = {.fd = h->fd, .events = POLLIN};
		if (poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN))
			return p.revents & POLLERR ? -ENOBUFS : n;
		errno = 0;
		struct udev_device *d = udev_monitor_receive_device(h->mon);
		if (!d) {
			/* EAGAIN: what was read was not for us (or was our own
			 * echo); anything else may have been an event: count it. */
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return errno == ENOBUFS ? -ENOBUFS : n + 1;
		}
		udev_device_unref(d);
		n++;
	}
}

void hotplug_close(struct hotplug *h)
{
	if (!h)
		return;
	if (h->mon)
		udev_monitor_unref(h->mon);
	free(h);
}

/* Each disk of a that b lacks (by name and size) becomes a change. */
static void missing(const struct disk_info *a, size_t na, const struct disk_info *b, size_t nb, int added,
		    struct hotplug_change *out, size_t max, size_t *n)
{
	for (size_t i = 0; i < na; i++) {
		size_t k = 0;
		while (k < nb && strcmp(b[k].name, a[i].name) != 0)
			k++;
		if (k < nb && b[k].size_bytes == a[i].size_bytes)
			continue;
		if (*n < max) {
			util_strlcpy(out[*n].name, a[i].name, sizeof out[*n].name);
			out[*n].added = added;
		}
		(*n)++;
	}
}

size_t hotplug_diff(const struct disk_info *old, size_t nold, const struct disk_info *cur, size_t ncur,
		    struct hotplug_change *out, size_t max)
{
	size_t n = 0;
	missing(old, nold, cur, ncur, 0, out, max, &n);
	missing(cur, ncur, old, nold, 1, out, max, &n);
	return n;
}
