/* options: the command line. One table describes every option; getopt's
 * tables, --help and the checks of the man page are all made from it. */
#ifndef IOSCHED_OPTIONS_H
#define IOSCHED_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <stdio.h>

#include "model/settings.h"

#define OPTIONS_MAX_DISKS 64

enum output_format { OUT_TEXT, OUT_JSON, OUT_CSV, OUT_CSV_PROCS, OUT_CSV_CGROUPS };

/* --format: how the A/B report (abreport.h) is written. */
enum ab_format { AB_TEXT, AB_MD, AB_CSV, AB_JSON };

struct sched_set {
	char *disk;
	char *sched;
};

struct options {
	int batch;
	enum output_format format;
	long iterations;           /* 0: run until stopped */
	double delay_s;
	char *disks[OPTIONS_MAX_DISKS];   /* owned, freed by options_free */
	size_t ndisks;
	int help, version;
	/* probe */
	int no_probe;
	char *probe_disks[OPTIONS_MAX_DISKS];   /* --probe, owned */
	size_t nprobe_disks;
	double probe_rate_hz;                   /* 0: max (back-to-back) */
	uint64_t probe_size;
	char *probe_file;                       /* owned, or NULL */
	uint64_t probe_file_size;
	uint64_t seed;
	int have_seed;
	struct sched_set sets[OPTIONS_MAX_DISKS]; /* --set, owned */
	size_t nsets;
	int restore;                            /* put every change back at exit */
	int procs;                              /* --procs N: rows in JSON; 0: no processes */
	int threads;                            /* per-thread rows */
	int enable_delayacct;
	int no_bpf;                             /* --no-bpf: no block-layer latency */
	char *record;                           /* --record FILE, owned */
	char *replay;                           /* --replay FILE, owned */
	double replay_speed;                    /* --replay-speed; 0: not given */
	char *prom_file;                        /* --prometheus-textfile PATH, owned */
	char *theme;                            /* --theme NAME|PATH, owned */
	int no_color;                           /* --no-color */
	char *sort;                             /* --sort COLUMN, owned */
	int big;                                /* --big: presentation mode */
	int no_mouse;                           /* --no-mouse */
	int read_only;                          /* --read-only: a pure monitor, nothing changed */
	int all_disks;                          /* --all-disks: the disks hidden by default too */
	int demo_disk;                          /* --demo-disk: a null_blk disk with a writer, shown */
	/* the configuration file (config.h) */
	char *config_path;                      /* the file used, owned; NULL: none */
	uid_t config_uid;                       /* who owns it (the invoking user under sudo) */
	gid_t config_gid;
	unsigned long long from_config;         /* bit i: defs[i] was set by the file */
	int probe_rate_given;                   /* --probe-rate was on the command line */
	int probe_file_size_given;              /* --probe-file-size was given: a probe file may be written */
	/* A/B */
	char *ab;                               /* --ab or --ab-live list, owned */
	int ab_live;                            /* it came with --ab-live: the user's own load, switched back and forth */
	double max_time_s;                      /* --ab-live's bound */
	int rounds;
	double dwell_s, warmup_s;
	int rounds_given, dwell_given, warmup_given; /* given (--ab-live has defaults of its own) */
	int load;                               /* enum load_kind; -1: not given */
	char *load_dir;                         /* owned */
	uint64_t load_size;
	int load_size_given;                    /* --load-size given (command line or file): never shrunk */
	enum ab_format ab_format;
	int baseline;
	char *startup;                          /* owned */
	int startup_runs;
	int fresh_reads;            /* reads in one fresh reader's job */
	int fresh_reads_given;      /* --fresh-reads was on the command line (the A/B has a default of its own) */
	double fresh_every_s;       /* full screen: a fresh reader this often; 0: only on F */
	int print_udev_rule;
	char *udev_rules_file;                  /* --udev-rules-file, owned, or NULL */
};

/* How a numeric option's value is read and where it goes. */
enum opt_value {
	OV_NONE,   /* a flag, or a value with its own reader */
	OV_INT,    /* a whole number into an int */
	OV_LONG,   /* a whole number into a long */
	OV_SECS,   /* seconds, fractions allowed, into a double */
	OV_REAL,   /* a number into a double */
	OV_BYTES,  /* bytes with K, M, G, T suffixes, into a uint64_t */
};

/* One row per option: its names, its help, and for a numeric one where
 * the value goes, its range and its default. Parsing, range checks,
 * defaults, --help and the man page's check all come from this table. */
struct option_def {
	const char *name;          /* long name, without "--" */
	int short_name;            /* 0 when there is none */
	const char *arg;           /* argument name for help, NULL for a flag */
	const char *help;          /* without the range and default: those are added */
	enum opt_value val;
	size_t off;                /* offsetof(struct options, the field) */
	double lo, hi;             /* accepted range */
	double dflt;               /* the default; NAN: none (the option's own meaning when absent) */
	const char *unit;          /* what a value is, for messages: "seconds", "reads per second" */
	const char *extra;         /* what else is accepted (", or max"), or NULL */
};

/* The option table, for help and documentation checks. */
const struct option_def *options_table(size_t *n);

/* A numeric option's range and default as --help and the man page say
 * them: "0.01 to 3600, default 1" ("512 to 16M, default 4K"). "" for
 * another option. */
void options_range_text(const struct option_def *d, char *buf, size_t len);

/* Parse argv into o. Returns 0, or -1 with a message (saying which option,
 * what was wrong and what is accepted) in err. */
int options_parse(int argc, char **argv, struct options *o, char *err, size_t errlen);

/* Print --help from the table. */
void options_print_help(FILE *f, const char *prog);

void options_free(struct options *o);

/* The load the options ask for (--load; write when not given). */
enum load_kind options_load_kind(const struct options *o);

#define DELAY_MIN_S 0.01
#define DELAY_MAX_S 3600.0
#define ITERATIONS_MAX 1000000000L
#define PROCS_DEFAULT 20
#define PROCS_MAX 100000
#define PROBE_RATE_DEFAULT 20.0
#define PROBE_RATE_MIN 0.1
#define PROBE_RATE_MAX 10000.0
#define REPLAY_SPEED_MIN 0.1
#define REPLAY_SPEED_MAX 100.0
#define PROBE_SIZE_DEFAULT 4096
#define PROBE_SIZE_MAX (16u << 20)
#define PROBE_FILE_SIZE_DEFAULT (1ull << 30)
#define PROBE_FILE_SIZE_MIN (16ull << 20)
#define PROBE_FILE_SIZE_MAX (64ull << 30)

#endif
