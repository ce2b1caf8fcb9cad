/* cli: see include/cli.h */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/disk.h"
#include "probe/probefile.h"
#include "act/ab.h"
#include "out/abreport.h"
#include "act/control.h"
#include "session.h"
#include "base/event.h"
#include "act/tune.h"
#include "act/udevrule.h"
#include "base/util.h"

int cli_config(const struct options *o, struct sampler_config *cfg, char *disk_buf, size_t len)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->only = o->ndisks ? (const char *const *)o->disks : NULL;
	cfg->nonly = o->ndisks;
	cfg->probe = !o->no_probe;
	cfg->probe_only = o->nprobe_disks ? (const char *const *)o->probe_disks : NULL;
	cfg->nprobe_only = o->nprobe_disks;
	cfg->probe_rate_hz = o->probe_rate_hz;
	cfg->probe_size = (uint32_t)o->probe_size;
	cfg->seed = o->seed;
	cfg->have_seed = o->have_seed;
	cfg->probe_file_size = o->probe_file_size;
	cfg->probe_file_write = o->probe_file_size_given;
	/* The full screen always has its process pane; batch reads processes
	 * only when they are asked for in the output. */
	cfg->procs = !o->batch || o->procs > 0;
	cfg->threads = o->threads;
	cfg->bpf = !o->no_bpf;
	/* One JSON line: its processes' TO-DISK needs the BPF part for the
	 * whole interval; worth up to a second's wait. Text and the full
	 * screen start at once and load it meanwhile. */
	cfg->bpf_first_s = o->batch && o->format == OUT_JSON && o->iterations == 1 ? 1.0 : 0;
	cfg->all_disks = o->all_disks;
	/* What writes cgroups at every tick; the full screen's pane reads
	 * them only while it is open (sampler_show_cgroups). */
	cfg->cgroups = (o->batch && (o->format == OUT_JSON || o->format == OUT_CSV_CGROUPS)) || o->record ||
		       o->prom_file;
	if (!o->probe_file)
		return 0;
	/* The file may not exist yet: then its directory tells the disk. */
	char dir[4096];
	util_strlcpy(dir, o->probe_file, sizeof dir);
	int rc = probefile_disk_of_path(o->probe_file, disk_buf, len);
	if (rc == -ENOENT) {
		char *slash = strrchr(dir, '/');
		if (slash)
			*(slash == dir ? slash + 1 : slash) = '\0';
		else
			util_strlcpy(dir, ".", sizeof dir);
		rc = probefile_disk_of_path(dir, disk_buf, len);
	}
	if (rc < 0) {
		util_complain("--probe-file %s: %s\n", o->probe_file,
			rc == -ENODEV ? "not on a block device (tmpfs?); put it on a filesystem of the disk to probe"
				      : strerror(-rc));
		return 2;
	}
	cfg->probe_file = o->probe_file;
	cfg->probe_file_disk = disk_buf;
	return 0;
}

static const struct disk_info *find(const struct disk_info *all, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(all[i].name, name) == 0)
			return &all[i];
	return NULL;
}

