/* tui_keys: what the full screen's keys do (tui_act, from the key
 * table; the lists' moves for every panel through its listbox), and the
 * text fields typed on the main screen (the / filter, the A/B's
 * variants). The work is the session's; each action fills a reply (what
 * the loop must do next, what the status line says) and tui.c carries it
 * out. */
#include <ctype.h>
#include <curses.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tuiview.h"
#include "base/util.h"
#include "out/abreport.h"
#include "model/abstats.h"
#include "out/abwords.h"

/* R: 20 Hz -> 100 Hz -> max -> 20 Hz (any other pace goes to 20 Hz). */
static void cycle_rate(struct tui *t, struct reply *r)
{
	double hz = t->s.probe_rate_hz;
	double next = hz == 20 ? 100 : hz == 100 ? 0 : 20;
	session_set_probe_rate(t->sess, next);
	t->s.probe_rate_hz = next;
	char rate[32];
	screen_rate_text(next, rate, sizeof rate);
	screen_reply(r, "probe pace: %s", rate);
}

static void sort_step(struct tui *t, int dir, struct reply *r)
{
	if (tui_units_act(t, dir < 0 ? KEY_ACT_SORT_LEFT : KEY_ACT_SORT_RIGHT, 0, r))
		return;
	procpane_sort_step(&t->pp, &t->s, dir);
	screen_reply(r, "processes sorted by %s", proccols_header(t->pp.sort, t->pp.accumulated));
	r->react |= REACT_ARRANGE;
}

static void toggle(int *flag, const char *on, const char *off, struct reply *r)
{
	*flag = !*flag;
	screen_reply(r, "%s", *flag ? on : off);
	r->react |= REACT_ARRANGE;
}

/* The end of a run in the event log: how far it got, then each reader's
 * verdict as the report words it (abwords). */
static void ab_log_end(struct tui *t)
{
	const struct ab_config *c = session_ab_config_used(t->sess);
	const struct ab_result *res = session_ab_result(t->sess);
	char line[400], text[ABW_READER_LEN];
	util_fmt(line, sizeof line, "A/B ended%s: %zu phase(s) measured; load %s", res->partial ? " early (partial)" : "",
		 res->nphases, res->load);
	session_ab_log(t->sess, c->disk, 1, line);
	struct abv_report *vr = malloc(sizeof *vr);
	if (vr && abstats_compute(c, res, vr) == 0)
		for (int rd = 0; rd < ABV_NREADERS; rd++) {
			if (!abstats_reader_used(c, (enum abv_reader)rd))
				continue;
			abwords_reader(vr, c, (enum abv_reader)rd, text, sizeof text);
			util_fmt(line, sizeof line, "A/B verdict, %s", text);
			session_ab_log(t->sess, c->disk, 1, line);
		}
	free(vr);
}

/* The run is over: put its settings back (queued undos), keep the report. */
void tui_ab_finish(struct tui *t, int cancelled)
{
	if (!session_ab_status(t->sess))
		return;
	session_ab_finish(t->sess, cancelled);
	ab_log_end(t);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (f) {
		abreport_write(f, session_ab_config_used(t->sess), session_ab_result(t->sess), AB_TEXT);
		fclose(f);
	}
	panel_report_open(t, text);
}

/* The prompt's "load=SIZE" word, taken out of in: 0 when there is none,
 * 1 with its bytes, -1 when it is no size. */
static int ab_load_word(char *in, uint64_t *size)
{
	for (char *w = strstr(in, "load="); w; w = strstr(w + 1, "load=")) {
		if (w != in && w[-1] != ' ')
			continue;
		char *end = w + strcspn(w, " ");
		char word[64];
		util_fmt(word, sizeof word, "%.*s", (int)(end - w - 5), w + 5);
		memmove(w, end, strlen(end) + 1);
		return util_parse_size(word, size) == 0 && *size > 0 ? 1 : -1;
	}
	return 0;
}

