/* tui_keys: what the full screen's keys do (tui_act, from the key
 * table), and the text fields typed on the main screen (the / filter,
 * the A/B's variants). The work is the session's; this says what
 * happened on the status line. */
#include <ctype.h>
#include <curses.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tuiview.h"
#include "util.h"
#include "abreport.h"

/* R: 20 Hz -> 100 Hz -> max -> 20 Hz (any other pace goes to 20 Hz). */
static void cycle_rate(struct tui *t)
{
	double r = t->s.probe_rate_hz;
	double next = r == 20 ? 100 : r == 100 ? 0 : 20;
	session_set_probe_rate(t->sess, next);
	t->s.probe_rate_hz = next;
	char rate[32], msg[64];
	tui_rate_text(next, rate, sizeof rate);
	snprintf(msg, sizeof msg, "probe pace: %s", rate);
	tui_say(t, msg);
}

static void sort_step(struct tui *t, int dir)
{
	procpane_sort_step(&t->pp, &t->s, dir);
	char msg[64];
	snprintf(msg, sizeof msg, "processes sorted by %s", proccols_header(t->pp.sort, t->pp.accumulated));
	tui_say(t, msg);
}

static void toggle(struct tui *t, int *flag, const char *on, const char *off)
{
	*flag = !*flag;
	tui_say(t, *flag ? on : off);
}

/* The run is over: put its settings back (queued undos), keep the report. */
void tui_ab_finish(struct tui *t, int cancelled)
{
	session_ab_finish(t->sess, cancelled);
	free(t->report.text);
	t->report.text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t->report.text, &len);
	if (f) {
		abreport_write(f, &t->sess->abcfg, &t->sess->abres, AB_TEXT);
		fclose(f);
	}
	t->report.top = 0;
	t->mode = KM_REPORT;
}

static void ab_start(struct tui *t)
{
	char err[512];
	t->ab_prompt = 0;
	if (session_ab_start(t->sess, t->selected, t->ab_input, err, sizeof err) < 0)
		tui_say(t, err);
}

void tui_ab_key(struct tui *t, int ch)
{
	size_t n = strlen(t->ab_input);
	if (ch == ESC)
		t->ab_prompt = 0;
	else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
		ab_start(t);
	else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n)
		t->ab_input[n - 1] = '\0';
	else if (ch >= 32 && ch < 127 && n + 1 < sizeof t->ab_input) {
		t->ab_input[n] = (char)ch;
		t->ab_input[n + 1] = '\0';
	}
}

static void ab_open(struct tui *t)
{
	const struct disk_sample *d = tui_selected_disk(t);
	if (!d || d->info.sched.n < 2) {
		tui_say(t, "this disk has no schedulers to compare");
		return;
	}
	if (session_ab_status(t->sess)) {
		tui_say(t, session_ab_status(t->sess));
		return;
	}
	/* Offer the classic comparison, editable. */
	const char *a = d->info.sched.names[0], *b = d->info.sched.names[d->info.sched.n - 1];
	util_fmt(t->ab_input, sizeof t->ab_input, "%s,%s", a, b);
	t->ab_prompt = 1;
}

static void load_toggle(struct tui *t)
{
	char msg[512];
	session_load_toggle(t->sess, t->selected, msg, sizeof msg);
	tui_say(t, msg);
}

static void startup_begin(struct tui *t)
{
	char msg[256];
	session_coldstart_begin(t->sess, msg, sizeof msg);
	tui_say(t, msg);
}

void tui_startup_poll(struct tui *t)
{
	double secs;
	int rc = session_coldstart_poll(t->sess, &secs);
	char msg[300];
	if (rc == 1) {
		t->startup_s = secs;
		util_fmt(msg, sizeof msg, "cold start of '%s': %.2f s", t->o->startup, secs);
		tui_say(t, msg);
	} else if (rc < 0) {
		tui_say(t, "the cold start could not be timed (dropping the page cache needs root; does the command run?)");
	}
}

/* A fresh reader on the selected disk (F, --fresh-every): its time comes
 * back as an event, said on the status line and marked on the chart. */
void tui_fresh_begin(struct tui *t)
{
	const struct disk_sample *d = tui_selected_disk(t);
	char err[320], msg[360];
	if (!d) {
		tui_say(t, "no disk selected");
		return;
	}
	if (session_fresh_start(t->sess, d->info.name, (uint32_t)t->o->fresh_reads, err, sizeof err) < 0) {
		tui_say(t, err);
		return;
	}
	util_fmt(msg, sizeof msg, "%s: fresh reader started (%d reads) ...", d->info.name, t->o->fresh_reads);
	tui_say(t, msg);
}

