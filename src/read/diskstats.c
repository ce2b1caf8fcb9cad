/* diskstats: see include/read/diskstats.h */
#include "read/diskstats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

int diskstats_parse_line(const char *line, struct diskstats_row *out)
{
	memset(out, 0, sizeof *out);
	int pos = 0;
	char name[DISKSTATS_NAME_MAX];
	/* %31s matches DISKSTATS_NAME_MAX - 1; a longer name is not a block device. */
	if (sscanf(line, " %u %u %31s%n", &out->major, &out->minor, name, &pos) != 3)
		return -EINVAL;
	/* %31s stops at 31 characters; anything but a separator next means the
	 * name was longer than any block device name and got cut. */
	if (line[pos] != ' ' && line[pos] != '\t' && line[pos] != '\n' && line[pos] != '\0')
		return -EINVAL;
	util_strlcpy(out->name, name, sizeof out->name);

	const char *p = line + pos;
	int n = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '\n')
			break;
		if (*p < '0' || *p > '9' || n == DS_NFIELDS)
			return -EINVAL;
		char *end;
		errno = 0;
		unsigned long long v = strtoull(p, &end, 10);
		if (errno == ERANGE || (*end != ' ' && *end != '\t' && *end != '\n' && *end != '\0'))
			return -EINVAL;
		out->f[n++] = (uint64_t)v;
		p = end;
	}
	if (n != 11 && n != 15 && n != 17)
		return -EINVAL;
	out->nfields = n;
	return 0;
}

static int table_push(struct diskstats_table *t, const struct diskstats_row *r)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;
		struct diskstats_row *rows = realloc(t->rows, cap * sizeof *rows);
		if (!rows)
			return -ENOMEM;
		t->rows = rows;
		t->cap = cap;
	}
	t->rows[t->n++] = *r;
	return 0;
}

int diskstats_parse(const char *text, struct diskstats_table *t)
{
	t->n = 0;
	t->bad_lines = 0;
	const char *p = text;
	char line[512];
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len >= sizeof line) {
			t->bad_lines++;
		} else if (len > 0) {
			memcpy(line, p, len);
			line[len] = '\0';
			struct diskstats_row r;
			if (diskstats_parse_line(line, &r) == 0) {
				if (table_push(t, &r) < 0)
					return -ENOMEM;
			} else {
				t->bad_lines++;
			}
		}
		p += len + (nl ? 1 : 0);
	}
	return 0;
}

int diskstats_read(const char *path, struct diskstats_table *t)
{
	/* /proc/diskstats grows with the number of block devices (about 100
	 * bytes a line); read it whole so a line is never cut in two. */
	size_t cap = 64 * 1024;
	for (;;) {
		char *buf = malloc(cap);
		if (!buf)
			return -ENOMEM;
		long n = util_read_text(path, buf, cap);
		if (n < 0) {
			free(buf);
			return (int)n;
		}
		if ((size_t)n < cap - 1) {
			int rc = diskstats_parse(buf, t);
			free(buf);
			return rc;
		}
		free(buf);
		cap *= 4;
	}
}

const struct diskstats_row *diskstats_find(const struct diskstats_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->rows[i].name, name) == 0)
			return &t->rows[i];
	return NULL;
}

void diskstats_free(struct diskstats_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof *t);
}
