/* tuiview: what the full screen's files share: struct tui, the panels'
 * state and their ops. Who calls whom, from the bottom: screen.c (the
 * helpers every panel draws and asks with) and listbox.c; the panels
 * (panel_*.c, one each; panel_main.c the main screen); tui_keys.c (what
 * the keys do, through the panels' ops); tui.c (the loop). Nothing calls
 * up that order. Private to src/view: nothing outside the full screen
 * includes it. */
#ifndef IOSCHED_TUIVIEW_H
#define IOSCHED_TUIVIEW_H

#include <stddef.h>

#include "keys.h"
#include "listbox.h"
#include "procpane.h"
#include "unitpane.h"
#include "model/sample.h"
#include "screen.h"
#include "session.h"
#include "theme.h"

#define MAX_TUNABLES 64
#define MESSAGE_S 8.0 /* how long the status line shows a message */
#define ESC 27

/* The scheduler picker (s). */
struct picker_state {
	struct listbox list;
};

/* The tunables panel (t): the list, its cursor, and a value being typed. */
struct tunables_state {
	struct tunable tun[MAX_TUNABLES];
	struct listbox list;       /* list.n: how many in tun */
	int editing;
	char edit[TUNE_VALUE_MAX];
	char err[256];             /* the last error, shown in place */
};

/* The I/O priority picker (i): for this process. */
struct ioprio_state {
	struct listbox list;
	int rt_asked;              /* the real-time choice Enter was pressed on once (its index), or -1 */
	int pid;
	unsigned long long start;  /* its start time as its row had it (0: not known): the pid may be
				    * another's by Enter */
	char comm[64];
};

/* The last A/B report, as text (V), and its scroll position. */
struct report_state {
	char *text;
	struct listbox list;       /* its lines as shown: prose wrapped, tables whole */
	int xoff;                  /* the tables scrolled this many columns (Left/Right) */
};

/* The event log (l): scrolled, its newest line in view while at its end. */
struct log_state {
	struct listbox list;
};

/* The details panel (Enter): this process, or pid 0 for the selected
 * disk; or the unit at path unit (not ""). */
struct detail_state {
	int pid;
	char comm[64];
	char unit[CGROUP_PATH_MAX];
};

/* The units pane (U) in the process pane's place; w's prompt for a
 * unit's new bfq weight (on the status line, while typed). */
struct units_state {
	int shown;
	struct unitpane_state pane;
	int prompt;                     /* typing a weight */
	char path[CGROUP_PATH_MAX];     /* ... for the unit at path */
	char name[64];                  /* its name, made safe */
	int now;                        /* its weight when w was pressed */
	char edit[TUNE_VALUE_MAX];
};

struct tui {
	const struct options *o;
	struct session *sess;           /* the tick's path: control -> sampler -> outputs */
	/* --replay */
	double speed;                   /* factor on the recorded intervals */
	int paused, replay_end, step;
	int big;                        /* presentation mode (--big, B) */
	int no_chart;                   /* C: the chart hidden, its rows to the process pane */
	struct listbox help_list;       /* the help's lines, scrolled */
	struct theme theme;
	unsigned long th[TH_COUNT];     /* attributes per element of the theme in use */
	struct sample s;
	char selected[DISK_NAME_MAX];   /* kept by name: disks come and go */
	enum key_mode mode;             /* which panel has the keys */
	int help;
	int quit;
	int utf8;
	char msg[256];                  /* status bar message ... */
	char fatal[320];                /* why the run ended on its own, said after endwin */
	double msg_until;               /* ... shown until this mono time (MESSAGE_S after it came) */
	char notice[600];               /* a refusal kept in a box over the screen until a key ("": none) */
	double ctl_seen;                /* the control result last announced */
	/* the panels' own state (one file each: src/view/panel_*.c) */
	struct picker_state picker;
	struct tunables_state tunables;
	struct session_udev udev;
	struct ioprio_state ioprio;
	struct report_state report;
	struct detail_state detail;
	struct log_state log;
	struct procpane_state pp;       /* process pane */
	struct units_state units;       /* the units pane (U), in the process pane's place */
	int focus_procs;                /* Up/Down move in the process pane */
	int filtering;                  /* typing the / filter */
	int ab_prompt;                  /* A/B: typing the variants */
	char ab_input[128];
	double startup_s;               /* the last one's time; < 0 none */
	double next_fresh;              /* --fresh-every: mono time of the next fresh reader */
};

