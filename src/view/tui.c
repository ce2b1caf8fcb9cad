/* tui: see include/view/tui.h */
#include "view/tui.h"

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

#include "out/abreport.h"
#include "bigtext.h"
#include "chart.h"
#include "model/columns.h"
#include "out/detail.h"
#include "keys.h"
#include "probe/probefile.h"
#include "tuiview.h"
#include "base/util.h"

/* Below this nothing useful fits. */
#define MIN_COLS 20
#define MIN_LINES 5

static void draw_panel(const struct tui *t)
{
	const struct panel_ops *p = tui_panel_of(t->mode);
	if (p && p->draw)
		p->draw(t);
}


/* A refusal, whole and wrapped in a box over the screen: a status line
 * cuts it at the screen's width and lets it go stale. */
static void draw_notice(const struct tui *t)
{
	int w = COLS - 4 < 100 ? COLS - 4 : 100, x = (COLS - w) / 2;
	if (!t->notice[0] || w < 20)
		return;
	/* the lines it needs: drawn once off the bottom to count them */
	int inner = w - 4, n = screen_put_wrapped(LINES, 0, inner, t->notice, LINES);
	int h = n + 4 < LINES ? n + 4 : LINES, y = (LINES - h) / 2;
	attron((attr_t)t->th[TH_WARNING]);
	screen_box(y, x, h, w, " refused (any key closes this) ");
	screen_put_wrapped(y + 2, x + 2, inner, t->notice, h - 4 > 0 ? h - 4 : 1);
	attroff((attr_t)t->th[TH_WARNING]);
}

static void draw(const struct tui *t)
{
	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES)
		screen_put(0, 0, "terminal too small");
	else if (t->help)
		tui_draw_help(t);
	else if (t->big) {
		tui_draw_big(t);
		draw_panel(t);
	} else {
		tui_draw_main(t);
		draw_panel(t);
	}
	draw_notice(t);
	refresh();
}

/* Draw, once the process rows about to be shown have their command lines:
 * a task's is read the first time it is shown (or does I/O), so c shows
 * them at once while the idle tasks nobody looks at cost nothing. The big
 * screen shows only rows with I/O, which have theirs. */
static void show(struct tui *t)
{
	if (!t->help && !t->big) {
		struct tui_layout L;
		tui_main_layout(t, &L);
		size_t n = 0;
		const size_t *rows = L.pane_h && !t->units.shown ? procpane_visible(&t->pp, &t->s, L.pane_h - 2, &n) : NULL;
		if (n)
			session_name_rows(t->sess, &t->s, rows, n);
	}
	draw(t);
}

/* The main screen's mouse: a click on a disk row selects it; on the
 * process pane's header, sorts by that column; on a process, selects it;
 * the wheel scrolls the pane. */
static void mouse_main(struct tui *t, const MEVENT *ev, struct reply *r)
{
	struct tui_layout L;
	tui_main_layout(t, &L);
	int in_pane = L.pane_h && ev->y >= L.pane_y && ev->y < L.pane_y + L.pane_h;
	r->react |= REACT_REDRAW;
	if (ev->bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		if (in_pane) {
			t->focus_procs = 1;
			procpane_step(&t->pp, &t->s, ev->bstate & BUTTON4_PRESSED ? -3 : 3, L.pane_h - 2);
		}
		return;
	}
	if (ev->y > L.table_y && ev->y <= L.table_y + L.table_rows) {
		int i = L.first_disk + ev->y - L.table_y - 1;
		if (i < (int)t->s.ndisks) {
			t->focus_procs = 0;
			screen_select(t, i);
		}
	} else if (in_pane && t->units.shown && ev->y >= L.pane_y + 1) {
		tui_units_click(t, ev->x, ev->y - L.pane_y - 2, L.pane_h - 2, r);
	} else if (in_pane && ev->y == L.pane_y + 1) {
		int c = procpane_column_at(&t->s, COLS, ev->x);
		if (c >= 0) {
			t->pp.reverse = t->pp.sort == (enum pcol)c ? !t->pp.reverse : 0;
			t->pp.sort = (enum pcol)c;
			screen_reply(r, "processes sorted by %s%s", proccols_header(t->pp.sort, t->pp.accumulated),
				     t->pp.reverse ? " (reversed)" : "");
			r->react |= REACT_ARRANGE;
		}
	} else if (in_pane && ev->y >= L.pane_y + 2) {
		t->focus_procs = 1;
		procpane_select_row(&t->pp, &t->s, L.pane_h - 2, ev->y - L.pane_y - 2);
	}
}

