/* coldstart: see include/act/coldstart.h */
#include "act/coldstart.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"

/* In the helper: sync, drop the page cache, time the command. Writes the
 * seconds ("%.6f") to fd, or "-1" when something failed. */
static void helper(const char *cmd, int fd)
{
	double secs = -1;
	sync();
	int dc = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (dc >= 0 && write(dc, "3", 1) == 1) {
		double t0 = util_mono_now();
		pid_t pid = fork();
		if (pid == 0) {
			/* the command starts as from a shell: its streams on
			 * /dev/null and no other descriptor, SIGXFSZ (ignored by
			 * the tool) back to its default */
			int null = open("/dev/null", O_RDWR);
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			if (null > 2)
				close(null);
			signal(SIGXFSZ, SIG_DFL);
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
		int status;
		if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) != 127)
			secs = util_mono_now() - t0;
	}
	if (dc >= 0)
		close(dc);
	char buf[32];
	int n = snprintf(buf, sizeof buf, "%.6f", secs);
	if (write(fd, buf, (size_t)n) < 0)
		_exit(1);
	_exit(0);
}

int coldstart_begin(const char *cmd, struct coldstart *cs)
{
	int p[2];
	memset(cs, 0, sizeof *cs);
	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		close(p[0]);
		setpgid(0, 0); /* its own group: cancel can take the command too */
		helper(cmd, p[1]);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	cs->pid = pid;
	cs->fd = p[0];
	return 0;
}

int coldstart_poll(struct coldstart *cs, double *secs)
{
	if (!cs->pid)
		return -1;
	char buf[32];
	ssize_t n = read(cs->fd, buf, sizeof buf - 1);
	if (n < 0 && errno == EAGAIN)
		return 0;
	close(cs->fd);
	waitpid(cs->pid, NULL, 0);
	cs->pid = 0;
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	*secs = strtod(buf, NULL);
	return *secs >= 0 ? 1 : -1;
}

void coldstart_cancel(struct coldstart *cs)
{
	if (!cs->pid)
		return;
	kill(-cs->pid, SIGKILL);
	waitpid(cs->pid, NULL, 0);
	close(cs->fd);
	cs->pid = 0;
}
