/* session: what one run of the tool holds between main and the views —
 * the sampler, control (the actuators) and where ticks go — and the one
 * path of a tick through them: finished changes and the queue go from
 * control to the sampler (as arguments: neither holds a pointer to the
 * other), a sample is collected, the outputs get it (through a callback:
 * they are written by view code, which the session does not call). The batch view and the
 * full screen call this instead of each driving the collectors; a replay
 * is a session whose sampler reads a recording (control then changes
 * nothing: nothing asks it to).
 *
 * The full screen's commands are here too (switch, tunables, I/O
 * priority, undo, delay accounting, A/B, the built-in load, cold starts,
 * udev rules, saving the configuration): each returns 0, or -1 with what
 * went wrong in msg, and the view shows msg. The session is opaque and
 * this header includes only data (settings.h, abdata.h, sample.h) and the
 * options, so a view reaches no actuator (src/act) through it. */
#ifndef IOSCHED_SESSION_H
#define IOSCHED_SESSION_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "model/abdata.h"
#include "config/options.h"
#include "model/sample.h"
#include "model/settings.h"

#define SESSION_UDEV_FOUND 8

/* The udev panel's content: the rule for a disk and where rules for it
 * are already. */
struct session_udev {
	char disk[32];
	char rule[512];
	char file[PATH_MAX];       /* whole: a cut path would be another file */
	char note[1024];           /* about the file (e.g. it sorts before another rule) */
	char found[SESSION_UDEV_FOUND][560]; /* "FILE:LINE: the rule's text" */
	size_t nfound;
};

struct session;
struct control;

/* Where a tick goes after the view has shown it (the recording, the
 * Prometheus file: outputs.h). Returns 0, or a negative errno with which
 * output and why in err. */
typedef int (*session_output_fn)(void *ctx, const struct sample *s, char *err, size_t len);

/* A session for one run: the sampler and control stay the caller's;
 * output (NULL: none) gets each tick with ctx. NULL without memory. */
struct session *session_new(const struct options *o, struct sampler *smp, struct control *ctl,
			    session_output_fn output, void *ctx);
void session_free(struct session *s);

/* Why the last tick failed: an output that could not be written ("" if none). */
const char *session_error(const struct session *s);

/* The sampler's first reading (no rates yet; the disks are listed). */
int session_prime(struct session *s);

/* Whether samples come from a recording (keys that change the system are
 * off), and why a replay ended early ("" if it did not). */
int session_replaying(const struct session *s);
const char *session_replay_msg(const struct session *s);

/* Probe disk from the next refresh (O): one the default set or --probe
 * left out. Returns 0, or -1 with why in msg. */
int session_probe_disk(struct session *s, const char *disk, char *msg, size_t len);

/* The probe's pace from the next read (0: back-to-back). */
void session_set_probe_rate(struct session *s, double hz);

/* Start a fresh reader (a new process, reads reads of 4 KiB) on disk.
 * Returns 0, or -1 with why in err. */
int session_fresh_start(struct session *s, const char *disk, uint32_t reads, char *err, size_t len);

/* Show the disks hidden by default / rows per thread, from the next
 * sample. Return the new setting. */
int session_toggle_hidden(struct session *s);
int session_toggle_threads(struct session *s);
int session_showing_hidden(const struct session *s);
/* The units pane opened (on) or closed: cgroups are read only while it is
 * open or an output writes them; opening fills out's (the last tick's)
 * at once (sampler_show_cgroups). */
void session_show_units(struct session *s, struct sample *out, int on);
/* Watch what the reads of the unit at path wait behind ("" stops). */
void session_watch_unit(struct session *s, const char *path);

/* Whether a change is queued or in the kernel now. */
int session_changing(const struct session *s);

/* The last change's result (for the status line) when it is newer than
 * *seen, which is moved on; else NULL. */
const char *session_change_result(struct session *s, double *seen);

/* Hand what control finished (events; when delay accounting was turned
 * on) to the sampler: the next sample has it. Returns how many changes
 * finished. Call it often (the full screen: every key and redraw). */
size_t session_poll(struct session *s);

/* One tick's sample: poll, then collect into out with the changes still
 * queued. Returns 0; -ENODATA at the end of a replay; or the collector's
 * negative errno. */
int session_collect(struct session *s, struct sample *out);

/* Command lines for the rows of out (the last tick) at idx, n of them, or
 * for every row with idx NULL: what the view is about to show or filter
 * by (sampler_name_rows). */
void session_name_rows(struct session *s, struct sample *out, const size_t *idx, size_t n);

/* Write the tick to the outputs (--record, --prometheus-textfile), after
 * the view has shown it. Returns 0, or -1 when one could not be written:
 * s->err says which and why, and the run ends. */
int session_write_outputs(struct session *s, const struct sample *out);

/* The pending-change fields of out brought up to date between ticks (a
 * queued switch shows at once). */
void session_refresh_pending(struct session *s, struct sample *out);

