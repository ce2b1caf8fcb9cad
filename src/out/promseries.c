/* promseries: which entries of a bounded label set (process names,
 * cgroups) have a series of their own in the Prometheus text (prom.h):
 * the election and the entry that makes room, shared by both sets. */
#include "out/prom.h"

void prom_elect(void *base, size_t n, size_t stride, size_t max)
{
	for (;;) {
		struct prom_series *in = NULL, *out = NULL;
		size_t named = 0;
		for (size_t i = 0; i < n; i++) {
			struct prom_series *e = (struct prom_series *)((char *)base + i * stride);
			named += (size_t)e->named;
			if (e->named && (!out || e->recent < out->recent))
				out = e;
			if (!e->named && e->recent > 0 && (!in || e->recent > in->recent))
				in = e;
		}
		if (!in || (named == max && in->recent <= PROM_HANDOVER * out->recent))
			return;
		if (named == max)
			out->named = 0; /* its counters stay as they are, not written while it has no series */
		in->named = in->had = 1;
	}
}

void *prom_weakest(void *base, size_t n, size_t stride)
{
	struct prom_series *w = NULL;
	for (size_t i = 0; i < n; i++) {
		struct prom_series *e = (struct prom_series *)((char *)base + i * stride);
		if (!e->had && (!w || e->recent < w->recent))
			w = e;
	}
	return w;
}
