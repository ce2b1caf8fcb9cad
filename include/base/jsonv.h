/* jsonv: a small JSON reader for the files the tool reads back (its own
 * recordings). One document is parsed into a tree of values held in one
 * allocation set; lookups never fail hard: a missing member or a value
 * of another type reads as the default the caller gives. Depth and size
 * are bounded, so a hostile file cannot exhaust the stack. */
#ifndef IOSCHED_JSONV_H
#define IOSCHED_JSONV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum jsonv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jsonv {
	enum jsonv_type type;
	double num;                /* JV_NUM, and JV_BOOL as 0/1 */
	char *str;                 /* JV_STR (NUL-terminated, may hold no NULs) */
	char *key;                 /* the member name, inside an object */
	struct jsonv *kids;        /* JV_ARR, JV_OBJ: n children */
	size_t n;
};

#define JSONV_MAX_DEPTH 32

/* Parse text (len bytes) into *out. Returns 0, or -1 with a message in
 * err saying what is wrong and at which byte. Free with jsonv_free. */
int jsonv_parse(const char *text, size_t len, struct jsonv *out, char *err, size_t errlen);
/* The same with a budget of values (each array, object, member, number,
 * string...): past max_nodes the parse fails with a message that says the
 * limit, before the tree takes more memory (a line of 64 MiB of [], made
 * 22 million values, 8 GB). */
int jsonv_parse_max(const char *text, size_t len, size_t max_nodes, struct jsonv *out, char *err, size_t errlen);
void jsonv_free(struct jsonv *v);

/* The member called key of an object, or NULL. */
const struct jsonv *jsonv_get(const struct jsonv *obj, const char *key);

/* Typed reads of a member, with a default for missing or mistyped ones. */
double jsonv_num(const struct jsonv *obj, const char *key, double dflt);
int64_t jsonv_int(const struct jsonv *obj, const char *key, int64_t dflt);
int jsonv_bool(const struct jsonv *obj, const char *key, int dflt);
/* Copies a string member into buf (truncated, NUL-terminated); "" when missing. */
void jsonv_str(const struct jsonv *obj, const char *key, char *buf, size_t len);
/* An array member, or NULL (n children in ->n). */
const struct jsonv *jsonv_arr(const struct jsonv *obj, const char *key);

/* Write s as a JSON string: quoted, escaped, and valid UTF-8 whatever s
 * holds (a byte that is not UTF-8 becomes U+FFFD). */
void jsonv_write_string(FILE *f, const char *s);

/* Write ,"key":v (three decimals), or ,"key":null where v does not exist
 * (present is 0, or v is not finite): never a made-up 0. */
void jsonv_write_num_or_null(FILE *f, const char *key, double v, int present);

/* Write v with decimals digits after the point, or null when v is not
 * finite (a NaN or an infinity, as a recording's null reads back): JSON
 * has no "nan", and jq refuses a line that holds one. Every double of the
 * JSON output is written by this or the two around it. */
void jsonv_write_number(FILE *f, double v, int decimals);

/* Write ,"key": and v as jsonv_write_number does. */
void jsonv_write_key_number(FILE *f, const char *key, double v, int decimals);

/* Writing JSON a piece at a time, for a writer that walks lists of its
 * own (the recording): the writer puts the commas and the closing
 * brackets, and escapes keys and strings. A value is written under key in
 * an object, with key NULL in an array (or at the top). Nesting deeper
 * than JSONV_W_DEPTH - 1 is a bug of the caller: it is cut off there. */
#define JSONV_W_DEPTH 8
struct jsonv_w {
	FILE *f;
	int depth;                    /* how many objects and arrays are open */
	char close[JSONV_W_DEPTH];    /* the bracket that closes each */
	int first[JSONV_W_DEPTH];     /* nothing written in it yet */
};

void jsonv_w_init(struct jsonv_w *w, FILE *f);
/* Start the next value: the comma before all but the first, and "key":
 * in an object. Returns the file for the value's own writer
 * (recfmt_write_tuple, jsonv_write_string). */
FILE *jsonv_w_next(struct jsonv_w *w, const char *key);
/* Open an object ('{') or an array ('[') as the next value; close the
 * innermost one open. */
void jsonv_w_open(struct jsonv_w *w, const char *key, char bracket);
void jsonv_w_close(struct jsonv_w *w);
/* The innermost open object's "nothing written yet", for a writer that
 * adds members itself (recfmt_write). */
int *jsonv_w_first(struct jsonv_w *w);
void jsonv_w_int(struct jsonv_w *w, const char *key, long long v);
void jsonv_w_uint(struct jsonv_w *w, const char *key, unsigned long long v);
void jsonv_w_string(struct jsonv_w *w, const char *key, const char *s);

/* Write ,"key": and v to digits significant digits (%.*g: a share of
 * 0.0123 keeps its digits, 10 s stays 10), or null when v is not finite. */
void jsonv_write_key_significant(FILE *f, const char *key, double v, int digits);

/* Write ,"key": and s as jsonv_write_string does, or null when s is NULL. */
void jsonv_write_key_string(FILE *f, const char *key, const char *s);

#endif
