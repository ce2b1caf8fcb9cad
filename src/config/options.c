/* options: see include/config/options.h */
#include "config/options.h"
#include "optdefs.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probe/freshjob.h"
#include "act/load.h"
#include "model/proccols.h"
#include "base/util.h"

/* A numeric option: its value kind, field, range, default and unit. */
#define NUM(kind, field, lo_, hi_, dflt_, unit_) \
	.val = kind, .off = offsetof(struct options, field), .lo = lo_, .hi = hi_, .dflt = dflt_, .unit = unit_

static const struct option_def defs[] = {
	{.name = "batch", .short_name = 'b', .arg = NULL, .help = "batch mode: no screen, print the disk table every interval"},
	{.name = "iterations", .short_name = 'n', .arg = "N", .help = "stop after N intervals; without it, run until stopped",
	 NUM(OV_LONG, iterations, 1, ITERATIONS_MAX, NAN, "a whole number")},
	{.name = "delay", .short_name = 'd', .arg = "SECS", .help = "refresh interval in seconds, fractions allowed",
	 NUM(OV_SECS, delay_s, DELAY_MIN_S, DELAY_MAX_S, 1, "seconds")},
	{.name = "disk", .short_name = OPT_DISK, .arg = "NAME[,NAME]", .help = "show only these whole disks (repeatable)"},
	{.name = "all-disks", .short_name = OPT_ALL_DISKS, .arg = NULL, .help = "also the disks hidden by default: read-only and squashfs loop devices (snaps), zram, RAM disks, dm and md"},
	{.name = "json", .short_name = OPT_JSON, .arg = NULL, .help = "batch output as one JSON object per line per interval (implies -b)"},
	{.name = "csv", .short_name = OPT_CSV, .arg = NULL, .help = "batch output as CSV: a header row, then one row per disk per interval (implies -b)"},
	{.name = "csv-procs", .short_name = OPT_CSV_PROCS, .arg = NULL, .help = "batch output as CSV of processes: a header row, then up to --procs rows per interval, busiest first (implies -b)"},
	{.name = "csv-cgroups", .short_name = OPT_CSV_CGROUPS, .arg = NULL, .help = "batch output as CSV of cgroups (v2): a header row, then a row per cgroup per interval, busiest first (implies -b)"},
	{.name = "record", .short_name = OPT_RECORD, .arg = "FILE", .help = "append every interval's sample to FILE as JSON lines (full screen or batch)"},
	{.name = "replay", .short_name = OPT_REPLAY, .arg = "FILE", .help = "show a recording instead of the system: no root, nothing changed"},
	{.name = "replay-speed", .short_name = OPT_REPLAY_SPEED, .arg = "X", .help = "replay X times as fast as recorded; without it 1, and batch output at once",
	 NUM(OV_REAL, replay_speed, REPLAY_SPEED_MIN, REPLAY_SPEED_MAX, NAN, "a factor")},
	{.name = "prometheus-textfile", .short_name = OPT_PROM, .arg = "PATH", .help = "rewrite PATH every interval in Prometheus text format (node_exporter)"},
	{.name = "probe", .short_name = OPT_PROBE, .arg = "DISK[,DISK]", .help = "probe only these disks (default: the real disks shown, and those named with --disk; O adds one)"},
	{.name = "no-probe", .short_name = OPT_NO_PROBE, .arg = NULL, .help = "no latency probe"},
	{.name = "probe-rate", .short_name = OPT_PROBE_RATE, .arg = "HZ|max", .help = "probe reads per second, jittered, or max: back-to-back",
	 NUM(OV_REAL, probe_rate_hz, PROBE_RATE_MIN, PROBE_RATE_MAX, PROBE_RATE_DEFAULT, "reads per second"),
	 .extra = ", or max"},
	{.name = "probe-size", .short_name = OPT_PROBE_SIZE, .arg = "BYTES", .help = "size of each probe read, a multiple of the logical block",
	 NUM(OV_BYTES, probe_size, 512, PROBE_SIZE_MAX, PROBE_SIZE_DEFAULT, "bytes")},
	{.name = "probe-file", .short_name = OPT_PROBE_FILE, .arg = "PATH", .help = "read this file instead of the device node of the disk it is on"},
	{.name = "probe-file-size", .short_name = OPT_PROBE_FILE_SIZE, .arg = "SIZE", .help = "where the device node cannot be opened, write a probe file of SIZE to read (without it the probe reads the disk's own files and writes nothing)",
	 NUM(OV_BYTES, probe_file_size, PROBE_FILE_SIZE_MIN, PROBE_FILE_SIZE_MAX, PROBE_FILE_SIZE_DEFAULT, "bytes")},
	{.name = "seed", .short_name = OPT_SEED, .arg = "N", .help = "seed of the probe's random offsets, for repeatable runs"},
	{.name = "set", .short_name = OPT_SET, .arg = "DISK=SCHED", .help = "switch DISK to scheduler SCHED at start (repeatable)"},
	{.name = "procs", .short_name = OPT_PROCS, .arg = "N", .help = "processes in each JSON line or --csv-procs interval, busiest first; 0 reads none",
	 NUM(OV_INT, procs, 0, PROCS_MAX, PROCS_DEFAULT, "a whole number")},
	{.name = "threads", .short_name = OPT_THREADS, .arg = NULL, .help = "per-thread rows instead of per-process ones"},
	{.name = "no-bpf", .short_name = OPT_NO_BPF, .arg = NULL, .help = "no block-layer latency per process (the BPF program is not loaded)"},
	{.name = "enable-delayacct", .short_name = OPT_DELAYACCT, .arg = NULL, .help = "turn kernel.task_delayacct on for the run (back as it was when the last run that asked for it ends)"},
	{.name = "ab", .short_name = OPT_AB, .arg = "VAR,VAR[,...]", .help = "A/B: compare schedulers (SCHED[:key=value...]) on the --disk, print a report, exit"},
	{.name = "ab-live", .short_name = OPT_AB_LIVE, .arg = "VAR,VAR[,...]", .help = "live A/B on your own load (a build, a copy): switch the --disk between the variants in rounds of one slot each, in a coin's order, and decide for your programs' reads; no load of its own; print a report, exit"},
	{.name = "max-time", .short_name = OPT_MAX_TIME, .arg = "SECS", .help = "--ab-live: stop after this long, at the end of a round",
	 NUM(OV_SECS, max_time_s, 30, 3600, 300, "seconds")},
	{.name = "rounds", .short_name = OPT_ROUNDS, .arg = "N", .help = "A/B rounds at most, each pair in the order A B B A (--ab-live: as many as --max-time holds); a verdict needs 6 or more, and a run of more stops after 6 when every figure is decided",
	 NUM(OV_INT, rounds, 1, 100, 6, "a whole number")},
	{.name = "dwell", .short_name = OPT_DWELL, .arg = "SECS", .help = "A/B seconds measured per phase (--ab-live: per slot, 4; 10 where bfq is compared)",
	 NUM(OV_SECS, dwell_s, 1, 3600, 3, "seconds")},
	{.name = "warmup", .short_name = OPT_WARMUP, .arg = "SECS", .help = "A/B seconds after each switch, measured but left out (--ab-live: the washout, 1; 5 where bfq is compared)",
	 NUM(OV_SECS, warmup_s, 0, 600, 0.5, "seconds")},
	{.name = "load", .short_name = OPT_LOAD, .arg = "KIND", .help = "A/B background load: write (default), fsync or none"},
	{.name = "load-dir", .short_name = OPT_LOAD_DIR, .arg = "DIR", .help = "where the load writes (default: a filesystem on the disk)"},
	{.name = "load-size", .short_name = OPT_LOAD_SIZE, .arg = "SIZE", .help = "bound of the load's scratch data",
	 NUM(OV_BYTES, load_size, 64ull << 20, 1ull << 40, 2ull << 30, "bytes")},
	{.name = "format", .short_name = OPT_FORMAT, .arg = "FMT", .help = "A/B report: text (default), md, csv or json"},
	{.name = "baseline", .short_name = OPT_BASELINE, .arg = NULL, .help = "A/B: first measure each variant without load"},
	{.name = "startup", .short_name = OPT_STARTUP, .arg = "CMD", .help = "A/B: also time cold starts of CMD in each phase (they decide the desktop's choice)"},
	{.name = "startup-runs", .short_name = OPT_STARTUP_RUNS, .arg = "N", .help = "cold starts per phase",
	 NUM(OV_INT, startup_runs, 1, 32, 5, "a whole number")},
	{.name = "fresh-reads", .short_name = OPT_FRESH_READS, .arg = "N", .help = "reads in each fresh reader's job: F, --fresh-every (2000), A/B (250: a job that fits a phase)",
	 NUM(OV_INT, fresh_reads, 1, 1000000, FRESHJOB_READS_DEFAULT, "a whole number")},
	{.name = "fresh-every", .short_name = OPT_FRESH_EVERY, .arg = "SECS", .help = "full screen: start a fresh reader on the selected disk every SECS",
	 NUM(OV_SECS, fresh_every_s, 1, 3600, NAN, "seconds")},
	{.name = "restore", .short_name = OPT_RESTORE, .arg = NULL, .help = "at exit, put back every scheduler and tunable the tool changed"},
	{.name = "print-udev-rule", .short_name = OPT_PRINT_UDEV, .arg = NULL, .help = "print udev rules that keep the current schedulers across reboots, and exit"},
	{.name = "udev-rules-file", .short_name = OPT_UDEV_FILE, .arg = "PATH", .help = "where P writes its rules (default /etc/udev/rules.d/60-iosched-top.rules)"},
	{.name = "demo-disk", .short_name = OPT_DEMO_DISK, .arg = NULL, .help = "make an HDD-like disk (null_blk) with a writer on it and show it, for a demo or a stream; removed at exit (root)"},
	{.name = "theme", .short_name = OPT_THEME, .arg = "NAME|PATH", .help = "colour theme: default, light, mono, high-contrast, colorblind, stream, or a file"},
	{.name = "no-color", .short_name = OPT_NO_COLOR, .arg = NULL, .help = "no colours, attributes only (as NO_COLOR=1 does)"},
	{.name = "big", .short_name = OPT_BIG, .arg = NULL, .help = "presentation mode: scheduler and probe p50/p99 in large digits, the chart full width"},
	{.name = "read-only", .short_name = OPT_READ_ONLY, .arg = NULL, .help = "a pure monitor: every key and option that would change the system is refused"},
	{.name = "no-mouse", .short_name = OPT_NO_MOUSE, .arg = NULL, .help = "do not take mouse clicks and the wheel (the terminal keeps them)"},
	{.name = "sort", .short_name = OPT_SORT, .arg = "COLUMN", .help = "sort the process pane by COLUMN (pid, user, prio, read/s, write/s, ..., command)"},
	{.name = "config", .short_name = OPT_CONFIG, .arg = "PATH", .help = "read options from PATH instead of ~/.config/iosched-top/config"},
	{.name = "no-config", .short_name = OPT_NO_CONFIG, .arg = NULL, .help = "read no configuration file"},
	{.name = "version", .short_name = 'V', .arg = NULL, .help = "print the version and exit"},
	{.name = "help", .short_name = 'h', .arg = NULL, .help = "print this help and exit"},
};

