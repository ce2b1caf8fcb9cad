/* unitcols: the units pane's columns (unitpane.h). One table says, for
 * each column, its header, width, how it sorts and its cell; the pane's
 * drawing, its sort keys (< > r, as the process pane's), a click on its
 * header and the help screen read it. A cgroup's figures are the sample's
 * (struct cgroup_sample, samplecgroups.c). */
#ifndef IOSCHED_UNITCOLS_H
#define IOSCHED_UNITCOLS_H

#include <stddef.h>

#include "model/sample.h"

enum ucol { UC_UNIT, UC_PROCS, UC_READ, UC_WRITE, UC_TODISK, UC_SOME, UC_FULL, UC_WAIT, UC_THROTTLED, UC_WEIGHT, UC_SLICE, UC_COUNT };

struct unitcol {
	const char *header;
	int width;          /* 0: the rest of the line (SLICE) */
	int left;           /* text, left-aligned; figures are right-aligned */
	int keep;           /* when narrow, lower is kept first; 0: never dropped */
	const char *help;   /* its line on the help screen */
	/* The figure it sorts by, larger first; -1: none. NULL: by its text. */
	double (*sort_key)(const struct cgroup_sample *c);
	const char *(*text)(const struct cgroup_sample *c);
	void (*cell)(const struct cgroup_sample *c, char *b, size_t n);
};

const struct unitcol *unitcols_get(enum ucol c);

/* UNIT's width on a screen width columns wide: more on a wide one. */
int unitcols_width(enum ucol c, int width);

/* Whether column c shows on a screen width columns wide (UNIT always;
 * the others in their keep order while they fit). */
int unitcols_shown(enum ucol c, int width);

/* The slice a cgroup is in, as the pane shows it: its parent's path, "/"
 * at the top, "-" for the root and for processes of no known cgroup. */
const char *unitcols_slice(const struct cgroup_sample *c);

#endif
