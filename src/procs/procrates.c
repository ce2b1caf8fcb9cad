/* procrates: a row's rates and totals from two readings of its task, less
 * what the children it reaped brought into its counters. */
#include "procparts.h"

#include "read/iostat.h"

uint64_t procs_delta(uint64_t prev, uint64_t cur, uint64_t children)
{
	uint64_t d = iostat_counter_delta(prev, cur);
	return d > children ? d - children : 0;
}

/* Children reaped in the interval added their totals to their parent's
 * /proc/PID/io: remember them against the parent, to take them out. */

void procs_charge_reaped(const struct proc_seen *prev, size_t nprev, struct proc_seen *cur, size_t ncur)
{
	size_t at = 0; /* both by id: one pass finds who is still there */
	for (size_t i = 0; i < nprev; i++) {
		const struct proc_seen *old = &prev[i];
		while (at < ncur && cur[at].id < old->id)
			at++;
		if (old->settled || (at < ncur && cur[at].id == old->id))
			continue; /* accounted from its exit record, or still there */
		struct proc_seen *parent = procseen_lookup(cur, ncur, old->ppid);
		struct proc_io by = procread_io_of(&old->c);
		if (parent)
			procexit_reaped_add(parent, &by);
		else /* its parent ended before it: a reaper above had it */
			procexit_reaped_above(NULL, old->ppid, 0, &by, cur, ncur, prev, nprev);
	}
}

void procs_rates(const struct proc_seen *old, struct proc_seen *e, double dt, int wait_known, struct proc_row *r)
{
	int cont = old && old->start == e->start;
	r->read_Bps = r->write_Bps = r->read_calls = r->write_calls = 0;
	r->io_wait_pct = r->avg_wait_us = 0;
	if (cont && dt > 0) {
		struct proc_io kids = procexit_reaped_now(e);
		r->read_Bps = (double)procs_delta(old->c.rbytes, e->c.rbytes, kids.rbytes) / dt;
		r->write_Bps = (double)procs_delta(old->c.wbytes, e->c.wbytes, kids.wbytes) / dt;
		r->read_calls = (double)procs_delta(old->c.syscr, e->c.syscr, kids.syscr) / dt;
		r->write_calls = (double)procs_delta(old->c.syscw, e->c.syscw, kids.syscw) / dt;
	}
	r->total.rbytes = e->c.rbytes - e->base.rbytes;
	r->total.wbytes = e->c.wbytes - e->base.wbytes;
	r->total.syscr = e->c.syscr - e->base.syscr;
	r->total.syscw = e->c.syscw - e->base.syscw;
	r->wait = WAIT_OFF;
	e->waiting = 0;
	if (!wait_known || !cont || dt <= 0)
		return;
	uint64_t dn = iostat_counter_delta(old->c.blkio_count, e->c.blkio_count);
	uint64_t dns = iostat_counter_delta(old->c.blkio_ns, e->c.blkio_ns);
	if (dn) {
		r->wait = WAIT_OK;
		r->io_wait_pct = (double)dns / (dt * 1e9) * 100.0;
		r->avg_wait_us = (double)dns / (double)dn / 1e3;
		e->waiting = 1;
	} else {
		r->wait = r->read_Bps > 0 || r->write_Bps > 0 ? WAIT_NA : WAIT_NONE;
	}
}
