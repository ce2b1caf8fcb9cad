/* sample: one tick of everything the collectors read. Views (TUI, batch
 * text, JSON) read a struct sample and nothing else; the sampler is the only
 * thing that fills one. The sampler also owns the collectors that run in
 * the background (the probes) and the log of events actuators post. */
#ifndef IOSCHED_SAMPLE_H
#define IOSCHED_SAMPLE_H

#include <stddef.h>

#include "bpf/blklat.h"
#include "read/disk.h"
#include "read/diskstats.h"
#include "base/event.h"
#include "read/iostat.h"
#include "probe/freshjob.h"
#include "probe/latwin.h"
#include "probe/probe.h"
#include "procs/procs.h"
#include "base/util.h"
#include "model/extswitch.h"
#include "read/cgroup.h"
#include "read/psi.h"
#include "read/writeback.h"

#define CHART_SECONDS 120

/* Probe figures over one window; quantiles are only meaningful where
 * hist_enough(n, q) says so — views show "-" / null otherwise. */
struct probe_summary {
	uint64_t n;
	uint64_t p50_ns, p90_ns, p99_ns, p999_ns, max_ns;
	double mean_ns;
	uint64_t flagged;
};

/* A disk's last completed scheduler switch, as the probe saw it: the 10 s
 * before the switch began against the 10 s after it ended, so the effect
 * can be read off in numbers, not guessed from a chart. */
struct switch_compare {
	int state;                 /* 0: no switch yet; 1: the after window fills; 2: complete */
	char from[48], to[48];
	double mono;               /* when the switch ended */
	double ts;                 /* the same, unix seconds */
	double rate_hz;            /* the probe's pace then (0: back-to-back) */
	struct probe_summary before, after;
	double before_s, after_s;  /* seconds each window covers */
	/* The before window's two halves, half_s seconds each (0: too short
	 * to halve): how much the disk moved by itself, so a change no larger
	 * than that is shown as within noise. */
	struct probe_summary half1, half2;
	double half_s;
	/* Fresh readers' jobs (F, --fresh-every) that ended on the disk in
	 * each window: how many, and the median job time. */
	int fresh_before_n, fresh_after_n;
	double fresh_before_ms, fresh_after_ms;
	/* Bytes the disk served while probe reads waited (BPF), by kind
	 * (enum blk_kind), over the before window and the after window so
	 * far: who was served first, before and after. */
	struct blk_kind_bytes { uint64_t b[BLK_NKINDS]; } behind_before, behind_after;
};

/* A change queued or in the kernel, as the sampler is told of it: the
 * session hands control's queue (control_pending) to each collection, so
 * neither holds a pointer to the other. */
struct pending_change {
	char disk[DISK_NAME_MAX];
	char key[48];              /* as shown: "scheduler", "iosched/slice_idle" */
	char to[48];
	int running;               /* in the kernel now; else waiting its turn */
	double since;              /* mono time it started or was queued */
};

/* A change queued or in the kernel for a disk (see worker.h). */
struct disk_pending {
	int jobs;                  /* how many are waiting or running; 0: none */
	int running;               /* the first is in the kernel now */
	char key[48];              /* of the first */
	char to[48];
	double secs;               /* how long the first has been running/waiting */
};

/* What the probe's reads waited behind over the last 10 s (BPF): the
 * bytes the disk served while one of them was in flight, by owner and
 * kind, largest first; and the reads themselves. */
#define PROBE_AHEAD_MAX 5
#define PROBE_SLOW_US 10000.0      /* a probe read over 10 ms is a slow one */

struct probe_ahead {
	int pid;
	char comm[64];
	enum blk_kind kind;
	uint64_t bytes;
	double share;              /* of all bytes served while probe reads waited */
};

/* One of the slowest probe reads of the 10 s: the slowest of its second
 * (a read that spans seconds is listed once), and what the disk served
 * most while the probe's reads of that second waited (the intervals that
 * overlap it; top.bytes 0: nothing seen). */