#define NDEFS (sizeof defs / sizeof defs[0])
/* The options given are kept as bits of a uint64_t (from_config, seen). */
_Static_assert(NDEFS <= OPTIONS_DEFS_MAX, "more options than bits");

const struct option_def *options_table(size_t *n)
{
	*n = NDEFS;
	return defs;
}

/* --disk takes a name or a comma-separated list. Existence is checked
 * later, against the disks the system has. */
static int add_name(const char *opt, const char *t, char **list, size_t *n, char *err, size_t len)
{
	if (strchr(t, '/')) {
		snprintf(err, len, "%s: '%s' is a path; give the kernel name as in /proc/diskstats (e.g. sda, not /dev/sda)",
			 opt, t);
		return -1;
	}
	if (*n == OPTIONS_MAX_DISKS) {
		snprintf(err, len, "%s: more than %d disks given", opt, OPTIONS_MAX_DISKS);
		return -1;
	}
	for (size_t i = 0; i < *n; i++)
		if (strcmp(list[i], t) == 0) {
			snprintf(err, len, "%s: '%s' is given twice", opt, t);
			return -1;
		}
	if (!(list[*n] = strdup(t))) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	(*n)++;
	return 0;
}

static int add_names(const char *opt, const char *v, char **list, size_t *n, char *err, size_t len)
{
	size_t l = strlen(v);
	if (l == 0 || v[0] == ',' || v[l - 1] == ',' || strstr(v, ",,")) {
		snprintf(err, len, "%s: '%s' has an empty name; give NAME or NAME,NAME (e.g. %s sda,nvme0n1)", opt, v, opt);
		return -1;
	}
	char *copy = strdup(v), *save = NULL;
	if (!copy) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	int rc = 0;
	for (char *t = strtok_r(copy, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save))
		rc = add_name(opt, t, list, n, err, len);
	free(copy);
	return rc;
}

