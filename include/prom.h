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

/* Counters kept across intervals. */
struct prom_state {
	struct {
		char disk[DISK_NAME_MAX];
		unsigned long long switches;   /* scheduler switches that took */
	} disks[PROM_DISKS_MAX];
	size_t ndisks;
};

/* Count the sample's events into st (call once per sample). */
void prom_count(struct prom_state *st, const struct sample *s);

/* Write the metrics of s to f. */
void prom_format(FILE *f, const struct sample *s, const struct prom_state *st);

/* Write them to path atomically. Returns 0 or a negative errno with the
 * reason in err. */
int prom_write(const char *path, const struct sample *s, const struct prom_state *st, char *err, size_t len);

#endif