#define PROBE_SLOWEST_MAX 3
struct probe_slowest {
	double ts;                 /* unix seconds: the start of the second it completed in */
	double us;
	struct probe_ahead top;    /* share: of the bytes served in those intervals */
};

struct probe_slow {
	uint64_t reads;            /* the 10 s's probe reads over PROBE_SLOW_US */
	double worst_us;
	uint64_t total;            /* bytes served while probe reads waited */
	int n;
	struct probe_ahead ahead[PROBE_AHEAD_MAX];
	int nslowest;              /* reads over PROBE_SLOW_US, slowest first */
	struct probe_slowest slowest[PROBE_SLOWEST_MAX];
};

#define DISK_WAITING_MAX 3
struct disk_sample {
	struct disk_info info;
	int have_rates;            /* 0 on a disk's first tick: no previous reading */
	struct iostat_rates io;
	unsigned long long in_flight;
	int probed;                /* a probe was asked for: probe_st says how it is */
	struct probe_status probe_st;
	struct probe_summary probe;        /* this interval */
	struct probe_summary probe_10s;    /* the last 10 s */
	struct probe_summary probe_change; /* since the last scheduler change */
	/* Time-based figures of the last 10 s (readfig.h): what a greedy
	 * reader lived through, not only how its reads were spread. */
	double probe_rps_10s;      /* reads per second */
	double probe_stall10_10s, probe_stall100_10s; /* share of the time in reads > 10 ms, > 100 ms */
	struct switch_compare cmp; /* the last switch, before against after */
	struct latwin_point chart[CHART_SECONDS]; /* per second, oldest first */
	struct hist probe_hist;    /* the probe's histogram of this interval (for recordings) */
	struct disk_pending pending;
	double last_switch_ms;     /* the last scheduler switch's duration; < 0: none */
	char warning[96];          /* an odd combination worth a look, or "" */
	struct probe_slow slow;
	/* Bytes of file-data writes to it since start whose dirtier was not
	 * known (BPF): what TO-DISK/s could not charge. */
	uint64_t blk_unattributed;
	/* The processes waiting longest on it at the reading, oldest request
	 * first (BPF; sample_settle_waiting): every output reads these */
	struct blk_wait waiting[DISK_WAITING_MAX];
	size_t nwaiting;
};

/* A cgroup's figures over the interval (samplecgroups.c): from the rows
 * of its processes (every process's cgroup, procs.h), and from its own
 * files under the cgroup v2 mount: io.pressure; io.stat, io.weight and
 * io.bfq.weight where the io controller is on v2. source says which
 * figure came from where, and what is missing and why. */
#define SAMPLE_CGROUPS_MAX 32
#define CGROUP_SOURCE_MAX 640 /* every source and every missing file worded: about 560 */
#define CGROUP_LIMITS_MAX 160
struct cgroup_sample {
	char path[CGROUP_PATH_MAX];   /* relative to the v2 root; "/" the root; "" not known */
	char unit[128];               /* the name users know it by (cgroup_unit_name) */
	char parent[CGROUP_PATH_MAX]; /* the cgroup above (its slice) */
	int procs;                    /* live processes in it */
	double read_Bps, write_Bps;   /* its processes' /proc/PID/io, ended ones' last interval included */
	double to_disk_Bps;           /* its processes' TO-DISK (BPF; a dirtier's writeback is its
				       * cgroup's, after it ended too); -1: not known */
	int have_psi;                 /* io.pressure read */
	double some_avg10, full_avg10;
	double some_pct, full_pct;    /* share of the interval stalled (total= deltas); -1: no
				       * earlier reading of it */
	uint64_t some_total_us, full_total_us;
	int have_stat;                /* io.stat read (whole disks only: a byte counted once) */
	double stat_read_Bps, stat_write_Bps; /* -1: no earlier reading */
	uint64_t stat_rbytes, stat_wbytes;
	int bfq_weight, io_weight;    /* default weights; -1: no such file (source says why) */
	/* io.max and io.latency where the io controller is on v2, their
	 * settings other than "max" (io_limits_condense); "" with have_*
	 * set: the file says no limit. */
	int have_io_max, have_io_latency;
	char io_max[CGROUP_LIMITS_MAX], io_latency[CGROUP_LIMITS_MAX];
	/* Its processes' block I/O wait (delay accounting), summed, in % of
	 * the interval: 150 is one and a half processes waiting all the
	 * time on average. -1: not known (delay accounting off). */
	double io_wait_pct;
	/* Its processes' pauses in dirty-page throttling (BPF), summed, in
	 * % of the interval, as io_wait_pct. -1: not known. */
	double throttled_pct;
	char source[CGROUP_SOURCE_MAX];
};

