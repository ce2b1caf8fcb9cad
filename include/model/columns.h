/* columns: the disk table's columns, one table for every text view (TUI and
 * batch text), so both show the same headers, widths and formats. */
#ifndef IOSCHED_COLUMNS_H
#define IOSCHED_COLUMNS_H

#include <stddef.h>

#include "model/sample.h"

struct column {
	const char *header;
	int width;
	int priority;     /* 0 always shown; higher numbers are dropped first when narrow */
	int left;         /* left-aligned (text) rather than right-aligned (numbers) */
	void (*format)(const struct disk_sample *d, char *buf, size_t len);
};

const struct column *columns_table(size_t *n);

/* Pick the columns that fit in width (one blank between columns), most
 * important first, kept in table order. Writes their indexes to idx
 * (room for columns_table's n) and returns how many. */
size_t columns_fit(int width, size_t *idx);

/* Format one cell, cut or padded to the column's width, into buf
 * (len > width). */
void columns_cell(const struct column *c, const struct disk_sample *d, char *buf, size_t len);

/* The header cell of c, padded the same way. */
void columns_header(const struct column *c, char *buf, size_t len);

#endif