static int parse_seed(const char *v, struct options *o, char *err, size_t len)
{
	if (util_parse_u64(v, &o->seed) < 0) {
		snprintf(err, len, "--seed: '%s' is not accepted; give a whole number from 0 to 18446744073709551615", v);
		return -1;
	}
	o->have_seed = 1;
	return 0;
}

static int add_set(const char *v, struct options *o, char *err, size_t len)
{
	const char *eq = strchr(v, '=');
	if (!eq || eq == v || !eq[1] || strchr(eq + 1, '=')) {
		snprintf(err, len, "--set: '%s' is not accepted; give DISK=SCHEDULER, e.g. --set sda=bfq", v);
		return -1;
	}
	if (o->nsets == OPTIONS_MAX_DISKS) {
		snprintf(err, len, "--set: more than %d given", OPTIONS_MAX_DISKS);
		return -1;
	}
	for (size_t i = 0; i < o->nsets; i++)
		if (strncmp(o->sets[i].disk, v, (size_t)(eq - v)) == 0 && o->sets[i].disk[eq - v] == '\0') {
			snprintf(err, len, "--set: disk '%.*s' is given twice", (int)(eq - v), v);
			return -1;
		}
	o->sets[o->nsets].disk = strndup(v, (size_t)(eq - v));
	o->sets[o->nsets].sched = strdup(eq + 1);
	o->nsets++;
	if (!o->sets[o->nsets - 1].disk || !o->sets[o->nsets - 1].sched) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	return 0;
}

