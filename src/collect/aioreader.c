/* aioreader: see include/aioreader.h */
#include "aioreader.h"

#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "prng.h"
#include "util.h"

/* To the child: a read at off, a new descriptor (it comes with the
 * message; none: close the one it has), or a job of count reads at random
 * offsets below off; every request gets one answer. */
enum { REQ_READ, REQ_FD, REQ_JOB };

struct req {
	uint64_t off;
	uint64_t seed;
	uint32_t op;
	uint32_t count;
};

struct rep {
	int64_t res; /* bytes read, or -errno */
	int64_t ns;
};

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Receive one request, and the descriptor that may come with it (-1 if
 * none). Returns the bytes received; 0 when the tool closed its end. */
static ssize_t recv_req(int sock, struct req *q, int *fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = q, .iov_len = sizeof *q};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
	ssize_t n;
	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	*fd = -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	if (n > 0 && c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof *fd);
	return n;
}

static int64_t timed_read(io_context_t ctx, int fd, void *buf, size_t size, uint64_t off, int64_t *ns)
{
	struct iocb cb, *cbs[1] = {&cb};
	struct io_event ev;
	io_prep_pread(&cb, fd, buf, size, (long long)off);
	int64_t t0 = mono_ns();
	int rc = io_submit(ctx, 1, cbs);
	if (rc == 1)
		do
			rc = io_getevents(ctx, 1, 1, &ev, NULL);
		while (rc == -EINTR);
	*ns = mono_ns() - t0;
	if (rc != 1)
		return rc < 0 ? rc : -EIO;
	return (int64_t)(long)ev.res;
}

/* A job: count reads one after another, as a program reading its files
 * would, timed as a whole from the first submit to the last completion.
 * Returns the reads done, or a negative errno of the one that failed. */
static int64_t timed_job(io_context_t ctx, int fd, void *buf, size_t size, const struct req *q, int64_t *ns)
{
	struct prng rng;
	prng_seed(&rng, q->seed);
	int64_t t0 = mono_ns(), one;
	uint32_t i;
	for (i = 0; i < q->count; i++) {
		uint64_t off;
		if (prng_offset(&rng, q->off, size, size, &off) < 0)
			return -EINVAL;
		int64_t rc = timed_read(ctx, fd, buf, size, off, &one);
		if (rc != (int64_t)size) {
			*ns = mono_ns() - t0;
			return rc < 0 ? rc : -EIO;
		}
	}
	*ns = mono_ns() - t0;
	return i;
}

/* The child. It was forked from a process with threads, so it calls only
 * what is safe there (system calls and libaio's, which are system calls
 * and a look at the completion ring): no malloc, no stdio, no locks. */
static void child_main(int sock, void *buf, size_t size, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0); /* the tool ended before the line above */
	sock = util_child_fds(sock, "iosched-reader");
	if (sock < 0)
		_exit(1);
	io_context_t ctx = 0;
	int rc = io_setup(1, &ctx);
	int fd = -1;
	for (;;) {
		struct req q;
		int nfd;
		ssize_t n = recv_req(sock, &q, &nfd);
		if (n <= 0)
			_exit(0);
		if (q.op == REQ_FD) {
			if (fd >= 0)
				close(fd);
			fd = nfd;
		} else if (nfd >= 0) {
			close(nfd);
		}
		struct rep a = {.res = rc < 0 ? rc : -EBADF};
		if (q.op == REQ_FD)
			a.res = 0;
		else if (rc >= 0 && fd >= 0 && q.op == REQ_JOB)
			a.res = timed_job(ctx, fd, buf, size, &q, &a.ns);
		else if (rc >= 0 && fd >= 0)
			a.res = timed_read(ctx, fd, buf, size, q.off, &a.ns);
		if (send(sock, &a, sizeof a, MSG_NOSIGNAL) != (ssize_t)sizeof a)
			_exit(0);
	}
}

int aioreader_start(struct aioreader *r, size_t io_size)
{
	int sv[2];
	void *buf;
	memset(r, 0, sizeof *r);
	if (posix_memalign(&buf, 4096, io_size) != 0)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		free(buf);
		return -errno;
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[0]);
		child_main(sv[1], buf, io_size, parent);
	}
	int e = errno;
	free(buf); /* the child has its own copy */
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return -e;
	}
	r->pid = pid;
	r->sock = sv[0];
	return 0;
}

static int send_req(struct aioreader *r, const struct req *rq, int fd)
{
	struct req q = *rq;
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = &q, .iov_len = sizeof q};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	if (fd >= 0) {
		memset(ctl, 0, sizeof ctl);
		m.msg_control = ctl;
		m.msg_controllen = sizeof ctl;
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof fd);
	}
	ssize_t n;
	do
		n = sendmsg(r->sock, &m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof q ? 0 : n < 0 ? -errno : -EIO;
}

int aioreader_set_fd(struct aioreader *r, int fd)
{
	if (r->pid <= 0)
		return -ESRCH;
	r->fd_sent = 0;
	struct req q = {.op = REQ_FD};
	int rc = send_req(r, &q, fd);
	if (rc < 0)
		return rc;
	/* The child answers at once (it is idle between reads). */
	struct rep a;
	ssize_t n;
	do
		n = recv(r->sock, &a, sizeof a, 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof a)
		return n < 0 ? -errno : -EPIPE;
	if (a.res < 0)
		return (int)a.res;
	r->fd_sent = fd >= 0;
	return 0;
}

int aioreader_submit(struct aioreader *r, uint64_t off)
{
	if (r->pid <= 0 || !r->fd_sent)
		return -EBADF;
	struct req q = {.op = REQ_READ, .off = off};
	return send_req(r, &q, -1);
}

int aioreader_submit_job(struct aioreader *r, uint64_t span, uint32_t reads, uint64_t seed)
{
	if (r->pid <= 0 || !r->fd_sent)
		return -EBADF;
	struct req q = {.op = REQ_JOB, .off = span, .seed = seed, .count = reads};
	return send_req(r, &q, -1);
}

int aioreader_wait(struct aioreader *r, int timeout_ms, int64_t *res, int64_t *ns)
{
	struct pollfd p = {.fd = r->sock, .events = POLLIN};
	int rc = poll(&p, 1, timeout_ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	if (rc == 0)
		return 0;
	struct rep a;
	ssize_t n = recv(r->sock, &a, sizeof a, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n != (ssize_t)sizeof a)
		return n < 0 ? -errno : -EPIPE;
	*res = a.res;
	*ns = a.ns;
	return 1;
}

void aioreader_stop(struct aioreader *r)
{
	if (r->pid <= 0)
		return;
	close(r->sock);
	kill(r->pid, SIGKILL);
	while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
		;
	r->pid = 0;
}

int aioreader_stop_within(struct aioreader *r, double wait_s)
{
	if (r->pid <= 0)
		return 0;
	close(r->sock);
	kill(r->pid, SIGKILL);
	double until = util_mono_now() + wait_s;
	for (;;) {
		pid_t w = waitpid(r->pid, NULL, WNOHANG);
		if (w == r->pid || (w < 0 && errno != EINTR))
			break;
		if (util_mono_now() >= until) {
			r->pid = 0;
			return -1; /* in the kernel still: it goes when the read ends */
		}
		util_sleep_until(util_mono_now() + 0.01);
	}
	r->pid = 0;
	return 0;
}
