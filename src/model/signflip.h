/* signflip: the A/B's test (abstats.c says why this one): paired log
 * ratios, their signs flipped over all 2^n patterns (a fixed sample above
 * 12 rounds), the p-value the share at least as far from 0 as observed,
 * and the interval the set of ratios the same test does not reject. Used
 * by abstats.c alone. */
#ifndef IOSCHED_SIGNFLIP_H
#define IOSCHED_SIGNFLIP_H

#include "model/abstats.h"

/* n paired log ratios d (a's goodness less b's) at level alpha: ratio,
 * p, interval and decision into c; nothing is decided under min_pairs. */
void signflip_compare(const double *d, int n, double alpha, int min_pairs, struct abv_cmp *c);

/* b against a from a against b: the same test, the ratios turned over. */
void signflip_mirror(const struct abv_cmp *ab, struct abv_cmp *ba);

/* The normal quantile z with P(|Z| > z) = a. */
double signflip_z(double a);

/* The largest p-value n rounds can give that is still at or under alpha. */
double signflip_attained(double alpha, int n);

#endif
