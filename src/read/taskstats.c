/* taskstats: see include/read/taskstats.h */
#include "read/taskstats.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "base/util.h"

/* Where the fields read here sit (x86_64 and every LP64 ABI). They were
 * placed by version 4 and kept their offsets through version 14; version 15
 * inserted 16 delay max/min fields after cpu_delay_total and shifted them;
 * version 16 moved those to the end, restoring the old offsets; version 17
 * appended more. tests/fixtures/taskstats has a payload of each version. */
struct layout {
	size_t blkio_count, blkio_delay, ac_pid, read_syscalls, write_syscalls, read_bytes, write_bytes;
	size_t ac_comm, ac_ppid, ac_btime, cancelled; /* ac_comm is 32 bytes */
	size_t ac_tgid;            /* from version 12 */
	size_t ac_uid;
	size_t ac_flag, ac_etime;
	size_t ac_tgetime;         /* from version 12 */
};

static const struct layout classic = {32, 40, 128, 232, 240, 248, 256, 80, 132, 136, 264, 368, 120, 8, 144, 376};
static const struct layout v15 = {48, 56, 176, 280, 288, 296, 304, 128, 180, 184, 312, 464, 168, 8, 192, 472};

#define AGROUP_FLAG 0x20   /* linux/acct.h's AGROUP, version 12 on */

#define MIN_VERSION 4      /* the I/O byte counters came with version 4 */
#define V15_SIZE 560

static uint64_t u64_at(const unsigned char *p, size_t off)
{
	uint64_t v;
	memcpy(&v, p + off, sizeof v);
	return v;
}

int taskstats_parse(const void *payload, size_t len, struct ts_record *out)
{
	const unsigned char *p = payload;
	memset(out, 0, sizeof *out);
	if (len < 2)
		return -EINVAL;
	uint16_t version;
	memcpy(&version, p, sizeof version);
	/* Some 6.14 release candidates had the version 15 layout while still
	 * saying 14: a "14" of version 15's size is read as 15. */
	const struct layout *l = version == 15 || (version == 14 && len >= V15_SIZE) ? &v15 : &classic;
	if (version < MIN_VERSION || len < l->cancelled + 8)
		return -EINVAL;
	out->version = version;
	memcpy(&out->pid, p + l->ac_pid, sizeof out->pid);
	memcpy(&out->ppid, p + l->ac_ppid, sizeof out->ppid);
	memcpy(&out->uid, p + l->ac_uid, sizeof out->uid);
	memcpy(&out->btime, p + l->ac_btime, sizeof out->btime);
	memcpy(out->comm, p + l->ac_comm, sizeof out->comm - 1);
	out->comm[sizeof out->comm - 1] = '\0';
	out->cancelled_write_bytes = u64_at(p, l->cancelled);
	out->age_us = u64_at(p, l->ac_etime);
	out->group_last = 1;
	if (version >= 12 && len >= l->ac_tgetime + 8) {
		memcpy(&out->tgid, p + l->ac_tgid, sizeof out->tgid);
		out->age_us = u64_at(p, l->ac_tgetime);
		out->group_last = (p[l->ac_flag] & AGROUP_FLAG) != 0;
	}
	out->blkio_count = u64_at(p, l->blkio_count);
	out->blkio_delay_ns = u64_at(p, l->blkio_delay);
	out->read_syscalls = u64_at(p, l->read_syscalls);
	out->write_syscalls = u64_at(p, l->write_syscalls);
	out->read_bytes = u64_at(p, l->read_bytes);
	out->write_bytes = u64_at(p, l->write_bytes);
	return 0;
}

struct taskstats_conn {
	int fd;
	uint16_t family;
	uint32_t seq;
	char buf[4096];
};

#define GENL_DATA(g) ((char *)(g) + GENL_HDRLEN)
#define NLA_DATA(a) ((char *)(a) + NLA_HDRLEN)

