/* aiowrite: see aiowrite.h */
#include "aiowrite.h"

#include <errno.h>
#include <libaio.h>
#include <stdlib.h>
#include <time.h>

#include "probe/prng.h"

static int stopping(const struct aiowrite_hooks *h)
{
	return h->stop && h->stop(h->ctx);
}

int aiowrite_run(int fd, uint64_t size, const struct aiowrite_hooks *h)
{
	io_context_t ctx = 0;
	void *buf = NULL;
	int err = 0;
	if (io_setup(AIOWRITE_QD, &ctx) < 0 || posix_memalign(&buf, 4096, AIOWRITE_BS) != 0) {
		err = errno ? errno : ENOMEM;
		goto out;
	}
	struct prng r;
	prng_seed(&r, 1);
	for (size_t i = 0; i < AIOWRITE_BS / 8; i++)
		((uint64_t *)buf)[i] = prng_next(&r);
	uint64_t blocks = size / AIOWRITE_BS ? size / AIOWRITE_BS : 1, next = 0;
	struct iocb cbs[AIOWRITE_QD], *cbp[1];
	int inflight = 0;
	while (!stopping(h) || inflight) {
		while (!stopping(h) && inflight < AIOWRITE_QD) {
			struct iocb *cb = &cbs[next % AIOWRITE_QD];
			/* The kernel copies an iocb at submission: reusing the
			 * struct of a request still in flight is safe. */
			io_prep_pwrite(cb, fd, buf, AIOWRITE_BS, (long long)((next % blocks) * AIOWRITE_BS));
			cbp[0] = cb;
			if (io_submit(ctx, 1, cbp) != 1) {
				err = EIO;
				goto out;
			}
			next++;
			inflight++;
		}
		struct io_event ev[AIOWRITE_QD];
		struct timespec ts = {0, 100000000L};
		int n = io_getevents(ctx, 1, AIOWRITE_QD, ev, &ts);
		for (int i = 0; i < n; i++)
			if ((long)ev[i].res > 0 && h->done)
				h->done(h->ctx, (uint64_t)ev[i].res);
		if (n > 0)
			inflight -= n;
	}
out:
	if (ctx)
		io_destroy(ctx);
	free(buf);
	return err;
}
