/* proccols: the process columns. One table says, for each column, its
 * name for --sort, its header, width and unit, a line for the help screen,
 * how it sorts, its cell, its JSON fields and its CSV name; the process
 * pane, the batch text, JSON, CSV, --sort, the help screen and the checks
 * of the man page and the completions all read it. Adding a column: a row here (and a field of
 * struct proc_row that the reader fills and the recording keeps). It
 * draws nothing (text and JSON only), so it sits with the reader that
 * fills the rows, where the command line's --sort can reach it too. */
#ifndef IOSCHED_PROCCOLS_H
#define IOSCHED_PROCCOLS_H

#include <stddef.h>
#include <stdio.h>

#include "model/sample.h"

enum pcol { PC_PID, PC_USER, PC_PRIO, PC_READ, PC_WRITE, PC_TODISK, PC_RCALLS, PC_WCALLS, PC_WAIT, PC_AVG,
	    PC_THROTTLED, PC_RLAT, PC_WLAT, PC_DISK, PC_COMMAND, PC_COUNT };

/* How cells are shown: rates, or totals since start (the pane's a);
 * names, or whole command lines (c). */
struct proccols_mode {
	int totals;
	int cmdline;
};

struct proccol {
	const char *key;    /* --sort and the configuration file: "write/s" */
	const char *header; /* as shown per second: "WRITE/s" */
	const char *total;  /* the header in totals mode ("WRITE"); NULL: the same */
	int width;          /* 0: the rest of the line (COMMAND) */
	int left;           /* text, left-aligned; figures are right-aligned */
	int keep;           /* when narrow, lower is kept first; 0: never dropped */
	int blk;            /* needs the BPF part */
	const char *unit;   /* of its figure ("" for text) */
	const char *help;   /* its line on the help screen */
	/* The figure it sorts by, larger first; -1: none. NULL: sorts by
	 * its text (text). */
	double (*sort_key)(const struct proc_row *r, int totals);
	const char *(*text)(const struct proc_row *r);
	void (*cell)(const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n);
	/* Its fields in a row of JSON, each after a comma; NULL: none of
	 * its own (another column writes them). */
	void (*json)(FILE *f, const struct proc_row *r, const struct sample *s);
	/* Its name in a CSV header (--csv-procs), with the unit of its value:
	 * the figure it sorts by in rates mode; a column without a unit gives
	 * its cell. */
	const char *csv;
};

const struct proccol *proccols_get(enum pcol c);

/* The column whose key or header is name (any case: "write/s",
 * "READ-LAT"), or -1. */
int proccols_from_name(const char *name);

/* Every key, in table order, separated by sep (" " for messages and the
 * completions, ", " for the man page). */
const char *proccols_keys(const char *sep, char *buf, size_t len);

/* The header as shown in this mode. */
const char *proccols_header(enum pcol c, int totals);

/* One cell, as the pane and the batch text show it (not yet cut to the
 * column's width, nor made safe to print: a name is the process's own). */
void proccols_cell(enum pcol c, const struct proc_row *r, const struct proccols_mode *m, char *b, size_t n);

/* The figure column c sorts row r by (see sort_key), 0 for a text column. */
double proccols_sort_key(enum pcol c, const struct proc_row *r, int totals);

/* Column c's value for CSV (see csv): a plain number in the unit its
 * name says ("" when it was not read), or its cell (not yet quoted). */
void proccols_csv(enum pcol c, const struct proc_row *r, char *b, size_t n);

/* The columns' fields of row r, in table order, each after a comma. */
void proccols_json(FILE *f, const struct proc_row *r, const struct sample *s);

#endif
