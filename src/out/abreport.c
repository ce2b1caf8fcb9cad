/* abreport: see include/out/abreport.h. This file: the text and
 * Markdown report, and the choice of format; abreport_json.c and
 * abreport_csv.c write the others, all from the rows of abrows.c and the
 * words of abwords.c. */
#include "out/abreport.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "abnext.h"
#include "abrows.h"
#include "out/abwords.h"
#include "probe/readfig.h"
#include "base/util.h"

/* The order text and Markdown show the columns in: steady, fresh, paced, disk. */
static const enum col shown_order[] = {C_N,     C_P50,   C_P50S,  C_P99,  C_MAX,  C_RPS,  C_ST10,
				       C_ST100, C_FRESH, C_PP50,  C_PP99, C_WMB, C_STARTUP};
#define NSHOWN (sizeof shown_order / sizeof shown_order[0])
/* A live run's one table: the user's reads, the probe's, the disk's rates. */
static const enum col text_live[] = {C_YN, C_YP50, C_YP99, C_PP50, C_PP99, C_WMB, C_DIRTY}; /* read MB/s: in JSON, CSV, md */
#define NLIVE (sizeof text_live / sizeof text_live[0])
static const enum col md_live[] = {C_YN, C_YP50, C_YP99, C_PP50, C_PP99, C_RMB, C_WMB, C_DIRTY};
#define NMDLIVE (sizeof md_live / sizeof md_live[0])

/* The text report's widest line: it reads whole at 100 columns. */
#define TEXT_WIDTH 100

/* Where a line of at most room bytes of p ends: at the last space that
 * fits, or (a word longer than the line) cut, never inside a UTF-8
 * character. */
static size_t line_end(const char *p, size_t room)
{
	if (strlen(p) <= room)
		return strlen(p);
	size_t k = room;
	while (k > 0 && p[k] != ' ')
		k--;
	if (k > 0)
		return k;
	for (k = room; k > 1 && ((unsigned char)p[k] & 0xC0) == 0x80;)
		k--;
	return k;
}

/* One line of prose after pre: Markdown keeps it whole (its reader
 * wraps); text breaks it at spaces within TEXT_WIDTH, continuation lines
 * indented two more than pre. Bytes are counted, never fewer than the
 * columns they take. */
static void say(FILE *f, enum ab_format fmt, const char *pre, const char *s)
{
	if (fmt != AB_TEXT) {
		fprintf(f, "%s%s\n", pre, s);
		return;
	}
	size_t lead = strlen(pre) < TEXT_WIDTH / 2 ? strlen(pre) : TEXT_WIDTH / 2;
	int first = 1;
	do {
		size_t room = TEXT_WIDTH - (first ? lead : lead + 2), k = line_end(s, room);
		fprintf(f, "%*s%.*s\n", first ? 0 : (int)lead + 2, first ? pre : "", (int)k, s);
		for (s += k; *s == ' ';)
			s++;
		first = 0;
	} while (*s);
}

/* say() with a format. */
__attribute__((format(printf, 4, 5))) static void sayf(FILE *f, enum ab_format fmt, const char *pre, const char *fmtstr,
						       ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmtstr);
	vsnprintf(buf, sizeof buf, fmtstr, ap);
	va_end(ap);
	say(f, fmt, pre, buf);
}

/* Markdown: the table's head (live: a live run's columns). */
static void md_head(FILE *f, const char *first, int live)
{
	const enum col *cols = live ? md_live : shown_order;
	size_t n = live ? NMDLIVE : NSHOWN;
	fprintf(f, "| %s | round |", first);
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %s |", abrows_col(cols[i])->head);
	fputs("\n|---|---:|", f);
	for (size_t i = 0; i < n; i++)
		fputs("---:|", f);
	fputc('\n', f);
}

/* Markdown: one row of the shown columns. */
static void md_row(FILE *f, const struct row *r, int live)
{
	const enum col *cols = live ? md_live : shown_order;
	size_t n = live ? NMDLIVE : NSHOWN;
	double v[NCOL];
	char b[32], round[16];
	abrows_values(r, v);
	snprintf(round, sizeof round, "%d", r->round);
	fprintf(f, "| %s | %s |", r->label, r->round < 0 ? "all" : r->round == 0 ? "base" : round);
	for (size_t i = 0; i < n; i++) {
		abrows_fig(v[cols[i]], cols[i], AB_MD, b, sizeof b);
		fprintf(f, " %s |", b);
	}
	fputc('\n', f);
}

