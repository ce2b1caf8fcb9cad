/* unitcols: see src/view/unitcols.h */
#include "unitcols.h"

#include <string.h>

#include "base/util.h"

/* --- sort keys: -1 where the cgroup has no figure ------------------------ */

static double key_procs(const struct cgroup_sample *c) { return c->procs; }
static double key_read(const struct cgroup_sample *c) { return c->read_Bps; }
static double key_write(const struct cgroup_sample *c) { return c->write_Bps; }
static double key_to_disk(const struct cgroup_sample *c) { return c->to_disk_Bps; }
static double key_some(const struct cgroup_sample *c) { return c->have_psi ? c->some_avg10 : -1; }
static double key_full(const struct cgroup_sample *c) { return c->have_psi ? c->full_avg10 : -1; }
static double key_wait(const struct cgroup_sample *c) { return c->io_wait_pct; }
static double key_throttled(const struct cgroup_sample *c) { return c->throttled_pct; }
static double key_weight(const struct cgroup_sample *c) { return c->bfq_weight; }
static const char *text_unit(const struct cgroup_sample *c) { return c->unit; }

const char *unitcols_slice(const struct cgroup_sample *c)
{
	return !c->path[0] || strcmp(c->path, "/") == 0 || !c->parent[0] ? "-" : c->parent;
}

/* --- cells ---------------------------------------------------------------- */

static void bytes(double v, char *b, size_t n)
{
	if (v < 0)
		util_strlcpy(b, "-", n);
	else if (v == 0)
		util_strlcpy(b, "0", n);
	else
		util_format_size(util_to_u64(v), b, n);
}

static void pct(double v, int have, char *b, size_t n)
{
	if (!have)
		util_strlcpy(b, "-", n);
	else
		util_fmt(b, n, "%.1f", v);
}

static void cell_unit(const struct cgroup_sample *c, char *b, size_t n) { util_strlcpy(b, c->unit, n); }
static void cell_procs(const struct cgroup_sample *c, char *b, size_t n) { util_fmt(b, n, "%d", c->procs); }
static void cell_read(const struct cgroup_sample *c, char *b, size_t n) { bytes(c->read_Bps, b, n); }
static void cell_write(const struct cgroup_sample *c, char *b, size_t n) { bytes(c->write_Bps, b, n); }
static void cell_to_disk(const struct cgroup_sample *c, char *b, size_t n) { bytes(c->to_disk_Bps, b, n); }
static void cell_some(const struct cgroup_sample *c, char *b, size_t n) { pct(c->some_avg10, c->have_psi, b, n); }
static void cell_full(const struct cgroup_sample *c, char *b, size_t n) { pct(c->full_avg10, c->have_psi, b, n); }
static void cell_wait(const struct cgroup_sample *c, char *b, size_t n)
{
	pct(c->io_wait_pct, c->io_wait_pct >= 0, b, n);
}

static void cell_throttled(const struct cgroup_sample *c, char *b, size_t n)
{
	pct(c->throttled_pct, c->throttled_pct >= 0, b, n);
}

static void cell_slice(const struct cgroup_sample *c, char *b, size_t n) { util_strlcpy(b, unitcols_slice(c), n); }

static void cell_weight(const struct cgroup_sample *c, char *b, size_t n)
{
	if (c->bfq_weight < 0)
		util_strlcpy(b, "-", n);
	else
		util_fmt(b, n, "%d", c->bfq_weight);
}

static const struct unitcol cols[UC_COUNT] = {
	[UC_UNIT] = {"UNIT", 24, 1, 0, "the unit as systemd names it (a container by its short id; \"/\" the root)", NULL,
		     text_unit, cell_unit},
	[UC_PROCS] = {"PROCS", 5, 0, 1, "its live processes", key_procs, NULL, cell_procs},
	[UC_READ] = {"READ/s", 8, 0, 2, "bytes read a second by its processes (/proc/PID/io)", key_read, NULL, cell_read},
	[UC_WRITE] = {"WRITE/s", 8, 0, 2, "bytes written a second by its processes (dirtied)", key_write, NULL, cell_write},
	[UC_TODISK] = {"TO-DISK/s", 9, 0, 3,
		       "bytes a second the disks wrote for it, its writeback included (BPF; - without)", key_to_disk,
		       NULL, cell_to_disk},
	[UC_SOME] = {"SOME%", 5, 0, 4, "io.pressure some, avg10: the share of time some of its tasks waited on I/O",
		     key_some, NULL, cell_some},
	[UC_FULL] = {"FULL%", 5, 0, 6, "io.pressure full, avg10: the share of time all of them did", key_full, NULL,
		     cell_full},
	[UC_WAIT] = {"IOWAIT%", 7, 0, 6,
		     "its processes' block I/O wait summed (delay accounting; 100 = one process waiting all the "
		     "time; - while it is off)",
		     key_wait, NULL, cell_wait},
	[UC_THROTTLED] = {"THROTTLED%", 10, 0, 6,
			  "its processes' pauses for dirty pages summed: writing faster than the disks take it, the "
			  "kernel made them sleep (not block I/O; BPF, - without)",
			  key_throttled, NULL, cell_throttled},
	[UC_WEIGHT] = {"WEIGHT", 6, 0, 4, "io.bfq.weight under bfq (- where it has none; the detail says why)",
		       key_weight, NULL, cell_weight},
	[UC_SLICE] = {"SLICE", 0, 1, 5, "the cgroup above it (its slice)", NULL, unitcols_slice, cell_slice},
};

const struct unitcol *unitcols_get(enum ucol c)
{
	return &cols[c < UC_COUNT ? c : UC_UNIT];
}

int unitcols_width(enum ucol c, int width)
{
	if (c == UC_UNIT)
		return width >= 160 ? 40 : width >= 100 ? 30 : 22;
	return cols[c].width;
}

#define SLICE_MIN 8

int unitcols_shown(enum ucol c, int width)
{
	if (c == UC_UNIT)
		return 1;
	int used = unitcols_width(UC_UNIT, width);
	for (int rank = 1; rank <= 6; rank++)
		for (int k = 0; k < UC_COUNT; k++) {
			if (cols[k].keep != rank)
				continue;
			int w = cols[k].width ? cols[k].width : SLICE_MIN;
			if (used + w + 1 > width)
				continue;
			used += w + 1;
			if (k == (int)c)
				return 1;
		}
	return 0;
}
