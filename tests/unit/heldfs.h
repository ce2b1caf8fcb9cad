/* heldfs.h: a process held in execve for the unit tests that need one
 * (tests/lib/heldfs.py: its /proc/PID/stat, io, syscall and wchan do not
 * answer until it is let go). Include after cmocka.h. */
#ifndef IOSCHED_TEST_HELDFS_H
#define IOSCHED_TEST_HELDFS_H

#define HELDFS_MAX 80 /* processes held at once */

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

/* tests/lib/heldfs.py mounted on a fresh directory, and the process it
 * holds in execve. */
struct heldfs {
	char dir[64], mnt[80], go[96];
	pid_t server, holder[HELDFS_MAX];
	int nheld;
	int log; /* the server's stderr: "held" once a flush waits */
};

#define FUSE_MAGIC 0x65735546

/* 0, or -1 when this machine cannot (no fusepy, no /dev/fuse). */
static int heldfs_start(struct heldfs *h)
{
	char flags[80];
	int p[2];
	if (access("/usr/bin/python3", X_OK) || access("tests/lib/heldfs.py", R_OK) || access("/dev/fuse", W_OK))
		return -1;
	h->nheld = 0;
	snprintf(h->dir, sizeof h->dir, "/tmp/heldfs.XXXXXX");
	assert_non_null(mkdtemp(h->dir));
	snprintf(h->mnt, sizeof h->mnt, "%s/mnt", h->dir);
	snprintf(flags, sizeof flags, "%s/flags", h->dir);
	snprintf(h->go, sizeof h->go, "%s/go", flags);
	assert_int_equal(mkdir(h->mnt, 0755) | mkdir(flags, 0755) | pipe(p), 0);
	h->server = fork();
	if (h->server == 0) {
		dup2(p[1], 2);
		execl("/usr/bin/python3", "python3", "tests/lib/heldfs.py", h->mnt, flags, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	h->log = p[0];
	struct statfs fs;
	for (int i = 0; i < 100 && !(statfs(h->mnt, &fs) == 0 && fs.f_type == FUSE_MAGIC); i++)
		usleep(50000);
	return statfs(h->mnt, &fs) == 0 && fs.f_type == FUSE_MAGIC ? 0 : -1;
}

/* A process at prio (-1: as it comes) held in execve: its pid. */
static pid_t heldfs_hold(struct heldfs *h, long prio)
{
	char path[96], b[16];
	snprintf(path, sizeof path, "%s/held", h->mnt);
	assert_true(h->nheld < HELDFS_MAX);
	pid_t c = h->holder[h->nheld++] = fork();
	if (c == 0) {
		if (prio >= 0 && syscall(SYS_ioprio_set, 1, 0, (int)prio) < 0)
			_exit(2);
		if (open(path, O_RDONLY | O_CLOEXEC) < 0)
			_exit(2);
		execl("/bin/true", "true", (char *)NULL);
		_exit(3);
	}
	struct pollfd p = {h->log, POLLIN, 0};
	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_true(read(h->log, b, sizeof b) > 0);
	return c;
}

static void heldfs_stop(struct heldfs *h)
{
	char flags[80];
	close(open(h->go, O_WRONLY | O_CREAT, 0600));
	for (int i = 0; i < h->nheld; i++)
		waitpid(h->holder[i], NULL, 0);
	kill(h->server, SIGKILL);
	waitpid(h->server, NULL, 0);
	umount2(h->mnt, MNT_DETACH);
	unlink(h->go);
	snprintf(flags, sizeof flags, "%s/flags", h->dir);
	rmdir(flags);
	rmdir(h->mnt);
	rmdir(h->dir);
	close(h->log);
}

/* A process of root's that only waits, started beside a held one (the
 * undo's target): its pid, a moment after. */
static pid_t idle_child(void)
{
	pid_t c = fork();
	if (c == 0)
		for (;;)
			pause();
	usleep(50000);
	return c;
}

#endif
