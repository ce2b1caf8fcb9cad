/* session: see include/session.h */
#include "session.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act/ab.h"
#include "act/ablive.h"
#include "model/abstats.h"
#include "act/coldstart.h"
#include "config/config.h"
#include "act/control.h"
#include "act/worker.h"
#include "act/load.h"
#include "act/tune.h"
#include "act/udevrule.h"
#include "base/util.h"

struct session {
	const struct options *o;
	struct sampler *smp;
	struct control *ctl;
	session_output_fn output;  /* NULL: none */
	void *output_ctx;
	char err[320];             /* why the last tick failed: an output that could not be written */
	/* An A/B run started in the full screen (A) ... */
	struct ab_config abcfg;
	struct ab_run *ab;         /* ... while it runs */
	struct ab_result abres;    /* ... its result, kept after it */
	size_t ab_undo_base;       /* the undo log's length when it began */
	/* The built-in load (L) ... */
	struct load *load;
	char load_disk[DISK_NAME_MAX]; /* ... on this disk */
	/* A cold start being timed (S) */
	struct coldstart cs;
	/* The last line of its own put in the event log (log_text): a
	 * message is not put there twice (session_note) */
	char last_logged[sizeof ((struct event *)0)->error];
};

struct session *session_new(const struct options *o, struct sampler *smp, struct control *ctl,
			    session_output_fn output, void *ctx)
{
	struct session *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->o = o;
	s->smp = smp;
	s->ctl = ctl;
	s->output = output;
	s->output_ctx = ctx;
	return s;
}

void session_free(struct session *s)
{
	if (!s)
		return;
	session_end(s);
	free(s);
}

const char *session_error(const struct session *s)
{
	return s->err;
}

/* Control's finished changes into the sampler's event log, in order. */
static void forward_events(struct session *s)
{
	struct event ev[EVENTLOG_PENDING];
	size_t n;
	while ((n = control_take_events(s->ctl, ev, EVENTLOG_PENDING)) > 0)
		for (size_t i = 0; i < n; i++)
			sampler_post(s->smp, &ev[i]);
	/* Tasks started before delay accounting was turned on have only part
	 * of their waits: the sampler marks them. */
	sampler_set_delayacct_since(s->smp, control_delayacct_since(s->ctl));
}

size_t session_poll(struct session *s)
{
	size_t n = control_poll(s->ctl);
	forward_events(s);
	return n;
}

int session_collect(struct session *s, struct sample *out)
{
	session_poll(s);
	struct pending_change pend[WORKER_QUEUE];
	size_t n = control_pending(s->ctl, pend, WORKER_QUEUE);
	return sampler_collect(s->smp, out, pend, n);
}

void session_name_rows(struct session *s, struct sample *out, const size_t *idx, size_t n)
{
	sampler_name_rows(s->smp, out, idx, n);
}

int session_write_outputs(struct session *s, const struct sample *out)
{
	s->err[0] = '\0';
	return s->output && s->output(s->output_ctx, out, s->err, sizeof s->err) < 0 ? -1 : 0;
}

void session_refresh_pending(struct session *s, struct sample *out)
{
	struct pending_change pend[WORKER_QUEUE];
	size_t n = control_pending(s->ctl, pend, WORKER_QUEUE);
	sampler_refresh_pending(s->smp, out, pend, n);
}

/* --read-only: nothing that changes the system is carried out, whatever
 * asks (the keys are refused before; this is the backstop). */
static int read_only(const struct session *s, char *msg, size_t len)
{
	if (s->o->read_only)
		util_fmt(msg, len, "read-only mode (--read-only): nothing is changed");
	return s->o->read_only;
}

/* While an A/B runs it owns the disk's settings. */
static int ab_busy(const struct session *s, char *msg, size_t len)
{
	if (s->ab)
		util_fmt(msg, len, "an A/B run is changing settings: Esc stops it first");
	return s->ab != NULL;
}

