/* aiowrite: a stream of sequential direct writes through libaio, the
 * writer behind the A/B's built-in load (load.h, into its scratch file)
 * and --demo-disk's writer (demodisk.h, over its own null_blk disk): bs
 * bytes a write, qd in flight, over [0, size) of fd and from the front
 * again. The data is not zeros (no filesystem or device may skip it).
 * Direct: no page cache fills, nothing is left dirty to drain when the
 * writer stops, and the load a scheduler sees is the writer's own. */
#ifndef IOSCHED_AIOWRITE_H
#define IOSCHED_AIOWRITE_H

#include <stddef.h>
#include <stdint.h>

#define AIOWRITE_BS (1u << 20)
#define AIOWRITE_QD 8

/* What the stream asks of its caller: whether to stop (NULL: never; the
 * process is ended from outside), and each write's bytes once done (NULL:
 * not wanted). */
struct aiowrite_hooks {
	int (*stop)(void *ctx);
	void (*done)(void *ctx, uint64_t bytes);
	void *ctx;
};

/* Write until h->stop says so, then wait for the writes in flight.
 * fd must be open with O_DIRECT. Returns 0, or a positive errno when the
 * stream could not start or a write could not be handed over. */
int aiowrite_run(int fd, uint64_t size, const struct aiowrite_hooks *h);

#endif
