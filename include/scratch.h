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
 * A sweep removes only what is recognisably the tool's: the caller's name
 * pattern, a real directory or regular file (never through a symlink),
 * owned by this user, not locked. Inside a stale directory only files with
 * the caller's names go; a directory holding anything else is left and
 * said so. Where locks are not supported (some network filesystems) the
 * owner cannot be told, so nothing there is ever swept. */
#ifndef IOSCHED_SCRATCH_H
#define IOSCHED_SCRATCH_H

#include <stddef.h>

/* Says (1) whether name is one the caller's kind of item uses; arg is the
 * caller's. */
typedef int (*scratch_match)(const char *name, const void *arg);

/* Told one line per item a sweep removed, or found stale and had to leave. */
typedef void (*scratch_report)(void *ctx, const char *line);

/* Make a private directory PARENT/PREFIX plus six random characters
 * (mkdtemp: mode 0700) and lock it; its path goes into path. Returns the
 * lock's descriptor (keep it open while the directory is in use; close it
 * after removing the directory), or a negative errno. */
int scratch_dir_make(const char *parent, const char *prefix, char *path, size_t len);

/* Lock a temporary file just created with O_EXCL as fd, for as long as fd
 * stays open. Returns 0; -ESTALE when a sweep took it between its creation
 * and the lock (it is gone: close fd and create it again); or another
 * negative errno. */
int scratch_file_lock(int fd);

/* Remove the stale directories in parent whose names start with prefix
 * (made by scratch_dir_make): the files in them that files() accepts, then
 * the directory. Returns how many directories were removed. */
int scratch_sweep_dirs(const char *parent, const char *prefix, scratch_match files, const void *arg,
		       scratch_report report, void *ctx);

/* Remove the stale temporary files in dir whose names tmp() accepts (each
 * locked by scratch_file_lock while it was written). Returns how many were
 * removed. */
int scratch_sweep_files(const char *dir, scratch_match tmp, const void *arg, scratch_report report, void *ctx);

/* ".NAME.PID.tmp": a temporary that becomes NAME when complete. arg: the
 * NAME to match, or NULL for any. For scratch_sweep_files. */
int scratch_is_tmp_of(const char *name, const void *arg);

#endif
