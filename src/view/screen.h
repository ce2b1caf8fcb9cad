/* screen: what every part of the full screen draws with and asks through
 * — text cut or wrapped to a width and made safe, a titled box, the status
 * line, the selected disk, a change asked of the session — and the reply
 * a key's action gives back. The panels (panel_*.c) and the key handlers
 * (tui_keys.c) depend on this module; it depends on none of them, and
 * tui.c (the loop) depends on all of them: no file of the full screen
 * calls back into one that calls it. */
#ifndef IOSCHED_SCREEN_H
#define IOSCHED_SCREEN_H

#include <stddef.h>

#include "keys.h"
#include "model/sample.h"
#include "model/settings.h"

struct tui;

/* What an action changed, for the loop to act on (after htop's
 * reactions): an action changes its own state and says what else must
 * follow; the loop does it, and sets the status line, in one place
 * (tui.c). */
enum reaction {
	REACT_REDRAW = 1,          /* the screen drawn again */
	REACT_ARRANGE = 2,         /* the process pane sorted and filtered again */
	REACT_PENDING = 4,         /* a change was queued: the sample's pending fields brought up to date */
	REACT_REPAINT = 8,         /* the terminal repainted whole (a new theme, Ctrl-L) */
	REACT_QUIT = 16,
	REACT_HOLD = 32,           /* the message is kept on screen, whole, until a key (a refusal) */
};

/* An action's reply: its reactions and what the status line says ("" for
 * nothing). */
struct reply {
	unsigned react;
	char msg[600];
};

/* Put text on the status line of the reply (and redraw). */
void screen_reply(struct reply *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A key typed into a one-line text field of the status line (the A/B's
 * variants, a unit's weight): a printable character that ok takes (NULL:
 * any) is added while there is room, Backspace takes the last one off. */
enum field_key { FIELD_TYPED, FIELD_ENTER, FIELD_ESC };
enum field_key screen_field_key(char *buf, size_t len, int ch, int (*ok)(int ch));

/* The status line's text, shown until it is replaced or goes stale. Only
 * the loop (tui.c) sets it, from replies and from what a tick brought. */
void screen_say(struct tui *t, const char *text);

/* Text at (y, x), made safe (control characters as ^X) and cut with a
 * mark at the right edge of the screen, or after w columns. */
void screen_put(int y, int x, const char *text);
void screen_put_within(int y, int x, const char *text, int w);

/* text in lines of at most w columns from (y, x), broken at spaces, at
 * most max lines. Returns the lines used. */
int screen_put_wrapped(int y, int x, int w, const char *text, int max);
/* How many rows screen_put_wrapped would take. */
int screen_wrapped_rows(int w, const char *text, int max);

/* A bordered box with a title, its inside cleared. */
void screen_box(int y, int x, int h, int w, const char *title);

/* The selected disk (kept by name: disks come and go): its index in the
 * sample, or -1 when there are none; select by index (clamped). */
int screen_selected_index(const struct tui *t);
const struct disk_sample *screen_selected_disk(const struct tui *t);
void screen_select(struct tui *t, int i);

/* Queue a change of the selected disk's setting; the reply says what
 * happens. */
void screen_request(struct tui *t, enum tune_kind kind, const char *key, const char *value, struct reply *r);

/* Why key action a cannot run here (a replay, read-only mode, the A/B
 * without root), for the help and the footer; NULL when it can. */
const char *screen_key_off(const struct tui *t, enum key_action a);

/* A probe pace as shown: "20 Hz", "max (back-to-back)". */
void screen_rate_text(double hz, char *b, size_t n);

#endif
