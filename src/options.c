/* options: see include/options.h */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_JSON = 256, OPT_DISK };

static const struct option_def defs[] = {
	{"batch", 'b', NULL, "batch mode: no screen, print the disk table every interval"},
	{"iterations", 'n', "N", "stop after N intervals (1-1000000000; default: run until stopped)"},
	{"delay", 'd', "SECS", "refresh interval in seconds, fractions allowed (0.01-3600, default 1)"},
	{"disk", OPT_DISK, "NAME[,NAME]", "show only these whole disks (repeatable)"},
	{"json", OPT_JSON, NULL, "batch output as one JSON object per line per interval (implies -b)"},
	{"version", 'V', NULL, "print the version and exit"},
	{"help", 'h', NULL, "print this help and exit"},
};

#define NDEFS (sizeof defs / sizeof defs[0])

const struct option_def *options_table(size_t *n)
{
	*n = NDEFS;
	return defs;
}

static void build_getopt(struct option *lo, char *shortopts)
{
	char *s = shortopts;
	*s++ = ':'; /* report a missing argument as ':' rather than '?' */
	for (size_t i = 0; i < NDEFS; i++) {
		lo[i] = (struct option){defs[i].name, defs[i].arg ? required_argument : no_argument,
					NULL, defs[i].short_name};
		if (defs[i].short_name > 0 && defs[i].short_name < 256) {
			*s++ = (char)defs[i].short_name;
			if (defs[i].arg)
				*s++ = ':';
		}
	}
	*s = '\0';
	lo[NDEFS] = (struct option){0};
}

static int parse_iterations(const char *v, struct options *o, char *err, size_t len)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 1 || n > ITERATIONS_MAX) {
		snprintf(err, len, "--iterations: '%s' is not accepted; give a whole number from 1 to %ld",
			 v, ITERATIONS_MAX);
		return -1;
	}
	o->iterations = n;
	return 0;
}

static int parse_delay(const char *v, struct options *o, char *err, size_t len)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(d) || d < DELAY_MIN_S || d > DELAY_MAX_S) {
		snprintf(err, len,
			 "--delay: '%s' is not accepted; give seconds from %.2f to %.0f (fractions allowed, e.g. 0.5)",
			 v, DELAY_MIN_S, DELAY_MAX_S);
		return -1;
	}
	o->delay_s = d;
	return 0;
}

/* --disk takes a name or a comma-separated list. Existence is checked
 * later, against the disks the system has. */
static int add_disk(const char *t, struct options *o, char *err, size_t len)
{
	if (strchr(t, '/')) {
		snprintf(err, len, "--disk: '%s' is a path; give the kernel name as in /proc/diskstats (e.g. sda, not /dev/sda)", t);
		return -1;
	}
	if (o->ndisks == OPTIONS_MAX_DISKS) {
		snprintf(err, len, "--disk: more than %d disks given", OPTIONS_MAX_DISKS);
		return -1;
	}
	for (size_t i = 0; i < o->ndisks; i++)
		if (strcmp(o->disks[i], t) == 0) {
			snprintf(err, len, "--disk: '%s' is given twice", t);
			return -1;
		}
	if (!(o->disks[o->ndisks] = strdup(t))) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	o->ndisks++;
	return 0;
}

static int add_disks(const char *v, struct options *o, char *err, size_t len)
{
	size_t n = strlen(v);
	if (n == 0 || v[0] == ',' || v[n - 1] == ',' || strstr(v, ",,")) {
		snprintf(err, len, "--disk: '%s' has an empty name; give NAME or NAME,NAME (e.g. --disk sda,nvme0n1)", v);
		return -1;
	}
	char *copy = strdup(v), *save = NULL;
	if (!copy) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	int rc = 0;
	for (char *t = strtok_r(copy, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save))
		rc = add_disk(t, o, err, len);
	free(copy);
	return rc;
}

static int apply(int c, const char *arg, struct options *o, char *err, size_t len)
{
	switch (c) {
	case 'b':
		o->batch = 1;
		return 0;
	case 'n':
		return parse_iterations(arg, o, err, len);
	case 'd':
		return parse_delay(arg, o, err, len);
	case OPT_DISK:
		return add_disks(arg, o, err, len);
	case OPT_JSON:
		o->format = OUT_JSON;
		o->batch = 1;
		return 0;
	case 'V':
		o->version = 1;
		return 0;
	case 'h':
		o->help = 1;
		return 0;
	}
	snprintf(err, len, "internal error: option %d has no handler", c);
	return -1;
}

static const char *name_of(int c)
{
	for (size_t i = 0; i < NDEFS; i++)
		if (defs[i].short_name == c)
			return defs[i].name;
	return "?";
}

int options_parse(int argc, char **argv, struct options *o, char *err, size_t len)
{
	memset(o, 0, sizeof *o);
	o->delay_s = 1.0;
	struct option lo[NDEFS + 1];
	char shortopts[2 * NDEFS + 2];
	build_getopt(lo, shortopts);
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
		if (c == '?') {
			if (optopt && optopt < 256)
				snprintf(err, len, "unknown option '-%c'; see --help", optopt);
			else
				snprintf(err, len, "unknown option '%s'; see --help", argv[optind - 1]);
			return -1;
		}
		if (c == ':') {
			snprintf(err, len, "--%s needs a value; see --help", optopt ? name_of(optopt) : argv[optind - 1] + 2);
			return -1;
		}
		if (apply(c, optarg, o, err, len) < 0)
			return -1;
	}
	if (optind < argc) {
		snprintf(err, len, "unexpected argument '%s'; options start with '-' (see --help)", argv[optind]);
		return -1;
	}
	return 0;
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
		fprintf(f, "  %-26s %s\n", left, defs[i].help);
	}
	fprintf(f, "\nExit status: 0 success, 1 runtime failure, 2 bad usage.\n"
		   "Full documentation: man iosched-top\n");
}

void options_free(struct options *o)
{
	for (size_t i = 0; i < o->ndisks; i++)
		free(o->disks[i]);
	o->ndisks = 0;
}
