/* blklatquery: what the rest of the tool asks of a struct blk_reading,
 * a live one (blklatread.c) or a replay's: a process's entry, the disk it
 * moved most bytes on, who has requests waiting on a disk, an interval's
 * histogram from two cumulative ones; the names of ops and kinds, and a
 * p50/p99 pair as text. No BPF needed: it is built without it too. */
#include "bpf/blklat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

const char *blk_kind_name(enum blk_kind k)
{
	static const char *const names[] = {"direct", "writeback", "journal", "read", "readahead", "swap"};
	return k < BLK_NKINDS ? names[k] : "?";
}

const char *blk_op_name(enum blk_op op)
{
	return op == BLK_WRITE ? "write" : "read";
}

struct idle_at {
	unsigned idle;
	size_t i;
};

static int by_idle_desc(const void *a, const void *b)
{
	const struct idle_at *x = a, *y = b;
	if (x->idle != y->idle)
		return x->idle < y->idle ? 1 : -1;
	return (x->i > y->i) - (x->i < y->i);
}

size_t blklat_pick_idle(const unsigned *idle, size_t n, size_t low, unsigned min_idle, unsigned char *pick)
{
	memset(pick, 0, n);
	if (n <= low)
		return 0;
	struct idle_at *c = malloc(n * sizeof *c);
	if (!c)
		return 0; /* (none let go this time) */
	size_t nc = 0, want = n - low, got = 0;
	for (size_t i = 0; i < n; i++)
		if (idle[i] >= min_idle)
			c[nc++] = (struct idle_at){idle[i], i};
	qsort(c, nc, sizeof *c, by_idle_desc);
	for (; got < nc && got < want; got++)
		pick[c[got].i] = 1;
	free(c);
	return got;
}

void blklat_diff(const uint32_t *prev, const uint32_t *cur, size_t nbuckets, struct hist *out)
{
	hist_reset(out);
	int first = -1, last = -1;
	for (size_t b = 0; b < nbuckets && b < HIST_BUCKETS; b++) {
		uint32_t d = prev && cur[b] >= prev[b] ? cur[b] - prev[b] : cur[b];
		out->count[b] = d;
		out->n += d;
		if (d) {
			if (first < 0)
				first = (int)b;
			last = (int)b;
		}
	}
	if (first >= 0) {
		uint64_t lo, hi;
		hist_bucket_range((unsigned)first, &out->min_ns, &hi);
		hist_bucket_range((unsigned)last, &lo, &out->max_ns);
	}
}

void blklat_format_pair(uint64_t n, uint64_t p50_ns, uint64_t p99_ns, char *buf, size_t len)
{
	if (!hist_enough(n, 0.50)) {
		util_strlcpy(buf, "-", len);
		return;
	}
	char lo[24], hi[24] = "-";
	util_format_latency(p50_ns, lo, sizeof lo);
	if (hist_enough(n, 0.99))
		util_format_latency(p99_ns, hi, sizeof hi);
	util_fmt(buf, len, "%s/%s", lo, hi);
}

const struct blk_proc *blklat_find_proc(const struct blk_reading *r, int tgid, unsigned long long start)
{
	/* the first entry of tgid (a pid has one or two: an ended
	 * dirtier's and the live process's) */
	size_t lo = 0, hi = r->nprocs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->procs[mid].tgid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct blk_proc *found = NULL;
	for (size_t i = lo; i < r->nprocs && r->procs[i].tgid == tgid; i++)
		if (blklat_same_start(r->procs[i].start, start))
			found = &r->procs[i]; /* (the latest, for an unknown start) */
	return found;
}

int blklat_same_start(uint32_t have, unsigned long long want)
{
	return !want || !have || have == (uint32_t)want;
}

int blklat_stat_of(const struct blk_reading *r, const struct blk_stat *st, int pid, unsigned long long start)
{
	if (st->tgid != pid)
		return 0;
	const struct blk_proc *b = blklat_find_proc(r, pid, start);
	/* a replay keeps the stats, not the processes: by pid there */
	return b ? b->start == st->start : !r->nprocs;
}

