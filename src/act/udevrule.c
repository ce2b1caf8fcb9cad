/* udevrule: see include/act/udevrule.h */
#include "act/udevrule.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libudev.h>

#include "base/safefile.h"
#include "base/beneath.h"
#include "base/util.h"

/* The marker line before each rule this tool writes: "# iosched-top: sda". */
#define MARK "# iosched-top: "
/* A disk's name or model, as long as either may be kept */
#define UDEVRULE_TEXT_MAX 256

void udevrule_ident(struct udev *udev, const char *disk, struct udevrule_ident *out)
{
	memset(out, 0, sizeof *out);
	util_strlcpy(out->name, disk, sizeof out->name);
	struct udev_device *d = udev ? udev_device_new_from_subsystem_sysname(udev, "block", disk) : NULL;
	if (!d)
		return;
	const char *v = udev_device_get_property_value(d, "ID_WWN");
	if (v)
		util_strlcpy(out->wwn, v, sizeof out->wwn);
	v = udev_device_get_property_value(d, "ID_SERIAL");
	if (v)
		util_strlcpy(out->serial, v, sizeof out->serial);
	udev_device_unref(d);
}

static int safe(const char *s)
{
	return !strpbrk(s, "\"\n\\");
}

int udevrule_line(const struct udevrule_ident *id, const char *sched, char *buf, size_t len)
{
	char match[300];
	/* A WWN or serial follows the disk when its kernel name changes
	 * (sda today, sdb after adding a disk); the name is the fallback. */
	if (id->wwn[0] && safe(id->wwn))
		util_fmt(match, sizeof match, "ENV{ID_WWN}==\"%s\"", id->wwn);
	else if (id->serial[0] && safe(id->serial))
		util_fmt(match, sizeof match, "ENV{ID_SERIAL}==\"%s\"", id->serial);
	else if (safe(id->name))
		util_fmt(match, sizeof match, "KERNEL==\"%s\"", id->name);
	else
		return -EINVAL;
	if (!safe(sched) || !*sched)
		return -EINVAL;
	util_fmt(buf, len, "ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"disk\", %s, ATTR{queue/scheduler}=\"%s\"",
		 match, sched);
	return 0;
}

void udevrule_heading(const char *disk, const char *what, char *buf, size_t len)
{
	char d[3 * UDEVRULE_TEXT_MAX], w[3 * UDEVRULE_TEXT_MAX];
	util_safe_text(d, sizeof d, disk);
	util_safe_text(w, sizeof w, what);
	util_fmt(buf, len, "# %s (%s)", d, w);
}

void udevrule_found_line(const struct udevrule_found *x, char *buf, size_t len)
{
	char file[3 * sizeof x->file], text[3 * sizeof x->text];
	util_safe_text(file, sizeof file, x->file);
	util_safe_text(text, sizeof text, x->text);
	util_fmt(buf, len, "#   already set by %s:%u: %s", file, x->line, text);
}

static int have_any(const char *const *paths)
{
	for (size_t i = 0; paths[i]; i++)
		if (access(paths[i], X_OK) == 0)
			return 1;
	return 0;
}

int udevrule_absent(void)
{
	static const char *const udevadm[] = {"/usr/bin/udevadm", "/bin/udevadm", "/usr/sbin/udevadm", "/sbin/udevadm",
					      NULL};
	return access("/etc/udev", F_OK) != 0 || !have_any(udevadm);
}

static int have_tmpfiles(void)
{
	static const char *const tmpfiles[] = {"/usr/bin/systemd-tmpfiles", "/bin/systemd-tmpfiles", NULL};
	return have_any(tmpfiles);
}

void udevrule_fallback(const char *disk, const char *sched, char *buf, size_t len)
{
	if (have_tmpfiles())
		util_fmt(buf, len, "w /sys/block/%s/queue/scheduler - - - - %s", disk, sched);
	else
		util_fmt(buf, len, "echo %s > /sys/block/%s/queue/scheduler", sched, disk);
}

void udevrule_note(const char *file, const char *disk, const char *sched, char *buf, size_t len)
{
	if (udevrule_absent()) {
		char line[200] = "what follows \"without udev:\" under each disk above";
		if (disk && sched) {
			char alt[160];
			udevrule_fallback(disk, sched, alt, sizeof alt);
			util_fmt(line, sizeof line, "\"%s\"", alt);
		}
		if (have_tmpfiles())
			util_fmt(buf, len,
				 "udev does not run here (no udevadm or no /etc/udev): a rule in %s would never be read. "
				 "What works here: systemd-tmpfiles writes the scheduler at boot; put %s in "
				 "/etc/tmpfiles.d/iosched-top.conf (systemd-tmpfiles --create /etc/tmpfiles.d/iosched-top.conf "
				 "applies it now). It names the disk by its kernel name, which can change between boots, "
				 "where a rule would follow the disk.",
				 file, line);
		else
			util_fmt(buf, len,
				 "udev does not run here (no udevadm or no /etc/udev): a rule in %s would never be read. "
				 "What works here: %s in what the system runs at boot (/etc/rc.local, say). It names "
				 "the disk by its kernel name, which can change between boots.",
				 file, line);
		return;
	}
	util_fmt(buf, len,
		 "File: %s. udev reads all rules files in the lexical order of their names, whatever their "
		 "directory (a file in /etc hides one of the same name in /usr/lib), and the last assignment "
		 "wins: the 60- prefix runs after most distribution rules; if a file listed above with a higher "
		 "number also sets queue/scheduler, rename this one to sort after it. Apply without a reboot: "
		 "udevadm control --reload && udevadm trigger --subsystem-match=block --action=change",
		 file);
}

