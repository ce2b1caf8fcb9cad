/* Unit tests: the BPF program's bucket function against hist.h's, the
 * subtraction of two readings of a histogram entry, the lookup of a
 * process's figures, which idle entries a full table lets go, and the
 * text of the detail panels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "bpf/blklat.h"
#include "bpf/blklat_maps.h"
#include "out/detail.h"
#include "probe/hist.h"
#include "probe/prng.h"
#include "base/util.h"

/* The BPF side has no clz: its branchy log2 must give the same bucket
 * for every value, or its percentiles would not be the probe's. */
static void bucket_matches_hist(void **state)
{
	(void)state;
	for (uint64_t v = 0; v < 70000; v++)
		assert_int_equal(blkmap_bucket(v), hist_bucket(v));
	for (unsigned b = 0; b < 64; b++) {
		uint64_t p = 1ull << b;
		assert_int_equal(blkmap_bucket(p), hist_bucket(p));
		assert_int_equal(blkmap_bucket(p - 1), hist_bucket(p - 1));
		assert_int_equal(blkmap_bucket(p + 1), hist_bucket(p + 1));
	}
	struct prng r;
	prng_seed(&r, 42);
	for (int i = 0; i < 200000; i++) {
		uint64_t v = prng_next(&r) >> (prng_next(&r) % 64);
		assert_int_equal(blkmap_bucket(v), hist_bucket(v));
	}
	assert_int_equal(blkmap_bucket(UINT64_MAX), HIST_BUCKETS - 1);
}

/* The in-flight array: four slots per tag, a power of two from 2^12 to
 * 2^16; a request's two slots are always inside it, and requests a fixed
 * stride apart (a tag set's) spread over it. */
static void slot_array_sized_by_tags(void **state)
{
	(void)state;
	assert_int_equal(blkmap_slot_bits(0), BLKMAP_SLOT_BITS_MIN);
	assert_int_equal(blkmap_slot_bits(1024), 12);  /* 4096 slots for 1024 tags */
	assert_int_equal(blkmap_slot_bits(1025), 13);
	assert_int_equal(blkmap_slot_bits(4096), 14);
	assert_int_equal(blkmap_slot_bits(1ull << 40), BLKMAP_SLOT_BITS_MAX);
	for (unsigned bits = BLKMAP_SLOT_BITS_MIN; bits <= BLKMAP_SLOT_BITS_MAX; bits++) {
		unsigned char *used = calloc(1u << bits, 1);
		unsigned distinct = 0;
		for (unsigned long long k = 0; k < 256; k++) {
			unsigned s = blkmap_slot(0xffff888100000000ull + k * 384, bits);
			assert_true(s < (1u << bits) && (s ^ 1) < (1u << bits));
			distinct += !used[s];
			used[s] = 1;
		}
		assert_true(distinct >= 240); /* 256 requests, hardly a shared first slot */
		free(used);
	}
}

static void diff_subtracts_bucketwise(void **state)
{
	(void)state;
	uint32_t *prev = calloc(HIST_BUCKETS, sizeof *prev), *cur = calloc(HIST_BUCKETS, sizeof *cur);
	struct hist *h = malloc(sizeof *h);
	unsigned b1 = hist_bucket(40000), b2 = hist_bucket(900000);
	prev[b1] = 10;
	cur[b1] = 15;               /* +5 at 40 us */
	prev[b2] = 3;
	cur[b2] = 4;                /* +1 at 900 us */
	cur[7] = 2;                 /* a bucket that was empty: +2 */
	blklat_diff(prev, cur, HIST_BUCKETS, h);
	assert_int_equal(h->n, 8);
	assert_int_equal(h->count[b1], 5);
	assert_int_equal(h->count[b2], 1);
	assert_int_equal(h->min_ns, 7);
	uint64_t lo, hi;
	hist_bucket_range(b2, &lo, &hi);
	assert_int_equal(h->max_ns, hi);
	/* p50 of 2x7ns, 5x40us, 1x900us is in 40 us's bucket (within 1/128). */
	uint64_t p50 = hist_quantile(h, 0.5);
	assert_true(p50 >= 40000 - 40000 / 128 && p50 <= 40000 + 40000 / 128);

	/* No change: nothing. */
	blklat_diff(cur, cur, HIST_BUCKETS, h);
	assert_int_equal(h->n, 0);
	assert_int_equal(h->max_ns, 0);
	/* An entry made anew (smaller than before) counts as it is now. */
	blklat_diff(cur, prev, HIST_BUCKETS, h);
	assert_int_equal(h->count[b1], 10);
	/* No previous reading: all of it. */
	blklat_diff(NULL, cur, HIST_BUCKETS, h);
	assert_int_equal(h->n, 15 + 4 + 2);
	free(prev);
	free(cur);
	free(h);
}

