/* SPDX-License-Identifier: MIT */
/* CSV quoting, the segments CSV, and text tables with name shortening. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "viz/csv.h"
#include "viz/segments-csv.h"
#include "viz/table.h"
#include "viz/utf8.h"

static void test_csv_quoting(void **state)
{
	(void)state;
	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);
	struct ecp_csv_writer w;
	ecp_csv_init(&w, f);
	ecp_csv_string(&w, "plain");
	ecp_csv_string(&w, "a,b");
	ecp_csv_string(&w, "say \"hi\"");
	ecp_csv_string(&w, "two\nlines");
	ecp_csv_string(&w, " padded");
	ecp_csv_string(&w, "std::map<int, int>");
	ecp_csv_string(&w, NULL);
	ecp_csv_end_row(&w);
	ecp_csv_int(&w, -5);
	ecp_csv_uint(&w, 18446744073709551615ull);
	ecp_csv_double(&w, 0.25);
	ecp_csv_double(&w, 0.0 / 0.0);
	assert_int_equal(ecp_csv_finish(&w, NULL), ECP_OK);
	fclose(f);
	assert_string_equal(data,
			    "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\" padded\","
			    "\"std::map<int, int>\",\n-5,18446744073709551615,0.25,\n");
	free(data);
}

static void test_segments_csv(void **state)
{
	(void)state;
	const char *threads[] = {"main", "worker, 1"};
	const char *functions[] = {"f", "g<\"x\">"};
	struct ecp_segment_row rows[] = {
	    {0, 0, 0, 100, 100, 1.0, 0},
	    {1, 1, 50, 250, 120, 0.5, 1},
	    {1, 2, 250, 260, 10, 0, ECP_VIZ_NO_FUNCTION},
	};
	struct ecp_segments_csv in = {2, threads, 2, functions, 3, rows};
	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);
	assert_int_equal(ecp_segments_csv_write(f, &in, NULL), ECP_OK);
	fclose(f);
	assert_string_equal(
	    data,
	    "thread,thread_name,segment,start_ns,end_ns,length_ns,weight,top_function\n"
	    "0,main,0,0,100,100,1,f\n"
	    "1,\"worker, 1\",1,50,250,120,0.5,\"g<\"\"x\"\">\"\n"
	    "1,\"worker, 1\",2,250,260,10,0,\n");
	free(data);

	rows[1].thread = 7;
	struct ecp_error err = {0};
	f = open_memstream(&data, &len);
	assert_int_equal(ecp_segments_csv_write(f, &in, &err), ECP_ERR_USAGE);
	fclose(f);
	free(data);
	assert_non_null(strstr(err.msg, "thread 7"));
}

static void expect_short(const char *name, size_t width, const char *want)
{
	char buf[256];
	ecp_shorten_name(name, width, buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_true(ecp_utf8_width(buf, strlen(buf)) <= width);
}

static void test_shorten_names(void **state)
{
	(void)state;
	const char *cxx = "std::vector<int, std::allocator<int> >::push_back(int const&)";
	/* Fits: unchanged. */
	expect_short("main", 10, "main");
	expect_short(cxx, 80, cxx);
	/* Parameters go first, then scopes from the left at "::" outside <>. */
	expect_short(cxx, 54, "std::vector<int, std::allocator<int> >::push_back(...)");
	expect_short(cxx, 53, "...vector<int, std::allocator<int> >::push_back(...)");
	expect_short(cxx, 40, "...push_back(...)");
	expect_short("ns::detail::worker::run(int)", 22, "...worker::run(...)");
	/* Plain C names lose their middle. */
	expect_short("abcdefghijklmnopqrstuvwxyz", 10, "abcd...xyz");
	/* Characters, not bytes: no UTF-8 sequence is cut. */
	expect_short("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 5,
		     "\xc3\xa9...\xc3\xa9");
	/* A final component too long for the width: middle cut. */
	expect_short("a::bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", 12, "a::bb...bbbb");
	expect_short("abcdef", 2, "ab");
}

static void test_table_fits_width(void **state)
{
	(void)state;
	struct ecp_table *t = ecp_table_create(3);
	assert_non_null(t);
	assert_int_equal(
	    ecp_table_set_column(t, 0, "function", ECP_TABLE_LEFT, ECP_TABLE_SHORTEN),
	    ECP_OK);
	assert_int_equal(
	    ecp_table_set_column(t, 1, "calls", ECP_TABLE_RIGHT, ECP_TABLE_KEEP), ECP_OK);
	assert_int_equal(
	    ecp_table_set_column(t, 2, "TET", ECP_TABLE_RIGHT, ECP_TABLE_KEEP), ECP_OK);
	const char *names[] = {
	    "std::_Hashtable<std::string, std::pair<std::string const, int> >::_M_insert"
	    "(std::pair<std::string const, int> const&)",
	    "main",
	};
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ecp_table_add_row(t), ECP_OK);
		assert_int_equal(ecp_table_cell(t, 0, names[i]), ECP_OK);
		assert_int_equal(ecp_table_cell_uint(t, 1, 1000u * (unsigned)(i + 1)),
				 ECP_OK);
		assert_int_equal(ecp_table_cell_ns(t, 2, 1.5e6 * (i + 1)), ECP_OK);
	}
	assert_int_equal(ecp_table_cell(t, 9, "x"), ECP_ERR_USAGE);
	assert_int_equal(ecp_table_rows(t), 2);

	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);
	assert_int_equal(ecp_table_write(f, t, 40, NULL), ECP_OK);
	fclose(f);
	/* Every line fits; the long name kept its innermost part; numbers are
	 * right-aligned in their column; times are human-readable. */
	char *save = NULL;
	int lines = 0;
	for (char *line = strtok_r(data, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		assert_true(ecp_utf8_width(line, strlen(line)) <= 40);
		lines++;
		if (lines == 1)
			assert_non_null(strstr(line, "function"));
		if (lines == 3) {
			assert_non_null(strstr(line, "..."));
			assert_non_null(strstr(line, "1.5 ms"));
		}
		if (lines == 4) {
			assert_int_equal(strncmp(line, "main ", 5), 0);
			assert_non_null(strstr(line, " 2000    3 ms"));
		}
	}
	assert_int_equal(lines, 4);
	free(data);

	/* Wide enough: nothing shortened. */
	data = NULL;
	f = open_memstream(&data, &len);
	assert_int_equal(ecp_table_write(f, t, 200, NULL), ECP_OK);
	fclose(f);
	assert_non_null(strstr(data, names[0]));
	free(data);
	ecp_table_destroy(t);
	ecp_table_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_csv_quoting),
	    cmocka_unit_test(test_segments_csv),
	    cmocka_unit_test(test_shorten_names),
	    cmocka_unit_test(test_table_fits_width),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
