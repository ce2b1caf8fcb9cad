/* outputs: see include/out/outputs.h */
#include "out/outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/safefile.h"
#include "base/util.h"

/* The recording keeps at least this many of the busiest processes. */
#define RECORD_PROCS_MIN 20

/* The Prometheus file's directory must take files: said at start, not
 * at the first interval. */
static int check_prom_dir(const char *path, char *err, size_t len)
{
	struct safefile_dir d;
	char why[300];
	int rc = safefile_dir_open(&d, path, why, sizeof why);
	if (rc < 0) {
		util_fmt(err, len, "--prometheus-textfile %s: %s", path, why);
		return rc;
	}
	struct stat st;
	if (faccessat(d.fd, ".", W_OK, AT_EACCESS) != 0) {
		rc = -errno;
		util_fmt(err, len, "--prometheus-textfile %s: cannot write in %s: %s", path, d.path, strerror(-rc));
	} else if (fstatat(d.fd, d.base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
		/* the file is put in place by a rename, which a directory refuses */
		rc = -EISDIR;
		util_fmt(err, len, "--prometheus-textfile %s: is a directory; name a file in it, e.g. %s/iosched.prom", path,
			 path);
	} else if ((rc = safefile_replaceable(&d, why, sizeof why)) < 0) {
		/* another user's file, a link, a FIFO: refused as --record
		 * refuses it (each write checks again before its rename) */
		util_fmt(err, len, "--prometheus-textfile: %s", why);
	}
	safefile_dir_close(&d);
	return rc;
}

int outputs_open(struct outputs *out, const struct options *o, char *err, size_t len)
{
	memset(out, 0, sizeof *out);
	out->max_procs = (size_t)o->procs > RECORD_PROCS_MIN ? (size_t)o->procs : RECORD_PROCS_MIN;
	if (o->prom_file) {
		int rc = check_prom_dir(o->prom_file, err, len);
		if (rc < 0)
			return rc;
		out->prom_path = o->prom_file;
	}
	out->rec_path = o->record;
	if (o->record)
		return record_open(&out->rec, o->record, err, len);
	return 0;
}

int outputs_tick(struct outputs *out, const struct sample *s, char *err, size_t len)
{
	int rc = 0;
	if (out->rec && (rc = record_write(out->rec, s, out->max_procs)) < 0) {
		util_fmt(err, len, "--record %s: writing failed (%s)", out->rec_path, strerror(-rc));
		record_close(out->rec);
		out->rec = NULL;
		return rc;
	}
	if (out->prom_path) {
		prom_count(&out->prom, s);
		if ((rc = prom_write(out->prom_path, s, &out->prom, err, len)) < 0) {
			out->prom_path = NULL;
			return rc;
		}
	}
	return 0;
}

void outputs_close(struct outputs *out)
{
	prom_free(&out->prom);
	record_close(out->rec);
	out->rec = NULL;
}
