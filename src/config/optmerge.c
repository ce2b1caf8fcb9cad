/* optmerge: a run's options, from the two places they come from: the
 * configuration file (config.h reads it; here each line is applied as an
 * option, and what root may not take from a file it does not trust is
 * refused), then the command line over it; then the checks between
 * options. The table and each option's reader are options.c's (optdefs.h).
 * options_parse is declared in include/config/options.h. */
#include "config/options.h"
#include "optdefs.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "base/util.h"

/* getopt_long's tables from the option table: lo holds n + 1 rows,
 * shortopts 2 n + 2 characters. */
static void build_getopt(const struct option_def *defs, size_t n, struct option *lo, char *shortopts)
{
	char *s = shortopts;
	*s++ = ':'; /* report a missing argument as ':' rather than '?' */
	for (size_t i = 0; i < n; i++) {
		lo[i] = (struct option){defs[i].name, defs[i].arg ? required_argument : no_argument,
					NULL, defs[i].short_name};
		if (defs[i].short_name > 0 && defs[i].short_name < 256) {
			*s++ = (char)defs[i].short_name;
			if (defs[i].arg)
				*s++ = ':';
		}
	}
	*s = '\0';
	lo[n] = (struct option){0};
}

/* The index of option --name in the table, or -1. */
static int def_index(const struct option_def *defs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(defs[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* --NAME of the option whose code is c, for messages. */
static const char *name_of(int c)
{
	size_t n;
	const struct option_def *defs = options_table(&n);
	int i = options_index_of(c);
	return i >= 0 && (size_t)i < n ? defs[i].name : "?";
}

/* Options of the full screen only, given on the command line with a batch
 * output: they would do nothing, so the command line is likely not what was
 * meant. (From the configuration file they are simply unused by -b.) */
static int screen_only_in_batch(const struct options *o, uint64_t cli, char *err, size_t len)
{
	static const int screen_only[] = {OPT_BIG, OPT_NO_MOUSE, OPT_THEME, OPT_NO_COLOR, OPT_FRESH_EVERY};
	if (!o->batch)
		return 0;
	for (size_t k = 0; k < sizeof screen_only / sizeof screen_only[0]; k++) {
		int i = options_index_of(screen_only[k]);
		if (i >= 0 && (cli >> i & 1)) {
			snprintf(err, len, "--%s is for the full screen; with -b, --json or --csv it does nothing (drop one)",
				 name_of(screen_only[k]));
			return -1;
		}
	}
	return 0;
}

/* Settings of an A/B run given on the command line of a batch run that is
 * not one: nothing would use them (the full screen's A, L and S do). */
static int ab_only_in_batch(const struct options *o, uint64_t cli, char *err, size_t len)
{
	static const int ab_only[] = {OPT_LOAD,  OPT_LOAD_DIR, OPT_LOAD_SIZE, OPT_BASELINE, OPT_STARTUP,
				      OPT_STARTUP_RUNS, OPT_FRESH_READS, OPT_ROUNDS, OPT_DWELL, OPT_WARMUP, OPT_FORMAT};
	/* a live A/B has no load, readers or cold starts of its own */
	static const int built_in_only[] = {OPT_LOAD, OPT_LOAD_DIR, OPT_LOAD_SIZE, OPT_BASELINE,
					    OPT_STARTUP, OPT_STARTUP_RUNS, OPT_FRESH_READS};
	int i = options_index_of(OPT_MAX_TIME);
	if (!o->ab_live && i >= 0 && (cli >> i & 1)) {
		snprintf(err, len, "--max-time goes with --ab-live");
		return -1;
	}
	for (size_t k = 0; o->ab_live && k < sizeof built_in_only / sizeof built_in_only[0]; k++) {
		i = options_index_of(built_in_only[k]);
		if (i >= 0 && (cli >> i & 1)) {
			snprintf(err, len, "--ab-live measures your own load and programs: --%s goes with --ab",
				 name_of(built_in_only[k]));
			return -1;
		}
	}
	if (o->ab || !o->batch)
		return 0;
	for (size_t k = 0; k < sizeof ab_only / sizeof ab_only[0]; k++) {
		i = options_index_of(ab_only[k]);
		if (i >= 0 && (cli >> i & 1)) {
			snprintf(err, len, "--%s goes with --ab or --ab-live (or the full screen's A, L, S and F)", name_of(ab_only[k]));
			return -1;
		}
	}
	return 0;
}

/* A replay changes nothing and reads no device: options that would are
 * refused rather than ignored. */
static int check_replay(const struct options *o, char *err, size_t len)
{
	if (o->replay_speed > 0 && !o->replay) {
		snprintf(err, len, "--replay-speed goes with --replay FILE");
		return -1;
	}
	if (!o->replay)
		return 0;
	const char *clash = o->record ? "--record" : o->nsets ? "--set" : o->ab ? (o->ab_live ? "--ab-live" : "--ab") : o->restore ? "--restore" :
			    o->enable_delayacct ? "--enable-delayacct" : o->print_udev_rule ? "--print-udev-rule" :
			    o->probe_file ? "--probe-file" : o->nprobe_disks ? "--probe" : o->probe_rate_given ? "--probe-rate" :
			    NULL;
	if (clash) {
		snprintf(err, len, "--replay shows a recording and changes nothing: %s conflicts with it", clash);
		return -1;
	}
	return 0;
}

/* --config PATH / --no-config, looked for before anything else: they
 * decide which file is read first. */
static void config_args(int argc, char **argv, const char **path, int *none)
{
	*path = NULL;
	*none = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--no-config") == 0)
			*none = 1;
		else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			*path = argv[++i];
		else if (strncmp(argv[i], "--config=", 9) == 0)
			*path = argv[i] + 9;
	}
}

/* Options that have root run a command, write a path, read a path as a
 * probe or change a kernel setting: taken by root from a file root owns
 * only, never from a user's own file read under sudo (the user would have
 * root do what they name). */
static int root_file_only(int opt, const char *value)
{
	static const int list[] = {OPT_RECORD, OPT_PROM,    OPT_STARTUP,  OPT_UDEV_FILE, OPT_SET,
				   OPT_LOAD_DIR, OPT_PROBE_FILE, OPT_DELAYACCT, OPT_AB, OPT_AB_LIVE, OPT_REPLAY};
	for (size_t k = 0; k < sizeof list / sizeof list[0]; k++)
		if (list[k] == opt)
			return 1;
	/* a theme by name is one of the tool's; by path, a file root would
	 * read for that user (and quote back in its errors) */
	return opt == OPT_THEME && value && strchr(value, '/');
}

/* Root taking option opt from file f's line e: refused, with the reason in
 * err, for an option root_file_only names when root does not own the file,
 * others may write it, or it was found in the invoking user's place under
 * sudo. Returns 1 when refused. */
static int root_refuses(const struct config_file *f, int sudo_users, const struct config_entry *e, int opt,
			char *err, size_t len)
{
	if (geteuid() != 0 || !(f->owner != 0 || f->writable_by_others || sudo_users) ||
	    !root_file_only(opt, e->has_value ? e->value : NULL))
		return 0;
	char whose[96];
	if (f->owner != 0)
		snprintf(whose, sizeof whose, "root does not own (this one is uid %u's)", (unsigned)f->owner);
	else if (f->writable_by_others)
		snprintf(whose, sizeof whose, "others may write (this one: group or world write)");
	else /* a link there may lead to any file of root's */
		snprintf(whose, sizeof whose, "in the invoking user's place (sudo), even one of root's");
	snprintf(err, len, "%s:%d: %s is not taken from a file %s: "
		 "as root it would %s; give it on the command line", f->path, e->line, e->name,
		 whose, opt == OPT_STARTUP ? "run that user's command" :
		 opt == OPT_SET || opt == OPT_DELAYACCT || opt == OPT_AB || opt == OPT_AB_LIVE ? "change kernel settings for that user" :
		 "open a path that user names");
	return 1;
}

/* Apply the configuration file's lines with the command line's code, so
 * every option is a key; errors name the file and line. The command line,
 * read after, replaces what the file set. */
static int read_config(int argc, char **argv, struct options *o, char *err, size_t len)
{
	const char *given;
	int none;
	config_args(argc, argv, &given, &none);
	if (none && given) {
		snprintf(err, len, "--config and --no-config conflict");
		return -1;
	}
	char path[4096];
	if (none || (!given && config_locate(path, sizeof path, &o->config_uid, &o->config_gid) < 0))
		return 0;
	if (given) {
		util_strlcpy(path, given, sizeof path);
		o->config_uid = getuid();
		o->config_gid = getgid();
	}
	if (!(o->config_path = strdup(path)))
		return -1;
	struct config_file f;
	char why[512];
	/* the invoking user's place under sudo: whatever is found there is
	 * theirs to choose, also a file of root's they link to */
	int sudo_users = !given && o->config_uid != 0;
	if (config_read(path, given != NULL, o->config_uid, o->config_gid, &f, why, sizeof why) < 0) {
		snprintf(err, len, "%s (--no-config skips it)", why);
		return -1;
	}
	size_t n;
	const struct option_def *defs = options_table(&n);
	int rc = 0;
	uint64_t seen = 0;
	for (size_t k = 0; k < f.n && rc == 0; k++) {
		const struct config_entry *e = &f.e[k];
		int i = def_index(defs, n, e->name);
		char what[400];
		if (i >= 0 && options_seen_twice(defs[i].short_name, &seen)) {
			snprintf(err, len, "%s:%d: %s is set twice in this file; keep one line", path, e->line, e->name);
			rc = -1;
		} else if (i < 0 || defs[i].short_name == OPT_CONFIG || defs[i].short_name == OPT_NO_CONFIG) {
			snprintf(err, len, "%s:%d: '%s' is not an option here (see --help; no leading '-')", path, e->line,
				 e->name);
			rc = -1;
		} else if (root_refuses(&f, sudo_users, e, defs[i].short_name, err, len)) {
			rc = -1;
		} else if (!defs[i].arg != !e->has_value) {
			snprintf(err, len, "%s:%d: %s %s", path, e->line, e->name,
				 defs[i].arg ? "needs a value" : "takes no value");
			rc = -1;
		} else if (options_apply(defs[i].short_name, e->has_value ? e->value : NULL, o, what, sizeof what) < 0) {
			snprintf(err, len, "%s:%d: %s", path, e->line, what);
			rc = -1;
		}
		if (i >= 0)
			o->from_config |= 1ull << i;
	}
	config_free(&f);
	return rc;
}

/* Edits (insert, delete, change one character) from a to b, at most
 * OPTION_NAME_MAX long each; a large number past that. */
#define OPTION_NAME_MAX 32
static size_t edits(const char *a, size_t na, const char *b)
{
	size_t nb = strlen(b), row[OPTION_NAME_MAX + 1];
	if (na > OPTION_NAME_MAX || nb > OPTION_NAME_MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			best = up + 1 < best ? up + 1 : best;
			best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
			diag = up;
			row[j] = best;
		}
	}
	return row[nb];
}

/* The option a mistyped long option most likely meant ("--jsn": json),
 * within two edits and less than half its length; NULL when none is. */
static const char *option_meant(const char *arg, const struct option_def *defs, size_t n)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name), best = SIZE_MAX;
	const char *meant = NULL;
	for (size_t i = 0; i < n; i++) {
		size_t d = edits(name, len, defs[i].name);
		if (d < best) {
			best = d;
			meant = defs[i].name;
		}
	}
	return best <= 2 && 2 * best < len ? meant : NULL;
}

