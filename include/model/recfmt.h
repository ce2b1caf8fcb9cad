/* recfmt: the recording format (--record writes it, --replay reads it) as
 * tables, one per kind of object: each field's name in the file, its type
 * and where it lives in the sample's structs. record.c writes and replay.c
 * reads through the same tables, so the two cannot drift apart; a field is
 * added in one place. What a table cannot say (lists of disks, events and
 * processes, the probe histogram, the chart, which processes to keep) the
 * writer and the reader do around the table calls.
 *
 * Version 3 names a field as the JSON output (--json) does where both
 * have it ("rotational", "size_bytes", "rate_hz"...); versions 1 and 2
 * used short keys ("rot", "size", "rate"), which rf_field's old gives, and
 * are still read. Version 2 writes enums by name ("kind":"virtio");
 * version 1 wrote most of them as numbers (RF_V1_INT says which fields). */
#ifndef IOSCHED_RECFMT_H
#define IOSCHED_RECFMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/jsonv.h"

struct util_texts;

#define RECORD_FORMAT "iosched-top-recording"
#define RECORD_VERSION 3

enum rf_type {
	RF_END,    /* ends a table */
	RF_DBL, RF_I64, RF_U64, RF_INT, RF_UINT, RF_U32, RF_LONG, RF_ULONG, RF_ULL, RF_SIZE,
	RF_CHAR,   /* a char, written as its number */
	RF_STR,    /* a char array of size bytes */
	RF_STRP,   /* a const char * (max bytes at most, with the NUL), not the
		    * struct's own: NULL is written as null; reading stores the
		    * text in rf_read's texts, or sets NULL without them */
	RF_ENUM,   /* an int-sized enum, written by name (names) */
	RF_TUPLE,  /* a struct written as a JSON array of its members (sub, in order) */
	RF_OBJ,    /* a struct written as a JSON object (sub) */
};

#define RF_OMIT0 1u   /* not written when 0 (read back as 0) */
#define RF_TIME 2u    /* seconds: must be finite, >= 0 and < 1e11, else read as 0 and counted */
#define RF_V1_INT 4u  /* an enum that version 1 wrote as its number */

struct rf_names {
	const char *(*name)(int v);   /* the name of value v */
	int n;                        /* values 0 .. n-1 */
};

struct rf_field {
	const char *key;              /* NULL inside a tuple */
	const char *old;              /* the key versions 1 and 2 wrote, if not key */
	enum rf_type type;
	size_t off, size;
	double dflt;                  /* when missing, mistyped or out of range */
	size_t max;                   /* RF_STRP: the longest text read, with its NUL */
	unsigned flags;
	const struct rf_names *names; /* RF_ENUM */
	const struct rf_field *sub;   /* RF_TUPLE, RF_OBJ */
};

/* The tables (see recfmt.c for the fields). */
extern const struct rf_field recfmt_tick[];     /* struct sample: the tick's own fields */
extern const struct rf_field recfmt_disk[];     /* struct disk_sample */
extern const struct rf_field recfmt_event[];    /* struct event */
extern const struct rf_field recfmt_proc[];     /* struct proc_row */
extern const struct rf_field recfmt_pstat[];    /* struct procs_status */
extern const struct rf_field recfmt_blk_stat[]; /* struct blk_stat, a tuple */
extern const struct rf_field recfmt_blk_req[];  /* struct blk_req, a tuple */
extern const struct rf_field recfmt_blk[];      /* struct sample: the "blk" object's own fields */
extern const struct rf_field recfmt_chart_point[]; /* struct latwin_point, a tuple */
extern const struct rf_field recfmt_cgroup[];   /* struct cgroup_sample */
extern const struct rf_field recfmt_cgroups[];  /* struct sample: the cgroups' own fields (the rest, why) */
extern const struct rf_field recfmt_header[];   /* struct recfmt_header: a recording's first line */

/* What a recording's first line says. */
struct recfmt_header {
	char format[64];              /* RECORD_FORMAT */
	int64_t version;              /* RECORD_VERSION when written; -1 when missing */
	char program[64];             /* "iosched-top VERSION" */
	char host[128], kernel[128];
	double start;                 /* the first tick's ts */
};

/* Write the fields of table t of the struct at base as "key":value pairs,
 * each after a comma but for the first of an object (*first: set, then
 * cleared once a field is written). */
void recfmt_write(FILE *f, const struct rf_field *t, const void *base, int *first);

/* Write the struct at base as a JSON array of the members of tuple t. */
void recfmt_write_tuple(FILE *f, const struct rf_field *t, const void *base);

/* What a read found wrong, beside the values it set to their defaults. */
struct rf_read {
	int version;                  /* of the file */
	int bad_times;                /* RF_TIME fields out of range */
	/* Where RF_STRP texts are kept for as long as the struct read needs
	 * them (util_texts_keep); NULL: such fields read as NULL. */
	struct util_texts *texts;
};

/* Read the fields of table t from the JSON object obj into the struct at
 * base; a missing or out-of-range field gets its default. */
void recfmt_read(const struct jsonv *obj, const struct rf_field *t, void *base, struct rf_read *ctx);

/* Read a JSON array into the struct at base as tuple t. */
void recfmt_read_tuple(const struct jsonv *arr, const struct rf_field *t, void *base, struct rf_read *ctx);

#endif
