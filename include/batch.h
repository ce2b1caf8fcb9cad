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

/* Run until the iteration count is reached or *stop is set by a signal.
 * Returns 0, or a negative errno when sampling failed. */
struct control;
int batch_run(const struct options *o, struct sampler *smp, struct control *ctl, volatile sig_atomic_t *stop);

#endif
