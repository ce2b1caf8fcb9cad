/* tui: see include/tui.h */
#include "tui.h"

#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <langinfo.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "abreport.h"
#include "bigtext.h"
#include "chart.h"
#include "columns.h"
#include "detail.h"
#include "keys.h"
#include "probefile.h"
#include "tuiview.h"
#include "util.h"

/* Below this nothing useful fits. */
#define MIN_COLS 20
#define MIN_LINES 5
/* How long a message stays in the status bar. */
#define MESSAGE_S 8.0




int tui_selected_index(const struct tui *t)
{
	for (size_t i = 0; i < t->s.ndisks; i++)
		if (strcmp(t->s.disks[i].info.name, t->selected) == 0)
			return (int)i;
	return t->s.ndisks ? 0 : -1;
}

void tui_select_index(struct tui *t, int i)
{
	if (t->s.ndisks == 0)
		return;
	if (i < 0)
		i = 0;
	if ((size_t)i >= t->s.ndisks)
		i = (int)t->s.ndisks - 1;
	util_strlcpy(t->selected, t->s.disks[i].info.name, sizeof t->selected);
}

void tui_say(struct tui *t, const char *text)
{
	util_strlcpy(t->msg, text, sizeof t->msg);
	t->msg_until = util_mono_now() + MESSAGE_S;
}


/* A bordered box with a title, its inside cleared. */
void tui_panel_box(int y, int x, int h, int w, const char *title)
{
	for (int r = 0; r < h; r++)
		mvhline(y + r, x, ' ', w);
	attron(A_BOLD);
	mvhline(y, x, ACS_HLINE, w);
	mvhline(y + h - 1, x, ACS_HLINE, w);
	mvvline(y, x, ACS_VLINE, h);
	mvvline(y, x + w - 1, ACS_VLINE, h);
	mvaddch(y, x, ACS_ULCORNER);
	mvaddch(y, x + w - 1, ACS_URCORNER);
	mvaddch(y + h - 1, x, ACS_LLCORNER);
	mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
	tui_put_within(y, x + 2, title, w - 4);
	attroff(A_BOLD);
}

/* text in lines of at most w columns from (y, x), at most max lines; returns lines used. */
int tui_put_wrapped(int y, int x, int w, const char *raw, int max)
{
	char safe[2048];
	util_safe_text(safe, sizeof safe, raw);
	const char *text = safe;
	int used = 0;
	while (*text && used < max && w > 0) {
		int n = (int)strlen(text);
		if (n > w) {
			n = w;
			while (n > w / 2 && text[n] != ' ')
				n--;
			if (text[n] != ' ')
				n = w;
		}
		mvaddnstr(y + used, x, text, n);
		text += n;
		while (*text == ' ')
			text++;
		used++;
	}
	return used;
}

const struct disk_sample *tui_selected_disk(const struct tui *t)
{
	int i = tui_selected_index(t);
	return i < 0 ? NULL : &t->s.disks[i];
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

static void draw_panel(const struct tui *t)
{
	const struct panel_ops *p = tui_panel_of(t->mode);
	if (p && p->draw)
		p->draw(t);
}


static void draw(const struct tui *t)
{
	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES)
		tui_put(0, 0, "terminal too small");
	else if (t->help)
		tui_draw_help(t);
	else if (t->big) {
		tui_draw_big(t);
		draw_panel(t);
	} else {
		tui_draw_main(t);
		draw_panel(t);
	}
	refresh();
}

void tui_request(struct tui *t, enum tune_kind kind, const char *key, const char *value)
{
	const struct disk_sample *d = tui_selected_disk(t);
	if (!d)
		return;
	char msg[256];
	session_set(t->sess, d->info.name, kind, key, value, msg, sizeof msg);
	session_refresh_pending(t->sess, &t->s);
	tui_say(t, msg);
}

void tui_step_cursor(struct tui *t, int dir)
{
	const struct panel_ops *p = tui_panel_of(t->mode);
	if (p && p->step)
		p->step(t, dir);
	else if (t->mode == KM_MAIN && t->focus_procs)
		procpane_step(&t->pp, &t->s, dir);
	else if (t->mode == KM_MAIN)
		tui_select_index(t, tui_selected_index(t) + dir);
}