/* What the cgroups left out of a sample's list did, summed. */
struct cgroup_rest {
	int n;
	double read_Bps, write_Bps, to_disk_Bps;
};

/* What the reads of the unit whose details are open waited behind (the
 * BPF part; sampler_watch_unit): per disk, the bytes the disk served while
 * one of them was in flight, by owner and kind, largest first, over the
 * last 10 s of the watch. */
#define UNIT_BEHIND_DISKS 4
struct unit_behind_disk {
	char disk[DISK_NAME_MAX];
	uint64_t total;
	int ntop;
	struct probe_ahead top[PROBE_AHEAD_MAX];
};

struct unit_behind {
	char path[CGROUP_PATH_MAX];   /* the unit watched; "" none */
	double secs;                  /* how long it has been watched, up to 10 s */
	char why[160];                /* why nothing can be said (no BPF, no such cgroup), or "" */
	int ndisks;
	struct unit_behind_disk disks[UNIT_BEHIND_DISKS];
};

struct sample {
	double ts;                 /* unix seconds (CLOCK_REALTIME) */
	double mono;               /* CLOCK_MONOTONIC seconds of the reading */
	double interval_s;         /* measured on CLOCK_MONOTONIC since the previous tick */
	char host[128];
	char kernel[128];
	int psi_err;               /* 0, or negative errno: why psi is absent */
	struct psi psi;
	int have_load;
	double load[3];
	struct disk_sample *disks; /* real disks first, then virtual ones; by name within */
	size_t ndisks, cap;
	size_t nhidden;            /* disks left out by default (disk.h), not shown */
	char hidden_what[96];      /* "16 loop devices", for the line that says so */
	struct event events[EVENTLOG_PENDING];   /* what happened in this interval */
	size_t nevents;
	struct event recent[EVENTLOG_RECENT];    /* the latest events, oldest first */
	size_t nrecent;
	double probe_rate_hz;      /* the pacing in force (0: back-to-back) */
	/* processes (when the sampler reads them) */
	int have_procs;
	struct proc_row *procs;
	size_t nprocs, procs_cap;
	struct util_texts texts;   /* a replayed sample's: what its rows' cmdline point to */
	struct procs_status pstat;
	struct writeback_info wb;
	/* Two different things, shown apart: what processes ask for and what
	 * disks do (a buffered writer dirties pages now, the flushers write
	 * them seconds later; a direct writer does both at once). */
	double write_MBps;         /* "to disks": writes of the disks that are not stacked on others */
	int top_disk;              /* index into disks of the one written most among those; -1 */
	double dirty_MBps;         /* "dirtying": the processes' write_bytes per second */
	int top_writer;            /* index into procs of the busiest such writer (not a kernel flusher); -1 */
	/* block-layer latency per process (BPF; see blklat.h) */
	int blk_on;                /* 0: off, blk_why says why */
	char blk_why[96];
	const char *blk_stage;     /* which tracepoint names a request's owner */
	struct blk_reading blk;
	/* per cgroup (v2): the busiest SAMPLE_CGROUPS_MAX by bytes, then by
	 * processes; the rest summed. cgroups_why: what is missing on this
	 * machine and why ("" when nothing is) */
	struct cgroup_sample *cgroups;
	size_t ncgroups, cgroups_cap;
	struct cgroup_rest cgroups_rest;
	char cgroups_why[160];
	struct unit_behind unit_behind;
};

