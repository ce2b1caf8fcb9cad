/* Unit tests: mountinfo and cgroup — the mount table's lines (optional
 * fields, escapes, the filesystem type), the v2 path of /proc/PID/cgroup
 * on hybrid and v1-only machines, the names users know cgroups by
 * (units, sessions, containers shortened), parents, the controllers list,
 * and io.stat summed over the devices a filter takes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "read/cgroup.h"
#include "read/mountinfo.h"

static void test_mountinfo(void **state)
{
	(void)state;
	struct mountinfo_entry m;
	assert_int_equal(mountinfo_parse("29 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n",
					 &m), 0);
	assert_int_equal(m.major, 253);
	assert_int_equal(m.minor, 1);
	assert_string_equal(m.point, "/");
	assert_string_equal(m.fstype, "ext4");
	assert_string_equal(m.source, "/dev/vda1");
	assert_string_equal(m.opts, "rw,relatime");
	/* no optional field; an escaped blank in the mount point */
	assert_int_equal(mountinfo_parse("40 25 0:35 / /sys/fs/cgroup/my\\040dir rw,nosuid - cgroup2 cgroup2 rw\n", &m),
			 0);
	assert_string_equal(m.point, "/sys/fs/cgroup/my dir");
	assert_string_equal(m.fstype, "cgroup2");
	assert_int_equal(mountinfo_parse("garbage\n", &m), -1);
	assert_int_equal(mountinfo_parse("1 2 3:4 / /x rw\n", &m), -1); /* no " - " */
}

static void test_proc_cgroup(void **state)
{
	(void)state;
	char p[256];
	const char *hybrid = "9:name=systemd:/\n7:blkio:/\n0::/system.slice/cron.service\n";
	assert_int_equal(cgroup_parse_proc(hybrid, p, sizeof p), 0);
	assert_string_equal(p, "/system.slice/cron.service");
	assert_int_equal(cgroup_parse_proc("0::/\n", p, sizeof p), 0);
	assert_string_equal(p, "/");
	assert_int_equal(cgroup_parse_proc("0::/a.slice/b.service", p, sizeof p), 0); /* no newline */
	assert_string_equal(p, "/a.slice/b.service");
	assert_int_equal(cgroup_parse_proc("7:blkio:/\n4:memory:/x\n", p, sizeof p), -ENOENT); /* v1 only */
	assert_int_equal(cgroup_parse_proc("", p, sizeof p), -ENOENT);
	assert_int_equal(cgroup_parse_proc("0::\n", p, sizeof p), -ENOENT);
	char small[8];
	/* never cut: "/system" could be another cgroup */
	assert_int_equal(cgroup_parse_proc("0::/system.slice/cron.service\n", small, sizeof small), -ENAMETOOLONG);
	assert_int_equal(cgroup_parse_proc("0::/system\n", small, sizeof small), 0);
	assert_string_equal(small, "/system");
}

static void name_is(const char *path, const char *want)
{
	char n[128];
	cgroup_unit_name(path, n, sizeof n);
	assert_string_equal(n, want);
}

