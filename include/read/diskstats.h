/* diskstats: parser for /proc/diskstats (Documentation/admin-guide/iostats.rst).
 *
 * A line is "major minor name" followed by 11 (kernels before 4.18),
 * 15 (4.18+, discard fields) or 17 (5.5+, flush fields) counters. Every
 * counter the kernel gives is kept; the ones a kernel does not give stay 0
 * and nfields says how many were present. */
#ifndef IOSCHED_DISKSTATS_H
#define IOSCHED_DISKSTATS_H

#include <stddef.h>
#include <stdint.h>

enum diskstats_field {
	DS_RD_IOS,       /* reads completed */
	DS_RD_MERGES,    /* reads merged */
	DS_RD_SECTORS,   /* sectors read (512 bytes each, whatever the device) */
	DS_RD_TICKS,     /* ms spent reading */
	DS_WR_IOS,
	DS_WR_MERGES,
	DS_WR_SECTORS,
	DS_WR_TICKS,
	DS_IN_FLIGHT,    /* a gauge, not a counter */
	DS_IO_TICKS,     /* ms the device had I/O in flight (-> %util) */
	DS_TIME_IN_QUEUE,/* weighted ms (-> aqu-sz) */
	DS_DC_IOS,       /* 4.18+ */
	DS_DC_MERGES,
	DS_DC_SECTORS,
	DS_DC_TICKS,
	DS_FL_IOS,       /* 5.5+ */
	DS_FL_TICKS,
	DS_NFIELDS
};

#define DISKSTATS_NAME_MAX 32

struct diskstats_row {
	unsigned major, minor;
	char name[DISKSTATS_NAME_MAX];
	int nfields;                 /* 11, 15 or 17 */
	uint64_t f[DS_NFIELDS];
};

struct diskstats_table {
	struct diskstats_row *rows;
	size_t n, cap;
	size_t bad_lines;            /* lines that did not parse, skipped */
};

/* Parse one line. Returns 0, or -EINVAL when it is not a diskstats line. */
int diskstats_parse_line(const char *line, struct diskstats_row *out);

/* Parse a whole /proc/diskstats text into t (which is reset first).
 * Returns 0 or -ENOMEM. Unparsable lines are counted in bad_lines. */
int diskstats_parse(const char *text, struct diskstats_table *t);

/* Read and parse /proc/diskstats (or another path, for tests). */
int diskstats_read(const char *path, struct diskstats_table *t);

/* The row named name, or NULL. */
const struct diskstats_row *diskstats_find(const struct diskstats_table *t, const char *name);

void diskstats_free(struct diskstats_table *t);

#endif
