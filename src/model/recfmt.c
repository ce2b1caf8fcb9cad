/* recfmt: see include/model/recfmt.h */
#include "model/recfmt.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model/sample.h"
#include "base/util.h"

/* Seconds past this (1e300, -9.2e18) would overflow the int64 seconds the
 * chart computes with. */
#define TIME_MAX_S 1e11

/* Field helpers: F for a member, T for a tuple member (no key). */
#define F(k, t, s, m, ...) {.key = k, .type = t, .off = offsetof(s, m), .size = sizeof(((s *)0)->m), __VA_ARGS__}
#define T(t, s, m, ...) F(NULL, t, s, m, __VA_ARGS__)
#define END {.type = RF_END}

/* Enums are read and written through an int. */
_Static_assert(sizeof(enum disk_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum probe_mode) == sizeof(int), "enum size");
_Static_assert(sizeof(enum probe_state) == sizeof(int), "enum size");
_Static_assert(sizeof(enum event_type) == sizeof(int), "enum size");
_Static_assert(sizeof(enum proc_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum proc_wait) == sizeof(int), "enum size");
_Static_assert(sizeof(enum blk_op) == sizeof(int), "enum size");
_Static_assert(sizeof(enum blk_kind) == sizeof(int), "enum size");
_Static_assert(sizeof(enum proc_cgsrc) == sizeof(int), "enum size");

/* Enum names, from the modules that own the enums. */
static const char *nm_disk_kind(int v) { return disk_kind_name((enum disk_kind)v); }
static const char *nm_probe_mode(int v) { return probe_mode_name((enum probe_mode)v); }
static const char *nm_probe_state(int v) { return probe_state_name((enum probe_state)v); }
static const char *nm_event(int v) { return event_type_name((enum event_type)v); }
static const char *nm_proc_kind(int v) { return procs_kind_name((enum proc_kind)v); }
static const char *nm_proc_wait(int v) { return procs_wait_name((enum proc_wait)v); }
static const char *nm_blk_op(int v) { return blk_op_name((enum blk_op)v); }
static const struct rf_names disk_kinds = {nm_disk_kind, DISK_OTHER + 1};
static const struct rf_names probe_modes = {nm_probe_mode, PROBE_MODE_FILES + 1};
static const struct rf_names probe_states = {nm_probe_state, PROBE_ENDED + 1};
static const struct rf_names event_types = {nm_event, EV_NTYPES};
static const struct rf_names proc_kinds = {nm_proc_kind, PROC_JOURNAL + 1};
static const struct rf_names proc_waits = {nm_proc_wait, WAIT_BEFORE + 1};
static const struct rf_names blk_ops = {nm_blk_op, BLK_WRITE + 1};
static const char *nm_cgsrc(int v) { return procs_cgsrc_name((enum proc_cgsrc)v); }
static const struct rf_names cgsrcs = {nm_cgsrc, CGSRC_UNKNOWN + 1};
static const char *nm_blk_kind(int v) { return blk_kind_name((enum blk_kind)v); }
static const struct rf_names blk_kinds = {nm_blk_kind, BLK_NKINDS};

/* ---- the tables ---- */

static const struct rf_field summary[] = {
	T(RF_U64, struct probe_summary, n),      T(RF_U64, struct probe_summary, p50_ns),
	T(RF_U64, struct probe_summary, p90_ns), T(RF_U64, struct probe_summary, p99_ns),
	T(RF_U64, struct probe_summary, p999_ns), T(RF_U64, struct probe_summary, max_ns),
	T(RF_DBL, struct probe_summary, mean_ns), T(RF_U64, struct probe_summary, flagged),
	END,
};

static const struct rf_field io_rates[] = {
	T(RF_DBL, struct iostat_rates, r_s),        T(RF_DBL, struct iostat_rates, w_s),
	T(RF_DBL, struct iostat_rates, rkB_s),      T(RF_DBL, struct iostat_rates, wkB_s),
	T(RF_DBL, struct iostat_rates, r_await_ms), T(RF_DBL, struct iostat_rates, w_await_ms),
	T(RF_DBL, struct iostat_rates, aqu_sz),     T(RF_DBL, struct iostat_rates, util_pct),
	END,
};

