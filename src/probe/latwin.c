/* latwin: see include/probe/latwin.h */
#include "probe/latwin.h"

#include <string.h>

void latwin_init(struct latwin *w)
{
	memset(w, 0, sizeof *w);
	for (int i = 0; i < LATWIN_SLOTS; i++)
		w->slot_sec[i] = INT64_MIN;
	for (int i = 0; i < LATWIN_CHART; i++)
		w->chart[i].sec = INT64_MIN;
	w->last_sec = INT64_MIN;
}

static size_t ring(int64_t sec, size_t n)
{
	int64_t r = sec % (int64_t)n;
	return (size_t)(r < 0 ? r + (int64_t)n : r);
}

static void summarize(const struct hist *h, int64_t sec, struct latwin_point *p)
{
	p->sec = sec;
	p->n = (uint32_t)h->n;
	p->p50_ns = hist_quantile(h, 0.50);
	p->p99_ns = hist_quantile(h, 0.99);
	p->max_ns = h->max_ns;
}

/* The ring slot for second sec, recycled when it held an older second. */
static size_t slot_for(struct latwin *w, int64_t sec)
{
	size_t i = ring(sec, LATWIN_SLOTS);
	if (w->slot_sec[i] != sec) {
		/* The slot's old second is complete: keep its summary for the chart. */
		if (w->slot_sec[i] != INT64_MIN && w->slot[i].n)
			summarize(&w->slot[i], w->slot_sec[i], &w->chart[ring(w->slot_sec[i], LATWIN_CHART)]);
		hist_reset(&w->slot[i]);
		w->slot_flagged[i] = 0;
		w->slot_sec[i] = sec;
	}
	return i;
}

void latwin_flag(struct latwin *w, int64_t sec)
{
	w->slot_flagged[slot_for(w, sec)]++;
	w->interval_flagged++;
	w->since_change_flagged++;
}

/* A new second began: the last one is whole, and so are those the read
 * ending now spanned without a completion. */
static void close_seconds(struct latwin *w, int64_t start_sec, int64_t sec, uint64_t ns)
{
	if (w->last_sec == INT64_MIN || sec <= w->last_sec)
		return;
	size_t last = ring(w->last_sec, LATWIN_SLOTS);
	if (w->slot_sec[last] == w->last_sec && w->slot[last].n)
		hist_add(&w->interval_sec_p50, hist_quantile(&w->slot[last], 0.5));
	int64_t from = start_sec > w->last_sec ? start_sec : w->last_sec;
	for (int64_t s = from + 1; s < sec; s++)
		hist_add(&w->interval_sec_p50, ns);
}

void latwin_add(struct latwin *w, int64_t start_sec, int64_t sec, uint64_t ns)
{
	close_seconds(w, start_sec, sec, ns);
	if (sec > w->last_sec)
		w->last_sec = sec;
	size_t i = slot_for(w, sec);
	hist_add(&w->slot[i], ns);
	hist_add(&w->interval, ns);
	hist_add(&w->since_change, ns);
}

uint64_t latwin_take_interval(struct latwin *w, struct hist *out, struct hist *sec_p50)
{
	*out = w->interval;
	hist_reset(&w->interval);
	if (sec_p50)
		*sec_p50 = w->interval_sec_p50;
	hist_reset(&w->interval_sec_p50);
	uint64_t f = w->interval_flagged;
	w->interval_flagged = 0;
	return f;
}

uint64_t latwin_window(const struct latwin *w, int64_t now_sec, int seconds, struct hist *out)
{
	uint64_t flagged = 0;
	hist_reset(out);
	for (int i = 0; i < LATWIN_SLOTS; i++) {
		int64_t s = w->slot_sec[i];
		if (s != INT64_MIN && s <= now_sec && s > now_sec - seconds) {
			hist_merge(out, &w->slot[i]);
			flagged += w->slot_flagged[i];
		}
	}
	return flagged;
}

void latwin_mark_change(struct latwin *w)
{
	hist_reset(&w->since_change);
	w->since_change_flagged = 0;
}

size_t latwin_chart(const struct latwin *w, int64_t from, int64_t to, struct latwin_point *out)
{
	size_t k = 0;
	for (int64_t s = from; s <= to; s++, k++) {
		size_t i = ring(s, LATWIN_SLOTS);
		const struct latwin_point *c = &w->chart[ring(s, LATWIN_CHART)];
		if (w->slot_sec[i] == s && w->slot[i].n)
			summarize(&w->slot[i], s, &out[k]);
		else if (c->sec == s)
			out[k] = *c;
		else
			out[k] = (struct latwin_point){.sec = s};
	}
	return k;
}
