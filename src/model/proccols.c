/* proccols: see include/model/proccols.h */
#include "model/proccols.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "probe/hist.h"
#include "base/jsonv.h"
#include "base/util.h"

/* --- sort keys: -1 where the row has no figure -------------------------- */

static double key_pid(const struct proc_row *r, int totals) { (void)totals; return r->tid; }
static double key_prio(const struct proc_row *r, int totals) { (void)totals; return r->ioprio; }
static double key_read(const struct proc_row *r, int totals)
{
	return r->io_readable ? (totals ? (double)r->total.rbytes : r->read_Bps) : -1;
}
static double key_write(const struct proc_row *r, int totals)
{
	return r->io_readable ? (totals ? (double)r->total.wbytes : r->write_Bps) : -1;
}
/* -1 (shown "-") without the BPF part, and for a thread's row. */
static double key_to_disk(const struct proc_row *r, int totals)
{
	return r->to_disk_Bps < 0 ? -1 : totals ? (double)r->to_disk_total : r->to_disk_Bps;
}
static double key_rcalls(const struct proc_row *r, int totals)
{
	return r->io_readable ? (totals ? (double)r->total.syscr : r->read_calls) : -1;
}
static double key_wcalls(const struct proc_row *r, int totals)
{
	return r->io_readable ? (totals ? (double)r->total.syscw : r->write_calls) : -1;
}
static double key_wait(const struct proc_row *r, int totals)
{
	(void)totals;
	/* no I/O and no wait is a known 0 (shown 0.0%) */
	return r->wait == WAIT_OK ? r->io_wait_pct : r->wait == WAIT_NONE ? 0 : -1;
}
static double key_avg(const struct proc_row *r, int totals)
{
	(void)totals;
	return r->wait == WAIT_OK ? r->avg_wait_us : -1;
}
/* -1 without the BPF part (or its tracepoint), and for a thread's row */
static double key_throttled(const struct proc_row *r, int totals)
{
	(void)totals;
	return r->throttled_pct;
}
static double key_rlat(const struct proc_row *r, int totals)
{
	(void)totals;
	return r->blk_n[BLK_READ] ? (double)r->blk_p50_ns[BLK_READ] / 1e3 : -1;
}
static double key_wlat(const struct proc_row *r, int totals)
{
	(void)totals;
	return r->blk_n[BLK_WRITE] ? (double)r->blk_p50_ns[BLK_WRITE] / 1e3 : -1;
}
static const char *text_user(const struct proc_row *r) { return procs_row_user(r); }
static const char *text_comm(const struct proc_row *r) { return r->comm; }
static const char *text_disk(const struct proc_row *r) { return r->disk ? r->disk : ""; }

/* --- cells ---------------------------------------------------------------- */

static void cell_pid(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	(void)m;
	util_fmt(b, n, "%d", r->tid);
}

static void cell_user(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	(void)m;
	util_strlcpy(b, procs_row_user(r), n);
}

static void cell_prio(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	(void)m;
	procs_format_ioprio(r->ioprio, r->nice, b, n);
}

/* Bytes: a size with its unit ("35M"), "0", or "-" without a figure. */
static void bytes(double v, int readable, char *b, size_t n)
{
	if (!readable)
		util_strlcpy(b, "-", n);
	else if (v <= 0)
		util_strlcpy(b, "0", n);
	else
		util_format_size(util_to_u64(v), b, n);
}

static void cell_read(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	bytes(key_read(r, m->totals), r->io_readable, b, n);
}

static void cell_write(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	bytes(key_write(r, m->totals), r->io_readable, b, n);
}

static void cell_to_disk(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	double v = key_to_disk(r, m->totals);
	bytes(v, v >= 0, b, n);
}

/* System calls: a rate with one decimal, a total without. */
static void calls(double v, const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	if (!r->io_readable)
		util_strlcpy(b, "-", n);
	else
		util_fmt(b, n, m->totals ? "%.0f" : "%.1f", v);
}

