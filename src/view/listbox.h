/* listbox: the cursor and scrolling of anything shown as rows — a panel's
 * choices, the event log, the A/B report, the help, the process pane —
 * so every list answers Up/Down, PgUp/PgDn, Home/End, the wheel and a
 * click the same way. It holds indexes only; what a row shows and where
 * the rows are drawn stay with the panel. Plain data: no curses. */
#ifndef IOSCHED_LISTBOX_H
#define IOSCHED_LISTBOX_H

/* A list of n rows of which `rows` are shown at a time (the panel says how
 * many when it moves or draws the list).
 *   cursor: a row is selected (cur); without one the list is a text to
 *           scroll, and a move moves the first row shown (top).
 *   wrap:   Up on the first row goes to the last, and Down on the last to
 *           the first (a short menu); never for a page, Home or End.
 *   follow: a text whose last rows stay in view as rows come, while it is
 *           at its end (at_end: a log); a move up leaves the end, End or a
 *           move down to it comes back. */
struct listbox {
	int n;
	int cur;
	int top;
	int cursor;
	int wrap;
	int follow, at_end;
};

/* Moves, as the keys make them. */
#define LISTBOX_HOME (-1000000000)
#define LISTBOX_END 1000000000

/* A new count (rows came or went): cur and top kept inside it. */
void listbox_count(struct listbox *l, int n);

/* Move by rows (+-1 a row, +-page, LISTBOX_HOME/END) with `rows` shown.
 * Returns whether anything moved. */
int listbox_move(struct listbox *l, int by, int rows);

/* A page for `rows` shown: all but one, kept for context. */
int listbox_page(int rows);

/* The first row to draw when `rows` are shown: top, moved just enough to
 * show the cursor, and never past the end. */
int listbox_first(const struct listbox *l, int rows);

/* A click on the r-th row shown (0-based): that row selected. Returns the
 * list index, or -1 when r holds no row. */
int listbox_click(struct listbox *l, int rows, int r);

#endif
