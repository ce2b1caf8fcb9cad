/* keys: the key table of the full-screen view, per mode (the main screen
 * and each panel). The TUI dispatches from it and the help screen is
 * printed from it, so the two cannot disagree; a unit test holds the man
 * page to it. */
#ifndef IOSCHED_KEYS_H
#define IOSCHED_KEYS_H

#include <stddef.h>

/* KM_LIST: the keys every list-shaped panel shares (picker, tunables,
 * log, I/O priority, report), looked up after the panel's own. */
enum key_mode { KM_MAIN, KM_PICKER, KM_TUNABLES, KM_LOG, KM_UDEV, KM_IOPRIO, KM_REPORT, KM_DETAIL, KM_LIST, KM_COUNT };

enum key_action {
	KEY_ACT_QUIT,
	KEY_ACT_UP,
	KEY_ACT_DOWN,
	KEY_ACT_TOP,
	KEY_ACT_BOTTOM,
	KEY_ACT_PAGE_UP,
	KEY_ACT_PAGE_DOWN,
	KEY_ACT_SHOW_HIDDEN,
	KEY_ACT_HELP,
	KEY_ACT_REDRAW,
	KEY_ACT_RATE,
	KEY_ACT_PICKER,
	KEY_ACT_NEXT_SCHED,
	KEY_ACT_PREV_SCHED,
	KEY_ACT_UNDO,
	KEY_ACT_TUNABLES,
	KEY_ACT_LOG,
	KEY_ACT_UDEV,
	KEY_ACT_PICK_NONE,
	KEY_ACT_PICK_MQ,
	KEY_ACT_PICK_KYBER,
	KEY_ACT_PICK_BFQ,
	KEY_ACT_ENTER,
	KEY_ACT_CLOSE,
	KEY_ACT_WRITE,
	KEY_ACT_FOCUS,
	KEY_ACT_SORT_LEFT,
	KEY_ACT_SORT_RIGHT,
	KEY_ACT_REVERSE,
	KEY_ACT_ONLY_ACTIVE,
	KEY_ACT_ACCUMULATED,
	KEY_ACT_THREADS,
	KEY_ACT_FILTER,
	KEY_ACT_CMDLINE,
	KEY_ACT_IOPRIO,
	KEY_ACT_DELAYACCT,
	KEY_ACT_AB,
	KEY_ACT_CANCEL,
	KEY_ACT_LOAD,
	KEY_ACT_STARTUP,
	KEY_ACT_FRESH,
	KEY_ACT_REPORT,
	KEY_ACT_PAUSE,
	KEY_ACT_STEP,
	KEY_ACT_FASTER,
	KEY_ACT_SLOWER,
	KEY_ACT_THEME,
	KEY_ACT_SAVE,
	KEY_ACT_BIG,
	KEY_ACT_PROBE,
	KEY_ACT_CHART,
	KEY_ACT_LEFT,
	KEY_ACT_RIGHT,
	KEY_ACT_UNITS,
	KEY_ACT_WEIGHT,
};

#define KEYS_MAX_CODES 4

#define KEYS_CHANGES 1            /* changes the system: off in a replay and with --read-only */
#define KEYS_LIVE 2               /* needs the live system (the probe's pace, per-thread rows, a
				   * fresh reader): off in a replay only */

struct key_binding {
	enum key_mode mode;
	int codes[KEYS_MAX_CODES];   /* curses key codes; unused slots are 0 */
	const char *label;           /* how help and the man page name the keys */
	enum key_action action;
	const char *help;
	int changes;                 /* KEYS_CHANGES, KEYS_LIVE or 0 */
};

const struct key_binding *keys_table(size_t *n);

/* The binding for key code ch in mode (a list-shaped panel's own first,
 * then KM_LIST's), or NULL. */
const struct key_binding *keys_lookup(enum key_mode mode, int ch);

/* Whether action a changes the system (a column of the table: every
 * binding of a has the same value). */
int keys_changes_system(enum key_action a);

/* Whether a needs the live system: it changes it, or acts on the probes
 * or the processes as they are read (KEYS_CHANGES or KEYS_LIVE). */
int keys_needs_live(enum key_action a);

/* A key's name as printed on the key: "PgDn", "Right", "F6", "Ctrl-X",
 * "Insert", "x"; never curses' internal names (KEY_NPAGE). */
void keys_name(int ch, char *buf, size_t len);

/* "main screen", "scheduler picker (s)", ... for the help screen. */
const char *keys_mode_name(enum key_mode mode);

#endif
