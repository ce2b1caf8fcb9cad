/* screen: see src/view/screen.h */
#include "screen.h"

#include <curses.h>
#include <langinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tuiview.h"
#include "base/util.h"

/* How long a message stays in the status bar. */

void screen_reply(struct reply *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof r->msg, fmt, ap);
	va_end(ap);
	r->react |= REACT_REDRAW;
}

void screen_say(struct tui *t, const char *text)
{
	util_strlcpy(t->msg, text, sizeof t->msg);
	t->msg_until = util_mono_now() + MESSAGE_S;
}

static int utf8(void)
{
	return strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}

void screen_put(int y, int x, const char *text)
{
	screen_put_within(y, x, text, COLS - x);
}

void screen_put_within(int y, int x, const char *text, int w)
{
	if (y < 0 || y >= LINES || x >= COLS || w <= 0)
		return;
	/* Names from the system (processes, disk models, a recording's host)
	 * may hold control characters: shown as ^X, never sent raw. */
	char safe[1024];
	util_safe_text(safe, sizeof safe, text);
	/* Cut: never in the middle of a word without a mark that says so. */
	util_cut_mark(safe, w < COLS - x ? w : COLS - x, utf8());
	mvaddstr(y, x, safe);
}

/* screen_put_wrapped, drawn or (draw 0) only counted. */
static int wrap(int y, int x, int w, const char *raw, int max, int draw)
{
	char safe[2048];
	util_safe_text(safe, sizeof safe, raw);
	const char *text = safe;
	int used = 0;
	while (*text && used < max && w > 0) {
		int n = (int)strlen(text);
		if (n > w) {
			n = w;
			while (n > w / 2 && text[n] != ' ')
				n--;
			if (text[n] != ' ')
				n = w;
		}
		if (draw)
			mvaddnstr(y + used, x, text, n);
		text += n;
		while (*text == ' ')
			text++;
		used++;
	}
	return used;
}

int screen_put_wrapped(int y, int x, int w, const char *raw, int max)
{
	return wrap(y, x, w, raw, max, 1);
}

int screen_wrapped_rows(int w, const char *raw, int max)
{
	return wrap(0, 0, w, raw, max, 0);
}

void screen_box(int y, int x, int h, int w, const char *title)
{
	for (int r = 0; r < h; r++)
		mvhline(y + r, x, ' ', w);
	attron(A_BOLD);
	mvhline(y, x, ACS_HLINE, w);
	mvhline(y + h - 1, x, ACS_HLINE, w);
	mvvline(y, x, ACS_VLINE, h);
	mvvline(y, x + w - 1, ACS_VLINE, h);
	mvaddch(y, x, ACS_ULCORNER);
	mvaddch(y, x + w - 1, ACS_URCORNER);
	mvaddch(y + h - 1, x, ACS_LLCORNER);
	mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
	screen_put_within(y, x + 2, title, w - 4);
	attroff(A_BOLD);
}

int screen_selected_index(const struct tui *t)
{
	for (size_t i = 0; i < t->s.ndisks; i++)
		if (strcmp(t->s.disks[i].info.name, t->selected) == 0)
			return (int)i;
	return t->s.ndisks ? 0 : -1;
}

const struct disk_sample *screen_selected_disk(const struct tui *t)
{
	int i = screen_selected_index(t);
	return i < 0 ? NULL : &t->s.disks[i];
}

void screen_select(struct tui *t, int i)
{
	if (t->s.ndisks == 0)
		return;
	if (i < 0)
		i = 0;
	if ((size_t)i >= t->s.ndisks)
		i = (int)t->s.ndisks - 1;
	util_strlcpy(t->selected, t->s.disks[i].info.name, sizeof t->selected);
}

enum field_key screen_field_key(char *buf, size_t len, int ch, int (*ok)(int ch))
{
	size_t n = strlen(buf);
	if (ch == ESC)
		return FIELD_ESC;
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
		return FIELD_ENTER;
	if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n)
		buf[n - 1] = '\0';
	else if (ch >= 32 && ch < 127 && (!ok || ok(ch)) && n + 1 < len) {
		buf[n] = (char)ch;
		buf[n + 1] = '\0';
	}
	return FIELD_TYPED;
}

void screen_request(struct tui *t, enum tune_kind kind, const char *key, const char *value, struct reply *r)
{
	const struct disk_sample *d = screen_selected_disk(t);
	if (!d)
		return;
	session_set(t->sess, d->info.name, kind, key, value, r->msg, sizeof r->msg);
	r->react |= REACT_PENDING | REACT_REDRAW;
}

void screen_rate_text(double hz, char *b, size_t n)
{
	if (hz <= 0)
		util_strlcpy(b, "max (back-to-back)", n);
	else
		snprintf(b, n, "%g Hz", hz);
}

const char *screen_key_off(const struct tui *t, enum key_action a)
{
	if (!t->sess) /* a screen drawn without a run (the panels' unit tests) */
		return NULL;
	if (session_replaying(t->sess) && keys_needs_live(a))
		return "a replay (--replay) changes nothing";
	if (t->o->read_only && keys_changes_system(a))
		return "read-only mode (--read-only)";
	return a == KEY_ACT_AB ? session_ab_off(t->sess) : NULL;
}