/* Send a generic netlink request with one attribute. */
static int send_cmd(struct taskstats_conn *c, uint16_t type, uint8_t cmd, uint16_t attr, const void *data,
		    uint16_t dlen, uint16_t flags)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		char attrs[256];
	} req;
	memset(&req, 0, sizeof req);
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req.n.nlmsg_type = type;
	req.n.nlmsg_flags = NLM_F_REQUEST | flags;
	req.n.nlmsg_seq = ++c->seq;
	req.n.nlmsg_pid = 0;
	req.g.cmd = cmd;
	req.g.version = 1;
	struct nlattr *na = (struct nlattr *)GENL_DATA(&req.g);
	na->nla_type = attr;
	na->nla_len = (uint16_t)(NLA_HDRLEN + dlen);
	memcpy(NLA_DATA(na), data, dlen);
	req.n.nlmsg_len += NLMSG_ALIGN(na->nla_len);
	struct sockaddr_nl to = {.nl_family = AF_NETLINK};
	ssize_t w = sendto(c->fd, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&to, sizeof to);
	return w < 0 ? -errno : 0;
}

/* Receive one reply; returns its length, or a negative errno (an error
 * message from the kernel becomes its errno). */
static ssize_t recv_reply(struct taskstats_conn *c)
{
	ssize_t n = recv(c->fd, c->buf, sizeof c->buf, 0);
	if (n < 0)
		return -errno;
	struct nlmsghdr *h = (struct nlmsghdr *)c->buf;
	if (!NLMSG_OK(h, (size_t)n))
		return -EBADMSG;
	if (h->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA(h);
		return e->error ? e->error : -EBADMSG;
	}
	return n;
}

/* Walk the attributes in [p, p+len) for type; returns it or NULL. */
static struct nlattr *find_attr(char *p, size_t len, uint16_t type)
{
	while (len >= NLA_HDRLEN) {
		struct nlattr *a = (struct nlattr *)p;
		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			return NULL;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		size_t step = NLA_ALIGN(a->nla_len);
		if (step > len)
			return NULL;
		p += step;
		len -= step;
	}
	return NULL;
}

/* One request and its reply; *attrs and *alen: the reply's attributes. */
static int request(struct taskstats_conn *c, uint16_t type, uint8_t cmd, uint16_t attr, const void *data, uint16_t dlen,
		   char **attrs, size_t *alen)
{
	int rc = send_cmd(c, type, cmd, attr, data, dlen, 0);
	if (rc < 0)
		return rc;
	ssize_t n = recv_reply(c);
	if (n < 0)
		return (int)n;
	struct nlmsghdr *h = (struct nlmsghdr *)c->buf;
	if (h->nlmsg_len > (size_t)n || h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return -EBADMSG;
	*attrs = GENL_DATA(NLMSG_DATA(h));
	*alen = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	return 0;
}

static int resolve_family(struct taskstats_conn *c)
{
	const char name[] = TASKSTATS_GENL_NAME;
	char *attrs = NULL;
	size_t alen = 0;
	int rc = request(c, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME, name, sizeof name, &attrs, &alen);
	if (rc < 0)
		return rc;
	struct nlattr *a = find_attr(attrs, alen, CTRL_ATTR_FAMILY_ID);
	if (!a)
		return -ENOENT;
	memcpy(&c->family, NLA_DATA(a), sizeof c->family);
	return 0;
}

/* The socket of a connection, bound, with a receive timeout (a reply
 * that never comes must not hang a refresh), and the family looked up.
 * Returns 0 or a negative errno (c->fd is -1 or open either way). */
static int conn_open(struct taskstats_conn *c)
{
	c->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	struct sockaddr_nl me = {.nl_family = AF_NETLINK};
	struct timeval tv = {.tv_sec = 0, .tv_usec = 200000};
	if (c->fd < 0 || bind(c->fd, (struct sockaddr *)&me, sizeof me) < 0 ||
	    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0)
		return -errno;
	return resolve_family(c);
}

int taskstats_open(struct taskstats_conn **out)
{
	struct taskstats_conn *c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	int rc = conn_open(c);
	if (rc < 0) {
		if (c->fd >= 0)
			close(c->fd);
		free(c);
		return rc;
	}
	*out = c;
	return 0;
}

int taskstats_query(struct taskstats_conn *c, uint32_t id, int tgid, struct ts_record *out)
{
	char *attrs = NULL;
	size_t alen = 0;
	int rc = request(c, c->family, TASKSTATS_CMD_GET, tgid ? TASKSTATS_CMD_ATTR_TGID : TASKSTATS_CMD_ATTR_PID, &id,
			 sizeof id, &attrs, &alen);
	if (rc < 0)
		return rc;
	/* AGGR_PID / AGGR_TGID nest the id and the stats. */
	struct nlattr *agg = find_attr(attrs, alen, tgid ? TASKSTATS_TYPE_AGGR_TGID : TASKSTATS_TYPE_AGGR_PID);
	if (!agg)
		return -EBADMSG;
	struct nlattr *st = find_attr(NLA_DATA(agg), agg->nla_len - NLA_HDRLEN, TASKSTATS_TYPE_STATS);
	if (!st)
		return -EBADMSG;
	return taskstats_parse(NLA_DATA(st), st->nla_len - NLA_HDRLEN, out);
}

void taskstats_close(struct taskstats_conn *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c);
}