/* A string option given once more replaces the earlier value. */
static int set_string(char **dst, const char *arg, char *err, size_t len)
{
	free(*dst);
	if (!(*dst = strdup(arg))) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	return 0;
}

/* A file option: not empty. (Given twice in one place is refused by
 * options_seen_twice; the command line replaces what the configuration
 * file set.) */
static int set_path(const char *opt, char **dst, const char *arg, char *err, size_t len)
{
	if (!*arg) {
		snprintf(err, len, "%s: empty path", opt);
		return -1;
	}
	return set_string(dst, arg, err, len);
}

int options_index_of(int c)
{
	for (size_t i = 0; i < NDEFS; i++)
		if (defs[i].short_name == c)
			return (int)i;
	return -1;
}

/* A byte count as the tables print it: the largest unit it is a whole
 * number of (16M, 4K, 512). */
static void fmt_bytes(double v, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	uint64_t b = (uint64_t)v;
	int u = -1;
	while (u < 3 && b >= 1024 && b % 1024 == 0)
		b /= 1024, u++;
	snprintf(buf, len, "%llu%s", (unsigned long long)b, u < 0 ? "" : (char[]){units[u], '\0'});
}

static void fmt_value(const struct option_def *d, double v, char *buf, size_t len)
{
	if (d->val == OV_BYTES)
		fmt_bytes(v, buf, len);
	else
		snprintf(buf, len, "%.15g", v);
}

void options_range_text(const struct option_def *d, char *buf, size_t len)
{
	char lo[24], hi[24], df[24];
	buf[0] = '\0';
	if (d->val == OV_NONE)
		return;
	fmt_value(d, d->lo, lo, sizeof lo);
	fmt_value(d, d->hi, hi, sizeof hi);
	if (isnan(d->dflt)) {
		snprintf(buf, len, "%s to %s%s", lo, hi, d->extra ? d->extra : "");
		return;
	}
	fmt_value(d, d->dflt, df, sizeof df);
	snprintf(buf, len, "%s to %s%s, default %s", lo, hi, d->extra ? d->extra : "", df);
}

