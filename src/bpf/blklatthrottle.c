/* blklatthrottle: the block-latency part's reading of dirty-page
 * throttling (blklatparts.h): the throttled map holds each process's
 * pauses since the program first saw it pause; the reading gets what each
 * one gained since the last reading. A process the map no longer holds
 * (it ended, or the LRU let it go) is forgotten; one it holds again
 * starts from its new sum. Only in a build with BPF (HAVE_BPF). */
#ifdef HAVE_BPF
#include "blklatparts.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>

#include "base/util.h"

static int by_tgid(const void *a, const void *b)
{
	const struct throttle_seen *x = a, *y = b;
	return (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

/* The map's entries now, sorted by tgid, into *out (the caller frees). */
static int list_now(int fd, struct throttle_seen **out, size_t *n)
{
	size_t cap = 0;
	__u32 key, next;
	__u32 *prev = NULL;
	*out = NULL;
	*n = 0;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		struct blkmap_throttle v;
		if (bpf_map_lookup_elem(fd, &key, &v) != 0)
			continue; /* let go between the two calls */
		if (util_grow((void **)out, &cap, *n + 1, sizeof **out) < 0)
			return -ENOMEM;
		(*out)[(*n)++] = (struct throttle_seen){.tgid = (int)key, .ns = v.ns};
		if (*n > 4 * BLKMAP_THROTTLED)
			break; /* a walk restarted by deletions: enough */
	}
	if (*n)
		qsort(*out, *n, sizeof **out, by_tgid);
	return 0;
}

int blklat_read_throttled(struct blklat *b, struct blk_reading *r)
{
	r->throttle_on = b->throttle_on;
	r->nthrottled = 0;
	if (!b->throttle_on)
		return 0;
	struct throttle_seen *now;
	size_t n;
	int err = list_now(bpf_map__fd(b->skel->maps.throttled), &now, &n);
	if (err) {
		free(now);
		return err;
	}
	for (size_t i = 0; i < n; i++) {
		const struct throttle_seen *old =
			b->ntseen ? bsearch(&now[i], b->tseen, b->ntseen, sizeof now[i], by_tgid) : NULL;
		/* new to the map: its whole sum is this interval's at most
		 * (the first reading after the load counts what came before it
		 * too: the program was not attached for long) */
		uint64_t gained = old && now[i].ns >= old->ns ? now[i].ns - old->ns : old ? 0 : now[i].ns;
		if (!gained)
			continue;
		if (util_grow((void **)&r->throttled, &r->throttled_cap, r->nthrottled + 1, sizeof *r->throttled) < 0) {
			err = -ENOMEM;
			break;
		}
		r->throttled[r->nthrottled++] = (struct blk_throttle){.tgid = now[i].tgid, .ns = gained};
	}
	free(b->tseen);
	b->tseen = now;
	b->ntseen = n;
	b->tseen_cap = n;
	return err; /* r->throttled in tgid order, as now is */
}
#endif
