/* sysctlhold: a kernel setting that runs of the tool turn on for as long as
 * they need it (kernel.task_delayacct), shared by every run on the machine.
 *
 * The setting is one for the whole system, so "put back what I found at
 * my start" is wrong with two runs: run A turns it on, B finds it on, A
 * ends and turns it off under B, B ends and puts back the 1 it found, and
 * the machine keeps it for good. Instead every run that changes it is a
 * holder, and the value goes back to what it was before the first holder
 * when the last one ends.
 *
 * The record lives in a private directory (root's: /run/iosched-top, 0700,
 * opened as safefile opens every path root writes; /run is emptied at
 * boot, as the setting is):
 *   STEM.holder.PID   one per live holder, which keeps a flock(2) on it
 *                     for as long as it holds. The kernel drops the lock
 *                     when the process dies, however it dies (SIGKILL
 *                     too), so a holder file whose lock can be taken is a
 *                     dead run's, and goes.
 *   STEM.orig         the value before the first holder: written by the
 *                     first, read and removed by the last. When the holders
 *                     it belonged to were all killed, it stays, and the
 *                     next run that takes a hold finds it and puts that
 *                     value back at its end.
 * Every step runs under a flock on the directory itself. Where the
 * directory cannot be had (not root: the write to /proc/sys would fail
 * anyway), the caller's own record is used, as for a single run. */
#ifndef IOSCHED_SYSCTLHOLD_H
#define IOSCHED_SYSCTLHOLD_H

#include <stddef.h>

struct sysctl_share {
	const char *sysctl; /* the file under /proc/sys */
	const char *dir;    /* the private directory of the record */
	const char *stem;   /* the record's file names start with it */
};

/* One run's part in it. */
struct sysctl_hold {
	int fd;   /* its STEM.holder.PID, locked; -1: not holding */
	int orig; /* without the directory: the value before this run's first write; -1 none */
};

void sysctlhold_init(struct sysctl_hold *h);

/* Write value to the setting, as a holder (taking a hold when not one
 * yet). *was: the value read before. Returns 0, or a negative errno with
 * why in err. */
int sysctlhold_set(const struct sysctl_share *s, struct sysctl_hold *h, int value, int *was, char *err, size_t len);

/* How many live holders other than this process there are (the pid of
 * one of them in *pid); 0 when none or the record cannot be read. */
int sysctlhold_others(const struct sysctl_share *s, int *pid);

/* Let go. The last live holder puts the value from before the first one
 * back. Returns 1 with it in *value when this run put it back (or found it
 * so), 2 when other runs still hold it (left as it is; one's pid in
 * *value), 0 when this run held nothing, or a negative errno when the
 * write failed (the value it should have in *value). */
int sysctlhold_release(const struct sysctl_share *s, struct sysctl_hold *h, int *value);

#endif
