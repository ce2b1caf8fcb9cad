/* freshjob: the "fresh" reader profile. A new process starts at a chosen
 * moment, does a fixed job (by default 2,000 QD1 reads of 4 KiB, O_DIRECT,
 * at random offsets) and ends; its time is what starting an application
 * feels like, which is what bfq's weight raising of new processes is for.
 * Each job is a new process (aioreader.h's child, forked for it), because
 * a scheduler like bfq treats each process apart; the reads are timed as a
 * whole inside it, with no message between them. It never writes. */
#ifndef IOSCHED_FRESHJOB_H
#define IOSCHED_FRESHJOB_H

#include <stddef.h>
#include <stdint.h>

#include "probe/aioreader.h"

#define FRESHJOB_READS_DEFAULT 2000

struct freshjob {
	struct aioreader io;
	double started;       /* mono seconds; 0: no job */
	uint32_t reads;
};

/* Start a job of reads reads of io_size on path: a block device node or,
 * for the file fallback (is_file), a probe file (opened O_NOFOLLOW).
 * Call it from the thread that polls the job (the child dies with it).
 * Returns 0, or -1 with why in err. */
int freshjob_start(struct freshjob *j, const char *path, int is_file, uint32_t io_size, uint32_t reads, uint64_t seed,
		   char *err, size_t len);

/* Whether the job is done: 1 with its time in *ms, 0 while it runs, -1
 * when it failed (why in err). Never waits. */
int freshjob_poll(struct freshjob *j, double *ms, char *err, size_t len);

/* How long the running job has run, in ms (0 when none). */
double freshjob_elapsed_ms(const struct freshjob *j, double mono_now);

/* Stop a job (done or not) without waiting on a hung disk. */
void freshjob_cancel(struct freshjob *j);

#endif