/* The text report's tables, one per reader so that each fits TEXT_WIDTH:
 * the steady reader's figures, then the fresh and paced readers' with the
 * writer's MB/s (and the cold starts when timed). Markdown and CSV keep
 * every figure in one table. */
static const enum col text_steady[] = {C_N, C_P50, C_P50S, C_P99, C_MAX, C_RPS, C_ST10, C_ST100};
static const enum col text_others[] = {C_FRESH, C_PP50, C_PP99, C_WMB, C_STARTUP};

struct ttable {
	const char *title;          /* the first column's head */
	const enum col *cols;
	size_t ncols;
	int w[NCOL];                /* each column's width, by enum col */
	int label_w, gap;
};

struct trow {
	char label[48], round[8];
	double v[NCOL];
};

/* Widths from the heads and every row's figures, two spaces apart where
 * that fits, else one; the label column takes what is left, down to 8 (a
 * longer label is cut, marked with '~'). */
static void ttable_fit(struct ttable *t, const struct trow *rows, size_t n)
{
	char b[32];
	int figs = 0;
	t->label_w = (int)strlen(t->title);
	for (size_t i = 0; i < t->ncols; i++) {
		enum col c = t->cols[i];
		t->w[c] = (int)strlen(abrows_col(c)->head);
		for (size_t r = 0; r < n; r++) {
			abrows_fig(rows[r].v[c], c, AB_TEXT, b, sizeof b);
			t->w[c] = (int)strlen(b) > t->w[c] ? (int)strlen(b) : t->w[c];
		}
		figs += t->w[c];
	}
	for (size_t r = 0; r < n; r++)
		t->label_w = (int)strlen(rows[r].label) > t->label_w ? (int)strlen(rows[r].label) : t->label_w;
	t->gap = t->label_w + 7 + figs + 2 * (int)t->ncols <= TEXT_WIDTH ? 2 : 1;
	int room = TEXT_WIDTH - (t->gap + 5) - figs - t->gap * (int)t->ncols;
	if (t->label_w > room)
		t->label_w = room > 8 ? room : 8;
}

static void ttable_write(FILE *f, const struct ttable *t, const struct trow *rows, size_t n)
{
	char b[32];
	fprintf(f, "%-*.*s%*s", t->label_w, t->label_w, t->title, t->gap + 5, "round");
	for (size_t i = 0; i < t->ncols; i++)
		fprintf(f, "%*s", t->gap + t->w[t->cols[i]], abrows_col(t->cols[i])->head);
	fputc('\n', f);
	for (size_t r = 0; r < n; r++) {
		int cut = (int)strlen(rows[r].label) > t->label_w, lw = cut ? t->label_w - 1 : t->label_w;
		fprintf(f, "%-*.*s%s%*s", lw, lw, rows[r].label, cut ? "~" : "", t->gap + 5, rows[r].round);
		for (size_t i = 0; i < t->ncols; i++) {
			abrows_fig(rows[r].v[t->cols[i]], t->cols[i], AB_TEXT, b, sizeof b);
			fprintf(f, "%*s", t->gap + t->w[t->cols[i]], b);
		}
		fputc('\n', f);
	}
}

static void trow_set(struct trow *t, const struct row *r)
{
	util_strlcpy(t->label, r->label, sizeof t->label);
	if (r->round < 0)
		util_strlcpy(t->round, "all", sizeof t->round);
	else if (r->round == 0)
		util_strlcpy(t->round, "base", sizeof t->round);
	else
		util_fmt(t->round, sizeof t->round, "%d", r->round);
	abrows_values(r, t->v);
}

/* The summary rows (sum, one per variant), then the phases: two tables
 * each, the widths shared by the summary's and the phases' tables. */