/* A process is its pid and start: a pid with two entries (an ended
 * writer's, started at tick 5, and the live process's, at 9) gives each
 * its own; a start of 0 looked for (not known) gives the latest, and an
 * entry of start 0 (a replay's) is any process's of its pid. */
static void find_proc_by_tgid(void **state)
{
	(void)state;
	struct blk_proc p[4] = {{.tgid = 10, .start = 3}, {.tgid = 200, .start = 5}, {.tgid = 200, .start = 9},
				{.tgid = 3000}};
	struct blk_reading r = {.procs = p, .nprocs = 4};
	assert_ptr_equal(blklat_find_proc(&r, 200, 5), &p[1]);
	assert_ptr_equal(blklat_find_proc(&r, 200, 9), &p[2]);
	assert_ptr_equal(blklat_find_proc(&r, 200, 0), &p[2]);
	assert_null(blklat_find_proc(&r, 200, 7));
	assert_ptr_equal(blklat_find_proc(&r, 200, 5 + (1ull << 32)), &p[1]); /* starts are kept modulo 2^32 */
	assert_ptr_equal(blklat_find_proc(&r, 3000, 1234), &p[3]);
	assert_null(blklat_find_proc(&r, 10, 4));
	assert_null(blklat_find_proc(&r, 11, 0));
	struct blk_stat st = {.tgid = 200, .start = 5};
	assert_true(blklat_stat_of(&r, &st, 200, 5));
	assert_false(blklat_stat_of(&r, &st, 200, 9));
	assert_false(blklat_stat_of(&r, &st, 200, 0)); /* an unknown start is the later process */
	r.nprocs = 0;
	assert_null(blklat_find_proc(&r, 10, 0));
}

/* The disk a process moved most bytes on: reads and writes summed per
 * disk; a disk's bytes that repeat a write to a loop device above it are
 * left out (the loop device's writer is named with the loop device). */
static void top_disk_of_a_process(void **state)
{
	(void)state;
	struct blk_stat st[] = {
		{.tgid = 7, .disk = "loop1", .op = BLK_WRITE, .bytes = 6 << 20},
		{.tgid = 7, .disk = "vda", .op = BLK_READ, .bytes = 2 << 20},
		{.tgid = 7, .disk = "vda", .op = BLK_WRITE, .bytes = 6 << 20, .stacked_bytes = 6 << 20},
		{.tgid = 8, .disk = "vda", .op = BLK_READ, .bytes = 1 << 20},
		{.tgid = 8, .disk = "sdb", .op = BLK_READ, .bytes = 3 << 20},
		{.tgid = 8, .disk = "vda", .op = BLK_WRITE, .bytes = 3 << 20},
	};
	struct blk_reading r = {.stats = st, .nstats = 6};
	assert_int_equal(blklat_settle_tops(&r), 0);
	assert_string_equal(blklat_top_disk(&r, 7), "loop1");
	assert_string_equal(blklat_top_disk(&r, 8), "vda"); /* 1 + 3 MiB over sdb's 3 */
	assert_null(blklat_top_disk(&r, 9));
	st[2].stacked_bytes = 0; /* vda's 8 MiB now its own */
	assert_int_equal(blklat_settle_tops(&r), 0);
	assert_string_equal(blklat_top_disk(&r, 7), "vda");
	st[4].bytes = 4 << 20; /* a tie, 4 MiB each: the disk listed first */
	assert_int_equal(blklat_settle_tops(&r), 0);
	assert_string_equal(blklat_top_disk(&r, 8), "vda");
	st[3].bytes = 0, st[5].bytes = 0; /* only sdb moved bytes */
	assert_int_equal(blklat_settle_tops(&r), 0);
	assert_string_equal(blklat_top_disk(&r, 8), "sdb");
	r.nstats = 0;
	assert_int_equal(blklat_settle_tops(&r), 0);
	assert_null(blklat_top_disk(&r, 7));
	free(r.tops);
}

