/* bigtext: text in large letters for the presentation mode — 5 rows
 * high, each glyph 3 or 4 columns and a space, drawn with full blocks
 * (or '#' where the terminal has no UTF-8). Covers digits, '.', '/', '-',
 * ' ', the unit letters and the letters of the schedulers' names; other
 * characters show as a blank cell. */
#ifndef IOSCHED_BIGTEXT_H
#define IOSCHED_BIGTEXT_H

#include <stddef.h>

#define BIGTEXT_ROWS 5

/* The width in columns text takes. */
int bigtext_width(const char *text);

/* Render text into rows (each of len bytes, NUL-terminated); with utf8
 * each cell is "█" (3 bytes), else '#'. Returns the width in columns, or
 * -1 when len is too small. */
int bigtext_render(const char *text, int utf8, char rows[BIGTEXT_ROWS][512], size_t len);

#endif
