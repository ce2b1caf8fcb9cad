/* theme: see src/view/theme.h */
#include "theme.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/beneath.h"
#include "base/util.h"

#ifndef THEMEDIR
#define THEMEDIR "/usr/local/share/iosched-top/themes"
#endif

const char *const theme_builtin[THEME_NBUILTIN] = {"default", "light", "mono", "high-contrast", "colorblind", "stream"};

static const char *const el_names[TH_COUNT] = {
	[TH_NORMAL] = "normal",         [TH_TITLE] = "title",           [TH_TABLE_HEAD] = "table_head",
	[TH_SELECTED] = "selected",     [TH_STATUS] = "status",         [TH_BADGE] = "badge",
	[TH_WARNING] = "warning",       [TH_CHART_P50] = "chart_p50",   [TH_CHART_HIGH] = "chart_high",
	[TH_CHART_MARKER] = "chart_marker", [TH_CHART_AXIS] = "chart_axis",
};

const char *theme_el_name(enum theme_el e)
{
	return e < TH_COUNT ? el_names[e] : "?";
}

void theme_defaults(struct theme *t)
{
	memset(t, 0, sizeof *t);
	for (int e = 0; e < TH_COUNT; e++)
		t->el[e].fg = t->el[e].bg = (struct theme_colour){-1, -1};
	t->el[TH_TITLE].attrs = THEME_ATTR_BOLD;
	t->el[TH_TABLE_HEAD].attrs = THEME_ATTR_REVERSE;
	t->el[TH_SELECTED].attrs = THEME_ATTR_REVERSE | THEME_ATTR_BOLD;
	t->el[TH_STATUS].attrs = THEME_ATTR_BOLD;
	t->el[TH_BADGE].attrs = THEME_ATTR_BOLD | THEME_ATTR_REVERSE;
	t->el[TH_WARNING].attrs = THEME_ATTR_BOLD;
	t->el[TH_CHART_MARKER].attrs = THEME_ATTR_BOLD;
}

static const char *const colour_names[8] = {"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"};

static int parse_colour(const char *w, struct theme_colour *c)
{
	c->index = -1;
	c->rgb = -1;
	if (strcmp(w, "default") == 0 || strcmp(w, "-") == 0)
		return 0;
	for (int i = 0; i < 8; i++) {
		if (strcmp(w, colour_names[i]) == 0) {
			c->index = i;
			return 0;
		}
		if (strncmp(w, "bright-", 7) == 0 && strcmp(w + 7, colour_names[i]) == 0) {
			c->index = 8 + i;
			return 0;
		}
	}
	char *end;
	if (w[0] == '#' && strlen(w) == 7) {
		long v = strtol(w + 1, &end, 16);
		if (*end == '\0') {
			c->rgb = v;
			return 0;
		}
		return -1;
	}
	long v = strtol(w, &end, 10);
	if (*w && *end == '\0' && v >= 0 && v <= 255) {
		c->index = (int)v;
		return 0;
	}
	return -1;
}

