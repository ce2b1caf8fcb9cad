/* keys: see include/keys.h */
#include "keys.h"

#include <curses.h>

#define CTRL(c) ((c) & 0x1f)
#define ESC 27

static const struct key_binding table[] = {
	{KM_MAIN, {'q', 'Q'}, "q", KEY_ACT_QUIT, "quit"},
	{KM_MAIN, {KEY_UP, 'k'}, "Up, k", KEY_ACT_UP, "select the previous disk (or process, with the process pane focused)"},
	{KM_MAIN, {KEY_DOWN, 'j'}, "Down, j", KEY_ACT_DOWN, "select the next disk (or process)"},
	{KM_MAIN, {KEY_HOME, 'g'}, "Home, g", KEY_ACT_TOP, "select the first disk"},
	{KM_MAIN, {KEY_END, 'G'}, "End, G", KEY_ACT_BOTTOM, "select the last disk"},
	{KM_MAIN, {'\n', '\r', KEY_ENTER}, "Enter", KEY_ACT_ENTER,
	 "details of the selected process (its block I/O per disk) or disk (queue, figures, who waits longest)"},
	{KM_MAIN, {'\t'}, "Tab", KEY_ACT_FOCUS, "move the selection between the disks and the process pane"},
	{KM_MAIN, {'<'}, "<", KEY_ACT_SORT_LEFT, "sort the process pane by the column to the left"},
	{KM_MAIN, {'>'}, ">", KEY_ACT_SORT_RIGHT, "sort the process pane by the column to the right"},
	{KM_MAIN, {'r'}, "r", KEY_ACT_REVERSE, "reverse the sort"},
	{KM_MAIN, {'o'}, "o", KEY_ACT_ONLY_ACTIVE, "only processes with I/O in the interval (again: all)"},
	{KM_MAIN, {'a'}, "a", KEY_ACT_ACCUMULATED, "totals since start instead of rates (again: rates)"},
	{KM_MAIN, {'p'}, "p", KEY_ACT_THREADS, "per-thread rows (again: per process)"},
	{KM_MAIN, {'/'}, "/", KEY_ACT_FILTER, "filter processes by command name (Enter keeps, Esc clears)"},
	{KM_MAIN, {'c'}, "c", KEY_ACT_CMDLINE, "full command lines (again: names)"},
	{KM_MAIN, {'i'}, "i", KEY_ACT_IOPRIO, "change the selected process's I/O priority, like ionice"},
	{KM_MAIN, {'D'}, "D", KEY_ACT_DELAYACCT, "turn delay accounting (per-process I/O wait) on or off"},
	{KM_MAIN, {'A'}, "A", KEY_ACT_AB, "A/B: compare schedulers on the selected disk (asks which)"},
	{KM_MAIN, {ESC}, "Esc", KEY_ACT_CANCEL, "stop a running A/B (its settings are put back)"},
	{KM_MAIN, {'L'}, "L", KEY_ACT_LOAD, "start or stop the built-in load (--load, default write) on the selected disk"},
	{KM_MAIN, {'S'}, "S", KEY_ACT_STARTUP, "time one cold start of the --startup command"},
	{KM_MAIN, {'F'}, "F", KEY_ACT_FRESH,
	 "start a fresh reader on the selected disk: a new process doing --fresh-reads reads; its time is marked on the chart"},
	{KM_MAIN, {'V'}, "V", KEY_ACT_REPORT, "show the last A/B report again"},
	{KM_MAIN, {'s'}, "s", KEY_ACT_PICKER, "pick a scheduler for the selected disk"},
	{KM_MAIN, {']'}, "]", KEY_ACT_NEXT_SCHED, "switch the selected disk to its next scheduler"},
	{KM_MAIN, {'['}, "[", KEY_ACT_PREV_SCHED, "switch the selected disk to its previous scheduler"},
	{KM_MAIN, {'u'}, "u", KEY_ACT_UNDO, "undo the last change (scheduler or tunable, any disk); again to go further back"},
	{KM_MAIN, {'t'}, "t", KEY_ACT_TUNABLES, "tunables of the selected disk: queue settings and the scheduler's own"},
	{KM_MAIN, {'P'}, "P", KEY_ACT_UDEV, "the udev rule that keeps the selected disk's scheduler across reboots"},
	{KM_MAIN, {'l'}, "l", KEY_ACT_LOG, "the event log: every change, when, how long, ok or why not"},
	{KM_MAIN, {'R'}, "R", KEY_ACT_RATE, "cycle the probe's pace: 20 Hz, 100 Hz, max (back-to-back)"},
	{KM_MAIN, {'T'}, "T", KEY_ACT_THEME, "next colour theme: default, light, mono, high-contrast, colorblind, stream"},
	{KM_MAIN, {'B'}, "B", KEY_ACT_BIG, "presentation mode: large scheduler and p50/p99, full-width chart (again: back)"},
	{KM_MAIN, {'W'}, "W", KEY_ACT_SAVE, "save theme, delay, sort and probe pace to the configuration file"},
	{KM_MAIN, {' '}, "Space", KEY_ACT_PAUSE, "replay (--replay): pause, or go on"},
	{KM_MAIN, {'.'}, ".", KEY_ACT_STEP, "replay: one tick on (pauses)"},
	{KM_MAIN, {'+'}, "+", KEY_ACT_FASTER, "replay: twice as fast"},
	{KM_MAIN, {'-'}, "-", KEY_ACT_SLOWER, "replay: half as fast"},
	{KM_MAIN, {'h', '?', KEY_F(1)}, "h, ?, F1", KEY_ACT_HELP, "show this help (any key returns)"},
	{KM_MAIN, {CTRL('l')}, "Ctrl-L", KEY_ACT_REDRAW, "redraw the screen"},

	{KM_PICKER, {'n'}, "n", KEY_ACT_PICK_NONE, "none"},
	{KM_PICKER, {'m'}, "m", KEY_ACT_PICK_MQ, "mq-deadline"},
	{KM_PICKER, {'k'}, "k", KEY_ACT_PICK_KYBER, "kyber"},
	{KM_PICKER, {'b'}, "b", KEY_ACT_PICK_BFQ, "bfq"},
	{KM_PICKER, {KEY_UP}, "Up", KEY_ACT_UP, "move up"},
	{KM_PICKER, {KEY_DOWN}, "Down", KEY_ACT_DOWN, "move down"},
	{KM_PICKER, {'\n', '\r', KEY_ENTER}, "Enter", KEY_ACT_ENTER, "switch to the scheduler under the cursor"},
	{KM_PICKER, {ESC, 'q'}, "Esc", KEY_ACT_CLOSE, "cancel"},

	{KM_TUNABLES, {KEY_UP, 'k'}, "Up", KEY_ACT_UP, "move up"},
	{KM_TUNABLES, {KEY_DOWN, 'j'}, "Down", KEY_ACT_DOWN, "move down"},
	{KM_TUNABLES, {'\n', '\r', KEY_ENTER}, "Enter", KEY_ACT_ENTER,
	 "edit the value (type it, Enter writes it, Esc cancels; it is checked before it is written)"},
	{KM_TUNABLES, {'u'}, "u", KEY_ACT_UNDO, "undo the last change"},
	{KM_TUNABLES, {ESC, 'q', 't'}, "Esc", KEY_ACT_CLOSE, "close"},

	{KM_LOG, {ESC, 'q', 'l'}, "Esc", KEY_ACT_CLOSE, "close"},

	{KM_UDEV, {'w'}, "w", KEY_ACT_WRITE, "write the rule to the rules file (needs root)"},
	{KM_UDEV, {ESC, 'q', 'P'}, "Esc", KEY_ACT_CLOSE, "close without writing"},

	{KM_IOPRIO, {KEY_UP, 'k'}, "Up", KEY_ACT_UP, "move up"},
	{KM_IOPRIO, {KEY_DOWN, 'j'}, "Down", KEY_ACT_DOWN, "move down"},
	{KM_IOPRIO, {'\n', '\r', KEY_ENTER}, "Enter", KEY_ACT_ENTER, "set the priority under the cursor (every thread of the process)"},
	{KM_IOPRIO, {ESC, 'q', 'i'}, "Esc", KEY_ACT_CLOSE, "cancel"},

	{KM_REPORT, {KEY_UP, 'k'}, "Up", KEY_ACT_UP, "scroll up"},
	{KM_REPORT, {KEY_DOWN, 'j'}, "Down", KEY_ACT_DOWN, "scroll down"},
	{KM_REPORT, {'w'}, "w", KEY_ACT_WRITE, "save the report as Markdown in the current directory"},
	{KM_REPORT, {ESC, 'q'}, "Esc", KEY_ACT_CLOSE, "close"},

	{KM_DETAIL, {ESC, 'q', '\n', KEY_ENTER}, "Esc, Enter", KEY_ACT_CLOSE, "close (the figures update every refresh)"},
};

#define NKEYS (sizeof table / sizeof table[0])

const struct key_binding *keys_table(size_t *n)
{
	*n = NKEYS;
	return table;
}

const struct key_binding *keys_lookup(enum key_mode mode, int ch)
{
	if (ch == 0)
		return NULL;
	for (size_t i = 0; i < NKEYS; i++)
		if (table[i].mode == mode)
			for (int k = 0; k < KEYS_MAX_CODES; k++)
				if (table[i].codes[k] == ch)
					return &table[i];
	return NULL;
}

const char *keys_mode_name(enum key_mode mode)
{
	static const char *const names[] = {
		[KM_MAIN] = "Main screen",       [KM_PICKER] = "Scheduler picker (s)",
		[KM_TUNABLES] = "Tunables (t)", [KM_LOG] = "Event log (l)",
		[KM_UDEV] = "udev rule (P)",     [KM_IOPRIO] = "I/O priority (i)",
		[KM_REPORT] = "A/B report",      [KM_DETAIL] = "Details (Enter)",
	};
	return mode < KM_COUNT ? names[mode] : "?";
}