/* The quoted value after key== in line, or NULL. */
static int value_of(const char *line, const char *key, char *out, size_t len)
{
	const char *p = strstr(line, key);
	if (!p)
		return -1;
	p += strlen(key);
	while (*p == ' ')
		p++;
	if (strncmp(p, "==", 2) != 0)
		return -1;
	p += 2;
	while (*p == ' ')
		p++;
	if (*p != '"')
		return -1;
	const char *end = strchr(++p, '"');
	if (!end)
		return -1;
	size_t n = (size_t)(end - p) < len - 1 ? (size_t)(end - p) : len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

/* Whether a scheduler-setting line applies to this disk. */
static int applies(const char *line, const struct udevrule_ident *id)
{
	char v[256];
	int matched_something = 0;
	if (value_of(line, "KERNEL", v, sizeof v) == 0) {
		matched_something = 1;
		/* udev patterns are shell globs with | for alternatives */
		char *save = NULL;
		for (char *alt = strtok_r(v, "|", &save); alt; alt = strtok_r(NULL, "|", &save))
			if (fnmatch(alt, id->name, 0) == 0)
				return 1;
	}
	if (value_of(line, "ENV{ID_SERIAL}", v, sizeof v) == 0) {
		matched_something = 1;
		if (id->serial[0] && fnmatch(v, id->serial, 0) == 0)
			return 1;
	}
	if (value_of(line, "ENV{ID_WWN}", v, sizeof v) == 0) {
		matched_something = 1;
		if (id->wwn[0] && fnmatch(v, id->wwn, 0) == 0)
			return 1;
	}
	/* A rule that names no device applies to every disk it reaches
	 * (e.g. by rotational or driver): report it too. */
	return !matched_something;
}

static void scan_file(const char *path, const struct udevrule_ident *id, struct udevrule_found *out, size_t max,
		      size_t *n)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	char line[1024];
	unsigned no = 0;
	while (*n < max && fgets(line, sizeof line, f)) {
		no++;
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || !strstr(p, "queue/scheduler") || !strstr(p, "ATTR{queue/scheduler}=") ||
		    !applies(p, id))
			continue;
		util_strlcpy(out[*n].file, path, sizeof out[*n].file);
		out[*n].line = no;
		util_strlcpy(out[*n].text, util_trim(line), sizeof out[*n].text);
		(*n)++;
	}
	fclose(f);
}

static int rules_only(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return n > 6 && strcmp(d->d_name + n - 6, ".rules") == 0;
}

size_t udevrule_find(const char *const *dirs, const struct udevrule_ident *id, struct udevrule_found *out,
		     size_t max)
{
	static const char *const standard[] = {"/etc/udev/rules.d", "/run/udev/rules.d", "/usr/lib/udev/rules.d",
					       "/lib/udev/rules.d", NULL};
	size_t n = 0;
	char seen[4][PATH_MAX] = {{0}};
	for (size_t d = 0; (dirs ? dirs : standard)[d] && n < max; d++) {
		const char *dir = (dirs ? dirs : standard)[d];
		/* /lib is often a link to /usr/lib: do not report a file twice. */
		char real[PATH_MAX];
		if (!realpath(dir, real))
			continue;
		int dup = 0;
		for (size_t k = 0; k < 4 && k < d; k++)
			dup |= strcmp(seen[k], real) == 0;
		if (d < 4)
			util_strlcpy(seen[d], real, sizeof seen[d]);
		if (dup)
			continue;
		struct dirent **names;
		int k = scandir(dir, &names, rules_only, alphasort);
		for (int i = 0; i < k; i++) {
			char path[PATH_MAX];
			if (util_pathf(path, sizeof path, "%s/%s", dir, names[i]->d_name) == 0)
				scan_file(path, id, out, max, &n);
			free(names[i]);
		}
		if (k >= 0)
			free(names);
	}
	return n;
}

/* The largest rules file rewritten: a larger one is refused, never cut. */
#define RULES_MAX_BYTES (4u << 20)

/* The existing file without this tool's block for id->name, whole: read
 * through no symlink (a root-only file's content would land in a 0644
 * rules file), a regular file only, all of it or nothing. *mode gets its
 * mode (0644 for a new file). Returns the text (*len bytes) or NULL with
 * why in err. */
/* Whether an existing rules file may be rewritten by this user: it must be
 * its own, with no other name, and nobody else could have written it (root
 * rewriting a file another user controls would make that user's lines
 * root's). Returns 0, or -EPERM with why in err. */