int session_set(struct session *s, const char *disk, enum tune_kind kind, const char *key, const char *value,
		char *msg, size_t len)
{
	if (read_only(s, msg, len))
		return -1;
	if (ab_busy(s, msg, len))
		return -1;
	struct tune_req r;
	tune_req_init(&r, disk, kind, key, value);
	return control_request(s->ctl, &r, msg, len);
}

int session_ionice(struct session *s, int pid, unsigned long long start, const char *comm, const char *value, char *msg,
		   size_t len)
{
	if (read_only(s, msg, len))
		return -1;
	struct tune_req r;
	tune_req_ioprio(&r, pid, start, comm, value);
	return control_request(s->ctl, &r, msg, len);
}

int session_set_weight(struct session *s, const char *path, const char *value, char *msg, size_t len)
{
	if (read_only(s, msg, len) || ab_busy(s, msg, len))
		return -1;
	if (session_replaying(s)) {
		util_fmt(msg, len, "a replay (--replay) changes nothing");
		return -1;
	}
	struct tune_req r;
	tune_req_bfq_weight(&r, path, value);
	return control_request(s->ctl, &r, msg, len);
}

int session_undo(struct session *s, char *msg, size_t len)
{
	if (read_only(s, msg, len))
		return -1;
	if (ab_busy(s, msg, len))
		return -1;
	return control_undo(s->ctl, msg, len);
}

int session_delayacct(struct session *s, int on, char *msg, size_t len)
{
	if (read_only(s, msg, len))
		return -1;
	int rc = control_delayacct(s->ctl, on, msg, len);
	forward_events(s);
	return rc;
}

size_t session_tunables(const char *disk, struct tunable *out, size_t max)
{
	return tune_list(disk, out, max);
}

void session_tunable_label(const struct tunable *t, char *buf, size_t len)
{
	tune_label(t->kind, t->key, buf, len);
}

/* A line of its own in the event log (l): an A/B's start, end, verdicts,
 * refusals (EV_AB); a udev rule written or not (EV_UDEV); a message too
 * wide for the status line (EV_NOTE). */
static void log_text(struct session *s, enum event_type type, const char *disk, int ok, const char *text)
{
	struct event e = {.ts = util_real_now(), .mono = util_mono_now(), .type = type, .ok = ok};
	util_strlcpy(e.disk, disk, sizeof e.disk);
	util_strlcpy(e.error, text, sizeof e.error);
	util_strlcpy(s->last_logged, e.error, sizeof s->last_logged);
	sampler_post(s->smp, &e);
}

void session_ab_log(struct session *s, const char *disk, int ok, const char *text)
{
	log_text(s, EV_AB, disk, ok, text);
}

const char *session_ab_off(const struct session *s)
{
	if (s->o->read_only)
		return "read-only mode (--read-only)";
	if (session_replaying(s))
		return "a replay (--replay) changes nothing";
	if (geteuid() != 0)
		return "needs root: it switches schedulers and writes a load (run iosched-top with sudo)";
	return NULL;
}

/* The load an A/B on disk runs: want, or (not given: the default) the
 * largest size that fits where it writes. 0, or -1 with why in err. */
static int ab_load_size(const struct options *o, const char *disk, uint64_t want, int given, uint64_t *size,
			char *err, size_t len)
{
	char dir[4096];
	*size = want;
	if (options_load_kind(o) == LOAD_NONE)
		return 0;
	if (load_pick_dir(disk, o->load_dir, dir, sizeof dir, err, len) < 0)
		return -1;
	return load_pick_size(disk, dir, want, given, size, err, len);
}

/* What the A/B about to run is, for the status line and the log; shrunk:
 * the default load size did not fit. */
