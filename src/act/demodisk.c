/* demodisk: see include/act/demodisk.h */
#include "act/demodisk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aiowrite.h"
#include "base/util.h"

#define NULLB_CFG "/sys/kernel/config/nullb"
#define DEMO_PREFIX "iosched-demo-"
#define DISK_BYTES (4096ull << 20) /* its size, as settings[] gives it in MiB */

/* The disk's settings, in the order null_blk takes them (power last). An
 * HDD's pace: 4 ms a request, two at a time, one queue; 4 GiB that are
 * never stored. */
static const char *const settings[][2] = {
	{"size", "4096"},       {"memory_backed", "0"}, {"blocksize", "4096"}, {"irqmode", "2"},
	{"completion_nsec", "4000000"}, {"hw_queue_depth", "2"}, {"submit_queues", "1"}, {"power", "1"},
};

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	int rc = n < 0 ? -errno : 0;
	close(fd);
	return rc;
}

/* Run argv (modprobe) with its output thrown away; its exit status, or -1. */
static int run_quiet(char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		util_child_fds(open("/dev/null", O_RDONLY), argv[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A configfs directory's disk powered off and removed. */
static int remove_dir(const char *dir)
{
	char path[256];
	util_fmt(path, sizeof path, "%s/power", dir);
	write_text(path, "0");
	return rmdir(dir) == 0 ? 0 : -errno;
}

void demodisk_name(pid_t pid, unsigned long ns, char *buf, size_t len)
{
	util_fmt(buf, len, "%s%d-%lx", DEMO_PREFIX, (int)pid, ns);
}

long demodisk_name_pid(const char *name, unsigned long ns)
{
	if (strncmp(name, DEMO_PREFIX, strlen(DEMO_PREFIX)) != 0)
		return -1;
	const char *p = name + strlen(DEMO_PREFIX);
	char *end;
	errno = 0;
	long pid = strtol(p, &end, 10);
	if (errno || end == p || *end != '-' || pid <= 0)
		return -1;
	p = end + 1;
	unsigned long theirs = strtoul(p, &end, 16);
	return !errno && end != p && !*end && theirs == ns ? pid : -1;
}

/* This process's pid namespace, by its inode; 0 when it cannot be read
 * (then no disk is swept: whose it is cannot be told). */
static unsigned long pid_ns(void)
{
	struct stat st;
	return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long)st.st_ino : 0;
}

/* The disks of this namespace's runs that are gone (killed: nothing could
 * remove them): removed, and named in d->swept. Another namespace's are
 * left: a pid there says nothing here. */
static void sweep(struct demodisk *d, unsigned long ns)
{
	DIR *dir = ns ? opendir(NULLB_CFG) : NULL;
	struct dirent *e;
	while (dir && (e = readdir(dir))) {
		long pid = demodisk_name_pid(e->d_name, ns);
		if (pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* another's, or its run is alive (or cannot be told) */
		char path[256];
		util_fmt(path, sizeof path, "%s/%s", NULLB_CFG, e->d_name);
		if (remove_dir(path) == 0)
			util_fmt(d->swept + strlen(d->swept), sizeof d->swept - strlen(d->swept), "%s%s",
				 d->swept[0] ? ", " : "", e->d_name);
	}
	if (dir)
		closedir(dir);
}

/* null_blk's configfs, loading the module (with no disk of its own) when
 * it is not there. 0, or -1 with what to do in err. */
static int need_nullb(struct demodisk *d, char *err, size_t len)
{
	struct stat st;
	if (stat(NULLB_CFG, &st) == 0)
		return 0;
	int was = stat("/sys/module/null_blk", &st) == 0;
	char *const argv[] = {"modprobe", "null_blk", "nr_devices=0", NULL};
	if (!was && run_quiet(argv) == 0)
		d->loaded = 1;
	if (stat(NULLB_CFG, &st) == 0)
		return 0;
	if (stat("/sys/module/null_blk", &st) == 0)
		util_fmt(err, len, "null_blk is loaded but %s is not there: mount configfs (mount -t configfs none /sys/kernel/config)",
			 NULLB_CFG);
	else {
		struct utsname u;
		if (uname(&u) != 0)
			util_strlcpy(u.release, "RELEASE", sizeof u.release);
		util_fmt(err, len, "this kernel has no null_blk module (modprobe null_blk failed): install the kernel's extra modules "
			 "(Ubuntu: linux-modules-extra-%s) or use a kernel built with CONFIG_BLK_DEV_NULL_BLK=m", u.release);
	}
	return -1;
}

/* The disk the directory made: named after it (Linux 5.19 and later) or
 * nullb<index>. Waits up to 5 s for udev-less /sys to show it. */
static int find_disk(struct demodisk *d)
{
	const char *base = d->dir + strlen(NULLB_CFG) + 1;
	char path[256], idx[32], old[32] = "";
	util_fmt(path, sizeof path, "%s/index", d->dir);
	if (util_read_text(path, idx, sizeof idx) > 0)
		util_fmt(old, sizeof old, "nullb%ld", strtol(idx, NULL, 10));
	for (int i = 0; i < 50; i++) {
		const char *names[] = {base, old};
		for (int k = 0; k < 2; k++) {
			struct stat st;
			util_fmt(path, sizeof path, "/sys/block/%s", names[k]);
			if (names[k][0] && stat(path, &st) == 0) {
				util_strlcpy(d->name, names[k], sizeof d->name);
				return 0;
			}
		}
		usleep(100000);
	}
	return -ENODEV;
}

/* The writer: the A/B's load over the disk (aiowrite.h: 1 MiB direct
 * writes, 8 in flight, front to back and again) until the tool ends it (or
 * ends: PR_SET_PDEATHSIG). Direct, not buffered: buffered writes to this
 * disk (fdatasync every 32 MiB; sync_file_range before) locked both CPUs
 * up in the kernel, the writer's and the flusher's, in one run of about
 * ten here (6.1 under qemu without KVM, null_blk not memory-backed), and
 * left dirty pages to drain before the disk could go. */
static void writer(const char *dev, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	util_child_fds(open("/dev/null", O_RDONLY), "iosched-demo-wr");
	int fd = open(dev, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		_exit(1);
	const struct aiowrite_hooks h = {NULL, NULL, NULL};
	_exit(aiowrite_run(fd, DISK_BYTES, &h) ? 1 : 0);
}

int demodisk_make(struct demodisk *d, char *err, size_t len)
{
	memset(d, 0, sizeof *d);
	if (geteuid() != 0) {
		util_fmt(err, len, "needs root (it makes a null_blk disk through configfs)");
		return -1;
	}
	if (need_nullb(d, err, len) < 0)
		return -1;
	unsigned long ns = pid_ns();
	sweep(d, ns);
	char name[40];
	demodisk_name(getpid(), ns, name, sizeof name);
	util_fmt(d->dir, sizeof d->dir, "%s/%s", NULLB_CFG, name);
	if (mkdir(d->dir, 0755) != 0) {
		util_fmt(err, len, "cannot make %s: %s", d->dir, strerror(errno));
		d->dir[0] = '\0';
		demodisk_remove(d, NULL, 0);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < sizeof settings / sizeof settings[0] && rc == 0; i++) {
		char path[256];
		util_fmt(path, sizeof path, "%s/%s", d->dir, settings[i][0]);
		rc = write_text(path, settings[i][1]);
		if (rc < 0)
			util_fmt(err, len, "null_blk refused %s=%s: %s", settings[i][0], settings[i][1], strerror(-rc));
	}
	if (rc == 0 && (rc = find_disk(d)) < 0)
		util_fmt(err, len, "the disk of %s did not appear in /sys/block", d->dir);
	char path[160];
	util_fmt(path, sizeof path, "/sys/block/%s/queue/rotational", d->name);
	if (rc == 0)
		write_text(path, "1"); /* as an HDD says it is (a demo's table shows ROT) */
	/* writeback throttling off: the scheduler alone orders the queue,
	 * which is what the demo shows */
	util_fmt(path, sizeof path, "/sys/block/%s/queue/wbt_lat_usec", d->name);
	if (rc == 0)
		write_text(path, "0");
	util_fmt(path, sizeof path, "/dev/%s", d->name);
	pid_t parent = getpid();
	if (rc == 0 && (d->writer = fork()) == 0)
		writer(path, parent);
	if (rc == 0 && d->writer < 0) {
		util_fmt(err, len, "cannot start the writer: %s", strerror(errno));
		d->writer = 0;
		rc = -1;
	}
	if (rc < 0) {
		demodisk_remove(d, NULL, 0);
		return -1;
	}
	return 0;
}

void demodisk_remove(struct demodisk *d, char *msg, size_t len)
{
	if (msg && len)
		msg[0] = '\0';
	if (d->writer > 0) {
		kill(d->writer, SIGKILL);
		while (waitpid(d->writer, NULL, 0) < 0 && errno == EINTR)
			;
		d->writer = 0;
	}
	/* the writer's last writes drain first: a disk with requests in
	 * flight cannot be powered off */
	int rc = 0;
	for (int i = 0; d->dir[0] && i < 50; i++) {
		rc = remove_dir(d->dir);
		if (rc == 0 || rc == -ENOENT)
			break;
		usleep(100000);
	}
	if (d->dir[0] && rc < 0 && rc != -ENOENT && msg)
		util_fmt(msg, len, "the demo disk %s could not be removed (%s): rmdir %s", d->name, strerror(-rc), d->dir);
	d->dir[0] = '\0';
	char *const argv[] = {"modprobe", "-r", "null_blk", NULL};
	if (d->loaded && rc == 0 && run_quiet(argv) != 0 && msg && !msg[0])
		util_fmt(msg, len, "null_blk, loaded for the demo disk, could not be unloaded: modprobe -r null_blk");
	d->loaded = 0;
}
