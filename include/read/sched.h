/* sched: the I/O scheduler list of a queue, as /sys/block/X/queue/scheduler
 * prints it: "none [mq-deadline] kyber bfq " — the active one in brackets. */
#ifndef IOSCHED_SCHED_H
#define IOSCHED_SCHED_H

#include <stddef.h>

#define SCHED_MAX 8
#define SCHED_NAME_MAX 24   /* the kernel's ELV_NAME_MAX is 16 */

struct sched_list {
	int n;                       /* 0: the queue has no scheduler (zram, some dm) */
	int active;                  /* index into names, -1 when none is marked */
	char names[SCHED_MAX][SCHED_NAME_MAX];
};

/* Parse the scheduler text. Returns 0, or -EINVAL for malformed text
 * (unbalanced or repeated brackets, a name too long, too many names).
 * An empty or blank text gives n == 0. */
int sched_parse(const char *text, struct sched_list *out);

/* The active scheduler's name, or NULL. */
const char *sched_active(const struct sched_list *s);

/* Write "[none] mq-deadline kyber bfq" (or "-" with no scheduler). */
void sched_format(const struct sched_list *s, char *buf, size_t len);

#endif
