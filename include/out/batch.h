/* batch: the non-interactive views — a text table or JSON lines every
 * interval on stdout, no curses. */
#ifndef IOSCHED_BATCH_H
#define IOSCHED_BATCH_H

#include <signal.h>
#include <stdio.h>

#include "config/options.h"
#include "model/sample.h"

/* Print one sample as the text table (all columns, like iostat -x), then
 * up to max_procs processes that did I/O. */
void batch_write_text(FILE *f, const struct sample *s, size_t max_procs);

/* One sample as CSV rows, one per disk; header: the column names first. */
void batch_write_csv(FILE *f, const struct sample *s, int header);

/* One sample as CSV rows of up to max_procs processes that did I/O,
 * busiest first: ts, then every process column (proccols.h) under its CSV
 * name; header: the names first. */
void batch_write_csv_procs(FILE *f, const struct sample *s, size_t max_procs, int header);
/* The sample's cgroups (sample.h), busiest first; a header row first
 * with header. A figure not known is an empty field. */
void batch_write_csv_cgroups(FILE *f, const struct sample *s, int header);

/* Print one sample to f in format fmt (header: the CSV header first), as
 * batch mode does: every string of the text and CSV outputs leaves
 * through util_safe_write, JSON's through jsonv_write_string. Returns 0,
 * or the negative errno of a failed write (a full disk, a reader gone):
 * the run ends on it, it does not go on writing nowhere. */
int batch_print(FILE *f, enum output_format fmt, size_t max_procs, const struct sample *s, int header);

/* Run until the iteration count is reached, the recording being replayed
 * ends, or *stop is set by a signal. Each sample is printed, then goes to
 * the session's outputs. Returns 0, 1 when an output failed, or a
 * negative errno when sampling failed. */
struct session;
int batch_run(const struct options *o, struct session *sess, volatile sig_atomic_t *stop);

#endif
