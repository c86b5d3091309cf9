/* SPDX-License-Identifier: MIT */
/* Unit tests of the example programs' shared helpers (traces/example.c):
 * the ECP_EXAMPLE_FASTER knob that the validation study depends on, the
 * option parser and the scaled sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "traces/example.h"

static void test_factor_unset(void **state)
{
	(void)state;
	assert_int_equal(unsetenv("ECP_EXAMPLE_FASTER"), 0);
	assert_true(ex_work_factor("Sorter") == 1.0);
}

static void test_factor_default_20(void **state)
{
	(void)state;
	assert_int_equal(setenv("ECP_EXAMPLE_FASTER", "Sorter", 1), 0);
	assert_float_equal(ex_work_factor("Sorter"), 0.8, 1e-12);
	/* no prefix matches: "Sort" and "Sorter2" are other functions */
	assert_true(ex_work_factor("Sort") == 1.0);
	assert_true(ex_work_factor("Sorter2") == 1.0);
	assert_true(ex_work_factor("Writer") == 1.0);
}

static void test_factor_list_and_pct(void **state)
{
	(void)state;
	assert_int_equal(setenv("ECP_EXAMPLE_FASTER", "f=10,g,RecursiveQuickSort=35%", 1),
			 0);
	assert_float_equal(ex_work_factor("f"), 0.9, 1e-12);
	assert_float_equal(ex_work_factor("g"), 0.8, 1e-12);
	assert_float_equal(ex_work_factor("RecursiveQuickSort"), 0.65, 1e-12);
	assert_true(ex_work_factor("ParallelQuickSort") == 1.0);
}

static void test_factor_bad_pct_ignored(void **state)
{
	(void)state;
	/* a malformed percentage leaves the function unchanged (and says so) */
	assert_int_equal(setenv("ECP_EXAMPLE_FASTER", "a=abc,b=150,c=", 1), 0);
	assert_true(ex_work_factor("a") == 1.0);
	assert_true(ex_work_factor("b") == 1.0);
	assert_true(ex_work_factor("c") == 1.0);
	assert_int_equal(unsetenv("ECP_EXAMPLE_FASTER"), 0);
}

static void test_options(void **state)
{
	(void)state;
	struct ex_options o;
	char *ok[] = {"prog", "--scale", "0.25", "--check", "--quiet", NULL};
	assert_true(ex_parse_options(5, ok, &o));
	assert_float_equal(o.scale, 0.25, 1e-12);
	assert_true(o.check);
	assert_true(o.quiet);

	char *defaults[] = {"prog", NULL};
	assert_true(ex_parse_options(1, defaults, &o));
	assert_true(o.scale == 1.0 && !o.check && !o.quiet);

	char *bad_scale[] = {"prog", "--scale", "-1", NULL};
	assert_false(ex_parse_options(3, bad_scale, &o));
	char *junk[] = {"prog", "--scale", "2x", NULL};
	assert_false(ex_parse_options(3, junk, &o));
	char *unknown[] = {"prog", "--fast", NULL};
	assert_false(ex_parse_options(2, unknown, &o));
	char *missing[] = {"prog", "--scale", NULL};
	assert_false(ex_parse_options(2, missing, &o));
}

static void test_scaled_and_iters(void **state)
{
	(void)state;
	assert_int_equal(ex_scaled(2000000, 0.05, 100), 100000);
	assert_int_equal(ex_scaled(100, 0.001, 7), 7);
	assert_int_equal(ex_iters(1.0, 1.0), EX_ITERS_PER_UNIT);
	assert_int_equal(ex_iters(2.0, 0.8), (uint64_t)(1.6 * (double)EX_ITERS_PER_UNIT));
	assert_int_equal(ex_iters(0.0, 1.0), 1);
	/* the work kernel is deterministic and depends on its step count */
	assert_true(ex_burn(7, 1000) == ex_burn(7, 1000));
	assert_true(ex_burn(7, 1000) != ex_burn(7, 800));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_factor_unset),
	    cmocka_unit_test(test_factor_default_20),
	    cmocka_unit_test(test_factor_list_and_pct),
	    cmocka_unit_test(test_factor_bad_pct_ignored),
	    cmocka_unit_test(test_options),
	    cmocka_unit_test(test_scaled_and_iters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
