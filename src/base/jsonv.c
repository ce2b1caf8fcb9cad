/* jsonv: see include/base/jsonv.h */
#include "base/jsonv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct parser {
	const char *s, *end;
	const char *start;
	char *err;
	size_t errlen;
	int failed;
	size_t nodes, max_nodes;    /* values made so far, and the most allowed */
};

static void fail(struct parser *p, const char *what)
{
	if (!p->failed)
		snprintf(p->err, p->errlen, "%s at byte %zu", what, (size_t)(p->s - p->start) + 1);
	p->failed = 1;
}

static void skip_ws(struct parser *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
		p->s++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Append the UTF-8 encoding of code point cp. */
static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static int read_u4(struct parser *p, unsigned *cp)
{
	if (p->end - p->s < 4) {
		fail(p, "short \\u escape");
		return -1;
	}
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(p->s[i]);
		if (h < 0) {
			fail(p, "bad \\u escape");
			return -1;
		}
		v = v * 16 + (unsigned)h;
	}
	p->s += 4;
	*cp = v;
	return 0;
}

/* A string after its opening quote; the result is malloc'd. A string
 * never grows when unescaped, so its raw length bounds the buffer. */
static char *parse_string(struct parser *p)
{
	const char *q = p->s;
	while (q < p->end && *q != '"')
		q += *q == '\\' && q + 1 < p->end ? 2 : 1;
	if (q >= p->end) {
		fail(p, "unterminated string");
		return NULL;
	}
	char *out = malloc((size_t)(q - p->s) + 1), *o = out;
	if (!out) {
		fail(p, "out of memory");
		return NULL;
	}
	while (p->s < q) {
		char c = *p->s++;
		if ((unsigned char)c < 0x20) {
			fail(p, "control character in string");
			free(out);
			return NULL;
		}
		if (c != '\\') {
			*o++ = c;
			continue;
		}
		c = *p->s++;
		unsigned cp;
		switch (c) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (read_u4(p, &cp) < 0) {
				free(out);
				return NULL;
			}
			if (cp >= 0xd800 && cp < 0xdc00 && q - p->s >= 6 && p->s[0] == '\\' && p->s[1] == 'u') {
				unsigned lo;
				p->s += 2;
				if (read_u4(p, &lo) < 0) {
					free(out);
					return NULL;
				}
				cp = lo >= 0xdc00 && lo < 0xe000 ? 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00) : 0xfffd;
			} else if (cp >= 0xd800 && cp < 0xe000) {
				cp = 0xfffd;
			}
			if (cp == 0)
				cp = 0xfffd; /* no NUL inside C strings */
			o += put_utf8(o, cp);
			break;
		default:
			fail(p, "bad escape in string");
			free(out);
			return NULL;
		}
	}
	*o = '\0';
	p->s = q + 1;
	return out;
}

static int parse_value(struct parser *p, struct jsonv *v, int depth);

/* One more value: within the budget, or the parse fails saying the limit.
 * Counted before its memory is taken, so the tree never outgrows it. */
static int count_node(struct parser *p)
{
	if (p->nodes++ < p->max_nodes)
		return 0;
	char what[64];
	snprintf(what, sizeof what, "over the limit of %zu values", p->max_nodes);
	fail(p, what);
	return -1;
}

static int add_kid(struct parser *p, struct jsonv *v, size_t *cap, struct jsonv **kid)
{
	if (count_node(p) < 0)
		return -1;
	if (v->n == *cap) {
		size_t c = *cap ? *cap * 2 : 4;
		struct jsonv *k = realloc(v->kids, c * sizeof *k);
		if (!k) {
			fail(p, "out of memory");
			return -1;
		}
		v->kids = k;
		*cap = c;
	}
	*kid = &v->kids[v->n++];
	memset(*kid, 0, sizeof **kid);
	return 0;
}

/* A container's children, trimmed to their number once it is closed:
 * the doubling left up to half unused (a line of [1], arrays kept three
 * slots of four empty). */
static void trim_kids(struct jsonv *v, size_t cap)
{
	if (v->n && v->n < cap) {
		struct jsonv *k = realloc(v->kids, v->n * sizeof *k);
		if (k)
			v->kids = k;
	}
}

