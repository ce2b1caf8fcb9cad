/* event: see include/base/event.h */
#include "base/event.h"

#include <string.h>

#include "base/util.h"

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

static const char *const type_names[EV_NTYPES] = {
	[EV_SCHEDULER] = "scheduler", [EV_TUNABLE] = "tunable", [EV_IOPRIO] = "ioprio", [EV_DELAYACCT] = "delayacct",
	[EV_PROBE] = "probe",         [EV_DISK] = "disk",       [EV_FRESH] = "fresh",   [EV_CLEANUP] = "cleanup",
	[EV_AB] = "ab",               [EV_BFQ_WEIGHT] = "bfq_weight", [EV_UDEV] = "udev",
	[EV_NOTE] = "note",
};

const char *event_type_name(enum event_type t)
{
	return (unsigned)t < EV_NTYPES ? type_names[t] : "?";
}

int event_type_parse(const char *s, enum event_type *out)
{
	for (int t = 0; t < EV_NTYPES; t++)
		if (!strcmp(s, type_names[t])) {
			*out = (enum event_type)t;
			return 0;
		}
	return -1;
}

void event_describe(const struct event *e, char *buf, size_t len)
{
	if (e->type == EV_AB || e->type == EV_UDEV || e->type == EV_NOTE)
		util_strlcpy(buf, e->error, len); /* "A/B started: ...", "wrote /etc/udev/rules.d/..." */
	else if (!e->ok)
		util_fmt(buf, len, "%s: %s", event_type_name(e->type), e->error);
	else if (e->type == EV_FRESH)
		util_fmt(buf, len, "fresh reader: %s in %.1f ms", e->to, e->ms);
	else if (e->type == EV_DISK)
		util_fmt(buf, len, "disk %s", !strcmp(e->to, "present") ? "added" : "removed");
	else if (e->type == EV_SCHEDULER && !strcmp(e->key, EVENT_KEY_EXTERNAL))
		util_fmt(buf, len, "scheduler %s -> %s, switched outside the tool", e->from, e->to);
	else
		util_fmt(buf, len, "%s %s -> %s in %.1f ms", e->key[0] ? e->key : event_type_name(e->type), e->from, e->to, e->ms);
	size_t used = strlen(buf);
	if (e->cause[0] && e->type != EV_AB && e->type != EV_UDEV && e->type != EV_NOTE && used < len)
		util_fmt(buf + used, len - used, " (%s)", e->cause);
}
