/* disk: see include/read/disk.h */
#include "read/disk.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libudev.h>

#include "base/util.h"

static const char *const kind_names[] = {
	[DISK_NVME] = "nvme", [DISK_SCSI] = "sata/scsi", [DISK_VIRTIO] = "virtio",
	[DISK_USB] = "usb",   [DISK_MMC] = "mmc",        [DISK_LOOP] = "loop",
	[DISK_DM] = "dm",     [DISK_MD] = "md",          [DISK_ZRAM] = "zram",
	[DISK_OTHER] = "other",
};

const char *disk_kind_name(enum disk_kind k)
{
	return (unsigned)k <= DISK_OTHER ? kind_names[k] : "other";
}

static int has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

enum disk_kind disk_classify(const char *name, const char *driver, const char *id_bus,
			     const char *syspath)
{
	/* Name prefixes of virtual devices are fixed by their drivers. */
	if (has_prefix(name, "loop"))
		return DISK_LOOP;
	if (has_prefix(name, "dm-"))
		return DISK_DM;
	if (has_prefix(name, "zram"))
		return DISK_ZRAM;
	if (has_prefix(name, "md"))
		return DISK_MD;
	/* USB before the name: a USB stick is an sd device too. */
	if ((id_bus && strcmp(id_bus, "usb") == 0) || (syspath && strstr(syspath, "/usb")))
		return DISK_USB;
	if (has_prefix(name, "nvme") || (driver && strcmp(driver, "nvme") == 0))
		return DISK_NVME;
	if (has_prefix(name, "mmcblk") || (driver && strcmp(driver, "mmcblk") == 0))
		return DISK_MMC;
	if (has_prefix(name, "vd") || (driver && strcmp(driver, "virtio_blk") == 0))
		return DISK_VIRTIO;
	if (has_prefix(name, "sd") || (id_bus && (strcmp(id_bus, "ata") == 0 || strcmp(id_bus, "scsi") == 0)))
		return DISK_SCSI;
	return DISK_OTHER;
}

static int64_t queue_attr(const char *name, const char *attr)
{
	char path[PATH_MAX];
	uint64_t v;
	snprintf(path, sizeof path, "/sys/block/%s/queue/%s", name, attr);
	if (util_read_u64(path, &v) < 0 || v > INT64_MAX)
		return -1;
	return (int64_t)v;
}

int disk_refresh(struct disk_info *d)
{
	char path[PATH_MAX], buf[256];
	uint64_t sectors;
	snprintf(path, sizeof path, "/sys/block/%s/size", d->name);
	int rc = util_read_u64(path, &sectors);
	if (rc < 0)
		return rc == -ENOENT ? -ENOENT : rc;
	d->size_bytes = sectors * 512; /* sysfs size is in 512-byte units always */
	if (!sectors && has_prefix(d->name, "loop")) {
		d->sched.active = -1; /* a loop device with no file: not listed */
		return 0;
	}

	snprintf(path, sizeof path, "/sys/block/%s/queue/scheduler", d->name);
	if (util_read_text(path, buf, sizeof buf) < 0 || sched_parse(buf, &d->sched) < 0) {
		memset(&d->sched, 0, sizeof d->sched);
		d->sched.active = -1;
	}
	d->nr_requests = queue_attr(d->name, "nr_requests");
	d->read_ahead_kb = queue_attr(d->name, "read_ahead_kb");
	d->wbt_lat_usec = queue_attr(d->name, "wbt_lat_usec");
	int64_t rot = queue_attr(d->name, "rotational");
	d->rotational = rot < 0 ? -1 : rot != 0;
	snprintf(path, sizeof path, "/sys/block/%s/queue/zoned", d->name);
	d->zoned = util_read_text(path, buf, sizeof buf) > 0 && strncmp(buf, "host-", 5) == 0;
	int64_t lbs = queue_attr(d->name, "logical_block_size");
	d->logical_block = lbs > 0 ? (unsigned)lbs : 0;
	return 0;
}

/* Model from sysfs when udev has no ID_MODEL: device/model (scsi, nvme,
 * mmc "name"), prefixed by device/vendor where that adds something. */
static void model_from_sysfs(const char *name, char *model, size_t len)
{
	char path[PATH_MAX], m[128] = "", v[64] = "";
	snprintf(path, sizeof path, "/sys/block/%s/device/model", name);
	if (util_read_text(path, m, sizeof m) < 0) {
		snprintf(path, sizeof path, "/sys/block/%s/device/name", name);
		if (util_read_text(path, m, sizeof m) < 0)
			m[0] = '\0';
	}
	util_trim(m);
	if (m[0] == '\0')
		return;
	snprintf(path, sizeof path, "/sys/block/%s/device/vendor", name);
	if (util_read_text(path, v, sizeof v) >= 0)
		util_trim(v);
	/* virtio's "vendor" is a PCI id like 0x1af4, noise in a model column. */
	if (v[0] && strncmp(v, "0x", 2) != 0 && strncasecmp(m, v, strlen(v)) != 0 &&
	    strcmp(v, "ATA") != 0)
	{
		/* A model cut to the column is still useful: truncation is fine. */
		if (snprintf(model, len, "%s %s", v, m) >= (int)len)
			model[len - 1] = '\0';
	} else
		util_strlcpy(model, m, len);
}

