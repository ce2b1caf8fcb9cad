/* event: what actuators did (a scheduler switch) or what happened to a
 * collector (a probe that ended), with its outcome. Events go into the
 * sample of the interval they happened in; the recent ones are kept for the
 * chart's markers and the status line. */
#ifndef IOSCHED_EVENT_H
#define IOSCHED_EVENT_H

#include <stddef.h>

/* What an event is about. Its name (event_type_name) is what JSON, the
 * recordings and the event log say; nothing else compares strings. */
enum event_type {
	EV_SCHEDULER,  /* a scheduler switch */
	EV_TUNABLE,    /* a queue or scheduler tunable */
	EV_IOPRIO,     /* a process's I/O priority */
	EV_DELAYACCT,  /* kernel.task_delayacct */
	EV_PROBE,      /* the probe ended (error says why) */
	EV_DISK,       /* a disk came or went (from/to: "absent"/"present") */
	EV_FRESH,      /* a fresh reader's job: to says how many reads, ms how long they took */
	EV_CLEANUP,    /* a killed run's scratch item removed */
	EV_AB,         /* an A/B run started, ended (its verdicts) or was refused; its text in error */
	EV_BFQ_WEIGHT, /* a cgroup's io.bfq.weight (key: "io.bfq.weight UNIT") */
	EV_UDEV,       /* a udev rule written (P, w), or why not; its text in error */
	EV_NOTE,       /* a message wider than the status line: its whole text in error */
	EV_NTYPES
};

/* "scheduler", "tunable", ...; "?" for a value out of range. */
const char *event_type_name(enum event_type t);

/* The type named s. Returns 0, or -1 for a name no type has. */
int event_type_parse(const char *s, enum event_type *out);

struct event {
	double ts;            /* unix seconds */
	double mono;          /* CLOCK_MONOTONIC seconds, to place it on the chart */
	enum event_type type;
	char disk[32];        /* "" for a process's change (ioprio) */
	int pid;              /* ioprio: the process; 0 otherwise */
	char key[48];         /* tunable: its file under queue/ (e.g. "iosched/slice_idle") */
	char from[48], to[48];
	double ms;            /* how long the change took */
	int ok;
	char error[200];      /* "" when ok */
	char cause[64];       /* why the tool made the change ("A/B phase 3"), "" when asked for */
};

#define EVENTLOG_PENDING 64
#define EVENTLOG_RECENT 32

struct eventlog {
	struct event pending[EVENTLOG_PENDING];  /* not yet in a sample */
	size_t npending;
	size_t dropped;                          /* pending overflowed */
	struct event recent[EVENTLOG_RECENT];    /* ring, oldest overwritten */
	size_t nrecent;                          /* total ever added */
};

void eventlog_add(struct eventlog *l, const struct event *e);

/* Move the pending events to out (up to max); returns how many. */
size_t eventlog_take(struct eventlog *l, struct event *out, size_t max);

/* Copy the recent events, oldest first, to out (up to max). */
size_t eventlog_recent(const struct eventlog *l, struct event *out, size_t max);

/* The key of a scheduler switch the tool saw but did not make (extswitch.h). */
#define EVENT_KEY_EXTERNAL "scheduler, outside the tool"

/* What happened, without the disk's name, as every view words it: "probe:
 * why" for a failure, "disk added"/"disk removed" for a disk event (from
 * and to are "absent"/"present"), "KEY FROM -> TO in MS ms" for a change. */
void event_describe(const struct event *e, char *buf, size_t len);

#endif
