/* abio: an A/B phase's I/O (ab.c): the disk's read and write rates over
 * the phase's window, the tool's own share of them (its readers' reads,
 * its load's writes), and for a loop device the rates of the disk under
 * its backing file, whose other writers the loop device does not show.
 * Private to src/act. */
#ifndef IOSCHED_ABIO_H
#define IOSCHED_ABIO_H

#include <stdint.h>

#include "model/abdata.h"
#include "read/diskstats.h"

struct load;

struct abio {
	char disk[32];
	char below[32];            /* the disk under a loop device's file, or "" */
	struct diskstats_row d0, b0;
	int have_d0, have_b0;
	uint64_t load_b0;          /* the load's bytes at t0 */
	double t0;
};

/* For an A/B on disk (the disk under it found when it is a loop device). */
void abio_init(struct abio *io, const char *disk);

/* A phase's window begins now (load: the run's, or NULL). */
void abio_begin(struct abio *io, struct load *load, double now);

/* ... and ends now: p's rates (read_MBps, write_MBps, own_*, below_*),
 * from p's reader counts (set before) and cfg's read sizes. */
void abio_end(struct abio *io, struct load *load, const struct ab_config *cfg, double now, struct ab_phase *p);

#endif
