/* config: the configuration file — $XDG_CONFIG_HOME/iosched-top/config,
 * else ~/.config/iosched-top/config — one long option per line:
 *     # comment
 *     theme stream
 *     delay = 0.5
 *     no-mouse
 * (a leading "--" is allowed). options.c applies each line with the same
 * code as the command line, so every option is a key, and the command line
 * wins over the file. Under sudo the invoking user's file is used, read
 * only if that user or root owns it, and written as that user. */
#ifndef IOSCHED_CONFIG_H
#define IOSCHED_CONFIG_H

#include <stddef.h>
#include <sys/types.h>

struct config_entry {
	char name[64];             /* without "--" */
	char value[1024];
	int has_value;
	int line;
};

struct config_file {
	char path[4096];
	uid_t owner;               /* who owns the file read */
	int writable_by_others;    /* group or world may write it: anyone could have put lines in it */
	struct config_entry *e;
	size_t n;
};

/* Whose configuration this run uses: the path, and the user who should
 * own it (the invoking user under sudo). Returns 0, or -ENOENT when no
 * home directory is known. */
int config_locate(char *path, size_t len, uid_t *uid, gid_t *gid);

/* Read path into out. A missing file is an empty one unless must_exist.
 * Returns 0, or -1 with "PATH:LINE: what is wrong" (or why it cannot be
 * read) in err. A file not owned by uid or root is refused. Opened with
 * uid:gid's rights (root's stand aside for it, see config.c). */
int config_read(const char *path, int must_exist, uid_t uid, gid_t gid, struct config_file *out, char *err,
		size_t len);

void config_free(struct config_file *f);

/* Save keys = values into path: the file's other lines are kept, these
 * keys replaced. Written to a temporary file (mode 0600) and renamed; the
 * directory is made (0700) if needed; both owned by uid:gid. Returns 0, or
 * a negative errno with the reason in err. */
int config_save(const char *path, const char *const *keys, const char *const *values, size_t n, uid_t uid, gid_t gid,
		char *err, size_t len);

#endif
