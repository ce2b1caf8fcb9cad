/* Unit tests: scheduler strings, PSI text, disk kinds, size formatting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/disk.h"
#include "model/sample.h"
#include "read/psi.h"
#include "read/sched.h"
#include "base/util.h"
#include "read/writeback.h"

static void test_sched_typical(void **state)
{
	(void)state;
	struct sched_list s;
	assert_int_equal(sched_parse("none [mq-deadline] kyber bfq \n", &s), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.active, 1);
	assert_string_equal(sched_active(&s), "mq-deadline");
	assert_string_equal(s.names[3], "bfq");
	char buf[128];
	sched_format(&s, buf, sizeof buf);
	assert_string_equal(buf, "none [mq-deadline] kyber bfq");
}

static void test_sched_first_and_last(void **state)
{
	(void)state;
	struct sched_list s;
	assert_int_equal(sched_parse("[none] mq-deadline kyber bfq ", &s), 0);
	assert_string_equal(sched_active(&s), "none");
	assert_int_equal(sched_parse("none mq-deadline kyber [bfq]", &s), 0);
	assert_string_equal(sched_active(&s), "bfq");
	assert_int_equal(s.n, 4);
}

static void test_sched_no_brackets_and_empty(void **state)
{
	(void)state;
	struct sched_list s;
	char buf[64];
	assert_int_equal(sched_parse("none", &s), 0);
	assert_int_equal(s.n, 1);
	assert_null(sched_active(&s));
	assert_int_equal(sched_parse("", &s), 0);
	assert_int_equal(s.n, 0);
	sched_format(&s, buf, sizeof buf);
	assert_string_equal(buf, "-");
	assert_int_equal(sched_parse(" \n", &s), 0);
	assert_int_equal(s.n, 0);
}

static void test_sched_malformed(void **state)
{
	(void)state;
	struct sched_list s;
	assert_int_equal(sched_parse("[none] [bfq]", &s), -EINVAL);    /* two active */
	assert_int_equal(sched_parse("[none mq-deadline", &s), -EINVAL);
	assert_int_equal(sched_parse("none] bfq", &s), -EINVAL);
	assert_int_equal(sched_parse("[]", &s), -EINVAL);
	assert_int_equal(sched_parse("a-name-far-too-long-for-the-kernel", &s), -EINVAL);
	assert_int_equal(sched_parse("a b c d e f g h i", &s), -EINVAL); /* > SCHED_MAX */
	/* A failed parse leaves nothing half-filled. */
	assert_int_equal(s.n, 0);
	assert_int_equal(s.active, -1);
}

static void test_psi(void **state)
{
	(void)state;
	struct psi p;
	assert_int_equal(psi_read(SRCDIR "/tests/fixtures/pressure-io.txt", &p), 0);
	assert_true(p.have_some && p.have_full);
	assert_float_equal(p.some.avg10, 0.56, 1e-9);
	assert_float_equal(p.full.avg300, 0.07, 1e-9);
	assert_int_equal(p.full.total_us, 338976);
	/* Older kernels' CPU-style file has no "full" line. */
	assert_int_equal(psi_parse("some avg10=1.00 avg60=2.00 avg300=3.00 total=4\n", &p), 0);
	assert_false(p.have_full);
	assert_int_equal(psi_parse("garbage\n", &p), -EINVAL);
	assert_int_equal(psi_parse("", &p), -EINVAL);
	assert_int_equal(psi_read("/nonexistent/pressure", &p), -ENOENT);
}

static void test_classify(void **state)
{
	(void)state;
	assert_int_equal(disk_classify("nvme0n1", "nvme", NULL, NULL), DISK_NVME);
	assert_int_equal(disk_classify("sda", "sd", NULL, "/sys/devices/pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/sda"), DISK_SCSI);
	assert_int_equal(disk_classify("sdb", "sd", NULL, "/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/block/sdb"), DISK_USB);
	assert_int_equal(disk_classify("sdc", NULL, "usb", NULL), DISK_USB);
	assert_int_equal(disk_classify("vda", "virtio_blk", NULL, NULL), DISK_VIRTIO);
	assert_int_equal(disk_classify("mmcblk0", "mmcblk", NULL, NULL), DISK_MMC);
	assert_int_equal(disk_classify("loop3", NULL, NULL, NULL), DISK_LOOP);
	assert_int_equal(disk_classify("dm-0", NULL, NULL, NULL), DISK_DM);
	assert_int_equal(disk_classify("md127", NULL, NULL, NULL), DISK_MD);
	assert_int_equal(disk_classify("zram0", NULL, NULL, NULL), DISK_ZRAM);
	assert_int_equal(disk_classify("nbd0", NULL, NULL, NULL), DISK_OTHER);
	assert_string_equal(disk_kind_name(DISK_SCSI), "sata/scsi");
	assert_string_equal(disk_kind_name((enum disk_kind)99), "other");
}

