/* demodisk: a disk to show schedulers on, for a demo or a stream
 * (--demo-disk): an HDD-like null_blk disk made through configfs (few
 * requests at once, each held 4 ms, so a queue builds inside the
 * scheduler, where the order it chooses shows; writeback throttling off,
 * which would hide it), with a writer process
 * flooding it with direct writes (the A/B's load: aiowrite.h) while the
 * tool's probe reads it. Its
 * data is thrown away (not memory-backed): nothing can fill the memory.
 * Removed with its writer at every exit the tool lives through; a disk
 * left by a run that was killed is removed by the next --demo-disk in the
 * same pid namespace. */
#ifndef IOSCHED_DEMODISK_H
#define IOSCHED_DEMODISK_H

#include <stddef.h>
#include <sys/types.h>

struct demodisk {
	char name[64];        /* the kernel's name of the disk (/sys/block/NAME) */
	char dir[128];        /* its configfs directory */
	pid_t writer;         /* the writer process; 0: none */
	int loaded;           /* this run loaded null_blk: unloaded at the end */
	char swept[256];      /* what a killed run left and was removed now; "" none */
};

/* Make the disk and start its writer. Root only; the process must have
 * no other threads yet (the writer is forked). Loads null_blk when it is
 * not (modprobe), with no disk of its own. Returns 0, or -1 with why in
 * err (what to install or load, when null_blk is missing): nothing is
 * then left made. */
int demodisk_make(struct demodisk *d, char *err, size_t len);

/* Stop the writer, remove the disk, unload null_blk if this run loaded
 * it. Says in msg what could not be undone ("" when all was). */
void demodisk_remove(struct demodisk *d, char *msg, size_t len);

/* A demo disk's configfs name: "iosched-demo-PID-NS", the run's pid and
 * its pid namespace (the inode of /proc/self/ns/pid, in hex). configfs is
 * one for every namespace, a pid means something in its own only: a run
 * in a container and one on the host must not take each other's disk for
 * a killed run's. A disk name holds at most 31 characters: this is 29. */
void demodisk_name(pid_t pid, unsigned long ns, char *buf, size_t len);

/* The pid in a demo disk's name when it was made in namespace ns; -1 for
 * another namespace's disk or any other name. */
long demodisk_name_pid(const char *name, unsigned long ns);

#endif