static int throttle_by_tgid(const void *a, const void *b)
{
	const struct blk_throttle *x = a, *y = b;
	return (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

int64_t blklat_throttled_ns(const struct blk_reading *r, int tgid)
{
	if (!r->throttle_on)
		return -1;
	struct blk_throttle key = {.tgid = tgid};
	const struct blk_throttle *t =
		r->nthrottled ? bsearch(&key, r->throttled, r->nthrottled, sizeof key, throttle_by_tgid) : NULL;
	return t ? (int64_t)t->ns : 0;
}

/* One stat as the sort of blklat_settle_tops sees it. */
struct stat_key {
	int tgid;
	const char *disk;
	size_t at;      /* its place in the reading: the first listed wins a tie */
	uint64_t bytes; /* both directions, the bytes of a device above left out */
};

static int by_tgid_disk(const void *a, const void *b)
{
	const struct stat_key *x = a, *y = b;
	if (x->tgid != y->tgid)
		return (x->tgid > y->tgid) - (x->tgid < y->tgid);
	int c = strcmp(x->disk, y->disk);
	return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* keys, sorted, into r->tops: per tgid, the disk of most bytes. */
static void tops_from(struct blk_reading *r, const struct stat_key *keys, size_t n)
{
	uint64_t most = 0;
	size_t most_at = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		uint64_t sum = 0;
		for (; j < n && keys[j].tgid == keys[i].tgid && !strcmp(keys[j].disk, keys[i].disk); j++)
			sum += keys[j].bytes;
		int first_of_tgid = !r->ntops || r->tops[r->ntops - 1].tgid != keys[i].tgid;
		if (first_of_tgid && sum > 0) {
			r->tops[r->ntops++] = (struct blk_top){keys[i].tgid, keys[i].disk};
			most = sum, most_at = keys[i].at;
		} else if (!first_of_tgid && (sum > most || (sum == most && keys[i].at < most_at))) {
			r->tops[r->ntops - 1].disk = keys[i].disk;
			most = sum, most_at = keys[i].at;
		}
		i = j;
	}
}

int blklat_settle_tops(struct blk_reading *r)
{
	r->ntops = 0;
	if (!r->nstats)
		return 0;
	struct stat_key *keys = malloc(r->nstats * sizeof *keys);
	if (!keys || util_grow((void **)&r->tops, &r->tops_cap, r->nstats, sizeof *r->tops) < 0) {
		free(keys);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nstats; i++) {
		const struct blk_stat *st = &r->stats[i];
		keys[i] = (struct stat_key){st->tgid, st->disk, i,
					    st->bytes - (st->stacked_bytes < st->bytes ? st->stacked_bytes : st->bytes)};
	}
	qsort(keys, r->nstats, sizeof *keys, by_tgid_disk);
	tops_from(r, keys, r->nstats);
	free(keys);
	return 0;
}

static int top_by_tgid(const void *a, const void *b)
{
	const struct blk_top *x = a, *y = b;
	return (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

const char *blklat_top_disk(const struct blk_reading *r, int tgid)
{
	struct blk_top key = {.tgid = tgid};
	const struct blk_top *t = r->ntops ? bsearch(&key, r->tops, r->ntops, sizeof key, top_by_tgid) : NULL;
	return t ? t->disk : NULL;
}

static int wait_cmp(const void *a, const void *b)
{
	const struct blk_wait *x = a, *y = b;
	return (x->oldest_ns < y->oldest_ns) - (x->oldest_ns > y->oldest_ns);
}

size_t blklat_waiting(const struct blk_reading *r, const char *disk, unsigned long long in_flight,
		      struct blk_wait *out, size_t max)
{
	struct blk_wait w[64];
	size_t n = 0;
	unsigned long long issued = 0;
	/* Youngest first: the issued ones past the kernel's count are the
	 * oldest, the leftovers. */
	for (size_t i = 0; i < r->nreqs; i++) {
		const struct blk_req *q = &r->reqs[i];
		if (strcmp(q->disk, disk) != 0 || (q->issued && ++issued > in_flight))
			continue;
		size_t k = 0;
		while (k < n && w[k].tgid != q->tgid)
			k++;
		if (k == n) {
			if (n == sizeof w / sizeof w[0])
				continue;
			w[n++] = (struct blk_wait){.tgid = q->tgid};
		}
		w[k].inflight++;
		if (q->age_ns > w[k].oldest_ns)
			w[k].oldest_ns = q->age_ns;
	}
	qsort(w, n, sizeof w[0], wait_cmp);
	if (n > max)
		n = max;
	memcpy(out, w, n * sizeof w[0]);
	return n;
}

void blk_reading_free(struct blk_reading *r)
{
	free(r->stats);
	free(r->procs);
	free(r->reqs);
	free(r->behind);
	free(r->unit_behind);
	free(r->unattr);
	free(r->tops);
	free(r->throttled);
	memset(r, 0, sizeof *r);
}
