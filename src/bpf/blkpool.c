/* blkpool: see include/bpf/blklat.h (the live A/B's pool of one disk's
 * reads). Apart from the BPF part so that it builds, and is tested,
 * everywhere. */
#include "bpf/blklat.h"

#include <string.h>

#include "base/util.h"

/* A full table's place for a name with n reads: that of the name with
 * the fewest, where it has fewer (they go to other_n), so that names
 * that read a little first (any user's, made up) cannot keep the
 * busiest reader out. The freed index (the new count of names), or 0
 * when every name has as many reads. */
static size_t pool_evict(struct blk_pool *p, uint64_t n)
{
	size_t low = 0;
	for (size_t i = 1; i < p->nnames; i++)
		if (p->name[i].h.n < p->name[low].h.n)
			low = i;
	if (p->name[low].h.n >= n)
		return 0;
	p->other_n += p->name[low].h.n;
	p->name[low] = p->name[p->nnames - 1];
	memset(&p->name[p->nnames - 1], 0, sizeof p->name[0]);
	return --p->nnames;
}

void blkpool_add(struct blk_pool *p, const char *comm, const struct hist *delta, uint64_t bytes)
{
	hist_merge(&p->all, delta);
	p->bytes += bytes;
	size_t i = 0;
	while (i < p->nnames && strcmp(p->name[i].comm, comm) != 0)
		i++;
	if (i == BLK_POOL_NAMES && !(i = pool_evict(p, delta->n))) {
		p->other_n += delta->n;
		return;
	}
	if (i == p->nnames)
		util_strlcpy(p->name[p->nnames++].comm, comm, sizeof p->name[i].comm);
	hist_merge(&p->name[i].h, delta);
	p->name[i].bytes += bytes;
}