static void test_unit_names(void **state)
{
	(void)state;
	name_is("/system.slice/apt-daily-upgrade.service", "apt-daily-upgrade.service");
	name_is("/user.slice/user-1000.slice/session-2.scope", "session-2.scope");
	name_is("/user.slice/user-1000.slice/user@1000.service", "user@1000.service");
	name_is("/init.scope", "init.scope");
	name_is("/", "/");
	name_is("", "/");
	const char *id = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	char path[256];
	snprintf(path, sizeof path, "/system.slice/docker-%s.scope", id);
	name_is(path, "docker:0123456789ab");
	snprintf(path, sizeof path, "/system.slice/docker-%s.scope/init.scope", id); /* inside the container */
	name_is(path, "docker:0123456789ab");
	snprintf(path, sizeof path, "/machine.slice/libpod-%s.scope", id);
	name_is(path, "podman:0123456789ab");
	snprintf(path, sizeof path, "/kubepods.slice/crio-%s.scope", id);
	name_is(path, "crio:0123456789ab");
	name_is("/system.slice/docker-notanid.scope", "docker-notanid.scope"); /* not a runtime's id */
	name_is("/lxc.payload.web1/system.slice/nginx.service", "lxc:web1");
	name_is("/lxc/db", "lxc:db");
	name_is("/machine.slice/machine-my\\x2dbox.scope", "machine:my-box");
	/* a manager's places only: the same names a user can make elsewhere */
	snprintf(path, sizeof path, "system.slice/docker-%s.scope", id); /* relative, as rows hold it */
	name_is(path, "docker:0123456789ab");
	snprintf(path, sizeof path, "docker/%s", id); /* the cgroupfs driver */
	name_is(path, "docker:0123456789ab");
	snprintf(path, sizeof path, "/user.slice/user-1000.slice/user@1000.service/app.slice/docker-%s.scope", id);
	name_is(path, path + strlen(path) - strlen(id) - 13);
	snprintf(path, sizeof path, "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-%s.scope", id);
	name_is(path, "podman:0123456789ab"); /* rootless podman */
	/* the shape repeated inside a user's own tree, or with another uid */
	snprintf(path, sizeof path, "/user.slice/user-65534.slice/user@65534.service/app.slice/user@0.service/user.slice/libpod-%s.scope", id);
	name_is(path, path + strlen(path) - strlen(id) - 13);
	snprintf(path, sizeof path, "/user.slice/user-1000.slice/user@0.service/user.slice/libpod-%s.scope", id);
	name_is(path, path + strlen(path) - strlen(id) - 13);
	snprintf(path, sizeof path, "/user.slice/user-1000.slice/session-2.scope/libpod-%s.scope", id);
	name_is(path, path + strlen(path) - strlen(id) - 13);
	snprintf(path, sizeof path, "/system.slice/crio-%s.scope", id);
	name_is(path, path + strlen("/system.slice/"));
	name_is("/user.slice/machine-x.scope/machine-evil.scope", "machine-evil.scope");
	name_is("/user.slice/user-1000.slice/lxc/db", "db");
	name_is("/user.slice/lxc.payload.web1", "lxc.payload.web1");
}

static void test_parent_and_controllers(void **state)
{
	(void)state;
	char p[128];
	cgroup_parent("/system.slice/cron.service", p, sizeof p);
	assert_string_equal(p, "/system.slice");
	cgroup_parent("/init.scope", p, sizeof p);
	assert_string_equal(p, "/");
	cgroup_parent("/", p, sizeof p);
	assert_string_equal(p, "/");
	assert_true(cgroup_has_controller("cpuset cpu io memory pids\n", "io"));
	assert_true(cgroup_has_controller("io", "io"));
	assert_false(cgroup_has_controller("cpuset cpu memory hugetlb\n", "io"));
	assert_false(cgroup_has_controller("iocost misc", "io"));
	assert_false(cgroup_has_controller("", "io"));
}

static int only_major_8(unsigned major, unsigned minor, void *ctx)
{
	(void)minor;
	(void)ctx;
	return major == 8;
}

static void test_io_stat(void **state)
{
	(void)state;
	struct cgroup_io io;
	const char *text = "8:0 rbytes=1459200 wbytes=314773504 rios=192 wios=353 dbytes=0 dios=0\n"
			   "253:0 rbytes=100 wbytes=200 rios=1 wios=2 dbytes=4096 dios=1 cost.usage=5 cost.wait=0\n";
	assert_int_equal(cgroup_parse_io_stat(text, NULL, NULL, &io), 2);
	assert_int_equal(io.rbytes, 1459300);
	assert_int_equal(io.wbytes, 314773704);
	assert_int_equal(io.rios, 193);
	assert_int_equal(io.wios, 355);
	assert_int_equal(io.dbytes, 4096);
	assert_int_equal(io.dios, 1);
	/* a dm device's line left out: its bytes are the disk's too */
	assert_int_equal(cgroup_parse_io_stat(text, only_major_8, NULL, &io), 1);
	assert_int_equal(io.rbytes, 1459200);
	assert_int_equal(cgroup_parse_io_stat("", NULL, NULL, &io), 0);
	assert_int_equal(io.wbytes, 0);
	assert_int_equal(cgroup_parse_io_stat("some avg10=0.00 avg60=0.00\n", NULL, NULL, &io), -EINVAL);
	assert_int_equal(cgroup_parse_io_stat("8:0x rbytes=1\n", NULL, NULL, &io), -EINVAL);
	/* a value that is not a number is not counted */
	assert_int_equal(cgroup_parse_io_stat("8:0 rbytes=12ab wbytes=5\n", NULL, NULL, &io), 1);
	assert_int_equal(io.rbytes, 0);
	assert_int_equal(io.wbytes, 5);
}