static int parse_container(struct parser *p, struct jsonv *v, int depth, char close)
{
	size_t cap = 0;
	v->type = close == ']' ? JV_ARR : JV_OBJ;
	skip_ws(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		return 0;
	}
	for (;;) {
		struct jsonv *kid;
		if (add_kid(p, v, &cap, &kid) < 0)
			return -1;
		skip_ws(p);
		if (close == '}') {
			if (p->s >= p->end || *p->s != '"') {
				fail(p, "expected a member name");
				return -1;
			}
			p->s++;
			if (!(kid->key = parse_string(p)))
				return -1;
			skip_ws(p);
			if (p->s >= p->end || *p->s != ':') {
				fail(p, "expected ':'");
				return -1;
			}
			p->s++;
		}
		if (parse_value(p, kid, depth + 1) < 0)
			return -1;
		skip_ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == close) {
			p->s++;
			trim_kids(v, cap);
			return 0;
		}
		fail(p, close == ']' ? "expected ',' or ']'" : "expected ',' or '}'");
		return -1;
	}
}

static int parse_number(struct parser *p, struct jsonv *v)
{
	char buf[64];
	size_t n = 0;
	while (p->s + n < p->end && n < sizeof buf - 1 && strchr("+-0123456789.eE", p->s[n]))
		n++;
	memcpy(buf, p->s, n);
	buf[n] = '\0';
	char *end;
	errno = 0;
	double d = strtod(buf, &end);
	if (n == 0 || end != buf + n || !isfinite(d)) {
		fail(p, "bad number");
		return -1;
	}
	p->s += n;
	v->type = JV_NUM;
	v->num = d;
	return 0;
}

static int literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n) != 0) {
		fail(p, "unexpected character");
		return -1;
	}
	p->s += n;
	return 0;
}

static int parse_value(struct parser *p, struct jsonv *v, int depth)
{
	if (depth > JSONV_MAX_DEPTH) {
		fail(p, "nested too deeply");
		return -1;
	}
	skip_ws(p);
	if (p->s >= p->end) {
		fail(p, "unexpected end");
		return -1;
	}
	char c = *p->s;
	switch (c) {
	case '{': p->s++; return parse_container(p, v, depth, '}');
	case '[': p->s++; return parse_container(p, v, depth, ']');
	case '"':
		p->s++;
		v->type = JV_STR;
		return (v->str = parse_string(p)) ? 0 : -1;
	case 't': v->type = JV_BOOL; v->num = 1; return literal(p, "true");
	case 'f': v->type = JV_BOOL; v->num = 0; return literal(p, "false");
	case 'n': v->type = JV_NULL; return literal(p, "null");
	default:
		if (c == '-' || (c >= '0' && c <= '9'))
			return parse_number(p, v);
		fail(p, "unexpected character");
		return -1;
	}
}

int jsonv_parse(const char *text, size_t len, struct jsonv *out, char *err, size_t errlen)
{
	return jsonv_parse_max(text, len, SIZE_MAX, out, err, errlen);
}

int jsonv_parse_max(const char *text, size_t len, size_t max_nodes, struct jsonv *out, char *err, size_t errlen)
{
	struct parser p = {.s = text, .end = text + len, .start = text, .err = err, .errlen = errlen,
			   .max_nodes = max_nodes};
	memset(out, 0, sizeof *out);
	if (count_node(&p) == 0 && parse_value(&p, out, 0) == 0) {
		skip_ws(&p);
		if (p.s != p.end)
			fail(&p, "text after the value");
	}
	if (p.failed) {
		jsonv_free(out);
		return -1;
	}
	return 0;
}

void jsonv_free(struct jsonv *v)
{
	for (size_t i = 0; i < v->n; i++)
		jsonv_free(&v->kids[i]);
	free(v->kids);
	free(v->str);
	free(v->key);
	memset(v, 0, sizeof *v);
}

const struct jsonv *jsonv_get(const struct jsonv *obj, const char *key)
{
	if (!obj || obj->type != JV_OBJ)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (strcmp(obj->kids[i].key, key) == 0)
			return &obj->kids[i];
	return NULL;
}

double jsonv_num(const struct jsonv *obj, const char *key, double dflt)
{
	const struct jsonv *v = jsonv_get(obj, key);
	return v && (v->type == JV_NUM || v->type == JV_BOOL) ? v->num : dflt;
}

int64_t jsonv_int(const struct jsonv *obj, const char *key, int64_t dflt)
{
	double d = jsonv_num(obj, key, (double)dflt);
	return d >= -9.2e18 && d <= 9.2e18 ? (int64_t)d : dflt;
}