/* The prompt's "live" word (an A/B on the user's own load), taken out
 * of in: 1 when it was there. */
static int ab_live_word(char *in)
{
	for (char *w = strstr(in, "live"); w; w = strstr(w + 1, "live"))
		if ((w == in || w[-1] == ' ') && (w[4] == ' ' || !w[4])) {
			memmove(w, w + 4, strlen(w + 4) + 1);
			return 1;
		}
	return 0;
}

/* Enter in the prompt: the variants, and the load's size when given, or
 * live; a refusal stays on screen until a key (and is in the event log). */
static void ab_start(struct tui *t, struct reply *r)
{
	char in[sizeof t->ab_input];
	uint64_t size = 0;
	util_strlcpy(in, t->ab_input, sizeof in);
	if (ab_load_word(in, &size) < 0) {
		screen_reply(r, "load=SIZE: give a size such as 512M or 1G (64M or more)");
		return; /* the prompt stays, to mend it */
	}
	int live = ab_live_word(in);
	t->ab_prompt = 0;
	if (session_ab_start(t->sess, t->selected, util_trim(in), size, live, r->msg, sizeof r->msg) < 0)
		r->react |= REACT_HOLD;
}

void tui_ab_key(struct tui *t, int ch, struct reply *r)
{
	r->react |= REACT_REDRAW;
	switch (screen_field_key(t->ab_input, sizeof t->ab_input, ch, NULL)) {
	case FIELD_ESC: t->ab_prompt = 0; break;
	case FIELD_ENTER: ab_start(t, r); break;
	case FIELD_TYPED: break;
	}
}

/* A size as the prompt's load= word: "1G", "512M". */
static void size_word(uint64_t b, char *buf, size_t len)
{
	if (b % (1ull << 30) == 0)
		util_fmt(buf, len, "%lluG", (unsigned long long)(b >> 30));
	else
		util_fmt(buf, len, "%lluM", (unsigned long long)(b >> 20));
}

static void ab_open(struct tui *t, struct reply *r)
{
	const struct disk_sample *d = screen_selected_disk(t);
	if (!d || d->info.sched.n < 2) {
		screen_reply(r, "this disk has no schedulers to compare");
		return;
	}
	if (session_ab_status(t->sess)) {
		screen_reply(r, "%s", session_ab_status(t->sess));
		return;
	}
	/* The load's size first: one that cannot fit is said now, not
	 * after the variants are typed. */
	uint64_t size = 0;
	char word[32], load[40] = "";
	int rc = session_ab_load_offer(t->sess, d->info.name, &size, r->msg, sizeof r->msg);
	if (rc < 0) {
		r->react |= REACT_HOLD;
		return;
	}
	if (rc > 0) {
		size_word(size, word, sizeof word);
		util_fmt(load, sizeof load, " load=%s", word);
	}
	/* Offer the classic comparison, editable, and the load's size. */
	const char *a = d->info.sched.names[0], *b = d->info.sched.names[d->info.sched.n - 1];
	util_fmt(t->ab_input, sizeof t->ab_input, "%s,%s%s", a, b, load);
	t->ab_prompt = 1;
}

static void load_toggle(struct tui *t, struct reply *r)
{
	if (session_load_toggle(t->sess, t->selected, r->msg, sizeof r->msg) < 0)
		r->react |= REACT_HOLD; /* e.g. too little room: the cure is read whole */
}

static void startup_begin(struct tui *t, struct reply *r)
{
	session_coldstart_begin(t->sess, r->msg, sizeof r->msg);
}

void tui_startup_poll(struct tui *t, struct reply *r)
{
	double secs;
	int rc = session_coldstart_poll(t->sess, &secs);
	if (rc == 1) {
		t->startup_s = secs;
		screen_reply(r, "cold start of '%s': %.2f s", t->o->startup, secs);
	} else if (rc < 0) {
		screen_reply(r, "the cold start could not be timed (dropping the page cache needs root; does the command run?)");
	}
}

