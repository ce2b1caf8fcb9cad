/* aioreader: the probe's timed reads, issued by a child process.
 *
 * A read the kernel holds (a hung disk, a FUSE file that never answers)
 * cannot be cancelled, and a process that ends waits for its outstanding
 * AIO before it is gone (exit_aio): with the reads in the tool itself, q on
 * a hung disk left the shell waiting as long as the disk did (measured: 25 s
 * with a 30 s FUSE delay). In a child the wait is the child's: the tool
 * leaves at once, the child follows when the kernel lets go.
 *
 * One read in flight at a time (the probe is QD1). The child times each
 * read on CLOCK_MONOTONIC from before io_submit to after io_getevents; the
 * messages to and from it are outside the timed part. A paced probe asks
 * for one read at a time; a back-to-back one starts a stream, in which
 * the child reads on without waiting for the tool between reads. */
#ifndef IOSCHED_AIOREADER_H
#define IOSCHED_AIOREADER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One read of a stream: bytes read (or -errno), its latency, and when it
 * completed (CLOCK_MONOTONIC ns, the same clock as util_mono_now). */
struct aioreader_read {
	int64_t res;
	int64_t ns;
	int64_t done_ns;
};

#define AIOREADER_BATCH 64

/* Reads of a stream as they come: n of them; end when the stream is over
 * (halted, or its last read failed: that read's res says so). */
struct aioreader_batch {
	int n;
	int end;
	struct aioreader_read e[AIOREADER_BATCH];
};

struct aioreader {
	pid_t pid;   /* 0: not running */
	int sock;    /* SOCK_SEQPACKET to the child */
	int fd_sent; /* the child has a descriptor to read from */
};

/* Fork the child with a buffer for reads of io_size bytes (a multiple of
 * 4096). Returns 0 or a negative errno. Call it from the thread that will
 * use the reader: the child is killed when that thread ends. */
int aioreader_start(struct aioreader *r, size_t io_size);

/* Hand the child fd (O_DIRECT, read-only); it replaces the previous one,
 * which the child closes. fd -1: the child closes its descriptor and holds
 * none. The caller keeps its own fd. Returns 0 or a negative errno. */
int aioreader_set_fd(struct aioreader *r, int fd);

/* Ask for one read at byte offset off. Returns 0 or a negative errno. */
int aioreader_submit(struct aioreader *r, uint64_t off);

/* One read at off through fd, which goes with the request: the child reads
 * through its copy and closes it before it answers (a descriptor set with
 * aioreader_set_fd stays as it was). The caller keeps its own fd and may
 * close it at once. One message instead of three for a paced probe that
 * holds the device only while a read is in flight. */
int aioreader_submit_on(struct aioreader *r, int fd, uint64_t off);

/* Ask for a job: reads reads of io_size at random aligned offsets below
 * span (from seed), one after another, timed as a whole in the child (no
 * message between the reads). Its answer, through aioreader_wait, is the
 * number of reads done (or the negative errno of the read that failed) and
 * the job's time. */
int aioreader_submit_job(struct aioreader *r, uint64_t span, uint32_t reads, uint64_t seed);

/* Wait up to timeout_ms for the answer to the submitted read. Returns 1
 * with *res (bytes read, or a negative errno of the read) and *ns (its
 * latency), 0 on timeout, or a negative errno when the child is gone. */
int aioreader_wait(struct aioreader *r, int timeout_ms, int64_t *res, int64_t *ns);

/* Start a stream: reads of io_size at random aligned offsets below span
 * (from seed), back to back with no message between them, each timed
 * alone; the results come in batches (aioreader_next), at least every
 * 10 ms while reads complete. It runs until aioreader_halt or a failed
 * read. Nothing else may be asked of the reader until a batch with end
 * set has come. Returns 0 or a negative errno. */
int aioreader_stream(struct aioreader *r, uint64_t span, uint64_t seed);

/* Ask a stream to end; keep taking batches until one has end set (it may
 * take one read, or a hung read's time). Harmless without a stream: the
 * answer is an empty ended batch. Returns 0 or a negative errno. */
int aioreader_halt(struct aioreader *r);

/* Wait up to timeout_ms for the next batch of a stream. Returns 1 with
 * *b, 0 on timeout, or a negative errno when the child is gone. */
int aioreader_next(struct aioreader *r, int timeout_ms, struct aioreader_batch *b);

/* Kill the child and reap it. With a read still in the kernel this waits
 * until the kernel lets go of it: call it where that wait holds nobody up
 * (the probe's own thread, which the tool leaves behind when it is stuck). */
void aioreader_stop(struct aioreader *r);

/* Kill the child and reap it if it goes within wait_s; otherwise leave it
 * (it ends when the kernel lets go of its read, and init reaps it once the
 * tool is gone). For callers that must not wait on a hung disk. Returns 0
 * when reaped, -1 when left. */
int aioreader_stop_within(struct aioreader *r, double wait_s);

#endif