/* One record taken off the socket, waiting for a drain. */
struct queued {
	struct ts_record r;
	int tgid;
};

/* The exit records are read as they come by a thread of their own, so
 * that each says, to a few milliseconds, when its task ended (between
 * when the socket was last found empty and when the record was read): a
 * refresh's drain alone knew it only to the interval, too loose to tell a
 * process from the one that got its pid next. */
struct taskstats_listener {
	struct taskstats_conn c;
	char cpus[256];
	pthread_t reader;
	int wake_fd;               /* an eventfd: tells the reader to stop */
	int reading;               /* the reader runs */
	/* Held while the socket is read and for what follows: a drain reads
	 * what is still on the socket itself, so a record sent before it is in
	 * it even when the thread has not run since (a loaded machine). */
	pthread_mutex_t mu;
	double after;              /* mono seconds: the socket was last found empty then */
	struct queued *q;
	size_t n, cap;
	int lost;                  /* records were dropped since the last drain */
	int err;                   /* the reading ended on this error */
	unsigned long queue_dropped; /* of those, for want of room in q (the rest: the socket's) */
};

/* The most records waiting for a drain: about 9 MiB; a main thread that
 * stops draining for long loses the rest, counted as lost. */
#define QUEUE_MAX 65536

/* How long the reader waits after a batch before it looks again: a build's
 * thousands of exits a second cost a few hundred wake-ups, and a record's
 * end time stays known to a few milliseconds. */
#define READER_PAUSE_NS 2000000L

/* How often an idle reader notes that no record came: a record after a
 * quiet minute still says it ended within this of when it was read. */
#define IDLE_LOOK_MS 250

/* Big enough for a build's burst of exits between two drains (each record
 * is about 600 bytes); SO_RCVBUFFORCE passes rmem_max as root. */
#define LISTEN_RCVBUF (8 << 20)

/* Register (or not) for exit records, and wait for the kernel's
 * acknowledgement; exit records that come before it are dropped (nothing
 * is tracked yet). */