/* A replayed line may hold any number of stats of one process, in any
 * order (a crafted 40,000 here): each process's disk is found in one
 * pass, and the same as a sum per disk gives. */
static void top_disk_many_stats(void **state)
{
	(void)state;
	enum { N = 40000 };
	static const char *const disks[] = {"sda", "sdb", "nvme0n1"};
	struct blk_stat *st = calloc(N, sizeof *st);
	assert_non_null(st);
	uint64_t sum[3] = {0};
	for (size_t i = 0; i < N; i++) {
		size_t d = (i * 7919) % 3;
		st[i] = (struct blk_stat){.tgid = i % 5 ? 42 : 43, .op = i % 2 ? BLK_READ : BLK_WRITE,
					  .bytes = 4096 * (1 + (i * 31) % 17)};
		util_strlcpy(st[i].disk, disks[d], sizeof st[i].disk);
		if (st[i].tgid == 42)
			sum[d] += st[i].bytes;
	}
	size_t best = sum[1] > sum[0] ? 1 : 0;
	best = sum[2] > sum[best] ? 2 : best;
	struct blk_reading r = {.stats = st, .nstats = N};
	assert_int_equal(blklat_settle_tops(&r), 0);
	assert_int_equal(r.ntops, 2);
	assert_string_equal(blklat_top_disk(&r, 42), disks[best]);
	assert_non_null(blklat_top_disk(&r, 43));
	free(r.tops);
	free(st);
}