static const struct rf_field probe_status[] = {
	F("mode", RF_ENUM, struct probe_status, mode, .names = &probe_modes, .dflt = PROBE_MODE_OFF, .flags = RF_V1_INT),
	F("state", RF_ENUM, struct probe_status, state, .names = &probe_states, .dflt = PROBE_ENDED, .flags = RF_V1_INT),
	F("why", RF_STR, struct probe_status, why),
	F("path", RF_STR, struct probe_status, path),
	F("rate_hz", RF_DBL, struct probe_status, rate_hz, .old = "rate"),
	F("in_flight_ms", RF_DBL, struct probe_status, in_flight_ms),
	F("missed", RF_U64, struct probe_status, missed),
	F("preparing_pct", RF_INT, struct probe_status, prep_pct, .old = "prep"),
	F("files", RF_U64, struct probe_status, files),
	F("span_bytes", RF_U64, struct probe_status, span_bytes),
	END,
};

/* Bytes by kind (enum blk_kind, in order). */
static const struct rf_field kind_bytes[] = {
	T(RF_U64, struct blk_kind_bytes, b[0]), T(RF_U64, struct blk_kind_bytes, b[1]),
	T(RF_U64, struct blk_kind_bytes, b[2]), T(RF_U64, struct blk_kind_bytes, b[3]),
	T(RF_U64, struct blk_kind_bytes, b[4]), T(RF_U64, struct blk_kind_bytes, b[5]),
	END,
};
_Static_assert(BLK_NKINDS == 6, "kind_bytes lists six kinds");

static const struct rf_field compare[] = {
	F("state", RF_INT, struct switch_compare, state),
	F("from", RF_STR, struct switch_compare, from),
	F("to", RF_STR, struct switch_compare, to),
	F("ts", RF_DBL, struct switch_compare, ts),
	F("rate", RF_DBL, struct switch_compare, rate_hz),
	F("bs", RF_DBL, struct switch_compare, before_s),
	F("as", RF_DBL, struct switch_compare, after_s),
	F("b", RF_TUPLE, struct switch_compare, before, .sub = summary),
	F("a", RF_TUPLE, struct switch_compare, after, .sub = summary),
	F("fbn", RF_INT, struct switch_compare, fresh_before_n, .flags = RF_OMIT0),
	F("fan", RF_INT, struct switch_compare, fresh_after_n, .flags = RF_OMIT0),
	F("fbm", RF_DBL, struct switch_compare, fresh_before_ms, .flags = RF_OMIT0),
	F("fam", RF_DBL, struct switch_compare, fresh_after_ms, .flags = RF_OMIT0),
	F("hs", RF_DBL, struct switch_compare, half_s, .flags = RF_OMIT0),
	F("h1", RF_TUPLE, struct switch_compare, half1, .sub = summary),
	F("h2", RF_TUPLE, struct switch_compare, half2, .sub = summary),
	F("behind_before", RF_TUPLE, struct switch_compare, behind_before, .sub = kind_bytes),
	F("behind_after", RF_TUPLE, struct switch_compare, behind_after, .sub = kind_bytes),
	END,
};

static const struct rf_field pending[] = {
	F("jobs", RF_INT, struct disk_pending, jobs),
	F("running", RF_INT, struct disk_pending, running),
	F("key", RF_STR, struct disk_pending, key),
	F("to", RF_STR, struct disk_pending, to),
	F("secs", RF_DBL, struct disk_pending, secs),
	END,
};

/* What the probe waited behind (sample.h, struct probe_slow). */
static const struct rf_field ahead[] = {
	F("pid", RF_INT, struct probe_ahead, pid),
	F("comm", RF_STR, struct probe_ahead, comm),
	F("kind", RF_ENUM, struct probe_ahead, kind, .names = &blk_kinds, .dflt = BLK_DIRECT),
	F("bytes", RF_U64, struct probe_ahead, bytes),
	F("share", RF_DBL, struct probe_ahead, share),
	END,
};

static const struct rf_field slowest[] = {
	F("ts", RF_DBL, struct probe_slowest, ts),
	F("us", RF_DBL, struct probe_slowest, us),
	F("top", RF_OBJ, struct probe_slowest, top, .sub = ahead, .flags = RF_OMIT0),
	END,
};

