/* ablock: one A/B at a time on a disk, whichever run of the tool starts
 * it: a lock file per disk in root's private directory (/run/iosched-top,
 * 0700: no other user can hold it, as anyone could flock the world-readable
 * sysfs scheduler file itself), taken without waiting and held for the
 * run. Used by ab.c alone. */
#ifndef IOSCHED_ABLOCK_H
#define IOSCHED_ABLOCK_H

#include <stddef.h>

#define ABLOCK_DIR "/run/iosched-top"

/* Take disk's lock after checking that this process may switch its
 * scheduler. Returns the lock's fd, or -1 with why in err: no root, or
 * another run's A/B on the disk. */
int ablock_take(const char *disk, char *err, size_t len);

/* Let it go: the file removed, then the lock. fd -1: nothing. */
void ablock_release(const char *disk, int fd);

#endif