/* Read a numeric option's value into its field, range checked. */
static int parse_value(const struct option_def *d, const char *v, struct options *o, char *err, size_t len)
{
	char *end = NULL;
	double x = NAN;
	uint64_t b = 0;
	errno = 0;
	if (d->val == OV_BYTES) {
		if (util_parse_size(v, &b) == 0)
			x = (double)b;
	} else if (d->val == OV_INT || d->val == OV_LONG) {
		long n = strtol(v, &end, 10);
		if (!errno && end != v && !*end)
			x = (double)n;
	} else {
		double r = strtod(v, &end);
		if (!errno && end != v && !*end && isfinite(r))
			x = r;
	}
	if (!(x >= d->lo && x <= d->hi)) {
		char lo[24], hi[24];
		fmt_value(d, d->lo, lo, sizeof lo);
		fmt_value(d, d->hi, hi, sizeof hi);
		snprintf(err, len, "--%s: '%s' is not accepted; give %s from %s to %s%s%s", d->name, v, d->unit, lo, hi,
			 d->extra ? d->extra : "",
			 d->val == OV_BYTES ? " (K, M, G suffixes allowed)" : d->val == OV_SECS ? " (fractions allowed, e.g. 0.5)" : "");
		return -1;
	}
	char *field = (char *)o + d->off;
	switch (d->val) {
	case OV_INT: *(int *)(void *)field = (int)x; break;
	case OV_LONG: *(long *)(void *)field = (long)x; break;
	case OV_SECS:
	case OV_REAL: *(double *)(void *)field = x; break;
	case OV_BYTES: *(uint64_t *)(void *)field = b; break;
	case OV_NONE: break;
	}
	return 0;
}

/* Every numeric option at its default. */
void options_defaults(struct options *o)
{
	for (size_t i = 0; i < NDEFS; i++)
		if (defs[i].val != OV_NONE && !isnan(defs[i].dflt)) {
			char v[32];
			snprintf(v, sizeof v, "%.17g", defs[i].dflt);
			char err[8];
			if (defs[i].val == OV_BYTES)
				*(uint64_t *)(void *)((char *)o + defs[i].off) = (uint64_t)defs[i].dflt;
			else
				(void)parse_value(&defs[i], v, o, err, sizeof err);
		}
}

/* The switches: options without a value that turn one field on. NULL for
 * any other option. */
static int *switch_of(int c, struct options *o)
{
	switch (c) {
	case OPT_NO_PROBE: return &o->no_probe;
	case OPT_NO_BPF: return &o->no_bpf;
	case OPT_NO_COLOR: return &o->no_color;
	case OPT_BIG: return &o->big;
	case OPT_ALL_DISKS: return &o->all_disks;
	case OPT_DEMO_DISK: return &o->demo_disk;
	case OPT_READ_ONLY: return &o->read_only;
	case OPT_NO_MOUSE: return &o->no_mouse;
	case OPT_RESTORE: return &o->restore;
	case OPT_THREADS: return &o->threads;
	case OPT_DELAYACCT: return &o->enable_delayacct;
	case OPT_BASELINE: return &o->baseline;
	case OPT_PRINT_UDEV: return &o->print_udev_rule;
	case 'b': return &o->batch;
	case 'V': return &o->version;
	case 'h': return &o->help;
	}
	return NULL;
}

/* --json or --csv: a batch run in that format, one format per run. */
static int set_format(enum output_format f, struct options *o, char *err, size_t len)
{
	if (o->format != OUT_TEXT && o->format != f) {
		snprintf(err, len, "--json, --csv, --csv-procs and --csv-cgroups conflict: one output format per run");
		return -1;
	}
	o->format = f;
	o->batch = 1;
	return 0;
}

static int set_sort(const char *arg, struct options *o, char *err, size_t len)
{
	if (proccols_from_name(arg) < 0) {
		char keys[256];
		snprintf(err, len, "--sort: '%s' is not a column of the process pane (%s)", arg,
			 proccols_keys(" ", keys, sizeof keys));
		return -1;
	}
	free(o->sort);
	return (o->sort = strdup(arg)) ? 0 : -1;
}