/* Queue a change of disk's scheduler or tunable (what says the key
 * names), or of process pid's I/O priority (kind TUNE_IOPRIO). Refused
 * while an A/B run owns the settings. */
int session_set(struct session *s, const char *disk, enum tune_kind kind, const char *key, const char *value,
		char *msg, size_t len);
int session_ionice(struct session *s, int pid, unsigned long long start, const char *comm, const char *value, char *msg,
		   size_t len);
/* Queue a change of the bfq weight (1..1000) of the cgroup at path
 * (relative to the v2 root, as a sample's cgroups have it). Refused in
 * read-only mode and while an A/B run owns the settings (its restore
 * would put this back too). */
int session_set_weight(struct session *s, const char *path, const char *value, char *msg, size_t len);

/* Queue the undo of the newest change (refused while an A/B runs). */
int session_undo(struct session *s, char *msg, size_t len);

/* kernel.task_delayacct on or off. */
int session_delayacct(struct session *s, int on, char *msg, size_t len);

/* A disk's tunables as they are now (up to max); their labels. */
size_t session_tunables(const char *disk, struct tunable *out, size_t max);
void session_tunable_label(const struct tunable *t, char *buf, size_t len);

/* Why the A/B cannot run here (read-only mode, a replay, not root), or
 * NULL: A is not offered where it cannot run. */
const char *session_ab_off(const struct session *s);

/* The load an A/B on disk would run: 1 with its size (the options', or
 * the largest that fits the free space where it writes when the size is
 * the default), 0 for --load none, -1 with why and how to fix it in msg
 * (also in the event log). */
int session_ab_load_offer(struct session *s, const char *disk, uint64_t *size, char *msg, size_t len);

/* A: start an A/B run of variants on disk (the configuration's other
 * settings from the options; load_size, when not 0, replaces the
 * load's size, refused when it does not fit; live: on the user's own
 * load, as --ab-live); the disk's probe is held off meanwhile. Its start,
 * or why it could not, goes to the event log and msg. */
int session_ab_start(struct session *s, const char *disk, const char *variants, uint64_t load_size, int live,
		     char *msg, size_t len);

/* A line about an A/B on disk into the event log (ok 0: a refusal). */
void session_ab_log(struct session *s, const char *disk, int ok, const char *text);

/* Advance a running A/B: 0 while it runs, 1 when it has ended (then
 * session_ab_finish), -1 with a problem said in msg (it goes on). */
int session_ab_step(struct session *s, char *msg, size_t len);

/* End the A/B run (cancelled: Esc or the exit): its settings are put back
 * (queued undos), the probe resumes; s->abcfg and s->abres keep the result. */
void session_ab_finish(struct session *s, int cancelled);

/* What the running A/B is doing, or NULL when none runs. */
const char *session_ab_status(const struct session *s);

/* The last A/B run started here: what was asked and what was measured
 * (kept after it ends, until the next one or session_end). */
const struct ab_config *session_ab_config_used(const struct session *s);
const struct ab_result *session_ab_result(const struct session *s);

/* An A/B configuration for disk and the variants list from the options
 * (--rounds, --dwell, --warmup, --load..., the probe's pace: back-to-back
 * unless --probe-rate was given); live: --ab-live's (--max-time, the
 * slots). Returns 0, or -1 with why in err. */
int session_ab_config(const struct options *o, const char *disk, const char *variants, int live,
		      struct ab_config *cfg, char *err, size_t len);

/* L: start the built-in load on disk, or stop the one running. msg says
 * which happened. */
int session_load_toggle(struct session *s, const char *disk, char *msg, size_t len);

/* The load running: its kind's name, what it wrote and on which disk;
 * NULL when none. */
const char *session_load_status(struct session *s, uint64_t *bytes, const char **disk);

/* S: time a cold start of the --startup command. */
int session_coldstart_begin(struct session *s, char *msg, size_t len);

/* A cold start being timed: 1 with its seconds when done, 0 while it
 * runs (or none), -1 when it could not be timed. */
int session_coldstart_poll(struct session *s, double *secs);
int session_coldstart_busy(const struct session *s);

/* P: the udev rule that keeps disk on sched, and where rules for the
 * disk are already. Returns 0, or -1 when the disk cannot be named safely
 * in a rule (u->rule says so). */
int session_udev_prepare(struct session *s, const char *disk, const char *sched, struct session_udev *u);

/* w in the udev panel: write u's rule into u->file. */
int session_udev_write(struct session *s, const struct session_udev *u, char *msg, size_t len);

/* A message the status line cannot show whole at this width, whole in
 * the event log (l) and the recording. */
void session_note(struct session *s, const char *text);

/* W: save keys (n of them, values[i] NULL for a flag) into the
 * configuration file, as its user. */
int session_save_config(struct session *s, const char *const *keys, const char *const *values, size_t n, char *msg,
			size_t len);

/* The end of the full screen: an A/B run cancelled (its undos queued:
 * control_finish waits for them), the load stopped, a cold start
 * cancelled, the A/B result freed. */
void session_end(struct session *s);

#endif
