/* blkpool: the live A/B's pool of a disk's reads keeps the busiest
 * readers by name even when other names filled its table first (any user
 * can start programs with made-up names that read a little). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "bpf/blklat.h"

static struct hist reads(int n)
{
	struct hist h;
	hist_reset(&h);
	for (int i = 0; i < n; i++)
		hist_add(&h, 1000000);
	return h;
}

static const struct blk_pool_name *named(const struct blk_pool *p, const char *comm)
{
	for (size_t i = 0; i < p->nnames; i++)
		if (!strcmp(p->name[i].comm, comm))
			return &p->name[i];
	return NULL;
}

static void test_busy_reader_gets_in(void **state)
{
	(void)state;
	struct blk_pool p;
	memset(&p, 0, sizeof p);
	struct hist one = reads(1), many = reads(40);
	for (int i = 0; i < BLK_POOL_NAMES; i++) {
		char name[16];
		snprintf(name, sizeof name, "fake%d", i);
		blkpool_add(&p, name, &one, 4096);
	}
	assert_int_equal(p.nnames, BLK_POOL_NAMES);
	for (int k = 0; k < 3; k++)
		blkpool_add(&p, "cc1", &many, 40 * 4096);
	const struct blk_pool_name *cc1 = named(&p, "cc1");
	assert_non_null(cc1);
	assert_int_equal(cc1->h.n, 120);
	assert_int_equal(p.nnames, BLK_POOL_NAMES);
	assert_int_equal(p.other_n, 1);
	assert_int_equal(p.all.n, BLK_POOL_NAMES + 120);
	/* a name with as few reads as the least does not push it out */
	blkpool_add(&p, "late", &one, 4096);
	assert_null(named(&p, "late"));
	assert_int_equal(p.other_n, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busy_reader_gets_in),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