/* The hybrid layout: io bound to v1 (blkio with a hierarchy), and a pure
 * v2 machine where every controller's hierarchy is 0. */
static void test_v1_bound(void **state)
{
	(void)state;
	const char *hybrid = "#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpuset\t3\t1\t1\n"
			     "blkio\t7\t1\t1\nhugetlb\t0\t7\t1\n";
	const char *pure = "#subsys_name\thierarchy\tnum_cgroups\tenabled\nblkio\t0\t90\t1\n";
	assert_true(cgroup_parse_v1_bound(hybrid, "blkio"));
	assert_false(cgroup_parse_v1_bound(hybrid, "hugetlb"));
	assert_false(cgroup_parse_v1_bound(pure, "blkio"));
	assert_false(cgroup_parse_v1_bound("blkio\t7\t1\t0\n", "blkio")); /* disabled */
	assert_false(cgroup_parse_v1_bound("blkiox\t7\t1\t1\n", "blkio"));
	assert_false(cgroup_parse_v1_bound("", "blkio"));
}

static void test_weight(void **state)
{
	(void)state;
	assert_int_equal(cgroup_parse_weight("default 100\n"), 100);
	assert_int_equal(cgroup_parse_weight("default 250\n8:0 500\n"), 250);
	assert_int_equal(cgroup_parse_weight("100\n"), 100); /* io.bfq.weight before 5.4 */
	assert_int_equal(cgroup_parse_weight("default 0\n"), -EINVAL);
	assert_int_equal(cgroup_parse_weight("default 10001\n"), -EINVAL);
	assert_int_equal(cgroup_parse_weight("default x\n"), -EINVAL);
	assert_int_equal(cgroup_parse_weight(""), -EINVAL);
}

static const char *name_8_0(unsigned major, unsigned minor, void *ctx)
{
	(void)ctx;
	return major == 8 && minor == 0 ? "sda" : NULL;
}

/* io.max and io.latency: the settings that limit, "max" and a target of 0
 * left out, a device named where the caller knows it. */
static void test_limits(void **state)
{
	(void)state;
	char out[160];
	const char *max = "8:0 rbps=max wbps=1048576 riops=max wiops=120\n8:16 rbps=max wbps=max riops=max wiops=max\n"
			  "253:0 rbps=2097152 wbps=max riops=max wiops=max\n";
	assert_int_equal(cgroup_parse_limits(max, name_8_0, NULL, out, sizeof out), 2);
	assert_string_equal(out, "sda wbps=1048576 wiops=120; 253:0 rbps=2097152");
	assert_int_equal(cgroup_parse_limits("8:16 rbps=max wbps=max riops=max wiops=max\n", NULL, NULL, out, sizeof out), 0);
	assert_string_equal(out, "");
	assert_int_equal(cgroup_parse_limits("", NULL, NULL, out, sizeof out), 0);
	assert_string_equal(out, "");
	assert_int_equal(cgroup_parse_limits("8:0 target=10000\n8:16 target=0\n", NULL, NULL, out, sizeof out), 1);
	assert_string_equal(out, "8:0 target=10000");
	assert_int_equal(cgroup_parse_limits("default 100\n", NULL, NULL, out, sizeof out), -EINVAL);
	assert_int_equal(cgroup_parse_limits("8:0x wbps=1\n", NULL, NULL, out, sizeof out), -EINVAL);
	/* a long list is cut, never overrun */
	char small[12];
	assert_int_equal(cgroup_parse_limits(max, NULL, NULL, small, sizeof small), 2);
	assert_true(strlen(small) < sizeof small);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mountinfo),
		cmocka_unit_test(test_proc_cgroup),
		cmocka_unit_test(test_unit_names),
		cmocka_unit_test(test_parent_and_controllers),
		cmocka_unit_test(test_io_stat),
		cmocka_unit_test(test_v1_bound),
		cmocka_unit_test(test_weight),
		cmocka_unit_test(test_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
