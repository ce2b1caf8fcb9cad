/* psi: pressure stall information, /proc/pressure/io
 * ("some avg10=0.56 avg60=0.37 avg300=0.09 total=415489"). */
#ifndef IOSCHED_PSI_H
#define IOSCHED_PSI_H

#include <stdint.h>

struct psi_line {
	double avg10, avg60, avg300;  /* % of wall time stalled */
	uint64_t total_us;
};

struct psi {
	int have_some, have_full;     /* kernels without PSI, or psi=0: neither */
	struct psi_line some, full;
};

/* Parse the file's text. Returns 0 when at least the "some" line parsed,
 * -EINVAL otherwise. */
int psi_parse(const char *text, struct psi *out);

/* Read and parse path (normally /proc/pressure/io). Returns 0 or a negative
 * errno (-ENOENT / -EOPNOTSUPP where the kernel has no PSI). */
int psi_read(const char *path, struct psi *out);

#endif