static void text_tables(FILE *f, const struct ab_config *cfg, const struct ab_result *res, const struct row *sum)
{
	size_t n = cfg->nv + res->nphases;
	struct trow *rows = calloc(n, sizeof *rows);
	struct row *r = malloc(sizeof *r);
	if (!rows || !r) {
		free(rows);
		free(r);
		return;
	}
	for (size_t v = 0; v < cfg->nv; v++)
		trow_set(&rows[v], &sum[v]);
	for (size_t i = 0; i < res->nphases; i++) {
		abrows_phase(cfg, &res->phases[i], r);
		trow_set(&rows[cfg->nv + i], r);
	}
	size_t nothers = sizeof text_others / sizeof text_others[0] - !cfg->startup_cmd;
	struct ttable t[2] = {{"steady reader", text_steady, sizeof text_steady / sizeof text_steady[0], {0}, 0, 0},
			      {"fresh, paced, writer", text_others, nothers, {0}, 0, 0}};
	int ntables = 2;
	if (cfg->live) {
		t[0] = (struct ttable){"variant", text_live, NLIVE, {0}, 0, 0};
		ntables = 1;
	}
	for (int k = 0; k < ntables; k++)
		ttable_fit(&t[k], rows, n);
	sayf(f, AB_TEXT, "", "per variant, pooled over all %s%s:", cfg->live ? "slots" : "phases",
	     cfg->baseline ? " with load (the baselines apart)" : "");
	for (int k = 0; k < ntables; k++) {
		ttable_write(f, &t[k], rows, cfg->nv);
		fputc('\n', f);
	}
	say(f, AB_TEXT, "", cfg->live ? "per slot (round: its pair):" : "per phase:");
	for (int k = 0; k < ntables; k++) {
		ttable_write(f, &t[k], rows + cfg->nv, res->nphases);
		if (k == 0 && ntables > 1)
			fputc('\n', f);
	}
	free(r);
	free(rows);
}

/* Verdicts per figure and per reader, the closing sentences and, where a
 * variant's two p50s part, what that means: the words of abwords. */
static void conclusions(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct abv_report *vr,
			const struct row *sum)
{
	char text[1024], verdict[ABW_VERDICT_LEN], reader[ABW_READER_LEN];
	const char *pre = fmt == AB_MD ? "- " : "  ";
	fputc('\n', f);
	sayf(f, fmt, "", "verdicts (each %s one observation, %s; a sign-flip test over the rounds: at most %.1f %% "
			 "false positives per verdict%s; figures as in the table above, pooled; \"by round\": the typical "
			 "ratio of one round, which the test decides on):%s",
	     cfg->live ? "slot" : "phase", cfg->live ? "rounds of one slot each, in a coin's order" : "rounds paired A B B A",
	     vr->level * 100, vr->nv > 2 ? ", corrected for the pairs of variants" : "", fmt == AB_MD ? "\n" : "");
	if (vr->aa)
		say(f, fmt, pre, "A/A: every variant is the same setting, so a verdict decided here is a false positive");
	for (int k = 0; k < ABV_NFIGS; k++) {
		if (!abstats_fig_used(cfg, (enum abv_fig)k))
			continue;
		abwords_verdict(vr, cfg, (enum abv_fig)k, verdict, sizeof verdict);
		say(f, fmt, pre, verdict);
	}
	fprintf(f, "\nper reader:\n%s", fmt == AB_MD ? "\n" : "");
	for (int rd = 0; rd < ABV_NREADERS; rd++) {
		if (!abstats_reader_used(cfg, (enum abv_reader)rd))
			continue;
		abwords_reader(vr, cfg, (enum abv_reader)rd, reader, sizeof reader);
		say(f, fmt, pre, reader);
	}
	if (vr->aa) {
		fprintf(f, "\nthis disk's noise with these settings:\n%s", fmt == AB_MD ? "\n" : "");
		for (int k = 0; k < ABV_NFIGS; k++) {
			if (!abstats_fig_used(cfg, (enum abv_fig)k))
				continue;
			abwords_noise(vr, (enum abv_fig)k, text, sizeof text);
			say(f, fmt, pre, text);
		}
	}
	fputc('\n', f);
	for (size_t v = 1; v < cfg->nv; v++) {
		abwords_change(vr, cfg, v, abrows_write_change(sum, v), text, sizeof text);
		sayf(f, fmt, "", "%s.", text);
	}
	for (size_t v = 0; v < cfg->nv && !cfg->live; v++) {
		struct readfig rf;
		char name[48];
		readfig_compute(&sum[v].h, &sum[v].sec_p50, sum[v].secs, &rf);
		abwords_label(cfg, v, name, sizeof name);
		if (readfig_sentence(&rf, text, sizeof text))
			sayf(f, fmt, "", "%s, steady reader: %s.", name, text);
	}
}

