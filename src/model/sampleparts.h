/* sampleparts: how the sampler's files (src/model/sample*.c) call one
 * another. Private to them: everything else uses sample.h. The tick
 * (sample.c) calls, in order: the disks (sampledisks.c), the probes
 * (sampleprobes.c; each disk's entry is the tick's own), the BPF part's
 * reading (sampleblk.c), the process rows made with it (procs_collect:
 * every figure of a row, the block layer's too, is set there, and nothing
 * here edits a row after), what the probe waited behind (samplebehind.c),
 * and the figures of the whole sample (samplefigs.c). None of them calls
 * the tick or one above it. */
#ifndef IOSCHED_SAMPLEPARTS_H
#define IOSCHED_SAMPLEPARTS_H

#include "model/sample.h"

/* Fresh jobs remembered per disk, for the before/after comparison. */
#define FRESH_KEPT 16

struct sampler_probe {
	char disk[DISK_NAME_MAX];
	double started;            /* mono time the probe started */
	struct switch_compare cmp;
	double fresh_mono[FRESH_KEPT], fresh_ms[FRESH_KEPT]; /* ring: when each job ended, its time */
	unsigned nfresh;           /* jobs ever kept; the ring has the last FRESH_KEPT */
	struct probe *p;           /* NULL when it could not start */
	struct probe_status failed;/* why, when p is NULL */
	enum probe_state last_state;
	/* What its reads waited behind, per interval, for the last 10 s */
	struct behind_tick { double mono; struct blk_behind e; } *behind;
	size_t nbehind, behind_cap;
	double watched_since;      /* mono time its reader was first watched; 0: not yet */
};

struct blk_loader;
struct samplecg;

#define SAMPLER_ASKED_MAX 16
#define SAMPLER_WATCH_MAX 64       /* probe readers whose reads' waits are counted */

struct sampler {
	struct sampler_config cfg;
	int show_hidden;           /* x in the full screen: the hidden disks shown */
	int show_cgroups;          /* the full screen's units pane is open (sampler_show_cgroups) */
	struct udev *udev;
	struct hotplug *hotplug;   /* NULL: no monitor, enumerate at every refresh */
	struct disk_info *disks;   /* every disk, as last enumerated (sorted by name) */
	size_t ndisks;
	int have_disks;            /* disks holds a first enumeration */
	double scanned;            /* mono time of that enumeration */
	struct diskstats_table prev;
	double prev_mono;          /* < 0 until the first reading */
	struct sampler_probe *probes;
	size_t nprobes;
	struct eventlog events;
	struct procs *procs;       /* NULL until first needed */
	/* Block latency: loaded by a detached thread of its own (loading takes
	 * tens of ms, which neither the first sample nor the exit may wait
	 * for); blk is set once it is done. */
	int blk_tried;             /* 1: the loader runs; 2: settled */
	struct blk_loader *blk_loader; /* shared with the loader thread until settled */
	struct blklat *blk;        /* NULL: off (or still loading), blk_why says why */
	char blk_why[96];
	char held[DISK_NAME_MAX];  /* a disk whose probe is held off (an A/B runs its own), or "" */
	/* Disks probed on request (O in the full screen) beside the default
	 * set or --probe's */
	char asked[SAMPLER_ASKED_MAX][DISK_NAME_MAX];
	size_t nasked;
	struct replay *replay;     /* --replay: samples come from a recording, not the system */
	char replay_msg[320];      /* why the replay ended early, or "" */
	/* A fresh reader's job (F, --fresh-every): its time becomes an event */
	struct freshjob fresh;
	char fresh_disk[DISK_NAME_MAX];
	struct extswitch ext;      /* each disk's scheduler as last seen: switches made outside the tool */
	struct samplecg *cg;       /* the cgroups' earlier readings (samplecgroups.c); NULL until first */
	/* The unit whose reads are watched (sampler_watch_unit; path "":
	 * none), its cgroup id, since when, and the last 10 s of what its
	 * reads waited behind, per interval */
	struct sampler_unit {
		char path[CGROUP_PATH_MAX];
		uint64_t id;
		double since;
		char why[160];
		int skip;          /* readings still to pass over (sampler_watch_unit) */
		struct behind_tick *w;
		size_t n, cap;
	} unit;
};

