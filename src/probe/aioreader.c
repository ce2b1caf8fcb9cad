/* aioreader: see include/probe/aioreader.h */
#include "probe/aioreader.h"

#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe/prng.h"
#include "base/util.h"

/* To the child: a read at off, a new descriptor (it comes with the
 * message; none: close the one it has), a job of count reads at random
 * offsets below off, a stream of reads at random offsets below off, or the
 * end of a stream. READ, FD and JOB get one answer (REP_ONE); STREAM gets
 * batches until HALT (or a failed read) ends it with a REP_END batch. */
enum { REQ_READ, REQ_FD, REQ_JOB, REQ_STREAM, REQ_HALT };
enum { REP_ONE, REP_BATCH, REP_END };

struct req {
	uint64_t off;
	uint64_t seed;
	uint32_t op;
	uint32_t count;
};

/* Every answer; only the first n entries are sent. */
struct rep {
	uint32_t kind;
	uint32_t n;
	struct aioreader_read e[AIOREADER_BATCH];
};
#define REP_SIZE(n) (offsetof(struct rep, e) + (size_t)(n) * sizeof(struct aioreader_read))

/* A stream sends what it has at least this often, so the tool's figures
 * and its in-flight age stay current, and looks for a HALT at each send. */
#define STREAM_FLUSH_NS 10000000

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

static int send_rep(int sock, const struct rep *a)
{
	return send(sock, a, REP_SIZE(a->n), MSG_NOSIGNAL) == (ssize_t)REP_SIZE(a->n) ? 0 : -1;
}

/* A stream: reads one after another with no message between them, as
 * fio's loop does (a round trip to the tool per read cost the probe
 * 3-16 % on its p50 against fio: the reader slept between reads). Each
 * read is timed alone. Ends on a failed read or when a request comes
 * (HALT is taken here; anything else is left for the caller); either way
 * the last batch is REP_END. Returns -1 when the tool is gone. */
static int stream(int sock, io_context_t ctx, int fd, void *buf, size_t size, const struct req *q)
{
	struct prng rng;
	prng_seed(&rng, q->seed);
	struct rep a = {.kind = REP_BATCH};
	int64_t sent = mono_ns();
	for (;;) {
		struct aioreader_read *e = &a.e[a.n++];
		uint64_t off;
		if (prng_offset(&rng, q->off, size, size, &off) < 0) {
			e->res = -EINVAL;
			e->ns = 0;
		} else {
			e->res = timed_read(ctx, fd, buf, size, off, &e->ns);
		}
		e->done_ns = mono_ns();
		int failed = e->res != (int64_t)size;
		if (!failed && a.n < AIOREADER_BATCH && e->done_ns - sent < STREAM_FLUSH_NS)
			continue;
		struct pollfd p = {.fd = sock, .events = POLLIN};
		if (failed || poll(&p, 1, 0) > 0) {
			if (!failed) {
				struct req h;
				if (recv(sock, &h, sizeof h, MSG_PEEK | MSG_DONTWAIT) == (ssize_t)sizeof h &&
				    h.op == REQ_HALT)
					recv(sock, &h, sizeof h, MSG_DONTWAIT);
			}
			a.kind = REP_END;
			return send_rep(sock, &a);
		}
		if (send_rep(sock, &a) < 0)
			return -1;
		a.n = 0;
		sent = e->done_ns;
	}
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
		/* A read that brings its own descriptor uses it once and closes
		 * it; the one REQ_FD gave stays. */
		int once = q.op == REQ_READ && nfd >= 0;
		if (q.op == REQ_FD) {
			if (fd >= 0)
				close(fd);
			fd = nfd;
		} else if (nfd >= 0 && !once) {
			close(nfd);
		}
		int rfd = once ? nfd : fd;
		int ready = rc >= 0 && rfd >= 0;
		struct rep a = {.kind = REP_ONE, .n = 1, .e[0].res = rc < 0 ? rc : -EBADF};
		if (q.op == REQ_STREAM && ready) {
			if (stream(sock, ctx, fd, buf, size, &q) < 0)
				_exit(0);
			continue;
		}
		if (q.op == REQ_STREAM || q.op == REQ_HALT) /* no stream (now): end at once */
			a = (struct rep){.kind = REP_END, .n = q.op == REQ_STREAM, .e[0].res = a.e[0].res};
		else if (q.op == REQ_FD)
			a.e[0].res = 0;
		else if (ready && q.op == REQ_JOB)
			a.e[0].res = timed_job(ctx, fd, buf, size, &q, &a.e[0].ns);
		else if (ready)
			a.e[0].res = timed_read(ctx, rfd, buf, size, q.off, &a.e[0].ns);
		if (once)
			close(nfd); /* before the answer: the caller may take it as the end of its hold */
		a.e[0].done_ns = mono_ns();
		if (send_rep(sock, &a) < 0)
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
	/* The child answers at once (it is idle between reads: no stream). */
	struct rep a;
	ssize_t n;
	do
		n = recv(r->sock, &a, sizeof a, 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)REP_SIZE(1) || a.kind != REP_ONE)
		return n < 0 ? -errno : -EPIPE;
	if (a.e[0].res < 0)
		return (int)a.e[0].res;
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

