/* subuid: see include/read/subuid.h */
#include "read/subuid.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define SUBUID_FILE_MAX (64 << 10)

size_t subuid_read(const char *path, struct subuid_range *r, size_t max)
{
	char *text = malloc(SUBUID_FILE_MAX);
	if (!text || util_read_text(path, text, SUBUID_FILE_MAX) < 0) {
		free(text);
		return 0;
	}
	size_t n = 0;
	char *save = NULL; /* a walk on the probe's thread reads it: no static state */
	for (char *line = strtok_r(text, "\n", &save); line && n < max; line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		unsigned long start, count;
		if (sscanf(line, "%63[^:]:%lu:%lu", name, &start, &count) != 3 || count == 0 || start + count > 0xffffffffUL)
			continue; /* a comment, or not a range */
		char *end;
		unsigned long id = strtoul(name, &end, 10);
		struct passwd pwd, *pw = NULL;
		char pwbuf[1024];
		if (*end && (getpwnam_r(name, &pwd, pwbuf, sizeof pwbuf, &pw) != 0 || !pw))
			continue;
		r[n++] = (struct subuid_range){(uid_t)start, (uid_t)(start + count), pw ? pw->pw_uid : (uid_t)id};
	}
	free(text);
	return n;
}

const struct subuid_range *subuid_range_of(const struct subuid_range *r, size_t n, uid_t uid)
{
	for (size_t i = 0; i < n; i++)
		if (uid >= r[i].lo && uid < r[i].hi)
			return &r[i];
	return NULL;
}
