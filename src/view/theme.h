/* theme: the colours and attributes of the full screen, from theme files
 * (themes/NAME.theme). A theme gives each screen element a foreground, a
 * background and attributes:
 *     # comment
 *     element = fg bg [attr,attr...]
 * fg and bg: default, a colour name (black red green yellow blue magenta
 * cyan white, bright-NAME), a number 0-255, or #rrggbb. attrs: bold dim
 * underline reverse standout, or none. A terminal with fewer colours gets
 * the nearest it has (8-colour terminals: the eight basic ones). */
#ifndef IOSCHED_THEME_H
#define IOSCHED_THEME_H

#include <stddef.h>

enum theme_el {
	TH_NORMAL,       /* the background of the whole screen */
	TH_TITLE,        /* the header line and titles */
	TH_TABLE_HEAD,   /* column headers of the disk table and the process pane */
	TH_SELECTED,     /* the selected row */
	TH_STATUS,       /* the status line's messages */
	TH_BADGE,        /* LOAD and other running-now badges */
	TH_WARNING,      /* notes on odd combinations, failures */
	TH_CHART_P50,
	TH_CHART_HIGH,   /* p99 (or max) dots */
	TH_CHART_MARKER, /* scheduler-switch markers */
	TH_CHART_AXIS,
	TH_COUNT
};

#define THEME_ATTR_BOLD 1u
#define THEME_ATTR_DIM 2u
#define THEME_ATTR_UNDERLINE 4u
#define THEME_ATTR_REVERSE 8u
#define THEME_ATTR_STANDOUT 16u

/* A colour: -1 the terminal's default, 0-255 a palette index, or an RGB
 * value (rgb >= 0) mapped to the palette when applied. */
struct theme_colour {
	int index;
	long rgb;
};

struct theme_style {
	struct theme_colour fg, bg;
	unsigned attrs;
	int set;                  /* given in the file */
};

struct theme {
	char name[64];
	struct theme_style el[TH_COUNT];
	int mono;                 /* no colours at all (NO_COLOR, --no-color, the mono theme) */
};

/* The themes T cycles through, in order. */
extern const char *const theme_builtin[];
#define THEME_NBUILTIN 6

/* Element names as theme files spell them ("table_head"). */
const char *theme_el_name(enum theme_el e);

/* Parse theme text. file names it in messages. Returns 0, or -1 with
 * "FILE:LINE: what is wrong" in err. Elements not given keep the
 * defaults theme_defaults set. */
int theme_parse(const char *text, const char *file, struct theme *out, char *err, size_t len);

/* The built-in defaults: attributes only (what mono uses). */
void theme_defaults(struct theme *t);

/* Find NAME (or a PATH with a '/') and load it: NAME.theme next to the
 * program (themes/ of the source tree), then in ../share/iosched-top/themes
 * from the program, then in THEMEDIR. Returns 0, or -1 with the reason
 * in err. */
int theme_load(const char *name, struct theme *out, char *err, size_t len);

/* The palette index nearest to an RGB value among the first ncolours
 * (8, 16 or 256) of the xterm palette. */
int theme_nearest(long rgb, int ncolours);

/* Set up curses colour pairs for t (after initscr/newterm) and put each
 * element's attributes (pair and attrs) into attrs[TH_COUNT]. A mono theme,
 * or a terminal without colours, gets attributes only. */
void theme_apply(const struct theme *t, unsigned long attrs[TH_COUNT]);

#endif