static void cell_rcalls(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	calls(key_rcalls(r, m->totals), r, m, b, n);
}

static void cell_wcalls(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	calls(key_wcalls(r, m->totals), r, m, b, n);
}

static void cell_throttled(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	(void)m;
	if (r->throttled_pct < 0)
		util_strlcpy(b, "-", n);
	else
		util_fmt(b, n, "%.1f%%", r->throttled_pct);
}

/* A wait column: its figure, or what stands for none (n/a: moved bytes
 * without waiting; n/a*: began before delay accounting; -: off). */
static void wait_cell(const struct proc_row *r, int avg, char *b, size_t n)
{
	switch (r->wait) {
	case WAIT_OK:
		if (avg)
			util_format_latency(util_to_u64(r->avg_wait_us * 1e3), b, n);
		else
			util_fmt(b, n, "%.1f%%", r->io_wait_pct);
		return;
	case WAIT_NA: util_strlcpy(b, "n/a", n); return;
	case WAIT_BEFORE: util_strlcpy(b, "n/a*", n); return;
	case WAIT_NONE: util_strlcpy(b, avg ? "" : "0.0%", n); return;
	case WAIT_OFF: util_strlcpy(b, "-", n); return;
	}
	b[0] = '\0';
}

static void cell_wait(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	(void)m;
	wait_cell(r, 0, b, n);
}

static void cell_avg(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	(void)m;
	wait_cell(r, 1, b, n);
}

static void cell_rlat(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	(void)m;
	blklat_format_pair(r->blk_n[BLK_READ], r->blk_p50_ns[BLK_READ], r->blk_p99_ns[BLK_READ], b, n);
}

static void cell_wlat(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	(void)m;
	blklat_format_pair(r->blk_n[BLK_WRITE], r->blk_p50_ns[BLK_WRITE], r->blk_p99_ns[BLK_WRITE], b, n);
}

/* Blank without block requests: most rows are idle, and a column of
 * dashes would hide the few that name a disk. */
static void cell_disk(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	(void)m;
	util_strlcpy(b, text_disk(r), n);
}

/* The name (or command line), after what the row is when it is not the
 * culprit itself: ended, a flusher, a loop device's worker, this tool. */
static void cell_command(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	char times[24] = "";
	if (r->exited && r->count > 1)
		util_fmt(times, sizeof times, " x%d", r->count);
	util_fmt(b, n, "%s%s%s%s", r->exited ? "[exited] " : "",
		 r->kind == PROC_WRITEBACK ? "[writeback] " : r->kind == PROC_LOOP ? "[loop I/O] " :
		 r->kind == PROC_SELF ? "[this tool] " : r->kind == PROC_JOURNAL ? "[journal] " : "",
		 m->cmdline ? procs_row_cmdline(r) : r->comm, times);
}

/* --- JSON fields (names as documented in the man page) ----------------- */

static void json_pid(FILE *f, const struct proc_row *r, const struct sample *s)
{
	fprintf(f, ",\"pid\":%d", r->pid);
	if (s->pstat.threads)
		fprintf(f, ",\"tid\":%d", r->tid);
	fprintf(f, ",\"ppid\":%d", r->ppid);
}

static void json_user(FILE *f, const struct proc_row *r, const struct sample *s)
{
	(void)s;
	fputs(",\"user\":", f);
	jsonv_write_string(f, procs_row_user(r));
}

static void json_prio(FILE *f, const struct proc_row *r, const struct sample *s)
{
	(void)s;
	char prio[16];
	procs_format_ioprio(r->ioprio, r->nice, prio, sizeof prio);
	fputs(",\"prio\":", f);
	jsonv_write_string(f, prio);
}

/* An unreadable /proc/PID/io is no figure, not a 0. */
static void json_read(FILE *f, const struct proc_row *r, const struct sample *s)
{
	(void)s;
	jsonv_write_num_or_null(f, "read_Bps", r->read_Bps, r->io_readable);
}

static void json_write(FILE *f, const struct proc_row *r, const struct sample *s)
{
	(void)s;
	jsonv_write_num_or_null(f, "write_Bps", r->write_Bps, r->io_readable);
}

