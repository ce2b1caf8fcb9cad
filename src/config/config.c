/* config: see include/config/config.h */
#include "config/config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/safefile.h"
#include "base/beneath.h"
#include "base/util.h"

#define CONFIG_MAX_BYTES (64 * 1024)

int config_locate(char *path, size_t len, uid_t *uid, gid_t *gid)
{
	*uid = getuid();
	*gid = getgid();
	const char *sudo_user = getenv("SUDO_USER"), *sudo_uid = getenv("SUDO_UID"), *sudo_gid = getenv("SUDO_GID");
	/* sudo keeps root's environment: the invoking user's home, not root's. */
	if (geteuid() == 0 && sudo_user && sudo_uid && sudo_gid && strtoul(sudo_uid, NULL, 10) != 0) {
		struct passwd *pw = getpwnam(sudo_user);
		if (pw && pw->pw_dir) {
			*uid = (uid_t)strtoul(sudo_uid, NULL, 10);
			*gid = (gid_t)strtoul(sudo_gid, NULL, 10);
			util_fmt(path, len, "%s/.config/iosched-top/config", pw->pw_dir);
			return 0;
		}
	}
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg && xdg[0] == '/') {
		util_fmt(path, len, "%s/iosched-top/config", xdg);
		return 0;
	}
	if (home && *home) {
		util_fmt(path, len, "%s/.config/iosched-top/config", home);
		return 0;
	}
	return -ENOENT;
}

/* One line: "name", "name value" or "name = value"; "--" optional. */
static int parse_line(char *line, struct config_entry *e, char *what, size_t len)
{
	char *t = util_trim(line);
	if (t[0] == '-' && t[1] == '-')
		t += 2;
	size_t n = strcspn(t, " \t=");
	if (n == 0 || n >= sizeof e->name) {
		util_strlcpy(what, "expected an option name (as on the command line, without --)", len);
		return -1;
	}
	memcpy(e->name, t, n);
	e->name[n] = '\0';
	char *v = t + n;
	v += strspn(v, " \t");
	if (*v == '=')
		v++;
	v = util_trim(v);
	e->has_value = *v != '\0';
	if (strlen(v) >= sizeof e->value) {
		util_strlcpy(what, "value too long", len);
		return -1;
	}
	util_strlcpy(e->value, v, sizeof e->value);
	return 0;
}

/* Do the file work of this thread as uid:gid (setfsuid is the thread's
 * own): under sudo the invoking user's file is read and written with that
 * user's rights, so a symlink they put in the path leads only where they
 * could go themselves, and what is made is theirs from the start (no
 * chown after mkdir, a race). Going from fsuid 0 to another drops the
 * file capabilities (CAP_DAC_OVERRIDE...) for as long. Returns 0, or -EPERM
 * when the kernel did not take it. */
struct fs_ids {
	uid_t uid;
	gid_t gid;
	int changed;
};

static int as_user(uid_t uid, gid_t gid, struct fs_ids *was)
{
	was->changed = 0;
	if (geteuid() != 0 || uid == 0)
		return 0;
	was->gid = (gid_t)setfsgid(gid);
	was->uid = (uid_t)setfsuid(uid);
	was->changed = 1;
	/* setfsuid returns the old value whatever happens: ask again */
	if ((uid_t)setfsuid(uid) != uid || (gid_t)setfsgid(gid) != gid)
		return -EPERM;
	return 0;
}

static void as_before(const struct fs_ids *was)
{
	if (!was->changed)
		return;
	setfsuid(was->uid);
	setfsgid(was->gid);
}

/* Root's supplementary groups, put aside while this thread works as the
 * user: sudo gives root its own (group 0 among them), and with them a
 * root-group file the user linked to (a symlink read, a hard link in their
 * place) would open for reading. The raw system call changes this
 * thread's groups only, as setfsuid does (glibc's setgroups changes every
 * thread's, and the probe threads may run meanwhile). */
struct groups_was {
	gid_t *list;
	int n;                      /* -1: not changed */
};

/* Keep only gid. Returns 0 (nothing to do unless root acts for another
 * user), or -EPERM when root's groups could not be put aside. */
static int groups_drop(uid_t uid, gid_t gid, struct groups_was *was)
{
	was->list = NULL;
	was->n = -1;
	if (uid == 0 || geteuid() != 0)
		return 0;
	int n = getgroups(0, NULL);
	gid_t *list = n >= 0 ? malloc(((size_t)n + 1) * sizeof *list) : NULL;
	if (!list || getgroups(n, list) != n || syscall(SYS_setgroups, 1, &gid) != 0) {
		free(list);
		return -EPERM;
	}
	was->list = list;
	was->n = n;
	return 0;
}

