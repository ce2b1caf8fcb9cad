/* Unit tests: which disks the sampler probes on request, and what it says
 * of one it does not probe (sampleprobes.c), without a device: the reasons
 * in the order they apply (held by an A/B run, no scheduler, size 0,
 * --no-probe, not named with --probe, a kind probed only when named), each
 * with its way out; O on a disk adds its probe and O again stops it; a
 * disk that cannot be probed is refused with its reason; at most
 * SAMPLER_ASKED_MAX disks are asked for; the unprobed status carries the
 * pace and the reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "model/sample.h"
#include "model/sampleparts.h"
#include "base/util.h"

static struct disk_info disk(const char *name, enum disk_kind kind, int nsched, uint64_t size)
{
	struct disk_info d = {.kind = kind, .size_bytes = size, .sched = {.n = nsched, .active = nsched ? 0 : -1}};
	util_strlcpy(d.name, name, sizeof d.name);
	return d;
}

static struct sampler *sampler_with(const struct sampler_config *cfg)
{
	struct sampler *s;
	assert_int_equal(sampler_new(&s, cfg), 0);
	return s;
}

static void why_is(const struct sampler *s, const struct disk_info *d, const char *want)
{
	char buf[256];
	sampler_unprobed_why(s, d, buf, sizeof buf);
	assert_string_equal(buf, want);
}

static void test_reasons_in_order(void **state)
{
	(void)state;
	struct sampler_config cfg = {.probe = 0, .probe_rate_hz = 100};
	struct sampler *s = sampler_with(&cfg);
	struct disk_info sda = disk("sda", DISK_SCSI, 2, 1 << 30);
	why_is(s, &sda, "--no-probe (O probes it)");
	struct disk_info dm = disk("dm-0", DISK_SCSI, 0, 0);
	why_is(s, &dm, "no I/O scheduler on this queue (a stacked device: probe the disks under it)");
	struct disk_info empty = disk("loop3", DISK_SCSI, 2, 0);
	why_is(s, &empty, "size 0: no medium, or a loop device with nothing attached");
	sampler_hold_probe(s, "sda"); /* an A/B run's hold comes first */
	why_is(s, &sda, "held off while the A/B run measures it with its own readers");
	why_is(s, &dm, "no I/O scheduler on this queue (a stacked device: probe the disks under it)");
	sampler_hold_probe(s, NULL);
	why_is(s, &sda, "--no-probe (O probes it)");
	sampler_free(s);

	const char *const named[] = {"vda"};
	cfg = (struct sampler_config){.probe = 1, .probe_only = named, .nprobe_only = 1, .probe_rate_hz = 100};
	s = sampler_with(&cfg);
	why_is(s, &sda, "not named with --probe (--probe sda, or O)");
	sampler_free(s);

	cfg = (struct sampler_config){.probe = 1, .probe_rate_hz = 100};
	s = sampler_with(&cfg);
	char want[160];
	snprintf(want, sizeof want, "%s disks are probed only when named: --probe sda, --disk sda, or O",
		 disk_kind_name(DISK_SCSI));
	why_is(s, &sda, want);
	sampler_free(s);
}

static void test_probe_on_request(void **state)
{
	(void)state;
	struct sampler_config cfg = {.probe = 0, .probe_rate_hz = 50};
	struct sampler *s = sampler_with(&cfg);
	char err[256] = "";
	struct disk_info sda = disk("sda", DISK_SCSI, 2, 1 << 30);
	assert_int_equal(sampler_probe_add(s, &sda, err, sizeof err), 0);
	assert_int_equal(sampler_probe_add(s, &sda, err, sizeof err), 1); /* O again: stopped */
	struct disk_info dm = disk("dm-0", DISK_SCSI, 0, 1 << 30);
	assert_int_equal(sampler_probe_add(s, &dm, err, sizeof err), -1);
	assert_non_null(strstr(err, "no I/O scheduler"));
	/* as many as there is room for, then a refusal that says how many */
	for (int i = 0; i < SAMPLER_ASKED_MAX; i++) {
		char name[16];
		snprintf(name, sizeof name, "sd%c", 'b' + i);
		struct disk_info d = disk(name, DISK_SCSI, 2, 1 << 30);
		assert_int_equal(sampler_probe_add(s, &d, err, sizeof err), 0);
	}
	assert_int_equal(sampler_probe_add(s, &sda, err, sizeof err), -1);
	char want[64];
	snprintf(want, sizeof want, "%d disks probed on request already", SAMPLER_ASKED_MAX);
	assert_string_equal(err, want);
	sampler_free(s);
}

static void test_unprobed_status(void **state)
{
	(void)state;
	struct sampler_config cfg = {.probe = 0, .probe_rate_hz = 25};
	struct sampler *s = sampler_with(&cfg);
	struct disk_info sda = disk("sda", DISK_SCSI, 2, 1 << 30);
	struct probe_status st;
	sampleprobes_unprobed(s, &sda, &st);
	assert_int_equal(st.mode, PROBE_MODE_OFF);
	assert_true(st.rate_hz == 25);
	assert_string_equal(st.why, "--no-probe (O probes it)");
	sampler_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reasons_in_order),
		cmocka_unit_test(test_probe_on_request),
		cmocka_unit_test(test_unprobed_status),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
