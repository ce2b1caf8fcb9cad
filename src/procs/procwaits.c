/* procwaits: taskstats for the process reader: each task's block-I/O
 * waits (delay accounting), what is missing to read them, and the socket
 * the exit records come on (procgone.c takes them). */
#include "procparts.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "read/taskstats.h"

void procwaits_open(struct procs *p)
{
	p->ts_err = taskstats_open(&p->ts);
	if (p->ts_err == 0) {
		/* Opening works for anyone; asking needs CAP_NET_ADMIN. */
		struct ts_record self;
		int q = taskstats_query(p->ts, (uint32_t)getpid(), 1, &self);
		if (q == -EPERM || q == -EACCES) {
			taskstats_close(p->ts);
			p->ts = NULL;
			p->ts_err = q;
		}
	}
	if (p->ts) {
		/* Exit records of tasks on every CPU that can ever be online:
		 * the kernel sends a task's record to the listeners of the CPU
		 * it exits on, so a CPU brought online later would be silent. */
		char cpus[256];
		if (util_read_text("/sys/devices/system/cpu/possible", cpus, sizeof cpus) > 0) {
			cpus[strcspn(cpus, "\n")] = '\0';
			if (taskstats_listen(cpus, &p->exits) < 0)
				p->exits = NULL;
		}
	}
}

void procwaits_query(struct procs *p, int threads, struct proc_seen *e, const struct proc_seen *old,
		     struct proc_row *r)
{
	int need = !old || old->start != e->start || r->moved || r->state == 'D' || e->waiting;
	if (!need)
		return;
	struct ts_record t;
	if (taskstats_query(p->ts, (uint32_t)e->id, !threads, &t) == 0) {
		e->c.blkio_count = t.blkio_count;
		e->c.blkio_ns = t.blkio_delay_ns;
	}
}

static int delayacct_on(void)
{
	uint64_t v = 0;
	return util_read_u64("/proc/sys/kernel/task_delayacct", &v) == 0 && v;
}

void procwaits_status(const struct procs *p, int threads, struct procs_status *st)
{
	memset(st, 0, sizeof *st);
	st->threads = threads;
	st->delayacct = delayacct_on();
	st->taskstats = p->ts && p->ts_err == 0;
	st->exits = p->exits != NULL;
	st->as_root = geteuid() == 0;
	st->exits_lost = p->exits_lost;
	st->exit_records_lost = p->exits ? p->records_lost : -1;
	st->from_iter = p->iter != NULL;
	util_strlcpy(st->iter_why, p->iter_want ? p->iter_why : "not asked for", sizeof st->iter_why);
	if (!st->taskstats)
		util_fmt(st->missing, sizeof st->missing, "no taskstats (%s): I/O wait needs CAP_NET_ADMIN (root)",
			 strerror(-p->ts_err));
	else if (!st->delayacct)
		util_strlcpy(st->missing, "delay accounting is off (kernel.task_delayacct=0)",
			     sizeof st->missing);
}