static void ab_started(struct session *s, int shrunk, char *msg, size_t len)
{
	const struct ab_config *c = &s->abcfg;
	char what[256] = "", load[160];
	for (size_t i = 0; i < c->nv; i++) {
		size_t used = strlen(what);
		util_fmt(what + used, sizeof what - used, "%s%s", i ? "," : "", c->v[i].text);
	}
	if (c->live) {
		util_fmt(msg, len, "live A/B started: %s, up to %d round(s) of %g s slots, on your own load", what,
			 c->rounds, c->dwell_s);
		session_ab_log(s, c->disk, 1, msg);
		return;
	}
	if (c->load == LOAD_NONE)
		util_strlcpy(load, "no load of its own", sizeof load);
	else
		util_fmt(load, sizeof load, "load %s %llu MiB", load_kind_name(c->load),
			 (unsigned long long)(c->load_size >> 20));
	if (c->load != LOAD_NONE && shrunk) {
		size_t used = strlen(load);
		util_fmt(load + used, sizeof load - used, " (the default, %llu MiB, does not fit the free space)",
			 (unsigned long long)(s->o->load_size >> 20));
	}
	util_fmt(msg, len, "A/B started: %s, %d round(s) of %g s, %s", what, c->rounds, c->dwell_s, load);
	session_ab_log(s, c->disk, 1, msg);
}

/* Why an A/B could not start: said, and kept in the event log. */
static int ab_refused(struct session *s, const char *disk, char *msg, size_t len)
{
	char text[600];
	util_fmt(text, sizeof text, "A/B refused: %s", msg);
	util_strlcpy(msg, text, len);
	session_ab_log(s, disk, 0, msg);
	return -1;
}

int session_ab_load_offer(struct session *s, const char *disk, uint64_t *size, char *msg, size_t len)
{
	if (options_load_kind(s->o) == LOAD_NONE)
		return 0;
	if (ab_load_size(s->o, disk, s->o->load_size, s->o->load_size_given, size, msg, len) < 0)
		return ab_refused(s, disk, msg, len);
	return 1;
}

int session_ab_start(struct session *s, const char *disk, const char *variants, uint64_t load_size, int live,
		     char *msg, size_t len)
{
	const char *off = session_ab_off(s);
	if (off) {
		util_fmt(msg, len, "%s", off);
		return ab_refused(s, disk, msg, len);
	}
	struct ab_config *c = &s->abcfg;
	if (live && load_size) {
		util_fmt(msg, len, "live runs on your own load: give load= or live, not both");
		return ab_refused(s, disk, msg, len);
	}
	if (session_ab_config(s->o, disk, variants, live, c, msg, len) < 0)
		return ab_refused(s, disk, msg, len);
	int shrunk = c->load_size < s->o->load_size; /* what session_ab_config made of the default */
	if (load_size && c->load != LOAD_NONE &&
	    ab_load_size(s->o, disk, load_size, 1, &c->load_size, msg, len) < 0)
		return ab_refused(s, disk, msg, len);
	if (s->load && c->load != LOAD_NONE) {
		util_fmt(msg, len, "the L load is running: stop it first (L), or use --load none");
		return ab_refused(s, disk, msg, len);
	}
	ab_result_free(&s->abres);
	s->ab_undo_base = control_changes(s->ctl);
	if (ab_begin(c, &s->abres, &s->ab, msg, len) < 0) {
		s->ab = NULL;
		return ab_refused(s, disk, msg, len);
	}
	/* The A/B measures with a probe of its own: a second reader would
	 * change what it measures. */
	sampler_hold_probe(s->smp, c->disk);
	ab_started(s, shrunk, msg, len);
	return 0;
}

int session_ab_step(struct session *s, char *msg, size_t len)
{
	if (!s->ab)
		return 0;
	int step = ab_step(s->ab, s->ctl, msg, len);
	return step > 0 ? 1 : step < 0 ? -1 : 0;
}

void session_ab_finish(struct session *s, int cancelled)
{
	if (!s->ab)
		return;
	ab_end(s->ab, cancelled);
	s->ab = NULL;
	control_restore_to(s->ctl, s->ab_undo_base);
	sampler_hold_probe(s->smp, NULL);
}

