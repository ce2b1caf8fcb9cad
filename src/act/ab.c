/* ab: see include/act/ab.h */
#include "act/ab.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/abstats.h"
#include "act/ablive.h"
#include "ablock.h"
#include "act/coldstart.h"
#include "act/control.h"
#include "probe/freshjob.h"
#include "abio.h"
#include "probe/probe.h"
#include "probe/probefile.h"
#include "base/util.h"

/* Queue attributes a variant may set; anything else is a file of the
 * scheduler's own, under queue/iosched/. */
static int is_queue_attr(const char *disk, const char *key)
{
	char path[PATH_MAX];
	static const char *const known[] = {"nr_requests", "read_ahead_kb", "wbt_lat_usec", "nomerges", "rq_affinity"};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(key, known[i]))
			return 1;
	return tune_path(disk, TUNE_QUEUE, key, path, sizeof path) == 0 && access(path, F_OK) == 0;
}

static int parse_variant(const char *disk, char *text, struct ab_variant *v, char *err, size_t len)
{
	memset(v, 0, sizeof *v);
	util_strlcpy(v->text, text, sizeof v->text);
	char *save = NULL, *part = strtok_r(text, ":", &save);
	if (!part || !*part) {
		util_fmt(err, len, "--ab: an empty variant; give SCHED[:key=value...]");
		return -1;
	}
	util_strlcpy(v->sched, part, sizeof v->sched);
	while ((part = strtok_r(NULL, ":", &save))) {
		char *eq = strchr(part, '=');
		if (!eq || eq == part || !eq[1] || v->ntun == AB_MAX_TUNABLES) {
			util_fmt(err, len, "--ab: '%s' in '%s' is not key=value (at most %d per variant)", part, v->text,
				 AB_MAX_TUNABLES);
			return -1;
		}
		*eq = '\0';
		enum tune_kind k = is_queue_attr(disk, part) ? TUNE_QUEUE : TUNE_IOSCHED;
		tune_req_init(&v->tun[v->ntun++], disk, k, part, eq + 1);
	}
	return 0;
}

