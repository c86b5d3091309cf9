/* SPDX-License-Identifier: MIT */
/* The timeline (ecp/timeline.h): a thread's CPU-time line mapped onto the
 * simulated run, and its ECP-weighted integral, on a model small enough to
 * work out by hand.  One thread, three segments on its CPU line:
 *   s0: CPU [0, 10),  simulated [0, 20)  (half the rate: shared), weight 1
 *   s1: CPU [10, 10), simulated [25, 25) (zero length),           weight 0
 *   s2: CPU [10, 20), simulated [30, 40),                         weight 0.5 */
#include "tests/engine/check.h"

#include "ecp/timeline.h"

static void test_timeline(void **state)
{
	(void)state;
	struct ecp_thread th = {.first_segment = 0, .n_segments = 3, .parent = ECP_NO_ID};
	struct ecp_segment seg[3] = {{.thread = 0, .length = 10, .cpu_start = 0},
				     {.thread = 0, .length = 0, .cpu_start = 10},
				     {.thread = 0, .length = 10, .cpu_start = 10}};
	struct ecp_model m = {
	    .threads = &th, .n_threads = 1, .segments = seg, .n_segments = 3};
	const uint64_t start[3] = {0, 25, 30}, end[3] = {20, 25, 40};
	const double w[3] = {1.0, 0.0, 0.5};
	struct ecp_timeline tl;
	assert_int_equal(ecp_timeline_init(&tl, &m, start, end, w), 0);
	unsigned checked = 0;
	/* inside a segment: linear */
	assert_true(ecp_timeline_sim_time(&tl, 0, 5, false) == 10.0), checked++;
	assert_true(ecp_timeline_sim_time(&tl, 0, 15, false) == 35.0), checked++;
	/* at the boundary shared by s0, s1, s2: an exit maps to the earliest
	 * segment that reaches it, an entry to the latest that starts there */
	assert_true(ecp_timeline_sim_time(&tl, 0, 10, true) == 20.0), checked++;
	assert_true(ecp_timeline_sim_time(&tl, 0, 10, false) == 30.0), checked++;
	/* the weighted integral: 10 x 1 + 10 x 0.5 */
	assert_true(ecp_timeline_weighted(&tl, 0, 0, 20) == 15.0), checked++;
	assert_true(ecp_timeline_weighted(&tl, 0, 5, 15) == 5.0 + 2.5), checked++;
	assert_true(ecp_timeline_weighted(&tl, 0, 15, 5) == 0.0), checked++;
	/* on the ECP: s0 and s2 weigh, s1 does not */
	assert_true(ecp_timeline_on_ecp(&tl, 0, 2, 4)), checked++;
	assert_true(ecp_timeline_on_ecp(&tl, 0, 12, 14)), checked++;
	ecp_timeline_finish(&tl);
	const double w0[3] = {0.0, 0.0, 0.0};
	assert_int_equal(ecp_timeline_init(&tl, &m, start, end, w0), 0);
	assert_false(ecp_timeline_on_ecp(&tl, 0, 0, 20)), checked++;
	assert_true(ecp_timeline_weighted(&tl, 0, 0, 20) == 0.0), checked++;
	ecp_timeline_finish(&tl);
	assert_int_equal(checked, 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_timeline)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