static void toggle_delayacct(struct tui *t)
{
	char msg[256];
	session_delayacct(t->sess, !t->s.pstat.delayacct, msg, sizeof msg);
	tui_say(t, msg);
}

static void undo(struct tui *t)
{
	char msg[256];
	/* A change that finished since the last tick goes into the log first,
	 * or u right after it would not find it. */
	tui_poll_changes(t);
	session_undo(t->sess, msg, sizeof msg);
	session_refresh_pending(t->sess, &t->s);
	tui_say(t, msg);
}

/* The theme: --no-color or NO_COLOR give mono; a theme that does not
 * load is said on the status line and the default is used instead. */
static void theme_use(struct tui *t, const char *name)
{
	char err[512];
	struct theme th;
	if (theme_load(name, &th, err, sizeof err) < 0) {
		char msg[600];
		util_fmt(msg, sizeof msg, "%s; using the default theme", err);
		tui_say(t, msg);
		if (strcmp(name, "default") == 0 || theme_load("default", &th, err, sizeof err) < 0)
			theme_defaults(&th); /* attributes only */
	}
	t->theme = th;
	theme_apply(&t->theme, t->th);
}

void tui_theme_start(struct tui *t)
{
	const char *nc = getenv("NO_COLOR");
	if (t->o->no_color || (nc && *nc)) {
		theme_defaults(&t->theme);
		util_strlcpy(t->theme.name, "mono", sizeof t->theme.name);
		t->theme.mono = 1;
		theme_apply(&t->theme, t->th);
		return;
	}
	theme_use(t, t->o->theme ? t->o->theme : "default");
}

/* W: the settings worth keeping, into the configuration file. Nothing
 * is written without this key. */
static void save_settings(struct tui *t)
{
	if (!t->o->config_path) {
		tui_say(t, "no configuration file (--no-config, or no home directory): nothing saved");
		return;
	}
	char delay[32], rate[32], sort[32], err[512], msg[600];
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
		util_fmt(msg, sizeof msg, "not saved: %s", err);
	else
		util_fmt(msg, sizeof msg, "saved theme %s, delay %s, sort %s, probe pace %s to %s", values[0], delay, sort,
			 rate, t->o->config_path);
	tui_say(t, msg);
}

/* T: the next built-in theme. */
static void theme_cycle(struct tui *t)
{
	int i = 0;
	while (i < THEME_NBUILTIN && strcmp(theme_builtin[i], t->theme.name) != 0)
		i++;
	const char *next = theme_builtin[i < THEME_NBUILTIN ? (i + 1) % THEME_NBUILTIN : 0];
	theme_use(t, next);
	if (strcmp(t->theme.name, next) == 0) {
		char msg[96];
		util_fmt(msg, sizeof msg, "theme %s (T: next)", next);
		tui_say(t, msg);
	}
	clearok(curscr, TRUE);
}

