/* prom: --prometheus-textfile PATH — the figures of each interval in the
 * Prometheus text exposition format, for node_exporter's textfile
 * collector. The file is rewritten whole every interval (a temporary file
 * beside it, then rename), so a scrape never sees half of one. Metric
 * names start with iosched_; the man page lists them. */
#ifndef IOSCHED_PROM_H
#define IOSCHED_PROM_H

#include <stddef.h>
#include <stdio.h>

#include "sample.h"

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

/* Bytes written to disks for each process name (TO-DISK/s, BPF): the
 * first PROM_NAMES names seen keep a series each, the rest add to "other",
 * so the series stay few whatever runs. */
#define PROM_NAMES 16
struct prom_name {
	char comm[64];
	double bytes;
};

struct prom_state {
	struct prom_disk disks[PROM_DISKS_MAX];
	size_t ndisks;
	struct prom_name names[PROM_NAMES + 1]; /* the last: "other" */
	size_t nnames;
	int to_disk;                   /* the BPF part gave TO-DISK figures */
};

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
