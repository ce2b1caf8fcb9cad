/* session: see include/session.h */
#include "session.h"

#include <string.h>

#include "worker.h"

void session_init(struct session *s, const struct options *o, struct sampler *smp, struct control *ctl,
		  struct outputs *outs)
{
	memset(s, 0, sizeof *s);
	s->o = o;
	s->smp = smp;
	s->ctl = ctl;
	s->outs = outs;
}

/* Control's finished changes into the sampler's event log, in order. */
static void forward_events(struct session *s)
{
	struct event ev[EVENTLOG_PENDING];
	size_t n;
	while ((n = control_take_events(s->ctl, ev, EVENTLOG_PENDING)) > 0)
		for (size_t i = 0; i < n; i++)
			sampler_post(s->smp, &ev[i]);
	/* Tasks started before delay accounting was turned on have only part
	 * of their waits: the sampler marks them. */
	s->smp->cfg.delayacct_since = s->ctl->delayacct_since;
}

size_t session_poll(struct session *s)
{
	size_t n = control_poll(s->ctl);
	forward_events(s);
	return n;
}

int session_collect(struct session *s, struct sample *out)
{
	session_poll(s);
	struct pending_change pend[WORKER_QUEUE];
	size_t n = control_pending(s->ctl, pend, WORKER_QUEUE);
	return sampler_collect(s->smp, out, pend, n);
}

int session_write_outputs(struct session *s, const struct sample *out)
{
	s->err[0] = '\0';
	return s->outs && outputs_tick(s->outs, out, s->err, sizeof s->err) < 0 ? -1 : 0;
}

void session_refresh_pending(struct session *s, struct sample *out)
{
	struct pending_change pend[WORKER_QUEUE];
	size_t n = control_pending(s->ctl, pend, WORKER_QUEUE);
	sampler_refresh_pending(s->smp, out, pend, n);
}
