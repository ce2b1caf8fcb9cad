/* abnext: see src/out/abnext.h */
#include "abnext.h"

#include <string.h>

#include "out/abwords.h"
#include "base/util.h"

/* What a reader's verdict says about its use: its best, or why none. */
static struct abn_choice reader_choice(const struct abv_report *r, enum abv_reader rd)
{
	const struct abv_reader_verdict *rv = &r->reader[rd];
	if (r->aa)
		return (struct abn_choice){-1, ABN_AA};
	if (rv->tradeoff)
		return (struct abn_choice){-1, ABN_SPLIT};
	if (rv->best >= 0)
		return (struct abn_choice){rv->best, ABN_CHOSEN};
	return (struct abn_choice){-1, ABN_UNDECIDED};
}

/* Two readers' choices as one: a choice stands when the other reader
 * prefers the same variant or decides nothing; a trade-off or a different
 * preference leaves no single choice. */
static struct abn_choice combine(struct abn_choice a, struct abn_choice b)
{
	if (a.why == ABN_AA || b.why == ABN_AA)
		return (struct abn_choice){-1, ABN_AA};
	if (a.why == ABN_SPLIT || b.why == ABN_SPLIT)
		return (struct abn_choice){-1, ABN_SPLIT};
	if (a.why == ABN_CHOSEN && b.why == ABN_CHOSEN && a.v != b.v)
		return (struct abn_choice){-1, ABN_SPLIT};
	return a.why == ABN_CHOSEN ? a : b;
}

void abnext_decide(const struct abv_report *r, struct abn_next *out)
{
	for (int rd = 0; rd < ABV_NREADERS; rd++)
		out->reader[rd] = reader_choice(r, (enum abv_reader)rd);
	/* a real program's cold starts, where timed, stand for starting
	 * programs; the fresh readers' direct reads only where they are not */
	out->cold = r->v[ABV_COLD].leader >= 0;
	out->live = r->live;
	if (r->live) {
		/* the user's own load: their programs' reads (where the BPF part
		 * timed them) with the probe's, and apart, their writers' MB/s */
		out->use[ABN_DESKTOP] = combine(out->reader[ABV_YOURS], out->reader[ABV_PACED]);
		out->use[ABN_SERVER] = out->reader[ABV_WRITES];
	} else {
		out->use[ABN_DESKTOP] = combine(out->reader[out->cold ? ABV_START : ABV_FRESH], out->reader[ABV_PACED]);
		out->use[ABN_SERVER] = out->reader[ABV_STEADY];
	}
	int d = out->use[ABN_DESKTOP].v, s = out->use[ABN_SERVER].v;
	out->keep = d >= 0 ? d : s;
	out->keep_other = d >= 0 && s >= 0 && s != d ? s : -1;
}

const char *abnext_reader_use(enum abv_reader rd)
{
	static const char *const uses[ABV_NREADERS] = {
		[ABV_STEADY] = "long-running readers (steady)",
		[ABV_FRESH] = "new processes' direct reads (fresh)",
		[ABV_PACED] = "interactive programs (paced)",
		[ABV_START] = "programs starting cold (--startup)",
		[ABV_YOURS] = "your programs' reads of the disk",
		[ABV_WRITES] = "your writers' throughput",
	};
	return rd < ABV_NREADERS ? uses[rd] : "?";
}

const char *abnext_use_name(enum abn_use u, const struct abn_next *n)
{
	if (n->live)
		return u == ABN_SERVER ? "throughput of this load's writes" : "this load's reads (yours and the probe's)";
	if (u == ABN_SERVER)
		return "a server (steady reader)";
	return n->cold ? "a desktop or laptop (cold starts and paced reader)"
		       : "a desktop or laptop (fresh and paced readers)";
}

const char *abnext_use_key(enum abn_use u, const struct ab_config *cfg)
{
	if (cfg->live)
		return u == ABN_DESKTOP ? "reads" : "writes";
	return u == ABN_DESKTOP ? "desktop" : "server";
}