struct sampler_config {
	const char *const *only;   /* --disk names, or NULL for every disk */
	size_t nonly;
	int probe;                 /* 0: no probes at all */
	const char *const *probe_only; /* --probe names, or NULL for the default set */
	size_t nprobe_only;
	double probe_rate_hz;
	uint32_t probe_size;
	uint64_t seed;
	int have_seed;
	const char *probe_file;    /* --probe-file, or NULL */
	const char *probe_file_disk; /* the whole disk it is on */
	uint64_t probe_file_size;
	int probe_file_write;      /* --probe-file-size: the file fallback may write a probe file */
	int procs;                 /* read processes */
	int threads;               /* per-thread rows */
	double delayacct_since;    /* uptime when this run turned delay accounting on, or 0 */
	int bpf;                   /* load the block-latency BPF program (with procs) */
	/* Seconds to wait for the BPF part before the first reading, so the
	 * first interval has its figures (a one-line JSON run: its line has
	 * TO-DISK); 0: it loads after the first sample, which does not wait */
	double bpf_first_s;
	int all_disks;             /* --all-disks: the disks hidden by default too (disk.h) */
	int cgroups;               /* an output writes cgroups (JSON, --csv-cgroups, Prometheus, a
				    * recording): read them at every tick; else only while shown */
};

/* The sampler: opaque (its parts, src/model/sampleparts.h, hold its
 * state); sampler_new makes one, sampler_free ends it. */
struct sampler;
struct replay;

/* The sample's top writer and top disk, or NULL: never an index past its
 * arrays (a sample not yet filled, or one a replay could not finish). */
const struct proc_row *sample_top_writer(const struct sample *s);
const struct disk_sample *sample_top_disk(const struct sample *s);
/* The process the most bytes of "to disks" (write_MBps) were written
 * for, by sample_to_disks_part_Bps, or NULL. */
const struct proc_row *sample_top_to_disk(const struct sample *s);
/* How many bytes a second of "to disks" were written for process r: its
 * TO-DISK/s, counted on the disks that total counts (a writer through a
 * loop device at the disk below, as the total: sample_settle_to_disk).
 * Never more than the total: the block layer's count and the disks' own
 * are read a moment apart, and a part larger than its whole says nothing
 * true. */
double sample_to_disks_part_Bps(const struct sample *s, const struct proc_row *r);
/* Each process's TO-DISK in the reading (blk_proc.to_disk_bytes): its
 * writes on the disks "to disks" counts, the physical ones under a stack
 * (a loop device's bytes at the disk under its file, where they are
 * written), so that no process's figure is counted where the total is
 * not; as read (the top of a stack) while no disk has rates yet. */
void sample_settle_to_disk(struct sample *out);
/* Each disk's processes waiting longest (disk_sample.waiting), from the
 * reading's requests in flight: once, live or replayed, for every output. */
void sample_settle_waiting(struct sample *out);

/* Start a sampler into *out (cfg's arrays must outlive it). Returns 0 or
 * a negative errno (*out NULL). */
int sampler_new(struct sampler **out, const struct sampler_config *cfg);

/* Read samples from a recording instead of the system (the sampler owns
 * r from here). sampler_collect then returns -ENODATA at its end. */
void sampler_use_replay(struct sampler *s, struct replay *r);

/* Take the first diskstats reading so the first sample has rates. */
int sampler_prime(struct sampler *s);

/* Fill out with a new tick; pend (n of them) are the changes queued or in
 * the kernel now. Returns 0 or a negative errno (when /proc/diskstats
 * cannot be read); a disk that vanished is just absent. */
int sampler_collect(struct sampler *s, struct sample *out, const struct pending_change *pend, size_t n);

/* Give rows of out, the last sample collected, their command lines
 * (procs_name): those at idx (n of them), or every row with idx NULL. A
 * view calls this for what it shows or filters by, before it does; a
 * replayed sample has its recorded ones. */
void sampler_name_rows(struct sampler *s, struct sample *out, const size_t *idx, size_t n);