static int set_load(const char *arg, struct options *o, char *err, size_t len)
{
	if ((o->load = load_kind_parse(arg)) < 0) {
		snprintf(err, len, "--load: '%s' is not accepted; give write, fsync or none", arg);
		return -1;
	}
	return 0;
}

static int set_ab_format(const char *arg, struct options *o, char *err, size_t len)
{
	static const char *const names[] = { [AB_TEXT] = "text", [AB_MD] = "md", [AB_CSV] = "csv", [AB_JSON] = "json" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(arg, names[i])) {
			o->ab_format = (enum ab_format)i;
			return 0;
		}
	snprintf(err, len, "--format: '%s' is not accepted; give text, md, csv or json", arg);
	return -1;
}

static int set_udev_file(const char *arg, struct options *o, char *err, size_t len)
{
	const char *base = strrchr(arg, '/') ? strrchr(arg, '/') + 1 : arg;
	size_t bl = strlen(base);
	if (arg[0] != '/') {
		snprintf(err, len, "--udev-rules-file: '%s' is not an absolute path", arg);
		return -1;
	}
	/* udev reads only *.rules, and a name past NAME_MAX is no file:
	 * either would be written and then never used */
	if (strlen(arg) >= PATH_MAX || bl > NAME_MAX || bl <= 6 || strcmp(base + bl - 6, ".rules") != 0) {
		snprintf(err, len, "--udev-rules-file: must name a file ending in .rules (udev reads no other), "
			 "its name at most %d bytes: '%.100s'", NAME_MAX, arg);
		return -1;
	}
	return set_string(&o->udev_rules_file, arg, err, len);
}

/* A numeric option of the table: its value, read and checked. */
static int apply_value(int i, const char *arg, struct options *o, char *err, size_t len)
{
	o->fresh_reads_given |= defs[i].short_name == OPT_FRESH_READS;
	o->rounds_given |= defs[i].short_name == OPT_ROUNDS;
	o->dwell_given |= defs[i].short_name == OPT_DWELL;
	o->warmup_given |= defs[i].short_name == OPT_WARMUP;
	if (defs[i].short_name == OPT_LOAD_SIZE)
		o->load_size_given = 1;
	o->probe_file_size_given |= defs[i].short_name == OPT_PROBE_FILE_SIZE;
	if (defs[i].short_name == OPT_PROBE_RATE) {
		o->probe_rate_given = 1;
		if (strcmp(arg, "max") == 0) {
			o->probe_rate_hz = 0;
			return 0;
		}
	}
	return parse_value(&defs[i], arg, o, err, len);
}

/* One option of the command line or the file: a number, a switch, or
 * one of the options with a reader of their own. */
int options_apply(int c, const char *arg, struct options *o, char *err, size_t len)
{
	int i = options_index_of(c);
	if (i >= 0 && defs[i].val != OV_NONE)
		return apply_value(i, arg, o, err, len);
	int *on = switch_of(c, o);
	if (on) {
		*on = 1;
		return 0;
	}
	switch (c) {
	case OPT_CSV: return set_format(OUT_CSV, o, err, len);
	case OPT_CSV_PROCS: return set_format(OUT_CSV_PROCS, o, err, len);
	case OPT_CSV_CGROUPS: return set_format(OUT_CSV_CGROUPS, o, err, len);
	case OPT_JSON: return set_format(OUT_JSON, o, err, len);
	case OPT_RECORD: return set_path("--record", &o->record, arg, err, len);
	case OPT_REPLAY: return set_path("--replay", &o->replay, arg, err, len);
	case OPT_PROM: return set_path("--prometheus-textfile", &o->prom_file, arg, err, len);
	case OPT_THEME: return set_path("--theme", &o->theme, arg, err, len);
	case OPT_PROBE_FILE: return set_path("--probe-file", &o->probe_file, arg, err, len);
	case OPT_CONFIG:
	case OPT_NO_CONFIG: return 0; /* taken before the file is read (optmerge.c) */
	case OPT_SORT: return set_sort(arg, o, err, len);
	case OPT_PROBE: return add_names("--probe", arg, o->probe_disks, &o->nprobe_disks, err, len);
	case OPT_DISK: return add_names("--disk", arg, o->disks, &o->ndisks, err, len);
	case OPT_SEED: return parse_seed(arg, o, err, len);
	case OPT_SET: return add_set(arg, o, err, len);
	case OPT_AB:
	case OPT_AB_LIVE:
		if (o->ab && o->ab_live != (c == OPT_AB_LIVE)) {
			snprintf(err, len, "--ab and --ab-live are two kinds of A/B: give one");
			return -1;
		}
		o->ab_live = c == OPT_AB_LIVE;
		return set_string(&o->ab, arg, err, len);
	case OPT_LOAD: return set_load(arg, o, err, len);
	case OPT_LOAD_DIR: return set_string(&o->load_dir, arg, err, len);
	case OPT_FORMAT: return set_ab_format(arg, o, err, len);
	case OPT_STARTUP: return set_string(&o->startup, arg, err, len);
	case OPT_UDEV_FILE: return set_udev_file(arg, o, err, len);
	}
	snprintf(err, len, "internal error: option %d has no handler", c);
	return -1;
}

