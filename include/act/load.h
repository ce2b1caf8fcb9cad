/* load: the built-in background load for demos and A/B runs, so nothing
 * else needs installing. "write": sequential 1 MiB O_DIRECT writes at queue
 * depth 8 through libaio into one scratch file, wrapping within a bounded
 * size; "fsync": many small files written and fsync'd, like a package
 * manager unpacking. It never writes to a raw device: the scratch directory
 * is made by the tool (mkdirat, a random name) on a filesystem of the disk
 * under test, in a directory opened once as every path root writes
 * (safefile_open_dir: a link or another user's directory is refused), the
 * files are created O_EXCL|O_NOFOLLOW, the run is refused when free space
 * is below twice the size, and everything is removed when it stops. The
 * directory is locked while the load runs (scratch.h), so what a killed
 * run left is told from a live run's and removed by load_sweep. */
#ifndef IOSCHED_LOAD_H
#define IOSCHED_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "base/scratch.h"
#include "model/settings.h"

struct load;

/* "none", "write", "fsync" -> kind; -1 for anything else. */
int load_kind_parse(const char *s);
const char *load_kind_name(enum load_kind k);

/* Where a load on disk writes: given (--load-dir) when not NULL, else
 * /var/tmp when it is on that disk, else the first read-write filesystem on
 * it. Returns 0, or -1 with what to do in err. */
int load_pick_dir(const char *disk, const char *given, char *dir, size_t len, char *err, size_t elen);

/* The smallest load worth running: under it the writer's few blocks sit
 * in the disk's cache and load nothing. The same as --load-size's floor. */
#define LOAD_SIZE_MIN (64ull << 20)

/* The load size that fits avail bytes free (the load keeps twice its size
 * free): want when it fits; else, when want is only the default (given 0),
 * the largest power of two at most avail / 2 and at least LOAD_SIZE_MIN.
 * 0 when none fits (a size the user gave is never shrunk). */
uint64_t load_size_fit(uint64_t avail, uint64_t want, int given);

/* load_size_fit for the free space of dir, where the load on disk would
 * write: 0 with the size in *size, or -1 with what is wrong and how to
 * fix it in err (free space, --load-size, --load-dir, --load none). */
int load_pick_size(const char *disk, const char *dir, uint64_t want, int given, uint64_t *size, char *err,
		   size_t len);

/* Start the load in a scratch directory made inside dir, dir opened once
 * (its free space and the directory made both through that descriptor).
 * Returns 0, or a negative errno with why in err (too little free space;
 * dir reached through a link or owned by another user). */
int load_start(enum load_kind kind, const char *dir, uint64_t size, struct load **out, char *err, size_t len);

/* Remove the scratch directories of loads that were killed (their runs
 * are gone) from dir, a place load_pick_dir gives; each is reported.
 * Returns how many were removed. */
int load_sweep(const char *dir, scratch_report report, void *ctx);

/* Bytes written so far. */
uint64_t load_bytes(struct load *l);

/* Stop, remove every file and the scratch directory. */
void load_stop(struct load *l);

#endif