static int register_cpus(struct taskstats_conn *c, uint16_t attr, const char *cpus)
{
	size_t len = strlen(cpus) + 1;
	if (len > 200)
		return -EINVAL;
	int rc = send_cmd(c, c->family, TASKSTATS_CMD_GET, attr, cpus, (uint16_t)len, NLM_F_ACK);
	for (int i = 0; rc == 0 && i < 1000; i++) {
		ssize_t n = recv(c->fd, c->buf, sizeof c->buf, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		struct nlmsghdr *h = (struct nlmsghdr *)c->buf;
		if (NLMSG_OK(h, (size_t)n) && h->nlmsg_type == NLMSG_ERROR && h->nlmsg_seq == c->seq)
			return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
	}
	return rc < 0 ? rc : -ETIMEDOUT;
}

/* One exit message: AGGR_PID, and AGGR_TGID after it for a group. */
static int deliver(char *attrs, size_t alen, taskstats_exit_fn fn, void *ctx)
{
	int n = 0;
	while (alen >= NLA_HDRLEN) {
		struct nlattr *a = (struct nlattr *)attrs;
		if (a->nla_len < NLA_HDRLEN || a->nla_len > alen)
			break;
		uint16_t type = a->nla_type & NLA_TYPE_MASK;
		if (type == TASKSTATS_TYPE_AGGR_PID || type == TASKSTATS_TYPE_AGGR_TGID) {
			struct nlattr *st = find_attr(NLA_DATA(a), a->nla_len - NLA_HDRLEN, TASKSTATS_TYPE_STATS);
			struct ts_record r;
			if (st && taskstats_parse(NLA_DATA(st), st->nla_len - NLA_HDRLEN, &r) == 0) {
				fn(ctx, &r, type == TASKSTATS_TYPE_AGGR_TGID);
				n++;
			}
		}
		size_t step = NLA_ALIGN(a->nla_len);
		if (step > alen)
			break;
		attrs += step;
		alen -= step;
	}
	return n;
}

/* One record into the queue (the mutex held): stamped with when its task
 * ended, at the earliest and at the latest. */
struct stamp {
	struct taskstats_listener *l;
	double after, at;
};

static void enqueue(void *ctx, const struct ts_record *r, int tgid)
{
	struct stamp *st = ctx;
	struct taskstats_listener *l = st->l;
	if (l->n == l->cap && (l->cap >= QUEUE_MAX ||
			       util_grow((void **)&l->q, &l->cap, l->n ? 2 * l->n : 256, sizeof *l->q) < 0)) {
		l->lost = 1;
		l->queue_dropped++;
		return;
	}
	struct queued *e = &l->q[l->n++];
	e->r = *r;
	e->r.ended_after = st->after;
	e->r.read_at = st->at;
	e->tgid = tgid;
}

/* Everything on the socket into the queue, l->mu held; l->after: when
 * the socket was found empty (records read later ended after it). An
 * error that ends the reading goes into l->err. */
static void read_all(struct taskstats_listener *l)
{
	struct taskstats_conn *c = &l->c;
	while (!l->err) {
		ssize_t n = recv(c->fd, c->buf, sizeof c->buf, MSG_DONTWAIT);
		int e = n < 0 ? errno : 0;
		double at = util_mono_now();
		if (e == EINTR)
			continue;
		if (e == EAGAIN || e == EWOULDBLOCK) {
			l->after = at;
			return;
		}
		if (e && e != ENOBUFS) {
			l->err = -e;
			return;
		}
		if (e == ENOBUFS)
			l->lost = 1; /* the socket dropped records; it goes on */
		struct stamp st = {l, l->after, at};
		for (struct nlmsghdr *h = (struct nlmsghdr *)c->buf; n > 0 && NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n))
			if (h->nlmsg_type == c->family && h->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN))
				deliver(GENL_DATA(NLMSG_DATA(h)), h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), enqueue, &st);
	}
}

static void *reader_main(void *arg)
{
	struct taskstats_listener *l = arg;
	util_block_stop_signals();
	struct pollfd pf[2] = {{.fd = l->c.fd, .events = POLLIN}, {.fd = l->wake_fd, .events = POLLIN}};
	for (int err = 0; !err;) {
		int rc = poll(pf, 2, IDLE_LOOK_MS);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0 || pf[1].revents)
			break;
		pthread_mutex_lock(&l->mu);
		/* nothing came: the socket is empty now; else read it */
		if (rc == 0)
			l->after = util_mono_now();
		else
			read_all(l);
		err = l->err;
		pthread_mutex_unlock(&l->mu);
		struct timespec pause = {0, READER_PAUSE_NS};
		if (rc > 0)
			nanosleep(&pause, NULL);
	}
	return NULL;
}