static const struct rf_field slow[] = {
	F("reads", RF_U64, struct probe_slow, reads),
	F("worst_us", RF_DBL, struct probe_slow, worst_us),
	F("total", RF_U64, struct probe_slow, total),
	F("n", RF_INT, struct probe_slow, n),
	F("a0", RF_OBJ, struct probe_slow, ahead[0], .sub = ahead, .flags = RF_OMIT0),
	F("a1", RF_OBJ, struct probe_slow, ahead[1], .sub = ahead, .flags = RF_OMIT0),
	F("a2", RF_OBJ, struct probe_slow, ahead[2], .sub = ahead, .flags = RF_OMIT0),
	F("a3", RF_OBJ, struct probe_slow, ahead[3], .sub = ahead, .flags = RF_OMIT0),
	F("a4", RF_OBJ, struct probe_slow, ahead[4], .sub = ahead, .flags = RF_OMIT0),
	F("nslowest", RF_INT, struct probe_slow, nslowest, .flags = RF_OMIT0),
	F("s0", RF_OBJ, struct probe_slow, slowest[0], .sub = slowest, .flags = RF_OMIT0),
	F("s1", RF_OBJ, struct probe_slow, slowest[1], .sub = slowest, .flags = RF_OMIT0),
	F("s2", RF_OBJ, struct probe_slow, slowest[2], .sub = slowest, .flags = RF_OMIT0),
	END,
};
_Static_assert(PROBE_AHEAD_MAX == 5, "slow's table lists five");
_Static_assert(PROBE_SLOWEST_MAX == 3, "slow's table lists three of the slowest");

/* A disk: its info, then the sample's figures (the scheduler list, the
 * histogram's buckets and the chart are the writer's and the reader's own;
 * "active" indexes the scheduler list, checked against it when read). */
const struct rf_field recfmt_disk[] = {
	F("name", RF_STR, struct disk_sample, info.name),
	F("kind", RF_ENUM, struct disk_sample, info.kind, .names = &disk_kinds, .dflt = DISK_OTHER, .flags = RF_V1_INT),
	F("model", RF_STR, struct disk_sample, info.model),
	F("rotational", RF_INT, struct disk_sample, info.rotational, .dflt = -1, .old = "rot"),
	F("size_bytes", RF_U64, struct disk_sample, info.size_bytes, .old = "size"),
	F("lb", RF_UINT, struct disk_sample, info.logical_block),
	F("nr_requests", RF_I64, struct disk_sample, info.nr_requests, .dflt = -1, .old = "nr"),
	F("read_ahead_kb", RF_I64, struct disk_sample, info.read_ahead_kb, .dflt = -1, .old = "ra"),
	F("wbt_lat_usec", RF_I64, struct disk_sample, info.wbt_lat_usec, .dflt = -1, .old = "wbt"),
	F("zoned", RF_INT, struct disk_sample, info.zoned),
	F("below", RF_STR, struct disk_sample, info.below, .flags = RF_OMIT0),
	F("have_rates", RF_INT, struct disk_sample, have_rates),
	F("io", RF_TUPLE, struct disk_sample, io, .sub = io_rates),
	F("in_flight", RF_ULL, struct disk_sample, in_flight),
	F("probed", RF_INT, struct disk_sample, probed),
	F("pst", RF_OBJ, struct disk_sample, probe_st, .sub = probe_status),
	F("p", RF_TUPLE, struct disk_sample, probe, .sub = summary),
	F("p10", RF_TUPLE, struct disk_sample, probe_10s, .sub = summary),
	F("pc", RF_TUPLE, struct disk_sample, probe_change, .sub = summary),
	F("rps10", RF_DBL, struct disk_sample, probe_rps_10s),
	F("st10", RF_DBL, struct disk_sample, probe_stall10_10s),
	F("st100", RF_DBL, struct disk_sample, probe_stall100_10s),
	F("cmp", RF_OBJ, struct disk_sample, cmp, .sub = compare, .flags = RF_OMIT0),
	F("pending", RF_OBJ, struct disk_sample, pending, .sub = pending),
	F("last_switch_ms", RF_DBL, struct disk_sample, last_switch_ms, .dflt = -1),
	F("warning", RF_STR, struct disk_sample, warning),
	F("slow", RF_OBJ, struct disk_sample, slow, .sub = slow),
	F("unattributed", RF_U64, struct disk_sample, blk_unattributed, .flags = RF_OMIT0),
	F("active", RF_INT, struct disk_sample, info.sched.active, .dflt = -1),
	F("hist_min", RF_U64, struct disk_sample, probe_hist.min_ns),
	F("hist_max", RF_U64, struct disk_sample, probe_hist.max_ns),
	F("hist_sum", RF_U64, struct disk_sample, probe_hist.sum_ns),
	END,
};

