/* procprio: a task's I/O priority, read and written as iotop does. */
#include "procparts.h"

#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_CLASS_SHIFT 13

int procprio_read(int tid)
{
	return (int)syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, tid);
}

void procs_forget_ioprio(struct procs *p)
{
	for (size_t i = 0; i < p->nprev; i++)
		p->prev[i].ioprio = -1;
}

void procs_format_ioprio(int ioprio, int nice, char *buf, size_t len)
{
	if (ioprio < 0) { /* not read: the process had ended, or refused it */
		util_strlcpy(buf, "-", len);
		return;
	}
	int cls = ioprio >> IOPRIO_CLASS_SHIFT, lvl = ioprio & 7;
	switch (cls) {
	case 1: snprintf(buf, len, "rt/%d", lvl); break;
	case 2: snprintf(buf, len, "be/%d", lvl); break;
	case 3: util_strlcpy(buf, "idle", len); break;
	default: snprintf(buf, len, "be/%d", (nice + 20) / 5); break; /* none: follows nice */
	}
}