static int parse_attrs(char *w, unsigned *attrs)
{
	*attrs = 0;
	if (strcmp(w, "none") == 0)
		return 0;
	for (char *save, *a = strtok_r(w, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
		if (strcmp(a, "bold") == 0)
			*attrs |= THEME_ATTR_BOLD;
		else if (strcmp(a, "dim") == 0)
			*attrs |= THEME_ATTR_DIM;
		else if (strcmp(a, "underline") == 0)
			*attrs |= THEME_ATTR_UNDERLINE;
		else if (strcmp(a, "reverse") == 0)
			*attrs |= THEME_ATTR_REVERSE;
		else if (strcmp(a, "standout") == 0)
			*attrs |= THEME_ATTR_STANDOUT;
		else
			return -1;
	}
	return 0;
}

static int element_of(const char *w)
{
	for (int e = 0; e < TH_COUNT; e++)
		if (strcmp(w, el_names[e]) == 0)
			return e;
	return -1;
}

/* One "element = fg bg [attrs]" line (comments and blanks already gone). */
static int parse_line(char *line, struct theme *t, char *what, size_t len)
{
	char *eq = strchr(line, '=');
	if (!eq) {
		util_strlcpy(what, "expected 'element = fg bg [attrs]'", len);
		return -1;
	}
	*eq = '\0';
	char *name = util_trim(line), *save, *words[4];
	int n = 0;
	for (char *w = strtok_r(eq + 1, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (n == 3) {
			util_fmt(what, len, "too many words after '=' (fg bg attrs): '%s'", w);
			return -1;
		}
		words[n++] = w;
	}
	int e = element_of(name);
	if (e < 0) {
		util_fmt(what, len, "unknown element '%s' (see THEMES in iosched-top(1))", name);
		return -1;
	}
	if (n < 2) {
		util_fmt(what, len, "%s: give a foreground and a background colour (default for the terminal's)", name);
		return -1;
	}
	struct theme_style st = {.set = 1};
	if (parse_colour(words[0], &st.fg) < 0 || parse_colour(words[1], &st.bg) < 0) {
		util_fmt(what, len, "%s: '%s' is not a colour (a name, 0-255, #rrggbb or default)", name,
			 parse_colour(words[0], &st.fg) < 0 ? words[0] : words[1]);
		return -1;
	}
	if (n == 3 && parse_attrs(words[2], &st.attrs) < 0) {
		util_fmt(what, len, "%s: unknown attribute in '%s' (bold dim underline reverse standout none)", name, words[2]);
		return -1;
	}
	t->el[e] = st;
	return 0;
}

int theme_parse(const char *text, const char *file, struct theme *out, char *err, size_t len)
{
	theme_defaults(out);
	const char *p = text;
	for (int lineno = 1; *p; lineno++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[512], what[256];
		if (n >= sizeof line) {
			util_fmt(err, len, "%s:%d: line too long", file, lineno);
			return -1;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		/* '#' starts a comment at the start of a line or after a blank,
		 * unless it begins a #rrggbb colour. */
		for (char *h = strchr(line, '#'); h; h = strchr(h + 1, '#')) {
			int colour = strspn(h + 1, "0123456789abcdefABCDEF") == 6 && (h[7] == '\0' || h[7] == ' ' || h[7] == '\t');
			if ((h == line || h[-1] == ' ' || h[-1] == '\t') && !colour) {
				*h = '\0';
				break;
			}
		}
		char *t = util_trim(line);
		if (*t && parse_line(t, out, what, sizeof what) < 0) {
			util_fmt(err, len, "%s:%d: %s", file, lineno, what);
			return -1;
		}
		p = nl ? nl + 1 : p + n;
	}
	return 0;
}

/* Where the program lives: themes are looked for beside it. */
static void exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	char *slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	/* The sanitizer build lives in build/san/: the tree is two up. */
	size_t l = strlen(buf);
	if (l > 10 && strcmp(buf + l - 10, "/build/san") == 0)
		buf[l - 10] = '\0';
	else if (l > 6 && strcmp(buf + l - 6, "/build") == 0)
		buf[l - 6] = '\0';
}

/* Read a theme file (they are small): a regular file, without a NUL byte
 * (which would end it there without a word). Returns 0 or a negative
 * errno (-EINVAL: not a theme file). */
static int read_theme(const char *path, char *buf, size_t len)
{
	/* a regular file only, nothing else opened: -EINVAL for a FIFO or a directory */
	int fd = beneath_open_file(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, NULL);
	long n = fd < 0 ? fd : util_read_fd(fd, buf, len);
	if (fd >= 0)
		close(fd);
	if (n >= 0 && memchr(buf, '\0', (size_t)n))
		return -EINVAL;
	return n < 0 ? (int)n : (size_t)n >= len - 1 ? -EFBIG : 0;
}

int theme_load(const char *name, struct theme *out, char *err, size_t len)
{
	char path[PATH_MAX + 64], dir[PATH_MAX], text[16384];
	int rc = -ENOENT;
	if (strchr(name, '/')) {
		util_strlcpy(path, name, sizeof path);
		rc = read_theme(path, text, sizeof text);
	} else {
		exe_dir(dir, sizeof dir);
		util_fmt(path, sizeof path, "%s/themes/%s.theme", dir, name);
		rc = read_theme(path, text, sizeof text);
		if (rc < 0) {
			util_fmt(path, sizeof path, "%s/../share/iosched-top/themes/%s.theme", dir, name);
			rc = read_theme(path, text, sizeof text);
		}
		if (rc < 0) {
			util_fmt(path, sizeof path, "%s/%s.theme", THEMEDIR, name);
			rc = read_theme(path, text, sizeof text);
		}
	}
	if (rc < 0) {
		util_fmt(err, len, "theme '%s': %s: %s (themes: default light mono high-contrast colorblind stream)", name,
			 path, rc == -EINVAL ? "not a theme file (not a regular file, or holds a NUL byte)" : strerror(-rc));
		return -1;
	}
	if (theme_parse(text, path, out, err, len) < 0)
		return -1;
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	util_strlcpy(out->name, base, sizeof out->name);
	char *dot = strstr(out->name, ".theme");
	if (dot)
		*dot = '\0';
	out->mono = strcmp(out->name, "mono") == 0;
	return 0;
}

/* The xterm palette: 16 system colours, a 6x6x6 cube, 24 greys. */
static long palette_rgb(int i)
{
	static const long sys[16] = {0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5,
				     0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff};
	if (i < 16)
		return sys[i];
	if (i < 232) {
		static const int lv[6] = {0, 95, 135, 175, 215, 255};
		int c = i - 16;
		return (long)lv[c / 36] << 16 | (long)lv[c / 6 % 6] << 8 | lv[c % 6];
	}
	int g = 8 + (i - 232) * 10;
	return (long)g << 16 | (long)g << 8 | g;
}

int theme_nearest(long rgb, int ncolours)
{
	int best = 0;
	long bestd = LONG_MAX;
	for (int i = 0; i < ncolours && i < 256; i++) {
		long c = palette_rgb(i);
		long dr = (rgb >> 16 & 255) - (c >> 16 & 255), dg = (rgb >> 8 & 255) - (c >> 8 & 255), db = (rgb & 255) - (c & 255);
		long d = dr * dr + dg * dg + db * db;
		if (d < bestd) {
			bestd = d;
			best = i;
		}
	}
	return best;
}

/* A colour as this terminal can show it. */
static short fit(const struct theme_colour *c, int ncolours)
{
	if (c->rgb >= 0)
		return (short)theme_nearest(c->rgb, ncolours >= 256 ? 256 : ncolours >= 16 ? 16 : 8);
	if (c->index < 0)
		return -1;
	if (c->index < ncolours)
		return (short)c->index;
	return (short)theme_nearest(palette_rgb(c->index), ncolours >= 16 ? 16 : 8);
}

static unsigned long curses_attrs(unsigned a)
{
	return (a & THEME_ATTR_BOLD ? A_BOLD : 0) | (a & THEME_ATTR_DIM ? A_DIM : 0) |
	       (a & THEME_ATTR_UNDERLINE ? A_UNDERLINE : 0) | (a & THEME_ATTR_REVERSE ? A_REVERSE : 0) |
	       (a & THEME_ATTR_STANDOUT ? A_STANDOUT : 0);
}

void theme_apply(const struct theme *t, unsigned long attrs[TH_COUNT])
{
	int colour = !t->mono && has_colors();
	if (colour) {
		start_color();
		use_default_colors();
	}
	for (int e = 0; e < TH_COUNT; e++) {
		const struct theme_style *st = &t->el[e];
		attrs[e] = curses_attrs(st->attrs);
		if (!colour || (st->fg.index < 0 && st->fg.rgb < 0 && st->bg.index < 0 && st->bg.rgb < 0))
			continue;
		/* Pairs 1..TH_COUNT: within the 64 pairs of an 8-colour terminal. */
		if (e + 1 < COLOR_PAIRS && init_pair((short)(e + 1), fit(&st->fg, COLORS), fit(&st->bg, COLORS)) == OK)
			attrs[e] |= COLOR_PAIR(e + 1);
	}
	bkgdset(' ' | attrs[TH_NORMAL]);
}
