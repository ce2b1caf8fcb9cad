/* cgroup: see include/read/cgroup.h */
#include "read/cgroup.h"

#include <ctype.h>
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/util.h"
#include "read/mountinfo.h"

static int is_cgroup2(const struct mountinfo_entry *m, const void *ctx)
{
	(void)ctx;
	return strcmp(m->fstype, "cgroup2") == 0;
}

int cgroup_v2_mount(char *dir, size_t len)
{
#ifdef IOSCHED_TEST_CGROOT
	/* The test build only (build/fakecg, Makefile): a directory that
	 * stands for the v2 mount, so a bfq weight can be changed, undone
	 * and restored end to end on a machine without io.bfq.weight. */
	const char *fake = getenv("IOSCHED_TEST_CGROOT");
	if (fake && *fake) {
		util_strlcpy(dir, fake, len);
		return 0;
	}
#endif
	struct mountinfo_entry m;
	int rc = mountinfo_find(is_cgroup2, NULL, &m);
	if (rc == 0)
		util_strlcpy(dir, m.point, len);
	return rc;
}

int cgroup_v2_open_root(void)
{
	char mount[4096];
	int fake = 0;
#ifdef IOSCHED_TEST_CGROOT
	fake = getenv("IOSCHED_TEST_CGROOT") && *getenv("IOSCHED_TEST_CGROOT");
#endif
	if (cgroup_v2_mount(mount, sizeof mount) < 0)
		return -ENOENT;
	int fd = open(mount, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct statfs sf;
	if (!fake && (fstatfs(fd, &sf) != 0 || sf.f_type != CGROUP2_SUPER_MAGIC)) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

int cgroup_id_of(const char *mount, const char *path, uint64_t *id)
{
	char full[4096];
	struct stat root, st;
	if (snprintf(full, sizeof full, "%s/%s", mount, strcmp(path, "/") != 0 ? path : "") >= (int)sizeof full)
		return -ENAMETOOLONG;
	if (stat(mount, &root) != 0 || fstatat(AT_FDCWD, full, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_dev != root.st_dev)
		return -ENOENT;
	*id = (uint64_t)st.st_ino;
	return 0;
}

int cgroup_parse_proc(const char *text, char *path, size_t len)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, "0::", 3) != 0)
			continue;
		const char *p = l + 3, *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == 0 || *p != '/')
			return -ENOENT;
		if (n >= len) /* cut, it could name another cgroup: not known */
			return -ENAMETOOLONG;
		memcpy(path, p, n);
		path[n] = '\0';
		return 0;
	}
	return -ENOENT;
}

/* A path's components (a leading '/' or none), as the rules below see
 * them; past COMPS_MAX deep, the rest are not looked at for containers. */
#define COMPS_MAX 16
struct comps {
	const char *s[COMPS_MAX];
	size_t n[COMPS_MAX];
	size_t count;
};

static void comps_split(const char *path, struct comps *c)
{
	c->count = 0;
	for (const char *p = path; *p && c->count < COMPS_MAX;) {
		p += *p == '/';
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n) {
			c->s[c->count] = p;
			c->n[c->count++] = n;
		}
		p += n;
	}
}

static int comp_is(const struct comps *c, size_t i, const char *text)
{
	return i < c->count && c->n[i] == strlen(text) && !strncmp(c->s[i], text, c->n[i]);
}

static int comp_starts(const struct comps *c, size_t i, const char *prefix)
{
	size_t n = strlen(prefix);
	return i < c->count && c->n[i] >= n && !strncmp(c->s[i], prefix, n);
}

static int comp_ends(const struct comps *c, size_t i, const char *suffix)
{
	size_t n = strlen(suffix);
	return i < c->count && c->n[i] >= n && !strncmp(c->s[i] + c->n[i] - n, suffix, n);
}

/* Where each manager puts its containers, and nowhere else: a user's own
 * cgroup named docker-<hex>.scope deep in their session is theirs, not
 * a container. (c: the path's components; i: the container's.) */
static int docker_place(const struct comps *c, size_t i)
{
	return i == 1 && comp_is(c, 0, "system.slice");
}

/* user.slice/user-UID.slice/user@UID.service/user.slice: where a user's
 * systemd manager puts rootless podman's containers, the same UID twice
 * (the shape repeated deeper, inside a user's own delegated tree, is
 * theirs to make: not it). */