const struct rf_field recfmt_event[] = {
	F("ts", RF_DBL, struct event, ts, .flags = RF_TIME),
	F("mono", RF_DBL, struct event, mono, .flags = RF_TIME),
	F("type", RF_ENUM, struct event, type, .names = &event_types, .dflt = -1),
	F("disk", RF_STR, struct event, disk),
	F("pid", RF_INT, struct event, pid, .flags = RF_OMIT0),
	F("key", RF_STR, struct event, key),
	F("from", RF_STR, struct event, from),
	F("to", RF_STR, struct event, to),
	F("ms", RF_DBL, struct event, ms),
	F("ok", RF_INT, struct event, ok),
	F("error", RF_STR, struct event, error),
	F("cause", RF_STR, struct event, cause),
	END,
};

static const struct rf_field proc_rates[] = {
	T(RF_DBL, struct proc_row, read_Bps),   T(RF_DBL, struct proc_row, write_Bps),
	T(RF_DBL, struct proc_row, read_calls), T(RF_DBL, struct proc_row, write_calls),
	END,
};

static const struct rf_field proc_totals[] = {
	T(RF_U64, struct proc_counters, rbytes), T(RF_U64, struct proc_counters, wbytes),
	T(RF_U64, struct proc_counters, syscr),  T(RF_U64, struct proc_counters, syscw),
	T(RF_U64, struct proc_counters, blkio_count), T(RF_U64, struct proc_counters, blkio_ns),
	END,
};

static const struct rf_field proc_blk[] = {
	T(RF_U64, struct proc_row, blk_n[0]),      T(RF_U64, struct proc_row, blk_n[1]),
	T(RF_U64, struct proc_row, blk_p50_ns[0]), T(RF_U64, struct proc_row, blk_p50_ns[1]),
	T(RF_U64, struct proc_row, blk_p99_ns[0]), T(RF_U64, struct proc_row, blk_p99_ns[1]),
	T(RF_U64, struct proc_row, blk_bytes[0]),  T(RF_U64, struct proc_row, blk_bytes[1]),
	END,
};

/* A process row. The proc_rates and proc_blk tuples take their members
 * from the row itself: their offsets are the row's (base of the tuple: the
 * row; see RF_TUPLE with off 0 below). */
const struct rf_field recfmt_proc[] = {
	F("pid", RF_INT, struct proc_row, pid),
	F("tid", RF_INT, struct proc_row, tid),
	F("ppid", RF_INT, struct proc_row, ppid),
	F("uid", RF_UINT, struct proc_row, uid),
	F("user", RF_STRP, struct proc_row, user, .max = PROCS_USER_MAX),
	F("comm", RF_STR, struct proc_row, comm),
	F("cmdline", RF_STRP, struct proc_row, cmdline, .max = PROCS_CMDLINE_MAX),
	F("state", RF_CHAR, struct proc_row, state, .dflt = '?'),
	F("nice", RF_INT, struct proc_row, nice),
	F("start", RF_ULL, struct proc_row, start),
	F("readable", RF_INT, struct proc_row, io_readable),
	F("kind", RF_ENUM, struct proc_row, kind, .names = &proc_kinds, .dflt = PROC_NORMAL, .flags = RF_V1_INT),
	F("ioprio", RF_INT, struct proc_row, ioprio, .dflt = -1),
	{.key = "rates", .type = RF_TUPLE, .off = 0, .size = sizeof(struct proc_row), .sub = proc_rates},
	F("total", RF_TUPLE, struct proc_row, total, .sub = proc_totals),
	F("wait", RF_ENUM, struct proc_row, wait, .names = &proc_waits, .dflt = WAIT_OFF, .flags = RF_V1_INT),
	F("io_wait_pct", RF_DBL, struct proc_row, io_wait_pct),
	F("avg_wait_us", RF_DBL, struct proc_row, avg_wait_us),
	F("partial", RF_INT, struct proc_row, partial),
	F("exited", RF_INT, struct proc_row, exited, .flags = RF_OMIT0),
	F("count", RF_INT, struct proc_row, count, .flags = RF_OMIT0),
	F("ago", RF_INT, struct proc_row, ended_ago, .flags = RF_OMIT0),
	F("moved", RF_INT, struct proc_row, moved),
	{.key = "blk", .type = RF_TUPLE, .off = 0, .size = sizeof(struct proc_row), .sub = proc_blk},
	F("to_disk_Bps", RF_DBL, struct proc_row, to_disk_Bps, .dflt = -1),
	F("to_disk_total", RF_U64, struct proc_row, to_disk_total, .flags = RF_OMIT0),
	/* (recordings before it: -1, not known) */
	F("throttled_pct", RF_DBL, struct proc_row, throttled_pct, .dflt = -1),
	/* (recordings before cgroups: null, "unknown") */
	F("cgroup", RF_STRP, struct proc_row, cgroup, .max = CGROUP_PATH_MAX),
	F("cgroup_src", RF_ENUM, struct proc_row, cgroup_src, .names = &cgsrcs, .dflt = CGSRC_UNKNOWN),
	END,
};

