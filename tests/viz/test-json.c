/* SPDX-License-Identifier: MIT */
/* The streaming JSON writer: escaping, numbers, structure, misuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "viz/json.h"

struct buf {
	char *data;
	size_t len;
	FILE *f;
};

static void buf_open(struct buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->f = open_memstream(&b->data, &b->len);
	assert_non_null(b->f);
}

static void buf_close(struct buf *b)
{
	fclose(b->f);
}

/* The escaped form of one string, as a complete JSON document. */
static char *escaped(const char *s, size_t len)
{
	struct buf b;
	buf_open(&b);
	struct ecp_json_writer w;
	ecp_json_init(&w, b.f, ECP_JSON_COMPACT);
	ecp_json_string_n(&w, s, len);
	assert_int_equal(ecp_json_finish(&w, NULL), ECP_OK);
	buf_close(&b);
	return b.data;
}

static void expect_escape(const char *in, size_t len, const char *want)
{
	char *got = escaped(in, len);
	assert_string_equal(got, want);
	free(got);
}

static void test_escapes_specials(void **state)
{
	(void)state;
	expect_escape("a\"b\\c", 5, "\"a\\\"b\\\\c\"\n");
	expect_escape("\n\r\t\b\f", 5, "\"\\n\\r\\t\\b\\f\"\n");
	expect_escape("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\"\n");
	/* A NUL inside a length-delimited string is kept, escaped. */
	expect_escape("a\0b", 3, "\"a\\u0000b\"\n");
	/* C++ names pass unchanged: < > & are legal in JSON strings. */
	expect_escape("std::vector<int>::push_back&", 28,
		      "\"std::vector<int>::push_back&\"\n");
}

static void test_script_injection_is_defused(void **state)
{
	(void)state;
	const char *evil = "</script><script>alert(1)</script>";
	char *got = escaped(evil, strlen(evil));
	assert_null(strstr(got, "</"));
	assert_string_equal(got, "\"<\\/script><script>alert(1)<\\/script>\"\n");
	free(got);
	expect_escape("<!-- x", 6, "\"<\\u0021-- x\"\n");
	/* A lone slash stays a slash. */
	expect_escape("a/b", 3, "\"a/b\"\n");
}

