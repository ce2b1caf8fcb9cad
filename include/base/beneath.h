/* beneath: opening a name below a directory already open, so that what is
 * opened is what the walk that found it saw, whatever the owners of the
 * directories on the way did since.
 *
 * A path is only a name: any directory on it may have been renamed and a
 * symbolic link put in its place, leading a root process anywhere (to
 * /dev, where an open of a watchdog arms it). Here no symbolic link is
 * followed anywhere in the name, no ".." leaves the directory and no
 * mount is crossed: openat2() with RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS
 * and RESOLVE_NO_XDEV (Linux 5.6), else one component at a time with
 * O_NOFOLLOW, each checked to be on the same filesystem. */
#ifndef IOSCHED_BENEATH_H
#define IOSCHED_BENEATH_H

/* Open rel (relative: "a/b/c", or "." for top itself) below the directory
 * open as top, with flags (O_NOFOLLOW and O_CLOEXEC are added; no
 * O_CREAT). Returns the descriptor, or a negative errno: -ELOOP where a
 * link is on the way, -EXDEV for a mount or a "..", -EINVAL for an
 * absolute or empty rel. */
int beneath_open(int top, const char *rel, int flags);

/* The same one component at a time, without openat2: what beneath_open
 * does on kernels before 5.6 (and what the tests check on any). */
int beneath_open_steps(int top, const char *rel, int flags);

/* A second, real open of the object that the O_PATH descriptor pfd
 * stands for (through /proc/self/fd), with flags: no name is looked up
 * again, so it is the object already checked with fstat(pfd). Returns the
 * descriptor or a negative errno. */
int beneath_reopen(int pfd, int flags);

/* A regular file opened with flags, and nothing else ever opened: name
 * (relative to dirfd, or AT_FDCWD) is first opened O_PATH (O_NOFOLLOW
 * kept from flags), which runs no device's, FIFO's or socket's open, its
 * type checked with fstat (into st when not NULL), and only then the file
 * itself opened, through that descriptor. For what a user may point the
 * tool at (--replay, --config, a theme, the rules file): a FIFO put there
 * is not opened (its waiting writer is not released), a device's open
 * (a watchdog's arms it) never runs. Returns the descriptor, or a negative
 * errno: -EINVAL when it is not a regular file, -ELOOP for a link with
 * O_NOFOLLOW. */
struct stat;
int beneath_open_file(int dirfd, const char *name, int flags, struct stat *st);

#endif