const struct rf_field recfmt_pstat[] = {
	F("threads", RF_INT, struct procs_status, threads),
	F("taskstats", RF_INT, struct procs_status, taskstats),
	F("delayacct", RF_INT, struct procs_status, delayacct),
	F("missing", RF_STR, struct procs_status, missing),
	F("unreadable", RF_SIZE, struct procs_status, unreadable),
	F("exit_records", RF_INT, struct procs_status, exits, .old = "exits"),
	F("root", RF_INT, struct procs_status, as_root),
	F("exit_record_overflows", RF_ULONG, struct procs_status, exits_lost, .old = "exits_lost"),
	F("exit_records_lost", RF_LONG, struct procs_status, exit_records_lost, .dflt = -1),
	F("tasks_from_bpf", RF_INT, struct procs_status, from_iter, .flags = RF_OMIT0),
	F("task_walk_why", RF_STR, struct procs_status, iter_why),
	F("walk_s", RF_DBL, struct procs_status, walk_s, .flags = RF_OMIT0 | RF_TIME),
	END,
};

const struct rf_field recfmt_blk_stat[] = {
	T(RF_INT, struct blk_stat, tgid),   T(RF_STR, struct blk_stat, disk),
	T(RF_ENUM, struct blk_stat, op, .names = &blk_ops, .dflt = BLK_READ, .flags = RF_V1_INT),
	T(RF_U64, struct blk_stat, n),      T(RF_U64, struct blk_stat, bytes),
	T(RF_U64, struct blk_stat, p50_ns), T(RF_U64, struct blk_stat, p99_ns),
	T(RF_U64, struct blk_stat, max_ns), T(RF_U64, struct blk_stat, stacked_bytes), END,
};

const struct rf_field recfmt_blk_req[] = {
	T(RF_INT, struct blk_req, tgid), T(RF_STR, struct blk_req, disk),
	T(RF_INT, struct blk_req, issued), T(RF_U64, struct blk_req, age_ns), END,
};

static const struct rf_field psi_tuple[] = {
	T(RF_INT, struct psi, have_some),     T(RF_INT, struct psi, have_full),
	T(RF_DBL, struct psi, some.avg10),    T(RF_DBL, struct psi, some.avg60),
	T(RF_DBL, struct psi, some.avg300),   T(RF_U64, struct psi, some.total_us),
	T(RF_DBL, struct psi, full.avg10),    T(RF_DBL, struct psi, full.avg60),
	T(RF_DBL, struct psi, full.avg300),   T(RF_U64, struct psi, full.total_us),
	END,
};

static const struct rf_field load_tuple[] = {
	T(RF_DBL, struct sample, load[0]), T(RF_DBL, struct sample, load[1]), T(RF_DBL, struct sample, load[2]), END,
};

static const struct rf_field wb_tuple[] = {
	T(RF_INT, struct writeback_info, ok),
	T(RF_U64, struct writeback_info, dirty_kB),
	T(RF_U64, struct writeback_info, writeback_kB),
	T(RF_LONG, struct writeback_info, dirty_ratio),
	T(RF_LONG, struct writeback_info, dirty_background_ratio),
	T(RF_U64, struct writeback_info, dirty_bytes),
	T(RF_U64, struct writeback_info, dirty_background_bytes),
	END,
};

/* The block-layer part's own fields of a tick, in its "blk" object (its
 * stage, one of the tracepoints' names, its stats and requests: record.c
 * and replay.c). */
const struct rf_field recfmt_blk[] = {
	F("on", RF_INT, struct sample, blk_on),
	F("why", RF_STR, struct sample, blk_why),
	F("unattributed", RF_U64, struct sample, blk.unattributed),
	F("untimed", RF_U64, struct sample, blk.untimed),
	F("uncounted", RF_U64, struct sample, blk.uncounted),
	END,
};

/* A tick's own fields (disks, events, processes and the block-layer
 * figures are lists: record.c and replay.c go through them). */