/* One panel: what it draws over the main screen and what its keys do. A
 * NULL entry: the panel has no such thing. An entry that acts fills the
 * reply (screen.h): what the loop must do next, what the status line says. */
struct panel_ops {
	void (*draw)(const struct tui *t);
	/* The panel's list (its count brought up to date), which Up, Down,
	 * PgUp, PgDn, Home, End, the wheel and a click move; and where its
	 * rows are: how many are shown, the first at screen line *y. */
	struct listbox *(*list)(struct tui *t);
	int (*rows)(const struct tui *t, int *y);
	void (*enter)(struct tui *t, struct reply *r);          /* Enter */
	void (*write)(struct tui *t, struct reply *r);          /* w */
	int (*type)(struct tui *t, int ch, struct reply *r);    /* a text field being typed takes the key: 1 */
};

extern const struct panel_ops panel_picker, panel_tunables, panel_log, panel_udev, panel_ioprio, panel_report,
	panel_detail;

/* Opening a panel from the main screen (its key), and the picker's
 * switches that main-screen keys make too (n m k b, ] [). */
void panel_picker_open(struct tui *t, struct reply *r);
void panel_picker_pick(struct tui *t, const char *name, struct reply *r);
void panel_picker_next(struct tui *t, int dir, struct reply *r);
void panel_tunables_open(struct tui *t);
void panel_tunables_reload(struct tui *t);
void panel_udev_open(struct tui *t, struct reply *r);
void panel_ioprio_open(struct tui *t, struct reply *r);
void panel_detail_open(struct tui *t, struct reply *r);
void panel_log_open(struct tui *t);
void panel_report_open(struct tui *t, char *text);
void panel_report_side(struct tui *t, int dir);

/* Where the main screen puts things: drawing and mouse clicks use the
 * same arithmetic. header 3 lines, table header + rows, blank, probe 2
 * lines, chart, process pane, detail 2 lines, status 1. */
struct tui_layout {
	int table_y, table_rows;   /* header row at table_y, disks below */
	int first_disk;            /* index of the disk on the first row */
	int y, room, detail_y;
	int pane_y, pane_h;        /* 0 height: no pane */
};

/* panel_main.c: the main screen. */
void tui_main_layout(const struct tui *t, struct tui_layout *L);
void tui_draw_main(const struct tui *t);
void tui_draw_big(const struct tui *t);

/* panel_help.c: the help screen, and how many lines it has at this width. */
void tui_draw_help(const struct tui *t);
int panel_help_length(const struct tui *t);

/* tui_keys.c: what the keys do; each fills the reply. The panel that has
 * the keys in mode m (NULL: the main screen). */
const struct panel_ops *tui_panel_of(enum key_mode m);
void tui_act(struct tui *t, enum key_action a, struct reply *r);
void tui_filter_key(struct tui *t, int ch, struct reply *r);
void tui_ab_key(struct tui *t, int ch, struct reply *r);
void tui_ab_finish(struct tui *t, int cancelled);
void tui_startup_poll(struct tui *t, struct reply *r);
void tui_fresh_begin(struct tui *t, struct reply *r);
void tui_theme_start(struct tui *t, struct reply *r);
/* tui_units.c: the units pane's keys. U (shows it, or the process pane
 * again), and, while it is shown, the moves, sort and Enter of the pane
 * (1: the key was the pane's), w (a unit's bfq weight: asks for the new
 * one, each key typed into it), a click. */
void tui_units_toggle(struct tui *t, struct reply *r);
int tui_units_act(struct tui *t, enum key_action a, int rows, struct reply *r);
void tui_units_weight(struct tui *t, struct reply *r);
void tui_units_weight_key(struct tui *t, int ch, struct reply *r);
void tui_units_click(struct tui *t, int x, int row, int rows, struct reply *r);
/* A click or the wheel in the panel that has the keys. */
void tui_panel_mouse(struct tui *t, int y, int wheel, struct reply *r);

#endif
