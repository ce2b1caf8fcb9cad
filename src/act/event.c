/* event: see include/event.h */
#include "event.h"

#include <string.h>

#include "util.h"

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

void event_describe(const struct event *e, char *buf, size_t len)
{
	if (!e->ok)
		util_fmt(buf, len, "%s: %s", e->type, e->error);
	else if (!strcmp(e->type, "fresh"))
		util_fmt(buf, len, "fresh reader: %s in %.1f ms", e->to, e->ms);
	else if (!strcmp(e->type, "disk"))
		util_fmt(buf, len, "disk %s", !strcmp(e->to, "present") ? "added" : "removed");
	else
		util_fmt(buf, len, "%s %s -> %s in %.1f ms", e->key[0] ? e->key : e->type, e->from, e->to, e->ms);
}