const struct rf_field recfmt_tick[] = {
	F("ts", RF_DBL, struct sample, ts, .flags = RF_TIME),
	F("mono", RF_DBL, struct sample, mono, .flags = RF_TIME),
	F("interval_s", RF_DBL, struct sample, interval_s, .flags = RF_TIME),
	F("host", RF_STR, struct sample, host),
	F("kernel", RF_STR, struct sample, kernel),
	F("psi_err", RF_INT, struct sample, psi_err, .dflt = -ENOENT),
	F("psi", RF_TUPLE, struct sample, psi, .sub = psi_tuple),
	F("have_load", RF_INT, struct sample, have_load),
	{.key = "load", .type = RF_TUPLE, .off = 0, .size = sizeof(struct sample), .sub = load_tuple},
	F("probe_rate_hz", RF_DBL, struct sample, probe_rate_hz),
	F("have_procs", RF_INT, struct sample, have_procs),
	F("wb", RF_TUPLE, struct sample, wb, .sub = wb_tuple),
	F("to_disks_MBps", RF_DBL, struct sample, write_MBps, .old = "write_MBps"),
	F("dirtying_MBps", RF_DBL, struct sample, dirty_MBps, .old = "dirty_MBps"),
	F("top_disk", RF_INT, struct sample, top_disk, .dflt = -1),
	END,
};

/* A cgroup of the sample's list (sample.h); files without cgroups have
 * none (replay.c). */
const struct rf_field recfmt_cgroup[] = {
	F("path", RF_STR, struct cgroup_sample, path),
	F("unit", RF_STR, struct cgroup_sample, unit),
	F("parent", RF_STR, struct cgroup_sample, parent),
	F("procs", RF_INT, struct cgroup_sample, procs),
	F("read_Bps", RF_DBL, struct cgroup_sample, read_Bps),
	F("write_Bps", RF_DBL, struct cgroup_sample, write_Bps),
	F("to_disk_Bps", RF_DBL, struct cgroup_sample, to_disk_Bps, .dflt = -1),
	F("have_psi", RF_INT, struct cgroup_sample, have_psi),
	F("some_avg10", RF_DBL, struct cgroup_sample, some_avg10),
	F("full_avg10", RF_DBL, struct cgroup_sample, full_avg10),
	F("some_pct", RF_DBL, struct cgroup_sample, some_pct, .dflt = -1),
	F("full_pct", RF_DBL, struct cgroup_sample, full_pct, .dflt = -1),
	F("some_total_us", RF_U64, struct cgroup_sample, some_total_us),
	F("full_total_us", RF_U64, struct cgroup_sample, full_total_us),
	F("have_stat", RF_INT, struct cgroup_sample, have_stat, .flags = RF_OMIT0),
	F("stat_read_Bps", RF_DBL, struct cgroup_sample, stat_read_Bps, .dflt = -1),
	F("stat_write_Bps", RF_DBL, struct cgroup_sample, stat_write_Bps, .dflt = -1),
	F("stat_rbytes", RF_U64, struct cgroup_sample, stat_rbytes, .flags = RF_OMIT0),
	F("stat_wbytes", RF_U64, struct cgroup_sample, stat_wbytes, .flags = RF_OMIT0),
	F("bfq_weight", RF_INT, struct cgroup_sample, bfq_weight, .dflt = -1),
	F("io_weight", RF_INT, struct cgroup_sample, io_weight, .dflt = -1),
	F("have_io_max", RF_INT, struct cgroup_sample, have_io_max, .flags = RF_OMIT0),
	F("io_max", RF_STR, struct cgroup_sample, io_max),
	F("have_io_latency", RF_INT, struct cgroup_sample, have_io_latency, .flags = RF_OMIT0),
	F("io_latency", RF_STR, struct cgroup_sample, io_latency),
	/* (recordings before it: -1, not known) */
	F("io_wait_pct", RF_DBL, struct cgroup_sample, io_wait_pct, .dflt = -1),
	F("throttled_pct", RF_DBL, struct cgroup_sample, throttled_pct, .dflt = -1),
	F("source", RF_STR, struct cgroup_sample, source),
	END,
};

static const struct rf_field cgroup_rest[] = {
	T(RF_INT, struct cgroup_rest, n), T(RF_DBL, struct cgroup_rest, read_Bps),
	T(RF_DBL, struct cgroup_rest, write_Bps), T(RF_DBL, struct cgroup_rest, to_disk_Bps), END,
};

