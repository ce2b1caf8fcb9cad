/* proc2: see include/read/proc2.h */
#include "read/proc2.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LIB_CALL_BEGIN __lsan_disable()
#define LIB_CALL_END __lsan_enable()
#else
#define LIB_CALL_BEGIN ((void)0)
#define LIB_CALL_END ((void)0)
#endif

int proc2_open(struct proc2 *l)
{
	if (l->lib)
		return 0;
	void *lib = dlopen(PROC2_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return -ENOENT;
	/* dlsym returns data pointers; POSIX makes them callable */
	*(void **)&l->pids_new = dlsym(lib, "procps_pids_new");
	*(void **)&l->pids_reap = dlsym(lib, "procps_pids_reap");
	*(void **)&l->pids_unref = dlsym(lib, "procps_pids_unref");
	if (!l->pids_new || !l->pids_reap || !l->pids_unref) {
		dlclose(lib);
		memset(l, 0, sizeof *l);
		return -ENOENT;
	}
	l->lib = lib;
	return 0;
}

void proc2_close(struct proc2 *l)
{
	if (l->lib)
		dlclose(l->lib);
	memset(l, 0, sizeof *l);
}

int proc2_pids_new(struct proc2 *l, struct pids_info **info, enum pids_item *items, int n)
{
	LIB_CALL_BEGIN;
	int rc = l->pids_new(info, items, n);
	LIB_CALL_END;
	return rc;
}

struct pids_fetch *proc2_pids_reap(struct proc2 *l, struct pids_info *info, enum pids_fetch_type which)
{
	LIB_CALL_BEGIN;
	struct pids_fetch *f = l->pids_reap(info, which);
	LIB_CALL_END;
	return f;
}

void proc2_pids_unref(struct proc2 *l, struct pids_info **info)
{
	LIB_CALL_BEGIN;
	l->pids_unref(info);
	LIB_CALL_END;
}
