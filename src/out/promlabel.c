/* promlabel: a label value of the Prometheus text format, escaped
 * (prom.h): what prom.c and promcgroups.c both write labels with. */
#include "out/prom.h"

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