const struct rf_field recfmt_cgroups[] = {
	F("rest", RF_TUPLE, struct sample, cgroups_rest, .sub = cgroup_rest),
	F("why", RF_STR, struct sample, cgroups_why),
	END,
};

/* A chart point, as a tuple: [sec, n, p50_ns, p99_ns, max_ns]. */
const struct rf_field recfmt_chart_point[] = {
	T(RF_I64, struct latwin_point, sec),    T(RF_U32, struct latwin_point, n),
	T(RF_U64, struct latwin_point, p50_ns), T(RF_U64, struct latwin_point, p99_ns),
	T(RF_U64, struct latwin_point, max_ns), END,
};

/* The first line of a recording. */
const struct rf_field recfmt_header[] = {
	F("format", RF_STR, struct recfmt_header, format),
	F("version", RF_I64, struct recfmt_header, version, .dflt = -1),
	F("program", RF_STR, struct recfmt_header, program),
	F("host", RF_STR, struct recfmt_header, host),
	F("kernel", RF_STR, struct recfmt_header, kernel),
	F("start", RF_DBL, struct recfmt_header, start),
	END,
};

/* ---- writing ---- */

static int is_zero(const struct rf_field *x, const char *p)
{
	for (size_t i = 0; i < x->size; i++)
		if (p[i])
			return 0;
	return 1;
}

static void write_value(FILE *f, const struct rf_field *x, const char *p)
{
	switch (x->type) {
	case RF_DBL: {
		double v;
		memcpy(&v, p, sizeof v);
		if (isfinite(v))
			fprintf(f, "%.17g", v);
		else
			fputs("null", f); /* JSON has no NaN: read back as the default */
		break;
	}
	case RF_I64: fprintf(f, "%lld", (long long)*(const int64_t *)(const void *)p); break;
	case RF_U64: fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)(const void *)p); break;
	case RF_INT: fprintf(f, "%d", *(const int *)(const void *)p); break;
	case RF_UINT: fprintf(f, "%u", *(const unsigned *)(const void *)p); break;
	case RF_U32: fprintf(f, "%u", (unsigned)*(const uint32_t *)(const void *)p); break;
	case RF_LONG: fprintf(f, "%ld", *(const long *)(const void *)p); break;
	case RF_ULONG: fprintf(f, "%lu", *(const unsigned long *)(const void *)p); break;
	case RF_ULL: fprintf(f, "%llu", *(const unsigned long long *)(const void *)p); break;
	case RF_SIZE: fprintf(f, "%zu", *(const size_t *)(const void *)p); break;
	case RF_CHAR: fprintf(f, "%d", *p); break;
	case RF_STR: jsonv_write_string(f, p); break;
	case RF_STRP: {
		const char *s = *(const char *const *)(const void *)p;
		if (s)
			jsonv_write_string(f, s);
		else
			fputs("null", f);
		break;
	}
	case RF_ENUM: {
		int v = *(const int *)(const void *)p;
		if (v >= 0 && v < x->names->n)
			jsonv_write_string(f, x->names->name(v));
		else
			fputs("null", f);
		break;
	}
	case RF_TUPLE: recfmt_write_tuple(f, x->sub, p); break;
	case RF_OBJ: {
		int first = 1;
		fputc('{', f);
		recfmt_write(f, x->sub, p, &first);
		fputc('}', f);
		break;
	}
	case RF_END: break;
	}
}

void recfmt_write(FILE *f, const struct rf_field *t, const void *base, int *first)
{
	const char *b = base;
	for (const struct rf_field *x = t; x->type != RF_END; x++) {
		/* an object is left out when its first field is 0 */
		if ((x->flags & RF_OMIT0) && (x->type == RF_OBJ ? is_zero(&x->sub[0], b + x->off + x->sub[0].off)
								: is_zero(x, b + x->off)))
			continue;
		fprintf(f, "%s\"%s\":", *first ? "" : ",", x->key);
		*first = 0;
		write_value(f, x, b + x->off);
	}
}

void recfmt_write_tuple(FILE *f, const struct rf_field *t, const void *base)
{
	const char *b = base;
	fputc('[', f);
	for (const struct rf_field *x = t; x->type != RF_END; x++) {
		if (x != t)
			fputc(',', f);
		write_value(f, x, b + x->off);
	}
	fputc(']', f);
}

/* ---- reading ---- */

