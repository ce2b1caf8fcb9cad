/* scratch: the tool's scratch directories and temporary files, made so
 * that a later run can tell a dead run's leftovers from a live run's.
 *
 * Whoever makes one holds a flock(2) on it (on the directory itself, or on
 * the temporary file) for as long as it is in use. The kernel drops the lock
 * when the process dies, however it dies (SIGKILL included), so a lock that
 * can be taken means the owner is gone. A pid in the name would not prove
 * that: pids are reused, and another pid namespace sharing /var/tmp hides
 * its processes from kill(pid, 0).
 *
 * Beside the lock, each item has a lock file that says who made it:
 * "iosched-top MACHINE-ID BOOT-ID PID" (in a scratch directory as
 * iosched-top.lock; beside a temporary NAME as NAME.lock, which is the one
 * locked). A name alone proves nothing: another program may use the same
 * pattern, and root may be led to a directory of root's files.
 *
 * A sweep removes only what its lock file says a dead run of the tool on
 * this machine made: a lock file of this user's with that text, its lock
 * free, its pid not alive in this boot (on a filesystem whose locks another
 * mount does not see, the lock alone would not tell), and the item the
 * caller's name pattern, a real directory or regular file of this user's.
 * The place swept is opened as every path root writes (safefile.h:
 * component by component, never through a symlink, no directory another
 * user could change on the way). Inside a stale directory only files with
 * the caller's names go; a directory holding anything else, or a lock file
 * that says otherwise, is left and said so. In the tool's own directory a
 * temporary without a lock file (an earlier version made none) goes when
 * its lock is free and its pid is no live run of the tool. Where locks are not supported
 * (some network filesystems) the owner cannot be told, so nothing there is
 * ever swept. */
#ifndef IOSCHED_SCRATCH_H
#define IOSCHED_SCRATCH_H

#include <stddef.h>

/* Says (1) whether name is one the caller's kind of item uses; arg is the
 * caller's. */
typedef int (*scratch_match)(const char *name, const void *arg);

/* Told one line per item a sweep removed, or found stale and had to leave. */
typedef void (*scratch_report)(void *ctx, const char *line);

/* Make a private directory PARENT/PREFIX plus six random characters
 * (scratch_dir_make_at in PARENT), lock it and write its lock file; its
 * path goes into path. Returns the lock's descriptor, the directory (keep it open
 * while the directory is in use), or a negative errno. */
int scratch_dir_make(const char *parent, const char *prefix, char *path, size_t len);

/* Remove a directory from scratch_dir_make once it holds nothing of the
 * caller's: its lock file, the directory, then the lock (fd, closed). */
void scratch_dir_remove(const char *path, int fd);

/* scratch_dir_make in the directory open as pfd (safefile_open_dir): the
 * name, PREFIX plus six random characters, made with mkdirat (0700; a name
 * that exists, a planted link included, is never taken) goes into name.
 * Returns the directory's descriptor, locked, or a negative errno. */
int scratch_dir_make_at(int pfd, const char *prefix, char *name, size_t len);

/* Remove a directory from scratch_dir_make_at, through pfd. */
void scratch_dir_remove_at(int pfd, const char *name, int fd);

/* Create the temporary name in dirfd (O_EXCL|O_NOFOLLOW, 0600, for
 * writing) after its lock file, locked while *lock stays open. Returns its
 * descriptor, or a negative errno. */
int scratch_tmp_create(int dirfd, const char *name, int *lock);

/* The temporary was renamed into place or removed: its lock file goes,
 * then its lock. */
void scratch_tmp_release(int dirfd, const char *name, int lock);

/* Remove the temporary name and its lock file now (the exit, while
 * another thread may still write it: its blocks go when it closes). */
void scratch_tmp_abandon(int dirfd, const char *name);

/* Remove the stale directories in parent whose names start with prefix
 * (made by scratch_dir_make): the files in them that files() accepts, then
 * the directory. Returns how many directories were removed. */
int scratch_sweep_dirs(const char *parent, const char *prefix, scratch_match files, const void *arg,
		       scratch_report report, void *ctx);

/* Remove the stale temporary files in dir whose names tmp() accepts (each
 * made by scratch_tmp_create), and their lock files. private_dir: dir is
 * the tool's own, so nothing is swept unless it is this user's and open to
 * nobody else; there a ".NAME.PID.tmp" without a lock file (an earlier
 * version's) goes too when its flock is free and PID is no live run of the
 * tool; elsewhere such a file is only said. Returns how many were removed. */
int scratch_sweep_files(const char *dir, int private_dir, scratch_match tmp, const void *arg, scratch_report report,
			void *ctx);

/* ".NAME.PID.tmp": a temporary that becomes NAME when complete. arg: the
 * NAME to match, or NULL for any. For scratch_sweep_files. */
int scratch_is_tmp_of(const char *name, const void *arg);

#endif