static int user_manager_place(const struct comps *c, size_t i)
{
	if (i != 4 || !comp_is(c, 0, "user.slice") || !comp_is(c, 3, "user.slice") || !comp_starts(c, 1, "user-") ||
	    !comp_ends(c, 1, ".slice") || !comp_starts(c, 2, "user@") || !comp_ends(c, 2, ".service"))
		return 0;
	size_t n1 = c->n[1] - strlen("user-") - strlen(".slice"), n2 = c->n[2] - strlen("user@") - strlen(".service");
	const char *uid = c->s[1] + strlen("user-");
	if (n1 == 0 || n1 != n2 || strncmp(uid, c->s[2] + strlen("user@"), n1) != 0)
		return 0;
	for (size_t k = 0; k < n1; k++)
		if (!isdigit((unsigned char)uid[k]))
			return 0;
	return 1;
}

static int podman_place(const struct comps *c, size_t i)
{
	/* root's, or a user's rootless ones under their systemd manager */
	return (i == 1 && comp_is(c, 0, "machine.slice")) || user_manager_place(c, i);
}

static int kube_place(const struct comps *c, size_t i)
{
	return i >= 1 && comp_starts(c, 0, "kubepods");
}

/* A container runtime's scope: PREFIX then a hex id then ".scope", in
 * the place its manager makes it. */
static const struct runtime {
	const char *prefix, *name;
	int (*place)(const struct comps *c, size_t i);
} runtimes[] = {
	{"docker-", "docker", docker_place},
	{"libpod-", "podman", podman_place},
	{"crio-", "crio", kube_place},
	{"cri-containerd-", "containerd", kube_place},
};

static int hex_id(const char *s, size_t n)
{
	if (n < 12)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* systemd escapes a '-' in a machine's name as \x2d: comp's name after
 * "machine-" and before ".scope", unescaped. */
static void machine_name(const char *comp, size_t n, char *name, size_t len)
{
	char raw[256], *o = raw;
	for (const char *p = comp + 8; p < comp + n - 6 && o < raw + sizeof raw - 1; p++) {
		if (!strncmp(p, "\\x2d", 4) && p + 4 <= comp + n - 6) {
			*o++ = '-';
			p += 3;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	util_fmt(name, len, "machine:%s", raw);
}

/* Component i of c as a container's name, into name. */
static int container_name(const struct comps *c, size_t i, char *name, size_t len)
{
	const char *comp = c->s[i];
	size_t n = c->n[i];
	for (size_t r = 0; r < sizeof runtimes / sizeof *runtimes; r++) {
		size_t pl = strlen(runtimes[r].prefix);
		if (n > pl + 6 && comp_starts(c, i, runtimes[r].prefix) && comp_ends(c, i, ".scope") &&
		    hex_id(comp + pl, n - pl - 6) && runtimes[r].place(c, i)) {
			util_fmt(name, len, "%s:%.12s", runtimes[r].name, comp + pl);
			return 1;
		}
	}
	if (i == 1 && comp_is(c, 0, "docker") && hex_id(comp, n)) { /* docker's cgroupfs driver */
		util_fmt(name, len, "docker:%.12s", comp);
		return 1;
	}
	if (i == 1 && comp_is(c, 0, "machine.slice") && n > 14 && comp_starts(c, i, "machine-") &&
	    comp_ends(c, i, ".scope")) {
		machine_name(comp, n, name, len);
		return 1;
	}
	/* LXC's containers: at the top, lxc.payload.NAME (LXC 4) or lxc/NAME */
	if (i == 0 && n > 12 && comp_starts(c, 0, "lxc.payload.")) {
		util_fmt(name, len, "lxc:%.*s", (int)(n - 12), comp + 12);
		return 1;
	}
	if (i == 1 && comp_is(c, 0, "lxc")) {
		util_fmt(name, len, "lxc:%.*s", (int)n, comp);
		return 1;
	}
	return 0;
}

void cgroup_unit_name(const char *path, char *name, size_t len)
{
	if (!path[0] || !strcmp(path, "/")) {
		util_strlcpy(name, "/", len);
		return;
	}
	/* A container is named for itself, whatever cgroups it makes inside. */
	struct comps c;
	comps_split(path, &c);
	for (size_t i = 0; i < c.count; i++)
		if (container_name(&c, i, name, len))
			return;
	const char *last = strrchr(path, '/');
	last = last ? last + 1 : path;
	util_strlcpy(name, *last ? last : "/", len);
}

void cgroup_parent(const char *path, char *parent, size_t len)
{
	const char *last = strrchr(path, '/');
	size_t n = last ? (size_t)(last - path) : 0;
	if (n == 0) {
		util_strlcpy(parent, "/", len);
		return;
	}
	util_fmt(parent, len, "%.*s", (int)n, path);
}

int cgroup_has_controller(const char *controllers, const char *controller)
{
	size_t n = strlen(controller);
	for (const char *p = controllers; (p = strstr(p, controller)); p += n)
		if ((p == controllers || isspace((unsigned char)p[-1])) && (!p[n] || isspace((unsigned char)p[n])))
			return 1;
	return 0;
}

/* One "key=value" of an io.stat line into sum. */
static void io_field(const char *tok, size_t n, struct cgroup_io *sum)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{"rbytes=", offsetof(struct cgroup_io, rbytes)}, {"wbytes=", offsetof(struct cgroup_io, wbytes)},
		{"rios=", offsetof(struct cgroup_io, rios)},     {"wios=", offsetof(struct cgroup_io, wios)},
		{"dbytes=", offsetof(struct cgroup_io, dbytes)}, {"dios=", offsetof(struct cgroup_io, dios)},
	};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		size_t kl = strlen(keys[i].key);
		if (n > kl && !strncmp(tok, keys[i].key, kl)) {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(tok + kl, &end, 10);
			if (!errno && end == tok + n)
				*(uint64_t *)((char *)sum + keys[i].off) += v;
			return;
		}
	}
}