/* Options whose values add up (lists): repeating them is how they are used. */
static int repeatable(int c)
{
	return c == OPT_DISK || c == OPT_PROBE || c == OPT_SET;
}

/* An option with a value, given twice in one place (the command line, or
 * the configuration file): which one was meant is anyone's guess. Flags may
 * repeat: twice on is on. Returns 1 when c was seen already. */
int options_seen_twice(int c, uint64_t *seen)
{
	int i = options_index_of(c);
	if (i < 0 || !defs[i].arg || repeatable(c))
		return 0;
	int again = (int)(*seen >> i & 1);
	*seen |= 1ull << i;
	return again;
}

void options_print_help(FILE *f, const char *prog)
{
	fprintf(f, "Usage: %s [OPTION]...\n"
		   "A top-like monitor of block devices: I/O schedulers, iostat -x figures.\n"
		   "Keys in the full-screen view: press h there.\n\nOptions:\n", prog);
	for (size_t i = 0; i < NDEFS; i++) {
		char left[64];
		if (defs[i].short_name > 0 && defs[i].short_name < 256)
			snprintf(left, sizeof left, "-%c, --%s%s%s", defs[i].short_name, defs[i].name,
				 defs[i].arg ? " " : "", defs[i].arg ? defs[i].arg : "");
		else
			snprintf(left, sizeof left, "    --%s%s%s", defs[i].name, defs[i].arg ? " " : "",
				 defs[i].arg ? defs[i].arg : "");
		char range[80];
		options_range_text(&defs[i], range, sizeof range);
		fprintf(f, "  %-26s %s%s%s%s\n", left, defs[i].help, range[0] ? " (" : "", range, range[0] ? ")" : "");
	}
	fprintf(f, "\nExit status: 0 success, 1 runtime failure, 2 bad usage.\n"
		   "Full documentation: man iosched-top\n");
}

void options_free(struct options *o)
{
	for (size_t i = 0; i < o->ndisks; i++)
		free(o->disks[i]);
	for (size_t i = 0; i < o->nprobe_disks; i++)
		free(o->probe_disks[i]);
	for (size_t i = 0; i < o->nsets; i++) {
		free(o->sets[i].disk);
		free(o->sets[i].sched);
	}
	free(o->probe_file);
	free(o->udev_rules_file);
	free(o->ab);
	free(o->load_dir);
	free(o->startup);
	free(o->record);
	free(o->replay);
	free(o->prom_file);
	free(o->theme);
	free(o->sort);
	free(o->config_path);
	o->ab = o->load_dir = o->startup = o->record = o->replay = o->prom_file = o->theme = o->sort = o->config_path = NULL;
	o->ndisks = o->nprobe_disks = o->nsets = 0;
	o->probe_file = o->udev_rules_file = NULL;
}

enum load_kind options_load_kind(const struct options *o)
{
	return o->load < 0 ? LOAD_WRITE : (enum load_kind)o->load;
}
