/* probefiles: the probe thread in the read-only file mode (probeparts.h):
 * the files of the disk's filesystems it reads (probespan.h chooses them
 * and their extents), a file opened for each read and checked to be the
 * one chosen, the choice made again in the background. Nothing is
 * written and nothing is left behind. */
#include "probeparts.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe/probefile.h"
#include "base/safefile.h"
#include "base/util.h"

/* The choice is made again this often, or sooner once half its files
 * changed or went (a package upgrade replaces libraries). */
#define REFRESH_S 600.0
/* Picks tried for one read before the choice is made again: each that
 * fails found a file replaced or gone, which is then dropped. */
#define PICK_TRIES 16

/* Where on a filesystem to look first: files that are large, read-mostly
 * and readable by anyone (programs and libraries, packages), then the rest. */
static const char *const FIRST[] = {"usr", "var/cache", "opt", "snap", "var/lib", "home", "srv"};
#define NFIRST (sizeof FIRST / sizeof *FIRST)
/* Scratch space, whose files come and go: never read. */
static const char *const SKIP[] = {"tmp", "var/tmp"};
#define NSKIP (sizeof SKIP / sizeof *SKIP)
#define MAX_MOUNTS 8
/* What the files of one user (not root, not a system account) may give
 * of the set: an eighth of what is wanted, and more than the least the
 * probe runs with, so that a disk of one user's files is still read. */
#define OWNER_CAP (PROBE_FILES_WANT / 8)
#define MAX_ROOTS (MAX_MOUNTS * (NFIRST + 1))

struct roots {
	const char *disk;
	dev_t dev[MAX_MOUNTS];
	char point[MAX_MOUNTS][PATH_MAX];
	size_t nmounts;
};

static void add_mount(void *ctx, const char *point, const char *disk, dev_t fsdev, int readonly)
{
	struct roots *r = ctx;
	(void)readonly;
	if (strcmp(disk, r->disk) != 0 || r->nmounts == MAX_MOUNTS)
		return;
	for (size_t i = 0; i < r->nmounts; i++)
		if (r->dev[i] == fsdev)
			return; /* the same filesystem mounted again (a bind) */
	r->dev[r->nmounts] = fsdev;
	util_strlcpy(r->point[r->nmounts++], point, PATH_MAX);
}

/* The directories rel[0..n) below mount point as paths (into room),
 * pointed to from out in order; one too long is left out. Returns how
 * many. */
static size_t below(const char *point, const char *const *rel, size_t n, char (*room)[PATH_MAX], const char **out)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (util_pathf(room[k], PATH_MAX, "%s%s%s", point, strcmp(point, "/") ? "/" : "", rel[i]) == 0)
			out[k] = room[k], k++;
	return k;
}

/* Walk the filesystems on the disk, one after another, until enough is
 * kept. Returns 0, or a negative errno with why. */
static int choose(struct probe *p, struct probespan *set, char *why, size_t wlen)
{
	struct roots r = {.disk = p->cfg.disk};
	int rc = probefile_each_mount(add_mount, &r, 1);
	if (rc < 0 || r.nmounts == 0) {
		util_fmt(why, wlen, "no filesystem of %s is mounted to read files from", p->cfg.disk);
		return rc < 0 ? rc : -ENOENT;
	}
	struct probespan part = {0};
	char paths[NFIRST][PATH_MAX], skips[NSKIP][PATH_MAX];
	for (size_t m = 0; m < r.nmounts && set->span < PROBE_FILES_WANT; m++) {
		const char *roots[NFIRST + 1], *skip[NSKIP];
		size_t ns = below(r.point[m], SKIP, NSKIP, skips, skip);
		size_t n = below(r.point[m], FIRST, NFIRST, paths, roots);
		roots[n++] = r.point[m];
		struct probespan_want want = {.dev = r.dev[m], .top = r.point[m], .roots = roots, .nroots = n,
					      .skip = skip, .nskip = ns, .bytes = PROBE_FILES_WANT - set->span,
					      .min_file = 256 << 10, .io_size = p->cfg.io_size, .max_visit = 200000,
					      .max_files = 4096, .owner_cap = OWNER_CAP};
		rc = probespan_build(m == 0 ? set : &part, &want, why, wlen);
		if (rc == 0 && m > 0)
			rc = probespan_merge(set, &part);
		if (rc < 0 && rc != -EOPNOTSUPP)
			break;
		rc = 0;
	}
	probespan_free(&part);
	return rc;
}

/* The first directories the files are under ("/usr, /var/cache"): the
 * directory below the filesystem's mount point (two below for var/), the
 * mount point itself for a file right in it ("/mnt/data"), never a
 * directory above the mount. */