/* The disks a laptop has by the dozen are left out of the default list:
 * read-only or squashfs loop devices (snaps), zram, RAM disks, dm and md;
 * a loop device the user made (read-write, a plain file) and real disks
 * stay. */
static void test_hidden(void **state)
{
	(void)state;
	struct disk_info d;
	char why[48];
	memset(&d, 0, sizeof d);
	strcpy(d.name, "loop3");
	d.kind = DISK_LOOP;
	assert_true(disk_why_hidden(&d, 1, "/var/lib/snapd/snaps/core22_1122.snap", why, sizeof why));
	assert_string_equal(why, "a read-only loop device");
	assert_true(disk_why_hidden(&d, 0, "/cdrom/casper/filesystem.squashfs", why, sizeof why));
	assert_true(disk_why_hidden(&d, 0, "/var/lib/snapd/snaps/x.snap", why, sizeof why));
	assert_false(disk_why_hidden(&d, 0, "/var/tmp/test.img", why, sizeof why));
	assert_string_equal(why, "");
	assert_false(disk_why_hidden(&d, 0, NULL, why, sizeof why));
	assert_true(disk_is_virtual(&d));
	strcpy(d.name, "zram0");
	d.kind = DISK_ZRAM;
	assert_true(disk_why_hidden(&d, 0, NULL, why, sizeof why));
	strcpy(d.name, "ram0");
	d.kind = DISK_OTHER;
	assert_true(disk_why_hidden(&d, 0, NULL, why, sizeof why));
	assert_true(disk_is_virtual(&d));
	strcpy(d.name, "dm-0");
	d.kind = DISK_DM;
	assert_true(disk_why_hidden(&d, 0, NULL, why, sizeof why));
	strcpy(d.name, "nvme0n1");
	d.kind = DISK_NVME;
	assert_false(disk_why_hidden(&d, 1, NULL, why, sizeof why)); /* a read-only real disk is still shown */
	assert_false(disk_is_virtual(&d));
}

static void test_cut_mark(void **state)
{
	(void)state;
	char s[64];
	strcpy(s, "short");
	assert_false(util_cut_mark(s, 10, 1));
	assert_string_equal(s, "short");
	strcpy(s, "a longer line of text");
	assert_true(util_cut_mark(s, 10, 1));
	assert_string_equal(s, "a longer \u2026"); /* 9 bytes and the mark: 10 columns */
	strcpy(s, "a longer line of text");
	assert_true(util_cut_mark(s, 10, 0));
	assert_string_equal(s, "a longer ~");
	strcpy(s, "caf\xc3\xa9 au lait"); /* not cut inside the two bytes of an e-acute */
	assert_true(util_cut_mark(s, 5, 0));
	assert_string_equal(s, "caf~");
	strcpy(s, "x");
	assert_true(util_cut_mark(s, 0, 1));
	assert_string_equal(s, "");
}

static void test_size_format(void **state)
{
	(void)state;
	char b[16];
	util_format_size(0, b, sizeof b);
	assert_string_equal(b, "0B");
	util_format_size(274877906944ULL, b, sizeof b);
	assert_string_equal(b, "256G");
	util_format_size(1932735283ULL, b, sizeof b); /* 1.8 GiB */
	assert_string_equal(b, "1.8G");
	util_format_size(512ULL << 20, b, sizeof b);
	assert_string_equal(b, "512M");
}

static void test_parse_u64(void **state)
{
	(void)state;
	uint64_t v;
	assert_int_equal(util_parse_u64(" 128\n", &v), 0);
	assert_int_equal(v, 128);
	assert_int_equal(util_parse_u64("-1", &v), -EINVAL);
	assert_int_equal(util_parse_u64("12abc", &v), -EINVAL);
	assert_int_equal(util_parse_u64("", &v), -EINVAL);
	assert_int_equal(util_parse_u64("99999999999999999999999", &v), -ERANGE);
}

