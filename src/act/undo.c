/* undo: see include/undo.h */
#include "undo.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static void append(struct undo_log *l, const struct undo_entry *e)
{
	if (l->n == UNDO_MAX) {
		/* Full: forget the oldest change rather than refuse new ones. */
		memmove(&l->e[0], &l->e[1], (UNDO_MAX - 1) * sizeof l->e[0]);
		l->n--;
		l->dropped++;
	}
	l->e[l->n++] = *e;
}

int undo_push(struct undo_log *l, const struct tune_req *r, const struct event *ev)
{
	if (!ev->ok || !ev->from[0] || r->undo)
		return -1;
	struct undo_entry e;
	memset(&e, 0, sizeof e);
	tune_req_init(&e.back, r->disk, r->kind, r->key, ev->from);
	e.back.pid = r->pid;
	e.back.sysfs = r->sysfs;
	e.back.undo = 1;
	util_strlcpy(e.applied, r->value, sizeof e.applied);
	e.ts = ev->ts;
	append(l, &e);
	return 0;
}

void undo_attach_resets(struct undo_log *l, const struct tune_reset *rs, size_t n)
{
	if (!l->n)
		return;
	struct undo_entry *e = &l->e[l->n - 1];
	e->nresets = n < TUNE_RESETS_MAX ? n : TUNE_RESETS_MAX;
	memcpy(e->resets, rs, e->nresets * sizeof *rs);
}

void undo_repush(struct undo_log *l, const struct undo_entry *e)
{
	append(l, e);
}

int undo_pop(struct undo_log *l, struct undo_entry *out)
{
	if (l->n == 0)
		return -1;
	*out = l->e[--l->n];
	return 0;
}

void undo_script(const struct undo_log *l, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = l->n; i-- > 0 && used < len;) {
		char path[PATH_MAX];
		const struct tune_req *b = &l->e[i].back;
		int w, prio;
		if (b->kind == TUNE_IOPRIO && tune_parse_ioprio(b->value, &prio) == 0)
			/* ionice -p sets one thread, like the kernel call: enough to name it. */
			w = snprintf(buf + used, len - used, "%sionice -c %d -n %d -p %d", used ? "; " : "",
				     prio >> 13 ? prio >> 13 : 0, prio & 7, b->pid);
		else if (tune_req_path(b, path, sizeof path) == 0)
			w = snprintf(buf + used, len - used, "%secho %s > %s", used ? "; " : "", b->value, path);
		else
			continue;
		if (w < 0)
			break;
		used += (size_t)w;
		for (size_t k = 0; k < l->e[i].nresets && used < len; k++) {
			struct tune_req r;
			tune_req_reset(&r, b, &l->e[i].resets[k]);
			if (tune_req_path(&r, path, sizeof path) < 0)
				continue;
			w = snprintf(buf + used, len - used, "; echo %s > %s", r.value, path);
			if (w < 0)
				return;
			used += (size_t)w;
		}
	}
}