/* A click or the wheel: on the main screen, or in the panel open (its list). */
static void handle_mouse(struct tui *t, struct reply *r)
{
	MEVENT ev;
	if (getmouse(&ev) != OK || t->help || t->big)
		return;
	int wheel = ev.bstate & BUTTON4_PRESSED ? -1 : ev.bstate & BUTTON5_PRESSED ? 1 : 0;
	if (!wheel && !(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_RELEASED)))
		return;
	if (t->mode == KM_MAIN)
		mouse_main(t, &ev, r);
	else
		tui_panel_mouse(t, ev.y, wheel, r);
}

/* The help screen: the list keys scroll it; any other key closes it. */
static void help_key(struct tui *t, int ch, struct reply *r)
{
	int rows = LINES - 1;
	int by = ch == KEY_DOWN || ch == 'j' ? 1 : ch == KEY_UP || ch == 'k' ? -1 :
		 ch == KEY_NPAGE || ch == ' ' ? listbox_page(rows) : ch == KEY_PPAGE ? -listbox_page(rows) :
		 ch == KEY_HOME || ch == 'g' ? LISTBOX_HOME : ch == KEY_END || ch == 'G' ? LISTBOX_END : 0;
	r->react |= REACT_REDRAW;
	if (!by) {
		t->help = 0;
		return;
	}
	listbox_count(&t->help_list, panel_help_length(t));
	listbox_move(&t->help_list, by, rows);
}

/* A key nothing is bound to here says so: a user of top or htop tries
 * theirs, and silence reads as "it did something". */
static void unbound_key(int ch, struct reply *r)
{
	char name[32];
	keys_name(ch, name, sizeof name);
	screen_reply(r, "%s does nothing here; h lists the keys", name);
}

/* Who takes the key: the mouse, the help, a field being typed, the open
 * panel's text field, then the key table. */
static void handle_key(struct tui *t, int ch, struct reply *r)
{
	const struct panel_ops *p = tui_panel_of(t->mode);
	const struct key_binding *k;
	if (ch == KEY_MOUSE)
		handle_mouse(t, r);
	else if (ch == KEY_RESIZE)
		r->react |= REACT_REDRAW; /* curses has updated LINES/COLS */
	else if (t->notice[0]) { /* the key closes the refusal, and does nothing else */
		t->notice[0] = '\0';
		r->react |= REACT_REDRAW;
	} else if (t->help)
		help_key(t, ch, r);
	else if (t->filtering)
		tui_filter_key(t, ch, r);
	else if (t->ab_prompt)
		tui_ab_key(t, ch, r);
	else if (t->units.prompt)
		tui_units_weight_key(t, ch, r);
	else if (p && p->type && p->type(t, ch, r))
		;
	else if ((k = keys_lookup(t->mode, ch)))
		tui_act(t, k->action, r);
	else
		unbound_key(ch, r);
}

/* What a reply asks for, done in one place: the status line among it. */
static void react(struct tui *t, const struct reply *r)
{
	if (r->react & REACT_PENDING)
		session_refresh_pending(t->sess, &t->s);
	if (r->react & REACT_ARRANGE) {
		if (t->pp.filter[0]) /* it matches command lines too: every row needs its own */
			session_name_rows(t->sess, &t->s, NULL, 0);
		procpane_arrange(&t->pp, &t->s);
		unitpane_arrange(&t->units.pane, &t->s);
	}
	if (r->react & REACT_REPAINT)
		clearok(curscr, TRUE);
	if (r->react & REACT_QUIT)
		t->quit = 1;
	if (r->msg[0])
		screen_say(t, r->msg);
	/* too wide for the status line: whole in the event log, which the
	 * line then points to (panel_main.c) */
	if (r->msg[0] && (int)strlen(r->msg) > COLS)
		session_note(t->sess, r->msg);
	if ((r->react & REACT_HOLD) && r->msg[0])
		util_strlcpy(t->notice, r->msg, sizeof t->notice);
}

/* Probe, disk and cleanup events of the last tick (a probe that could not
 * start or ended, a disk that came or went, a killed run's scratch files
 * removed) go to the status bar; changes are announced as they finish. */
