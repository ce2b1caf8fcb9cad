/* Unit tests: the JSON reader recordings are read back with — values,
 * escapes, typed lookups with defaults, and errors that say where — and
 * the writer they are written with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonv.h"

static int parse(const char *text, struct jsonv *v, char *err, size_t len)
{
	return jsonv_parse(text, strlen(text), v, err, len);
}

static void values_and_lookups(void **state)
{
	(void)state;
	struct jsonv v;
	char err[128];
	assert_int_equal(parse(" {\"a\":1.5e3,\"b\":[1,2,{\"c\":null}],\"t\":true,\"s\":\"x\\\"y\\u00e9\\n\",\"n\":-7} ", &v,
			       err, sizeof err), 0);
	assert_true(jsonv_num(&v, "a", 0) == 1500);
	assert_int_equal(jsonv_int(&v, "n", 0), -7);
	assert_int_equal(jsonv_bool(&v, "t", 0), 1);
	char s[16];
	jsonv_str(&v, "s", s, sizeof s);
	assert_string_equal(s, "x\"y\xc3\xa9\n");
	const struct jsonv *b = jsonv_arr(&v, "b");
	assert_non_null(b);
	assert_int_equal(b->n, 3);
	assert_int_equal(b->kids[2].type, JV_OBJ);
	/* Missing or mistyped members read as the default. */
	assert_true(jsonv_num(&v, "missing", 42) == 42);
	assert_true(jsonv_num(&v, "s", 3) == 3);
	assert_null(jsonv_arr(&v, "a"));
	jsonv_str(&v, "a", s, sizeof s);
	assert_string_equal(s, "");
	jsonv_free(&v);
	/* A surrogate pair, and a lone surrogate replaced. */
	assert_int_equal(parse("[\"\\ud83d\\ude00\",\"\\ud800x\"]", &v, err, sizeof err), 0);
	assert_string_equal(v.kids[0].str, "\xf0\x9f\x98\x80");
	assert_string_equal(v.kids[1].str, "\xef\xbf\xbdx");
	jsonv_free(&v);
}

static void errors_say_where(void **state)
{
	(void)state;
	struct jsonv v;
	char err[128];
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"{\"a\":1", "expected ',' or '}' at byte 7"},
		{"{\"a\":\"abc", "unterminated string"},
		{"[1,2,]", "unexpected character at byte 6"},
		{"{\"a\" 1}", "expected ':' at byte 6"},
		{"[1] x", "text after the value at byte 5"},
		{"\"\\q\"", "bad escape in string"},
		{"[1e999]", "bad number at byte 2"},
		{"", "unexpected end at byte 1"},
		{"[\"a\tb\"]", "control character in string"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(parse(bad[i].text, &v, err, sizeof err), -1);
		if (!strstr(err, bad[i].msg))
			fail_msg("'%s': got '%s', want '%s'", bad[i].text, err, bad[i].msg);
	}
	/* Depth is bounded: a hostile file cannot exhaust the stack. */
	char deep[200];
	memset(deep, '[', sizeof deep - 1);
	deep[sizeof deep - 1] = '\0';
	assert_int_equal(parse(deep, &v, err, sizeof err), -1);
	assert_non_null(strstr(err, "nested too deeply"));
}

/* A budget of values: every value counts (the root, each member, each
 * element), the parse within it succeeds, one more fails with a message
 * that names the limit and where, and a long run of [], stops at the
 * budget instead of building a tree of all of it. */