/* One object of a process's block writes per disk: every byte the disk
 * wrote (all), or only those that repeat a write to a device stacked above
 * it; NULL when there are none. */
static void json_disk_writes(FILE *f, const char *name, const struct proc_row *r, const struct sample *s, int stacked)
{
	int first = 1;
	for (size_t i = 0; i < s->blk.nstats; i++) {
		const struct blk_stat *st = &s->blk.stats[i];
		uint64_t b = stacked ? st->stacked_bytes : st->bytes;
		if (st->op != BLK_WRITE || !b || !blklat_stat_of(&s->blk, st, r->pid, r->start))
			continue;
		fprintf(f, "%s", first ? ",\"" : ",");
		if (first)
			fprintf(f, "%s\":{", name);
		jsonv_write_string(f, st->disk);
		fputc(':', f);
		jsonv_write_number(f, (double)b / s->interval_s, 3);
		first = 0;
	}
	if (!first)
		fputc('}', f);
}

/* and per disk, from the same requests (the sample's block stats): each
 * layer of a stack, and which of them are the same bytes as a layer above
 * (to_disk_Bps counts them once, at the bottom); also for a row whose
 * TO-DISK is 0 as its bytes went no lower (a loop device's own file's
 * writeback is its worker's) */
static void json_to_disk(FILE *f, const struct proc_row *r, const struct sample *s)
{
	jsonv_write_num_or_null(f, "to_disk_Bps", r->to_disk_Bps, r->to_disk_Bps >= 0);
	if (r->to_disk_Bps < 0 || s->interval_s <= 0)
		return;
	json_disk_writes(f, "to_disk_by_disk", r, s, 0);
	json_disk_writes(f, "to_disk_stacked_by_disk", r, s, 1);
}

/* read() and write() system calls per second, not disk operations */
static void json_rcalls(FILE *f, const struct proc_row *r, const struct sample *s)
{
	(void)s;
	jsonv_write_num_or_null(f, "read_calls_per_s", r->read_calls, r->io_readable);
}

static void json_wcalls(FILE *f, const struct proc_row *r, const struct sample *s)
{
	(void)s;
	jsonv_write_num_or_null(f, "write_calls_per_s", r->write_calls, r->io_readable);
}

static void json_wait(FILE *f, const struct proc_row *r, const struct sample *s)
{
	(void)s;
	fprintf(f, ",\"wait\":\"%s\"", procs_wait_name(r->wait));
	jsonv_write_num_or_null(f, "io_wait_pct", r->io_wait_pct, r->wait == WAIT_OK || r->wait == WAIT_NONE);
	if (r->partial)
		fputs(",\"partial\":true", f);
}

static void json_throttled(FILE *f, const struct proc_row *r, const struct sample *s)
{
	(void)s;
	jsonv_write_num_or_null(f, "throttled_pct", r->throttled_pct, r->throttled_pct >= 0);
}

static void json_avg(FILE *f, const struct proc_row *r, const struct sample *s)
{
	(void)s;
	jsonv_write_num_or_null(f, "avg_wait_us", r->avg_wait_us, r->wait == WAIT_OK);
}

/* The process's block-layer figures per disk and direction (both latency
 * columns): on its main thread's row, as they are the whole process's. */
static void json_blk(FILE *f, const struct proc_row *r, const struct sample *s)
{
	if (!s->blk_on || r->tid != r->pid)
		return;
	fputs(",\"blk\":[", f);
	int first = 1;
	for (size_t i = 0; i < s->blk.nstats; i++) {
		const struct blk_stat *st = &s->blk.stats[i];
		if (st->tgid != r->pid)
			continue;
		fputs(first ? "{\"disk\":" : ",{\"disk\":", f);
		first = 0;
		jsonv_write_string(f, st->disk);
		fprintf(f, ",\"op\":\"%s\",\"n\":%llu", blk_op_name(st->op), (unsigned long long)st->n);
		jsonv_write_num_or_null(f, "p50_us", (double)st->p50_ns / 1e3, hist_enough(st->n, 0.50));
		jsonv_write_num_or_null(f, "p99_us", (double)st->p99_ns / 1e3, hist_enough(st->n, 0.99));
		fprintf(f, ",\"max_us\":%.1f,\"bytes\":%llu}", (double)st->max_ns / 1e3, (unsigned long long)st->bytes);
	}
	fputc(']', f);
}

