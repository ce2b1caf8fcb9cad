/* prom: --prometheus-textfile PATH — the figures of each interval in the
 * Prometheus text exposition format, for node_exporter's textfile
 * collector. The file is rewritten whole every interval (a temporary file
 * beside it, then rename), so a scrape never sees half of one. Metric
 * names start with iosched_; the man page lists them. */
#ifndef IOSCHED_PROM_H
#define IOSCHED_PROM_H

#include <stddef.h>
#include <stdio.h>

#include "model/sample.h"

#define PROM_DISKS_MAX 64

/* Counters kept across intervals, since the tool started: Prometheus
 * takes rate() and histogram_quantile() of counters, so a count over the
 * last 10 s (which falls as well as rises) would give wrong answers. */
struct prom_disk {
	char disk[DISK_NAME_MAX];
	unsigned long long switches;   /* scheduler switches that took */
	double read_bytes, write_bytes, reads, writes; /* from diskstats, summed over intervals */
	struct hist *probe;            /* every probe read; NULL until the first */
	double waited[BLK_NKINDS];     /* seconds probe reads waited, split by what the disk served meanwhile */
};

/* Bytes written to disks for each process name (TO-DISK/s, BPF), as
 * counters. The names with a series of their own are the PROM_NAMES that
 * wrote the most over the last minutes (bytes decayed with a time constant
 * of PROM_RECENT_S), not the first seen: a user who starts many tiny
 * writers first cannot push a large writer into "other". The hand-over is
 * stable: a name takes the place of the weakest named one only when it
 * wrote more than PROM_HANDOVER times as much, so neighbours of about the
 * same size do not swap places every interval. Each byte is counted once,
 * in the series its name had when it was written: its name's while the
 * name has a series, "other"'s while it has none. So no counter ever goes
 * down: a name that leaves the top keeps its value (its series is not
 * written meanwhile) and goes on from it if it comes back; a name that has
 * had a series is never forgotten (at most PROM_NAMES_KEPT names are kept;
 * once they are all taken, a new name's bytes go to "other").
 * Names are keyed on their label text (escaped as util_safe_text does):
 * two names that escape to the same text ("dup\x01" and "dup^A") are one
 * series, never two series with the same labels; a process called
 * "other" counts in "other". */
#define PROM_NAMES 16
#define PROM_NAMES_KEPT 256
#define PROM_RECENT_S 300.0
#define PROM_HANDOVER 2.0
/* Whether an entry of a bounded label set (names, cgroups) has a series:
 * the first member of each such entry, so one election serves both
 * (prom_elect). */
struct prom_series {
	double recent;                 /* bytes of the last minutes (decayed) */
	int named;                     /* has a series now */
	int had;                       /* has had one: kept for ever */
};

/* The series, among n entries of stride bytes from base (each starts with
 * its struct prom_series): the free places (of max) to the most recent
 * bytes, then, while one without a series moved more than PROM_HANDOVER
 * times as much as the weakest named one, the two swap (each swap raises
 * the named entries' sum: it ends). */
void prom_elect(void *base, size_t n, size_t stride, size_t max);

/* The entry that makes room for a new one when the set is full: the least
 * recent that never had a series (NULL: every one has had one). */
void *prom_weakest(void *base, size_t n, size_t stride);

/* The label of a process named "other", the label of the rest's bucket:
 * longer than the 15 bytes a process can name itself (PR_SET_NAME; the
 * kernel's longer names are its workers', "kworker/..."), so it is no
 * process's own name. */
#define PROM_OTHER_PROCESS "other (a process)"

struct prom_name {
	struct prom_series sr;         /* first: prom_elect */
	char comm[4 * PROCS_COMM_MAX]; /* the label's text */
	double bytes;                  /* its counter: the bytes written while it had a series */
	double now;                    /* bytes of the interval being counted */
	double throttled_s, throttled_now; /* the same for its pauses for dirty pages (seconds) */
};

/* Bytes and pressure per cgroup v2 (the sample's cgroups, samplecgroups.c)
 * as counters, bounded as the names above are: the PROM_CGROUPS cgroups
 * that moved the most bytes lately have a series each (label cgroup, the
 * path relative to the v2 root, "/" the root), the rest count in
 * cgroup="other", with the same hand-over; a cgroup that had a series is
 * kept (PROM_CGROUPS_KEPT at most). Keyed on the label text. Pressure: the
 * seconds of the interval its io.pressure says its tasks were stalled
 * (some, full), summed as the bytes are. */
#define PROM_CGROUPS 16
#define PROM_CGROUPS_KEPT 256
enum prom_cg_value { PCG_READ, PCG_WRITE, PCG_TO_DISK, PCG_SOME, PCG_FULL, PCG_THROTTLED, PCG_N };
struct prom_cgroup {
	struct prom_series sr;           /* first: prom_elect */
	char path[4 * CGROUP_PATH_MAX];  /* the label's text */
	double v[PCG_N];                 /* its counters, while it had a series */
	double now[PCG_N];               /* the interval's */
};

struct prom_state {
	struct prom_disk disks[PROM_DISKS_MAX];
	size_t ndisks;
	struct prom_name *names;       /* PROM_NAMES_KEPT at most */
	size_t nnames, names_cap;
	double other;                  /* the bytes of the names without a series */
	double other_throttled;        /* ... and their pauses for dirty pages (s) */
	int throttled;                 /* the BPF part gave throttled figures */
	int have_other;                /* "other" has been counted into */
	int to_disk;                   /* the BPF part gave TO-DISK figures */
	struct prom_cgroup *cgs;       /* PROM_CGROUPS_KEPT at most */
	size_t ncgs, cgs_cap;
	double cg_other[PCG_N];        /* the cgroups without a series */
	int have_cgroups;              /* a sample had a cgroups list */
	int cg_to_disk;                /* ... with TO-DISK figures */
	int cg_throttled;              /* ... with throttled figures */
};

/* promcgroups.c: the sample's cgroups counted into st; their series
 * written; st's cgroups freed. */
void prom_count_cgroups(struct prom_state *st, const struct sample *s);
void prom_format_cgroups(FILE *f, const struct prom_state *st);
void prom_free_cgroups(struct prom_state *st);
/* A label value, escaped (promlabel.c) */
void prom_label(FILE *f, const char *raw);
/* The comm label's text of a process (comm, and its parent ppid): its
 * name escaped, every kernel worker as "kworker", one named "other" as
 * PROM_OTHER_PROCESS. */
void prom_comm_key(char *key, size_t len, const char *comm, int ppid);

/* Count the sample into st (call once per sample). */
void prom_count(struct prom_state *st, const struct sample *s);

/* Free what st holds. */
void prom_free(struct prom_state *st);

/* Write the metrics of s to f. */
void prom_format(FILE *f, const struct sample *s, const struct prom_state *st);

/* Write them to path atomically. Returns 0 or a negative errno with the
 * reason in err. */
int prom_write(const char *path, const struct sample *s, const struct prom_state *st, char *err, size_t len);

#endif