void tui_enter(struct tui *t)
{
	const struct panel_ops *p = tui_panel_of(t->mode);
	if (t->mode == KM_MAIN)
		panel_detail_open(t);
	else if (p && p->enter)
		p->enter(t);
}

void tui_poll_changes(struct tui *t);

/* A click on a disk row selects it; on the process pane's header, sorts
 * by that column; on a process, selects it; the wheel scrolls the pane. */
static void handle_mouse(struct tui *t)
{
	MEVENT ev;
	if (getmouse(&ev) != OK || t->mode != KM_MAIN || t->help || t->big)
		return;
	struct tui_layout L;
	tui_main_layout(t, &L);
	int in_pane = L.pane_h && ev.y >= L.pane_y && ev.y < L.pane_y + L.pane_h;
	if (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		if (in_pane) {
			t->focus_procs = 1;
			procpane_step(&t->pp, &t->s, ev.bstate & BUTTON4_PRESSED ? -3 : 3);
		}
		return;
	}
	if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_RELEASED)))
		return;
	if (ev.y > L.table_y && ev.y <= L.table_y + L.table_rows) {
		int i = L.first_disk + ev.y - L.table_y - 1;
		if (i < (int)t->s.ndisks) {
			t->focus_procs = 0;
			tui_select_index(t, i);
		}
	} else if (in_pane && ev.y == L.pane_y + 1) {
		int c = procpane_column_at(&t->s, COLS, ev.x);
		if (c >= 0) {
			t->pp.reverse = t->pp.sort == (enum pcol)c ? !t->pp.reverse : 0;
			t->pp.sort = (enum pcol)c;
			char msg[64];
			util_fmt(msg, sizeof msg, "processes sorted by %s%s", proccols_header(t->pp.sort, t->pp.accumulated),
				 t->pp.reverse ? " (reversed)" : "");
			tui_say(t, msg);
			procpane_arrange(&t->pp, &t->s);
		}
	} else if (in_pane && ev.y >= L.pane_y + 2) {
		t->focus_procs = 1;
		procpane_select_row(&t->pp, &t->s, L.pane_h, ev.y - L.pane_y - 2);
	}
}

static void handle_key(struct tui *t, int ch)
{
	if (ch == KEY_MOUSE) {
		handle_mouse(t);
		return;
	}
	if (ch == KEY_RESIZE)
		return; /* curses has updated LINES/COLS; the redraw follows */
	if (t->help) {
		/* Scroll keys move the help; any other key closes it. */
		int step = ch == KEY_DOWN || ch == 'j' ? 1 : ch == KEY_UP || ch == 'k' ? -1 : ch == KEY_NPAGE || ch == ' ' ? LINES - 2 :
			   ch == KEY_PPAGE ? -(LINES - 2) : 0;
		if (step)
			t->help_top = t->help_top + step < 0 ? 0 : t->help_top + step;
		else
			t->help = t->help_top = 0;
		return;
	}
	if (t->filtering) {
		tui_filter_key(t, ch);
		return;
	}
	if (t->ab_prompt) {
		tui_ab_key(t, ch);
		return;
	}
	const struct panel_ops *p = tui_panel_of(t->mode);
	if (p && p->type && p->type(t, ch))
		return;
	const struct key_binding *k = keys_lookup(t->mode, ch);
	if (k) {
		tui_act(t, k->action);
		return;
	}
	/* A key that does nothing here says so: a user of top or htop tries
	 * theirs, and silence reads as "it did something". */
	const char *name = keyname(ch);
	char msg[96], fkey[8];
	if (ch >= KEY_F(1) && ch <= KEY_F(63)) {
		util_fmt(fkey, sizeof fkey, "F%d", ch - KEY_F0);
		name = fkey;
	}
	util_fmt(msg, sizeof msg, "%s does nothing here; h lists the keys", name ? name : "that key");
	tui_say(t, msg);
}

/* Probe, disk and cleanup events of the last tick (a probe that could not
 * start or ended, a disk that came or went, a killed run's scratch files
 * removed) go to the status bar; changes are announced as they finish. */
