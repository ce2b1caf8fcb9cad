/* ablive: what an A/B on the user's own load (--ab-live) adds to the
 * runner of ab.h: a switchback design. Each round holds one slot per
 * variant, in an order a seeded coin draws anew for every round (a fixed
 * A B B A would line up with a load that alternates, as a build's phases
 * may); after each switch a washout is left out (a switch drains the queue,
 * kyber re-tunes its depths, bfq's boost of new readers lasts seconds).
 * Measured per slot, beside the paced probe the runner keeps: the reads of
 * the user's programs on the disk at the block layer (the BPF part, the
 * probe's reader left out), the busiest of them by name, and the dirty page
 * cache. Two guards end a run at once, the original scheduler going back
 * as at every end: a switch made outside the tool, and a slot whose probe
 * p99 is over ABLIVE_BLOWUP times the first round's. */
#ifndef IOSCHED_ABLIVE_H
#define IOSCHED_ABLIVE_H

#include <stddef.h>
#include <stdint.h>

#include "model/abdata.h"

#define ABLIVE_BLOWUP 10.0          /* a slot's probe p99 over this many times the first round's: stop */
#define ABLIVE_READ_S 0.5           /* how often the BPF maps are drained (their LRU keeps what is read) */
#define ABLIVE_SLOT_S 4.0           /* the slot measured, and its washout, by default */
#define ABLIVE_WASHOUT_S 1.0
#define ABLIVE_BFQ_SLOT_S 10.0      /* where bfq is one side: its boost lasts 3 to 13 s after a switch */
#define ABLIVE_BFQ_WASHOUT_S 5.0

struct ablive;

/* The order of the variants in round r (0-based): a permutation drawn
 * from seed and r alone, so a run is repeatable with --seed. */
void ablive_order(uint64_t seed, int round, size_t nv, int *out);

/* The default slot and washout for cfg's variants (longer where bfq is
 * one of them). */
void ablive_defaults(const struct ab_config *cfg, double *dwell_s, double *washout_s);

/* Begin: the BPF part loaded to time the user's reads, or res->yours says
 * why not (the run goes on with the probe and the disk's rates). Returns
 * 0, or -1 without memory. */
int ablive_begin(const struct ab_config *cfg, struct ab_result *res, struct ablive **out);

/* The probe's reader: its reads are not the user's. */
void ablive_exclude(struct ablive *l, int pid);

/* Call every step: drains the BPF maps every ABLIVE_READ_S. */
void ablive_tick(struct ablive *l, double now);

/* The slot's measured part begins (what the washout read is dropped), and
 * ends: the user's reads, the busiest readers and the dirty page cache
 * into p. */
void ablive_slot_begin(struct ablive *l);
void ablive_slot_end(struct ablive *l, struct ab_phase *p);

/* The guards, while a slot runs and when it ends: 0 to go on, or -1 with
 * why in err (and in res->stopped). sched is the variant's scheduler, in
 * force since the switch. */
int ablive_guard_switch(struct ablive *l, const char *disk, const char *sched, struct ab_result *res, char *err,
			size_t len);
int ablive_guard_slot(const struct ab_config *cfg, struct ab_result *res, const struct ab_phase *p, char *err,
		      size_t len);

/* "kyber ahead 1.4x for your reads, not decided yet" after the rounds so
 * far (the verdicts' words, kept until the next round completes). */
const char *ablive_lead(struct ablive *l, const struct ab_config *cfg, const struct ab_result *res);

void ablive_end(struct ablive *l);

#endif
