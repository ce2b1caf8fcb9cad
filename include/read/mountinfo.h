/* mountinfo: the lines of /proc/self/mountinfo, the fields the tool uses:
 * which filesystems live on which disks (the probe's file mode) and where
 * the cgroup v2 hierarchy is mounted (the units pane). Read from the file
 * alone: no mount point is touched, so a hung network or FUSE mount
 * cannot stall the caller. */
#ifndef IOSCHED_MOUNTINFO_H
#define IOSCHED_MOUNTINFO_H

struct mountinfo_entry {
	unsigned major, minor;   /* st_dev of its files */
	char root[1024];         /* the part of the filesystem mounted ("/": all of it) */
	char point[1024];        /* where it is mounted, unescaped */
	char opts[256];          /* the mount's options ("rw,relatime") */
	char fstype[64];         /* "ext4", "cgroup2" */
	char source[1024];       /* "/dev/vda1", "cgroup2", unescaped */
};

/* Parse one line. Returns 0, or -1 when it is not a mountinfo line. */
int mountinfo_parse(const char *line, struct mountinfo_entry *m);

/* The first mount for which match() says yes, into out. Returns 0,
 * -ENOENT when none matches, or a negative errno when the file cannot be
 * read. */
int mountinfo_find(int (*match)(const struct mountinfo_entry *, const void *), const void *ctx,
		   struct mountinfo_entry *out);

#endif
