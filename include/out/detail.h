/* detail: the text of the detail panels Enter opens in the full-screen
 * view — a process's block I/O per disk, or a disk's queue, figures and
 * the processes waiting longest on it. Plain text (lines joined by '\n'),
 * so the TUI only draws it and tests can read it. */
#ifndef IOSCHED_DETAIL_H
#define IOSCHED_DETAIL_H

#include <stddef.h>

#include "model/sample.h"

/* The block I/O of process pid (comm: its name when it was selected) in
 * the sample's interval, per disk and direction. */
/* Append a formatted line to buf (a full buffer just stops growing): what
 * every detail text is built with. */
void detail_line(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

void detail_process(const struct sample *s, int pid, const char *comm, char *buf, size_t len);

/* The unit whose cgroup is at path (unit: its name when it was
 * selected): its figures, its own files' (io.pressure, io.stat, the
 * weights) with why any is missing, its processes' block requests per
 * disk, and where each figure came from. */
void detail_unit(const struct sample *s, const char *path, const char *unit, char *buf, size_t len);

/* The sample's cgroup at path, or NULL. */
const struct cgroup_sample *detail_find_unit(const struct sample *s, const char *path);

/* Why c has no io.bfq.weight, to say when it cannot be changed ("" when
 * it has one): this machine's io controller on cgroup v1, the root, bfq
 * not the scheduler. */
void detail_unit_weight_why(const struct sample *s, const struct cgroup_sample *c, char *buf, size_t len);

/* Disk d of the sample: its queue, iostat and probe figures, the
 * processes with the oldest block requests in flight on it (top 3), and
 * for a probed disk its slowest reads of the last 10 s with what the disk
 * served while they waited. */
void detail_disk(const struct sample *s, const struct disk_sample *d, char *buf, size_t len);

/* The probe's profile: "steady" (a greedy reader, back-to-back) or
 * "paced" (--probe-rate), named as in the A/B report. */
const char *detail_profile(double rate_hz);

/* A disk's last switch in one line. While the after window fills:
 * "none->bfq: measuring (3 s of 10); 10s before: reads/s 610, p50 1.60ms,
 * p99 4.00ms (n 6100)". Then: "none->bfq: reads/s 610->8 -99%, p50
 * 1.60ms->120ms +7400%, p99 4.00ms->150ms +3650% (n 6100/80); steady, 10s
 * before vs 10s after", where a change no larger than the before
 * window's halves moved against each other reads "within noise". When
 * that does not fit width up to the reads behind the p99 (width 0: no
 * limit), the changes alone: "switch: reads/s -99%, p50 within noise, p99
 * +3650% (n 80)". Empty when there was no switch. */
void detail_switch_compare(const struct switch_compare *c, int width, char *buf, size_t len);

/* The header's writers figures: "dirtying 395.0 MB/s (dd 3324 395M/s) |
 * to disks 12.0 MB/s (vda 12.0)": what processes ask for (their
 * write_bytes into the page cache) and what the disks do, each with its
 * top contributor; the first part only with process figures. */
void detail_writers(const struct sample *s, char *buf, size_t len);
/* The same without the pids ("dd 395M/s"), for a narrow screen. */
void detail_writers_brief(const struct sample *s, char *buf, size_t len);

/* Rows whose /proc/PID/io could not be read, and why: "" when none. */
void detail_unreadable(const struct procs_status *ps, char *buf, size_t len);

/* The fresh readers' part of the comparison (callers put it after the
 * line above, or under it where it does not fit): "fresh job 45ms->120ms +167%", "-" for a
 * window without a job; empty when no job ended in either window. */
void detail_fresh_change(const struct switch_compare *c, char *buf, size_t len);

/* What changed, at the last switch, in what the disk served while the
 * probe's reads waited: the kinds' shares of those bytes in the before
 * window and the after window (so far), those that moved most first, at
 * most three: "served while probe reads waited, before->after: writeback
 * 91%->12%, read 5%->80%". Empty without a switch or without the BPF part. */
void detail_behind_change(const struct switch_compare *c, int blk_on, char *buf, size_t len);

/* What the probe's reads waited behind over the last 10 s, as one line:
 * "waited behind: fio 91% direct, jbd2/vda-8 6% journal" (after the first,
 * owners under 0.5 % are left to the detail panel); "" with nothing. */
void detail_behind(const struct probe_slow *sl, char *buf, size_t len);

#endif
