/* ab: the A/B runner — a scheduler comparison in one command. Each variant
 * (a scheduler, optionally with tunables) is measured for a dwell time in a
 * balanced order (A B B A per pair of rounds), after a warm-up that is left
 * out; a background load (load.h) runs throughout. Three readers, each a
 * process of its own (a scheduler like bfq treats processes apart), stand
 * for three kinds of program:
 *   steady: a greedy QD1 reader that runs for the whole A/B, across every
 *           switch (a long-running program reading its data);
 *   fresh:  AB_FRESH_RUNS new processes per phase, spaced out, each doing a
 *           fixed job of reads and timed as a whole (a program starting);
 *   paced:  reads at --probe-rate (20 Hz), each timed (an interactive
 *           program that reads now and then).
 * Every setting goes back at the end, and on SIGINT/SIGTERM (the report is
 * then marked partial). */
#ifndef IOSCHED_AB_H
#define IOSCHED_AB_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "model/abdata.h"
#include "act/load.h"
#include "act/tune.h"

/* Parse "SCHED[:key=value...],SCHED..." into cfg->v. Returns 0, or -1 with
 * what is wrong in err. */
int ab_parse_variants(const char *list, struct ab_config *cfg, char *err, size_t len);

/* The order of variant indexes for round r (0-based): forward on even
 * rounds, backward on odd ones, so two variants run A B B A. */
void ab_order(size_t nv, int round, int *out);

struct control;
struct ab_run;

/* Begin a run: check everything (schedulers, tunables, where the load
 * writes and whether it fits) before the first change. Returns 0, or -1
 * with why in err. res receives the phases as they are measured. */
int ab_begin(const struct ab_config *cfg, struct ab_result *res, struct ab_run **out, char *err, size_t len);

/* Advance the run; never waits (changes go through the control's worker,
 * cold starts through a helper process), so a screen can keep drawing.
 * Call it every 50 ms or so. Returns 0 while running, 1 when done, -1 on
 * an error (why in err). */
int ab_step(struct ab_run *r, struct control *c, char *err, size_t len);

/* What the run is doing now, for a status line: "A/B loop0: phase 3 of
 * 12, bfq, measuring; about 38 s left". */
const char *ab_status(const struct ab_run *r);

/* End the run (done, failed or cancelled): probe, load and cold start
 * stopped, scratch files removed; res->partial when it did not finish.
 * Settings are put back by the caller (control_finish or undo). */
void ab_end(struct ab_run *r, int cancelled);

/* Told what the run is doing (ab_status) four times a second, and NULL
 * once at the end. */
typedef void (*ab_progress_fn)(const char *status, void *ctx);

/* The whole run in one call (the command line): begin, step until done or
 * *stop, end; progress may be NULL. Returns 0, or -1 with why in err. */
int ab_run(const struct ab_config *cfg, struct control *ctl, volatile sig_atomic_t *stop, struct ab_result *res,
	   ab_progress_fn progress, void *ctx, char *err, size_t len);

void ab_result_free(struct ab_result *res);

#endif