/* A command on a line of its own (Markdown: in backticks), to be copied
 * whole. */
static void command_line(FILE *f, enum ab_format fmt, const char *cmd)
{
	if (fmt == AB_MD)
		sayf(f, fmt, "  ", "`%s`", cmd);
	else
		say(f, fmt, "    ", cmd);
}

/* What a kept variant's tunables need in the rule, if it has any. */
static void adds_line(FILE *f, enum ab_format fmt, const char *pre, const char *name, const char *adds)
{
	if (adds[0])
		sayf(f, fmt, pre, "the rule keeps the scheduler only: for %s's tunables add %s%s%s at the end of its line",
		     name, fmt == AB_MD ? "`" : "", adds, fmt == AB_MD ? "`" : "");
}

/* Text and Markdown: the plain lines that end the report, uses in the
 * order people name them (starting programs, long-running, interactive). */
static void next_lines(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct abn_words *w)
{
	static const enum abv_reader order[ABV_NREADERS] = {ABV_START, ABV_FRESH, ABV_STEADY, ABV_YOURS, ABV_PACED,
							    ABV_WRITES};
	const char *pre = fmt == AB_MD ? "- " : "  ";
	fprintf(f, "\nnext step:\n%s", fmt == AB_MD ? "\n" : "");
	for (int k = 0; k < ABV_NREADERS; k++)
		if (abstats_reader_used(cfg, order[k]))
			sayf(f, fmt, pre, "%s: %s", abnext_reader_use(order[k]), w->reader[order[k]]);
		else if (order[k] == ABV_START && !cfg->live) /* the fresh readers are no program's start: say what would time one */
			sayf(f, fmt, pre, "%s: not timed (--startup CMD times one under the same load)",
			     abnext_reader_use(order[k]));
	for (int u = 0; u < ABN_NUSES; u++)
		sayf(f, fmt, pre, "%s: %s", abnext_use_name((enum abn_use)u, &w->n), w->use[u]);
	if (w->n.keep < 0) {
		sayf(f, fmt, pre, "nothing to keep: %s stays as it is", cfg->disk);
		return;
	}
	if (w->keep_is_now) {
		/* the rule only keeps what a reboot (the kernel's default, or a
		 * distribution's rule) might not give it again */
		sayf(f, fmt, pre, "%s is on %s already: nothing to change now; to be sure it comes back on it after a "
				  "reboot, as root (it prints the udev rule and where it goes):", cfg->disk, w->keep_name);
		command_line(f, fmt, w->keep);
	} else {
		sayf(f, fmt, pre, "to keep %s on %s across reboots, as root (it switches now and prints the udev rule and "
				  "where it goes; or P, then w, in the full screen):", w->keep_name, cfg->disk);
		command_line(f, fmt, w->keep);
		adds_line(f, fmt, pre, w->keep_name, w->adds);
	}
	if (w->n.keep_other >= 0) {
		sayf(f, fmt, pre, "%s, %s instead:", cfg->live ? "for the most written" : "for a server", w->other_name);
		command_line(f, fmt, w->keep_other);
		adds_line(f, fmt, pre, w->other_name, w->adds_other);
	}
	if (w->keep_is_now && w->n.keep_other < 0) {
		sayf(f, fmt, pre, "to undo: delete the rule for %s from the rules file it went into (nothing was switched)",
		     cfg->disk);
		return;
	}
	sayf(f, fmt, pre, "to undo: delete the rule for %s from the rules file it went into, then switch back now "
			  "(the keep command's message names any other setting the switch reset):", cfg->disk);
	command_line(f, fmt, w->undo_cmd);
}