/* Root's groups back. Returns 0, or -errno when the kernel refused. */
static int groups_restore(struct groups_was *was)
{
	int rc = 0;
	if (was->n >= 0 && syscall(SYS_setgroups, (size_t)was->n, was->list) != 0)
		rc = -errno;
	free(was->list);
	was->list = NULL;
	was->n = -1;
	return rc;
}

/* Open path as its user would (uid, gid) and with that user's group only
 * (groups_drop). O_NONBLOCK: a FIFO must not hang the start (it is refused
 * later). The descriptor; -1 with errno set when the open failed; -2 (err
 * said) when root's groups could not be taken back. */
static int open_as_user(const char *path, uid_t uid, gid_t gid, char *err, size_t len)
{
	struct fs_ids was = {.changed = 0};
	struct groups_was groups;
	int fd = -1;
	if (groups_drop(uid, gid, &groups) == 0 && as_user(uid, gid, &was) == 0)
		fd = beneath_open_file(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, NULL);
	else
		fd = -EPERM;
	/* as open(2) says it: -1 and errno (a FIFO or a device is never
	 * opened: not a regular file, said by check_file's words) */
	if (fd < 0) {
		errno = -fd;
		fd = -1;
	}
	int open_errno = errno;
	as_before(&was);
	int rc = groups_restore(&groups);
	if (rc < 0) {
		util_fmt(err, len, "cannot take back root's groups after reading %s: %s", path, strerror(-rc));
		if (fd >= 0)
			close(fd);
		return -2;
	}
	errno = open_errno;
	return fd;
}

/* A regular file, owned by uid or root; its owner and whether others may
 * write it go into out. */
static int check_file(int fd, const char *path, uid_t uid, struct config_file *out, char *err, size_t len)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		util_fmt(err, len, "%s: not a regular file", path);
		return -1;
	}
	out->owner = st.st_uid;
	out->writable_by_others = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
	if (st.st_uid != uid && st.st_uid != 0) {
		util_fmt(err, len, "%s: owned by uid %u, not by you (uid %u) or root: not read", path, (unsigned)st.st_uid,
			 (unsigned)uid);
		return -1;
	}
	return 0;
}

/* The whole file as a string (at most CONFIG_MAX_BYTES, no NUL in it), or
 * NULL with err said. Closes fd. */
static char *read_text(int fd, const char *path, char *err, size_t len)
{
	char *text = malloc(CONFIG_MAX_BYTES + 1);
	ssize_t got = text ? read(fd, text, CONFIG_MAX_BYTES + 1) : -1;
	close(fd);
	if (got < 0 || got > CONFIG_MAX_BYTES) {
		util_fmt(err, len, "%s: %s", path, got < 0 ? strerror(errno) : "larger than 64 KiB");
		free(text);
		return NULL;
	}
	text[got] = '\0';
	if (memchr(text, '\0', (size_t)got)) {
		/* it would end the file there without a word */
		util_fmt(err, len, "%s: holds a NUL byte: not a configuration file", path);
		free(text);
		return NULL;
	}
	return text;
}

/* Each line of text that says something, into out's entries. */
static int parse_text(char *text, const char *path, struct config_file *out, char *err, size_t len)
{
	int lineno = 0;
	for (char *l = text, *nl; l && *l; l = nl ? nl + 1 : NULL) {
		lineno++;
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		char *hash = strchr(l, '#');
		if (hash)
			*hash = '\0';
		if (!*util_trim(l))
			continue;
		struct config_entry *ne = realloc(out->e, (out->n + 1) * sizeof *ne);
		if (!ne) {
			util_fmt(err, len, "%s: out of memory", path);
			return -1;
		}
		out->e = ne;
		struct config_entry *e = &out->e[out->n];
		char what[128];
		if (parse_line(l, e, what, sizeof what) < 0) {
			util_fmt(err, len, "%s:%d: %s", path, lineno, what);
			return -1;
		}
		e->line = lineno;
		out->n++;
	}
	return 0;
}