void abnext_choice_text(const struct abn_choice *c, const struct ab_config *cfg, char *buf, size_t len)
{
	if (c->why == ABN_CHOSEN && c->v >= 0 && (size_t)c->v < cfg->nv)
		abwords_label(cfg, (size_t)c->v, buf, len);
	else if (c->why == ABN_SPLIT)
		util_strlcpy(buf, "no single choice (a trade-off, or its readers disagree)", len);
	else if (c->why == ABN_AA)
		util_strlcpy(buf, "no difference worth a change (an A/A: the same setting)", len);
	else
		util_strlcpy(buf, "no difference worth a change", len);
}

int abnext_keep(const struct ab_config *cfg, int v, char *buf, size_t len)
{
	if (v < 0 || (size_t)v >= cfg->nv) {
		util_strlcpy(buf, "", len);
		return -1;
	}
	util_fmt(buf, len, "iosched-top --disk %s --set %s=%s --print-udev-rule", cfg->disk, cfg->disk,
		 cfg->v[v].sched);
	return 0;
}

void abnext_rule_adds(const struct ab_config *cfg, int v, char *buf, size_t len)
{
	util_strlcpy(buf, "", len);
	if (v < 0 || (size_t)v >= cfg->nv)
		return;
	for (size_t i = 0; i < cfg->v[v].ntun; i++) {
		const struct tune_req *t = &cfg->v[v].tun[i];
		if (t->kind != TUNE_QUEUE && t->kind != TUNE_IOSCHED)
			continue;
		size_t used = strlen(buf);
		/* iosched/ files exist once the scheduler is set: udev applies a
		 * rule's assignments in order, the scheduler's first */
		util_fmt(buf + used, len - used, "%sATTR{queue/%s%s}=\"%s\"", used ? ", " : "",
			 t->kind == TUNE_IOSCHED ? "iosched/" : "", t->key, t->value);
	}
}

void abnext_undo_command(const struct ab_config *cfg, const char *original, char *buf, size_t len)
{
	util_fmt(buf, len, "echo %s > /sys/block/%s/queue/scheduler", original, cfg->disk);
}

void abnext_undo(const struct ab_config *cfg, const char *original, char *buf, size_t len)
{
	char cmd[160];
	abnext_undo_command(cfg, original, cmd, sizeof cmd);
	util_fmt(buf, len, "delete the rule for %s from the rules file it went into, then switch back now: %s", cfg->disk,
		 cmd);
}

void abnext_words(const struct abv_report *vr, const struct ab_config *cfg, const char *original,
		  struct abn_words *w)
{
	abnext_decide(vr, &w->n);
	for (int rd = 0; rd < ABV_NREADERS; rd++)
		abnext_choice_text(&w->n.reader[rd], cfg, w->reader[rd], sizeof w->reader[rd]);
	for (int u = 0; u < ABN_NUSES; u++)
		abnext_choice_text(&w->n.use[u], cfg, w->use[u], sizeof w->use[u]);
	abnext_keep(cfg, w->n.keep, w->keep, sizeof w->keep);
	abnext_keep(cfg, w->n.keep_other, w->keep_other, sizeof w->keep_other);
	abnext_rule_adds(cfg, w->n.keep, w->adds, sizeof w->adds);
	abnext_rule_adds(cfg, w->n.keep_other, w->adds_other, sizeof w->adds_other);
	abnext_undo(cfg, original, w->undo, sizeof w->undo);
	abnext_undo_command(cfg, original, w->undo_cmd, sizeof w->undo_cmd);
	w->keep_name[0] = w->other_name[0] = '\0';
	w->keep_is_now = w->n.keep >= 0 && (size_t)w->n.keep < cfg->nv && original &&
			 !strcmp(cfg->v[w->n.keep].sched, original) && cfg->v[w->n.keep].ntun == 0;
	if (w->n.keep >= 0)
		abwords_label(cfg, (size_t)w->n.keep, w->keep_name, sizeof w->keep_name);
	if (w->n.keep_other >= 0)
		abwords_label(cfg, (size_t)w->n.keep_other, w->other_name, sizeof w->other_name);
}
