/* SPDX-License-Identifier: MIT */
/* Parsing of processor lists, durations and --faster specifications. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/parse.h"
#include "common/strdist.h"

static void test_proc_lists(void **state)
{
	(void)state;
	struct ecp_error err = {0};
	unsigned *v;
	size_t n;
	assert_int_equal(ecp_parse_proc_list("1-4,8,2,16", 64, &v, &n, &err), 0);
	unsigned want[] = {1, 2, 3, 4, 8, 16};
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(v[i], want[i]);
	free(v);
	assert_int_equal(ecp_parse_proc_list("6", 64, &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0], 6);
	free(v);
}

/* `record --cpus`: CPU numbers start at 0, the same grammar. */
static void test_cpu_lists(void **state)
{
	(void)state;
	struct ecp_error err = {0};
	unsigned *v;
	size_t n;
	assert_int_equal(ecp_parse_cpu_list("2,0-1,1", &v, &n, &err), 0);
	assert_int_equal(n, 3);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(v[i], i);
	free(v);
	const char *bad[] = {"", "1-0", "0,", "-1", "x", "1048576"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = (unsigned *)1;
		assert_int_equal(ecp_parse_cpu_list(bad[i], &v, &n, &err), ECP_ERR_USAGE);
		assert_null(v);
		assert_non_null(strstr(err.msg, "CPU list"));
	}
}

static void test_bad_proc_lists_are_usage_errors(void **state)
{
	(void)state;
	const char *bad[] = {"",  "0",  "0-4", "4-1", "1,,2", "1,",
			     "a", "-3", "1-",  "65",  "1.5"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ecp_error err = {0};
		unsigned *v = (unsigned *)1;
		size_t n = 7;
		assert_int_equal(ecp_parse_proc_list(bad[i], 64, &v, &n, &err),
				 ECP_ERR_USAGE);
		assert_null(v);
		assert_int_equal(n, 0);
		assert_true(err.msg[0] != '\0');
	}
}

static void test_durations(void **state)
{
	(void)state;
	uint64_t ns;
	assert_int_equal(ecp_parse_duration_ns("500", &ns), 0);
	assert_int_equal(ns, 500);
	assert_int_equal(ecp_parse_duration_ns("20us", &ns), 0);
	assert_int_equal(ns, 20000);
	assert_int_equal(ecp_parse_duration_ns("1.5ms", &ns), 0);
	assert_int_equal(ns, 1500000);
	assert_int_equal(ecp_parse_duration_ns("2s", &ns), 0);
	assert_int_equal(ns, 2000000000ull);
	assert_int_equal(ecp_parse_duration_ns("-1", &ns), -1);
	assert_int_equal(ecp_parse_duration_ns("3h", &ns), -1);
	assert_int_equal(ecp_parse_duration_ns("", &ns), -1);
}

static void test_name_pct(void **state)
{
	(void)state;
	struct ecp_error err = {0};
	char *name;
	double pct;
	assert_int_equal(ecp_parse_name_pct("parse=20%", &name, &pct, &err), 0);
	assert_string_equal(name, "parse");
	assert_true(pct == 20.0);
	free(name);
	assert_int_equal(ecp_parse_name_pct("ns::f<int>=12.5", &name, &pct, &err), 0);
	assert_string_equal(name, "ns::f<int>");
	free(name);
	const char *bad[] = {"parse",     "=20",      "parse=",  "parse=0",
			     "parse=100", "parse=x%", "parse=-5"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(ecp_parse_name_pct(bad[i], &name, &pct, &err),
				 ECP_ERR_USAGE);
}

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(ecp_edit_distance("report", "report", 0), 0);
	assert_int_equal(ecp_edit_distance("", "scan", 0), 4);
	/* a swap is two edits, or one with transpositions */
	assert_int_equal(ecp_edit_distance("reprot", "report", 0), 2);
	assert_int_equal(ecp_edit_distance("reprot", "report", ECP_EDIT_TRANSPOSE), 1);
	/* case counts unless ignored */
	assert_int_equal(ecp_edit_distance("Parse", "parse", 0), 1);
	assert_int_equal(ecp_edit_distance("Parse", "parse", ECP_EDIT_IGNORE_CASE), 0);
	assert_int_equal(ecp_edit_distance("kitten", "sitting", 0), 3);
	char longer[ECP_EDIT_MAX_LEN + 2];
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	assert_true(ecp_edit_distance(longer, "x", 0) == SIZE_MAX);
}

/* A knob keeps its default unless it is a clean decimal within range. */
static void test_env_knobs(void **state)
{
	(void)state;
	uint64_t v = 7;
	unsetenv("ECP_TEST_KNOB");
	assert_int_equal(ecp_env_knob_u64("ECP_TEST_KNOB", 1, 100, &v), 0);
	const char *rejected[] = {"",   "abc", "12x", "-3",
				  " 5", "0",   "101", "99999999999999999999999"};
	for (size_t i = 0; i < sizeof(rejected) / sizeof(*rejected); i++) {
		setenv("ECP_TEST_KNOB", rejected[i], 1);
		assert_int_equal(ecp_env_knob_u64("ECP_TEST_KNOB", 1, 100, &v), 0);
		assert_int_equal(v, 7);
	}
	setenv("ECP_TEST_KNOB", "100", 1);
	assert_int_equal(ecp_env_knob_u64("ECP_TEST_KNOB", 1, 100, &v), 1);
	assert_int_equal(v, 100);
	setenv("ECP_TEST_KNOB", "1", 1);
	assert_int_equal(ecp_env_knob_u64("ECP_TEST_KNOB", 1, 100, &v), 1);
	assert_int_equal(v, 1);
	unsetenv("ECP_TEST_KNOB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_proc_lists),
	    cmocka_unit_test(test_cpu_lists),
	    cmocka_unit_test(test_bad_proc_lists_are_usage_errors),
	    cmocka_unit_test(test_durations),
	    cmocka_unit_test(test_name_pct),
	    cmocka_unit_test(test_edit_distance),
	    cmocka_unit_test(test_env_knobs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
