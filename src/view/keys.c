/* keys: see src/view/keys.h */
#include "keys.h"

#include <curses.h>
#include <stdio.h>

#define CTRL(c) ((c) & 0x1f)
#define ESC 27

static const struct key_binding table[] = {
	{KM_MAIN, {'q', 'Q', KEY_F(10)}, "q, F10", KEY_ACT_QUIT, "quit", 0},
	{KM_MAIN, {KEY_UP, 'k'}, "Up, k", KEY_ACT_UP, "select the previous disk (or process, with the process pane focused)", 0},
	{KM_MAIN, {KEY_DOWN, 'j'}, "Down, j", KEY_ACT_DOWN, "select the next disk (or process)", 0},
	{KM_MAIN, {KEY_HOME, 'g'}, "Home, g", KEY_ACT_TOP, "select the first disk (or process, with the process pane focused)", 0},
	{KM_MAIN, {KEY_END, 'G'}, "End, G", KEY_ACT_BOTTOM, "select the last disk (or process)", 0},
	{KM_MAIN, {KEY_PPAGE}, "PgUp", KEY_ACT_PAGE_UP, "a page up the focused list (disks, or the process pane)", 0},
	{KM_MAIN, {KEY_NPAGE}, "PgDn", KEY_ACT_PAGE_DOWN, "a page down the focused list", 0},
	{KM_MAIN, {'\n', '\r', KEY_ENTER}, "Enter", KEY_ACT_ENTER,
	 "details of the selected process (its block I/O per disk) or disk (queue, figures, who waits longest); "
	 "on a unit: its processes and details", 0},
	{KM_MAIN, {'x'}, "x", KEY_ACT_SHOW_HIDDEN,
	 "show the disks hidden by default (snap and read-only loop devices, zram, dm, md); again to hide them", KEYS_LIVE},
	{KM_MAIN, {'\t'}, "Tab", KEY_ACT_FOCUS, "move the selection between the disks and the process pane", 0},
	{KM_MAIN, {'U'}, "U", KEY_ACT_UNITS,
	 "units pane (cgroups: services, scopes, containers) in the process pane's place; again: every process", 0},
	{KM_MAIN, {'w'}, "w", KEY_ACT_WEIGHT, "units pane: change the selected unit's bfq weight (io.bfq.weight), or say why it has none",
	 KEYS_CHANGES},
	{KM_MAIN, {'<', KEY_LEFT}, "<, Left", KEY_ACT_SORT_LEFT, "sort the process pane by the column to the left (as iotop)", 0},
	{KM_MAIN, {'>', KEY_RIGHT, KEY_F(6)}, ">, Right, F6", KEY_ACT_SORT_RIGHT, "sort the process pane by the column to the right", 0},
	{KM_MAIN, {'r'}, "r", KEY_ACT_REVERSE, "reverse the sort", 0},
	{KM_MAIN, {'o'}, "o", KEY_ACT_ONLY_ACTIVE, "only processes with I/O in the interval (again: all)", 0},
	{KM_MAIN, {'a'}, "a", KEY_ACT_ACCUMULATED, "totals since start instead of rates (again: rates)", 0},
	{KM_MAIN, {'p'}, "p", KEY_ACT_THREADS, "per-thread rows (again: per process)", KEYS_LIVE},
	{KM_MAIN, {'/', KEY_F(3)}, "/, F3", KEY_ACT_FILTER, "filter processes by command name (Enter keeps, Esc clears)", 0},
	{KM_MAIN, {'c'}, "c", KEY_ACT_CMDLINE, "full command lines (again: names)", 0},
	{KM_MAIN, {'i'}, "i", KEY_ACT_IOPRIO, "change the selected process's I/O priority, like ionice", KEYS_CHANGES},
	{KM_MAIN, {'D'}, "D", KEY_ACT_DELAYACCT, "turn delay accounting (per-process I/O wait) on or off", KEYS_CHANGES},
	{KM_MAIN, {'A'}, "A", KEY_ACT_AB, "A/B: compare schedulers on the selected disk (asks which; live: on your own load)", KEYS_CHANGES},
	{KM_MAIN, {ESC}, "Esc", KEY_ACT_CANCEL, "stop a running A/B (its settings are put back)", 0},
	{KM_MAIN, {'L'}, "L", KEY_ACT_LOAD, "start or stop the built-in load (--load, default write) on the selected disk", KEYS_CHANGES},
	{KM_MAIN, {'S'}, "S", KEY_ACT_STARTUP, "time one cold start of the --startup command", KEYS_CHANGES},
	{KM_MAIN, {'F'}, "F", KEY_ACT_FRESH,
	 "start a fresh reader on the selected disk: a new process doing --fresh-reads reads; its time is marked on the chart", KEYS_LIVE},
	{KM_MAIN, {'V'}, "V", KEY_ACT_REPORT, "show the last A/B report again", 0},
	{KM_MAIN, {'s'}, "s", KEY_ACT_PICKER, "pick a scheduler for the selected disk", KEYS_CHANGES},
	{KM_MAIN, {']'}, "]", KEY_ACT_NEXT_SCHED, "switch the selected disk to its next scheduler", KEYS_CHANGES},
	{KM_MAIN, {'['}, "[", KEY_ACT_PREV_SCHED, "switch the selected disk to its previous scheduler", KEYS_CHANGES},
	{KM_MAIN, {'u'}, "u", KEY_ACT_UNDO, "undo the last change (scheduler or tunable, any disk); again to go further back", KEYS_CHANGES},
	{KM_MAIN, {'t'}, "t", KEY_ACT_TUNABLES, "tunables of the selected disk: queue settings and the scheduler's own", KEYS_LIVE},
	{KM_MAIN, {'P'}, "P", KEY_ACT_UDEV, "the udev rule that keeps the selected disk's scheduler across reboots", KEYS_CHANGES},
	{KM_MAIN, {'l'}, "l", KEY_ACT_LOG, "the event log: every change, when, how long, ok or why not", 0},
	{KM_MAIN, {'O'}, "O", KEY_ACT_PROBE,
	 "probe the selected disk too (one not probed by default: a loop device, a virtual disk); again: stop that probe", KEYS_LIVE},
	{KM_MAIN, {'C'}, "C", KEY_ACT_CHART, "hide the latency chart (the process pane takes its rows); again to show it", 0},
	{KM_MAIN, {'R'}, "R", KEY_ACT_RATE, "cycle the probe's pace: 20 Hz, 100 Hz, max (back-to-back)", KEYS_LIVE},
	{KM_MAIN, {'T'}, "T", KEY_ACT_THEME, "next colour theme: default, light, mono, high-contrast, colorblind, stream", 0},
	{KM_MAIN, {'B'}, "B", KEY_ACT_BIG, "presentation mode: large scheduler and p50/p99, full-width chart (again: back)", 0},
	{KM_MAIN, {'W'}, "W", KEY_ACT_SAVE, "save theme, delay, sort and probe pace to the configuration file", 0},
	{KM_MAIN, {' '}, "Space", KEY_ACT_PAUSE, "replay (--replay): pause, or go on", 0},
	{KM_MAIN, {'.'}, ".", KEY_ACT_STEP, "replay: one tick on (pauses)", 0},
	{KM_MAIN, {'+'}, "+", KEY_ACT_FASTER, "replay: twice as fast", 0},
	{KM_MAIN, {'-'}, "-", KEY_ACT_SLOWER, "replay: half as fast", 0},
	{KM_MAIN, {'h', '?', KEY_F(1)}, "h, ?, F1", KEY_ACT_HELP, "show this help (any key returns)", 0},
	{KM_MAIN, {CTRL('l')}, "Ctrl-L", KEY_ACT_REDRAW, "redraw the screen", 0},

	{KM_PICKER, {'n'}, "n", KEY_ACT_PICK_NONE, "none", KEYS_CHANGES},
	{KM_PICKER, {'m'}, "m", KEY_ACT_PICK_MQ, "mq-deadline", KEYS_CHANGES},
	{KM_PICKER, {'k'}, "k", KEY_ACT_PICK_KYBER, "kyber", KEYS_CHANGES},
	{KM_PICKER, {'b'}, "b", KEY_ACT_PICK_BFQ, "bfq", KEYS_CHANGES},
	{KM_PICKER, {'\n', '\r', KEY_ENTER}, "Enter", KEY_ACT_ENTER, "switch to the scheduler under the cursor", 0},
	{KM_PICKER, {ESC, 'q'}, "Esc", KEY_ACT_CLOSE, "cancel", 0},

	{KM_TUNABLES, {'\n', '\r', KEY_ENTER}, "Enter", KEY_ACT_ENTER,
	 "edit the value (type it, Enter writes it, Esc cancels; it is checked before it is written)", 0},
	{KM_TUNABLES, {'u'}, "u", KEY_ACT_UNDO, "undo the last change", KEYS_CHANGES},
	{KM_TUNABLES, {ESC, 'q', 't'}, "Esc", KEY_ACT_CLOSE, "close", 0},

	{KM_LOG, {ESC, 'q', 'l'}, "Esc", KEY_ACT_CLOSE, "close", 0},

	{KM_UDEV, {'w'}, "w", KEY_ACT_WRITE, "write the rule to the rules file (needs root)", KEYS_CHANGES},
	{KM_UDEV, {ESC, 'q', 'P'}, "Esc", KEY_ACT_CLOSE, "close without writing", 0},

	{KM_IOPRIO, {'\n', '\r', KEY_ENTER}, "Enter", KEY_ACT_ENTER, "set the priority under the cursor (every thread of the process)", 0},
	{KM_IOPRIO, {ESC, 'q', 'i'}, "Esc", KEY_ACT_CLOSE, "cancel", 0},

	{KM_REPORT, {KEY_LEFT, 'h'}, "Left, h", KEY_ACT_LEFT, "scroll the tables left", 0},
	{KM_REPORT, {KEY_RIGHT, 'l'}, "Right, l", KEY_ACT_RIGHT, "scroll the tables right (the lines cut with a mark)", 0},
	{KM_REPORT, {'w'}, "w", KEY_ACT_WRITE, "save the report as Markdown in the current directory", KEYS_CHANGES},
	{KM_REPORT, {ESC, 'q'}, "Esc", KEY_ACT_CLOSE, "close", 0},

	{KM_DETAIL, {ESC, 'q', '\n', KEY_ENTER}, "Esc, Enter", KEY_ACT_CLOSE, "close (the figures update every refresh)", 0},

	{KM_LIST, {KEY_UP, 'k'}, "Up, k", KEY_ACT_UP, "move up a row (k is kyber in the picker)", 0},
	{KM_LIST, {KEY_DOWN, 'j'}, "Down, j", KEY_ACT_DOWN, "move down a row", 0},
	{KM_LIST, {KEY_PPAGE}, "PgUp", KEY_ACT_PAGE_UP, "a page up", 0},
	{KM_LIST, {KEY_NPAGE}, "PgDn", KEY_ACT_PAGE_DOWN, "a page down", 0},
	{KM_LIST, {KEY_HOME, 'g'}, "Home, g", KEY_ACT_TOP, "the first row", 0},
	{KM_LIST, {KEY_END, 'G'}, "End, G", KEY_ACT_BOTTOM, "the last row (the event log then follows new events)", 0},
};