/* The next space-separated token of a line of n bytes from *at, and its
 * length in *tl; *at moves past it. NULL when none is left. */
static const char *next_token(const char *l, size_t n, size_t *at, size_t *tl)
{
	size_t i = *at;
	while (i < n && l[i] == ' ')
		i++;
	size_t j = i;
	while (j < n && l[j] != ' ')
		j++;
	*at = j;
	*tl = j - i;
	return j > i ? l + i : NULL;
}

/* One device's line: counted into sum when the filter takes it. Returns
 * 1 counted, 0 passed over, -1 not an io.stat line. */
static int io_line(const char *l, size_t n, cgroup_dev_filter filter, void *ctx, struct cgroup_io *sum)
{
	unsigned maj, min;
	int used = 0;
	if (sscanf(l, "%u:%u%n", &maj, &min, &used) != 2 || (size_t)used > n || (used < (int)n && l[used] != ' '))
		return -1;
	if (filter && !filter(maj, min, ctx))
		return 0;
	size_t at = (size_t)used, tl;
	for (const char *tok; (tok = next_token(l, n, &at, &tl));)
		io_field(tok, tl, sum);
	return 1;
}

int cgroup_parse_io_stat(const char *text, cgroup_dev_filter filter, void *ctx, struct cgroup_io *sum)
{
	*sum = (struct cgroup_io){0};
	int counted = 0;
	for (const char *l = text; *l;) {
		const char *end = strchr(l, '\n');
		size_t n = end ? (size_t)(end - l) : strlen(l);
		if (n) {
			int r = io_line(l, n, filter, ctx, sum);
			if (r < 0)
				return -EINVAL;
			counted += r;
		}
		l += n + (end != NULL);
	}
	return counted;
}

/* One token "key=value" of an io.max or io.latency line into out,
 * unless it says no limit ("max"; a target of 0). */
static void limit_token(const char *tok, size_t n, int *kept, char *out, size_t len)
{
	const char *eq = memchr(tok, '=', n);
	if (!eq || eq == tok)
		return;
	size_t vl = n - (size_t)(eq + 1 - tok);
	if ((vl == 3 && !strncmp(eq + 1, "max", 3)) || (vl == 1 && eq[1] == '0'))
		return;
	size_t at = strlen(out);
	snprintf(out + at, len - at, " %.*s", (int)n, tok);
	(*kept)++;
}

/* One device's line of n bytes appended to out when it limits anything.
 * Returns 1 limited, 0 not, -1 not such a line. */
