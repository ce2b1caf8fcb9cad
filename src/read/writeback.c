/* writeback: see include/read/writeback.h */
#include "read/writeback.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"

static int field(const char *text, const char *name, uint64_t *out)
{
	size_t n = strlen(name);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long long v;
		if (strncmp(p, name, n) == 0 && p[n] == ':' && sscanf(p + n + 1, " %llu kB", &v) == 1) {
			*out = v;
			return 0;
		}
	}
	return -EINVAL;
}

int writeback_parse_meminfo(const char *text, struct writeback_info *out)
{
	int rc = field(text, "Dirty", &out->dirty_kB);
	if (rc == 0)
		rc = field(text, "Writeback", &out->writeback_kB);
	out->ok = rc == 0;
	return rc;
}

static long vm_long(const char *name)
{
	char path[128];
	uint64_t v = 0;
	snprintf(path, sizeof path, "/proc/sys/vm/%s", name);
	return util_read_u64(path, &v) == 0 ? (long)v : -1;
}

int writeback_read(struct writeback_info *out)
{
	char buf[8192];
	memset(out, 0, sizeof *out);
	long n = util_read_text("/proc/meminfo", buf, sizeof buf);
	if (n < 0)
		return (int)n;
	int rc = writeback_parse_meminfo(buf, out);
	out->dirty_ratio = vm_long("dirty_ratio");
	out->dirty_background_ratio = vm_long("dirty_background_ratio");
	long b = vm_long("dirty_bytes"), bb = vm_long("dirty_background_bytes");
	out->dirty_bytes = b > 0 ? (uint64_t)b : 0;
	out->dirty_background_bytes = bb > 0 ? (uint64_t)bb : 0;
	return rc;
}
