/* event: see include/event.h */
#include "event.h"

#include <string.h>

void eventlog_add(struct eventlog *l, const struct event *e)
{
	if (l->npending < EVENTLOG_PENDING)
		l->pending[l->npending++] = *e;
	else
		l->dropped++;
	l->recent[l->nrecent % EVENTLOG_RECENT] = *e;
	l->nrecent++;
}

size_t eventlog_take(struct eventlog *l, struct event *out, size_t max)
{
	size_t n = l->npending < max ? l->npending : max;
	memcpy(out, l->pending, n * sizeof *out);
	/* Whatever did not fit stays for the next sample. */
	memmove(l->pending, l->pending + n, (l->npending - n) * sizeof *out);
	l->npending -= n;
	return n;
}

size_t eventlog_recent(const struct eventlog *l, struct event *out, size_t max)
{
	size_t have = l->nrecent < EVENTLOG_RECENT ? l->nrecent : EVENTLOG_RECENT;
	size_t n = have < max ? have : max;
	size_t first = l->nrecent - n;
	for (size_t i = 0; i < n; i++)
		out[i] = l->recent[(first + i) % EVENTLOG_RECENT];
	return n;
}