static void listener_free(struct taskstats_listener *l)
{
	if (l->wake_fd >= 0)
		close(l->wake_fd);
	if (l->c.fd >= 0)
		close(l->c.fd);
	pthread_mutex_destroy(&l->mu);
	free(l->q);
	free(l);
}

int taskstats_listen(const char *cpus, struct taskstats_listener **out)
{
	struct taskstats_listener *l = calloc(1, sizeof *l);
	if (!l)
		return -ENOMEM;
	pthread_mutex_init(&l->mu, NULL);
	struct taskstats_conn *c = &l->c;
	int size = LISTEN_RCVBUF;
	int rc = conn_open(c);
	/* SO_RCVBUFFORCE as root; else what rmem_max allows */
	if (rc == 0 && setsockopt(c->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0)
		setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
	util_strlcpy(l->cpus, cpus, sizeof l->cpus);
	if (rc == 0)
		rc = register_cpus(c, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, l->cpus);
	l->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (rc == 0 && l->wake_fd < 0)
		rc = -errno;
	l->after = util_mono_now();
	if (rc == 0)
		rc = -pthread_create(&l->reader, NULL, reader_main, l);
	if (rc < 0) {
		listener_free(l);
		return rc;
	}
	l->reading = 1;
	*out = l;
	return 0;
}

int taskstats_drain(struct taskstats_listener *l, taskstats_exit_fn fn, void *ctx)
{
	pthread_mutex_lock(&l->mu);
	read_all(l); /* what the thread has not read yet */
	struct queued *q = l->q;
	size_t n = l->n;
	int lost = l->lost, err = l->err;
	l->q = NULL;
	l->n = l->cap = 0;
	l->lost = 0;
	pthread_mutex_unlock(&l->mu);
	for (size_t i = 0; fn && i < n; i++)
		fn(ctx, &q[i].r, q[i].tgid);
	free(q);
	if (err)
		return err;
	return lost ? -ENOBUFS : (int)(n > INT_MAX ? INT_MAX : n);
}

/* The kernel counts each message it could not queue on a netlink socket
 * (sk_drops, netlink_overrun); /proc/net/netlink shows it per socket, found
 * by its inode. One line per netlink socket of this network namespace:
 * bounded, in case of a machine with very many. */
#define NETLINK_LINES_MAX 100000

int taskstats_dropped(const struct taskstats_listener *l, unsigned long *out)
{
	struct stat st;
	if (fstat(l->c.fd, &st) < 0)
		return -errno;
	FILE *f = fopen("/proc/net/netlink", "re");
	if (!f)
		return -errno;
	char line[256];
	int rc = -ENOENT;
	for (int i = 0; rc == -ENOENT && i < NETLINK_LINES_MAX && fgets(line, sizeof line, f); i++) {
		/* sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode */
		unsigned long drops, ino;
		if (sscanf(line, "%*s %*d %*u %*x %*d %*d %*d %*d %lu %lu", &drops, &ino) == 2 && ino == st.st_ino) {
			pthread_mutex_lock((pthread_mutex_t *)&l->mu);
			*out = drops + l->queue_dropped;
			pthread_mutex_unlock((pthread_mutex_t *)&l->mu);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

void taskstats_unlisten(struct taskstats_listener *l)
{
	if (!l)
		return;
	if (l->reading) {
		uint64_t one = 1;
		if (write(l->wake_fd, &one, sizeof one) != (ssize_t)sizeof one)
			pthread_cancel(l->reader); /* (an eventfd write fails only on overflow) */
		pthread_join(l->reader, NULL);
	}
	/* Closing the socket ends the registration too; saying so first
	 * spares the kernel a failed send per exit until it notices. */
	send_cmd(&l->c, l->c.family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, l->cpus,
		 (uint16_t)(strlen(l->cpus) + 1), 0);
	listener_free(l);
}