const char *session_ab_status(const struct session *s)
{
	return s->ab ? ab_status(s->ab) : NULL;
}

const struct ab_config *session_ab_config_used(const struct session *s)
{
	return &s->abcfg;
}

const struct ab_result *session_ab_result(const struct session *s)
{
	return &s->abres;
}

/* --ab-live's settings: the slot and washout its variants need unless
 * given, as many rounds as --max-time holds (or --rounds, if fewer), the
 * probe fast enough for a p99 per slot, no load or readers of its own. */
static int live_config(const struct options *o, struct ab_config *cfg, char *err, size_t len)
{
	double dwell, washout;
	ablive_defaults(cfg, &dwell, &washout);
	cfg->live = 1;
	cfg->no_bpf = o->no_bpf;
	cfg->max_time_s = o->max_time_s;
	cfg->dwell_s = o->dwell_given ? o->dwell_s : dwell;
	cfg->warmup_s = o->warmup_given ? o->warmup_s : washout;
	/* a switch takes a moment: a tenth of a second is counted for it */
	int fit = (int)floor(cfg->max_time_s / ((double)cfg->nv * (cfg->dwell_s + cfg->warmup_s + 0.1)));
	fit = fit < 1 ? 1 : fit > ABV_MAX_ROUNDS ? ABV_MAX_ROUNDS : fit;
	cfg->rounds = o->rounds_given && o->rounds < fit ? o->rounds : fit;
	int need = abstats_min_rounds(cfg->nv);
	if (cfg->rounds < need && (!o->rounds_given || o->rounds >= need)) {
		util_fmt(err, len, "--ab-live: --max-time %g s holds %d round(s) of %zu slots of %g s (and a %g s washout "
			 "each); a verdict needs %d: give --max-time %.0f or more, or a shorter --dwell", cfg->max_time_s,
			 cfg->rounds, cfg->nv, cfg->dwell_s, cfg->warmup_s, need,
			 ceil(need * (double)cfg->nv * (cfg->dwell_s + cfg->warmup_s + 0.1)));
		return -1;
	}
	cfg->load = LOAD_NONE;
	double want = ceil(AB_PACED_PER_PHASE / cfg->dwell_s);
	cfg->paced_rate_hz = o->probe_rate_given || o->probe_rate_hz <= 0 ? o->probe_rate_hz
			     : want > o->probe_rate_hz ? want : o->probe_rate_hz;
	cfg->probe_size = (uint32_t)o->probe_size;
	cfg->seed = o->have_seed ? o->seed : (uint64_t)getpid();
	return 0;
}

int session_ab_config(const struct options *o, const char *disk, const char *variants, int live,
		      struct ab_config *cfg, char *err, size_t len)
{
	memset(cfg, 0, sizeof *cfg);
	util_strlcpy(cfg->disk, disk, sizeof cfg->disk);
	if (ab_parse_variants(variants, cfg, err, len) < 0)
		return -1;
	cfg->rounds = o->rounds;
	cfg->dwell_s = o->dwell_s;
	cfg->warmup_s = o->warmup_s;
	if (live)
		return live_config(o, cfg, err, len);
	cfg->load = options_load_kind(o);
	cfg->load_dir = o->load_dir;
	/* A default the disk's free space cannot hold shrinks; a size the
	 * user gave is refused instead (load_size_fit). */
	if (cfg->load != LOAD_NONE &&
	    ab_load_size(o, disk, o->load_size, o->load_size_given, &cfg->load_size, err, len) < 0)
		return -1;
	/* The paced reader: as given (max, 0: none), else fast enough for a
	 * p99 in every phase, and at least the probe's 20 Hz. */
	double fit = ceil(AB_PACED_PER_PHASE / cfg->dwell_s);
	cfg->paced_rate_hz = o->probe_rate_given || o->probe_rate_hz <= 0 ? o->probe_rate_hz
			     : fit > o->probe_rate_hz ? fit : o->probe_rate_hz;
	cfg->fresh_reads = o->fresh_reads_given ? (uint32_t)o->fresh_reads : AB_FRESH_READS;
	cfg->probe_size = (uint32_t)o->probe_size;
	cfg->seed = o->have_seed ? o->seed : (uint64_t)getpid();
	cfg->baseline = o->baseline;
	cfg->startup_cmd = o->startup;
	cfg->startup_runs = o->startup_runs;
	return 0;
}

