/* batch: the non-interactive views — a text table or JSON lines every
 * interval on stdout, no curses. */
#ifndef IOSCHED_BATCH_H
#define IOSCHED_BATCH_H

#include <signal.h>
#include <stdio.h>

#include "options.h"
#include "sample.h"

/* Print one sample as the text table (all columns, like iostat -x), then
 * up to max_procs processes that did I/O. */
void batch_write_text(FILE *f, const struct sample *s, size_t max_procs);

/* One sample as CSV rows, one per disk; header: the column names first. */
void batch_write_csv(FILE *f, const struct sample *s, int header);

/* One sample as CSV rows of up to max_procs processes that did I/O,
 * busiest first: ts, then every process column (proccols.h) under its CSV
 * name; header: the names first. */
void batch_write_csv_procs(FILE *f, const struct sample *s, size_t max_procs, int header);

/* Run until the iteration count is reached, the recording being replayed
 * ends, or *stop is set by a signal. Each sample is printed, then goes to
 * the session's outputs. Returns 0, 1 when an output failed, or a
 * negative errno when sampling failed. */
struct session;
int batch_run(const struct options *o, struct session *sess, volatile sig_atomic_t *stop);

#endif
