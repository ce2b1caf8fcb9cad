/* optdefs: what options.c (the option table, and how each option is read
 * into struct options) lends optmerge.c (a run's options: the
 * configuration file's, the command line's over them, and the checks
 * between them). Private to src/config/. */
#ifndef IOSCHED_OPTDEFS_H
#define IOSCHED_OPTDEFS_H

#include <stddef.h>
#include <stdint.h>

#include "config/options.h"

/* An option's code (getopt_long's val): its short name, or one of these. */
enum {
	OPT_JSON = 256,
	OPT_DISK,
	OPT_NO_PROBE,
	OPT_PROBE,
	OPT_PROBE_RATE,
	OPT_PROBE_SIZE,
	OPT_PROBE_FILE,
	OPT_PROBE_FILE_SIZE,
	OPT_SEED,
	OPT_SET,
	OPT_RESTORE,
	OPT_PRINT_UDEV,
	OPT_UDEV_FILE,
	OPT_PROCS,
	OPT_THREADS,
	OPT_DELAYACCT,
	OPT_AB,
	OPT_ROUNDS,
	OPT_DWELL,
	OPT_WARMUP,
	OPT_LOAD,
	OPT_LOAD_DIR,
	OPT_LOAD_SIZE,
	OPT_FORMAT,
	OPT_BASELINE,
	OPT_STARTUP,
	OPT_STARTUP_RUNS,
	OPT_FRESH_READS,
	OPT_FRESH_EVERY,
	OPT_NO_BPF,
	OPT_RECORD,
	OPT_REPLAY,
	OPT_REPLAY_SPEED,
	OPT_CSV,
	OPT_CSV_PROCS,
	OPT_CSV_CGROUPS,
	OPT_PROM,
	OPT_THEME,
	OPT_NO_COLOR,
	OPT_CONFIG,
	OPT_NO_CONFIG,
	OPT_SORT,
	OPT_BIG,
	OPT_NO_MOUSE,
	OPT_READ_ONLY,
	OPT_ALL_DISKS,
	OPT_DEMO_DISK,
	OPT_AB_LIVE,
	OPT_MAX_TIME,
};

/* The options given are kept as bits of a uint64_t (from_config, seen):
 * the table holds at most this many. */
#define OPTIONS_DEFS_MAX 64

/* Every numeric option at its default. */
void options_defaults(struct options *o);

/* The index in the table (options_table) of the option whose code is c,
 * or -1. */
int options_index_of(int c);

/* One option of the command line or the file, read into o: a number, a
 * switch, or one of the options with a reader of their own. Returns 0, or
 * -1 with what is wrong in err. */
int options_apply(int c, const char *arg, struct options *o, char *err, size_t len);

/* An option with a value, given twice in one place (the command line, or
 * the configuration file): which one was meant is anyone's guess. Flags
 * and lists may repeat. Returns 1 when c was seen already (bits of seen). */
int options_seen_twice(int c, uint64_t *seen);

#endif