static void parent_driver(const char *name, char *driver, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	driver[0] = '\0';
	snprintf(path, sizeof path, "/sys/block/%s/device/driver", name);
	ssize_t n = readlink(path, target, sizeof target - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	util_strlcpy(driver, basename(target), len);
}

static void udev_model(struct udev_device *dev, char *model, size_t len)
{
	const char *m = udev_device_get_property_value(dev, "ID_MODEL");
	if (!m || !*m)
		return;
	/* ID_MODEL replaces blanks with '_'; put them back for display. */
	util_strlcpy(model, m, len);
	for (char *p = model; *p; p++)
		if (*p == '_')
			*p = ' ';
}

int disk_is_virtual(const struct disk_info *d)
{
	return d->kind == DISK_LOOP || d->kind == DISK_DM || d->kind == DISK_MD || d->kind == DISK_ZRAM ||
	       strncmp(d->name, "ram", 3) == 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

int disk_why_hidden(const struct disk_info *d, int readonly, const char *backing, char *why, size_t len)
{
	const char *w = "";
	if (d->kind == DISK_LOOP && readonly)
		w = "a read-only loop device";
	else if (d->kind == DISK_LOOP && backing && (ends_with(backing, ".snap") || ends_with(backing, ".squashfs")))
		w = "a loop device of a squashfs image";
	else if (d->kind == DISK_ZRAM)
		w = "zram";
	else if (strncmp(d->name, "ram", 3) == 0)
		w = "a RAM disk";
	else if (d->kind == DISK_DM || d->kind == DISK_MD)
		w = "stacked on other disks";
	util_strlcpy(why, w, len);
	return w[0] != '\0';
}

/* The ro attribute and, for a loop device, its backing file's path. */
static void hidden_facts(const char *name, int *readonly, char *backing, size_t len)
{
	char path[PATH_MAX];
	uint64_t ro = 0;
	snprintf(path, sizeof path, "/sys/block/%s/ro", name);
	*readonly = util_read_u64(path, &ro) == 0 && ro != 0;
	snprintf(path, sizeof path, "/sys/block/%s/loop/backing_file", name);
	if (util_read_text(path, backing, len) < 0)
		backing[0] = '\0';
	util_trim(backing);
}

/* Disk name's facts; dev: its udev device (NULL: none, then sysfs only). */
static int fill_disk(struct udev *udev, const char *name, struct disk_info *d)
{
	memset(d, 0, sizeof *d);
	util_strlcpy(d->name, name, sizeof d->name);
	if (disk_refresh(d) < 0)
		return -ENOENT;
	if (!d->size_bytes && has_prefix(d->name, "loop")) {
		d->kind = DISK_LOOP; /* no file: left out, nothing more read */
		return 0;
	}
	char driver[64], path[PATH_MAX], real[PATH_MAX];
	parent_driver(d->name, driver, sizeof driver);
	struct udev_device *dev = udev_device_new_from_subsystem_sysname(udev, "block", name);
	const char *syspath = dev ? udev_device_get_syspath(dev) : NULL;
	snprintf(path, sizeof path, "/sys/block/%s", name);
	if (!syspath && realpath(path, real))
		syspath = real;
	d->kind = disk_classify(d->name, driver, dev ? udev_device_get_property_value(dev, "ID_BUS") : NULL, syspath);
	if (dev)
		udev_model(dev, d->model, sizeof d->model);
	udev_device_unref(dev);
	if (!d->model[0])
		model_from_sysfs(d->name, d->model, sizeof d->model);
	int ro;
	char backing[PATH_MAX];
	hidden_facts(d->name, &ro, backing, sizeof backing);
	disk_why_hidden(d, ro, backing[0] ? backing : NULL, d->hidden, sizeof d->hidden);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strverscmp(((const struct disk_info *)a)->name, ((const struct disk_info *)b)->name);
}

/* /sys/block lists the whole disks (partitions live inside their disk's
 * directory), as a udev walk matching DEVTYPE=disk would, without that
 * walk's cost: it reads every block device's uevent and resolves each
 * path a name at a time, and was most of a run's start (`-b -n 1`). */
int disk_scan(struct udev *udev, struct disk_info **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	DIR *dir = opendir("/sys/block");
	if (!dir)
		return -errno;
	size_t cap = 0;
	struct disk_info *list = NULL, d;
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof d.name)
			continue;
		if (fill_disk(udev, e->d_name, &d) != 0 || (d.kind == DISK_LOOP && d.size_bytes == 0))
			continue; /* gone since the listing, or a loop device with no file */
		if (util_grow((void **)&list, &cap, *n + 1, sizeof *list) < 0) {
			free(list);
			closedir(dir);
			return -ENOMEM;
		}
		list[(*n)++] = d;
	}
	closedir(dir);
	qsort(list, *n, sizeof *list, by_name);
	*out = list;
	return 0;
}

int disk_partition_parent(const char *name, char *parent, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX];
	if (strchr(name, '/') || !*name)
		return -EINVAL;
	snprintf(path, sizeof path, "/sys/class/block/%s", name);
	if (!realpath(path, real))
		return -errno;
	int w = snprintf(path, sizeof path, "%s/partition", real);
	if (w < 0 || (size_t)w >= sizeof path)
		return -ENAMETOOLONG;
	if (access(path, F_OK) != 0)
		return 0;
	/* A partition's sysfs directory sits inside its disk's. */
	char *slash = strrchr(real, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	util_strlcpy(parent, basename(real), len);
	return 1;
}