int aioreader_submit_on(struct aioreader *r, int fd, uint64_t off)
{
	if (r->pid <= 0 || fd < 0)
		return -EBADF;
	struct req q = {.op = REQ_READ, .off = off};
	return send_req(r, &q, fd);
}

int aioreader_submit_job(struct aioreader *r, uint64_t span, uint32_t reads, uint64_t seed)
{
	if (r->pid <= 0 || !r->fd_sent)
		return -EBADF;
	struct req q = {.op = REQ_JOB, .off = span, .seed = seed, .count = reads};
	return send_req(r, &q, -1);
}

/* Wait up to timeout_ms for one answer. Returns 1 with it, 0 on timeout,
 * or a negative errno when the child is gone or answered out of turn. */
static int recv_rep(struct aioreader *r, int timeout_ms, struct rep *a)
{
	struct pollfd p = {.fd = r->sock, .events = POLLIN};
	int rc = poll(&p, 1, timeout_ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	if (rc == 0)
		return 0;
	ssize_t n = recv(r->sock, a, sizeof *a, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n < 0)
		return -errno;
	if (n < (ssize_t)REP_SIZE(0) || a->n > AIOREADER_BATCH || n != (ssize_t)REP_SIZE(a->n))
		return -EPIPE;
	return 1;
}

int aioreader_wait(struct aioreader *r, int timeout_ms, int64_t *res, int64_t *ns)
{
	struct rep a;
	int rc = recv_rep(r, timeout_ms, &a);
	if (rc <= 0)
		return rc;
	if (a.kind != REP_ONE || a.n != 1)
		return -EPROTO;
	*res = a.e[0].res;
	*ns = a.e[0].ns;
	return 1;
}

int aioreader_stream(struct aioreader *r, uint64_t span, uint64_t seed)
{
	if (r->pid <= 0 || !r->fd_sent)
		return -EBADF;
	struct req q = {.op = REQ_STREAM, .off = span, .seed = seed};
	return send_req(r, &q, -1);
}

int aioreader_halt(struct aioreader *r)
{
	if (r->pid <= 0)
		return -ESRCH;
	struct req q = {.op = REQ_HALT};
	return send_req(r, &q, -1);
}

int aioreader_next(struct aioreader *r, int timeout_ms, struct aioreader_batch *b)
{
	struct rep a;
	int rc = recv_rep(r, timeout_ms, &a);
	if (rc <= 0)
		return rc;
	if (a.kind != REP_BATCH && a.kind != REP_END)
		return -EPROTO;
	b->n = a.n;
	b->end = a.kind == REP_END;
	memcpy(b->e, a.e, a.n * sizeof a.e[0]);
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
