/* procseen: the readings of the tasks kept from one refresh to the next
 * (procparts.h): found by id, carried over to the task's next reading,
 * let go once the task has ended. */
#include "procparts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_id(const void *a, const void *b)
{
	return ((const struct proc_seen *)a)->id - ((const struct proc_seen *)b)->id;
}

struct proc_seen *procseen_lookup(const struct proc_seen *arr, size_t n, int id)
{
	struct proc_seen key = {.id = id};
	return n ? (struct proc_seen *)bsearch(&key, arr, n, sizeof *arr, by_id) : NULL; /* (arr may be NULL then) */
}

/* lookup for ids asked in rising order, as the rows mostly are: the
 * entry at *next (where the last one found was followed) is tried first,
 * and a search only when it is not the one. Two searches a row were a
 * third of a refresh's own time at 10,000 tasks. */
struct proc_seen *procseen_lookup_next(const struct proc_seen *arr, size_t n, size_t *next, int id)
{
	const struct proc_seen *e = *next < n && arr[*next].id == id ? &arr[*next] : procseen_lookup(arr, n, id);
	if (e)
		*next = (size_t)(e - arr) + 1;
	return (struct proc_seen *)e;
}

/* Room for a reading of n tasks (a few more than the last had, so a
 * growing machine seldom moves it). */
int procseen_reserve(struct procs *p, size_t n)
{
	if (n <= p->cur_cap)
		return 0;
	size_t cap = n + 64;
	struct proc_seen *a = realloc(p->cur, cap * sizeof *a);
	if (!a)
		return -ENOMEM;
	p->cur = a;
	p->cur_cap = cap;
	return 0;
}

/* cur sorted by id for the lookups; /proc lists pids in order already,
 * and sorting entries this large moves a lot of memory, so only when
 * needed. */
void procseen_sort_current(struct procs *p)
{
	size_t k = 1;
	while (k < p->ncur && p->cur[k - 1].id < p->cur[k].id)
		k++;
	if (k < p->ncur)
		qsort(p->cur, p->ncur, sizeof *p->cur, by_id);
}

/* Free what entries still own (tasks that were not carried into the
 * next reading): their command lines and /proc/PID/io descriptors. */
void procseen_let_go(struct procs *p, struct proc_seen *a, size_t n)
{
	procexit_free_reaped(a, n);
	for (size_t i = 0; i < n; i++) {
		free(a[i].cmdline);
		a[i].cmdline = NULL;
		if (a[i].io_held) {
			close(a[i].io_fd);
			a[i].io_held = 0;
			p->io_held--;
		}
	}
}

/* This reading is the next one's previous; what it did not carry over
 * has ended. */
void procseen_keep_as_previous(struct procs *p, double up)
{
	procseen_let_go(p, p->prev, p->nprev);
	p->prev_up = up;
	free(p->prev);
	p->prev = p->cur;
	p->prev_cap = p->cur_cap;
	p->nprev = p->ncur;
	p->cur = NULL;
	p->cur_cap = 0;
	p->ncur = 0;
}

/* The record of reaped children moves on, its interval's part emptied;
 * or, when this interval's children made e one already, what old had
 * since first read is added to it. Once: old no longer holds it (an id
 * listed twice in a racing /proc listing comes here twice). */
static void carry_reaped(struct proc_seen *old, struct proc_seen *e)
{
	if (!old->reaped)
		return;
	if (!e->reaped) {
		e->reaped = old->reaped;
		e->reaped->children = (struct proc_io){0};
	} else {
		procread_io_add(&e->reaped->cum, &old->reaped->cum);
		free(old->reaped);
	}
	old->reaped = NULL;
}

/* The command line read for old moves over to e (old no longer owns
 * it), unless the task's name changed: it ran another program (exec), and
 * the line is read again when the row is next named. A kernel thread's
 * name may change (a workqueue worker's says its work item), but it has
 * no command line to lose. */
static void carry_cmdline(struct proc_seen *old, struct proc_seen *e)
{
	if (e->cmdline_read)
		return; /* once: an id listed twice (a race in /proc) comes here twice */
	if (old->cmdline && strcmp(old->comm, e->comm) != 0) {
		free(old->cmdline);
	} else {
		e->cmdline = old->cmdline;
		e->cmdline_read = old->cmdline_read;
	}
	old->cmdline = NULL;
	old->cmdline_read = 0;
}

/* Carry what is known of a task from its previous reading. */
void procseen_carry(struct proc_seen *old, struct proc_seen *e)
{
	if (old && old->start == e->start) {
		e->base = old->base;
		carry_reaped(old, e);
		e->ioprio = old->ioprio;
		e->waiting = old->waiting;
		e->c.blkio_count = old->c.blkio_count;
		e->c.blkio_ns = old->c.blkio_ns;
		carry_cmdline(old, e);
		e->cgroup = old->cgroup;
		e->cgroup_at = old->cgroup_at;
		return;
	}
	e->ioprio = -1;
	/* New task (or a reused pid with a new start time): its first reading. */
	e->base = procread_io_of(&e->c);
}
