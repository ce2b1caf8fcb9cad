/* bigtext: see src/view/bigtext.h */
#include "bigtext.h"

#include <string.h>

/* A glyph: rows of '#' and ' ', all of the same width. */
struct glyph {
	char c;
	const char *rows[BIGTEXT_ROWS];
};

static const struct glyph font[] = {
	{'0', {"###", "# #", "# #", "# #", "###"}}, {'1', {" # ", "## ", " # ", " # ", "###"}},
	{'2', {"###", "  #", "###", "#  ", "###"}}, {'3', {"###", "  #", "###", "  #", "###"}},
	{'4', {"# #", "# #", "###", "  #", "  #"}}, {'5', {"###", "#  ", "###", "  #", "###"}},
	{'6', {"###", "#  ", "###", "# #", "###"}}, {'7', {"###", "  #", "  #", "  #", "  #"}},
	{'8', {"###", "# #", "###", "# #", "###"}}, {'9', {"###", "# #", "###", "  #", "###"}},
	{'.', {" ", " ", " ", " ", "#"}},         {'/', {"  #", "  #", " # ", "#  ", "#  "}},
	{'-', {"   ", "   ", "###", "   ", "   "}}, {' ', {"  ", "  ", "  ", "  ", "  "}},
	{'a', {"   ", "###", "  #", "###", "###"}}, {'b', {"#  ", "#  ", "###", "# #", "###"}},
	{'d', {"  #", "  #", "###", "# #", "###"}}, {'e', {"   ", "###", "###", "#  ", "###"}},
	{'f', {" ##", " # ", "###", " # ", " # "}}, {'i', {"#", " ", "#", "#", "#"}},
	{'k', {"#  ", "# #", "## ", "# #", "# #"}}, {'l', {"#", "#", "#", "#", "#"}},
	{'m', {"     ", "#### ", "# # #", "# # #", "# # #"}}, {'n', {"   ", "## ", "# #", "# #", "# #"}},
	{'o', {"   ", "###", "# #", "# #", "###"}}, {'p', {"   ", "###", "# #", "###", "#  "}},
	{'q', {"   ", "###", "# #", "###", "  #"}}, {'r', {"   ", "###", "#  ", "#  ", "#  "}},
	{'s', {"   ", "###", "## ", "  #", "###"}}, {'t', {" # ", "###", " # ", " # ", " ##"}},
	{'u', {"   ", "# #", "# #", "# #", "###"}}, {'y', {"   ", "# #", "###", "  #", "###"}},
	{0, {NULL}},
};

static const struct glyph *glyph_of(char c)
{
	for (size_t i = 0; font[i].rows[0]; i++)
		if (font[i].c == c)
			return &font[i];
	return &font[13]; /* a blank cell for anything else */
}

int bigtext_width(const char *text)
{
	int w = 0;
	for (const char *p = text; *p; p++)
		w += (int)strlen(glyph_of(*p)->rows[0]) + (p[1] ? 1 : 0);
	return w;
}

int bigtext_render(const char *text, int utf8, char rows[BIGTEXT_ROWS][512], size_t len)
{
	const char *cell = utf8 ? "\xe2\x96\x88" : "#";
	size_t cw = strlen(cell), used[BIGTEXT_ROWS] = {0};
	for (int r = 0; r < BIGTEXT_ROWS; r++)
		rows[r][0] = '\0';
	for (const char *p = text; *p; p++) {
		const struct glyph *g = glyph_of(*p);
		for (int r = 0; r < BIGTEXT_ROWS; r++) {
			for (const char *q = g->rows[r]; *q; q++) {
				size_t n = *q == '#' ? cw : 1;
				if (used[r] + n + 2 > len)
					return -1;
				memcpy(rows[r] + used[r], *q == '#' ? cell : " ", n);
				used[r] += n;
			}
			if (p[1])
				rows[r][used[r]++] = ' ';
			rows[r][used[r]] = '\0';
		}
	}
	return bigtext_width(text);
}