static void under(const struct probespan *set, char *out, size_t len)
{
	char seen[4][160];
	size_t n = 0, more = 0;
	out[0] = '\0';
	for (size_t i = 0; i < set->nfiles; i++) {
		const char *path = set->files[i].path, *rel = path + set->files[i].top_len;
		while (*rel == '/')
			rel++;
		const char *a = strchr(rel, '/'), *b = a ? strchr(a + 1, '/') : NULL;
		const char *cut = a && !strncmp(rel, "var/", 4) && b ? b : a ? a : rel > path + 1 ? rel - 1 : rel;
		char top[160];
		util_fmt(top, sizeof top, "%.*s", (int)(cut - path), path);
		size_t k = 0;
		while (k < n && strcmp(seen[k], top))
			k++;
		if (k < n || set->files[i].dropped)
			continue;
		if (n == 4) {
			more++;
			continue;
		}
		util_strlcpy(seen[n++], top, sizeof seen[0]);
		util_fmt(out + strlen(out), len - strlen(out), "%s%s", n > 1 ? ", " : "", top);
	}
	if (more)
		util_fmt(out + strlen(out), len - strlen(out), " and %zu more", more);
}

/* "reads 1.0 GiB in 343 files under /usr on vda, nothing written" */
static void describe(const struct probe *p, const struct probespan *set, char *out, size_t len)
{
	double gib = (double)set->span / (1 << 30);
	char size[32], where[200];
	if (gib >= 1)
		util_fmt(size, sizeof size, "%.1f GiB", gib);
	else
		util_fmt(size, sizeof size, "%.0f MiB", (double)set->span / (1 << 20));
	under(set, where, sizeof where);
	/* Without root, O_NOATIME is refused for others' files: their access
	 * times move as any reader's would (relatime: once a day a file). */
	size_t live = probespan_live_files(set);
	util_fmt(out, len, "reads %s in %zu file%s under %s on %s, nothing written%s", size, live, live == 1 ? "" : "s",
		 where, p->cfg.disk, geteuid() == 0 ? "" : " but access times (not root)");
}

/* How many of the largest files are tried for the fresh reader. */
#define FRESH_TRIES 32

static int by_size_desc(const void *a, const void *b, void *arg)
{
	const struct probespan *set = arg;
	off_t sa = set->files[*(const size_t *)a].size, sb = set->files[*(const size_t *)b].size;
	return sa < sb ? 1 : sa > sb ? -1 : 0;
}

/* What a fresh reader job reads (one file, at random offsets over all of
 * it): the largest file of the set that it will be allowed to open
 * (probefile_open_read: root's or the caller's, reached through
 * directories nobody else controls). Not simply the largest: a user's own
 * large file would be chosen and refused, and stop the A/B. */
static void fresh_path(const struct probespan *set, char *out, size_t len)
{
	out[0] = '\0';
	size_t *idx = malloc((set->nfiles ? set->nfiles : 1) * sizeof *idx), n = 0;
	if (!idx)
		return;
	/* only files probefile_open_read takes (root's or the caller's): 32
	 * huge files of another user no longer leave the fresh reader none */
	uid_t caller = safefile_caller_uid();
	for (size_t i = 0; i < set->nfiles; i++) {
		const struct probespan_file *f = &set->files[i];
		if (!f->dropped && (f->uid == 0 || f->uid == geteuid() || f->uid == caller))
			idx[n++] = i;
	}
	qsort_r(idx, n, sizeof *idx, by_size_desc, (void *)set);
	for (size_t k = 0; k < n && k < FRESH_TRIES; k++) {
		char why[320];
		int fd = probefile_open_read(set->files[idx[k]].path, 0, 1, why, sizeof why);
		if (fd >= 0) {
			close(fd);
			util_strlcpy(out, set->files[idx[k]].path, len);
			break;
		}
	}
	free(idx);
}

/* Whether path names a file of the set that is still read. */
static int still_read(const struct probespan *set, const char *path)
{
	for (size_t i = 0; i < set->nfiles; i++)
		if (!set->files[i].dropped && strcmp(set->files[i].path, path) == 0)
			return 1;
	return 0;
}

/* The status after a choice (new_set) or a drop. The fresh reader's file
 * is chosen again only on a new choice or when it was the one dropped:
 * finding it opens files, which a drop of another file must not cost. */
static void publish(struct probe *p, const char *first_why, int new_set)
{
	char what[240], fresh[sizeof p->st.path];
	describe(p, &p->set, what, sizeof what);
	/* (st.path is written by this thread alone: read without the lock) */
	if (new_set || (p->st.path[0] && !still_read(&p->set, p->st.path)))
		fresh_path(&p->set, fresh, sizeof fresh);
	else
		util_strlcpy(fresh, p->st.path, sizeof fresh);
	pthread_mutex_lock(&p->mu);
	if (first_why)
		util_fmt(p->st.why, sizeof p->st.why, "%s; %s", first_why, what);
	else {
		char *cut = strstr(p->st.why, "; reads ");
		if (cut)
			util_fmt(cut, sizeof p->st.why - (size_t)(cut - p->st.why), "; %s", what);
	}
	util_strlcpy(p->st.path, fresh, sizeof p->st.path);
	p->st.files = probespan_live_files(&p->set);
	p->st.span_bytes = p->set.span;
	pthread_mutex_unlock(&p->mu);
}

