/* taskstats: per-task accounting from the kernel over generic netlink
 * (Documentation/accounting/taskstats.rst): block-I/O delay (with
 * kernel.task_delayacct on) and I/O bytes per task or thread group — the
 * bytes without the reaped children that /proc/PID/io adds in. Needs
 * CAP_NET_ADMIN. The payload's layout changed over versions; the parser
 * reads fields by version and refuses what it cannot place. */
#ifndef IOSCHED_TASKSTATS_H
#define IOSCHED_TASKSTATS_H

#include <stddef.h>
#include <stdint.h>

struct ts_record {
	unsigned version;
	uint32_t pid;              /* ac_pid: the task (thread) */
	uint32_t tgid;             /* ac_tgid: its process; 0 before version 12 */
	uint32_t ppid;             /* ac_ppid: the parent's process */
	uint32_t uid;              /* ac_uid */
	uint32_t btime;            /* ac_btime: start, unix seconds */
	/* How long its process had run when the task ended, in µs of the
	 * monotonic clock: ac_tgetime (its first thread's start to this
	 * exit) from version 12, before that ac_etime (the task's own). With
	 * the time the record was read it bounds when the process started,
	 * which tells a reused pid's records from the old process's. */
	uint64_t age_us;
	int group_last;            /* AGROUP: the process's last task (from version 12; before it every record) */
	/* An exit record's task ended between these (mono seconds): when the
	 * listener last found its socket empty, and when it read the record. */
	double ended_after, read_at;
	char comm[32];             /* ac_comm, always terminated */
	uint64_t cancelled_write_bytes; /* dirtied, then truncated before writeback */
	uint64_t blkio_count;      /* synchronous block I/O waits */
	uint64_t blkio_delay_ns;   /* their total time */
	uint64_t read_bytes, write_bytes;
	uint64_t read_syscalls, write_syscalls;
};

/* Parse a struct taskstats payload of len bytes. Returns 0, or -EINVAL when
 * it is too short for its version or the version is unknown (older than 4). */
int taskstats_parse(const void *payload, size_t len, struct ts_record *out);

struct taskstats_conn;

/* Open the netlink connection and look up the TASKSTATS family. Returns 0
 * or a negative errno (-EPERM without CAP_NET_ADMIN shows only at query). */
int taskstats_open(struct taskstats_conn **out);

/* Query one thread group (tgid != 0) or one thread. Returns 0, -ESRCH when
 * it is gone, -EPERM without the capability, or another negative errno. */
int taskstats_query(struct taskstats_conn *c, uint32_t id, int tgid, struct ts_record *out);

void taskstats_close(struct taskstats_conn *c);

/* Exit records: the kernel sends one for every task that exits on a
 * registered CPU (its own I/O, without what its reaped children brought
 * it), and one more for a thread group of several threads when its last
 * thread goes. Needs CAP_NET_ADMIN. A thread of the listener's reads them
 * as they come and keeps them for taskstats_drain, each with when its task
 * ended to a few milliseconds (ended_after, read_at). */
struct taskstats_listener;

/* Register for the exit records of tasks on cpus, a list as in
 * /sys/devices/system/cpu/possible ("0-3,6"). Returns 0, -EPERM without the
 * capability, or another negative errno. */
int taskstats_listen(const char *cpus, struct taskstats_listener **out);

/* Called for each record: a task's (tgid 0) or a thread group's (tgid 1,
 * after its per-task record). */
typedef void (*taskstats_exit_fn)(void *ctx, const struct ts_record *r, int tgid);

/* Take the records that have arrived, without waiting (fn NULL: take
 * them off and drop them). Returns how many, or -ENOBUFS when some were
 * lost because the socket's buffer or the listener's queue overflowed
 * (those read are still given), or another negative errno (the reading
 * ended on it). */
int taskstats_drain(struct taskstats_listener *l, taskstats_exit_fn fn, void *ctx);

/* How many exit records were dropped since l was opened because its
 * socket's buffer was full (each one task's record: the netlink socket's
 * drop count, /proc/net/netlink) or its queue was. Records the kernel could
 * not allocate memory for are not in it. Returns 0 or a negative errno. */
int taskstats_dropped(const struct taskstats_listener *l, unsigned long *out);

void taskstats_unlisten(struct taskstats_listener *l);

#endif
