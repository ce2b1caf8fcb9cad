/* mountinfo: see include/read/mountinfo.h */
#include "read/mountinfo.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Unescape mountinfo's octal escapes (\040 for a blank) in place. */
static void unescape(char *s)
{
	char *o = s;
	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' && p[3] >= '0' &&
		    p[3] <= '7') {
			*o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 3;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
}

int mountinfo_parse(const char *line, struct mountinfo_entry *m)
{
	/* Optional fields sit between the options and " - ", which ends them. */
	const char *sep = strstr(line, " - ");
	if (!sep || sscanf(line, "%*d %*d %u:%u %1023s %1023s %255s", &m->major, &m->minor, m->root, m->point,
			   m->opts) != 5 || sscanf(sep + 3, "%63s %1023s", m->fstype, m->source) != 2)
		return -1;
	unescape(m->root);
	unescape(m->point);
	unescape(m->source);
	return 0;
}

int mountinfo_find(int (*match)(const struct mountinfo_entry *, const void *), const void *ctx,
		   struct mountinfo_entry *out)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	char line[4096];
	int rc = -ENOENT;
	while (rc != 0 && fgets(line, sizeof line, f))
		if (mountinfo_parse(line, out) == 0 && match(out, ctx))
			rc = 0;
	fclose(f);
	return rc;
}
