/* abstats: what an A/B run lets one conclude, figure by figure, and how
 * sure: the test, its looks, the intervals, the geometric means and the
 * decision (which variant wins, or none), as plain data. The words every
 * report prints from it are out/abwords.h's; the runner asks
 * abstats_settled whether it may stop early.
 *
 * The unit of replication is the phase (one variant's dwell), not the read
 * or the second: the disk wanders from minute to minute, and thousands of
 * reads in one phase all share that phase's luck. Rounds run A B B A and
 * each round holds one phase of every variant, so a round gives one paired
 * log ratio per pair of variants. The test flips the signs of those ratios:
 * under "no difference" each is as likely above 1 as below, whatever shape
 * the disk's noise has (bimodal, heavy-tailed), and the p-value is the share
 * of the 2^n sign patterns whose mean is at least as far from 0 as the one
 * observed. That keeps false positives at or below 5 % per verdict without
 * assuming normal noise (a t test on two pairs that fall in the same mode of
 * a bimodal disk "decides" one time in four). Its price: with n rounds the
 * smallest p-value is 2/2^n, so under 6 rounds nothing can be decided, and
 * the report says so. Drift between positions in A B B A adds +d and -d to
 * alternate rounds: it cancels in the mean and widens the spread, so it only
 * makes the test more careful. An interval is the set of ratios the same
 * test does not reject.
 *
 * A run may stop early. The test looks at the data twice at most: after
 * the fewest rounds that can decide anything (n0: 6 for two variants), and
 * at the rounds the run ended with, when more were planned. The first look
 * may reject only at the smallest p-value n0 rounds can give (2/2^n0, every
 * round agreeing); the last gets what is left of the 5 %. Under "no
 * difference" each look is exact on its own, so the chance that either
 * look names a winner is at most the sum, 5 %, however the run stopped
 * (the union bound): the runner stops after the first look when every
 * figure is decided there, and a verdict decided at the first look keeps
 * that look's figures. A run planned for n0 rounds has one look with all
 * of the 5 %. With k variants all k(k-1)/2 pairs are tested at
 * 5 % / (k(k-1)/2) each (Bonferroni), so naming a best among k is still
 * wrong at most 5 % of the time when all are alike. */
#ifndef IOSCHED_ABSTATS_H
#define IOSCHED_ABSTATS_H

#include <stddef.h>

#include "model/abdata.h"

#define ABV_ALPHA 0.05              /* false positives allowed per verdict */
#define ABV_STALL_FLOOR 0.01        /* stall shares under 1 % of the time count as 1 % */
#define ABV_WIDE 2.0                /* a loss this many times over is wide */
#define ABV_MAX_ROUNDS 100          /* as --rounds allows */

/* The readers: the tool's steady, fresh and paced readers, the cold
 * starts of --startup's command (measured only when it is given); and in
 * a live A/B (--ab-live) the user's own programs: their reads of the disk
 * (the BPF part) and the disk's writes. A live run measures the paced
 * probe and the user's; a built-in one the tool's readers (abstats_reader_used). */
enum abv_reader { ABV_STEADY, ABV_FRESH, ABV_PACED, ABV_START, ABV_YOURS, ABV_WRITES, ABV_NREADERS };

/* The figures that decide, each standing for one reader's experience. */
enum abv_fig { ABV_RPS, ABV_STALL, ABV_JOB, ABV_P50, ABV_P99, ABV_COLD, ABV_YP50, ABV_YP99, ABV_WMB, ABV_NFIGS };

struct abv_fig_info {
	const char *key;            /* JSON's "figure": reads_per_s ... */
	enum abv_reader reader;
	int higher_better;
};

/* The figures, indexed by enum abv_fig; the readers' keys ("steady",
 * JSON's "profile") by enum abv_reader. */
const struct abv_fig_info *abstats_fig(enum abv_fig f);
const char *abstats_reader_name(enum abv_reader r);

/* Whether a run of cfg measures reader rd (figure f): the cold starts only
 * with --startup, the user's programs only live, the tool's steady and
 * fresh readers only in a built-in run. The outputs leave out what a run
 * does not measure. */
int abstats_reader_used(const struct ab_config *cfg, enum abv_reader rd);
int abstats_fig_used(const struct ab_config *cfg, enum abv_fig f);