static int limits_line(const char *l, size_t n, cgroup_dev_name name, void *ctx, char *out, size_t len)
{
	unsigned maj = 0, min = 0;
	int used = 0;
	if (sscanf(l, "%u:%u%n", &maj, &min, &used) != 2 || (size_t)used > n || (used < (int)n && l[used] != ' '))
		return -1;
	size_t at = strlen(out); /* < len: snprintf below cuts what does not fit */
	const char *dev = name ? name(maj, min, ctx) : NULL;
	if (dev)
		snprintf(out + at, len - at, "%s%s", at ? "; " : "", dev);
	else
		snprintf(out + at, len - at, "%s%u:%u", at ? "; " : "", maj, min);
	int kept = 0;
	size_t from = (size_t)used, tl;
	for (const char *tok; (tok = next_token(l, n, &from, &tl));)
		limit_token(tok, tl, &kept, out, len);
	if (!kept)
		out[at] = '\0'; /* every setting "max": no limit on it */
	return kept > 0;
}

int cgroup_parse_limits(const char *text, cgroup_dev_name name, void *ctx, char *out, size_t len)
{
	int devs = 0;
	out[0] = '\0';
	for (const char *l = text; *l;) {
		const char *end = strchr(l, '\n');
		size_t n = end ? (size_t)(end - l) : strlen(l);
		int r = n ? limits_line(l, n, name, ctx, out, len) : 0;
		if (r < 0)
			return -EINVAL;
		devs += r;
		l += n + (end != NULL);
	}
	return devs;
}

int cgroup_parse_v1_bound(const char *text, const char *controller)
{
	size_t n = strlen(controller);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned hier = 0, ncg = 0, on = 0;
		if (strncmp(l, controller, n) != 0 || (l[n] != '\t' && l[n] != ' '))
			continue;
		if (sscanf(l + n, "%u %u %u", &hier, &ncg, &on) != 3)
			return 0;
		return hier != 0 && on;
	}
	return 0;
}

int cgroup_parse_weight(const char *text)
{
	const char *p = text;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!strncmp(p, "default ", 8))
		p += 8;
	char *end;
	errno = 0;
	long w = strtol(p, &end, 10);
	if (errno || end == p || (*end && *end != '\n' && *end != ' ') || w < 1 || w > 10000)
		return -EINVAL;
	return (int)w;
}

/* One walk of cgroup_walk_ids. */
struct idwalk {
	dev_t dev;                 /* root's filesystem */
	unsigned max_depth, max_dirs, seen;
	int stop;
	cgroup_id_fn fn;
	void *ctx;
	char path[CGROUP_PATH_MAX];
};

static int is_dot(const char *name)
{
	return name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]));
}

/* A directory given to fn; then, below max_depth, its own (fd is closed
 * either way). */
static void walk_below(struct idwalk *w, int fd, size_t plen, unsigned depth);

static void walk_child(struct idwalk *w, int parent, const char *name, size_t plen, unsigned depth)
{
	/* O_NOFOLLOW: a symlink is refused (ELOOP), never walked into */
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return;
	size_t n = strlen(name), at = plen ? plen + 1 : 0;
	if (fstat(fd, &st) < 0 || st.st_dev != w->dev || at + n >= sizeof w->path) {
		close(fd); /* another filesystem mounted here, or a path too long to name */
		return;
	}
	if (plen)
		w->path[plen] = '/';
	memcpy(w->path + at, name, n + 1);
	w->seen++;
	w->stop = w->fn((uint64_t)st.st_ino, w->path, w->ctx) != 0;
	if (!w->stop && depth < w->max_depth)
		walk_below(w, fd, at + n, depth + 1);
	else
		close(fd);
	w->path[plen] = '\0';
}

static void walk_below(struct idwalk *w, int fd, size_t plen, unsigned depth)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	struct dirent *de;
	while (!w->stop && (de = readdir(d)) != NULL) {
		if ((de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) || is_dot(de->d_name))
			continue;
		if (w->seen >= w->max_dirs) {
			w->stop = 1;
			break;
		}
		walk_child(w, dirfd(d), de->d_name, plen, depth);
	}
	closedir(d);
}

int cgroup_walk_ids(const char *root, unsigned max_depth, unsigned max_dirs, cgroup_id_fn fn, void *ctx)
{
	struct idwalk w = {.max_depth = max_depth, .max_dirs = max_dirs, .fn = fn, .ctx = ctx};
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	if (!max_dirs) {
		close(fd);
		return 0;
	}
	w.dev = st.st_dev;
	w.seen = 1;
	w.stop = fn((uint64_t)st.st_ino, "/", ctx) != 0;
	if (!w.stop && max_depth > 0)
		walk_below(&w, fd, 0, 1);
	else
		close(fd);
	return (int)w.seen;
}
