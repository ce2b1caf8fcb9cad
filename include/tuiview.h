/* tuiview: what the full screen's files share (tui.c, the screen, the
 * layout and the loop; panel_*.c, one panel each): struct tui, the
 * panels' state, and the few drawing helpers they all use. Private to
 * src/view: nothing outside the full screen includes it. */
#ifndef IOSCHED_TUIVIEW_H
#define IOSCHED_TUIVIEW_H

#include <stddef.h>

#include "keys.h"
#include "procpane.h"
#include "sample.h"
#include "session.h"
#include "theme.h"

#define MAX_TUNABLES 64
#define ESC 27

/* The scheduler picker (s). */
struct picker_state {
	int cur;
};

/* The tunables panel (t): the list, its cursor, and a value being typed. */
struct tunables_state {
	struct tunable tun[MAX_TUNABLES];
	size_t n;
	int cur;
	int editing;
	char edit[TUNE_VALUE_MAX];
	char err[256];             /* the last error, shown in place */
};

/* The I/O priority picker (i): for this process. */
struct ioprio_state {
	int cur;
	int pid;
	char comm[64];
};

/* The last A/B report, as text (V), and its scroll position. */
struct report_state {
	char *text;
	int top;
};

/* The details panel (Enter): this process, or pid 0 for the selected disk. */
struct detail_state {
	int pid;
	char comm[64];
};

struct tui {
	const struct options *o;
	struct session *sess;           /* the tick's path: control -> sampler -> outputs */
	/* --replay */
	double speed;                   /* factor on the recorded intervals */
	int paused, replay_end, step;
	int big;                        /* presentation mode (--big, B) */
	int help_top;                   /* first line of the help shown */
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
	double msg_until;               /* ... shown until this mono time */
	double ctl_seen;                /* the control result last announced */
	/* the panels' own state (one file each: src/view/panel_*.c) */
	struct picker_state picker;
	struct tunables_state tunables;
	struct session_udev udev;
	struct ioprio_state ioprio;
	struct report_state report;
	struct detail_state detail;
	struct procpane_state pp;       /* process pane */
	int focus_procs;                /* Up/Down move in the process pane */
	int filtering;                  /* typing the / filter */
	int ab_prompt;                  /* A/B: typing the variants */
	char ab_input[128];
	double startup_s;               /* the last one's time; < 0 none */
	double next_fresh;              /* --fresh-every: mono time of the next fresh reader */
};

/* One panel: what it draws over the main screen and what its keys do. A
 * NULL entry: the panel has no such key. */
struct panel_ops {
	void (*draw)(const struct tui *t);
	void (*step)(struct tui *t, int dir);   /* Up, Down */
	void (*enter)(struct tui *t);           /* Enter */
	void (*write)(struct tui *t);           /* w */
	int (*type)(struct tui *t, int ch);     /* a text field being typed takes the key: 1 */
};

extern const struct panel_ops panel_picker, panel_tunables, panel_log, panel_udev, panel_ioprio, panel_report,
	panel_detail;

/* Opening a panel from the main screen (its key), and the picker's
 * switches that main-screen keys make too (n m k b, ] [). */
void panel_picker_open(struct tui *t);
void panel_picker_pick(struct tui *t, const char *name);
void panel_picker_next(struct tui *t, int dir);
void panel_tunables_open(struct tui *t);
void panel_tunables_reload(struct tui *t);
void panel_udev_open(struct tui *t);
void panel_ioprio_open(struct tui *t);
void panel_detail_open(struct tui *t);

/* Where the main screen puts things: drawing and mouse clicks use the
 * same arithmetic. header 3 lines, table header + rows, blank, probe 2
 * lines, chart, process pane, detail 2 lines, status 1. */
struct tui_layout {
	int table_y, table_rows;   /* header row at table_y, disks below */
	int first_disk;            /* index of the disk on the first row */
	int y, room, detail_y;
	int pane_y, pane_h;        /* 0 height: no pane */
};

/* Shared by the full screen's files. tui.c: the screen, the selection,
 * the layout's dispatch and the loop. */
void tui_say(struct tui *t, const char *text);
int tui_selected_index(const struct tui *t);
void tui_select_index(struct tui *t, int i);
const struct panel_ops *tui_panel_of(enum key_mode m);
void tui_step_cursor(struct tui *t, int dir);
void tui_enter(struct tui *t);
/* Take finished changes (their events to the sampler, the status line). */
void tui_poll_changes(struct tui *t);

/* panel_main.c: the main screen. */
void tui_put(int y, int x, const char *text);
/* text at (y, x) in at most w columns: made safe (^X), cut with a mark. */
void tui_put_within(int y, int x, const char *text, int w);
void tui_rate_text(double hz, char *b, size_t n);
void tui_main_layout(const struct tui *t, struct tui_layout *L);
void tui_draw_main(const struct tui *t);
void tui_draw_big(const struct tui *t);

/* panel_help.c */
void tui_draw_help(const struct tui *t);

/* tui_keys.c: what the keys do. */
void tui_act(struct tui *t, enum key_action a);
void tui_filter_key(struct tui *t, int ch);
void tui_ab_key(struct tui *t, int ch);
void tui_ab_finish(struct tui *t, int cancelled);
void tui_startup_poll(struct tui *t);
void tui_fresh_begin(struct tui *t);
void tui_theme_start(struct tui *t);

const struct disk_sample *tui_selected_disk(const struct tui *t);
void tui_panel_box(int y, int x, int h, int w, const char *title);
int tui_put_wrapped(int y, int x, int w, const char *raw, int max);
/* Queue a change of the selected disk and say what happens. */
void tui_request(struct tui *t, enum tune_kind kind, const char *key, const char *value);

#endif
