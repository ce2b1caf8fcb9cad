/* ablive: see include/act/ablive.h */
#include "act/ablive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "act/tune.h"
#include "bpf/blklat.h"
#include "model/abstats.h"
#include "probe/prng.h"
#include "read/writeback.h"
#include "base/util.h"

struct ablive {
	struct blklat *bl;          /* NULL: the user's reads are not timed (res->yours says why) */
	struct blk_reading rd;
	struct blk_pool pool;
	double next_read;
	int excluded;               /* the probe reader's pid, once known */
	int lead_rounds;            /* the rounds lead[] was worked out for */
	char lead[160];
};

void ablive_order(uint64_t seed, int round, size_t nv, int *out)
{
	struct prng g;
	prng_seed(&g, seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(round + 1)));
	for (size_t i = 0; i < nv; i++)
		out[i] = (int)i;
	for (size_t i = nv; i > 1; i--) { /* Fisher-Yates: each order as likely */
		size_t j = (size_t)prng_below(&g, i);
		int t = out[i - 1];
		out[i - 1] = out[j];
		out[j] = t;
	}
}

void ablive_defaults(const struct ab_config *cfg, double *dwell_s, double *washout_s)
{
	int bfq = 0;
	for (size_t i = 0; i < cfg->nv; i++)
		bfq |= !strcmp(cfg->v[i].sched, "bfq");
	*dwell_s = bfq ? ABLIVE_BFQ_SLOT_S : ABLIVE_SLOT_S;
	*washout_s = bfq ? ABLIVE_BFQ_WASHOUT_S : ABLIVE_WASHOUT_S;
}

int ablive_begin(const struct ab_config *cfg, struct ab_result *res, struct ablive **out)
{
	struct ablive *l = calloc(1, sizeof *l);
	if (!l)
		return -1;
	char why[200];
	util_strlcpy(l->lead, "no round complete yet", sizeof l->lead);
	if (cfg->no_bpf) {
		util_strlcpy(res->yours, "not measured (--no-bpf); the probe and the disk's rates decide alone",
			     sizeof res->yours);
	} else if (blklat_open(&l->bl, why, sizeof why) < 0) {
		util_fmt(res->yours, sizeof res->yours, "not measured: %s; the probe and the disk's rates decide alone",
			 why);
	} else if (blklat_pool(l->bl, cfg->disk) < 0) {
		blklat_close(l->bl);
		l->bl = NULL;
		util_strlcpy(res->yours, "not measured: out of memory", sizeof res->yours);
	} else {
		/* From submission, the wait a scheduler decides is in the
		 * figure; from issue (older kernels) it is not, and the
		 * figure says so. */
		if (blklat_pool_from_submission(l->bl))
			util_fmt(res->yours, sizeof res->yours,
				 "every read of %s by a process other than the probe's, timed from its submission to "
				 "its completion, queue and tag waits included (the BPF part)", cfg->disk);
		else
			util_fmt(res->yours, sizeof res->yours,
				 "every read of %s but the probe's, timed from issue to the driver to completion: the "
				 "scheduler's queue is left out (this kernel's block_bio_queue cannot be used)", cfg->disk);
	}
	*out = l;
	return 0;
}

void ablive_exclude(struct ablive *l, int pid)
{
	if (!l || pid <= 0 || pid == l->excluded)
		return;
	l->excluded = pid;
	blklat_watch(l->bl, &pid, 1);
}

/* Drain the maps now: the pool gains what was read since. */
static void drain(struct ablive *l, double now)
{
	if (!l->bl)
		return;
	blklat_read(l->bl, &l->rd);
	l->next_read = now + ABLIVE_READ_S;
}

void ablive_tick(struct ablive *l, double now)
{
	if (l && l->bl && now >= l->next_read)
		drain(l, now);
}

void ablive_slot_begin(struct ablive *l)
{
	if (!l || !l->bl)
		return;
	drain(l, util_mono_now());
	blklat_pool_take(l->bl, &l->pool); /* the washout's reads: left out */
}