/* A choice was made (or tried and the old one kept): the next is due in
 * REFRESH_S, or once half of the files live now went. Not on a drop: a
 * count taken again at each drop would never see half of them go. */
static void chosen(struct probe *p)
{
	p->set_built = util_mono_now();
	p->set_files0 = probespan_live_files(&p->set);
}

int probefiles_open(struct probe *p)
{
	char why[256] = "", first[sizeof p->st.why];
	pthread_mutex_lock(&p->mu);
	util_strlcpy(first, p->st.why, sizeof first);
	util_fmt(p->st.why, sizeof p->st.why, "%s; choosing files of %s to read", first, p->cfg.disk);
	pthread_mutex_unlock(&p->mu);
	int rc = choose(p, &p->set, why, sizeof why);
	if (rc == 0 && p->set.span < PROBE_FILES_MIN) {
		probestatus_end(p, "%s; too little to read on %s's filesystems (%llu MiB in %zu files; the probe needs "
				"%llu MiB): name a file with --probe-file PATH, or let it write one with "
				"--probe-file-size 1G", first, p->cfg.disk, (unsigned long long)(p->set.span >> 20),
				probespan_live_files(&p->set), PROBE_FILES_MIN >> 20);
		return -1;
	}
	if (rc < 0) {
		probestatus_end(p, "%s; %s", first, why);
		return -1;
	}
	publish(p, first, 1);
	chosen(p);
	return 0;
}

/* A new choice, made beside the reads (the walk can take a while on a
 * busy disk, and the probe must not pause for it). */
static void *chooser_main(void *arg)
{
	struct probe *p = arg;
	pthread_setname_np(pthread_self(), "iosched-choose");
	util_block_stop_signals();
	char why[256];
	struct probespan fresh = {0};
	int rc = choose(p, &fresh, why, sizeof why);
	pthread_mutex_lock(&p->mu);
	p->chooser_set = fresh;
	p->chooser_rc = rc;
	p->chooser_done = 1;
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* The chooser's result taken (it has ended): a choice that came out short
 * keeps the old one. */
static void take_choice(struct probe *p)
{
	pthread_join(p->chooser, NULL);
	p->chooser_runs = 0;
	pthread_mutex_lock(&p->mu);
	struct probespan fresh = p->chooser_set;
	int ok = p->chooser_rc == 0 && fresh.span >= PROBE_FILES_MIN;
	p->chooser_set = (struct probespan){0};
	p->chooser_done = 0;
	pthread_mutex_unlock(&p->mu);
	if (ok) {
		probespan_free(&p->set);
		p->set = fresh;
	} else {
		probespan_free(&fresh);
	}
	publish(p, NULL, ok);
	chosen(p);
}

/* Choose again: now and then, and once half the files are gone, by a
 * thread of its own; its choice is taken between reads. */
static void refresh(struct probe *p)
{
	if (p->chooser_runs) {
		pthread_mutex_lock(&p->mu);
		int done = p->chooser_done;
		pthread_mutex_unlock(&p->mu);
		if (done)
			take_choice(p);
		return;
	}
	size_t live = probespan_live_files(&p->set);
	if (util_mono_now() - p->set_built < REFRESH_S && live * 2 > p->set_files0)
		return;
	if (pthread_create(&p->chooser, NULL, chooser_main, p) == 0)
		p->chooser_runs = 1;
	else
		chosen(p); /* no thread: the old choice stands until the next turn */
}

/* Every file tried was replaced: the new choice is needed now. */
static void refresh_now(struct probe *p)
{
	if (!p->chooser_runs && pthread_create(&p->chooser, NULL, chooser_main, p) == 0)
		p->chooser_runs = 1;
	if (p->chooser_runs)
		take_choice(p);
}

int probefiles_next(struct probe *p, uint64_t *off, size_t *file, uint64_t *phys)
{
	refresh(p);
	for (int i = 0; i < PICK_TRIES * 2; i++) {
		size_t f;
		if (i == PICK_TRIES) /* the files tried were all replaced: choose again now */
			refresh_now(p);
		if (probespan_pick_phys(&p->set, &p->rng, &f, off, phys) < 0)
			break;
		int fd = probespan_open(&p->set, f, 1);
		*file = f;
		if (fd >= 0)
			return fd;
		if (fd != -ESTALE) {
			probestatus_end(p, "cannot open %s: %s; probe stopped", p->set.files[f].path, strerror(-fd));
			return -1;
		}
		publish(p, NULL, 0); /* dropped (replaced or gone): the status counts what is read */
	}
	probestatus_end(p, "every file chosen on %s's filesystems changed or went; probe stopped", p->cfg.disk);
	return -1;
}

void probefiles_failed(struct probe *p, size_t file)
{
	probespan_drop(&p->set, file);
	publish(p, NULL, 0);
}

void probefiles_free(struct probe *p)
{
	if (p->chooser_runs) { /* the walk ends on its own: its budget is bounded */
		pthread_join(p->chooser, NULL);
		p->chooser_runs = 0;
		probespan_free(&p->chooser_set);
	}
	probespan_free(&p->set);
}