/* The panels shown as a list, which take KM_LIST's keys. */
static int is_list(enum key_mode m)
{
	return m == KM_PICKER || m == KM_TUNABLES || m == KM_LOG || m == KM_IOPRIO || m == KM_REPORT;
}

#define NKEYS (sizeof table / sizeof table[0])

const struct key_binding *keys_table(size_t *n)
{
	*n = NKEYS;
	return table;
}

static const struct key_binding *lookup_in(enum key_mode mode, int ch)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (table[i].mode == mode)
			for (int k = 0; k < KEYS_MAX_CODES; k++)
				if (table[i].codes[k] == ch)
					return &table[i];
	return NULL;
}

const struct key_binding *keys_lookup(enum key_mode mode, int ch)
{
	if (ch == 0)
		return NULL;
	const struct key_binding *b = lookup_in(mode, ch);
	return b || !is_list(mode) ? b : lookup_in(KM_LIST, ch);
}

static int column_of(enum key_action a)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (table[i].action == a)
			return table[i].changes;
	return 0;
}

int keys_changes_system(enum key_action a)
{
	return column_of(a) == KEYS_CHANGES;
}

int keys_needs_live(enum key_action a)
{
	return column_of(a) != 0;
}

const char *keys_mode_name(enum key_mode mode)
{
	static const char *const names[] = {
		[KM_MAIN] = "Main screen",       [KM_PICKER] = "Scheduler picker (s)",
		[KM_TUNABLES] = "Tunables (t)", [KM_LOG] = "Event log (l)",
		[KM_UDEV] = "udev rule (P)",     [KM_IOPRIO] = "I/O priority (i)",
		[KM_REPORT] = "A/B report",      [KM_DETAIL] = "Details (Enter)",
		[KM_LIST] = "Every list (picker, tunables, event log, I/O priority, A/B report)",
	};
	return mode < KM_COUNT ? names[mode] : "?";
}

