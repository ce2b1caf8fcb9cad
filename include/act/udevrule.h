/* udevrule: make a scheduler choice survive a reboot. Builds the udev rule
 * for a disk (matched by ID_WWN or ID_SERIAL where udev knows them, by
 * kernel name otherwise), finds rule files that already assign a scheduler
 * to it, and writes the tool's own rules file atomically. */
#ifndef IOSCHED_UDEVRULE_H
#define IOSCHED_UDEVRULE_H

#include <stddef.h>

#define UDEVRULE_DEFAULT_FILE "/etc/udev/rules.d/60-iosched-top.rules"

struct udev;

struct udevrule_ident {
	char name[32];
	char wwn[128];      /* ID_WWN, or "" */
	char serial[160];   /* ID_SERIAL, or "" */
};

struct udevrule_found {
	char file[256];
	unsigned line;
	char text[256];
};

/* What udev knows of disk (empty fields without a udev daemon). */
void udevrule_ident(struct udev *udev, const char *disk, struct udevrule_ident *out);

/* The rule line: ACTION=="add|change", SUBSYSTEM=="block",
 * ENV{DEVTYPE}=="disk", then ENV{ID_WWN}==, ENV{ID_SERIAL}== or KERNEL==,
 * then ATTR{queue/scheduler}="SCHED". Returns 0, or -EINVAL when a value
 * cannot be put in a rule safely (a quote or a newline in it). */
int udevrule_line(const struct udevrule_ident *id, const char *sched, char *buf, size_t len);

/* The comment lines printed with a rule (--print-udev-rule): "# DISK
 * (WHAT)" and "#   already set by FILE:LINE: TEXT", each one line, without
 * its newline, whatever its texts hold: they are escaped (a model string
 * with a newline would add a line of its own to the rules file the output
 * is redirected into). */
void udevrule_heading(const char *disk, const char *what, char *buf, size_t len);
void udevrule_found_line(const struct udevrule_found *x, char *buf, size_t len);

/* The explanation shown with a rule: where it goes, rule order, how to
 * apply; where udev does not run (udevrule_absent), that a rule would do
 * nothing and what does instead, for disk's scheduler sched (NULL: every
 * disk's, as the lines above give them). */
void udevrule_note(const char *file, const char *disk, const char *sched, char *buf, size_t len);

/* Whether udev does not run here: no udevadm, or no /etc/udev (a
 * container, a minimal system). A rule would never be read. */
int udevrule_absent(void);

/* What keeps disk on sched across reboots without udev: a systemd-tmpfiles
 * line ("w /sys/block/sda/queue/scheduler - - - - bfq") where there is
 * systemd-tmpfiles, else the echo for a boot script. */
void udevrule_fallback(const char *disk, const char *sched, char *buf, size_t len);

/* Scan the rules directories (dirs: NULL-terminated; NULL for udev's
 * own: /etc/udev/rules.d, /run/udev/rules.d, /usr/lib/udev/rules.d,
 * /lib/udev/rules.d) for lines that assign queue/scheduler and would match
 * this disk (its kernel name by pattern, its serial or WWN, or no device
 * match at all). Returns how many were written to out. */
size_t udevrule_find(const char *const *dirs, const struct udevrule_ident *id, struct udevrule_found *out,
		     size_t max);

/* Put the rule for id.name into file (replacing an earlier one of this
 * tool for the same disk, keeping everything else), atomically: a
 * temporary file in the same directory, fsync, rename. Returns 0 or a
 * negative errno with why in err. */
int udevrule_write(const char *file, const struct udevrule_ident *id, const char *rule, char *err, size_t len);

#endif
