/* sample: one tick of everything the collectors read. Views (TUI, batch
 * text, JSON) read a struct sample and nothing else; the sampler is the only
 * thing that fills one. */
#ifndef IOSCHED_SAMPLE_H
#define IOSCHED_SAMPLE_H

#include <stddef.h>

#include "disk.h"
#include "diskstats.h"
#include "iostat.h"
#include "psi.h"

struct disk_sample {
	struct disk_info info;
	int have_rates;            /* 0 on a disk's first tick: no previous reading */
	struct iostat_rates io;
	unsigned long long in_flight;
};

struct sample {
	double ts;                 /* unix seconds (CLOCK_REALTIME) */
	double interval_s;         /* measured on CLOCK_MONOTONIC since the previous tick */
	char host[128];
	char kernel[128];
	int psi_err;               /* 0, or negative errno: why psi is absent */
	struct psi psi;
	int have_load;
	double load[3];
	struct disk_sample *disks;
	size_t ndisks, cap;
};

struct sampler {
	struct udev *udev;
	struct diskstats_table prev;
	double prev_mono;          /* < 0 until the first reading */
	const char *const *only;   /* --disk names, or NULL for every disk */
	size_t nonly;
};

/* Start a sampler. only/nonly restrict it to named disks (the array must
 * outlive the sampler). Returns 0 or a negative errno. */
int sampler_init(struct sampler *s, const char *const *only, size_t nonly);

/* Take the first diskstats reading so the first sample has rates. */
int sampler_prime(struct sampler *s);

/* Fill out with a new tick. Returns 0 or a negative errno (when
 * /proc/diskstats cannot be read); a disk that vanished is just absent. */
int sampler_collect(struct sampler *s, struct sample *out);

/* The disks the system has now, unfiltered (for validating --disk). */
int sampler_list_disks(struct sampler *s, struct disk_info **out, size_t *n);

void sampler_free(struct sampler *s);
void sample_free(struct sample *smp);

#endif
