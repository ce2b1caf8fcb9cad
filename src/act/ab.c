/* ab: see include/ab.h */
#include "ab.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "control.h"
#include "diskstats.h"
#include "iostat.h"
#include "probe.h"
#include "probefile.h"
#include "util.h"

/* Queue attributes a variant may set; anything else is a file of the
 * scheduler's own, under queue/iosched/. */
static int is_queue_attr(const char *disk, const char *key)
{
	char path[PATH_MAX];
	static const char *const known[] = {"nr_requests", "read_ahead_kb", "wbt_lat_usec", "nomerges", "rq_affinity"};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(key, known[i]))
			return 1;
	return tune_path(disk, TUNE_QUEUE, key, path, sizeof path) == 0 && access(path, F_OK) == 0;
}

static int parse_variant(const char *disk, char *text, struct ab_variant *v, char *err, size_t len)
{
	memset(v, 0, sizeof *v);
	util_strlcpy(v->text, text, sizeof v->text);
	char *save = NULL, *part = strtok_r(text, ":", &save);
	if (!part || !*part) {
		util_fmt(err, len, "--ab: an empty variant; give SCHED[:key=value...]");
		return -1;
	}
	util_strlcpy(v->sched, part, sizeof v->sched);
	while ((part = strtok_r(NULL, ":", &save))) {
		char *eq = strchr(part, '=');
		if (!eq || eq == part || !eq[1] || v->ntun == AB_MAX_TUNABLES) {
			util_fmt(err, len, "--ab: '%s' in '%s' is not key=value (at most %d per variant)", part, v->text,
				 AB_MAX_TUNABLES);
			return -1;
		}
		*eq = '\0';
		enum tune_kind k = is_queue_attr(disk, part) ? TUNE_QUEUE : TUNE_IOSCHED;
		tune_req_init(&v->tun[v->ntun++], disk, k, part, eq + 1);
	}
	return 0;
}