/* The AB_TOPS names with most reads in the pool, into p. */
static void tops(const struct blk_pool *pool, struct ab_phase *p)
{
	int used[BLK_POOL_NAMES] = {0};
	p->ntop = 0;
	for (int k = 0; k < AB_TOPS; k++) {
		size_t best = BLK_POOL_NAMES;
		for (size_t i = 0; i < pool->nnames; i++)
			if (!used[i] && pool->name[i].h.n && (best == BLK_POOL_NAMES || pool->name[i].h.n > pool->name[best].h.n))
				best = i;
		if (best == BLK_POOL_NAMES)
			return;
		used[best] = 1;
		struct ab_top *t = &p->top[p->ntop++];
		util_strlcpy(t->comm, pool->name[best].comm, sizeof t->comm);
		t->n = pool->name[best].h.n;
		t->p50_us = hist_quantile_us(&pool->name[best].h, 0.5);
		t->p99_us = hist_quantile_us(&pool->name[best].h, 0.99);
	}
}

void ablive_slot_end(struct ablive *l, struct ab_phase *p)
{
	struct writeback_info wb;
	p->dirty_MB = writeback_read(&wb) == 0 ? (double)wb.dirty_kB / 1024.0 : NAN;
	if (!l || !l->bl)
		return;
	drain(l, util_mono_now());
	blklat_pool_take(l->bl, &l->pool);
	p->yours = l->pool.all;
	p->yours_on = 1;
	tops(&l->pool, p);
}

int ablive_guard_switch(struct ablive *l, const char *disk, const char *sched, struct ab_result *res, char *err,
			size_t len)
{
	(void)l;
	char now[48];
	if (tune_read(disk, TUNE_SCHEDULER, "scheduler", now, sizeof now) < 0 || !strcmp(now, sched))
		return 0;
	util_fmt(res->stopped, sizeof res->stopped,
		 "%s was switched to %s from outside the tool while the run had it on %s: the run stopped, and %s goes "
		 "back to %s", disk, now, sched, disk, res->original);
	util_strlcpy(err, res->stopped, len);
	return -1;
}

/* The first round's probe p99s' median: the run's own yardstick. */
static double first_p99(const struct ab_config *cfg, const struct ab_result *res)
{
	double v[AB_MAX_VARIANTS];
	int n = 0;
	for (size_t i = 0; i < res->nphases && n < AB_MAX_VARIANTS; i++)
		if (res->phases[i].round == 1) {
			double x = abstats_phase_value(&res->phases[i], ABV_P99);
			if (!isnan(x))
				v[n++] = x;
		}
	(void)cfg;
	return util_median(v, n);
}

int ablive_guard_slot(const struct ab_config *cfg, struct ab_result *res, const struct ab_phase *p, char *err,
		      size_t len)
{
	double base = first_p99(cfg, res), now = abstats_phase_value(p, ABV_P99);
	if (p->round <= 1 || isnan(base) || isnan(now) || base <= 0 || now <= ABLIVE_BLOWUP * base)
		return 0;
	util_fmt(res->stopped, sizeof res->stopped,
		 "the probe's p99 on %s was %.1f ms in round %d under %s, over %.0f times the first round's %.1f ms: "
		 "the run stopped, and %s goes back to %s", cfg->disk, now / 1e3, p->round, cfg->v[p->variant].text,
		 ABLIVE_BLOWUP, base / 1e3, cfg->disk, res->original);
	util_strlcpy(err, res->stopped, len);
	return -1;
}

const char *ablive_lead(struct ablive *l, const struct ab_config *cfg, const struct ab_result *res)
{
	int rounds = res->nphases ? res->phases[res->nphases - 1].round : 0;
	if (!l || rounds == l->lead_rounds)
		return l ? l->lead : "";
	l->lead_rounds = rounds;
	struct abv_report *r = malloc(sizeof *r);
	if (!r || abstats_compute(cfg, res, r) < 0) {
		free(r);
		return l->lead;
	}
	enum abv_fig f = r->v[ABV_YP99].leader >= 0 ? ABV_YP99 : ABV_P99;
	const struct abv_verdict *v = &r->v[f];
	if (v->leader < 0 || isnan(v->c.ratio))
		util_strlcpy(l->lead, "no lead yet", sizeof l->lead);
	else
		util_fmt(l->lead, sizeof l->lead, "%s ahead %.2fx for %s, %s", cfg->v[v->leader].text, v->c.ratio,
			 f == ABV_YP99 ? "your reads' p99" : "the probe's p99",
			 v->best >= 0 ? "decided" : "not decided yet");
	free(r);
	return l->lead;
}

void ablive_end(struct ablive *l)
{
	if (!l)
		return;
	blklat_close(l->bl);
	blk_reading_free(&l->rd);
	free(l);
}
