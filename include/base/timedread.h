/* timedread: reads of /proc files that give up on a file whose read does
 * not return. A task's stat, io, syscall and wchan wait on a lock the
 * task holds while it runs execve; a user can hold an exec there for good
 * (a FUSE file opened with O_CLOEXEC whose flush is never answered), and
 * a plain read() of such a file never returns: root's monitor froze
 * behind one such process. The reads run on a worker thread; a read that
 * takes longer than the patience is given up (-ETIMEDOUT), its worker is
 * left to it and a new one goes on, and that task's reads are skipped
 * until the stuck read has returned. Several workers read side by side,
 * so that many held tasks cost about one patience per
 * TIMEDREAD_WORKERS_HELD of them, not one each. */
#ifndef IOSCHED_BASE_TIMEDREAD_H
#define IOSCHED_BASE_TIMEDREAD_H

#include <stddef.h>

/* Tasks stuck at once before reads stop altogether (each holds one
 * thread of the tool until its read returns). */
#define TIMEDREAD_STUCK_MAX 64
/* Workers reading a batch at once; once a read of it was given up or
 * has been slow (held tasks may sit side by side), up to
 * TIMEDREAD_WORKERS_HELD, whose reads may be given up on past
 * TIMEDREAD_STUCK_MAX (each is kept until its read returns). */
#define TIMEDREAD_WORKERS 4
#define TIMEDREAD_WORKERS_HELD 16
/* How long a read of a task's stat, io or syscall may take before the
 * task is taken to be held in execve: an exec holds the lock they wait on
 * for well under a millisecond. */
#define TIMEDREAD_PATIENCE_S 0.3
/* A round of batches (a refresh) spends about this long on reads that
 * are slow but under the patience: past its deadline
 * (timedread_deadline), a read waits TIMEDREAD_LATE_S at most. Tasks
 * whose exec is held just under the patience, again and again, would
 * otherwise add up without bound (100 such tasks: 34 s for three
 * refreshes, and a key waited as long). */
#define TIMEDREAD_BUDGET_S 1.0
#define TIMEDREAD_LATE_S 0.05
/* The most one read returns. */
#define TIMEDREAD_TEXT_MAX 4096

struct timedread_item {
	char path[64];   /* opened when fd < 0, or when reading fd fails */
	int fd;          /* in: a descriptor to read from offset 0, or -1; out: the one read, open if keep and read */
	int keep;        /* keep a descriptor opened from path */
	int id;          /* whose file (a task id): skipped while a read of this id is stuck */
	char *buf;       /* out: the text read, NUL-terminated */
	size_t cap;
	long n;          /* out: bytes read, or -errno; -ETIMEDOUT: given up, or skipped as its task's read is stuck
			  * (fd then belongs to no one here); -EBUSY: not read, TIMEDREAD_STUCK_MAX are stuck */
};

struct timedread;

/* Reads that wait at most patience_s seconds each; NULL on no memory.
 * No thread is started until the first read. */
struct timedread *timedread_new(double patience_s);

/* Read items[0..n): each one's n says how it went (-EAGAIN: not read,
 * no thread could be started). Returns how many gave up or were skipped
 * (-ETIMEDOUT, -EBUSY). Items are read in no set order. Not for two
 * threads at once. */
size_t timedread_batch(struct timedread *tr, struct timedread_item *items, size_t n);

/* One file of task id: its text into buf, bytes or -errno (-ETIMEDOUT:
 * given up). tr NULL: a reader made for this read, with
 * TIMEDREAD_PATIENCE_S. */
long timedread_text(struct timedread *tr, const char *path, int id, char *buf, size_t cap);

/* From monotonic time at on (util_mono_now; 0: never), each read waits
 * TIMEDREAD_LATE_S at most; a read given up so counts as any other. */
void timedread_deadline(struct timedread *tr, double at);

/* Reads given up since tr was made. */
unsigned long timedread_given_up(const struct timedread *tr);

/* How many tasks' reads are stuck now; the first max of their ids into
 * ids (NULL: none wanted). */
size_t timedread_stuck(const struct timedread *tr, int *ids, size_t max);

/* Workers stuck in a read are left to end on their own. */
void timedread_free(struct timedread *tr);

#endif
