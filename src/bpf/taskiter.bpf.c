// SPDX-License-Identifier: GPL-2.0
/* taskiter.bpf.c: the process pane's per-task figures, read in the kernel.
 *
 * One read of the iterator walks every task (thread) in pid order. A task
 * whose I/O counters, state or name are as the last walk left them writes
 * its id alone (8 bytes: user space learns who is still there); a new or
 * changed one writes the whole record (taskmaps.h): its ids, owner, state,
 * nice, start time, name, and the I/O counters /proc/PID/io shows (the
 * thread's own, and for a group leader the group's ended threads', which
 * /proc adds to a process's figure). So a refresh costs the kernel a walk
 * and a map lookup per task, and user space the tasks that moved, instead
 * of a /proc file read per task. Thread and process starts are counted
 * (on_fork), so the ended threads' and reaped children's counters are
 * read only where they can have moved.
 *
 * Only the fields read are declared (CO-RE, as blklat.bpf.c). */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "taskiter_maps.h"

struct seq_file;

struct bpf_iter_meta {
	struct seq_file *seq;
	__u64 session_id;
	__u64 seq_num;
} __attribute__((preserve_access_index));

struct task_io_accounting {
	__u64 syscr;
	__u64 syscw;
	__u64 read_bytes;
	__u64 write_bytes;
} __attribute__((preserve_access_index));

struct signal_struct {
	struct task_io_accounting ioac;
} __attribute__((preserve_access_index));

typedef struct {
	unsigned int val;
} kuid_t;

struct cred {
	kuid_t euid;
} __attribute__((preserve_access_index));

struct list_head {
	struct list_head *next, *prev;
};

struct task_struct {
	int pid;
	int tgid;
	struct list_head thread_node;
	struct list_head children;
	unsigned int __state;
	int exit_state;
	int static_prio;
	unsigned int flags;
	char comm[16];
	__u64 start_boottime;
	struct task_struct *real_parent;
	struct task_io_accounting ioac;
	struct signal_struct *signal;
	const struct cred *cred;
} __attribute__((preserve_access_index));

/* Before 5.14 the state was a long named state. */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));

/* Sized by user space before load (TASKMAP_SEEN_MIN to _MAX); an entry
 * the LRU drops only makes its task write a whole record once more. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TASKMAP_SEEN_MIN);
	__type(key, __u32);
	__type(value, struct taskmap_seen);
} seen SEC(".maps");

/* Thread and process starts, by the tgid % TASKMAP_FORK_SLOTS of the
 * process they join or are a child of (on_fork). A process's ended
 * threads' and reaped children's counters (signal->ioac, which
 * /proc/PID/io adds to its own) change only when one of its threads ends
 * or it reaps a child, and either was started first: so the walk follows
 * the pointer to them (a dependent cache miss, a third of its time per
 * task) only for a leader that is new to it, has other threads or
 * children now or had when it last looked, or whose slot counted a start
 * since. (A child that is reparented to a process with no children of its
 * own, after its parent ended, and reaped there within one refresh, is
 * the one case not seen at once: its reaper's figure catches up when the
 * reaper next changes.) */
__u32 forks[TASKMAP_FORK_SLOTS];

/* The new task is linked into its group's thread list and its parent's
 * children before this tracepoint, which comes before it runs. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 into = child->pid != child->tgid ? (__u32)child->tgid : (__u32)child->real_parent->tgid;
	__sync_fetch_and_add(&forks[into % TASKMAP_FORK_SLOTS], 1);
	return 0;
}

/* A scratch record: the BPF stack (512 bytes) is tight. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct taskmap_rec);
} scratch SEC(".maps");

/* The task's raw state bits, as task_state_index reads them (the state
 * and the exit state): what the walk compares, the letter computed only
 * for a record that is sent. */
static __always_inline unsigned int state_bits(struct task_struct *t)
{
	unsigned int st;
	if (bpf_core_field_exists(t->__state))
		st = BPF_CORE_READ(t, __state);
	else
		st = (unsigned int)BPF_CORE_READ((struct task_struct___old *)t, state);
	return st | (unsigned int)t->exit_state;
}

/* The letter /proc/PID/stat shows (fs/proc/array.c, task_state_index):
 * the highest of the reported state bits, TASK_IDLE apart. */
