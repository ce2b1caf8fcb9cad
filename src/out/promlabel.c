/* promlabel: a label value of the Prometheus text format, escaped
 * (prom.h): what prom.c and promcgroups.c both write labels with. */
#include "out/prom.h"

#include <string.h>

#include "base/util.h"

/* Label values escape \, " and newline (the format's rule). */
void prom_label(FILE *f, const char *raw)
{
	/* controls and hidden characters escaped as on the screen (a replayed
	 * name is the recording's, and dashboards show labels), then what
	 * the text format itself needs */
	char safe[4 * 1024]; /* a cgroup's path: 255 bytes, each up to 4 escaped */
	util_safe_text(safe, sizeof safe, raw);
	for (const char *v = safe; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*v, f);
	}
}


void prom_comm_key(char *key, size_t len, const char *comm, int ppid)
{
	/* a kernel worker (a child of kthreadd, pid 2: no process can be)
	 * is named after the work it runs now and its pool's number
	 * ("kworker/u8:0-ext4-rsv-conversion"): one label for them all, or
	 * their series would come and go with each work item */
	if (ppid == 2 && !strncmp(comm, "kworker/", 8)) {
		util_strlcpy(key, "kworker", len);
		return;
	}
	util_safe_text(key, len, comm);
	/* the bucket is "other": a process of that name is labelled
	 * longer than any name a process can give itself (15 bytes) */
	if (!strcmp(key, "other"))
		util_strlcpy(key, PROM_OTHER_PROCESS, len);
}
