/* SPDX-License-Identifier: MIT */
/* ECP-weighted folded stacks against a golden file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "viz/folded.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *data = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&data, &len);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, m);
	fclose(f);
	fclose(m);
	return data;
}

static void test_golden(void **state)
{
	(void)state;
	const char *s_main[] = {"main"};
	const char *s_solve[] = {"main", "solve"};
	const char *s_dot[] = {"main", "solve", "dot"};
	const char *s_worker[] = {"start_thread", "worker",
				  "std::vector<int>::push_back(int)"};
	const char *s_semi[] = {"main", "odd;name", "new\nline"};
	const char *s_neg[] = {"main", "spin"};
	const char *s_zero[] = {"main", "idle"};
	const char *s_space[] = {"main", "operator new(unsigned long)"};
	/* Unsorted, with duplicates to merge, a zero, a negative total and a
	 * total that rounds to zero. */
	struct ecp_folded_stack stacks[] = {
	    {s_dot, 3, 1000.4}, {s_main, 1, 250},     {s_worker, 3, 333.3},
	    {s_dot, 3, 999.7},  {s_solve, 2, 100.5},  {s_semi, 3, 42},
	    {s_neg, 2, -80},    {s_neg, 2, 30},       {s_zero, 2, 0},
	    {s_zero, 2, 0.4},   {s_worker, 3, 666.6}, {s_space, 2, 7},
	};
	size_t n = sizeof(stacks) / sizeof(stacks[0]);
	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);
	struct ecp_folded_result res;
	assert_int_equal(ecp_folded_write(f, stacks, n, &res, NULL), ECP_OK);
	fclose(f);
	char *golden = slurp(ECP_VIZ_GOLDEN_DIR "/folded.txt");
	assert_string_equal(data, golden);
	assert_int_equal(res.lines, 6);
	assert_int_equal(res.negative, 1);
	assert_true(res.negative_ns == -50);
	free(golden);
	free(data);
}

static void test_empty_stack_is_rejected(void **state)
{
	(void)state;
	struct ecp_folded_stack bad = {NULL, 0, 1};
	struct ecp_error err = {0};
	FILE *f = fopen("/dev/null", "w");
	assert_int_equal(ecp_folded_write(f, &bad, 1, NULL, &err), ECP_ERR_USAGE);
	assert_non_null(strstr(err.msg, "empty"));
	assert_int_equal(ecp_folded_write(f, NULL, 0, NULL, &err), ECP_OK);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_golden),
	    cmocka_unit_test(test_empty_stack_is_rejected),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