int ab_parse_variants(const char *list, struct ab_config *cfg, char *err, size_t len)
{
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return -1;
	cfg->nv = 0;
	int rc = 0;
	for (char *t = strtok_r(copy, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
		if (cfg->nv == AB_MAX_VARIANTS) {
			util_fmt(err, len, "--ab: at most %d variants", AB_MAX_VARIANTS);
			rc = -1;
		} else {
			rc = parse_variant(cfg->disk, t, &cfg->v[cfg->nv++], err, len);
		}
	}
	free(copy);
	if (rc == 0 && cfg->nv < 2) {
		util_fmt(err, len, "--ab: give at least two variants to compare, e.g. --ab none,bfq");
		rc = -1;
	}
	return rc;
}

void ab_order(size_t nv, int round, int *out)
{
	for (size_t i = 0; i < nv; i++)
		out[i] = round % 2 ? (int)(nv - 1 - i) : (int)i;
}

/* Everything that can be checked before the first change. */
static int check(const struct ab_config *cfg, char *err, size_t len)
{
	for (size_t i = 0; i < cfg->nv; i++) {
		struct tune_req r;
		tune_req_init(&r, cfg->disk, TUNE_SCHEDULER, "scheduler", cfg->v[i].sched);
		if (tune_validate(&r, err, len) < 0)
			return -1;
		for (size_t k = 0; k < cfg->v[i].ntun; k++)
			if (cfg->v[i].tun[k].kind == TUNE_QUEUE && tune_validate(&cfg->v[i].tun[k], err, len) < 0)
				return -1;
	}
	return 0;
}

/* Sleep up to secs, waking for a signal. Returns 1 when stopped. */
static int nap(double secs, volatile sig_atomic_t *stop)
{
	double end = util_mono_now() + secs;
	while (!*stop && util_mono_now() < end)
		util_sleep_until(util_mono_now() + 0.05 < end ? util_mono_now() + 0.05 : end);
	return *stop != 0;
}

static int disk_row(const char *disk, struct diskstats_row *out)
{
	struct diskstats_table t = {0};
	int rc = diskstats_read("/proc/diskstats", &t);
	const struct diskstats_row *r = rc == 0 ? diskstats_find(&t, disk) : NULL;
	if (r)
		*out = *r;
	diskstats_free(&t);
	return r ? 0 : -ENOENT;
}

/* One cold start of cmd: the page cache dropped first. Returns seconds, or
 * a negative value when it could not run. */
static double cold_start(const char *cmd)
{
	sync();
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3", 1) != 1) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	double t0 = util_mono_now();
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return util_mono_now() - t0;
}

static int apply_variant(struct control *c, const char *disk, const struct ab_variant *v, char *err, size_t len)
{
	struct tune_req reqs[AB_MAX_TUNABLES + 1];
	/* Writing the scheduler in force changes nothing, and its tunables
	 * would carry over from the last variant: pass through another one so
	 * every phase starts from a freshly set-up scheduler. */
	char now[32];
	if (tune_read(disk, TUNE_SCHEDULER, "scheduler", now, sizeof now) == 0 && !strcmp(now, v->sched)) {
		struct tune_req away;
		tune_req_init(&away, disk, TUNE_SCHEDULER, "scheduler", strcmp(v->sched, "none") ? "none" : "mq-deadline");
		if (control_apply_now(c, &away, 1, err, len) < 0)
			return -1;
	}
	tune_req_init(&reqs[0], disk, TUNE_SCHEDULER, "scheduler", v->sched);
	for (size_t k = 0; k < v->ntun; k++)
		reqs[k + 1] = v->tun[k];
	if (control_apply_now(c, reqs, v->ntun + 1, err, len) < 0)
		return -1;
	return 0;
}

static int start_probe(const struct ab_config *cfg, struct probe **p, char *err, size_t len);

/* Let the switch settle for the warm-up, then measure one phase with a
 * probe thread of its own, started after the warm-up as each by-hand fio
 * reader is a new process started after the switch. This matters: right
 * after a switch every task's queue is new at once, and bfq's burst
 * detection denies such a burst the weight raising a reader that starts
 * alone gets (seen here: bfq's p50 as bad as none's with the probe started
 * at the switch, 60x better with it started 2 s later, as fio's is).
 * Returns 1 when a signal cut it short, -1 on error. */
static int phase(const struct ab_config *cfg, volatile sig_atomic_t *stop, struct ab_phase *ph, char *err, size_t len)
{
	int cut = nap(cfg->warmup_s, stop);
	struct probe *p;
	if (start_probe(cfg, &p, err, len) < 0)
		return -1;
	struct probe_reading *r = malloc(sizeof *r);
	if (!r) {
		probe_stop(p);
		return -1;
	}
	struct diskstats_row d0, d1;
	disk_row(cfg->disk, &d0);
	double t0 = util_mono_now();
	ph->start_ts = util_real_now();
	for (int i = 0; !cut && cfg->startup_cmd && i < cfg->startup_runs && i < AB_MAX_STARTUPS; i++) {
		double s = cold_start(cfg->startup_cmd);
		if (s >= 0)
			ph->startup_s[ph->nstartup++] = s;
	}
	if (!cut)
		cut = nap(cfg->dwell_s - (util_mono_now() - t0), stop);
	probe_read(p, util_mono_now(), r);
	double dt = util_mono_now() - t0;
	ph->h = r->interval;
	ph->flagged = r->flagged_interval;
	struct iostat_rates io;
	if (disk_row(cfg->disk, &d1) == 0 && iostat_compute(&d0, &d1, dt, &io) == 0) {
		ph->read_MBps = io.rkB_s / 1024.0;
		ph->write_MBps = io.wkB_s / 1024.0;
	}
	free(r);
	probe_stop(p);
	return cut;
}

static int load_dir(const struct ab_config *cfg, char *dir, size_t len, char *err, size_t elen)
{
	if (cfg->load_dir) {
		util_strlcpy(dir, cfg->load_dir, len);
		return 0;
	}
	char d[64];
	if (probefile_disk_of_path("/var/tmp", d, sizeof d) == 0 && strcmp(d, cfg->disk) == 0) {
		util_strlcpy(dir, "/var/tmp", len);
		return 0;
	}
	if (probefile_mount_of_disk(cfg->disk, dir, len) == 0)
		return 0;
	util_fmt(err, elen, "--load %s: no read-write filesystem on %s to write into; give --load-dir DIR on it, or --load none",
		 load_kind_name(cfg->load), cfg->disk);
	return -1;
}

static int start_probe(const struct ab_config *cfg, struct probe **p, char *err, size_t len)
{
	struct probe_config pc = {0};
	util_strlcpy(pc.disk, cfg->disk, sizeof pc.disk);
	pc.io_size = cfg->probe_size;
	pc.rate_hz = cfg->probe_rate_hz;
	pc.seed = cfg->seed;
	pc.min_plausible_ns = 5000;
	pc.file_size = 1ull << 30;
	return probe_start(&pc, p, err, len);
}

static struct ab_phase *next_phase(struct ab_result *res)
{
	if (res->nphases == AB_MAX_PHASES)
		return NULL;
	struct ab_phase *ph = &res->phases[res->nphases];
	memset(ph, 0, sizeof *ph);
	return ph;
}

/* The measured phases, in order; stops at the first error or signal. */
static int run_phases(const struct ab_config *cfg, struct control *ctl, int baseline,
		      volatile sig_atomic_t *stop, struct ab_result *res, char *err, size_t len)
{
	int order[AB_MAX_VARIANTS];
	int rounds = baseline ? 1 : cfg->rounds;
	for (int r = 0; r < rounds && !*stop; r++) {
		ab_order(cfg->nv, r, order);
		for (size_t i = 0; i < cfg->nv && !*stop; i++) {
			struct ab_phase *ph = next_phase(res);
			if (!ph)
				return 0;
			if (apply_variant(ctl, cfg->disk, &cfg->v[order[i]], err, len) < 0)
				return -1;
			ph->variant = order[i];
			ph->round = baseline ? 0 : r + 1;
			int cut = phase(cfg, stop, ph, err, len);
			if (cut < 0)
				return -1;
			if (!cut)
				res->nphases++;
		}
	}
	return 0;
}

int ab_run(const struct ab_config *cfg, struct control *ctl, volatile sig_atomic_t *stop, struct ab_result *res,
	   char *err, size_t len)
{
	memset(res, 0, sizeof *res);
	util_strlcpy(res->disk, cfg->disk, sizeof res->disk);
	struct utsname u;
	if (uname(&u) == 0)
		util_strlcpy(res->kernel, u.release, sizeof res->kernel);
	tune_read(cfg->disk, TUNE_SCHEDULER, "scheduler", res->original, sizeof res->original);
	if (cfg->probe_rate_hz > 0)
		util_fmt(res->probe, sizeof res->probe, "QD1 %u B reads at %g Hz (paced)", cfg->probe_size, cfg->probe_rate_hz);
	else
		util_fmt(res->probe, sizeof res->probe, "QD1 %u B reads back-to-back", cfg->probe_size);
	res->phases = calloc(AB_MAX_PHASES, sizeof *res->phases);
	if (!res->phases)
		return -1;
	char dir[PATH_MAX] = "";
	if (check(cfg, err, len) < 0 || (cfg->load != LOAD_NONE && load_dir(cfg, dir, sizeof dir, err, len) < 0))
		return -1;
	int rc = 0;
	if (cfg->baseline)
		rc = run_phases(cfg, ctl, 1, stop, res, err, len);
	struct load *l = NULL;
	if (rc == 0 && !*stop && load_start(cfg->load, dir, cfg->load_size, &l, err, len) < 0)
		rc = -1;
	if (cfg->load == LOAD_NONE)
		util_strlcpy(res->load, "none (the user's own)", sizeof res->load);
	else
		util_fmt(res->load, sizeof res->load, "%s (built in, %llu MiB in %s)", load_kind_name(cfg->load),
			 (unsigned long long)(cfg->load_size >> 20), dir);
	if (rc == 0 && !*stop)
		rc = run_phases(cfg, ctl, 0, stop, res, err, len);
	load_stop(l);
	res->partial = *stop != 0;
	return rc;
}

void ab_result_free(struct ab_result *res)
{
	free(res->phases);
	res->phases = NULL;
	res->nphases = 0;
}
