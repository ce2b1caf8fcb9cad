/* extswitch: see include/model/extswitch.h */
#include "model/extswitch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/sample.h"
#include "read/sched.h"
#include "base/util.h"

static struct extswitch_seen *find(const struct extswitch *x, const char *disk)
{
	for (size_t i = 0; i < x->n; i++)
		if (!strcmp(x->v[i].disk, disk))
			return &x->v[i];
	return NULL;
}

static int pending_switch(const struct pending_change *pend, size_t n, const char *disk)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(pend[i].disk, disk) && !strcmp(pend[i].key, "scheduler"))
			return 1;
	return 0;
}

static void external(const struct extswitch_seen *e, const char *to, struct event *ev)
{
	memset(ev, 0, sizeof *ev);
	ev->type = EV_SCHEDULER;
	ev->ok = 1;
	ev->mono = e->cand_mono; /* when it was first seen */
	ev->ts = e->cand_ts;
	util_strlcpy(ev->disk, e->disk, sizeof ev->disk);
	util_strlcpy(ev->key, EVENT_KEY_EXTERNAL, sizeof ev->key);
	util_strlcpy(ev->from, e->sched, sizeof ev->from);
	util_strlcpy(ev->to, to, sizeof ev->to);
}

int extswitch_check(struct extswitch *x, const struct disk_info *disks, size_t n, const struct pending_change *pend,
		    size_t npend, double mono, double ts, struct event *out, size_t max)
{
	/* One entry per disk present now: a disk that went and came back
	 * starts afresh rather than "switching" from its old life. */
	struct extswitch_seen *v = calloc(n ? n : 1, sizeof *v);
	if (!v)
		return -ENOMEM;
	size_t nout = 0;
	for (size_t i = 0; i < n; i++) {
		struct extswitch_seen *e = &v[i];
		const struct extswitch_seen *old = find(x, disks[i].name);
		const char *a = sched_active(&disks[i].sched);
		if (old)
			*e = *old;
		util_strlcpy(e->disk, disks[i].name, sizeof e->disk);
		if (!a || !old || !e->sched[0] || pending_switch(pend, npend, e->disk)) {
			util_strlcpy(e->sched, a ? a : "", sizeof e->sched);
			e->cand[0] = '\0';
		} else if (!strcmp(a, e->sched)) {
			e->cand[0] = '\0';
		} else if (!strcmp(a, e->cand) && nout < max) {
			external(e, a, &out[nout++]);
			util_strlcpy(e->sched, a, sizeof e->sched);
			e->cand[0] = '\0';
		} else {
			util_strlcpy(e->cand, a, sizeof e->cand);
			e->cand_mono = mono;
			e->cand_ts = ts;
		}
	}
	free(x->v);
	x->v = v;
	x->n = n;
	return (int)nout;
}

void extswitch_note(struct extswitch *x, const char *disk, const char *sched)
{
	struct extswitch_seen *e = find(x, disk);
	if (!e)
		return;
	util_strlcpy(e->sched, sched, sizeof e->sched);
	e->cand[0] = '\0';
}

void extswitch_free(struct extswitch *x)
{
	free(x->v);
	x->v = NULL;
	x->n = 0;
}