/* Cold starts per variant: min, median, max over all its loaded phases. */
static void startups(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct ab_result *res)
{
	if (!cfg->startup_cmd)
		return;
	fputc('\n', f);
	sayf(f, fmt, "", "cold starts of '%s' (s, min / median / max):", cfg->startup_cmd);
	if (fmt == AB_MD)
		fputc('\n', f);
	for (size_t v = 0; v < cfg->nv; v++) {
		double st[AB_MAX_PHASES];
		int n = 0;
		for (size_t i = 0; i < res->nphases && n < AB_MAX_PHASES; i++)
			for (int k = 0; k < res->phases[i].nstartup && n < AB_MAX_PHASES; k++)
				if (res->phases[i].variant == (int)v && res->phases[i].round > 0)
					st[n++] = res->phases[i].startup_s[k];
		if (n == 0)
			continue;
		double med = util_median(st, n); /* sorts st */
		sayf(f, fmt, fmt == AB_MD ? "- " : "  ", "%-26s %.3f / %.3f / %.3f (%d)", cfg->v[v].text, st[0], med,
		     st[n - 1], n);
	}
}

/* A live run's header: the user's load, how their reads are measured,
 * the slots and the coin, and a guard that ended it. */
static void live_header(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct ab_result *res)
{
	const char *pre = fmt == AB_MD ? "- " : "";
	sayf(f, fmt, fmt == AB_MD ? "### " : "", "iosched-top live A/B on %s, kernel %s%s", res->disk, res->kernel,
	     res->partial ? "  -- PARTIAL: stopped before the end" : "");
	if (fmt == AB_MD)
		fputc('\n', f);
	if (res->stopped[0])
		sayf(f, fmt, pre, "STOPPED: %s", res->stopped);
	sayf(f, fmt, pre, "load: %s", res->load);
	sayf(f, fmt, pre, "your programs' reads: %s", res->yours);
	sayf(f, fmt, pre, "probe: %s", res->probe);
	sayf(f, fmt, pre, "queue settings not named by a variant: %s", res->queue);
	sayf(f, fmt, pre, "up to %d round(s) of one slot per variant (--max-time %g s), %g s measured per slot after a %g "
		       "s washout (left out); each round's order by a coin (--seed %llu)",
	     cfg->rounds, cfg->max_time_s, cfg->dwell_s, cfg->warmup_s, (unsigned long long)cfg->seed);
	if (res->settled_at)
		sayf(f, fmt, pre, "stopped after %d of the %d rounds: every figure was decided there (the first look; "
			     "the bound below covers both looks)", res->settled_at, cfg->rounds);
	say(f, fmt, pre, "your reads: the time each read of the disk by your programs took in the kernel (from "
		       "where, above), p50 and p99; paced: the probe's reads; write MB/s: the "
		       "disk's (read MB/s: in the CSV, JSON and Markdown reports); "
		       "dirty MB: the page cache waiting to be written, at the slot's end");
	fputc('\n', f);
}

/* What was measured how: disk, kernel, readers, load, rounds. */
/* What else the disk did meanwhile, and whether it could have flipped a
 * round (doc/ab.md: other writers can). */
static void other_line(FILE *f, enum ab_format fmt, const char *pre, const struct ab_config *cfg,
		       const struct ab_result *res)
{
	struct ab_other o[2];
	abrows_other(res, &o[0], &o[1]);
	for (int k = 0; k < 2; k++) {
		if (o[k].peak_phase < 0)
			continue;
		const struct ab_phase *p = &res->phases[o[k].peak_phase];
		char label[64], where[96];
		abwords_label(cfg, (size_t)p->variant, label, sizeof label);
		if (k)
			util_fmt(where, sizeof where, "%s under %s (not through it)", res->below, res->disk);
		else
			util_fmt(where, sizeof where, "%s (not the tool's readers or load)", res->disk);
		sayf(f, fmt, pre, "other I/O on %s: read %.1f MB/s, write %.1f MB/s on average, %.1f MB/s at most (%s, "
			     "%s %d)%s", where, o[k].read_MBps, o[k].write_MBps, o[k].peak_MBps, label,
		     p->round ? "round" : "baseline", p->round,
		     o[k].matters ? ": enough to flip rounds; run it again on a quieter disk, or with more rounds"
				  : ": too little to matter");
	}
}

