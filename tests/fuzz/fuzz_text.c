/* libFuzzer harness for the parsers of kernel text and of the tool's own
 * files. FUZZ_TARGET picks one (make fuzz builds one binary per target):
 *   diskstats  /proc/diskstats
 *   sched      queue/scheduler
 *   psi        /proc/pressure/io
 *   meminfo    /proc/meminfo (Dirty, Writeback)
 *   procstat   /proc/PID/stat
 *   procio     /proc/PID/io
 *   u64        sysfs numbers
 *   taskstats  taskstats netlink payloads (binary)
 *   jsonv      recording lines (--replay)
 *   theme      theme files
 * A crash, a sanitizer report or a leak fails the run. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diskstats.h"
#include "jsonv.h"
#include "procs.h"
#include "psi.h"
#include "sched.h"
#include "taskstats.h"
#include "theme.h"
#include "util.h"
#include "writeback.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The text parsers take NUL-terminated text, as read from a file. */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
#if defined(FUZZ_diskstats)
	struct diskstats_table t = {0};
	if (diskstats_parse(text, &t) == 0)
		diskstats_free(&t);
#elif defined(FUZZ_sched)
	struct sched_list l;
	if (sched_parse(text, &l) == 0 && l.n > 0)
		(void)sched_active(&l);
#elif defined(FUZZ_psi)
	struct psi p;
	(void)psi_parse(text, &p);
#elif defined(FUZZ_meminfo)
	struct writeback_info w;
	(void)writeback_parse_meminfo(text, &w);
#elif defined(FUZZ_procstat)
	struct proc_seen e;
	memset(&e, 0, sizeof e);
	(void)procs_parse_stat(text, &e);
#elif defined(FUZZ_procio)
	struct proc_counters c;
	(void)procs_parse_io(text, &c);
#elif defined(FUZZ_u64)
	uint64_t v;
	(void)util_parse_u64(text, &v);
	(void)util_parse_size(text, &v);
#elif defined(FUZZ_taskstats)
	struct ts_record r;
	(void)taskstats_parse(data, size, &r);
#elif defined(FUZZ_jsonv)
	struct jsonv v;
	char err[128];
	if (jsonv_parse(text, size, &v, err, sizeof err) == 0) {
		(void)jsonv_num(&v, "ts", 0);
		(void)jsonv_arr(&v, "disks");
		jsonv_free(&v);
	}
#elif defined(FUZZ_theme)
	struct theme th;
	char err[512];
	(void)theme_parse(text, "fuzz", &th, err, sizeof err);
#else
#error "define FUZZ_<target>"
#endif
	free(text);
	return 0;
}
