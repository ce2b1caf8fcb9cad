/* tune: the actuator that changes a disk's queue settings — its I/O
 * scheduler, the queue attributes (nr_requests, read_ahead_kb,
 * wbt_lat_usec, nomerges, rq_affinity) and the active scheduler's own files
 * under queue/iosched/. A change is described by a request; applying it
 * fills an event (from, to, how long the kernel took, ok or why not) so it
 * can be shown, recorded and undone. */
#ifndef IOSCHED_TUNE_H
#define IOSCHED_TUNE_H

#include <stddef.h>

#include "base/event.h"
#include "model/settings.h"

/* Where the queue settings live and how one is written. A request with
 * none uses the real ones: /sys, each write made from a child process
 * (tune.c says why). The unit tests give a directory of plain files and a
 * writer that acts as the kernel does, so the order of restores and undos
 * is tested without a device. */
struct tune_sysfs {
	const char *root;  /* instead of "/sys" */
	const char *cgroot; /* instead of the cgroup v2 mount (TUNE_BFQ_WEIGHT) */
	int (*write)(const struct tune_sysfs *s, const char *path, const char *value); /* 0 or -errno */
	void *ctx;
};

/* A setting the kernel reset by itself during a scheduler switch, so
 * that undoing the switch puts the user's own value back too:
 * - TUNE_QUEUE: a queue attribute the switch changed (it gives
 *   nr_requests the new scheduler's default; bfq turns write throttling
 *   off), with its value before and after;
 * - TUNE_IOSCHED: a file of the scheduler switched away from (bfq's
 *   low_latency), gone with it: the scheduler switched back to starts
 *   with its defaults. "after" is empty; the undo writes only the files
 *   whose value then differs from "before". */
struct tune_reset {
	enum tune_kind kind;
	char key[TUNE_KEY_MAX];
	char before[TUNE_VALUE_MAX];
	char after[TUNE_VALUE_MAX];
};

#define TUNE_QUEUE_MAX 5    /* every queue attribute tune knows */
#define TUNE_IOSCHED_MAX 16 /* a scheduler's own files: bfq has 10 (6.1), mq-deadline 7, kyber 2 */
#define TUNE_RESETS_MAX (TUNE_QUEUE_MAX + TUNE_IOSCHED_MAX)

/* A request to set the I/O priority of process pid (comm for messages).
 * start: the start time (clock ticks after boot, /proc/PID/stat) of the
 * process the caller chose, as it saw it (a row of a sample up to an
 * interval old, a panel left open): the request is refused if the pid is
 * another process's by the time it is carried out; 0: the process that
 * has the pid now. */
void tune_req_ioprio(struct tune_req *r, int pid, unsigned long long start, const char *comm, const char *value);

/* Whether r's process (TUNE_IOPRIO) is still the one the request was made
 * for: 1, its pid alive and with the start time noted then; 0, not (it
 * ended, and its pid may be another's now); -1, it cannot be told: the
 * pid's stat does not answer (a process held in execve), and a pid whose
 * process ended may be another user's held one, for as long as they like,
 * so it is never taken for the same. 1 for any other kind of request. */
int tune_req_same_process(const struct tune_req *r);

/* A request to set the bfq weight (io.bfq.weight's default, 1..1000) of
 * the cgroup at path (relative to the v2 root, "a.slice/b.service"). */
void tune_req_bfq_weight(struct tune_req *r, const char *path, const char *value);

/* Parse "none", "idle", "be/N", "rt/N" (N 0-7) into a raw ioprio value.
 * Returns 0 or -EINVAL. */
int tune_parse_ioprio(const char *s, int *out);

/* Fill a request (on the real /sys). */
void tune_req_init(struct tune_req *r, const char *disk, enum tune_kind kind, const char *key,
		   const char *value);

/* The sysfs file of a request: /sys/block/D/queue/{scheduler,KEY,iosched/KEY}. */
int tune_path(const char *disk, enum tune_kind kind, const char *key, char *buf, size_t len);

/* The request that puts back what switch request sw made the kernel
 * reset (an undo, marked as a reset; a queue attribute or a file of the
 * scheduler switched back to, by rs->kind). */
void tune_req_reset(struct tune_req *r, const struct tune_req *sw, const struct tune_reset *rs);

/* The file of a request, under its own sysfs. */
int tune_req_path(const struct tune_req *r, char *buf, size_t len);

/* The name shown and logged: "scheduler", "read_ahead_kb", "iosched/slice_idle". */
void tune_label(enum tune_kind kind, const char *key, char *buf, size_t len);

/* Read the current value (the active scheduler's name for TUNE_SCHEDULER).
 * Returns 0 or a negative errno. */
int tune_read(const char *disk, enum tune_kind kind, const char *key, char *out, size_t len);

/* The current value of a request's file, under its own sysfs. */
int tune_req_read(const struct tune_req *r, char *out, size_t len);

/* Check a request before it is queued: a key that exists, a value of the
 * right form and range, a scheduler the disk offers. Returns 0, or -EINVAL
 * with a message that says what is accepted. */
int tune_validate(const struct tune_req *r, char *err, size_t len);

/* Write the value. Fills ev whatever happens. Writing the scheduler
 * freezes and drains the queue: under load this can take seconds, so the
 * UI runs it on the worker thread. A scheduler switch to another
 * scheduler also fills resets (up to TUNE_RESETS_MAX) with the queue
 * attributes it changed and the old scheduler's files it took away, and
 * sets *nresets; anything else sets it to 0. Returns 0 or a negative
 * errno. */
struct timedread;
/* tr: where an I/O priority's undo reads /proc (timedread.h), so that the
 * tasks held in execve it meets hold threads of one reader, not of a new
 * one per undo; NULL: one is made for the undo. */
int tune_apply(const struct tune_req *r, struct event *ev, struct tune_reset *resets, size_t *nresets,
	       struct timedread *tr);

/* The queue attributes and the active scheduler's files with their values,
 * for the tunables panel. Returns how many were written to out. */
size_t tune_list(const char *disk, struct tunable *out, size_t max);

#endif