/* Whether cgroups are read (sample's cgroups[]): an output writes them
 * (cfg.cgroups) or the units pane is open. Opening it (on) reads every
 * row's cgroup of out, the last tick, at once and fills out's cgroups, a
 * one-off cost; closing it stops the reading. */
int sampler_reads_cgroups(const struct sampler *s);
void sampler_show_cgroups(struct sampler *s, struct sample *out, int on);

/* Watch the reads of the cgroup at path (relative to the v2 root; ""
 * stops): from the next tick on, the sample's unit_behind says what they
 * waited behind (the BPF part). One unit at a time: the one whose details
 * the full screen shows. */
void sampler_watch_unit(struct sampler *s, const char *path);

/* The disks the system has now, unfiltered (for validating --disk). */
int sampler_list_disks(struct sampler *s, struct disk_info **out, size_t *n);

/* Whether disk d is to be probed under the configuration. */
int sampler_wants_probe(const struct sampler *s, const struct disk_info *d);

/* Record an event (it appears in the next sample). A successful scheduler
 * change also restarts that disk's since-change window. */
void sampler_post(struct sampler *s, const struct event *e);

/* An odd combination worth a note (never a refusal): kyber or none on a
 * rotational disk (loop devices excepted: theirs is the backing file's),
 * bfq above 100k IOPS, a zoned disk not on mq-deadline. "" when none. */
void sample_warning(const struct disk_sample *d, char *buf, size_t len);

/* Bring the pending-change fields of out up to date (cheap: no sysfs), so
 * a queued switch shows at once rather than at the next tick. */
void sampler_refresh_pending(struct sampler *s, struct sample *out, const struct pending_change *pend, size_t n);

/* Hold off (disk) or resume (NULL) the probe of one disk: an A/B run in
 * the full-screen view measures with a probe of its own, and a second
 * reader would change what it measures. */
void sampler_hold_probe(struct sampler *s, const char *disk);

/* Probe disk from the next refresh, whatever the default set, --probe or
 * --no-probe say (a user asked for it by name, O); asked again, the probe
 * it added stops. Returns 0 (added), 1 (stopped), or -1 with why in err
 * (no scheduler, size 0, too many asked already, probed already by
 * --probe or by default). */
int sampler_probe_add(struct sampler *s, const struct disk_info *d, char *err, size_t len);

/* Why d is not probed, and how to probe it, as the screen and JSON say it. */
void sampler_unprobed_why(const struct sampler *s, const struct disk_info *d, char *buf, size_t len);

/* Start a fresh reader's job (freshjob.h) of reads reads on what disk's
 * probe reads; its time arrives as a "fresh" event in a later sample.
 * One at a time. Returns 0, or -1 with why in err. */
int sampler_fresh_start(struct sampler *s, const char *disk, uint32_t reads, char *err, size_t len);

/* Change every probe's pacing (0: back-to-back). */
void sampler_set_probe_rate(struct sampler *s, double hz);

/* What a session asks between ticks (sampleset.c). */
void sampler_set_delayacct_since(struct sampler *s, double since);
/* x: the disks hidden by default shown or not; returns the new state */
int sampler_toggle_hidden(struct sampler *s);
int sampler_showing_hidden(const struct sampler *s);
/* p: per-thread rows or not; returns the new state */
int sampler_toggle_threads(struct sampler *s);
int sampler_replaying(const struct sampler *s);
/* why a replay ended early, or "" */
const char *sampler_replay_msg(const struct sampler *s);
struct udev *sampler_udev(const struct sampler *s);
/* the disk --probe-file is on, or NULL */
const char *sampler_probe_file_disk(const struct sampler *s);
/* sampler_probe_add on the disk named disk: its result (1 stopped, 0
 * started, -1 refused: why in err), or -ENOENT when the sampler has no
 * such disk now */
int sampler_probe_disk(struct sampler *s, const char *disk, char *err, size_t len);

void sampler_free(struct sampler *s);
void sample_free(struct sample *smp);

#endif