/* A fresh reader on the selected disk (F, --fresh-every): its time comes
 * back as an event, said on the status line and marked on the chart. */
void tui_fresh_begin(struct tui *t, struct reply *r)
{
	const struct disk_sample *d = screen_selected_disk(t);
	if (!d) {
		screen_reply(r, "no disk selected");
		return;
	}
	r->react |= REACT_REDRAW;
	if (session_fresh_start(t->sess, d->info.name, (uint32_t)t->o->fresh_reads, r->msg, sizeof r->msg) < 0)
		return;
	screen_reply(r, "%s: fresh reader started (%d reads) ...", d->info.name, t->o->fresh_reads);
}

static void probe_selected(struct tui *t, struct reply *r)
{
	const struct disk_sample *d = screen_selected_disk(t);
	if (!d)
		screen_reply(r, "no disk selected");
	else
		session_probe_disk(t->sess, d->info.name, r->msg, sizeof r->msg);
}

static void toggle_delayacct(struct tui *t, struct reply *r)
{
	session_delayacct(t->sess, !t->s.pstat.delayacct, r->msg, sizeof r->msg);
}

static void undo(struct tui *t, struct reply *r)
{
	/* A change that finished since the last tick goes into the log first,
	 * or u right after it would not find it; the undo's message is said
	 * instead of that change's result. */
	if (session_poll(t->sess)) {
		session_change_result(t->sess, &t->ctl_seen);
		if (t->mode == KM_TUNABLES)
			panel_tunables_reload(t);
	}
	session_undo(t->sess, r->msg, sizeof r->msg);
	r->react |= REACT_PENDING;
}

/* The theme: --no-color or NO_COLOR give mono; a theme that does not
 * load is said on the status line and the default is used instead. */
static void theme_use(struct tui *t, const char *name, struct reply *r)
{
	char err[512];
	struct theme th;
	if (theme_load(name, &th, err, sizeof err) < 0) {
		screen_reply(r, "%s; using the default theme", err);
		if (strcmp(name, "default") == 0 || theme_load("default", &th, err, sizeof err) < 0)
			theme_defaults(&th); /* attributes only */
	}
	t->theme = th;
	theme_apply(&t->theme, t->th);
}

void tui_theme_start(struct tui *t, struct reply *r)
{
	const char *nc = getenv("NO_COLOR");
	if (t->o->no_color || (nc && *nc)) {
		theme_defaults(&t->theme);
		util_strlcpy(t->theme.name, "mono", sizeof t->theme.name);
		t->theme.mono = 1;
		theme_apply(&t->theme, t->th);
		return;
	}
	theme_use(t, t->o->theme ? t->o->theme : "default", r);
}

/* W: the settings worth keeping, into the configuration file. Nothing
 * is written without this key. */
