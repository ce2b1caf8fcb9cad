/* undo: see include/act/undo.h */
#include "act/undo.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Room for one more entry: doubled as needed, never past UNDO_MAX. */
static int make_room(struct undo_log *l)
{
	if (l->n < l->cap)
		return 0;
	if (l->cap == UNDO_MAX)
		return -1;
	size_t cap = l->cap ? 2 * l->cap : 8;
	if (cap > UNDO_MAX)
		cap = UNDO_MAX;
	struct undo_entry *e = realloc(l->e, cap * sizeof *e);
	if (!e)
		return -1;
	l->e = e;
	l->cap = cap;
	return 0;
}

static void append(struct undo_log *l, const struct undo_entry *e)
{
	if (make_room(l) < 0) {
		if (l->n == 0) { /* no memory even for one: the change is lost, and said so */
			l->lost++;
			return;
		}
		/* Full: forget the oldest change rather than refuse new ones. */
		memmove(&l->e[0], &l->e[1], (l->n - 1) * sizeof l->e[0]);
		l->n--;
		l->dropped++;
	}
	l->e[l->n++] = *e;
}

void undo_free(struct undo_log *l)
{
	free(l->e);
	l->e = NULL;
	l->n = l->cap = 0;
}

int undo_push(struct undo_log *l, const struct tune_req *r, const struct event *ev)
{
	if (!ev->ok || !ev->from[0] || r->undo || (r->kind == TUNE_SCHEDULER && !strcmp(ev->from, r->value)))
		return -1;
	struct undo_entry e;
	memset(&e, 0, sizeof e);
	/* The same setting (disk, process or cgroup), the old value. */
	e.back = *r;
	util_strlcpy(e.back.value, ev->from, sizeof e.back.value);
	e.back.undo = 1;
	e.back.reset = 0;
	util_strlcpy(e.applied, r->value, sizeof e.applied);
	if (r->kind == TUNE_IOPRIO)
		util_strlcpy(e.back.expect, r->value, sizeof e.back.expect);
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

/* Append one command (printf-style) to buf, which has used bytes so far,
 * "; " between commands. A command that does not fit is not begun: a cut
 * one could do something else than meant. Returns 0, or -1 when full. */
static int append_cmd(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	char cmd[PATH_MAX + 64];
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	const char *sep = *used ? "; " : "";
	if (w < 0 || (size_t)w >= sizeof cmd || *used + strlen(sep) + (size_t)w >= len)
		return -1;
	*used += (size_t)snprintf(buf + *used, len - *used, "%s%s", sep, cmd);
	return 0;
}

/* path in double quotes for sh: \, ", $ and ` escaped (a cgroup's
 * name may hold them; tunecg refuses a quote or a control character,
 * which the revert line's outer '...' could not carry). */
static int quote_path(const char *path, char *out, size_t len)
{
	size_t n = 0;
	if (len < 3)
		return -1;
	out[n++] = '"';
	for (const char *p = path; *p; p++) {
		if (n + 4 > len)
			return -1;
		if (strchr("\\\"$`", *p))
			out[n++] = '\\';
		out[n++] = *p;
	}
	out[n++] = '"';
	out[n] = '\0';
	return 0;
}

/* "echo VALUE > PATH" for request r (a cgroup's path quoted). */
static int append_echo(char *buf, size_t len, size_t *used, const struct tune_req *r)
{
	char path[PATH_MAX], quoted[2 * PATH_MAX + 3];
	if (tune_req_path(r, path, sizeof path) < 0)
		return 0; /* nothing that can be written there */
	if (r->kind != TUNE_BFQ_WEIGHT)
		return append_cmd(buf, len, used, "echo %s > %s", r->value, path);
	if (quote_path(path, quoted, sizeof quoted) < 0)
		return -1;
	return append_cmd(buf, len, used, "echo %s > %s", r->value, quoted);
}

/* The commands that revert entry e: its own, then a switch's resets (the
 * switch back would reset them again). All of them or none: a switch
 * back without its resets would leave the settings it had reset. */
static int append_entry(char *buf, size_t len, size_t *used, const struct undo_entry *e)
{
	const struct tune_req *b = &e->back;
	size_t start = *used;
	int prio;
	if (b->kind == TUNE_IOPRIO && tune_req_same_process(b) != 1)
		return 0; /* ended, or held on a pid that may be another's now: nothing to run */
	if (b->kind == TUNE_IOPRIO && tune_parse_ioprio(b->value, &prio) == 0) {
		/* ionice -p sets one thread, like the kernel call, and the
		 * change set every thread: each is named; a level only for
		 * the classes that have one (ionice warns otherwise). The
		 * line may be run long after: only while the pid's start time
		 * (stat's field 22, the 20th after the name) is still this
		 * process's, so a pid given to another since gets nothing. */
		int cls = prio >> 13;
		char lvl[8] = "";
		if (cls == 1 || cls == 2)
			util_fmt(lvl, sizeof lvl, " -n %d", prio & 7);
		return append_cmd(buf, len, used,
				  "{ s=$(timeout 2 cat /proc/%d/stat) && s=${s##*) } && set -- $s && [ \"${20}\" = %llu ] && "
				  "for t in /proc/%d/task/*; do ionice -c %d%s -p ${t##*/}; done; }",
				  b->pid, b->start, b->pid, cls, lvl);
	}
	int rc = append_echo(buf, len, used, b);
	for (size_t k = 0; rc == 0 && k < e->nresets; k++) {
		struct tune_req r;
		tune_req_reset(&r, b, &e->resets[k]);
		rc = append_echo(buf, len, used, &r);
	}
	if (rc < 0) {
		*used = start;
		buf[start] = '\0';
	}
	return rc;
}

size_t undo_script(const struct undo_log *l, char *buf, size_t len)
{
	size_t used = 0, whole = 0;
	if (!len)
		return 0;
	buf[0] = '\0';
	for (size_t i = l->n; i-- > 0 && append_entry(buf, len, &used, &l->e[i]) == 0;)
		whole++;
	return whole;
}
