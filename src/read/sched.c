/* sched: see include/read/sched.h */
#include "read/sched.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"

static int add_name(struct sched_list *out, const char *tok, size_t len, int bracketed)
{
	if (bracketed) {
		if (len < 3 || tok[len - 1] != ']' || out->active >= 0)
			return -EINVAL;
		tok++;
		len -= 2;
	}
	if (len == 0 || len >= SCHED_NAME_MAX || out->n == SCHED_MAX)
		return -EINVAL;
	if (memchr(tok, '[', len) || memchr(tok, ']', len))
		return -EINVAL;
	memcpy(out->names[out->n], tok, len);
	out->names[out->n][len] = '\0';
	if (bracketed)
		out->active = out->n;
	out->n++;
	return 0;
}

int sched_parse(const char *text, struct sched_list *out)
{
	memset(out, 0, sizeof *out);
	out->active = -1;
	const char *p = text;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p == '\0')
			return 0;
		const char *start = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		int rc = add_name(out, start, (size_t)(p - start), *start == '[');
		if (rc < 0) {
			memset(out, 0, sizeof *out);
			out->active = -1;
			return rc;
		}
	}
}

const char *sched_active(const struct sched_list *s)
{
	return s->active >= 0 && s->active < s->n ? s->names[s->active] : NULL;
}

void sched_format(const struct sched_list *s, char *buf, size_t len)
{
	if (s->n == 0) {
		util_strlcpy(buf, "-", len);
		return;
	}
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < s->n && used < len; i++) {
		int w = snprintf(buf + used, len - used, i == s->active ? "%s[%s]" : "%s%s",
				 i ? " " : "", s->names[i]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}
