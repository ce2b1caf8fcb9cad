/* psi: see include/read/psi.h */
#include "read/psi.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"

static int parse_line(const char *line, struct psi_line *out)
{
	unsigned long long total;
	if (sscanf(line, " avg10=%lf avg60=%lf avg300=%lf total=%llu", &out->avg10, &out->avg60,
		   &out->avg300, &total) != 4)
		return -EINVAL;
	out->total_us = total;
	return 0;
}

int psi_parse(const char *text, struct psi *out)
{
	memset(out, 0, sizeof *out);
	const char *p = text;
	while (*p) {
		if (strncmp(p, "some", 4) == 0)
			out->have_some = parse_line(p + 4, &out->some) == 0;
		else if (strncmp(p, "full", 4) == 0)
			out->have_full = parse_line(p + 4, &out->full) == 0;
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	return out->have_some ? 0 : -EINVAL;
}

int psi_read(const char *path, struct psi *out)
{
	char buf[512];
	memset(out, 0, sizeof *out);
	long n = util_read_text(path, buf, sizeof buf);
	if (n < 0)
		return (int)n;
	return psi_parse(buf, out);
}