static void announce(const struct tui *t, struct reply *r)
{
	/* a message not 3 s old (a key's answer, a change's result) is not
	 * replaced by what happened on its own (a disk, a probe, a cleanup:
	 * in the event log anyway); a fresh reader's result answers F */
	int recent = t->msg[0] && util_mono_now() < t->msg_until - MESSAGE_S + 3.0;
	for (size_t i = 0; i < t->s.nevents; i++) {
		const struct event *e = &t->s.events[i];
		char what[260];
		int says = e->type == EV_PROBE || e->type == EV_CLEANUP || (!e->ok && e->type == EV_FRESH);
		if ((!says && e->type != EV_DISK && e->type != EV_FRESH) || (recent && e->type != EV_FRESH))
			continue;
		event_describe(e, what, sizeof what);
		screen_reply(r, "%s: %s", e->disk, says ? e->error : what);
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
	screen_select(t, 0);
	if (session_replaying(t->sess) || probefile_disk_of_path("/", root, sizeof root) < 0)
		return;
	for (size_t i = 0; i < t->s.ndisks; i++)
		if (!strcmp(t->s.disks[i].info.name, root))
			screen_select(t, (int)i);
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
	struct reply r = {0};
	tui_theme_start(t, &r);
	react(t, &r);
	if (!t->o->no_mouse) {
		mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
		mouseinterval(0); /* a press is a click: no wait for the release */
	}
	t->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	return 0;
}

static int collect(struct tui *t, struct reply *r)
{
	int rc = session_collect(t->sess, &t->s);
	if (rc == -ENODATA) { /* the recording ended: stay on its last tick */
		t->replay_end = t->paused = 1;
		screen_reply(r, "%s", session_replay_msg(t->sess)[0] ? session_replay_msg(t->sess) : "end of the recording (q quits)");
		return 0;
	}
	if (rc == 0) {
		announce(t, r);
		r->react |= REACT_ARRANGE;
		/* A recording or metrics file that can no longer be written
		 * ends the run as in batch mode: a status line would scroll
		 * away while the data silently stopped. */
		if (session_write_outputs(t->sess, &t->s) < 0) {
			util_fmt(t->fatal, sizeof t->fatal, "%s; stopped", session_error(t->sess));
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
static void poll_changes(struct tui *t, struct reply *r)
{
	if (session_poll(t->sess) == 0)
		return;
	const char *result = session_change_result(t->sess, &t->ctl_seen);
	if (result)
		screen_reply(r, "%s", result);
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

/* A key, if one came: 1, or 0 when none did; -1 when the terminal is gone: a closed
 * terminal gives ERR at once, for ever, and the loop would spin instead
 * of ending with its clean-up. */
static int take_key(struct tui *t, struct reply *r)
{
	int ch = getch();
	if (ch != ERR) {
		handle_key(t, ch, r);
		return 1;
	}
	if (!terminal_gone())
		return 0;
	util_strlcpy(t->fatal, "the terminal went away: ended with the usual clean-up", sizeof t->fatal);
	return -1;
}

/* What goes on between refreshes: changes in the kernel, a cold start,
 * the fresh reader's turn, the A/B run's next step. */
static void run_background(struct tui *t, struct reply *r)
{
	poll_changes(t, r);
	r->react |= REACT_PENDING;
	tui_startup_poll(t, r);
	if (t->o->fresh_every_s > 0 && !session_replaying(t->sess) && util_mono_now() >= t->next_fresh) {
		t->next_fresh = util_mono_now() + t->o->fresh_every_s;
		tui_fresh_begin(t, r);
	}
	if (session_ab_status(t->sess)) {
		char err[512];
		int step = session_ab_step(t->sess, err, sizeof err);
		if (step < 0)
			screen_reply(r, "%s", err);
		if (step != 0)
			tui_ab_finish(t, 0);
	}
}

/* A refresh when it is due (or a replay's single step): a new sample, and
 * when the next is due, into *next. A collection's error, else 0. */
static int refresh_if_due(struct tui *t, double *next, long *ticks, struct reply *r)
{
	double now = util_mono_now();
	if (t->paused && !t->step) {
		*next = now + 0.1; /* a replay held still */
		return 0;
	}
	if (now < *next && !t->step)
		return 0;
	t->step = 0;
	r->react |= REACT_REDRAW;
	int rc = collect(t, r);
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
	unitpane_init(&t->units.pane);
	if (o->sort)
		t->pp.sort = (enum pcol)proccols_from_name(o->sort);
	t->big = o->big;
	t->startup_s = -1;
	t->next_fresh = util_mono_now() + t->o->fresh_every_s;
	struct reply r = {0};
	if ((*rc = collect(t, &r)) < 0) {
		procpane_free(&t->pp);
		free(t);
		return NULL;
	}
	react(t, &r);
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
	show(t);
	while (!t->quit && !*stop) {
		struct reply r = {0};
		timeout(key_wait_ms(t, next));
		int key = take_key(t, &r);
		if (key < 0)
			break;
		run_background(t, &r);
		rc = refresh_if_due(t, &next, &ticks, &r);
		react(t, &r);
		if (rc < 0)
			break;
		/* A wake without a key: something is due or ticking (a change's
		 * time, the A/B's status), so the screen is drawn. */
		if (!key || (r.react & REACT_REDRAW) || r.msg[0])
			show(t);
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
