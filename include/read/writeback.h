/* writeback: the page cache's dirty data — Dirty and Writeback from
 * /proc/meminfo next to the vm.dirty_* limits — because buffered writes
 * land on kernel flushers, not on the process that made them. */
#ifndef IOSCHED_WRITEBACK_H
#define IOSCHED_WRITEBACK_H

#include <stdint.h>

struct writeback_info {
	int ok;                     /* meminfo was read */
	uint64_t dirty_kB, writeback_kB;
	long dirty_ratio, dirty_background_ratio;     /* percent; 0 when the _bytes form is set */
	uint64_t dirty_bytes, dirty_background_bytes; /* 0 when the ratio form is used */
};

/* Parse /proc/meminfo text for Dirty and Writeback. Returns 0, or -EINVAL
 * when either is missing. */
int writeback_parse_meminfo(const char *text, struct writeback_info *out);

/* Read meminfo and the vm.dirty_* settings. Returns 0 or a negative errno. */
int writeback_read(struct writeback_info *out);

#endif