/* Keys that change the system do nothing in a replay. */
static void replay_key(struct tui *t, enum key_action a)
{
	char msg[96];
	if (!session_replaying(t->sess)) {
		tui_say(t, "Space . + - work in a replay (--replay FILE)");
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
	util_fmt(msg, sizeof msg, "replay %s, x%g", t->replay_end ? "at its end" : t->paused ? "paused" : "playing",
		 t->speed);
	tui_say(t, msg);
}

/* Home, End, PgUp, PgDn move in the focused list only: the process pane
 * when it has the focus (the next ] must not hit a disk moved to behind
 * the user's back), else the disks. */
static void move_focused(struct tui *t, int by)
{
	if (t->focus_procs)
		procpane_step(&t->pp, &t->s, by);
	else
		tui_select_index(t, tui_selected_index(t) + by);
}

/* A page: the rows the focused list shows, less one for context. */
static int page_rows(const struct tui *t)
{
	struct tui_layout L;
	tui_main_layout(t, &L);
	int rows = t->focus_procs ? L.pane_h - 2 : L.table_rows;
	return rows > 1 ? rows - 1 : 1;
}

void tui_act(struct tui *t, enum key_action a)
{
	if (session_replaying(t->sess) && keys_needs_live(a)) {
		tui_say(t, "this is a replay of a recording: keys that switch or tune are off");
		return;
	}
	if (t->o->read_only && keys_changes_system(a)) {
		tui_say(t, "read-only mode (--read-only): keys that change the system are off");
		return;
	}
	switch (a) {
	case KEY_ACT_PAUSE:
	case KEY_ACT_STEP:
	case KEY_ACT_FASTER:
	case KEY_ACT_SLOWER: replay_key(t, a); break;
	case KEY_ACT_THEME: theme_cycle(t); break;
	case KEY_ACT_SAVE: save_settings(t); break;
	case KEY_ACT_BIG: toggle(t, &t->big, "presentation mode (B: back)", "normal view"); break;
	case KEY_ACT_QUIT: t->quit = 1; break;
	case KEY_ACT_UP: tui_step_cursor(t, -1); break;
	case KEY_ACT_DOWN: tui_step_cursor(t, 1); break;
	case KEY_ACT_TOP: move_focused(t, INT_MIN / 2); break;
	case KEY_ACT_BOTTOM: move_focused(t, INT_MAX / 2); break;
	case KEY_ACT_SHOW_HIDDEN:
		tui_say(t, session_toggle_hidden(t->sess) ? "every disk shown (from the next refresh)"
							 : "snap loops, zram and stacked disks hidden again (from the next refresh)");
		break;
	case KEY_ACT_PAGE_UP: move_focused(t, -page_rows(t)); break;
	case KEY_ACT_PAGE_DOWN: move_focused(t, page_rows(t)); break;
	case KEY_ACT_HELP: t->help = 1; break;
	case KEY_ACT_REDRAW: clearok(curscr, TRUE); break;
	case KEY_ACT_RATE: cycle_rate(t); break;
	case KEY_ACT_PICKER: panel_picker_open(t); break;
	case KEY_ACT_NEXT_SCHED: panel_picker_next(t, 1); break;
	case KEY_ACT_PREV_SCHED: panel_picker_next(t, -1); break;
	case KEY_ACT_UNDO: undo(t); break;
	case KEY_ACT_TUNABLES: panel_tunables_open(t); break;
	case KEY_ACT_LOG: t->mode = KM_LOG; break;
	case KEY_ACT_UDEV: panel_udev_open(t); break;
	case KEY_ACT_PICK_NONE: panel_picker_pick(t, "none"); break;
	case KEY_ACT_PICK_MQ: panel_picker_pick(t, "mq-deadline"); break;
	case KEY_ACT_PICK_KYBER: panel_picker_pick(t, "kyber"); break;
	case KEY_ACT_PICK_BFQ: panel_picker_pick(t, "bfq"); break;
	case KEY_ACT_ENTER: tui_enter(t); break;
	case KEY_ACT_CLOSE: t->mode = KM_MAIN; break;
	case KEY_ACT_WRITE:
		if (tui_panel_of(t->mode) && tui_panel_of(t->mode)->write)
			tui_panel_of(t->mode)->write(t);
		break;
	case KEY_ACT_FOCUS: toggle(t, &t->focus_procs, "selection: process pane", "selection: disks"); break;
	case KEY_ACT_SORT_LEFT: sort_step(t, -1); break;
	case KEY_ACT_SORT_RIGHT: sort_step(t, 1); break;
	case KEY_ACT_REVERSE: toggle(t, &t->pp.reverse, "sort reversed", "sort: largest first"); break;
	case KEY_ACT_ONLY_ACTIVE: toggle(t, &t->pp.only_active, "only processes with I/O", "all processes"); break;
	case KEY_ACT_ACCUMULATED: toggle(t, &t->pp.accumulated, "totals since start", "rates per second"); break;
	case KEY_ACT_THREADS:
		tui_say(t, session_toggle_threads(t->sess) ? "per-thread rows (from the next refresh)"
							   : "per-process rows (from the next refresh)");
		break;
	case KEY_ACT_FILTER: t->filtering = 1; break;
	case KEY_ACT_CMDLINE: toggle(t, &t->pp.cmdline, "full command lines", "command names"); break;
	case KEY_ACT_IOPRIO: panel_ioprio_open(t); break;
	case KEY_ACT_DELAYACCT: toggle_delayacct(t); break;
	case KEY_ACT_AB: ab_open(t); break;
	case KEY_ACT_CANCEL:
		if (session_ab_status(t->sess))
			tui_ab_finish(t, 1);
		break;
	case KEY_ACT_LOAD: load_toggle(t); break;
	case KEY_ACT_STARTUP: startup_begin(t); break;
	case KEY_ACT_FRESH: tui_fresh_begin(t); break;
	case KEY_ACT_REPORT:
		if (t->report.text)
			t->mode = KM_REPORT;
		else
			tui_say(t, "no A/B report yet: A runs one");
		break;
	}
	procpane_arrange(&t->pp, &t->s);
}

/* Typing the / filter: printable characters, Backspace, Enter keeps, Esc clears. */
void tui_filter_key(struct tui *t, int ch)
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
	procpane_arrange(&t->pp, &t->s);
}