static void save_settings(struct tui *t, struct reply *r)
{
	if (!t->o->config_path) {
		screen_reply(r, "no configuration file (--no-config, or no home directory): nothing saved");
		return;
	}
	char delay[32], rate[32], sort[32], err[512];
	util_fmt(delay, sizeof delay, "%g", t->o->delay_s);
	if (t->s.probe_rate_hz > 0)
		util_fmt(rate, sizeof rate, "%g", t->s.probe_rate_hz);
	else
		util_strlcpy(rate, "max", sizeof rate);
	util_strlcpy(sort, proccols_get(t->pp.sort)->key, sizeof sort);
	for (char *c = sort; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	const char *keys[] = {"theme", "delay", "sort", "probe-rate"};
	const char *values[] = {t->theme.name[0] ? t->theme.name : "default", delay, sort, rate};
	if (session_save_config(t->sess, keys, values, 4, err, sizeof err) < 0)
		screen_reply(r, "not saved: %s", err);
	else
		screen_reply(r, "saved theme %s, delay %s, sort %s, probe pace %s to %s", values[0], delay, sort, rate,
			     t->o->config_path);
}

/* T: the next built-in theme. */
static void theme_cycle(struct tui *t, struct reply *r)
{
	int i = 0;
	while (i < THEME_NBUILTIN && strcmp(theme_builtin[i], t->theme.name) != 0)
		i++;
	const char *next = theme_builtin[i < THEME_NBUILTIN ? (i + 1) % THEME_NBUILTIN : 0];
	theme_use(t, next, r);
	if (strcmp(t->theme.name, next) == 0)
		screen_reply(r, "theme %s (T: next)", next);
	r->react |= REACT_REPAINT;
}

/* Keys that change the system do nothing in a replay. */
static void replay_key(struct tui *t, enum key_action a, struct reply *r)
{
	if (!session_replaying(t->sess)) {
		screen_reply(r, "Space . + - work in a replay (--replay FILE)");
		return;
	}
	if (a == KEY_ACT_PAUSE && !t->replay_end)
		t->paused = !t->paused;
	else if (a == KEY_ACT_STEP && !t->replay_end)
		t->paused = t->step = 1;
	else if (a == KEY_ACT_FASTER && t->speed < 64)
		t->speed *= 2;
	else if (a == KEY_ACT_SLOWER && t->speed > 1.0 / 64)
		t->speed /= 2;
	screen_reply(r, "replay %s, x%g", t->replay_end ? "at its end" : t->paused ? "paused" : "playing", t->speed);
}

/* The panel that has the keys, or NULL on the main screen. */
const struct panel_ops *tui_panel_of(enum key_mode m)
{
	switch (m) {
	case KM_PICKER: return &panel_picker;
	case KM_TUNABLES: return &panel_tunables;
	case KM_LOG: return &panel_log;
	case KM_UDEV: return &panel_udev;
	case KM_IOPRIO: return &panel_ioprio;
	case KM_REPORT: return &panel_report;
	case KM_DETAIL: return &panel_detail;
	default: return NULL;
	}
}

/* The main screen's moves go to the focused list only: the process pane
 * when it has the focus (the next ] must not hit a disk moved to behind
 * the user's back), else the disks; rows: what that list shows. */
static void move_main(struct tui *t, int by, int rows, struct reply *r)
{
	if (t->focus_procs && t->units.shown) {
		unitpane_step(&t->units.pane, &t->s, by, rows);
	} else if (t->focus_procs) {
		procpane_step(&t->pp, &t->s, by, rows);
	} else {
		struct listbox l = {.n = (int)t->s.ndisks, .cur = screen_selected_index(t), .cursor = 1};
		listbox_move(&l, by, rows);
		screen_select(t, l.cur);
	}
	r->react |= REACT_REDRAW;
}

/* A move of the focused list: by rows, a page (pages of +-1), or to an end. */
static void move_list(struct tui *t, enum key_action a, struct reply *r)
{
	const struct panel_ops *p = tui_panel_of(t->mode);
	int y, rows = 0;
	struct listbox *l = NULL;
	if (p && p->list) {
		l = p->list(t);
		rows = p->rows(t, &y);
	} else if (!p) {
		struct tui_layout L;
		tui_main_layout(t, &L);
		rows = t->focus_procs ? L.pane_h - 2 : L.table_rows;
	}
	int by = a == KEY_ACT_UP ? -1 : a == KEY_ACT_DOWN ? 1 : a == KEY_ACT_TOP ? LISTBOX_HOME :
		 a == KEY_ACT_BOTTOM ? LISTBOX_END : a == KEY_ACT_PAGE_UP ? -listbox_page(rows) : listbox_page(rows);
	if (l) {
		if (listbox_move(l, by, rows))
			r->react |= REACT_REDRAW;
	} else if (!p) {
		move_main(t, by, rows, r);
	}
}

void tui_panel_mouse(struct tui *t, int y, int wheel, struct reply *r)
{
	const struct panel_ops *p = tui_panel_of(t->mode);
	if (!p || !p->list)
		return;
	struct listbox *l = p->list(t);
	int y0, rows = p->rows(t, &y0);
	if (wheel)
		listbox_move(l, wheel * 3, rows);
	else
		listbox_click(l, rows, y - y0);
	r->react |= REACT_REDRAW;
}

static void enter(struct tui *t, struct reply *r)
{
	const struct panel_ops *p = tui_panel_of(t->mode);
	if (t->mode == KM_MAIN && !tui_units_act(t, KEY_ACT_ENTER, 0, r))
		panel_detail_open(t, r);
	else if (p && p->enter)
		p->enter(t, r);
}

static void report_open(struct tui *t, struct reply *r)
{
	if (t->report.text)
		t->mode = KM_REPORT;
	else
		screen_reply(r, "no A/B report yet: A runs one");
}

static void write_panel(struct tui *t, struct reply *r)
{
	const struct panel_ops *p = tui_panel_of(t->mode);
	if (p && p->write)
		p->write(t, r);
}

/* Keys that open, close or move: nothing else changes. */
static int act_view(struct tui *t, enum key_action a, struct reply *r)
{
	switch (a) {
	case KEY_ACT_UP:
	case KEY_ACT_DOWN:
	case KEY_ACT_TOP:
	case KEY_ACT_BOTTOM:
	case KEY_ACT_PAGE_UP:
	case KEY_ACT_PAGE_DOWN: move_list(t, a, r); break;
	case KEY_ACT_HELP: t->help = 1; t->help_list = (struct listbox){0}; break;
	case KEY_ACT_REDRAW: r->react |= REACT_REPAINT; break;
	case KEY_ACT_PICKER: panel_picker_open(t, r); break;
	case KEY_ACT_TUNABLES: panel_tunables_open(t); break;
	case KEY_ACT_LOG: panel_log_open(t); break;
	case KEY_ACT_UDEV: panel_udev_open(t, r); break;
	case KEY_ACT_IOPRIO: panel_ioprio_open(t, r); break;
	case KEY_ACT_ENTER: enter(t, r); break;
	case KEY_ACT_CLOSE: t->mode = KM_MAIN; break;
	case KEY_ACT_WRITE: write_panel(t, r); break;
	case KEY_ACT_REPORT: report_open(t, r); break;
	case KEY_ACT_LEFT: panel_report_side(t, -1); break;
	case KEY_ACT_RIGHT: panel_report_side(t, 1); break;
	case KEY_ACT_FILTER: t->filtering = 1; break;
	case KEY_ACT_AB: ab_open(t, r); break;
	case KEY_ACT_QUIT: r->react |= REACT_QUIT; break;
	default: return 0;
	}
	r->react |= REACT_REDRAW;
	return 1;
}

/* Keys that change how the process pane shows its rows. */
static int act_pane(struct tui *t, enum key_action a, struct reply *r)
{
	switch (a) {
	case KEY_ACT_FOCUS: toggle(&t->focus_procs, "selection: process pane", "selection: disks", r); break;
	case KEY_ACT_SORT_LEFT: sort_step(t, -1, r); break;
	case KEY_ACT_SORT_RIGHT: sort_step(t, 1, r); break;
	case KEY_ACT_REVERSE:
		if (!tui_units_act(t, a, 0, r))
			toggle(&t->pp.reverse, "sort reversed", "sort: largest first", r);
		break;
	case KEY_ACT_UNITS: tui_units_toggle(t, r); break;
	case KEY_ACT_ONLY_ACTIVE: toggle(&t->pp.only_active, "only processes with I/O", "all processes", r); break;
	case KEY_ACT_ACCUMULATED: toggle(&t->pp.accumulated, "totals since start", "rates per second", r); break;
	case KEY_ACT_CMDLINE: toggle(&t->pp.cmdline, "full command lines", "command names", r); break;
	case KEY_ACT_BIG: toggle(&t->big, "presentation mode (B: back)", "normal view", r); break;
	case KEY_ACT_CHART:
		toggle(&t->no_chart, "chart hidden: the process pane has its rows (C shows it)", "chart shown", r);
		break;
	case KEY_ACT_THREADS:
		screen_reply(r, "%s", session_toggle_threads(t->sess) ? "per-thread rows (from the next refresh)"
								 : "per-process rows (from the next refresh)");
		break;
	case KEY_ACT_SHOW_HIDDEN:
		if (t->o->ndisks) /* --disk lists what is shown: x cannot add to it */
			screen_reply(r, "--disk names the disks shown: x shows no others (leave out --disk to see all)");
		else
			screen_reply(r, "%s", session_toggle_hidden(t->sess) ? "every disk shown (from the next refresh)"
						 : "snap loops, zram and stacked disks hidden again (from the next refresh)");
		break;
	default: return 0;
	}
	return 1;
}

/* Keys that change the system, the probes or the run. */
static void act_system(struct tui *t, enum key_action a, struct reply *r)
{
	r->react |= REACT_REDRAW;
	switch (a) {
	case KEY_ACT_PAUSE:
	case KEY_ACT_STEP:
	case KEY_ACT_FASTER:
	case KEY_ACT_SLOWER: replay_key(t, a, r); break;
	case KEY_ACT_THEME: theme_cycle(t, r); break;
	case KEY_ACT_SAVE: save_settings(t, r); break;
	case KEY_ACT_RATE: cycle_rate(t, r); break;
	case KEY_ACT_NEXT_SCHED: panel_picker_next(t, 1, r); break;
	case KEY_ACT_PREV_SCHED: panel_picker_next(t, -1, r); break;
	case KEY_ACT_UNDO: undo(t, r); break;
	case KEY_ACT_PICK_NONE: panel_picker_pick(t, "none", r); break;
	case KEY_ACT_PICK_MQ: panel_picker_pick(t, "mq-deadline", r); break;
	case KEY_ACT_PICK_KYBER: panel_picker_pick(t, "kyber", r); break;
	case KEY_ACT_PICK_BFQ: panel_picker_pick(t, "bfq", r); break;
	case KEY_ACT_DELAYACCT: toggle_delayacct(t, r); break;
	case KEY_ACT_PROBE: probe_selected(t, r); break;
	case KEY_ACT_CANCEL:
		if (session_ab_status(t->sess))
			tui_ab_finish(t, 1);
		break;
	case KEY_ACT_LOAD: load_toggle(t, r); break;
	case KEY_ACT_STARTUP: startup_begin(t, r); break;
	case KEY_ACT_FRESH: tui_fresh_begin(t, r); break;
	case KEY_ACT_WEIGHT: tui_units_weight(t, r); break;
	default: break;
	}
}

void tui_act(struct tui *t, enum key_action a, struct reply *r)
{
	if (session_replaying(t->sess) && keys_needs_live(a)) {
		screen_reply(r, "this is a replay of a recording: keys that switch or tune are off");
		return;
	}
	if (t->o->read_only && keys_changes_system(a)) {
		screen_reply(r, "read-only mode (--read-only): keys that change the system are off");
		return;
	}
	const char *off = a == KEY_ACT_AB ? session_ab_off(t->sess) : NULL;
	if (off) {
		screen_reply(r, "A/B is off: %s", off);
		return;
	}
	if (!act_view(t, a, r) && !act_pane(t, a, r))
		act_system(t, a, r);
}

/* Typing the / filter: printable characters, Backspace, Enter keeps, Esc clears. */
void tui_filter_key(struct tui *t, int ch, struct reply *r)
{
	size_t n = strlen(t->pp.filter);
	if (ch == ESC) {
		t->pp.filter[0] = '\0';
		t->filtering = 0;
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		t->filtering = 0;
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (n)
			t->pp.filter[n - 1] = '\0';
	} else if (ch >= 32 && ch < 127 && n + 1 < sizeof t->pp.filter) {
		t->pp.filter[n] = (char)ch;
		t->pp.filter[n + 1] = '\0';
	}
	r->react |= REACT_ARRANGE | REACT_REDRAW;
}
