/* proc2: libproc2 (procps), loaded when the /proc way of listing tasks is
 * used and let go when the kernel's task walk takes over.
 *
 * Linked in, the library and what it pulls in (libsystemd, libgcrypt,
 * libgpg-error, liblzma, libzstd, liblz4, libcap) stayed resident, about
 * 0.8 MiB, though the walk needs none of it after the second refresh. */
#ifndef PROC2_H
#define PROC2_H

#include <stddef.h>

#include <libproc2/pids.h>

/* The soname Debian 12's libproc2-0 installs. */
#define PROC2_SONAME "libproc2.so.0"

struct proc2 {
	void *lib; /* NULL: not loaded */
	__typeof__(procps_pids_new) *pids_new;
	__typeof__(procps_pids_reap) *pids_reap;
	__typeof__(procps_pids_unref) *pids_unref;
};

/* Load the library (a no-op when it is loaded). Returns 0, or -ENOENT
 * when it or one of its calls is missing (a broken install: the package
 * depends on it); the process pane is then off, as on any failure of
 * procs_new. */
int proc2_open(struct proc2 *l);

/* Unload it; nothing it returned may be used after. The buffers the
 * library keeps in its own statics (some 128 KiB ones for reading /proc,
 * mostly untouched) are lost then: once a run, as the walk replaces /proc
 * once. */
void proc2_close(struct proc2 *l);

/* The library's calls (l loaded). In sanitizer builds what they allocate
 * is not counted as leaked: see proc2_close. */
int proc2_pids_new(struct proc2 *l, struct pids_info **info, enum pids_item *items, int n);
struct pids_fetch *proc2_pids_reap(struct proc2 *l, struct pids_info *info, enum pids_fetch_type which);
void proc2_pids_unref(struct proc2 *l, struct pids_info **info);

#endif
