/* libFuzzer harness for the parsers of kernel text and of the tool's own
 * files. FUZZ_TARGET picks one (make fuzz builds one binary per target):
 *   diskstats  /proc/diskstats
 *   sched      queue/scheduler
 *   psi        /proc/pressure/io
 *   cgroup     io.stat, /proc/PID/cgroup, mountinfo lines, unit names
 *   meminfo    /proc/meminfo (Dirty, Writeback)
 *   procstat   /proc/PID/stat
 *   procio     /proc/PID/io
 *   u64        sysfs numbers
 *   taskstats  taskstats netlink payloads (binary)
 *   jsonv      recording lines (--replay)
 *   theme      theme files
 *   replay     a whole recording through the replay reader (a memfd file)
 *   config     a configuration file through config_read
 *   udevrules  a rules file through the rules scanner (P) and the rewrite
 *              of this tool's block in it
 * A crash, a sanitizer report or a leak fails the run. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config/config.h"
#include "read/cgroup.h"
#include "read/mountinfo.h"
#include "read/diskstats.h"
#include "base/jsonv.h"
#include "procs/procs.h"
#include "read/psi.h"
#include "model/replay.h"
#include "model/sample.h"
#include "read/sched.h"
#include "read/taskstats.h"
#include "view/theme.h"
#include "act/udevrule.h"
#include "base/util.h"
#include "read/writeback.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a file the readers open by path (a memfd: no disk). */
static int as_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

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
#elif defined(FUZZ_replay)
	char path[64], err[512];
	int fd = size <= (1u << 20) ? as_file(data, size, path, sizeof path) : -1; /* bounded input */
	struct replay *r;
	if (fd >= 0 && replay_open(&r, path, err, sizeof err) == 0) {
		struct sample s = {0};
		for (int i = 0; i < 64 && replay_next(r, &s, err, sizeof err) == 1; i++)
			;
		sample_free(&s);
		replay_close(r);
	}
	if (fd >= 0)
		close(fd);
#elif defined(FUZZ_config)
	char path[64], err[512];
	int fd = size <= (1u << 17) ? as_file(data, size, path, sizeof path) : -1;
	struct config_file f;
	if (fd >= 0 && config_read(path, 1, getuid(), getgid(), &f, err, sizeof err) == 0)
		config_free(&f);
	if (fd >= 0)
		close(fd);
#elif defined(FUZZ_udevrules)
	/* the scanner reads *.rules in a directory; the rewrite keeps every
	 * line but this tool's block */
	char dir[] = "/tmp/fuzz-udev.XXXXXX", file[96], err[512];
	if (size <= (1u << 17) && mkdtemp(dir)) {
		snprintf(file, sizeof file, "%s/60-fuzz.rules", dir);
		FILE *o = fopen(file, "w");
		if (o) {
			fwrite(data, 1, size, o);
			fclose(o);
			const char *dirs[] = {dir, NULL};
			struct udevrule_ident id = {.name = "sda"};
			struct udevrule_found found[8];
			(void)udevrule_find(dirs, &id, found, 8);
			(void)udevrule_write(file, &id, "RULE", err, sizeof err);
			unlink(file);
		}
		rmdir(dir);
	}
#elif defined(FUZZ_cgroup)
	/* io.stat, /proc/PID/cgroup and a mountinfo line; the v2 path found
	 * is named as the units pane names it */
	struct cgroup_io io;
	char path[512], name[128], parent[512];
	struct mountinfo_entry m;
	(void)cgroup_parse_io_stat(text, NULL, NULL, &io);
	(void)mountinfo_parse(text, &m);
	(void)cgroup_has_controller(text, "io");
	if (cgroup_parse_proc(text, path, sizeof path) == 0) {
		cgroup_unit_name(path, name, sizeof name);
		cgroup_parent(path, parent, sizeof parent);
	}
	cgroup_unit_name(text, name, sizeof name);
#else
#error "define FUZZ_<target>"
#endif
	free(text);
	return 0;
}
