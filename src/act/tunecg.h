/* tunecg: tune's TUNE_BFQ_WEIGHT, a cgroup's bfq weight — the default
 * line of <v2 mount>/<path>/io.bfq.weight ("default 100", then one line
 * per device set apart, which are left alone). tune.c hands a request of
 * that kind here; the rest of the tool goes through tune.h. Private to
 * src/act. */
#ifndef IOSCHED_TUNECG_H
#define IOSCHED_TUNECG_H

#include <stddef.h>

#include "act/tune.h"

/* The file: under the request's cgroot, or the v2 mount. Returns 0,
 * -EINVAL for a path the kernel would not give, -ENOENT without v2. */
int tunecg_path(const struct tune_req *r, char *buf, size_t len);

/* The default weight now, as a number ("100"). Returns 0 or -errno. */
int tunecg_read(const struct tune_req *r, char *out, size_t len);

/* The path, the file there, a value from 1 to 1000. Returns 0, or a
 * negative errno with what is wrong and what is accepted in err. */
int tunecg_validate(const struct tune_req *r, char *err, size_t len);

/* Write, read back (the value read must be the one written), and fill ev
 * (its ts, mono and to already set): type EV_BFQ_WEIGHT, no disk, key
 * "io.bfq.weight UNIT". Returns 0 or a negative errno. */
int tunecg_apply(const struct tune_req *r, struct event *ev);

#endif