static void detail_texts(void **state)
{
	(void)state;
	static struct sample s;
	memset(&s, 0, sizeof s);
	char buf[4096];
	s.interval_s = 2;
	util_strlcpy(s.blk_why, "needs root or cap_bpf,cap_perfmon", sizeof s.blk_why);
	detail_process(&s, 42, "dd", buf, sizeof buf);
	assert_non_null(strstr(buf, "42 dd: block I/O per disk"));
	assert_non_null(strstr(buf, "(the process has exited)"));
	assert_non_null(strstr(buf, "block-layer latency is off: needs root or cap_bpf,cap_perfmon"));

	struct blk_stat st[2] = {
		{.tgid = 42, .disk = "sda", .op = BLK_WRITE, .n = 400, .bytes = 800 << 20, .p50_ns = 150000,
		 .p99_ns = 2000000, .max_ns = 5000000},
		{.tgid = 42, .disk = "nvme0n1", .op = BLK_READ, .n = 1, .bytes = 4096, .p50_ns = 90000, .max_ns = 90000},
	};
	/* Youngest first, as a reading gives them. */
	struct blk_req q[] = {
		{.tgid = 45, .disk = "sda", .issued = 1, .age_ns = 1000000},
		{.tgid = 44, .disk = "sdb", .issued = 1, .age_ns = 1500000},
		{.tgid = 43, .disk = "sda", .issued = 1, .age_ns = 2000000},
		{.tgid = 42, .disk = "sda", .issued = 0, .age_ns = 2500000},
		{.tgid = 42, .disk = "sda", .issued = 1, .age_ns = 3000000},
		{.tgid = 46, .disk = "sda", .issued = 1, .age_ns = 900000000}, /* a leftover */
	};
	s.blk_on = 1;
	s.blk.stats = st;
	s.blk.nstats = 2;
	s.blk.reqs = q;
	s.blk.nreqs = sizeof q / sizeof q[0];
	/* The kernel says 3 requests are issued on sda: the oldest issued
	 * one (46) is a leftover; 42's queued one counts anyway. */
	struct blk_wait w[3];
	assert_int_equal(blklat_waiting(&s.blk, "sda", 3, w, 3), 3);
	assert_int_equal(w[0].tgid, 42);
	assert_int_equal(w[0].inflight, 2);
	assert_int_equal(w[0].oldest_ns, 3000000);
	assert_int_equal(w[1].tgid, 43);
	assert_int_equal(w[2].tgid, 45);
	assert_int_equal(blklat_waiting(&s.blk, "sda", 4, w, 3), 3);
	assert_int_equal(w[0].tgid, 46);
	assert_int_equal(blklat_waiting(&s.blk, "sda", 0, w, 3), 1); /* only the queued one */
	assert_int_equal(w[0].inflight, 1);
	assert_int_equal(blklat_waiting(&s.blk, "sdc", 9, w, 3), 0);
	detail_process(&s, 42, "dd", buf, sizeof buf);
	/* 400 requests over 2 s; 400 MiB/s; p50 and p99 stated. */
	assert_non_null(strstr(buf, "sda          write     200.0"));
	assert_non_null(strstr(buf, "400M"));
	/* One request: no p50 or p99, only the max. */
	char *line = strstr(buf, "nvme0n1      read        0.5");
	assert_non_null(line);
	assert_non_null(strstr(line, "        -         -"));

	struct disk_sample d;
	memset(&d, 0, sizeof d);
	util_strlcpy(d.info.name, "sda", sizeof d.info.name);
	d.in_flight = 3;
	/* the model settles who waits once (every output reads it) */
	s.disks = &d;
	s.ndisks = 1;
	sample_settle_waiting(&s);
	detail_disk(&s, &d, buf, sizeof buf);
	char *wl = strstr(buf, "waiting longest now");
	assert_non_null(wl);
	/* Oldest first, only sda's, at most three. */
	char *a = strstr(wl, "     42 "), *b = strstr(wl, "     43 "), *c = strstr(wl, "     45 ");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_true(a < b && b < c);
	assert_null(strstr(wl, "     44 "));
	assert_null(strstr(wl, "     46 "));
	assert_non_null(strstr(a, "2 in flight, oldest 3.00ms"));
}

/* A table of 10 with room for 5: the entries idle for 2 readings or more
 * go, the longest idle first, no more than down to 5; busy ones stay
 * even if the table stays full. */
static void pick_idle_longest_first(void **state)
{
	(void)state;
	unsigned idle[] = {0, 7, 2, 1, 9, 0, 3, 2, 0, 5};
	unsigned char pick[10];
	assert_int_equal(blklat_pick_idle(idle, 10, 5, 2, pick), 5);
	const unsigned char want[] = {0, 1, 1, 0, 1, 0, 1, 0, 0, 1}; /* 9, 7, 5, 3, then the first of the 2s */
	assert_memory_equal(pick, want, sizeof want);
	/* fewer idle ones than the room asked for: those only */
	unsigned busy[] = {0, 0, 4, 0, 1, 0, 0, 0, 0, 0};
	assert_int_equal(blklat_pick_idle(busy, 10, 5, 2, pick), 1);
	assert_int_equal(pick[2], 1);
	/* a table not above its low mark: none */
	assert_int_equal(blklat_pick_idle(idle, 10, 10, 2, pick), 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(pick[i], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bucket_matches_hist),
		cmocka_unit_test(slot_array_sized_by_tags),
		cmocka_unit_test(diff_subtracts_bucketwise),
		cmocka_unit_test(pick_idle_longest_first),
		cmocka_unit_test(find_proc_by_tgid),
		cmocka_unit_test(top_disk_many_stats),
		cmocka_unit_test(top_disk_of_a_process),
		cmocka_unit_test(detail_texts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