int session_load_toggle(struct session *s, const char *disk, char *msg, size_t len)
{
	if (read_only(s, msg, len))
		return -1;
	char sz[16];
	if (s->load) {
		util_format_size(load_bytes(s->load), sz, sizeof sz);
		load_stop(s->load);
		s->load = NULL;
		util_fmt(msg, len, "load on %s stopped after %s; its files are removed", s->load_disk, sz);
		return 0;
	}
	enum load_kind k = options_load_kind(s->o);
	if (k == LOAD_NONE || s->ab) {
		util_fmt(msg, len, "%s", k == LOAD_NONE ? "--load none: no built-in load" : "an A/B run has its own load");
		return -1;
	}
	char dir[4096];
	uint64_t size;
	if (load_pick_dir(disk, s->o->load_dir, dir, sizeof dir, msg, len) < 0 ||
	    load_pick_size(disk, dir, s->o->load_size, s->o->load_size_given, &size, msg, len) < 0 ||
	    load_start(k, dir, size, &s->load, msg, len) < 0)
		return -1;
	util_strlcpy(s->load_disk, disk, sizeof s->load_disk);
	util_fmt(msg, len, "load %s of %llu MiB started in %s", load_kind_name(k), (unsigned long long)(size >> 20), dir);
	return 0;
}

const char *session_load_status(struct session *s, uint64_t *bytes, const char **disk)
{
	if (!s->load)
		return NULL;
	*bytes = load_bytes(s->load);
	*disk = s->load_disk;
	return load_kind_name(options_load_kind(s->o));
}

int session_coldstart_begin(struct session *s, char *msg, size_t len)
{
	if (read_only(s, msg, len))
		return -1;
	if (!s->o->startup) {
		util_fmt(msg, len, "give the command to time with --startup CMD (e.g. --startup 'python3 -c pass')");
		return -1;
	}
	if (s->cs.pid) {
		util_fmt(msg, len, "a cold start is being timed already");
		return -1;
	}
	if (coldstart_begin(s->o->startup, &s->cs) < 0) {
		util_fmt(msg, len, "cannot start the cold start helper");
		return -1;
	}
	util_fmt(msg, len, "timing a cold start (page cache dropped first) ...");
	return 0;
}

int session_coldstart_poll(struct session *s, double *secs)
{
	return s->cs.pid ? coldstart_poll(&s->cs, secs) : 0;
}

int session_coldstart_busy(const struct session *s)
{
	return s->cs.pid != 0;
}

int session_udev_prepare(struct session *s, const char *disk, const char *sched, struct session_udev *u)
{
	util_strlcpy(u->disk, disk, sizeof u->disk);
	util_strlcpy(u->file, s->o->udev_rules_file ? s->o->udev_rules_file : UDEVRULE_DEFAULT_FILE, sizeof u->file);
	struct udevrule_ident id;
	udevrule_ident(sampler_udev(s->smp), disk, &id);
	int rc = 0;
	if (udevrule_line(&id, sched, u->rule, sizeof u->rule) < 0) {
		util_strlcpy(u->rule, "(this disk's name or serial cannot be put in a rule safely)", sizeof u->rule);
		rc = -1;
	}
	struct udevrule_found found[SESSION_UDEV_FOUND];
	u->nfound = udevrule_find(NULL, &id, found, SESSION_UDEV_FOUND);
	for (size_t i = 0; i < u->nfound; i++)
		util_fmt(u->found[i], sizeof u->found[i], "%s:%u: %s", found[i].file, found[i].line, found[i].text);
	udevrule_note(u->file, disk, sched, u->note, sizeof u->note);
	return rc;
}