/* v as a number in [lo, hi], else dflt: every cast below is checked first. */
static double in_range(const struct jsonv *v, double lo, double hi, double dflt)
{
	if (!v || (v->type != JV_NUM && v->type != JV_BOOL) || !(v->num >= lo && v->num <= hi))
		return dflt;
	return v->num;
}

static int read_enum(const struct jsonv *v, const struct rf_field *x, const struct rf_read *ctx)
{
	if (v && v->type == JV_STR) {
		for (int i = 0; i < x->names->n; i++)
			if (strcmp(v->str, x->names->name(i)) == 0)
				return i;
		return (int)x->dflt;
	}
	/* a number: what version 1 wrote for most enums */
	if ((x->flags & RF_V1_INT) && ctx->version < 2)
		return (int)in_range(v, 0, x->names->n - 1, x->dflt);
	return (int)x->dflt;
}

static void read_value(const struct jsonv *v, const struct rf_field *x, char *p, struct rf_read *ctx)
{
	switch (x->type) {
	case RF_DBL: {
		/* null is what a NaN was written as (JSON has none) */
		double d = v && v->type == JV_NUM ? v->num : v && v->type == JV_NULL ? NAN : x->dflt;
		if ((x->flags & RF_TIME) && !(isfinite(d) && d >= 0 && d < TIME_MAX_S)) {
			if (v)
				ctx->bad_times++;
			d = 0;
		}
		memcpy(p, &d, sizeof d);
		break;
	}
	case RF_I64: *(int64_t *)(void *)p = (int64_t)in_range(v, -9.2e18, 9.2e18, x->dflt); break;
	case RF_U64: *(uint64_t *)(void *)p = (uint64_t)in_range(v, 0, 1.8e19, x->dflt); break;
	case RF_INT: *(int *)(void *)p = (int)in_range(v, INT32_MIN, INT32_MAX, x->dflt); break;
	case RF_UINT: *(unsigned *)(void *)p = (unsigned)in_range(v, 0, UINT32_MAX, x->dflt); break;
	case RF_U32: *(uint32_t *)(void *)p = (uint32_t)in_range(v, 0, UINT32_MAX, x->dflt); break;
	case RF_LONG: *(long *)(void *)p = (long)in_range(v, -9.2e18, 9.2e18, x->dflt); break;
	case RF_ULONG: *(unsigned long *)(void *)p = (unsigned long)in_range(v, 0, 1.8e19, x->dflt); break;
	case RF_ULL: *(unsigned long long *)(void *)p = (unsigned long long)in_range(v, 0, 1.8e19, x->dflt); break;
	case RF_SIZE: *(size_t *)(void *)p = (size_t)in_range(v, 0, 1.8e19, x->dflt); break;
	case RF_CHAR: *p = (char)in_range(v, 1, 127, x->dflt); break;
	case RF_STR: util_strlcpy(p, v && v->type == JV_STR ? v->str : "", x->size); break;
	case RF_STRP:
		*(const char **)(void *)p = v && v->type == JV_STR && ctx->texts && x->max
						    ? util_texts_keep(ctx->texts, v->str, strnlen(v->str, x->max - 1))
						    : NULL;
		break;
	case RF_ENUM: *(int *)(void *)p = read_enum(v, x, ctx); break;
	case RF_TUPLE: recfmt_read_tuple(v, x->sub, p, ctx); break;
	case RF_OBJ: recfmt_read(v && v->type == JV_OBJ ? v : NULL, x->sub, p, ctx); break;
	case RF_END: break;
	}
}

/* The key of field x in a file of ctx's version. */
static const char *recfmt_key(const struct rf_field *x, const struct rf_read *ctx)
{
	return x->old && ctx->version < 3 ? x->old : x->key;
}

void recfmt_read(const struct jsonv *obj, const struct rf_field *t, void *base, struct rf_read *ctx)
{
	char *b = base;
	for (const struct rf_field *x = t; x->type != RF_END; x++)
		read_value(obj ? jsonv_get(obj, recfmt_key(x, ctx)) : NULL, x, b + x->off, ctx);
}

void recfmt_read_tuple(const struct jsonv *arr, const struct rf_field *t, void *base, struct rf_read *ctx)
{
	char *b = base;
	size_t i = 0;
	for (const struct rf_field *x = t; x->type != RF_END; x++, i++) {
		const struct jsonv *v = arr && arr->type == JV_ARR && i < arr->n ? &arr->kids[i] : NULL;
		read_value(v, x, b + x->off, ctx);
	}
}
