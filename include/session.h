/* session: what one run of the tool holds between main and the views —
 * the sampler, control (the actuators) and the outputs — and the one path
 * of a tick through them: finished changes and the queue go from control
 * to the sampler (as arguments: neither holds a pointer to the other), a
 * sample is collected, the outputs are written. The batch view and the
 * full screen call this instead of each driving the collectors; a replay
 * is a session whose sampler reads a recording (control then changes
 * nothing: nothing asks it to).
 *
 * This is the first step of issue 18's session layer: the full screen's
 * commands (switch, undo, A/B, load, cold start, udev rules) still call
 * the actuators directly; they move here next. */
#ifndef IOSCHED_SESSION_H
#define IOSCHED_SESSION_H

#include <stddef.h>

#include "control.h"
#include "options.h"
#include "outputs.h"
#include "sample.h"

struct session {
	const struct options *o;
	struct sampler *smp;
	struct control *ctl;
	struct outputs *outs;      /* NULL: none */
	char err[320];             /* why the last tick failed: an output that could not be written */
};

void session_init(struct session *s, const struct options *o, struct sampler *smp, struct control *ctl,
		  struct outputs *outs);

/* Hand what control finished (events; when delay accounting was turned
 * on) to the sampler: the next sample has it. Returns how many changes
 * finished. Call it often (the full screen: every key and redraw). */
size_t session_poll(struct session *s);

/* One tick's sample: poll, then collect into out with the changes still
 * queued. Returns 0; -ENODATA at the end of a replay; or the collector's
 * negative errno. */
int session_collect(struct session *s, struct sample *out);

/* Write the tick to the outputs (--record, --prometheus-textfile), after
 * the view has shown it. Returns 0, or -1 when one could not be written:
 * s->err says which and why, and the run ends. */
int session_write_outputs(struct session *s, const struct sample *out);

/* The pending-change fields of out brought up to date between ticks (a
 * queued switch shows at once). */
void session_refresh_pending(struct session *s, struct sample *out);

#endif
