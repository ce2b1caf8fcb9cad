/* sampledisks: which disks a sample shows and probes, and their
 * enumeration and hot-plug (sampleparts.h). */
#include "model/sample.h"

#include <limits.h>
#include <sys/sysmacros.h>
#include <stdlib.h>
#include <string.h>
#include "read/hotplug.h"
#include "probe/probefile.h"
#include "read/mountinfo.h"
#include "sampleparts.h"
#include "base/util.h"

/* Enumerate the disks again at least this often even without a uevent. */
#define RESCAN_S 30.0

static int in_list(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return 1;
	return 0;
}

int sampledisks_wanted(const struct sampler *s, const char *name)
{
	return !s->cfg.only || in_list(s->cfg.only, s->cfg.nonly, name);
}

/* Shown: the disks --disk names (a hidden one too: the user asked for
 * it), else every disk but those hidden by default (disk.h) unless
 * --all-disks or x asks for them, or --probe names them. */
int sampledisks_shown(const struct sampler *s, const struct disk_info *d)
{
	if (s->cfg.only)
		return in_list(s->cfg.only, s->cfg.nonly, d->name);
	return !d->hidden[0] || s->cfg.all_disks || s->show_hidden ||
	       (s->cfg.probe_only && in_list(s->cfg.probe_only, s->cfg.nprobe_only, d->name));
}

int sampledisks_asked(const struct sampler *s, const char *name)
{
	for (size_t i = 0; i < s->nasked; i++)
		if (strcmp(s->asked[i], name) == 0)
			return 1;
	return 0;
}

int sampler_wants_probe(const struct sampler *s, const struct disk_info *d)
{
	if (s->held[0] && strcmp(s->held, d->name) == 0)
		return 0;
	if (sampledisks_asked(s, d->name))
		return 1;
	if (!s->cfg.probe)
		return 0;
	if (s->cfg.probe_file_disk && strcmp(s->cfg.probe_file_disk, d->name) == 0)
		return 1;
	if (s->cfg.probe_only)
		return in_list(s->cfg.probe_only, s->cfg.nprobe_only, d->name);
	if (d->sched.n == 0 || d->size_bytes == 0)
		return 0;
	/* By default only real disks: sixteen snap loops probed at 20 Hz
	 * each read the disk their files live on 320 times a second. A disk
	 * named with --disk is probed whatever it is. */
	return !disk_is_virtual(d) || (s->cfg.only && in_list(s->cfg.only, s->cfg.nonly, d->name));
}

/* Disks that came or went since the last enumeration, as events; with
 * --disk only the disks named (a snap's loop device coming and going is
 * noise to someone watching sda). */
static void post_disk_changes(struct sampler *s, const struct disk_info *cur, size_t ncur)
{
	struct hotplug_change ch[16];
	size_t n = hotplug_diff(s->disks, s->ndisks, cur, ncur, ch, 16);
	for (size_t i = 0; i < n && i < 16; i++) {
		const struct disk_info *d = NULL;
		for (size_t k = 0; !d && k < ncur; k++)
			if (!strcmp(cur[k].name, ch[i].name))
				d = &cur[k];
		for (size_t k = 0; !d && k < s->ndisks; k++)
			if (!strcmp(s->disks[k].name, ch[i].name))
				d = &s->disks[k];
		if (d ? !sampledisks_shown(s, d) : !sampledisks_wanted(s, ch[i].name))
			continue;
		struct event e = {.ts = util_real_now(), .mono = util_mono_now(), .ok = 1};
		e.type = EV_DISK;
		util_strlcpy(e.disk, ch[i].name, sizeof e.disk);
		util_strlcpy(e.from, ch[i].added ? "absent" : "present", sizeof e.from);
		util_strlcpy(e.to, ch[i].added ? "present" : "absent", sizeof e.to);
		eventlog_add(&s->events, &e);
	}
}

/* The mount a path is under: the one whose mount point is its longest
 * prefix (the last such, as a later mount hides an earlier one there). */