/* With block latency on: the disk it moved most bytes on, or null (no
 * requests, or a thread's row). */
static void json_disk(FILE *f, const struct proc_row *r, const struct sample *s)
{
	if (!s->blk_on)
		return;
	fputs(",\"disk\":", f);
	if (r->disk)
		jsonv_write_string(f, r->disk);
	else
		fputs("null", f);
}

/* The name, what kind of task it is, and for a row of tasks that ended
 * (taskstats exit records) how many of the same command and parent. */
static void json_command(FILE *f, const struct proc_row *r, const struct sample *s)
{
	(void)s;
	fputs(",\"comm\":", f);
	jsonv_write_string(f, r->comm);
	fprintf(f, ",\"kind\":\"%s\"", procs_kind_name(r->kind));
	if (r->exited)
		fprintf(f, ",\"exited\":true,\"count\":%d", r->count);
}

/* --- the table -------------------------------------------------------------- */

/* keep: when the screen is narrow, the columns come in this order (who
 * reads and writes, how much, on which disk, who waits), each if it still
 * fits: at 80 columns DISK takes the place of AVG-WAIT; at 120, with the
 * BPF part, THROTTLED that of PRIO. */
static const struct proccol cols[PC_COUNT] = {
	[PC_PID] = {"pid", "PID", NULL, 7, 0, 1, 0, "", "process id (thread id with p)", key_pid, NULL, cell_pid,
		    json_pid, "pid"},
	[PC_USER] = {"user", "USER", NULL, 9, 1, 7, 0, "", "its user", NULL, text_user, cell_user, json_user, "user"},
	[PC_PRIO] = {"prio", "PRIO", NULL, 5, 1, 12, 0, "", "I/O priority as ionice shows it (be/4, idle, rt/0)",
		     key_prio, NULL, cell_prio, json_prio, "prio"},
	[PC_READ] = {"read/s", "READ/s", "READ", 8, 0, 4, 0, "B/s",
		     "bytes read from storage for it (/proc/PID/io read_bytes)", key_read, NULL, cell_read, json_read,
		     "read_Bps"},
	[PC_WRITE] = {"write/s", "WRITE/s", "WRITE", 8, 0, 2, 0, "B/s",
		      "bytes it dirtied or wrote (/proc/PID/io write_bytes)", key_write, NULL, cell_write, json_write,
		      "write_Bps"},
	[PC_TODISK] = {"to-disk", "TO-DISK/s", "TO-DISK", 9, 0, 3, 1, "B/s",
		       "bytes written to disks for it: its own writes and the writeback of pages it dirtied, "
		       "whoever wrote them, counted on the disks under a stack as \"to disks\" is (BPF)",
		       key_to_disk, NULL, cell_to_disk, json_to_disk, "to_disk_Bps"},
	[PC_RCALLS] = {"r-calls", "R-CALLS/s", "R-CALLS", 9, 0, 13, 0, "calls/s",
		       "read() system calls, not disk operations", key_rcalls, NULL, cell_rcalls, json_rcalls,
		       "read_calls_per_s"},
	[PC_WCALLS] = {"w-calls", "W-CALLS/s", "W-CALLS", 9, 0, 14, 0, "calls/s",
		       "write() system calls, not disk operations", key_wcalls, NULL, cell_wcalls, json_wcalls,
		       "write_calls_per_s"},
	[PC_WAIT] = {"io-wait", "IO-WAIT", NULL, 7, 0, 6, 0, "%",
		     "share of the interval waiting for block I/O (delay accounting; a buffered writer's "
		     "pauses for dirty pages are THROTTLED)", key_wait, NULL, cell_wait,
		     json_wait, "io_wait_pct"},
	[PC_AVG] = {"avg-wait", "AVG-WAIT", NULL, 8, 0, 11, 0, "time", "mean time of one such wait", key_avg, NULL,
		    cell_avg, json_avg, "avg_wait_us"},
	[PC_THROTTLED] = {"throttled", "THROTTLED", NULL, 9, 0, 9, 1, "%",
			  "share of the interval it was paused for dirty pages: it wrote faster than its disks take "
			  "it and the kernel made it sleep (not block I/O: IO-WAIT does not show it; BPF)",
			  key_throttled, NULL, cell_throttled, json_throttled, "throttled_pct"},
	[PC_RLAT] = {"read-lat", "READ p50/p99", NULL, 15, 0, 8, 1, "time",
		     "latency of its block read requests, issue to completion (BPF)", key_rlat, NULL, cell_rlat,
		     json_blk, "read_p50_us"},
	[PC_WLAT] = {"write-lat", "WRITE p50/p99", NULL, 15, 0, 10, 1, "time",
		     "latency of its block write requests (BPF)", key_wlat, NULL, cell_wlat, NULL, "write_p50_us"},
	[PC_DISK] = {"disk", "DISK", NULL, 7, 1, 5, 1, "",
		     "the disk it moved most bytes on: its block reads and writes, a stack's at its top (BPF)", NULL,
		     text_disk, cell_disk, json_disk, "disk"},
	[PC_COMMAND] = {"command", "COMMAND", NULL, 0, 1, 0, 0, "",
			"name, or with c the command line; [writeback], [journal], [loop I/O], [exited]", NULL, text_comm,
			cell_command, json_command, "comm"},
};