/* The message for an option getopt did not know (arg as given): -1. */
static int unknown_option(const char *arg, const struct option_def *defs, size_t n, char *err, size_t len)
{
	const char *meant = optopt && optopt < 256 ? NULL : strncmp(arg, "--", 2) == 0 ? option_meant(arg, defs, n) : NULL;
	if (optopt && optopt < 256)
		snprintf(err, len, "unknown option '-%c'; see --help", optopt);
	else if (meant)
		snprintf(err, len, "unknown option '%s'; did you mean --%s? (see --help)", arg, meant);
	else
		snprintf(err, len, "unknown option '%s'; see --help", arg);
	return -1;
}

int options_parse(int argc, char **argv, struct options *o, char *err, size_t len)
{
	memset(o, 0, sizeof *o);
	options_defaults(o);
	o->load = -1;
	if (read_config(argc, argv, o, err, len) < 0)
		return -1;
	size_t n;
	const struct option_def *defs = options_table(&n);
	struct option lo[OPTIONS_DEFS_MAX + 1];
	char shortopts[2 * OPTIONS_DEFS_MAX + 2];
	build_getopt(defs, n, lo, shortopts);
	opterr = 0;
	optind = 1;
	int c;
	uint64_t cli = 0, cli_values = 0; /* options on the command line; those with values */
	while ((c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
		if (c == '?')
			return unknown_option(argv[optind - 1], defs, n, err, len);
		if (c == ':') {
			snprintf(err, len, "--%s needs a value; see --help", optopt ? name_of(optopt) : argv[optind - 1] + 2);
			return -1;
		}
		if (options_seen_twice(c, &cli_values)) {
			snprintf(err, len, "--%s: given twice; give it once", name_of(c));
			return -1;
		}
		int i = options_index_of(c);
		if (i >= 0)
			cli |= 1ull << i;
		if (options_apply(c, optarg, o, err, len) < 0)
			return -1;
	}
	if (screen_only_in_batch(o, cli, err, len) < 0)
		return -1;
	if (optind < argc) {
		snprintf(err, len, "unexpected argument '%s'; options start with '-' (see --help)", argv[optind]);
		return -1;
	}
	const char *ab = o->ab_live ? "--ab-live" : "--ab";
	if (o->read_only && (o->nsets || o->enable_delayacct || o->ab)) {
		snprintf(err, len, "%s changes the system: refused in read-only mode (--read-only)",
			 o->nsets ? "--set" : o->enable_delayacct ? "--enable-delayacct" : ab);
		return -1;
	}
	if (o->demo_disk && (o->read_only || o->replay || o->ab || o->ndisks || o->nprobe_disks || o->no_probe)) {
		snprintf(err, len, "--demo-disk makes its own disk and probes it: %s conflicts with it",
			 o->read_only ? "--read-only" : o->replay ? "--replay" : o->ab ? ab : o->ndisks ? "--disk" :
			 o->nprobe_disks ? "--probe" : "--no-probe");
		return -1;
	}
	if (o->ab && o->ndisks != 1) {
		snprintf(err, len, "%s compares schedulers on one disk: give exactly one --disk NAME", ab);
		return -1;
	}
	if (o->ab && (o->nsets || o->enable_delayacct)) {
		snprintf(err, len, "%s does nothing with %s (the A/B sets the schedulers it compares itself)",
			 o->nsets ? "--set" : "--enable-delayacct", ab);
		return -1;
	}
	if (o->ab && o->no_probe) {
		snprintf(err, len, "%s measures with the probe: --no-probe conflicts with it", ab);
		return -1;
	}
	if (ab_only_in_batch(o, cli, err, len) < 0)
		return -1;
	if (check_replay(o, err, len) < 0)
		return -1;
	if (o->no_probe && (o->nprobe_disks || o->probe_file)) {
		snprintf(err, len, "--no-probe conflicts with %s; give one or the other",
			 o->probe_file ? "--probe-file" : "--probe");
		return -1;
	}
	return 0;
}
