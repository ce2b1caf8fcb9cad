/* keys: see include/keys.h */
#include "keys.h"

#include <curses.h>

#define CTRL(c) ((c) & 0x1f)

static const struct key_binding table[] = {
	{{'q', 'Q'}, "q", KEY_ACT_QUIT, "quit"},
	{{KEY_UP, 'k'}, "Up, k", KEY_ACT_UP, "select the previous disk"},
	{{KEY_DOWN, 'j'}, "Down, j", KEY_ACT_DOWN, "select the next disk"},
	{{KEY_HOME, 'g'}, "Home, g", KEY_ACT_TOP, "select the first disk"},
	{{KEY_END, 'G'}, "End, G", KEY_ACT_BOTTOM, "select the last disk"},
	{{'h', '?', KEY_F(1)}, "h, ?, F1", KEY_ACT_HELP, "show this help (any key returns)"},
	{{'R'}, "R", KEY_ACT_RATE, "cycle the probe's pace: 20 Hz, 100 Hz, max (back-to-back)"},
	{{CTRL('l')}, "Ctrl-L", KEY_ACT_REDRAW, "redraw the screen"},
};

#define NKEYS (sizeof table / sizeof table[0])

const struct key_binding *keys_table(size_t *n)
{
	*n = NKEYS;
	return table;
}

const struct key_binding *keys_lookup(int ch)
{
	if (ch == 0)
		return NULL;
	for (size_t i = 0; i < NKEYS; i++)
		for (int k = 0; k < KEYS_MAX_CODES; k++)
			if (table[i].codes[k] == ch)
				return &table[i];
	return NULL;
}