static void announce(struct tui *t)
{
	for (size_t i = 0; i < t->s.nevents; i++) {
		const struct event *e = &t->s.events[i];
		char msg[300], what[260];
		int says = e->type == EV_PROBE || e->type == EV_CLEANUP || (!e->ok && e->type == EV_FRESH);
		if (!says && e->type != EV_DISK && e->type != EV_FRESH)
			continue;
		event_describe(e, what, sizeof what);
		util_fmt(msg, sizeof msg, "%s: %s", e->disk, says ? e->error : what);
		tui_say(t, msg);
	}
}

/* From <term.h>, which cannot be included here: it defines capability
 * names such as "lines" as macros. */
extern char *tigetstr(const char *capname);

/* The disk selected at start: the one holding the root filesystem (the
 * disk a user's machine is slow on), else the first (real disks come
 * first). A loop device selected by default once had ] switch a snap's. */
static void select_start(struct tui *t)
{
	char root[64];
	tui_select_index(t, 0);
	if (session_replaying(t->sess) || probefile_disk_of_path("/", root, sizeof root) < 0)
		return;
	for (size_t i = 0; i < t->s.ndisks; i++)
		if (!strcmp(t->s.disks[i].info.name, root))
			tui_select_index(t, (int)i);
}

/* newterm, not initscr: initscr exits the process on a terminal it does
 * not know, before probes, loads and settings could be put away. */
static int screen_start(struct tui *t)
{
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		return -ENOTTY;
	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr)
		return -EMEDIUMTYPE; /* an error no collector returns: "unknown TERM" */
	/* A terminal that cannot place the cursor (TERM=dumb) would show a
	 * blank screen: say so instead. */
	const char *cup = tigetstr("cup");
	if (!cup || cup == (const char *)-1) {
		endwin();
		delscreen(scr);
		return -ENOTSUP;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	/* Esc sequences arrive whole from a local terminal; do not wait 1 s. */
	set_escdelay(25);
	/* Esc must reach the panels as a key of its own. */
	tui_theme_start(t);
	if (!t->o->no_mouse) {
		mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
		mouseinterval(0); /* a press is a click: no wait for the release */
	}
	t->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	return 0;
}

static int collect(struct tui *t)
{
	int rc = session_collect(t->sess, &t->s);
	if (rc == -ENODATA) { /* the recording ended: stay on its last tick */
		t->replay_end = t->paused = 1;
		tui_say(t, session_replay_msg(t->sess)[0] ? session_replay_msg(t->sess) : "end of the recording (q quits)");
		return 0;
	}
	if (rc == 0) {
		announce(t);
		procpane_arrange(&t->pp, &t->s);
		/* A recording or metrics file that can no longer be written
		 * ends the run as in batch mode: a status line would scroll
		 * away while the data silently stopped. */
		if (session_write_outputs(t->sess, &t->s) < 0) {
			util_fmt(t->fatal, sizeof t->fatal, "%s; stopped", t->sess->err);
			t->quit = 1;
		}
	}
	return rc;
}

/* When the next sample is due: a replay follows the recorded intervals. */
static double next_due(const struct tui *t, double now)
{
	if (!session_replaying(t->sess))
		return now + t->o->delay_s;
	return now + (t->s.interval_s > 0 ? t->s.interval_s : 1.0) / t->speed;
}

/* Finished changes: into the sample's events, and the newest to the status line. */
void tui_poll_changes(struct tui *t)
{
	if (session_poll(t->sess) == 0)
		return;
	const char *result = session_change_result(t->sess, &t->ctl_seen);
	if (result)
		tui_say(t, result);
	if (t->mode == KM_TUNABLES)
		panel_tunables_reload(t);
}

/* Whether the terminal is gone: its input hung up or in error (poll says
 * so without reading a key). A SIGHUP does not always come: started
 * through su, the tool may not be in the terminal's foreground group. */
