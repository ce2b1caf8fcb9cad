/* listbox: see src/view/listbox.h */
#include "listbox.h"

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void listbox_count(struct listbox *l, int n)
{
	l->n = n > 0 ? n : 0;
	l->cur = clamp(l->cur, 0, l->n ? l->n - 1 : 0);
	l->top = clamp(l->top, 0, l->n ? l->n - 1 : 0);
}

int listbox_page(int rows)
{
	return rows > 1 ? rows - 1 : 1;
}

int listbox_first(const struct listbox *l, int rows)
{
	if (rows < 1)
		rows = 1;
	int last_top = l->n > rows ? l->n - rows : 0;
	if (!l->cursor && l->follow && l->at_end)
		return last_top;
	int top = clamp(l->top, 0, last_top);
	if (l->cursor) {
		if (l->cur < top)
			top = l->cur;
		else if (l->cur >= top + rows)
			top = l->cur - rows + 1;
	}
	return clamp(top, 0, last_top);
}

int listbox_move(struct listbox *l, int by, int rows)
{
	if (l->n == 0 || by == 0)
		return 0;
	int old_cur = l->cur, old_top = l->top;
	if (!l->cursor) {
		/* A text: the first row shown moves. */
		l->top = listbox_first(l, rows);
		int last_top = l->n > rows ? l->n - rows : 0;
		l->top = clamp(by == LISTBOX_HOME ? 0 : by == LISTBOX_END ? l->n : l->top + by, 0, last_top);
		int was_end = l->at_end;
		l->at_end = l->top == last_top;
		return l->top != old_top || (l->follow && l->at_end != was_end);
	}
	if (l->wrap && (by == 1 || by == -1))
		l->cur = (l->cur + by + l->n) % l->n;
	else if (by == LISTBOX_HOME)
		l->cur = 0;
	else if (by == LISTBOX_END)
		l->cur = l->n - 1;
	else
		l->cur = clamp(l->cur + by, 0, l->n - 1);
	l->top = listbox_first(l, rows);
	return l->cur != old_cur || l->top != old_top;
}

int listbox_click(struct listbox *l, int rows, int r)
{
	int i = listbox_first(l, rows) + r;
	if (r < 0 || r >= rows || i >= l->n)
		return -1;
	if (l->cursor)
		l->cur = i;
	return i;
}
