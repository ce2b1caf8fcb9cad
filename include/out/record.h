/* record: --record FILE — every tick's sample appended as one JSON line,
 * after a first line that names the format, its version, the host, the
 * kernel and the start time. Each line is flushed and synced to the disk
 * when written, so a crash or power loss loses at most the tick being
 * written. replay.h reads it back. The format (recfmt.h, RECORD_VERSION) is
 * documented in the man page under RECORDINGS. */
#ifndef IOSCHED_RECORD_H
#define IOSCHED_RECORD_H

#include <stddef.h>

#include "model/recfmt.h"
#include "model/sample.h"


struct recorder;

/* Create (or truncate) path, mode 0600 (it holds command lines), safely
 * (safefile.h). Returns 0 or a negative errno
 * with the reason in err. */
int record_open(struct recorder **out, const char *path, char *err, size_t len);

/* Append sample s. Processes kept: those that did I/O or waited in the
 * interval, and the max_procs busiest. Returns 0 or a negative errno. */
int record_write(struct recorder *r, const struct sample *s, size_t max_procs);

void record_close(struct recorder *r);

#endif