/* Variant a against variant b on one figure. ratio: how many times a is
 * better than b (above 1: a better), the geometric mean of the rounds'
 * ratios; lo-hi its interval, NAN when too few rounds bound it. */
struct abv_cmp {
	int npairs;
	int look;                   /* the rounds the look that gave this used: 1..look */
	double ratio, lo, hi;
	double p;
	int decided;                /* p <= the pair's alpha and 1 outside lo-hi */
	double spread;              /* standard deviation of the log ratios; NAN under 2 */
};

/* A round left out of a comparison, and why. */
struct abv_gap {
	int round;
	int variant;                /* whose phase lacked the figure; -1: the run stopped before the round's phases */
	unsigned long long paced_n; /* that phase's paced reads (a p99 needs 100) */
};
#define ABV_MAX_GAPS ABV_MAX_ROUNDS

struct abv_verdict {
	enum abv_fig fig;
	int leader;                 /* ahead on the paired ratios; -1: not measured */
	int against;                /* the closest other variant; -1: none */
	int best;                   /* leader when decided against every other; -1 */
	struct abv_cmp c;           /* leader against `against` */
	/* Each variant's geometric mean over the rounds c used (a stall share
	 * under ABV_STALL_FLOOR counts as the floor): their ratio is c.ratio,
	 * so a sentence's two figures and its ratio are one estimate. */
	double val_leader, val_against;
	int rounds_needed;          /* 0: decided, or nothing to say; > ABV_MAX_ROUNDS: more than it */
	double target;              /* the difference rounds_needed is for */
	int all_decided;            /* the leader decided ahead of every other variant measured */
	int pooled_agrees;          /* the pooled figures point the same way as the rounds */
	/* Rounds 1..c.look that gave leader against `against` no pair: which
	 * (ngaps of them; the first ABV_MAX_GAPS kept) */
	int ngaps;
	struct abv_gap gap[ABV_MAX_GAPS];
	int phases_with, phases_total; /* loaded phases that gave this figure, of all (a figure not measured) */
};

struct abv_reader_verdict {
	int best;                   /* better on every figure of the reader, decided; -1 */
	int tradeoff;               /* a figure decided for one variant, another for another or lost widely */
};

struct abv_report {
	size_t nv;
	int aa;                     /* every variant the same setting: an A/A */
	int live;                   /* a live run: the user's own load (ab_config.live) */
	int rounds;                 /* rounds with every variant measured */
	double alpha;               /* per pair of variants */
	int min_pairs;              /* rounds needed before anything can be decided */
	int nlooks;                 /* looks at the data: 1, or 2 when more rounds ran than the first look */
	int look[2];                /* rounds at each look */
	double look_alpha[2];       /* the share of alpha each look spends */
	double level;               /* the attained false-positive bound per verdict, over the looks */
	struct abv_verdict v[ABV_NFIGS];
	struct abv_reader_verdict reader[ABV_NREADERS];
	struct abv_cmp pair[AB_MAX_VARIANTS][AB_MAX_VARIANTS][ABV_NFIGS];
	double pooled[AB_MAX_VARIANTS][ABV_NFIGS];
	double own_spread[AB_MAX_VARIANTS][ABV_NFIGS]; /* max/min of a variant's own phases; NAN under 2 */
	double noise[ABV_NFIGS];    /* the widest own_spread of any variant; NAN: none */
	double smallest[ABV_NFIGS]; /* the smallest ratio these rounds could decide; NAN: none */
};

/* One figure of one phase; NAN when the phase cannot give it (a p99 needs
 * 100 reads). */
double abstats_phase_value(const struct ab_phase *p, enum abv_fig f);

/* The fewest rounds that can decide anything among nv variants: the
 * sign-flip test's smallest p-value over n rounds is 2/2^n. */
int abstats_min_rounds(size_t nv);

/* Everything a report says about the run, as data. Returns 0, or -1
 * without memory. cfg->rounds is the rounds planned (it sets the looks). */
int abstats_compute(const struct ab_config *cfg, const struct ab_result *res, struct abv_report *out);

/* Whether a run may stop now: it has just completed its first look, more
 * rounds were planned, and every measured figure was decided there. */
int abstats_settled(const struct ab_config *cfg, const struct ab_result *res);

#endif