const struct proccol *proccols_get(enum pcol c)
{
	return c < PC_COUNT ? &cols[c] : NULL;
}

int proccols_from_name(const char *name)
{
	for (int c = 0; c < PC_COUNT; c++)
		if (strcasecmp(cols[c].key, name) == 0 || strcasecmp(cols[c].header, name) == 0)
			return c;
	/* the names before 0.x, still in saved configurations */
	if (strcasecmp(name, "r-iops") == 0)
		return PC_RCALLS;
	if (strcasecmp(name, "w-iops") == 0)
		return PC_WCALLS;
	return -1;
}

const char *proccols_keys(const char *sep, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int c = 0; c < PC_COUNT && at < len; c++) {
		int w = snprintf(buf + at, len - at, "%s%s", c ? sep : "", cols[c].key);
		if (w < 0)
			break;
		at += (size_t)w;
	}
	return buf;
}

const char *proccols_header(enum pcol c, int totals)
{
	if (c >= PC_COUNT)
		return "?";
	return totals && cols[c].total ? cols[c].total : cols[c].header;
}

void proccols_cell(enum pcol c, const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n)
{
	b[0] = '\0';
	if (c < PC_COUNT)
		cols[c].cell(r, m, b, n);
}

double proccols_sort_key(enum pcol c, const struct proc_row *r, int totals)
{
	return c < PC_COUNT && cols[c].sort_key ? cols[c].sort_key(r, totals) : 0;
}

void proccols_json(FILE *f, const struct proc_row *r, const struct sample *s)
{
	for (int c = 0; c < PC_COUNT; c++)
		if (cols[c].json)
			cols[c].json(f, r, s);
}

void proccols_csv(enum pcol c, const struct proc_row *r, char *b, size_t n)
{
	const struct proccol *k = &cols[c];
	if (!k->unit[0]) { /* an id, a name, a class: its cell, labels ([exited] ...) and all */
		struct proccols_mode m = {0};
		k->cell(r, &m, b, n);
	} else {
		double v = k->sort_key(r, 0);
		if (!(v >= 0)) /* not read (or a replay's null): an empty field, never a 0 */
			b[0] = '\0';
		else
			util_fmt(b, n, "%.3f", v);
	}
}
