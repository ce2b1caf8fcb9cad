/* abdata: an A/B run as plain data — what was asked (the variants, the
 * rounds, the load, the readers) and what was measured, phase by phase.
 * ab.h runs it (src/act); the verdicts (abstats.h, which the runner
 * asks whether it may stop early), the reports (abreport.h) and the full
 * screen only read it, so it lives below all of them. The readers
 * are described in ab.h. Header only. */
#ifndef IOSCHED_ABDATA_H
#define IOSCHED_ABDATA_H

#include <stddef.h>
#include <stdint.h>

#include "probe/hist.h"
#include "model/settings.h"

#define AB_MAX_VARIANTS 8
#define AB_MAX_TUNABLES 8
#define AB_MAX_PHASES 512
#define AB_MAX_STARTUPS 32
#define AB_FRESH_RUNS 3             /* fresh jobs per phase */
#define AB_FRESH_MAX_S 30.0         /* a fresh job still running then is cut */
#define AB_FRESH_READS 250          /* reads in a fresh job unless --fresh-reads: 1 MiB, done within a
				     * phase even at 10 ms a read (a program starting reads about that) */
#define AB_TOPS 3                   /* live: the busiest readers named per slot */
#define AB_PACED_PER_PHASE 120      /* paced reads a phase should hold: a p99 needs 100 */

struct ab_variant {
	char text[128];             /* as given: "bfq:low_latency=0" */
	char sched[32];
	size_t ntun;
	struct tune_req tun[AB_MAX_TUNABLES];
};

struct ab_config {
	char disk[32];
	struct ab_variant v[AB_MAX_VARIANTS];
	size_t nv;
	int rounds;
	double dwell_s, warmup_s;
	enum load_kind load;
	const char *load_dir;       /* NULL: a filesystem on the disk */
	uint64_t load_size;
	double paced_rate_hz;       /* the paced reader's rate; 0: no paced reader */
	uint32_t probe_size;        /* bytes per read, all three readers */
	uint32_t fresh_reads;       /* reads in one fresh job */
	uint64_t seed;
	int baseline;               /* each variant first without load */
	const char *startup_cmd;    /* NULL: no start-up timing */
	int startup_runs;
	/* Live (--ab-live): the user's own load, no reader of the tool's but
	 * the paced probe; each round a pair of slots (dwell_s measured after
	 * warmup_s of washout) in an order by a seeded coin; at most
	 * max_time_s in all. */
	int live;
	double max_time_s;
	int no_bpf;                 /* live: the user's reads not timed (--no-bpf) */
};

struct ab_phase {
	int variant;
	int round;                  /* 1-based; 0 for a baseline phase */
	double start_ts;
	/* steady: every read, the p50 of each whole second, the wall time */
	struct hist h;
	struct hist sec_p50;
	double secs;
	uint64_t flagged;
	/* paced */
	struct hist paced;
	/* fresh: each job's time; a job cut at AB_FRESH_MAX_S counts at the
	 * time it had run (a lower bound) */
	double fresh_ms[AB_FRESH_RUNS];
	int nfresh, fresh_cut;
	/* the readers' processes: one steady and one paced for the whole
	 * run, a new one for each fresh job */
	int steady_pid, paced_pid, fresh_pid[AB_FRESH_RUNS];
	double read_MBps, write_MBps;
	/* of those, the tool's own: its readers' reads and its load's writes
	 * (-1: not known); the rest is other I/O, which can flip a round */
	double own_read_MBps, own_write_MBps;
	/* a loop device's: the disk under its file (ab_result.below), whose
	 * rates hold the loop device's and its other writers' (-1: none) */
	double below_read_MBps, below_write_MBps;
	double startup_s[AB_MAX_STARTUPS];
	int nstartup;
	/* live: the reads of the user's programs on the disk (the BPF part;
	 * yours_on 0: not measured), the busiest of them by name, the dirty
	 * page cache at the slot's end (MB), the washout left out before it */
	struct hist yours;
	int yours_on;
	struct ab_top { char comm[16]; uint64_t n; double p50_us, p99_us; } top[AB_TOPS];
	int ntop;
	double dirty_MB, washout_s;
};

struct ab_result {
	char disk[32];
	char kernel[128];
	char load[160];             /* what load ran, where */
	char probe[256];            /* the readers, as run */
	char original[32];          /* the scheduler before, put back after */
	char below[32];             /* a loop device's: the disk under its backing file, or "" */
	char queue[200];            /* the queue settings in effect at the start */
	int partial;                /* stopped by a signal */
	int settled_at;             /* the run stopped early after this many rounds, every figure decided; 0: not */
	char yours[200];            /* live: how the user's reads are measured, or why they are not */
	char stopped[256];          /* live: a guard ended the run (a switch from outside, a blow-up): why */
	struct ab_phase *phases;
	size_t nphases;
};

#endif
