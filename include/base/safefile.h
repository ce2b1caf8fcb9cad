/* safefile: creating and replacing files safely when the tool runs as root
 * and the place was named by someone else (--record, --prometheus-textfile,
 * the configuration file, udev rules).
 *
 * The directory is opened once (safefile_dir) and checked; every later
 * step is relative to that descriptor (openat, renameat), so renaming a
 * component of the path between the steps cannot move the write
 * elsewhere. The last component is never followed when it is a symbolic
 * link. A directory that everyone may write and that is not sticky is
 * refused: anyone there could swap the file between our steps (/tmp and
 * /var/tmp are sticky and are fine). */
#ifndef IOSCHED_SAFEFILE_H
#define IOSCHED_SAFEFILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct safefile_dir {
	int fd;                     /* the directory, O_DIRECTORY */
	char path[PATH_MAX];        /* its path, for messages */
	char base[NAME_MAX + 1];    /* the file's name in it */
};

/* Open the directory dir itself for work inside it (openat, unlinkat):
 * component by component, no symbolic link followed anywhere in it, every
 * directory on the way owned by root, this user or sudo's caller and
 * written by nobody else unless sticky. Returns the descriptor
 * (O_DIRECTORY), or a negative errno with why in err. */
int safefile_open_dir(const char *dir, char *err, size_t len);

/* safefile_open_dir, making each missing directory on the way (mkdirat,
 * mode) before stepping into it: nothing is made anywhere a link leads,
 * nor in a directory safefile_open_dir would refuse. */
int safefile_make_dir(const char *dir, mode_t mode, char *err, size_t len);

/* Open and check the directory of path, and split off the file's name.
 * Returns 0, or a negative errno with why in err (a sentence that names
 * the directory). */
int safefile_dir_open(struct safefile_dir *d, const char *path, char *err, size_t len);

void safefile_dir_close(struct safefile_dir *d);

/* Open d's file for writing from the start: not followed if a symlink, a
 * FIFO or device neither blocks nor is written (only a regular file is
 * taken), an existing file must belong to this user and have no other
 * hard links (else another user's file would be truncated); a new one
 * gets mode, and so does an existing one (a recording of command lines
 * left 0644 becomes 0600). Returns the descriptor, or a negative errno with why in err
 * ("is a symbolic link: not followed"). */
int safefile_create(const struct safefile_dir *d, mode_t mode, char *err, size_t len);

/* A temporary for an atomic replace of d's file: ".NAME.XXXXXX" with a
 * random suffix, O_EXCL (a name nobody could plant), mode mode. Its name
 * goes into tmp. Returns the descriptor or a negative errno. */
int safefile_temp(const struct safefile_dir *d, mode_t mode, char *tmp, size_t len);

/* A temporary as a stream (safefile_temp, then fdopen). NULL with a
 * negative errno in *err (the temporary is gone then). */
FILE *safefile_temp_stream(const struct safefile_dir *d, mode_t mode, char *tmp, size_t len, int *err);

/* Finish a stream from safefile_temp_stream: flush, sync and close it,
 * then rename it over d's file; on any failure it is removed instead.
 * Returns 0 or a negative errno. */
int safefile_finish(const struct safefile_dir *d, FILE *f, const char *tmp);

/* Rename the temporary over d's file and make the rename durable; on
 * failure the temporary is removed. Returns 0 or a negative errno. */
int safefile_commit(const struct safefile_dir *d, const char *tmp);

/* Whether d's file may be replaced by a rename: absent, or a regular file
 * of this user's (as safefile_create would take it). Another user's file
 * in a shared directory (/tmp) stays theirs; a link or a FIFO stays too.
 * Returns 0, or a negative errno with why in err ("... belongs to uid
 * 1001, not to this user: not replaced"). */
int safefile_replaceable(const struct safefile_dir *d, char *err, size_t len);

/* safefile_finish after safefile_replaceable, checked just before the
 * rename (what was there when the caller began may have changed since);
 * refused, the temporary goes. Returns 0, or a negative errno with why in
 * err. */
int safefile_finish_replace(const struct safefile_dir *d, FILE *f, const char *tmp, char *err, size_t len);

/* The user who runs the tool: sudo's caller (SUDO_UID) under sudo, else
 * the real uid. A file of theirs, or of root's, is one the tool may read
 * for them. */
uid_t safefile_caller_uid(void);

/* Six random characters for a name nobody could plant in advance. */
void safefile_random_suffix(char out[7]);

/* Remove a temporary that will not be committed. */
void safefile_discard(const struct safefile_dir *d, const char *tmp);

#endif
