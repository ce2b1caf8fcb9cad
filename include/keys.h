/* keys: the key table of the full-screen view. The TUI dispatches from it
 * and the help screen is printed from it, so the two cannot disagree. */
#ifndef IOSCHED_KEYS_H
#define IOSCHED_KEYS_H

#include <stddef.h>

enum key_action {
	KEY_ACT_QUIT,
	KEY_ACT_UP,
	KEY_ACT_DOWN,
	KEY_ACT_TOP,
	KEY_ACT_BOTTOM,
	KEY_ACT_HELP,
	KEY_ACT_REDRAW,
	KEY_ACT_RATE,
};

#define KEYS_MAX_CODES 4

struct key_binding {
	int codes[KEYS_MAX_CODES];   /* curses key codes; unused slots are 0 */
	const char *label;           /* how help and the man page name the keys */
	enum key_action action;
	const char *help;
};

const struct key_binding *keys_table(size_t *n);

/* The binding for key code ch, or NULL. */
const struct key_binding *keys_lookup(int ch);

#endif
