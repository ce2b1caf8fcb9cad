/* abrows: the A/B report's rows and columns, which every format writes
 * (abreport.c: text and Markdown; abreport_json.c; abreport_csv.c): a row
 * is a phase, or a variant's loaded phases pooled; its figures come from
 * one table of columns. */
#ifndef IOSCHED_ABROWS_H
#define IOSCHED_ABROWS_H

#include <stdio.h>

#include "model/abdata.h"
#include "model/abstats.h"
#include "config/options.h"
#include "probe/hist.h"

/* One row's readers: a phase, or a variant's loaded phases pooled. */
struct row {
	char label[48];
	int round;                  /* -1: a summary row */
	double start_ts;
	struct hist h, sec_p50, paced; /* steady reads, its per-second p50s, paced reads */
	double secs;
	double read_MBps, write_MBps;
	double startup_med;         /* NAN: none */
	struct hist yours;          /* live: the user's programs' reads (yours_on: measured) */
	int yours_on;
	double dirty_MB, washout_s; /* live: dirty page cache at the slot's end (a summary: mean), washout */
	double fresh[AB_MAX_PHASES * AB_FRESH_RUNS];
	int nfresh, fresh_cut;
	const struct ab_phase *phase; /* a phase row's phase; NULL for a summary */
};

/* The columns. The first ten are the steady reader's per-read figures and
 * the disk's rates, as in reports before the three readers (their keys are
 * kept); text and Markdown show those marked. */
enum col {
	C_N, C_P50, C_MEAN, C_P90, C_P99, C_P999, C_MAX, C_RMB, C_WMB, C_STARTUP,
	C_P50S, C_RPS, C_ST10, C_ST100, C_FRESH, C_PP50, C_PP99,
	C_YN, C_YP50, C_YP99, C_DIRTY, NCOL
};

/* Whether CSV and JSON list a column for a run of cfg: a built-in run
 * every column before the live ones (as its reports always have); a live
 * run the user's reads, the probe's, the disk's rates and dirty pages. */
int abrows_col_used(const struct ab_config *cfg, enum col c);

/* key: CSV and JSON, in the unit it names; head: text and Markdown, where
 * every time is in ms (us: the value is in us and is shown / 1000), so one
 * table never mixes units. */
struct col_info {
	const char *key, *head;
	int shown;                  /* in text and Markdown */
	int us;
};

const struct col_info *abrows_col(enum col c);

/* Every column's figure of row r, indexed by enum col. */
void abrows_values(const struct row *r, double *v);

/* A figure as text: "-" (text, md) or "" (csv) when it does not exist. */
void abrows_fig(double v, enum col c, enum ab_format fmt, char *b, size_t n);

/* Variant v's summary row (its loaded phases pooled), and phase p's row. */
void abrows_summary(const struct ab_config *cfg, const struct ab_result *res, int v, struct row *r);
void abrows_phase(const struct ab_config *cfg, const struct ab_phase *p, struct row *r);

/* Variant v's writer MB/s against the first variant's, in %; NAN where
 * either was not measured. */
double abrows_write_change(const struct row *sum, size_t v);

/* The I/O on the disk during the run that was not the tool's (its
 * readers' reads, its load's writes): a mean over the phases, and the
 * phase with the most (peak_phase, an index; -1 when no phase was
 * measured). matters: enough to flip a round (a tenth of the disk's
 * bytes, or a quarter in one phase, and at least 1 MB/s). */
struct ab_other {
	double read_MBps, write_MBps, disk_MBps, peak_MBps;
	int peak_phase;
	int matters;
};
/* below: the same for the disk under a loop device's file
 * (res->below), its rates less the loop device's (what reached it other
 * than through the loop device); peak_phase -1 when there is none. */
void abrows_other(const struct ab_result *res, struct ab_other *o, struct ab_other *below);

/* The other formats' whole reports, from the summary rows and the verdicts
 * (vr NULL: none could be made). */
void abreport_json(FILE *f, const struct ab_config *cfg, const struct ab_result *res, const struct row *sum,
		   const struct abv_report *vr);
void abreport_csv(FILE *f, const struct ab_config *cfg, const struct ab_result *res, const struct row *sum,
		  const struct abv_report *vr);

#endif
