/* prng: see include/probe/prng.h */
#include "probe/prng.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void prng_seed(struct prng *p, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		p->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t prng_next(struct prng *p)
{
	uint64_t *s = p->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t prng_below(struct prng *p, uint64_t n)
{
	/* Reject the top sliver that would make low values likelier. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t v;
	do
		v = prng_next(p);
	while (v >= limit);
	return v % n;
}

double prng_unit(struct prng *p)
{
	return (double)(prng_next(p) >> 11) * (1.0 / 9007199254740992.0);
}

int prng_offset(struct prng *p, uint64_t size, uint64_t io_size, uint64_t align, uint64_t *off)
{
	if (align == 0 || io_size == 0 || io_size % align || io_size > size)
		return -1;
	uint64_t slots = (size - io_size) / align + 1;
	*off = prng_below(p, slots) * align;
	return 0;
}