void keys_name(int ch, char *buf, size_t len)
{
	static const struct {
		int code;
		const char *name;
	} named[] = {
		{KEY_UP, "Up"},	      {KEY_DOWN, "Down"},	  {KEY_LEFT, "Left"},	  {KEY_RIGHT, "Right"},
		{KEY_PPAGE, "PgUp"},  {KEY_NPAGE, "PgDn"},	  {KEY_HOME, "Home"},	  {KEY_END, "End"},
		{KEY_IC, "Insert"},   {KEY_DC, "Delete"},	  {KEY_BACKSPACE, "Backspace"}, {KEY_ENTER, "Enter"},
		{KEY_BTAB, "Shift-Tab"}, {KEY_SLEFT, "Shift-Left"}, {KEY_SRIGHT, "Shift-Right"},
		{KEY_SR, "Shift-Up"}, {KEY_SF, "Shift-Down"},	  {ESC, "Esc"},		  {'\t', "Tab"},
		{'\n', "Enter"},      {'\r', "Enter"},		  {' ', "Space"},	  {127, "Backspace"},
	};
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
		if (named[i].code == ch) {
			snprintf(buf, len, "%s", named[i].name);
			return;
		}
	if (ch >= KEY_F(1) && ch <= KEY_F(63))
		snprintf(buf, len, "F%d", ch - KEY_F0);
	else if (ch > 0 && ch < 32)
		snprintf(buf, len, "Ctrl-%c", ch + '@');
	else if (ch > 32 && ch < 127)
		snprintf(buf, len, "%c", ch);
	else
		snprintf(buf, len, "that key");
}