static int terminal_gone(void)
{
	struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/* How long getch may wait: until the next refresh, less while a change
 * is in the kernel (its time ticks on the screen) or an A/B run or a
 * cold start needs its steps taken. */
static int key_wait_ms(const struct tui *t, double next)
{
	double wait = next - util_mono_now();
	if (session_changing(t->sess) && wait > 0.1)
		wait = 0.1;
	if ((session_ab_status(t->sess) || session_coldstart_busy(t->sess)) && wait > 0.05)
		wait = 0.05;
	return wait > 0 ? (int)(wait * 1000.0) + 1 : 0;
}

/* A key, if one came. 0 to go on; -1 when the terminal is gone: a closed
 * terminal gives ERR at once, for ever, and the loop would spin instead
 * of ending with its clean-up. */
static int take_key(struct tui *t)
{
	int ch = getch();
	if (ch != ERR) {
		handle_key(t, ch);
		return 0;
	}
	if (!terminal_gone())
		return 0;
	util_strlcpy(t->fatal, "the terminal went away: ended with the usual clean-up", sizeof t->fatal);
	return -1;
}

/* What goes on between refreshes: changes in the kernel, a cold start,
 * the fresh reader's turn, the A/B run's next step. */
static void run_background(struct tui *t)
{
	tui_poll_changes(t);
	session_refresh_pending(t->sess, &t->s);
	tui_startup_poll(t);
	if (t->o->fresh_every_s > 0 && !session_replaying(t->sess) && util_mono_now() >= t->next_fresh) {
		t->next_fresh = util_mono_now() + t->o->fresh_every_s;
		tui_fresh_begin(t);
	}
	if (session_ab_status(t->sess)) {
		char err[512];
		int step = session_ab_step(t->sess, err, sizeof err);
		if (step < 0)
			tui_say(t, err);
		if (step != 0)
			tui_ab_finish(t, 0);
	}
}

/* A refresh when it is due (or a replay's single step): a new sample, and
 * when the next is due, into *next. A collection's error, else 0. */
static int refresh_if_due(struct tui *t, double *next, long *ticks)
{
	double now = util_mono_now();
	if (t->paused && !t->step) {
		*next = now + 0.1; /* a replay held still */
		return 0;
	}
	if (now < *next && !t->step)
		return 0;
	t->step = 0;
	int rc = collect(t);
	if (rc < 0)
		return rc;
	if (session_replaying(t->sess)) {
		*next = next_due(t, now);
	} else {
		*next += t->o->delay_s;
		if (*next < now)
			*next = now + t->o->delay_s; /* fell behind: do not burst */
	}
	if (t->o->iterations && ++*ticks >= t->o->iterations)
		t->quit = 1;
	return 0;
}

static void tui_free(struct tui *t)
{
	free(t->report.text);
	sample_free(&t->s);
	procpane_free(&t->pp);
	free(t);
}

/* The screen's state from the options; the first collection lists the
 * disks at once (it has no rates yet). NULL with *rc set on failure. */
static struct tui *tui_new(const struct options *o, struct session *sess, int *rc)
{
	/* ~200 KB with the charts: on the heap. */
	struct tui *t = calloc(1, sizeof *t);
	if (!t) {
		*rc = -ENOMEM;
		return NULL;
	}
	t->o = o;
	t->sess = sess;
	t->speed = o->replay_speed > 0 ? o->replay_speed : 1;
	procpane_init(&t->pp);
	if (o->sort)
		t->pp.sort = (enum pcol)proccols_from_name(o->sort);
	t->big = o->big;
	t->startup_s = -1;
	t->next_fresh = util_mono_now() + t->o->fresh_every_s;
	if ((*rc = collect(t)) < 0) {
		procpane_free(&t->pp);
		free(t);
		return NULL;
	}
	select_start(t);
	return t;
}

int tui_run(const struct options *o, struct session *sess, volatile sig_atomic_t *stop)
{
	int rc;
	struct tui *t = tui_new(o, sess, &rc);
	if (!t)
		return rc;
	if ((rc = screen_start(t)) < 0) {
		tui_free(t);
		return rc;
	}
	double next = next_due(t, util_mono_now());
	long ticks = 0;
	draw(t);
	while (!t->quit && !*stop) {
		timeout(key_wait_ms(t, next));
		if (take_key(t) < 0)
			break;
		run_background(t);
		if ((rc = refresh_if_due(t, &next, &ticks)) < 0)
			break;
		draw(t);
	}
	endwin();
	if (session_ab_status(t->sess))
		tui_ab_finish(t, 1); /* its undos are queued: control_finish waits for them */
	session_end(t->sess);
	if (t->fatal[0]) {
		util_complain("%s\n", t->fatal);
		if (rc == 0)
			rc = 1;
	}
	tui_free(t);
	return rc;
}
