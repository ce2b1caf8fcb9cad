/* outputs: what is written each interval besides the view itself — the
 * recording (--record) and the Prometheus text file
 * (--prometheus-textfile). The batch loop and the full screen call
 * outputs_tick after each sample. */
#ifndef IOSCHED_OUTPUTS_H
#define IOSCHED_OUTPUTS_H

#include <stddef.h>

#include "config/options.h"
#include "out/prom.h"
#include "out/record.h"

/* The "version" of every JSON line and report: raised when a field
 * changes its meaning (adding a field does not raise it). */
#define OUTPUTS_JSON_VERSION 1

struct outputs {
	struct recorder *rec;      /* NULL: not recording */
	const char *rec_path;      /* for messages */
	const char *prom_path;     /* NULL: no Prometheus file */
	struct prom_state prom;
	size_t max_procs;          /* processes kept in the recording besides the active ones */
};

/* Open what the options ask for; nothing is written before the first
 * tick. Returns 0, or a negative errno with "--record FILE: why" in err. */
int outputs_open(struct outputs *out, const struct options *o, char *err, size_t len);

/* Write sample s to every output. On a failure that output is closed,
 * err says which and why, and a negative errno is returned: the callers
 * (batch and full-screen) end the run on it, through their usual clean-up. */
int outputs_tick(struct outputs *out, const struct sample *s, char *err, size_t len);

void outputs_close(struct outputs *out);

#endif