int jsonv_bool(const struct jsonv *obj, const char *key, int dflt)
{
	const struct jsonv *v = jsonv_get(obj, key);
	return v && v->type == JV_BOOL ? (int)v->num : dflt;
}

void jsonv_str(const struct jsonv *obj, const char *key, char *buf, size_t len)
{
	const struct jsonv *v = jsonv_get(obj, key);
	util_strlcpy(buf, v && v->type == JV_STR ? v->str : "", len);
}

const struct jsonv *jsonv_arr(const struct jsonv *obj, const char *key)
{
	const struct jsonv *v = jsonv_get(obj, key);
	return v && v->type == JV_ARR ? v : NULL;
}

void jsonv_write_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(f, "\\u%04x", *p);
			} else if (*p >= 0x80) {
				/* JSON is UTF-8: a byte that is not (a process may be
				 * named anything) becomes U+FFFD, never an invalid line */
				int n = util_utf8_len(p);
				unsigned c = n ? util_hidden_char(p, n) : 0;
				if (n == 0 || (n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] == 0xbd)) {
					/* U+FFFD itself too: a name read back from
					 * a recording (where it stood for a byte that
					 * was not UTF-8) is then written as it was */
					fputs("\\ufffd", f);
					if (n)
						p += n - 1;
				} else if (c > 0xffff) { /* as a surrogate pair, as JSON writes them */
					c -= 0x10000;
					fprintf(f, "\\u%04x\\u%04x", 0xd800 + (c >> 10), 0xdc00 + (c & 0x3ff));
					p += n - 1;
				} else if (c) {
					/* a C1 control or a character that reorders or hides
					 * text: escaped, so a terminal showing the JSON is not
					 * steered by it */
					fprintf(f, "\\u%04x", c);
					p += n - 1;
				} else {
					fwrite(p, 1, (size_t)n, f);
					p += n - 1;
				}
			} else {
				fputc(*p, f);
			}
		}
	}
	fputc('"', f);
}

void jsonv_write_number(FILE *f, double v, int decimals)
{
	if (isfinite(v))
		fprintf(f, "%.*f", decimals, v);
	else
		fputs("null", f);
}

void jsonv_write_key_number(FILE *f, const char *key, double v, int decimals)
{
	fprintf(f, ",\"%s\":", key);
	jsonv_write_number(f, v, decimals);
}

void jsonv_write_key_significant(FILE *f, const char *key, double v, int digits)
{
	fprintf(f, ",\"%s\":", key);
	if (isfinite(v))
		fprintf(f, "%.*g", digits, v);
	else
		fputs("null", f);
}

void jsonv_write_key_string(FILE *f, const char *key, const char *s)
{
	fprintf(f, ",\"%s\":", key);
	if (s)
		jsonv_write_string(f, s);
	else
		fputs("null", f);
}

void jsonv_write_num_or_null(FILE *f, const char *key, double v, int present)
{
	jsonv_write_key_number(f, key, present ? v : NAN, 3);
}

void jsonv_w_init(struct jsonv_w *w, FILE *f)
{
	memset(w, 0, sizeof *w);
	w->f = f;
	w->first[0] = 1;
}

FILE *jsonv_w_next(struct jsonv_w *w, const char *key)
{
	if (!w->first[w->depth])
		fputc(',', w->f);
	w->first[w->depth] = 0;
	if (key) {
		jsonv_write_string(w->f, key);
		fputc(':', w->f);
	}
	return w->f;
}

void jsonv_w_open(struct jsonv_w *w, const char *key, char bracket)
{
	fputc(bracket, jsonv_w_next(w, key));
	if (w->depth + 1 < JSONV_W_DEPTH)
		w->depth++;
	w->close[w->depth] = bracket == '{' ? '}' : ']';
	w->first[w->depth] = 1;
}

void jsonv_w_close(struct jsonv_w *w)
{
	if (w->depth == 0)
		return;
	fputc(w->close[w->depth], w->f);
	w->depth--;
}

int *jsonv_w_first(struct jsonv_w *w)
{
	return &w->first[w->depth];
}

void jsonv_w_int(struct jsonv_w *w, const char *key, long long v)
{
	fprintf(jsonv_w_next(w, key), "%lld", v);
}

void jsonv_w_uint(struct jsonv_w *w, const char *key, unsigned long long v)
{
	fprintf(jsonv_w_next(w, key), "%llu", v);
}

void jsonv_w_string(struct jsonv_w *w, const char *key, const char *s)
{
	jsonv_write_string(jsonv_w_next(w, key), s);
}