static void list_names(const struct disk_info *d, size_t n, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", d[i].name);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* Say why name is not a disk here, in the voice of option opt. */
static void explain_unknown(const char *opt, const char *name, const struct disk_info *all, size_t n)
{
	char parent[64], names[1024];
	list_names(all, n, names, sizeof names);
	int part = disk_partition_parent(name, parent, sizeof parent);
	if (part == 1)
		util_complain("%s: %s is a partition of %s; give the whole disk: %s %s\n", opt, name,
			parent, opt, parent);
	else if (part == 0)
		util_complain("%s: %s is hidden: its size is 0 (a loop device with no backing file); disks here: %s\n",
			opt, name, names);
	else
		util_complain("%s: no disk named '%s'; disks here: %s\n", opt, name, names);
}

static int shown(const struct options *o, const char *name)
{
	if (o->ndisks == 0)
		return 1;
	for (size_t i = 0; i < o->ndisks; i++)
		if (strcmp(o->disks[i], name) == 0)
			return 1;
	return 0;
}

static int check_names(const char *opt, char *const *names, size_t k, const struct disk_info *all, size_t n)
{
	for (size_t i = 0; i < k; i++)
		if (!find(all, n, names[i])) {
			explain_unknown(opt, names[i], all, n);
			return 2;
		}
	return 0;
}

static int check_probe(const struct options *o, const struct sampler *smp, const struct disk_info *all,
		       size_t n)
{
	for (size_t i = 0; i < o->nprobe_disks; i++)
		if (!shown(o, o->probe_disks[i])) {
			util_complain("--probe: %s is not among the --disk disks; add it there too\n",
				o->probe_disks[i]);
			return 2;
		}
	for (size_t i = 0; i < n; i++) {
		if (!shown(o, all[i].name) || !sampler_wants_probe(smp, &all[i]))
			continue;
		if (all[i].logical_block && o->probe_size % all[i].logical_block) {
			util_complain("--probe-size: %llu is not a multiple of %s's logical block size (%u)\n",
				(unsigned long long)o->probe_size, all[i].name, all[i].logical_block);
			return 2;
		}
	}
	return 0;
}

static int check_sets(const struct options *o, const struct disk_info *all, size_t n)
{
	for (size_t i = 0; i < o->nsets; i++) {
		const struct disk_info *d = find(all, n, o->sets[i].disk);
		if (!d) {
			explain_unknown("--set", o->sets[i].disk, all, n);
			return 2;
		}
		int ok = 0;
		for (int k = 0; k < d->sched.n; k++)
			ok |= strcmp(d->sched.names[k], o->sets[i].sched) == 0;
		if (!ok) {
			char list[256];
			sched_format(&d->sched, list, sizeof list);
			util_complain("--set: %s has no scheduler '%s'; it offers: %s\n", d->name,
				o->sets[i].sched, d->sched.n ? list : "none (this queue takes no scheduler)");
			return 2;
		}
	}
	return 0;
}

int cli_check(const struct options *o, struct sampler *smp)
{
	struct disk_info *all;
	size_t n;
	int rc = sampler_list_disks(smp, &all, &n);
	if (rc < 0) {
		util_complain("cannot list block devices: %s\n", strerror(-rc));
		return 2;
	}
	rc = check_names("--disk", o->disks, o->ndisks, all, n);
	if (!rc)
		rc = check_names("--probe", o->probe_disks, o->nprobe_disks, all, n);
	if (!rc)
		rc = check_probe(o, smp, all, n);
	if (!rc)
		rc = check_sets(o, all, n);
	free(all);
	return rc;
}

/* A sweep of the places a run uses: where its messages go, and the
 * places done already (several disks share /var/tmp). */
#define SWEEP_PLACES 64
struct sweep {
	const struct options *o;
	struct sampler *smp;
	int tui;                    /* messages as events, for the event log */
	const char *disk;           /* the disk whose places are swept now */
	struct {
		dev_t dev;
		ino_t ino;
		int probe;
	} done[SWEEP_PLACES];
	size_t ndone;
};

static void sweep_report(void *ctx, const char *line)
{
	struct sweep *s = ctx;
	if (!s->tui) {
		util_complain("%s\n", line);
		return;
	}
	/* The screen hides stderr: the event log (l) keeps the line. */
	struct event e = {.ts = util_real_now(), .mono = util_mono_now()};
	e.type = EV_CLEANUP;
	util_strlcpy(e.disk, s->disk, sizeof e.disk);
	util_strlcpy(e.error, line, sizeof e.error);
	sampler_post(s->smp, &e);
}

/* 1 the first time directory dir is met for this kind of sweep. */
static int first_visit(struct sweep *s, const char *dir, int probe)
{
	struct stat st;
	if (stat(dir, &st) != 0)
		return 0; /* nothing there to sweep */
	for (size_t i = 0; i < s->ndone; i++)
		if (s->done[i].dev == st.st_dev && s->done[i].ino == st.st_ino && s->done[i].probe == probe)
			return 0;
	if (s->ndone < SWEEP_PLACES) {
		s->done[s->ndone].dev = st.st_dev;
		s->done[s->ndone].ino = st.st_ino;
		s->done[s->ndone++].probe = probe;
	}
	return 1;
}

static void sweep_load_place(struct sweep *s, const char *disk, const char *dir)
{
	s->disk = disk;
	if (first_visit(s, dir, 0))
		load_sweep(dir, sweep_report, s);
}

static void sweep_probe_file(struct sweep *s, const char *disk, const char *path, int own_dir)
{
	char dir[PATH_MAX];
	util_strlcpy(dir, path, sizeof dir);
	s->disk = disk;
	if (first_visit(s, dirname(dir), 1))
		probefile_sweep(path, own_dir, sweep_report, s);
}

/* Whether the probe of disk will read a file of the tool's own: its node
 * is refused as the probe opens it (probedevice.c), so it falls back. */
static int probe_needs_file(const struct options *o, const struct sampler *smp, const char *disk)
{
	const char *pf = sampler_probe_file_disk(smp);
	if (o->probe_file && pf && !strcmp(pf, disk))
		return 0; /* reads the user's file */
	char node[80];
	snprintf(node, sizeof node, "/dev/%s", disk);
	int fd = open(node, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return probe_falls_back(errno);
}

static void sweep_probe_place(struct sweep *s, const char *disk)
{
	char path[PATH_MAX], why[256];
	if (probe_needs_file(s->o, s->smp, disk) && probefile_locate(disk, path, sizeof path, why, sizeof why) == 0)
		sweep_probe_file(s, disk, path, 1);
}

/* The A/B's disk: where its load will write, and the probe's file. */
static void sweep_ab(struct sweep *s)
{
	const char *disk = s->o->disks[0];
	char dir[PATH_MAX], why[256];
	if (options_load_kind(s->o) != LOAD_NONE &&
	    load_pick_dir(disk, s->o->load_dir, dir, sizeof dir, why, sizeof why) == 0)
		sweep_load_place(s, disk, dir);
	sweep_probe_place(s, disk);
}

static void sweep_mount(void *ctx, const char *point, const char *disk, dev_t fsdev, int readonly)
{
	struct sweep *s = ctx;
	(void)fsdev;
	(void)readonly;
	if (shown(s->o, disk))
		sweep_load_place(s, disk, point);
}

/* The full screen runs loads (L, A) on any disk shown: --load-dir, or
 * /var/tmp, or a filesystem on the disk (all of them, found without
 * touching other mounts). */
static void sweep_load_places(struct sweep *s)
{
	char disk[64];
	if (s->o->load_dir) {
		sweep_load_place(s, "", s->o->load_dir);
		return;
	}
	if (probefile_disk_of_path("/var/tmp", disk, sizeof disk) == 0 && shown(s->o, disk))
		sweep_load_place(s, disk, "/var/tmp");
	probefile_each_mount(sweep_mount, s, 0);
}

void cli_sweep(const struct options *o, struct sampler *smp, volatile sig_atomic_t *stop)
{
	struct sweep *s = calloc(1, sizeof *s);
	if (!s)
		return;
	s->o = o;
	s->smp = smp;
	s->tui = !o->batch && !o->ab;
	if (o->ab) {
		sweep_ab(s);
		free(s);
		return;
	}
	struct disk_info *all;
	size_t n;
	if (sampler_list_disks(smp, &all, &n) == 0) {
		for (size_t i = 0; i < n && !*stop; i++)
			if (shown(o, all[i].name) && sampler_wants_probe(smp, &all[i]))
				sweep_probe_place(s, all[i].name);
		free(all);
	}
	if (s->tui && !*stop)
		sweep_load_places(s);
	const char *file_disk = sampler_probe_file_disk(smp);
	if (o->probe_file && !o->no_probe)
		sweep_probe_file(s, file_disk ? file_disk : "", o->probe_file, 0);
	free(s);
}

int cli_apply_sets(const struct options *o, struct control *c)
{
	struct tune_req reqs[OPTIONS_MAX_DISKS];
	for (size_t i = 0; i < o->nsets; i++)
		tune_req_init(&reqs[i], o->sets[i].disk, TUNE_SCHEDULER, "scheduler", o->sets[i].sched);
	char err[256];
	if (control_apply_now(c, reqs, o->nsets, err, sizeof err) < 0) {
		util_complain("--set: %s\n", err);
		return 1;
	}
	return 0;
}

int cli_print_udev_rules(const struct options *o, struct sampler *smp, FILE *f)
{
	struct disk_info *all;
	size_t n;
	if (sampler_list_disks(smp, &all, &n) < 0)
		return 1;
	char file[3 * PATH_MAX]; /* a name given may hold a newline: escaped, as every text here */
	util_safe_text(file, sizeof file, o->udev_rules_file ? o->udev_rules_file : UDEVRULE_DEFAULT_FILE);
	fprintf(f, "# Rules that keep the current I/O schedulers across reboots; for %s\n", file);
	for (size_t i = 0; i < n; i++) {
		const char *a = sched_active(&all[i].sched);
		if (!a || !shown(o, all[i].name))
			continue;
		struct udevrule_ident id;
		struct udevrule_found found[8];
		char rule[512];
		udevrule_ident(sampler_udev(smp), all[i].name, &id);
		if (udevrule_line(&id, a, rule, sizeof rule) < 0)
			continue;
		char line[2048];
		udevrule_heading(all[i].name, all[i].model[0] ? all[i].model : disk_kind_name(all[i].kind), line,
				 sizeof line);
		fprintf(f, "\n%s\n%s\n", line, rule);
		if (udevrule_absent()) { /* the note says why */
			char alt[160];
			udevrule_fallback(all[i].name, a, alt, sizeof alt);
			fprintf(f, "#   without udev: %s\n", alt);
		}
		size_t k = udevrule_find(NULL, &id, found, 8);
		for (size_t j = 0; j < k; j++) {
			udevrule_found_line(&found[j], line, sizeof line);
			fprintf(f, "%s\n", line);
		}
	}
	char note[1024];
	udevrule_note(file, NULL, NULL, note, sizeof note);
	fprintf(f, "\n# %s\n", note);
	free(all);
	/* Rules redirected into rules.d on a full disk must not pass for
	 * rules written. */
	int rc = util_flush_check(f);
	if (rc < 0)
		util_complain_write("the udev rules", rc);
	return rc < 0 ? 1 : 0;
}

/* The report, to stdout, and whether it reached its reader: a full disk,
 * a file size limit (EFBIG: SIGXFSZ is ignored) or a reader gone (EPIPE:
 * SIGPIPE is handled) must not pass for a report given, as batch mode
 * checks each of its lines. Made whole in memory first, then written as
 * batch mode writes (util_safe_write), which keeps the reason of the
 * first write that failed (a failure in one of stdio's own flushes
 * midway was only "Input/output error" by the end). Returns 0, or -errno
 * with the reason said. */
static int report_delivered(const struct ab_config *cfg, const struct ab_result *res, enum ab_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc = -ENOMEM;
	if (m) {
		abreport_write(m, cfg, res, fmt);
		rc = fclose(m) != 0 ? -ENOMEM : util_safe_write(stdout, buf, len);
	}
	free(buf);
	if (rc == 0)
		rc = util_flush_check(stdout);
	if (rc < 0)
		util_complain_write("the A/B report", rc);
	return rc;
}

/* The A/B's progress, on a terminal only: one line of stderr rewritten in
 * place, cut to the terminal's width (a wrapped line cannot be rewritten),
 * and cleared at the end so the report starts clean. */
static void ab_progress_line(const char *status, void *ctx)
{
	(void)ctx;
	struct winsize ws;
	int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col - 1 : 79;
	if (status)
		fprintf(stderr, "\r%.*s\033[K", cols, status);
	else
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

int cli_run_ab(const struct options *o, struct control *ctl, volatile sig_atomic_t *stop)
{
	struct ab_config *cfg = calloc(1, sizeof *cfg);
	struct ab_result res;
	char err[512];
	if (!cfg)
		return 1;
	if (session_ab_config(o, o->disks[0], o->ab, o->ab_live, cfg, err, sizeof err) < 0) {
		util_complain("%s\n", err);
		free(cfg);
		return 2;
	}
	int rc = ab_run(cfg, ctl, stop, &res, isatty(STDERR_FILENO) ? ab_progress_line : NULL, NULL, err, sizeof err);
	/* Every setting back before the report: it says where the disk is.
	 * The run's many switches collapse into one per setting. */
	control_restore_to(ctl, 0);
	int unrestored = control_finish(ctl, 1, 60.0, stderr);
	tune_read(cfg->disk, TUNE_SCHEDULER, "scheduler", res.original, sizeof res.original);
	if (rc < 0)
		util_complain("%s: %s\n", cfg->live ? "--ab-live" : "--ab", err);
	int lost = 0;
	if (res.nphases || rc == 0) {
		lost = report_delivered(cfg, &res, o->ab_format) < 0;
	}
	int status = rc < 0 ? (res.nphases ? 1 : 2) : res.partial || unrestored || lost ? 1 : 0;
	ab_result_free(&res);
	free(cfg);
	return status;
}