static int may_rewrite(const char *file, const struct stat *st, char *err, size_t elen)
{
	if (st->st_uid != geteuid())
		util_fmt(err, elen, "%s: belongs to uid %u, not to this user: not rewritten (its lines would become "
			 "this user's)", file, (unsigned)st->st_uid);
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		util_fmt(err, elen, "%s: can be written by others (mode %04o): another user could have put lines in it; "
			 "not rewritten (check it, then chmod go-w it)", file, (unsigned)(st->st_mode & 07777));
	else if (st->st_nlink > 1)
		util_fmt(err, elen, "%s: has %lu hard links: not rewritten", file, (unsigned long)st->st_nlink);
	else
		return 0;
	return -EPERM;
}

static char *read_without(int dirfd, const char *base, const char *file, const char *name, size_t *len, mode_t *mode,
			  char *err, size_t elen)
{
	*len = 0;
	*mode = 0644;
	/* nothing but a regular file is opened (a FIFO in a sticky
	 * directory would release its writer) */
	struct stat st;
	int fd = beneath_open_file(dirfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, &st);
	if (fd == -ENOENT)
		return calloc(1, 1);
	if (fd < 0 || (uint64_t)st.st_size > RULES_MAX_BYTES) {
		util_fmt(err, elen, "%s: %s", file, fd == -ELOOP ? "is a symbolic link: not followed, not rewritten" :
						  fd == -EINVAL ? "not a regular file: not rewritten" :
						  fd < 0 ? strerror(-fd) : "larger than 4 MiB: not rewritten");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (may_rewrite(file, &st, err, elen) < 0) {
		close(fd);
		return NULL;
	}
	/* the mode it had, but never setuid, setgid, sticky or writable by
	 * group or others: 0640 stays 0640, 4755 becomes 0755 */
	*mode = st.st_mode & 0755;
	char *in = malloc((size_t)st.st_size + 1), *text = malloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (in && text && got < (size_t)st.st_size) {
		ssize_t r = read(fd, in + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (!in || !text || got != (size_t)st.st_size) {
		util_fmt(err, elen, "%s: %s: not rewritten", file, !in || !text ? "out of memory" : "changed while read");
		free(in);
		free(text);
		return NULL;
	}
	in[got] = '\0';
	char mark[128];
	util_fmt(mark, sizeof mark, MARK "%s", name);
	/* line by line, whole lines of any length: our marker and the rule
	 * line after it go, everything else stays as it was */
	int skip = 0;
	for (char *l = in, *nl; l < in + got; l = nl ? nl + 1 : in + got) {
		nl = memchr(l, '\n', (size_t)(in + got - l));
		size_t n = nl ? (size_t)(nl - l) : (size_t)(in + got - l);
		if (skip) { /* the rule line after our marker */
			skip = 0;
			continue;
		}
		if (n == strlen(mark) && memcmp(l, mark, n) == 0) {
			skip = 1;
			continue;
		}
		memcpy(text + *len, l, n);
		*len += n;
		text[(*len)++] = '\n';
	}
	free(in);
	return text;
}

int udevrule_write(const char *file, const struct udevrule_ident *id, const char *rule, char *err, size_t len)
{
	size_t n;
	mode_t mode;
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	if (strlen(base) > NAME_MAX || strlen(file) >= PATH_MAX) {
		util_fmt(err, len, "%.80s...: the name is too long for a file", file);
		return -ENAMETOOLONG;
	}
	struct safefile_dir d;
	char why[300], tmp[NAME_MAX + 1];
	int rc = safefile_dir_open(&d, file, why, sizeof why);
	if (rc < 0) {
		util_fmt(err, len, "cannot write %s: %s", file, why);
		return rc;
	}
	char *text = read_without(d.fd, d.base, file, id->name, &n, &mode, err, len);
	if (!text) {
		safefile_dir_close(&d);
		return -EINVAL;
	}
	/* the mode it had (0640 stays 0640); 0644 for a new one, as udev's */
	FILE *f = safefile_temp_stream(&d, mode, tmp, sizeof tmp, &rc);
	if (!f) {
		util_fmt(err, len, "cannot write in %s: %s%s", d.path, strerror(-rc), -rc == EACCES ? " (needs root)" : "");
		safefile_dir_close(&d);
		free(text);
		return rc;
	}
	if (n == 0)
		fputs("# Written by iosched-top: I/O schedulers kept across reboots. Edit freely.\n", f);
	fwrite(text, 1, n, f);
	fprintf(f, MARK "%s\n%s\n", id->name, rule);
	/* Checked again just before the rename: what was read may have been
	 * swapped since for a file that is not ours to replace. */
	why[0] = '\0';
	rc = safefile_finish_replace(&d, f, tmp, why, sizeof why);
	safefile_dir_close(&d);
	if (rc < 0)
		util_fmt(err, len, "%s", why[0] ? why : strerror(-rc));
	free(text);
	return rc;
}
