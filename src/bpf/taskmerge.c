/* taskmerge: see src/bpf/taskmerge.h */
#include "taskmerge.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static int by_tid(const void *a, const void *b)
{
	const struct task_info *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

void taskmerge_begin(struct taskmerge *m)
{
	m->nold = m->n;
	m->at = m->w = 0;
}

/* Old entries before tid have ended. */
static void pass_ended(struct taskmerge *m, int tid)
{
	while (m->at < m->nold && m->tab[m->at].tid < tid)
		m->forget(m->ctx, m->tab[m->at++].tid);
}

/* Where the next new entry goes: in place while that overwrites only
 * entries merged already, at the end once every old one is, else in a
 * new table from here on. NULL: out of memory. */
static struct task_info *next_slot(struct taskmerge *m)
{
	if (!m->fresh && (m->w < m->at || m->at >= m->nold)) {
		if (util_grow((void **)&m->tab, &m->cap, m->w + 1, sizeof *m->tab) < 0)
			return NULL;
		return &m->tab[m->w++];
	}
	if (!m->fresh) {
		if (util_grow((void **)&m->fresh, &m->fresh_cap, m->nold + 64, sizeof *m->fresh) < 0)
			return NULL;
		memcpy(m->fresh, m->tab, m->w * sizeof *m->tab);
	}
	if (util_grow((void **)&m->fresh, &m->fresh_cap, m->w + 1, sizeof *m->fresh) < 0)
		return NULL;
	return &m->fresh[m->w++];
}

int taskmerge_add(struct taskmerge *m, int tid, const struct task_info *full)
{
	pass_ended(m, tid);
	int known = m->at < m->nold && m->tab[m->at].tid == tid;
	if (!full && !known) {
		m->forget(m->ctx, tid); /* out of order, or dropped earlier */
		return 0;
	}
	struct task_info old;
	if (known)
		old = m->tab[m->at++]; /* read before its place is written */
	struct task_info *e = next_slot(m);
	if (!e)
		return -ENOMEM;
	*e = full ? *full : old;
	return 0;
}

void taskmerge_end(struct taskmerge *m, int ok)
{
	if (ok)
		pass_ended(m, INT_MAX);
	if (m->fresh) {
		free(m->tab);
		m->tab = m->fresh;
		m->cap = m->fresh_cap;
		m->fresh = NULL;
		m->fresh_cap = 0;
	}
	/* a failed reading leaves a table half new, half old: forgotten */
	m->n = ok ? m->w : 0;
	/* the walk goes in tid order; the lookups need it */
	for (size_t i = 1; i < m->n; i++)
		if (m->tab[i - 1].tid >= m->tab[i].tid) {
			qsort(m->tab, m->n, sizeof *m->tab, by_tid);
			break;
		}
}

void taskmerge_free(struct taskmerge *m)
{
	free(m->tab);
	free(m->fresh);
	m->tab = m->fresh = NULL;
	m->n = m->cap = m->fresh_cap = 0;
}