/* sampledisks.c: whether a disk is asked for (--disk), shown, probed on
 * request (O) */
int sampledisks_wanted(const struct sampler *s, const char *name);
int sampledisks_shown(const struct sampler *s, const struct disk_info *d);
int sampledisks_asked(const struct sampler *s, const char *name);
/* Bring s->disks up to date (enumerating when a uevent came, or every
 * RESCAN_S); disks that came or went become events. */
int sampledisks_update(struct sampler *s, double now);

/* sampleprobes.c */
struct sampler_probe *sampleprobes_find(struct sampler *s, const char *disk);
void sampleprobes_post_event(struct sampler *s, const char *disk, int ok, const char *msg);
/* Stop the probes of disks that are gone, start those of new disks. */
void sampleprobes_sync(struct sampler *s, const struct disk_info *disks, size_t n);
/* sp's figures onto d. */
void sampleprobes_read(struct sampler *s, struct sampler_probe *sp, double now, struct disk_sample *d);
/* Why a disk has no probe, for the JSON and the screen. */
void sampleprobes_unprobed(const struct sampler *s, const struct disk_info *d, struct probe_status *st);
/* A fresh reader's job that ended becomes an event. */
void sampleprobes_poll_fresh(struct sampler *s);
/* What sp's reads waited behind, by kind, over (from, to]. */
void sampleprobes_behind_kinds(const struct sampler_probe *sp, double from, double to, struct blk_kind_bytes *kinds);
/* A switch ended: its before window, and the after window starts. */
void sampleprobes_compare_before(const struct sampler *s, struct sampler_probe *sp, const struct event *e);

/* samplefigs.c: what reaches the disks (MB/s, physical disks only), the
 * disk written most (-1: none), what processes dirty (MB/s), the top
 * writer (-1: none) */
double samplefigs_to_disks_MBps(const struct sample *out);
int samplefigs_top_disk(const struct sample *out);
double samplefigs_dirtying_MBps(const struct sample *out);
int samplefigs_top_writer(const struct sample *out);

/* sampleblk.c: the BPF part's reading of the interval into out->blk,
 * taken with the disks' counters (sampleblk_take: whether it is one to
 * use), then settled on the filled disks (their waiting and unattributed
 * bytes; sampleblk_settle: whether it is one to give the rows:
 * procs_collect sets their figures from it). sampleblk_start: the loader started, at the end of the first
 * tick. At exit, the loader stopped. */
int sampleblk_take(struct sampler *s, struct sample *out);
int sampleblk_settle(const struct sampler *s, struct sample *out, int taken);
void sampleblk_start(struct sampler *s, struct sample *out);
/* At the first reading (sampler_prime): with cfg.bpf_first_s, the loader
 * started and waited for that long at most; a loaded part's baseline is
 * read, so the first sample's figures cover its whole interval. */
void sampleblk_first(struct sampler *s);
void sampleblk_stop(struct sampler *s);

/* samplebehind.c: each probed disk's "waited behind" and slowest reads. */
void samplebehind_fill(struct sampler *s, struct sample *out, double now);

/* samplecgroups.c: the rows summed per cgroup into out (at most max,
 * the busiest first: by bytes, then processes), the others into rest;
 * how many. samplecgroups_fill: the sample's list from its rows, then
 * each one's own files (samplecgfiles.c: io.pressure, io.stat, the
 * weights; and their earlier readings, freed by samplecgfiles_free). */
size_t samplecgroups_aggregate(const struct proc_row *rows, size_t n, struct cgroup_sample *out, size_t max,
			       struct cgroup_rest *rest);
void samplecgroups_fill(struct sampler *s, struct sample *out);
void samplecgfiles_read(struct sampler *s, struct sample *out);
void samplecgfiles_free(struct sampler *s);

#endif