static void test_utf8(void **state)
{
	(void)state;
	const char *ok = "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80";
	char want[64];
	snprintf(want, sizeof(want), "\"%s\"\n", ok);
	expect_escape(ok, strlen(ok), want);
	/* Invalid bytes, overlong forms, surrogates, truncated sequences. */
	expect_escape("a\xff"
		      "b",
		      3, "\"a\\ufffdb\"\n");
	expect_escape("\xc0\xaf", 2, "\"\\ufffd\\ufffd\"\n");
	expect_escape("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"\n");
	expect_escape("x\xe2\x9c", 3, "\"x\\ufffd\\ufffd\"\n");
	/* JavaScript line terminators. */
	expect_escape("\xe2\x80\xa8\xe2\x80\xa9", 6, "\"\\u2028\\u2029\"\n");
}

static void test_numbers(void **state)
{
	(void)state;
	char buf[40];
	assert_string_equal(ecp_json_format_double(buf, sizeof(buf), 0.1), "0.1");
	assert_string_equal(ecp_json_format_double(buf, sizeof(buf), 1234.567),
			    "1234.567");
	assert_string_equal(ecp_json_format_double(buf, sizeof(buf), -2.5e-7),
			    "-2.5e-07");
	assert_string_equal(ecp_json_format_double(buf, sizeof(buf), 0.0 / 0.0), "null");
	assert_string_equal(ecp_json_format_double(buf, sizeof(buf), 1.0 / 0.0), "null");
	/* Values needing all 17 digits still read back exactly. */
	double third = 1.0 / 3.0, big = 123456789.123456789;
	assert_true(strtod(ecp_json_format_double(buf, sizeof(buf), third), NULL) ==
		    third);
	assert_true(strtod(ecp_json_format_double(buf, sizeof(buf), big), NULL) == big);

	struct buf b;
	buf_open(&b);
	struct ecp_json_writer w;
	ecp_json_init(&w, b.f, ECP_JSON_COMPACT);
	ecp_json_begin_array(&w);
	ecp_json_int(&w, INT64_MIN);
	ecp_json_uint(&w, UINT64_MAX);
	ecp_json_double(&w, 1.5);
	ecp_json_bool(&w, true);
	ecp_json_bool(&w, false);
	ecp_json_null(&w);
	ecp_json_string(&w, NULL);
	ecp_json_end_array(&w);
	assert_int_equal(ecp_json_finish(&w, NULL), ECP_OK);
	buf_close(&b);
	assert_string_equal(b.data,
			    "[-9223372036854775808,18446744073709551615,1.5,true,false,"
			    "null,null]\n");
	free(b.data);
}

static void test_structure(void **state)
{
	(void)state;
	struct buf b;
	buf_open(&b);
	struct ecp_json_writer w;
	ecp_json_init(&w, b.f, ECP_JSON_COMPACT);
	ecp_json_begin_object(&w);
	ecp_json_kv_string(&w, "trace", "ecp.data");
	ecp_json_key(&w, "processors");
	ecp_json_begin_array(&w);
	ecp_json_uint(&w, 1);
	ecp_json_uint(&w, 2);
	ecp_json_end_array(&w);
	ecp_json_key(&w, "empty");
	ecp_json_begin_object(&w);
	ecp_json_end_object(&w);
	ecp_json_key(&w, "list");
	ecp_json_begin_array(&w);
	ecp_json_end_array(&w);
	ecp_json_kv_double(&w, "speedup", 2.25);
	ecp_json_end_object(&w);
	assert_int_equal(ecp_json_finish(&w, NULL), ECP_OK);
	buf_close(&b);
	assert_string_equal(b.data,
			    "{\"trace\":\"ecp.data\",\"processors\":[1,2],\"empty\":{},"
			    "\"list\":[],\"speedup\":2.25}\n");
	free(b.data);

	/* Compact, one element per line on request. */
	buf_open(&b);
	ecp_json_init(&w, b.f, ECP_JSON_COMPACT);
	ecp_json_begin_array(&w);
	for (int i = 0; i < 2; i++) {
		ecp_json_newline(&w);
		ecp_json_begin_object(&w);
		ecp_json_kv_int(&w, "i", i);
		ecp_json_end_object(&w);
	}
	ecp_json_end_array(&w);
	assert_int_equal(ecp_json_finish(&w, NULL), ECP_OK);
	buf_close(&b);
	assert_string_equal(b.data, "[\n{\"i\":0},\n{\"i\":1}]\n");
	free(b.data);

	buf_open(&b);
	ecp_json_init(&w, b.f, ECP_JSON_PRETTY);
	ecp_json_begin_object(&w);
	ecp_json_kv_int(&w, "a", 1);
	ecp_json_key(&w, "b");
	ecp_json_begin_array(&w);
	ecp_json_int(&w, 2);
	ecp_json_end_array(&w);
	ecp_json_end_object(&w);
	assert_int_equal(ecp_json_finish(&w, NULL), ECP_OK);
	buf_close(&b);
	assert_string_equal(b.data, "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}\n");
	free(b.data);
}

static int misuse_status(void (*script)(struct ecp_json_writer *), char *msg, size_t len)
{
	struct buf b;
	buf_open(&b);
	struct ecp_json_writer w;
	ecp_json_init(&w, b.f, ECP_JSON_COMPACT);
	script(&w);
	struct ecp_error err = {0};
	int rc = ecp_json_finish(&w, &err);
	snprintf(msg, len, "%s", err.msg);
	buf_close(&b);
	free(b.data);
	return rc;
}

static void value_without_key(struct ecp_json_writer *w)
{
	ecp_json_begin_object(w);
	ecp_json_int(w, 1);
	ecp_json_end_object(w);
}

static void unclosed(struct ecp_json_writer *w)
{
	ecp_json_begin_array(w);
	ecp_json_int(w, 1);
}

static void two_values(struct ecp_json_writer *w)
{
	ecp_json_int(w, 1);
	ecp_json_int(w, 2);
}

static void wrong_close(struct ecp_json_writer *w)
{
	ecp_json_begin_array(w);
	ecp_json_end_object(w);
}

static void nothing(struct ecp_json_writer *w)
{
	(void)w;
}

static void test_misuse_is_reported(void **state)
{
	(void)state;
	char msg[ECP_ERROR_MAX];
	assert_int_equal(misuse_status(value_without_key, msg, sizeof(msg)),
			 ECP_ERR_USAGE);
	assert_non_null(strstr(msg, "without a key"));
	assert_int_equal(misuse_status(unclosed, msg, sizeof(msg)), ECP_ERR_USAGE);
	assert_non_null(strstr(msg, "unclosed"));
	assert_int_equal(misuse_status(two_values, msg, sizeof(msg)), ECP_ERR_USAGE);
	assert_int_equal(misuse_status(wrong_close, msg, sizeof(msg)), ECP_ERR_USAGE);
	assert_int_equal(misuse_status(nothing, msg, sizeof(msg)), ECP_ERR_USAGE);
}

static void test_write_error_is_reported(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	struct ecp_json_writer w;
	ecp_json_init(&w, f, ECP_JSON_COMPACT);
	ecp_json_string(&w, "x");
	struct ecp_error err = {0};
	assert_int_equal(ecp_json_finish(&w, &err), ECP_ERR_IO);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escapes_specials),
	    cmocka_unit_test(test_script_injection_is_defused),
	    cmocka_unit_test(test_utf8),
	    cmocka_unit_test(test_numbers),
	    cmocka_unit_test(test_structure),
	    cmocka_unit_test(test_misuse_is_reported),
	    cmocka_unit_test(test_write_error_is_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
