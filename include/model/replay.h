/* replay: --replay FILE — samples read back from a recording (record.h)
 * instead of the system: no root, no devices. A line that is cut short
 * or not what a recording holds ends the replay there, with the line
 * number and the reason; a recording of a newer format version is
 * refused at open. */
#ifndef IOSCHED_REPLAY_H
#define IOSCHED_REPLAY_H

#include <stddef.h>

#include "model/sample.h"

struct replay;

/* Open path and check its first line. Returns 0, or a negative errno with
 * "FILE:LINE: what is wrong" (or why it cannot be read) in err. */
int replay_open(struct replay **out, const char *path, char *err, size_t len);

/* The next tick into out: 1, or 0 at the end. At an end that is not the
 * file's clean end, msg says where and why ("FILE:12: cut short ..."),
 * else msg is "". */
int replay_next(struct replay *r, struct sample *out, char *msg, size_t len);

/* The line number of the last tick read (the header is line 1). */
long replay_line(const struct replay *r);

void replay_close(struct replay *r);

#endif
