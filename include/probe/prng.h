/* prng: a small seeded generator (splitmix64 to seed xoshiro256**) for the
 * probe's offsets and pacing jitter: repeatable with --seed, fast, and with
 * an unbiased "below n" so every block of a disk is equally likely. */
#ifndef IOSCHED_PRNG_H
#define IOSCHED_PRNG_H

#include <stdint.h>

struct prng {
	uint64_t s[4];
};

void prng_seed(struct prng *p, uint64_t seed);
uint64_t prng_next(struct prng *p);

/* Uniform in [0, n), n > 0, without modulo bias. */
uint64_t prng_below(struct prng *p, uint64_t n);

/* Uniform in [0, 1). */
double prng_unit(struct prng *p);

/* A random offset for an io_size read: aligned to align, with the whole
 * read inside [0, size). Returns 0 with *off set, -1 when io_size > size
 * or align does not divide io_size. */
int prng_offset(struct prng *p, uint64_t size, uint64_t io_size, uint64_t align, uint64_t *off);

#endif