/* session_udev_write's work; its message (what was written, or why not)
 * goes to the event log as well: the status line cuts it at 80 columns. */
static int udev_write(struct session *s, const struct session_udev *u, char *msg, size_t len)
{
	if (read_only(s, msg, len))
		return -1;
	if (udevrule_absent() && !s->o->udev_rules_file) {
		util_fmt(msg, len, "not written: udev does not run here, a rule would do nothing (the panel says what does)");
		return -1;
	}
	/* The disk's identity as the rule was made from it: udev's properties
	 * of a disk do not change while it is attached. */
	struct udevrule_ident id;
	udevrule_ident(sampler_udev(s->smp), u->disk, &id);
	if (udevrule_write(u->file, &id, u->rule, msg, len) < 0)
		return -1;
	util_fmt(msg, len, "wrote %s; apply now: udevadm control --reload && udevadm trigger", u->file);
	return 0;
}

void session_note(struct session *s, const char *text)
{
	char as_logged[sizeof s->last_logged];
	util_strlcpy(as_logged, text, sizeof as_logged);
	if (strcmp(as_logged, s->last_logged) != 0) /* a udev rule's or an A/B's is there already */
		log_text(s, EV_NOTE, "", 1, text);
}

int session_udev_write(struct session *s, const struct session_udev *u, char *msg, size_t len)
{
	int rc = udev_write(s, u, msg, len);
	log_text(s, EV_UDEV, u->disk, rc == 0, msg);
	return rc;
}

int session_save_config(struct session *s, const char *const *keys, const char *const *values, size_t n, char *msg,
			size_t len)
{
	return config_save(s->o->config_path, keys, values, n, s->o->config_uid, s->o->config_gid, msg, len);
}

void session_end(struct session *s)
{
	session_ab_finish(s, 1); /* its undos are queued: control_finish waits for them */
	if (s->load)
		load_stop(s->load);
	s->load = NULL;
	coldstart_cancel(&s->cs);
	ab_result_free(&s->abres);
}

int session_prime(struct session *s)
{
	return sampler_prime(s->smp);
}

int session_replaying(const struct session *s)
{
	return sampler_replaying(s->smp);
}

const char *session_replay_msg(const struct session *s)
{
	return sampler_replay_msg(s->smp);
}

int session_probe_disk(struct session *s, const char *disk, char *msg, size_t len)
{
	int rc = sampler_probe_disk(s->smp, disk, msg, len);
	if (rc == -ENOENT)
		util_fmt(msg, len, "%s is gone", disk);
	else if (rc == 1)
		util_fmt(msg, len, "%s: probe stopped (O probes it again)", disk);
	else if (rc == 0)
		util_fmt(msg, len, "%s: probed from the next refresh (O again stops it)", disk);
	return rc < 0 ? -1 : 0;
}

void session_set_probe_rate(struct session *s, double hz)
{
	sampler_set_probe_rate(s->smp, hz);
}

int session_fresh_start(struct session *s, const char *disk, uint32_t reads, char *err, size_t len)
{
	return sampler_fresh_start(s->smp, disk, reads, err, len);
}

int session_toggle_hidden(struct session *s)
{
	return sampler_toggle_hidden(s->smp);
}

int session_toggle_threads(struct session *s)
{
	return sampler_toggle_threads(s->smp);
}

void session_show_units(struct session *s, struct sample *out, int on)
{
	sampler_show_cgroups(s->smp, out, on);
}

void session_watch_unit(struct session *s, const char *path)
{
	sampler_watch_unit(s->smp, path);
}

int session_showing_hidden(const struct session *s)
{
	return sampler_showing_hidden(s->smp);
}

const char *session_change_result(struct session *s, double *seen)
{
	return s->ctl ? control_result_since(s->ctl, seen) : NULL;
}

int session_changing(const struct session *s)
{
	return s->ctl && control_busy(s->ctl);
}