static void header(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct ab_result *res)
{
	const char *pre = fmt == AB_MD ? "- " : "";
	if (cfg->live) {
		live_header(f, fmt, cfg, res);
		return;
	}
	sayf(f, fmt, fmt == AB_MD ? "### " : "", "iosched-top A/B on %s, kernel %s%s", res->disk, res->kernel,
	     res->partial ? "  -- PARTIAL: stopped before the end" : "");
	if (fmt == AB_MD)
		fputc('\n', f);
	sayf(f, fmt, pre, "readers: %s", res->probe);
	sayf(f, fmt, pre, "load: %s", res->load);
	other_line(f, fmt, pre, cfg, res);
	sayf(f, fmt, pre, "queue settings not named by a variant: %s", res->queue);
	sayf(f, fmt, pre, "%d round(s), %g s per phase after a %g s warm-up (left out); order A B B A per pair of rounds",
	     cfg->rounds, cfg->dwell_s, cfg->warmup_s);
	if (res->settled_at)
		sayf(f, fmt, pre, "stopped after %d of the %d rounds: every figure was decided there (the first look; "
			     "the bound below covers both looks)", res->settled_at, cfg->rounds);
	say(f, fmt, pre, "steady reader: n, p50, p99, max per read; p50/s: median of per-second p50s; reads/s; "
		       ">10ms, >100ms: % of the time in reads that long. fresh: job time, median. paced: per read");
	if (cfg->startup_cmd)
		sayf(f, fmt, pre, "start-up: %d cold start(s) of '%s' per phase (page cache dropped first), median",
		     cfg->startup_runs, cfg->startup_cmd);
	fputc('\n', f);
}

/* Markdown: every figure shown, one row per variant (its phases pooled)
 * and one per phase. */
static void md_tables(FILE *f, const struct ab_config *cfg, const struct ab_result *res, const struct row *sum,
		      struct row *r)
{
	fprintf(f, "per variant, pooled over all phases%s:\n\n", cfg->baseline ? " with load (the baselines apart)" : "");
	md_head(f, cfg->live ? "variant (all slots)" : "variant (all phases)", cfg->live);
	for (size_t v = 0; v < cfg->nv; v++)
		md_row(f, &sum[v], cfg->live);
	fputc('\n', f);
	md_head(f, cfg->live ? "slot" : "phase", cfg->live);
	for (size_t i = 0; i < res->nphases; i++) {
		abrows_phase(cfg, &res->phases[i], r);
		md_row(f, r, cfg->live);
	}
}

/* Text and Markdown: the settings, the tables, the verdicts, the cold
 * starts, the restore and the next step. */
static void text_report(FILE *f, enum ab_format fmt, const struct ab_config *cfg, const struct ab_result *res,
			const struct row *sum, const struct abv_report *vr)
{
	struct row *r = malloc(sizeof *r);
	if (!r)
		return;
	header(f, fmt, cfg, res);
	if (fmt == AB_TEXT)
		text_tables(f, cfg, res, sum);
	else
		md_tables(f, cfg, res, sum, r);
	if (vr)
		conclusions(f, fmt, cfg, vr, sum);
	startups(f, fmt, cfg, res);
	fputc('\n', f);
	sayf(f, fmt, "", "%s is back on %s.", res->disk, res->original);
	struct abn_words *w = vr ? malloc(sizeof *w) : NULL;
	if (w) {
		abnext_words(vr, cfg, res->original, w);
		next_lines(f, fmt, cfg, w);
	}
	free(w);
	free(r);
}

void abreport_write(FILE *f, const struct ab_config *cfg, const struct ab_result *res, enum ab_format fmt)
{
	struct row *sum = calloc(cfg->nv, sizeof *sum);
	struct abv_report *vr = malloc(sizeof *vr);
	if (!sum) {
		free(vr);
		return;
	}
	for (size_t v = 0; v < cfg->nv; v++)
		abrows_summary(cfg, res, (int)v, &sum[v]);
	if (vr && abstats_compute(cfg, res, vr) < 0) {
		free(vr);
		vr = NULL;
	}
	if (fmt == AB_JSON)
		abreport_json(f, cfg, res, sum, vr);
	else if (fmt == AB_CSV)
		abreport_csv(f, cfg, res, sum, vr);
	else
		text_report(f, fmt, cfg, res, sum, vr);
	free(vr);
	free(sum);
}
