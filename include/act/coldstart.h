/* coldstart: time one cold start of a command — the page cache dropped
 * first, as the S suite and Phoronix's start-up test do — without blocking
 * the caller: a helper process does sync, the cache drop and the timed run,
 * and hands the time back through a pipe. Needs root (drop_caches). */
#ifndef IOSCHED_COLDSTART_H
#define IOSCHED_COLDSTART_H

#include <sys/types.h>

struct coldstart {
	pid_t pid;                  /* the helper; 0 when none runs */
	int fd;                     /* read end of its pipe */
};

/* Start timing a cold start of cmd (run by /bin/sh -c). Returns 0 or a
 * negative errno. */
int coldstart_begin(const char *cmd, struct coldstart *cs);

/* Not blocking: 0 still running, 1 done with the time in *secs, -1 failed
 * (no root to drop caches, the command could not run). */
int coldstart_poll(struct coldstart *cs, double *secs);

/* Stop a run that is still going (kills the helper and the command). */
void coldstart_cancel(struct coldstart *cs);

#endif