static __always_inline char state_letter(unsigned int st)
{
	unsigned int raw = st & 0x7f;
	if ((st & 0x402) == 0x402)
		raw = 0x80; /* TASK_IDLE: I */
	if (st & 0x1000)
		raw = 0x2; /* TASK_RTLOCK_WAIT: D */
	int idx = 0;
	for (int b = 0; b < 8; b++)
		if (raw & (1u << b))
			idx = b + 1;
	const char letters[] = "RSDTtXZPI";
	return idx < 9 ? letters[idx] : '?';
}

/* Plain loads: the iterator's task is a trusted pointer, and a helper
 * call per field (BPF_CORE_READ) was a fifth of the walk's time. */
static __always_inline void io_of(const struct task_io_accounting *a, struct taskmap_io *o)
{
	o->rbytes = a->read_bytes;
	o->wbytes = a->write_bytes;
	o->syscr = a->syscr;
	o->syscw = a->syscw;
}

static __always_inline __u64 io_sum(const struct task_io_accounting *a)
{
	return a->read_bytes + a->write_bytes + a->syscr + a->syscw;
}

/* A leader's part of now: the sum of its ended threads' and reaped
 * children's counters, read when it may have changed since was (see
 * forks), else was's. The slot is read before the lists: a task linked
 * after that read counts in the slot by the next walk (its tracepoint
 * comes after the link; loads keep their order on x86, the target built
 * for). One thread: its node's both neighbours are the group's list head. */
static __always_inline void leader_part(struct task_struct *t, __u32 tid, const struct taskmap_seen *was,
					struct taskmap_seen *now)
{
	now->forks = forks[tid % TASKMAP_FORK_SLOTS];
	asm volatile("" ::: "memory");
	now->kin = (t->thread_node.next != t->thread_node.prev ? TASKMAP_KIN_THREADS : 0) |
		   (t->children.next != &t->children ? TASKMAP_KIN_CHILDREN : 0);
	if (!was || now->kin || was->kin || was->forks != now->forks)
		now->dead_sum = io_sum(&t->signal->ioac);
	else
		now->dead_sum = was->dead_sum;
}

/* An unchanged task is told from what can be read without writing the
 * record (most tasks, most refreshes, are unchanged): its counters' sums,
 * start time, state bits and name; only a changed or new one fills the
 * scratch record and computes the rest. */
SEC("iter/task")
int walk(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	if (!t)
		return 0; /* the end of the walk */
	__u32 tid = (__u32)t->pid;
	int leader = t->pid == t->tgid;
	const struct task_io_accounting *own = &t->ioac;
	struct taskmap_seen now = {.sum = io_sum(own), .start_ns = t->start_boottime, .state = state_bits(t)};
	__builtin_memcpy(now.comm, t->comm, sizeof now.comm);
	struct taskmap_seen *was = bpf_map_lookup_elem(&seen, &tid);
	if (leader)
		leader_part(t, tid, was, &now);
	if (was && was->sum == now.sum && was->dead_sum == now.dead_sum && was->start_ns == now.start_ns &&
	    was->state == now.state && was->comm[0] == now.comm[0] && was->comm[1] == now.comm[1]) {
		if (was->forks != now.forks || was->kin != now.kin) {
			/* what the next walk compares with (a store only then:
			 * each dirties a line) */
			was->forks = now.forks;
			was->kin = now.kin;
		}
		struct taskmap_head h = {.tid = tid, .full = 0};
		bpf_seq_write(seq, &h, sizeof h);
		return 0;
	}
	__u32 z = 0;
	struct taskmap_rec *r = bpf_map_lookup_elem(&scratch, &z);
	if (!r)
		return 0;
	bpf_map_update_elem(&seen, &tid, &now, BPF_ANY);
	r->h.tid = tid;
	r->h.full = 1;
	r->tgid = (__u32)t->tgid;
	r->state = state_letter(now.state);
	__builtin_memcpy(r->comm, now.comm, sizeof r->comm);
	io_of(own, &r->own);
	if (leader)
		io_of(&t->signal->ioac, &r->dead);
	else
		r->dead = (struct taskmap_io){0};
	r->start_ns = now.start_ns;
	r->ppid = (__u32)t->real_parent->tgid;
	r->euid = t->cred->euid.val;
	r->nice = t->static_prio - 120;
	r->pf = t->flags;
	bpf_seq_write(seq, r, sizeof *r);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
