/* SPDX-License-Identifier: MIT */
/* Unit tests of the TSC -> CLOCK_MONOTONIC map (simulator/ctf/tsc-map.c):
 * exact at anchors, linear between them, continuous and non-decreasing
 * across them (whatever the anchors' rates), anchors that would bend it
 * back are dropped, the first and last segments extend beyond the ends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "simulator/ctf/tsc-map.h"

static void test_interpolation(void **state)
{
	struct ecp_tsc_map m;
	(void)state;
	ecp_tsc_map_init(&m);
	assert_false(ecp_tsc_map_ready(&m));
	/* 3 ticks per ns, then 2 ticks per ns */
	assert_int_equal(ecp_tsc_map_add(&m, 1000, 3000), 0);
	assert_false(ecp_tsc_map_ready(&m));
	assert_int_equal(ecp_tsc_map_add(&m, 2000, 6000), 0);
	assert_int_equal(ecp_tsc_map_add(&m, 3000, 8000), 0);
	assert_true(ecp_tsc_map_ready(&m));
	assert_int_equal(ecp_tsc_map_time(&m, 3000), 1000);
	assert_int_equal(ecp_tsc_map_time(&m, 4500), 1500);
	assert_int_equal(ecp_tsc_map_time(&m, 6000), 2000);
	assert_int_equal(ecp_tsc_map_time(&m, 7000), 2500);
	assert_int_equal(ecp_tsc_map_time(&m, 8000), 3000);
	/* beyond the ends: the nearest segment's rate */
	assert_int_equal(ecp_tsc_map_time(&m, 0), 0);
	assert_int_equal(ecp_tsc_map_time(&m, 1500), 500);
	assert_int_equal(ecp_tsc_map_time(&m, 10000), 4000);
	/* mean rate: 2000 ns over 5000 ticks */
	assert_int_equal(ecp_tsc_map_duration(&m, 5000), 2000);
	ecp_tsc_map_finish(&m);
}

static void test_monotonic(void **state)
{
	struct ecp_tsc_map m;
	uint64_t last = 0;
	(void)state;
	ecp_tsc_map_init(&m);
	assert_int_equal(ecp_tsc_map_add(&m, 1000, 1000), 0);
	/* not later in both clocks: dropped */
	assert_int_equal(ecp_tsc_map_add(&m, 900, 2000), 0);
	assert_int_equal(ecp_tsc_map_add(&m, 2000, 1000), 0);
	assert_int_equal(m.n, 1);
	/* jittery but increasing anchors, many of them */
	for (uint64_t i = 1; i < 1000; i++)
		assert_int_equal(ecp_tsc_map_add(&m, 1000 + 1000 * i + (i % 7) * 37,
						 1000 + 2500 * i + (i % 5) * 91),
				 0);
	assert_int_equal(m.n, 1000);
	/* in and out of order: the hint must not change the answer */
	for (uint64_t t = 0; t < 2600000; t += 997) {
		uint64_t v = ecp_tsc_map_time(&m, t);
		assert_true(v >= last);
		last = v;
	}
	assert_int_equal(ecp_tsc_map_time(&m, 1000 + 2500 * 500 + 0 * 91),
			 1000 + 1000 * 500 + (500 % 7) * 37);
	assert_int_equal(ecp_tsc_map_time(&m, 1000), 1000);
	ecp_tsc_map_finish(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_interpolation),
	    cmocka_unit_test(test_monotonic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
