/* abreport_csv: the A/B report as CSV (include/out/abreport.h): one header,
 * then rows of kind "summary" (a variant, its phases pooled), "phase" (a
 * live run: "slot"),
 * "verdict" and "next", each with every column of the header. */
#include "abrows.h"

#include <math.h>
#include <stdlib.h>

#include "abnext.h"
#include "out/abwords.h"
#include "base/util.h"

/* s as a quoted CSV field, its quotes doubled. */
static void quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (const char *p = s; *p; p++)
		fputs(*p == '"' ? "\"\"" : (char[2]){*p, 0}, f);
	fputc('"', f);
}

static void write_head(FILE *f, const struct ab_config *cfg)
{
	fprintf(f, "kind,variant,round");
	for (int i = 0; i < NCOL; i++)
		if (abrows_col_used(cfg, (enum col)i))
			fprintf(f, ",%s", abrows_col((enum col)i)->key);
	fputs(",profile,figure,decided,ratio,ratio_lo,ratio_hi,rounds_needed,text\n", f);
}

static void write_row(FILE *f, const struct ab_config *cfg, const char *kind, const struct row *r)
{
	double v[NCOL];
	char b[32], round[16];
	abrows_values(r, v);
	snprintf(round, sizeof round, "%d", r->round);
	fprintf(f, "%s,", kind);
	quoted(f, r->label);
	fprintf(f, ",%s", r->round < 0 ? "" : round);
	for (int i = 0; i < NCOL; i++) {
		if (!abrows_col_used(cfg, (enum col)i))
			continue;
		abrows_fig(v[i], (enum col)i, AB_CSV, b, sizeof b);
		fprintf(f, ",%s", b);
	}
	fputs(",,,,,,,,\n", f);
}

/* The verdicts as rows under the same header: kind "verdict", the best
 * variant (empty when none), then the verdict's own columns. */
static void verdicts(FILE *f, const struct ab_config *cfg, const struct abv_report *vr)
{
	char name[48] = "", num[4][32], text[ABW_VERDICT_LEN];
	for (int k = 0; k < ABV_NFIGS; k++) {
		if (!abstats_fig_used(cfg, (enum abv_fig)k))
			continue;
		const struct abv_verdict *v = &vr->v[k];
		const struct abv_fig_info *fi = abstats_fig((enum abv_fig)k);
		name[0] = '\0';
		if (v->best >= 0)
			abwords_label(cfg, (size_t)v->best, name, sizeof name);
		fputs("verdict,", f);
		quoted(f, name);
		fputc(',', f);
		for (int i = 0; i < NCOL; i++)
			if (abrows_col_used(cfg, (enum col)i))
				fputc(',', f);
		const double x[3] = {v->c.ratio, v->c.lo, v->c.hi};
		for (int i = 0; i < 3; i++)
			abrows_fig(isinf(x[i]) ? NAN : x[i], C_MEAN, AB_CSV, num[i], sizeof num[i]);
		util_fmt(num[3], sizeof num[3], "%d", v->rounds_needed);
		fprintf(f, ",%s,%s,%s,%s,%s,%s,%s,", abstats_reader_name(fi->reader), fi->key,
			v->best >= 0 ? "true" : "false", num[0], num[1], num[2],
			v->best >= 0 || v->rounds_needed == 0 ? "" : num[3]);
		abwords_verdict(vr, cfg, (enum abv_fig)k, text, sizeof text);
		quoted(f, text);
		fputc('\n', f);
	}
}

/* A row of kind "next" under the same header: the variant (empty for
 * none), what it is for in the profile column, the words or the command
 * in text. */
static void next_row(FILE *f, const struct ab_config *cfg, const char *variant, const char *what, const char *text)
{
	fputs("next,", f);
	quoted(f, variant);
	fputc(',', f);
	for (int i = 0; i < NCOL; i++)
		if (abrows_col_used(cfg, (enum col)i))
			fputc(',', f);
	fprintf(f, ",%s,,,,,,,", what);
	quoted(f, text);
	fputc('\n', f);
}

static void next(FILE *f, const struct ab_config *cfg, const struct abn_words *w)
{
	char name[48];
	for (int rd = 0; rd < ABV_NREADERS; rd++) {
		if (!abstats_reader_used(cfg, (enum abv_reader)rd))
			continue;
		name[0] = '\0';
		if (w->n.reader[rd].v >= 0)
			abwords_label(cfg, (size_t)w->n.reader[rd].v, name, sizeof name);
		next_row(f, cfg, name, abstats_reader_name((enum abv_reader)rd), w->reader[rd]);
	}
	for (int u = 0; u < ABN_NUSES; u++) {
		name[0] = '\0';
		if (w->n.use[u].v >= 0)
			abwords_label(cfg, (size_t)w->n.use[u].v, name, sizeof name);
		next_row(f, cfg, name, abnext_use_key((enum abn_use)u, cfg), w->use[u]);
	}
	if (w->n.keep < 0)
		return;
	next_row(f, cfg, w->keep_name, "keep", w->keep);
	if (w->adds[0])
		next_row(f, cfg, w->keep_name, "rule_adds", w->adds);
	if (w->n.keep_other >= 0)
		next_row(f, cfg, w->other_name, "keep_server", w->keep_other);
	if (w->adds_other[0])
		next_row(f, cfg, w->other_name, "rule_adds_server", w->adds_other);
	next_row(f, cfg, "", "undo", w->undo);
}

void abreport_csv(FILE *f, const struct ab_config *cfg, const struct ab_result *res, const struct row *sum,
		  const struct abv_report *vr)
{
	struct row *r = malloc(sizeof *r);
	write_head(f, cfg);
	for (size_t v = 0; v < cfg->nv; v++)
		write_row(f, cfg, "summary", &sum[v]);
	for (size_t i = 0; i < res->nphases && r; i++) {
		abrows_phase(cfg, &res->phases[i], r);
		write_row(f, cfg, cfg->live ? "slot" : "phase", r);
	}
	free(r);
	if (vr)
		verdicts(f, cfg, vr);
	struct abn_words *w = vr ? malloc(sizeof *w) : NULL;
	if (!w)
		return;
	abnext_words(vr, cfg, res->original, w);
	next(f, cfg, w);
	free(w);
}