static void test_parse_size(void **state)
{
	(void)state;
	uint64_t v;
	assert_int_equal(util_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(util_parse_size("4k", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(util_parse_size("1G", &v), 0);
	assert_int_equal(v, 1ull << 30);
	assert_int_equal(util_parse_size("16MiB", &v), 0);
	assert_int_equal(v, 16ull << 20);
	assert_int_equal(util_parse_size("512B", &v), 0);
	assert_int_equal(v, 512);
	assert_int_equal(util_parse_size("", &v), -EINVAL);
	assert_int_equal(util_parse_size("k", &v), -EINVAL);
	assert_int_equal(util_parse_size("4x", &v), -EINVAL);
	assert_int_equal(util_parse_size("-4k", &v), -EINVAL);
	assert_int_equal(util_parse_size("99999999999T", &v), -ERANGE);
}

static void test_format_latency(void **state)
{
	(void)state;
	char b[16];
	util_format_latency(8400, b, sizeof b);
	assert_string_equal(b, "8.4us");
	util_format_latency(812000, b, sizeof b);
	assert_string_equal(b, "812us");
	util_format_latency(3810000, b, sizeof b);
	assert_string_equal(b, "3.81ms");
	util_format_latency(41200000, b, sizeof b);
	assert_string_equal(b, "41.2ms");
	util_format_latency(1250000000, b, sizeof b);
	assert_string_equal(b, "1.25s");
}

static void test_warnings(void **state)
{
	(void)state;
	struct disk_sample *d = calloc(1, sizeof *d);
	char w[128];
	d->info.kind = DISK_SCSI;
	d->info.rotational = 1;
	assert_int_equal(sched_parse("none [mq-deadline] kyber bfq", &d->info.sched), 0);
	sample_warning(d, w, sizeof w);
	assert_string_equal(w, "");
	assert_int_equal(sched_parse("none mq-deadline [kyber] bfq", &d->info.sched), 0);
	sample_warning(d, w, sizeof w);
	assert_non_null(strstr(w, "kyber on a rotational disk"));
	d->info.kind = DISK_LOOP; /* a loop device's flag is its backing file's */
	sample_warning(d, w, sizeof w);
	assert_string_equal(w, "");
	d->info.kind = DISK_NVME;
	d->info.rotational = 0;
	assert_int_equal(sched_parse("none mq-deadline kyber [bfq]", &d->info.sched), 0);
	d->have_rates = 1;
	d->io.r_s = 90000;
	sample_warning(d, w, sizeof w);
	assert_string_equal(w, "");
	d->io.w_s = 20000;
	sample_warning(d, w, sizeof w);
	assert_non_null(strstr(w, "bfq at 110k IOPS"));
	d->info.zoned = 1;
	sample_warning(d, w, sizeof w);
	assert_non_null(strstr(w, "zoned disk on bfq"));
	assert_int_equal(sched_parse("none [mq-deadline]", &d->info.sched), 0);
	sample_warning(d, w, sizeof w);
	assert_string_equal(w, "");
	free(d);
}

static void test_meminfo(void **state)
{
	(void)state;
	char buf[4096];
	struct writeback_info w = {0};
	assert_true(util_read_text(SRCDIR "/tests/fixtures/meminfo.txt", buf, sizeof buf) > 0);
	assert_int_equal(writeback_parse_meminfo(buf, &w), 0);
	assert_int_equal(w.dirty_kB, 183244);
	assert_int_equal(w.writeback_kB, 20480); /* not WritebackTmp */
	assert_true(w.ok);
	assert_int_equal(writeback_parse_meminfo("MemTotal: 1 kB\nDirty: 5 kB\n", &w), -EINVAL);
	assert_false(w.ok);
	assert_int_equal(writeback_parse_meminfo("", &w), -EINVAL);
}

/* A FIFO where a file was (a theme swapped in a shared directory) is
 * refused at once, never waited on; a directory too. */
static void test_read_text_regular_only(void **state)
{
	(void)state;
	char dir[] = "/tmp/iosched-parsers.XXXXXX", fifo[64], buf[64];
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof fifo, "%s/f", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(util_read_text(fifo, buf, sizeof buf), -EINVAL); /* blocked forever before */
	assert_int_equal(util_read_text(dir, buf, sizeof buf), -EINVAL);
	assert_true(util_read_text("/proc/loadavg", buf, sizeof buf) > 0);
	unlink(fifo);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_typical),   cmocka_unit_test(test_sched_first_and_last),
		cmocka_unit_test(test_sched_no_brackets_and_empty), cmocka_unit_test(test_sched_malformed),
		cmocka_unit_test(test_psi),             cmocka_unit_test(test_classify),
		cmocka_unit_test(test_hidden),
		cmocka_unit_test(test_cut_mark),
		cmocka_unit_test(test_size_format),     cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_size),      cmocka_unit_test(test_format_latency),
		cmocka_unit_test(test_warnings),        cmocka_unit_test(test_meminfo),
		cmocka_unit_test(test_read_text_regular_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