struct mount_of {
	const char *path;
	size_t len;
	unsigned major, minor;
	int found;
};

static int note_mount(const struct mountinfo_entry *m, const void *ctx)
{
	struct mount_of *w = (struct mount_of *)ctx; /* sampledisks' own, passed through */
	size_t n = strlen(m->point);
	int under = !strncmp(w->path, m->point, n) && (w->path[n] == '/' || !w->path[n] || !strcmp(m->point, "/"));
	if (under && (!w->found || n >= w->len)) {
		*w = (struct mount_of){.path = w->path, .len = n, .major = m->major, .minor = m->minor, .found = 1};
	}
	return 0; /* every mount looked at */
}

/* Whether loop device name hands its requests to the disk below as they
 * are (direct I/O: the same bytes, charged to the same process there);
 * one without writes into its file's page cache, and what reaches the
 * disk below is writeback, a flusher's. */
static int loop_direct(const char *name)
{
	char path[PATH_MAX];
	uint64_t dio = 0;
	return util_pathf(path, sizeof path, "/sys/block/%s/loop/dio", name) == 0 && util_read_u64(path, &dio) == 0 &&
	       dio == 1;
}

/* Each loop device's disk below: the whole disk of the filesystem its
 * backing file is on, from the mount table, not from the file (a stat
 * of a path in a user's FUSE mount may never return); "" for none
 * (tmpfs, FUSE: the loop device is then the bottom), and for a loop
 * device without direct I/O: its writers are counted there, as the
 * writeback below is no one's the block layer can name (counted at the
 * bottom, they were hidden). "to disks" counts a byte at the bottom. */
static void settle_below(struct disk_info *disks, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX], file[PATH_MAX];
		disks[i].below[0] = '\0';
		disks[i].loop_dio = disks[i].kind == DISK_LOOP && loop_direct(disks[i].name);
		if (!disks[i].loop_dio ||
		    util_pathf(path, sizeof path, "/sys/block/%s/loop/backing_file", disks[i].name) < 0 ||
		    util_read_text(path, file, sizeof file) <= 0)
			continue;
		util_trim(file);
		struct mount_of w = {.path = file};
		struct mountinfo_entry m;
		mountinfo_find(note_mount, &w, &m);
		if (!w.found || !w.major || probefile_whole_disk(makedev(w.major, w.minor), disks[i].below,
								sizeof disks[i].below) < 0 || !strcmp(disks[i].below, disks[i].name))
			disks[i].below[0] = '\0';
	}
}

/* Bring s->disks up to date. Enumerating every disk (a udev walk and
 * several sysfs files per disk) happens only when the monitor saw an
 * event, a known disk is gone or emptied, a loop device's direct I/O was
 * turned on or off (no event says so, and it moves where its writers are
 * counted), there is no monitor, or RESCAN_S passed (in case an event
 * was missed); otherwise only the settings that change at run time are
 * read again. */
int sampledisks_update(struct sampler *s, double now)
{
	int rescan = !s->have_disks || !s->hotplug || hotplug_drain(s->hotplug) != 0 || now - s->scanned >= RESCAN_S;
	for (size_t i = 0; i < s->ndisks && !rescan; i++) {
		const struct disk_info *d = &s->disks[i];
		rescan = disk_refresh(&s->disks[i]) < 0 ||
			 (d->kind == DISK_LOOP && (!d->size_bytes || loop_direct(d->name) != d->loop_dio));
	}
	if (!rescan)
		return 0;
	struct disk_info *disks;
	size_t n;
	int rc = disk_scan(s->udev, &disks, &n);
	if (rc < 0)
		return rc;
	settle_below(disks, n);
	if (s->have_disks)
		post_disk_changes(s, disks, n);
	free(s->disks);
	s->disks = disks;
	s->ndisks = n;
	s->have_disks = 1;
	s->scanned = now;
	return 0;
}

