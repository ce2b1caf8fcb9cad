/* subuid: the subordinate uid ranges of /etc/subuid (what rootless
 * containers' files are owned by): each range's uids are its user's. */
#ifndef IOSCHED_SUBUID_H
#define IOSCHED_SUBUID_H

#include <stddef.h>
#include <sys/types.h>

struct subuid_range {
	uid_t lo, hi;   /* [lo, hi) */
	uid_t owner;
};

/* The ranges of the file at path ("name-or-uid:start:count" a line; a
 * name is looked up in the user database, thread-safe), at most max.
 * Returns how many; 0 when the file cannot be read. */
size_t subuid_read(const char *path, struct subuid_range *r, size_t max);

/* The range that holds uid; NULL when none does. */
const struct subuid_range *subuid_range_of(const struct subuid_range *r, size_t n, uid_t uid);

#endif