int config_read(const char *path, int must_exist, uid_t uid, gid_t gid, struct config_file *out, char *err,
		size_t len)
{
	memset(out, 0, sizeof *out);
	util_strlcpy(out->path, path, sizeof out->path);
	/* Opened with the file's user's rights: under sudo a path through
	 * that user's home reaches only what they can read. */
	int fd = open_as_user(path, uid, gid, err, len);
	if (fd == -2)
		return -1;
	if (fd < 0) {
		/* The default place may lie in another user's home (sudo -u
		 * with HOME left as it was): not there for this user. */
		if ((errno == ENOENT || errno == EACCES) && !must_exist)
			return 0;
		util_fmt(err, len, "%s: %s", path, errno == EINVAL ? "not a regular file" : strerror(errno));
		return -1;
	}
	if (check_file(fd, path, uid, out, err, len) < 0) {
		close(fd);
		return -1;
	}
	char *text = read_text(fd, path, err, len);
	if (!text)
		return -1;
	int rc = parse_text(text, path, out, err, len);
	free(text);
	if (rc < 0)
		config_free(out);
	return rc;
}

void config_free(struct config_file *f)
{
	free(f->e);
	f->e = NULL;
	f->n = 0;
}

/* mkdir -p of the file's directory, each new directory 0700 (made as the
 * file's user: see as_user), component by component from a checked
 * directory (safefile_make_dir): through a link planted on the way
 * nothing is made where it leads. */
static int make_dirs(const char *path, char *why, size_t wlen)
{
	char dir[4096];
	util_strlcpy(dir, path, sizeof dir);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	if (slash == dir)
		slash++; /* "/config": the directory is / */
	*slash = '\0';
	int fd = safefile_make_dir(dir, 0700, why, wlen);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static int saved_key(const char *line, const char *const *keys, size_t n)
{
	struct config_entry e;
	char copy[1200], what[64];
	util_strlcpy(copy, line, sizeof copy);
	char *hash = strchr(copy, '#');
	if (hash)
		*hash = '\0';
	if (!*util_trim(copy) || parse_line(copy, &e, what, sizeof what) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(e.name, keys[i]) == 0)
			return 1;
	return 0;
}

static int save(const char *path, const char *const *keys, const char *const *values, size_t n, char *err,
		size_t len)
{
	struct safefile_dir d;
	char why[300], tmp[NAME_MAX + 1];
	int rc = make_dirs(path, why, sizeof why);
	if (rc < 0) {
		util_fmt(err, len, "cannot make the directory of %s: %s", path, why);
		return rc;
	}
	if ((rc = safefile_dir_open(&d, path, why, sizeof why)) < 0) {
		util_fmt(err, len, "cannot write %s: %s", path, why);
		return rc;
	}
	FILE *f = safefile_temp_stream(&d, 0600, tmp, sizeof tmp, &rc);
	if (!f) {
		safefile_dir_close(&d);
		util_fmt(err, len, "cannot write in %s: %s", d.path, strerror(-rc));
		return rc;
	}
	/* The lines of the old file that are not saved keys stay as they were. */
	int ofd = openat(d.fd, d.base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	FILE *old = ofd >= 0 ? fdopen(ofd, "re") : NULL;
	if (ofd >= 0 && !old)
		close(ofd);
	char line[1200];
	while (old && fgets(line, sizeof line, old))
		if (!saved_key(line, keys, n))
			fputs(line, f);
	if (old)
		fclose(old);
	for (size_t i = 0; i < n; i++)
		fprintf(f, values[i] ? "%s %s\n" : "%s\n", keys[i], values[i] ? values[i] : "");
	rc = safefile_finish(&d, f, tmp);
	safefile_dir_close(&d);
	if (rc < 0) {
		util_fmt(err, len, "cannot write %s: %s", path, strerror(-rc));
		return rc;
	}
	return 0;
}

int config_save(const char *path, const char *const *keys, const char *const *values, size_t n, uid_t uid, gid_t gid,
		char *err, size_t len)
{
	/* With the user's group only, as the file is read (open_as_user):
	 * the old file's lines are copied into the new one, and root's groups
	 * would let a hard link the user made to a root-group file be read. */
	struct fs_ids was = {.changed = 0};
	struct groups_was groups;
	int rc = groups_drop(uid, gid, &groups);
	if (rc == 0)
		rc = as_user(uid, gid, &was);
	if (rc < 0)
		util_fmt(err, len, "cannot act as uid %u to write %s", (unsigned)uid, path);
	else
		rc = save(path, keys, values, n, err, len);
	as_before(&was);
	int back = groups_restore(&groups);
	if (back < 0 && rc == 0) {
		util_fmt(err, len, "wrote %s, but cannot take back root's groups: %s", path, strerror(-back));
		rc = back;
	}
	return rc;
}