int ab_parse_variants(const char *list, struct ab_config *cfg, char *err, size_t len)
{
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return -1;
	cfg->nv = 0;
	int rc = 0;
	for (char *t = strtok_r(copy, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
		if (cfg->nv == AB_MAX_VARIANTS) {
			util_fmt(err, len, "--ab: at most %d variants", AB_MAX_VARIANTS);
			rc = -1;
		} else {
			rc = parse_variant(cfg->disk, t, &cfg->v[cfg->nv++], err, len);
		}
	}
	free(copy);
	if (rc == 0 && cfg->nv < 2) {
		util_fmt(err, len, "--ab: give at least two variants to compare, e.g. --ab none,bfq");
		rc = -1;
	}
	return rc;
}

void ab_order(size_t nv, int round, int *out)
{
	for (size_t i = 0; i < nv; i++)
		out[i] = round % 2 ? (int)(nv - 1 - i) : (int)i;
}

/* Everything that can be checked before the first change. */
static int check(const struct ab_config *cfg, char *err, size_t len)
{
	for (size_t i = 0; i < cfg->nv; i++) {
		struct tune_req r;
		tune_req_init(&r, cfg->disk, TUNE_SCHEDULER, "scheduler", cfg->v[i].sched);
		if (tune_validate(&r, err, len) < 0)
			return -1;
		for (size_t k = 0; k < cfg->v[i].ntun; k++)
			if (cfg->v[i].tun[k].kind == TUNE_QUEUE && tune_validate(&cfg->v[i].tun[k], err, len) < 0)
				return -1;
	}
	return 0;
}

/* A reader of the run: rate 0 is the steady one. The paced one reads the
 * steady one's probe file, if it has one, and never writes it (file given:
 * checked, not created), so the two never race to prepare it. */
static int start_probe(const struct ab_config *cfg, double rate, uint64_t seed, const char *file,
		       struct probe **p, char *err, size_t len)
{
	struct probe_config pc = {0};
	util_strlcpy(pc.disk, cfg->disk, sizeof pc.disk);
	pc.io_size = cfg->probe_size;
	pc.rate_hz = rate;
	pc.seed = seed;
	pc.min_plausible_ns = 5000;
	pc.file_size = 1ull << 30;
	if (file) {
		util_strlcpy(pc.file, file, sizeof pc.file);
		pc.file_is_users = 1;
	}
	return probe_start(&pc, p, err, len);
}

enum ab_state { AB_NEXT, AB_APPLY, AB_WARMUP, AB_STARTUP, AB_MEASURE, AB_FRESH_TAIL, AB_DONE };

struct ab_run {
	struct ab_config cfg;
	struct ab_result *res;
	enum ab_state st;
	int baseline;               /* in the baseline pass */
	int round;                  /* 0-based within the pass */
	size_t idx;                 /* position in this round's order */
	int order[AB_MAX_VARIANTS];
	struct tune_req reqs[2 + AB_MAX_VARIANTS * AB_MAX_TUNABLES];
	size_t nreqs, nextreq;
	/* Every queue attribute some variant names, at its value before the
	 * run: a variant that does not name it runs with this value (queue
	 * attributes outlive a scheduler switch; a scheduler's own files do
	 * not). */
	struct tune_req base[AB_MAX_VARIANTS * AB_MAX_TUNABLES];
	size_t nbase;
	double submitted;           /* mono time of the last request */
	double until;
	struct probe *steady, *paced;
	struct probe_status where;  /* what the steady reader reads */
	struct freshjob fresh;
	double next_fresh;          /* mono time the next fresh job may start */
	int fresh_started;          /* in this phase */
	struct abio io;             /* the phase's rates, the tool's share, the disk below */
	double t0;
	struct coldstart cs;
	struct load *load;
	struct ablive *live;        /* --ab-live's parts; NULL in a built-in run */
	double run_t0;              /* mono time the run began */
	char dir[PATH_MAX];
	struct ab_phase cur;
	double phase_t0;            /* mono time this phase began (its switch) */
	double phase_secs;          /* the phases so far took this long, switches included */
	int held;                   /* ablock's lock on the disk, for the whole run; -1 */
	char status[200];
};

/* Round r's order: A B B A, or in a live run a coin's (ablive.h). */
static void order_of(struct ab_run *r, int round)
{
	if (r->cfg.live)
		ablive_order(r->cfg.seed, round, r->cfg.nv, r->order);
	else
		ab_order(r->cfg.nv, round, r->order);
}

/* The queue attributes the variants name, with their values now. */
static void base_read(struct ab_run *r)
{
	r->nbase = 0;
	for (size_t i = 0; i < r->cfg.nv; i++)
		for (size_t k = 0; k < r->cfg.v[i].ntun; k++) {
			const struct tune_req *t = &r->cfg.v[i].tun[k];
			int known = t->kind != TUNE_QUEUE;
			for (size_t b = 0; b < r->nbase && !known; b++)
				known = !strcmp(r->base[b].key, t->key);
			char now[TUNE_VALUE_MAX];
			if (known || tune_read(r->cfg.disk, TUNE_QUEUE, t->key, now, sizeof now) < 0)
				continue;
			tune_req_init(&r->base[r->nbase++], r->cfg.disk, TUNE_QUEUE, t->key, now);
		}
}

/* A run refused before its first change: nothing of it is kept. */
static int begin_failed(struct ab_run *r)
{
	ablock_release(r->cfg.disk, r->held);
	free(r);
	return -1;
}

int ab_begin(const struct ab_config *cfg, struct ab_result *res, struct ab_run **out, char *err, size_t len)
{
	memset(res, 0, sizeof *res);
	util_strlcpy(res->disk, cfg->disk, sizeof res->disk);
	struct utsname u;
	if (uname(&u) == 0)
		util_strlcpy(res->kernel, u.release, sizeof res->kernel);
	tune_read(cfg->disk, TUNE_SCHEDULER, "scheduler", res->original, sizeof res->original);
	char paced[64] = "none (--probe-rate max)";
	if (cfg->paced_rate_hz > 0)
		util_fmt(paced, sizeof paced, "%g reads/s, jittered", cfg->paced_rate_hz);
	if (cfg->live)
		util_fmt(res->probe, sizeof res->probe,
			 "QD1 %u B O_DIRECT random reads, %s, one process for the whole run (the paced reader)",
			 cfg->probe_size, cfg->paced_rate_hz > 0 ? paced : "back-to-back");
	else
		util_fmt(res->probe, sizeof res->probe,
			 "QD1 %u B O_DIRECT random reads; steady: back-to-back, one process for the whole run; fresh: %d "
			 "new processes per phase, each a job of %u reads; paced: %s",
			 cfg->probe_size, AB_FRESH_RUNS, cfg->fresh_reads, paced);
	/* The settings a variant does not name stay as they are: say which. */
	char nr[24] = "?", ra[24] = "?", wbt[24] = "?", nm[24] = "?";
	tune_read(cfg->disk, TUNE_QUEUE, "nr_requests", nr, sizeof nr);
	tune_read(cfg->disk, TUNE_QUEUE, "read_ahead_kb", ra, sizeof ra);
	tune_read(cfg->disk, TUNE_QUEUE, "wbt_lat_usec", wbt, sizeof wbt);
	tune_read(cfg->disk, TUNE_QUEUE, "nomerges", nm, sizeof nm);
	util_fmt(res->queue, sizeof res->queue, "nr_requests %s, read_ahead_kb %s, wbt_lat_usec %s, nomerges %s", nr, ra, wbt,
		 nm);
	struct ab_run *r = calloc(1, sizeof *r);
	res->phases = calloc(AB_MAX_PHASES, sizeof *res->phases);
	if (!r || !res->phases) {
		free(r);
		util_fmt(err, len, "out of memory");
		return -1;
	}
	r->cfg = *cfg;
	r->res = res;
	r->held = -1;
	abio_init(&r->io, cfg->disk);
	util_strlcpy(res->below, r->io.below, sizeof res->below);
	if (check(cfg, err, len) < 0 || (r->held = ablock_take(cfg->disk, err, len)) < 0 ||
	    (cfg->load != LOAD_NONE && load_pick_dir(cfg->disk, cfg->load_dir, r->dir, sizeof r->dir, err, len) < 0))
		return begin_failed(r);
	if (cfg->live)
		util_strlcpy(res->load, "yours: the tool writes nothing and reads with its probe only", sizeof res->load);
	else if (cfg->load == LOAD_NONE)
		util_strlcpy(res->load, "none (the user's own)", sizeof res->load);
	else
		util_fmt(res->load, sizeof res->load, "%s (built in, %llu MiB in %s)", load_kind_name(cfg->load),
			 (unsigned long long)(cfg->load_size >> 20), r->dir);
	r->baseline = cfg->baseline;
	/* Without a baseline the load starts before the first phase: a load
	 * that does not fit is refused before anything changes. */
	if (!r->baseline && load_start(cfg->load, r->dir, cfg->load_size, &r->load, err, len) < 0)
		return begin_failed(r);
	if (cfg->live && ablive_begin(cfg, res, &r->live) < 0) {
		util_fmt(err, len, "out of memory");
		return begin_failed(r);
	}
	order_of(r, 0);
	base_read(r);
	r->run_t0 = util_mono_now();
	*out = r;
	return 0;
}

enum ab_cause { CAUSE_PHASE, CAUSE_AWAY, CAUSE_BACK };

/* Request k's cause in the event log: "A/B phase N", and why a switch
 * to a scheduler no variant names, or a queue setting put back, is in it. */
static void cause_of(struct ab_run *r, size_t k, enum ab_cause why)
{
	char *c = r->reqs[k].cause;
	size_t phase = r->res->nphases + 1;
	if (why == CAUSE_AWAY)
		util_fmt(c, sizeof r->reqs[k].cause, "A/B phase %zu: away first, so %s starts afresh", phase,
			 r->cfg.v[r->cur.variant].sched);
	else if (why == CAUSE_BACK)
		util_fmt(c, sizeof r->reqs[k].cause, "A/B phase %zu: back as before the run", phase);
	else
		util_fmt(c, sizeof r->reqs[k].cause, "A/B phase %zu", phase);
}

/* The requests of the next phase: through another scheduler first when
 * the variant's is in force (writing the scheduler in force changes
 * nothing, and its tunables would carry over from the last variant); then
 * the variant's tunables, and every queue attribute another variant named
 * back at its value before the run. */
static void plan(struct ab_run *r, const struct ab_variant *v)
{
	char now[32];
	r->nreqs = r->nextreq = 0;
	if (tune_read(r->cfg.disk, TUNE_SCHEDULER, "scheduler", now, sizeof now) == 0 && !strcmp(now, v->sched)) {
		tune_req_init(&r->reqs[r->nreqs], r->cfg.disk, TUNE_SCHEDULER, "scheduler",
			      strcmp(v->sched, "none") ? "none" : "mq-deadline");
		cause_of(r, r->nreqs++, CAUSE_AWAY);
	}
	tune_req_init(&r->reqs[r->nreqs], r->cfg.disk, TUNE_SCHEDULER, "scheduler", v->sched);
	cause_of(r, r->nreqs++, CAUSE_PHASE);
	for (size_t b = 0; b < r->nbase; b++) {
		int named = 0;
		for (size_t k = 0; k < v->ntun && !named; k++)
			named = v->tun[k].kind == TUNE_QUEUE && !strcmp(v->tun[k].key, r->base[b].key);
		if (!named) {
			r->reqs[r->nreqs] = r->base[b];
			cause_of(r, r->nreqs++, CAUSE_BACK);
		}
	}
	for (size_t k = 0; k < v->ntun; k++) {
		r->reqs[r->nreqs] = v->tun[k];
		cause_of(r, r->nreqs++, CAUSE_PHASE);
	}
}

/* Position to the next phase; 0 when there is none left. */
static int advance(struct ab_run *r, char *err, size_t len)
{
	int rounds = r->baseline ? 1 : r->cfg.rounds;
	if (r->idx == r->cfg.nv) {
		r->idx = 0;
		r->round++;
		/* A round is complete: the verdicts may allow stopping here
		 * (the first look, abstats.h). */
		if (!r->baseline && abstats_settled(&r->cfg, r->res)) {
			r->res->settled_at = r->round;
			return 0;
		}
	}
	/* a live run ends at its time bound, at a round's end */
	if (r->cfg.live && r->idx == 0 && r->round > 0 && util_mono_now() - r->run_t0 >= r->cfg.max_time_s)
		return 0;
	if (r->round == rounds) {
		if (!r->baseline)
			return 0;
		/* Baseline done: the loaded rounds begin, with their load. */
		r->baseline = 0;
		r->round = 0;
		if (load_start(r->cfg.load, r->dir, r->cfg.load_size, &r->load, err, len) < 0)
			return -1;
	}
	order_of(r, r->round);
	return 1;
}

/* The readers' windows start now: what they read before (the warm-up)
 * is taken and dropped. */
static int begin_measure(struct ab_run *r)
{
	struct probe_reading *rd = malloc(sizeof *rd);
	if (!rd)
		return -1;
	r->cur.start_ts = util_real_now();
	r->t0 = util_mono_now();
	abio_begin(&r->io, r->load, r->t0);
	if (r->steady)
		probe_read(r->steady, r->t0, rd);
	if (r->paced)
		probe_read(r->paced, r->t0, rd);
	free(rd);
	ablive_slot_begin(r->live);
	r->cur.washout_s = r->cfg.warmup_s;
	r->until = r->t0 + r->cfg.dwell_s;
	r->next_fresh = r->t0;
	r->fresh_started = 0;
	return 0;
}

/* The dwell is over: the steady and paced windows and the disk's rates. */
static int take_readers(struct ab_run *r)
{
	struct probe_reading *rd = malloc(sizeof *rd);
	if (!rd)
		return -1;
	double now = util_mono_now();
	r->cur.secs = now - r->t0;
	if (r->steady) {
		probe_read(r->steady, now, rd);
		r->cur.h = rd->interval;
		r->cur.sec_p50 = rd->interval_sec_p50;
		r->cur.flagged = rd->flagged_interval;
		r->cur.steady_pid = rd->st.reader_pid;
	}
	if (r->paced) {
		probe_read(r->paced, now, rd);
		r->cur.paced = rd->interval;
		r->cur.paced_pid = rd->st.reader_pid;
	}
	free(rd);
	abio_end(&r->io, r->load, &r->cfg, now, &r->cur);
	ablive_slot_end(r->live, &r->cur);
	return 0;
}

static void end_phase(struct ab_run *r)
{
	r->phase_secs += util_mono_now() - r->phase_t0;
	if (r->res->nphases < AB_MAX_PHASES)
		r->res->phases[r->res->nphases++] = r->cur;
}

/* Whether a reader ended on its own (device gone, read failed): the run
 * cannot go on without it. */
static int reader_ended(struct probe *p, char *err, size_t len)
{
	struct probe_status st;
	probe_get_status(p, util_mono_now(), &st);
	if (st.state == PROBE_ENDED)
		util_fmt(err, len, "a reader stopped: %s", st.why);
	return st.state == PROBE_ENDED;
}

/* The fresh jobs of a phase: AB_FRESH_RUNS, spaced over the dwell, one at
 * a time, each a new process. Returns -1 when one fails. */
static int fresh_step(struct ab_run *r, double now, char *err, size_t len)
{
	if (r->cfg.live)
		return 0; /* the user's own programs start as they will */
	if (r->fresh.started) {
		double ms;
		int rc = freshjob_poll(&r->fresh, &ms, err, len);
		if (rc < 0)
			return -1;
		if (rc == 0 && freshjob_elapsed_ms(&r->fresh, now) > AB_FRESH_MAX_S * 1e3) {
			r->cur.fresh_ms[r->cur.nfresh++] = freshjob_elapsed_ms(&r->fresh, now);
			r->cur.fresh_cut++;
			freshjob_cancel(&r->fresh);
		} else if (rc == 1) {
			r->cur.fresh_ms[r->cur.nfresh++] = ms;
		}
		return 0;
	}
	if (r->fresh_started >= AB_FRESH_RUNS || now < r->next_fresh || now >= r->until)
		return 0;
	uint64_t seed = r->cfg.seed + 1000003ull * (r->res->nphases + 1) + (uint64_t)r->fresh_started;
	if (freshjob_start(&r->fresh, r->where.path, r->where.mode != PROBE_MODE_DEVICE, r->cfg.probe_size,
			   r->cfg.fresh_reads, seed, err, len) < 0)
		return -1;
	r->cur.fresh_pid[r->fresh_started++] = (int)r->fresh.io.pid;
	r->next_fresh = now + r->cfg.dwell_s / AB_FRESH_RUNS;
	return 0;
}

/* A live run's one reader, the paced probe, started with the first
 * slot's washout; its reads are left out of the user's once it reads. */
static int live_reader_ready(struct ab_run *r, char *err, size_t len)
{
	if (!r->paced && start_probe(&r->cfg, r->cfg.paced_rate_hz, r->cfg.seed + 1, NULL, &r->paced, err, len) < 0)
		return -1;
	probe_get_status(r->paced, util_mono_now(), &r->where);
	if (r->where.state == PROBE_ENDED) {
		util_fmt(err, len, "the probe stopped: %s", r->where.why);
		return -1;
	}
	ablive_exclude(r->live, r->where.reader_pid);
	return r->where.state == PROBE_RUNNING && r->where.reader_pid > 0;
}

/* The readers that run for the whole A/B start with the first phase's
 * warm-up; the paced one once the steady one reads (its file is ready). */
static int readers_ready(struct ab_run *r, char *err, size_t len)
{
	if (r->cfg.live)
		return live_reader_ready(r, err, len);
	if (!r->steady && start_probe(&r->cfg, 0, r->cfg.seed, NULL, &r->steady, err, len) < 0)
		return -1;
	probe_get_status(r->steady, util_mono_now(), &r->where);
	if (r->where.state == PROBE_ENDED) {
		util_fmt(err, len, "the steady reader stopped: %s", r->where.why);
		return -1;
	}
	if (r->where.state != PROBE_RUNNING)
		return 0;
	if (!r->paced && r->cfg.paced_rate_hz > 0 &&
	    start_probe(&r->cfg, r->cfg.paced_rate_hz, r->cfg.seed + 1,
			r->where.mode == PROBE_MODE_FILE ? r->where.path : NULL, &r->paced, err, len) < 0)
		return -1;
	return 1;
}

/* Submit the next request once the previous one is through; 1 when all
 * are, -1 when one failed. */
static int apply_step(struct ab_run *r, struct control *c, char *err, size_t len)
{
	if (control_busy(c))
		return 0;
	control_poll(c);
	const char *why = NULL;
	int ok = control_result_after(c, r->submitted, &why);
	if (r->nextreq > 0 && ok != 1) {
		util_strlcpy(err, ok < 0 ? "a change got no answer" : why, len);
		return -1;
	}
	if (r->nextreq == r->nreqs)
		return 1;
	r->submitted = util_mono_now();
	if (control_request(c, &r->reqs[r->nextreq++], err, len) < 0)
		return -1;
	return 0;
}

/* The cold starts of a phase, one after another, each through a helper
 * process; 1 when all are done. */
static int startup_step(struct ab_run *r)
{
	if (!r->cfg.startup_cmd || r->cur.nstartup >= r->cfg.startup_runs || r->cur.nstartup >= AB_MAX_STARTUPS)
		return 1;
	if (!r->cs.pid)
		return coldstart_begin(r->cfg.startup_cmd, &r->cs) < 0 ? 1 : 0;
	double secs;
	int rc = coldstart_poll(&r->cs, &secs);
	if (rc == 1)
		r->cur.startup_s[r->cur.nstartup++] = secs;
	else if (rc < 0)
		return 1; /* cannot time it (no root?): the phase goes on without */
	return 0;
}

int ab_step(struct ab_run *r, struct control *c, char *err, size_t len)
{
	double now = util_mono_now();
	ablive_tick(r->live, now);
	if (r->live && (r->st == AB_WARMUP || r->st == AB_MEASURE) &&
	    ablive_guard_switch(r->live, r->cfg.disk, r->cfg.v[r->cur.variant].sched, r->res, err, len) < 0)
		return -1;
	switch (r->st) {
	case AB_NEXT: {
		int more = advance(r, err, len);
		if (more <= 0) {
			r->st = AB_DONE;
			return more < 0 ? -1 : 1;
		}
		memset(&r->cur, 0, sizeof r->cur);
		r->cur.variant = r->order[r->idx];
		r->cur.round = r->baseline ? 0 : r->round + 1;
		r->phase_t0 = now;
		plan(r, &r->cfg.v[r->order[r->idx]]);
		r->st = AB_APPLY;
		return 0;
	}
	case AB_APPLY: {
		int rc = apply_step(r, c, err, len);
		if (rc == 1) {
			r->until = now + r->cfg.warmup_s;
			r->st = AB_WARMUP;
		}
		return rc < 0 ? -1 : 0;
	}
	case AB_WARMUP: {
		/* A probe file the steady reader writes first makes the
		 * first warm-up longer. */
		int ready = readers_ready(r, err, len);
		if (ready < 0)
			return -1;
		if (now < r->until || !ready)
			return 0;
		if (begin_measure(r) < 0)
			return -1;
		r->st = AB_STARTUP;
		return 0;
	}
	case AB_STARTUP:
	case AB_MEASURE:
		if (fresh_step(r, now, err, len) < 0 || (r->steady && reader_ended(r->steady, err, len)) ||
		    (r->paced && reader_ended(r->paced, err, len)))
			return -1;
		if (r->st == AB_STARTUP) {
			if (startup_step(r))
				r->st = AB_MEASURE;
			return 0;
		}
		if (now < r->until)
			return 0;
		if (take_readers(r) < 0)
			return -1;
		r->st = AB_FRESH_TAIL;
		return 0;
	case AB_FRESH_TAIL:
		/* A fresh job still running ends under this phase's scheduler. */
		if (fresh_step(r, now, err, len) < 0)
			return -1;
		if (r->fresh.started)
			return 0;
		end_phase(r);
		if (r->live && ablive_guard_slot(&r->cfg, r->res, &r->cur, err, len) < 0)
			return -1;
		r->idx++;
		r->st = AB_NEXT;
		return 0;
	case AB_DONE:
		return 1;
	}
	return -1;
}

/* Seconds the rest of the run should take: the phases left at the mean
 * length of those done (before any: the warm-up and dwell), less what the
 * current phase has run. */
static double time_left(const struct ab_run *r, size_t total)
{
	size_t done = r->res->nphases;
	double each = done ? r->phase_secs / (double)done : r->cfg.warmup_s + r->cfg.dwell_s;
	double left = (double)(total > done ? total - done : 0) * each;
	if (r->st != AB_NEXT && r->st != AB_DONE)
		left -= util_mono_now() - r->phase_t0;
	return left > 0 ? left : 0;
}

const char *ab_status(const struct ab_run *r)
{
	struct ab_run *w = (struct ab_run *)r; /* the status text is a cache */
	size_t total = r->cfg.nv * (size_t)(r->cfg.rounds + (r->cfg.baseline ? 1 : 0));
	if (r->cfg.live) {
		util_fmt(w->status, sizeof w->status, "live A/B on %s: round %d (at most %d), %s, %s; %s", r->cfg.disk,
			 r->cur.round, r->cfg.rounds, r->cfg.v[r->cur.variant].text,
			 r->st == AB_APPLY ? "switching" : r->st == AB_WARMUP ? "washout" : "measuring",
			 ablive_lead(r->live, &r->cfg, r->res));
		return r->status;
	}
	const char *what = r->st == AB_APPLY ? "switching" : r->st == AB_WARMUP ? "warming up" :
			   r->st == AB_STARTUP ? "timing cold starts" : r->st == AB_MEASURE ? "measuring" :
			   r->st == AB_FRESH_TAIL ? "waiting for a fresh reader" : "";
	util_fmt(w->status, sizeof w->status, "A/B %s: phase %zu of %zu, %s%s, %s; about %.0f s left", r->cfg.disk,
		 r->res->nphases + 1 > total ? total : r->res->nphases + 1, total, r->cfg.v[r->cur.variant].text,
		 r->cur.round ? "" : " (baseline)", what, time_left(r, total));
	return r->status;
}

void ab_end(struct ab_run *r, int cancelled)
{
	if (!r)
		return;
	coldstart_cancel(&r->cs);
	ablive_end(r->live);
	if (r->fresh.started)
		freshjob_cancel(&r->fresh);
	probe_stop(r->steady);
	probe_stop(r->paced);
	load_stop(r->load);
	r->res->partial = cancelled || r->st != AB_DONE;
	ablock_release(r->cfg.disk, r->held); /* the caller puts the scheduler back right after */
	free(r);
}

int ab_run(const struct ab_config *cfg, struct control *ctl, volatile sig_atomic_t *stop, struct ab_result *res,
	   ab_progress_fn progress, void *ctx, char *err, size_t len)
{
	struct ab_run *r;
	if (ab_begin(cfg, res, &r, err, len) < 0)
		return -1;
	int rc = 0;
	double shown = 0;
	while (!*stop && (rc = ab_step(r, ctl, err, len)) == 0) {
		double now = util_mono_now();
		if (progress && now - shown >= 0.25) {
			progress(ab_status(r), ctx);
			shown = now;
		}
		util_sleep_until(now + 0.02);
	}
	if (progress)
		progress(NULL, ctx);
	ab_end(r, *stop != 0);
	return rc < 0 ? -1 : 0;
}

void ab_result_free(struct ab_result *res)
{
	free(res->phases);
	res->phases = NULL;
	res->nphases = 0;
}