static void budget_of_values(void **state)
{
	(void)state;
	struct jsonv v;
	char err[128];
	static const char text[] = "[1,[2,3],{\"a\":null}]"; /* 7 values */
	assert_int_equal(jsonv_parse_max(text, strlen(text), 7, &v, err, sizeof err), 0);
	assert_int_equal(v.n, 3);
	jsonv_free(&v);
	assert_int_equal(jsonv_parse_max(text, strlen(text), 6, &v, err, sizeof err), -1);
	if (!strstr(err, "over the limit of 6 values at byte 11"))
		fail_msg("got '%s'", err);
	assert_int_equal(v.n, 0); /* nothing kept */
	assert_int_equal(jsonv_parse_max("1", 1, 0, &v, err, sizeof err), -1);

	size_t k = 100000, len = 1 + 3 * k;
	char *many = malloc(len + 1);
	assert_non_null(many);
	many[0] = '[';
	for (size_t i = 0; i < k; i++)
		memcpy(many + 1 + 3 * i, "[],", 3);
	many[len - 1] = ']';
	many[len] = '\0';
	assert_int_equal(parse(many, &v, err, sizeof err), 0); /* no budget: all of it */
	assert_int_equal(v.n, k);
	jsonv_free(&v);
	assert_int_equal(jsonv_parse_max(many, len, 1000, &v, err, sizeof err), -1);
	/* the root and 999 arrays fit; the 1,000th array, at byte 2999, not */
	if (!strstr(err, "over the limit of 1000 values at byte 2999"))
		fail_msg("got '%s'", err);
	free(many);
}

/* Strings written as JSON: valid UTF-8 always, and nothing a terminal
 * showing the JSON would act on or that reorders or hides text: C0 and
 * C1 controls, bidirectional controls, tag characters (as a surrogate
 * pair) escaped; other text as it is. */
static void strings_written(void **state)
{
	(void)state;
	struct {
		const char *in, *out;
	} c[] = {
		{"plain caf\xc3\xa9", "\"plain caf\xc3\xa9\""},
		{"\033]0;T\007", "\"\\u001b]0;T\\u0007\""},
		{"bad\xff", "\"bad\\ufffd\""},
		/* U+FFFD read back (from a recording of the line above) is
		 * written as the byte it stood for was: a replay's line is the
		 * live one's */
		{"bad\xef\xbf\xbd", "\"bad\\ufffd\""},
		{"c1 \xc2\x9b" "31m", "\"c1 \\u009b31m\""},
		{"ev\xe2\x80\xae" "x", "\"ev\\u202ex\""},
		{"t\xf3\xa0\x81\x81", "\"t\\udb40\\udc41\""},
		{"\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		jsonv_write_string(f, c[i].in);
		fclose(f);
		assert_string_equal(buf, c[i].out);
		free(buf);
	}
}

/* The piecewise writer (what a recording is written with): commas between
 * members and elements, brackets closed in order, keys escaped, and a text
 * the reader takes back. */
static void written_in_pieces(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jsonv_w w;
	jsonv_w_init(&w, f);
	jsonv_w_open(&w, NULL, '{');
	jsonv_w_int(&w, "a", -3);
	jsonv_w_open(&w, "l", '[');
	jsonv_w_uint(&w, NULL, 1);
	jsonv_w_open(&w, NULL, '[');
	jsonv_w_close(&w);
	jsonv_w_open(&w, NULL, '{');
	fputs("\"m\":2", f); /* a member written by another writer (recfmt_write) */
	*jsonv_w_first(&w) = 0;
	jsonv_w_string(&w, "n", "x");
	jsonv_w_close(&w);
	jsonv_w_close(&w);
	jsonv_w_string(&w, "q\"k", "v");
	jsonv_w_close(&w);
	jsonv_w_close(&w); /* one too many: nothing written */
	fclose(f);
	assert_string_equal(buf, "{\"a\":-3,\"l\":[1,[],{\"m\":2,\"n\":\"x\"}],\"q\\\"k\":\"v\"}");
	struct jsonv v;
	char err[128];
	assert_int_equal(parse(buf, &v, err, sizeof err), 0);
	assert_int_equal(jsonv_int(&v, "a", 0), -3);
	assert_int_equal(jsonv_arr(&v, "l")->n, 3);
	jsonv_free(&v);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(values_and_lookups),
		cmocka_unit_test(errors_say_where),
		cmocka_unit_test(strings_written),
		cmocka_unit_test(budget_of_values),
		cmocka_unit_test(written_in_pieces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
