/* SPDX-License-Identifier: MIT */
/* Unit tests of the time busy intervals take on P CPUs under ideal sharing
 * (simulator/model/task-shared.c, the task deal's tie check): against a
 * slow oracle that walks every ns, on random intervals with ties and
 * gaps, at P = 1 to 5. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "simulator/model/task-graph.h"

/* xorshift64*: the cases are the same on every run */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* Every ns from 0 to the last end: b threads busy take max(b, P) / P of
 * it; the sum in P-ths of a ns, rounded to the nearest ns, halves up. */
static uint64_t oracle(const struct ecp_task_busy *busy, size_t n, unsigned procs)
{
	uint64_t end = 0, start = UINT64_MAX, sum = 0;
	for (size_t i = 0; i < n; i++) {
		end = busy[i].end > end ? busy[i].end : end;
		start = busy[i].start < start ? busy[i].start : start;
	}
	for (uint64_t t = start; n && t < end; t++) {
		unsigned b = 0;
		for (size_t i = 0; i < n; i++)
			b += busy[i].start <= t && t < busy[i].end;
		sum += b > procs ? b : procs;
	}
	return (sum + procs / 2) / procs;
}

static void test_against_oracle(void **state)
{
	(void)state;
	uint64_t seed = 0x5eed;
	unsigned checked = 0;
	struct ecp_task_busy busy[12];
	for (int c = 0; c < 400; c++) {
		size_t n = 1 + next(&seed) % 12;
		for (size_t i = 0; i < n; i++) {
			/* starts on a coarse grid, so that many tie */
			uint64_t s = (next(&seed) % 20) * 10;
			busy[i] = (struct ecp_task_busy){s, s + next(&seed) % 60};
		}
		for (unsigned p = 1; p <= 5; p++) {
			uint64_t got;
			assert_int_equal(ecp_task_shared_ns(busy, n, p, &got), 0);
			uint64_t want = oracle(busy, n, p);
			if (got != want)
				fail_msg("case %d, %zu intervals, P = %u: %llu ns, the "
					 "oracle %llu",
					 c, n, p, (unsigned long long)got,
					 (unsigned long long)want);
			checked++;
		}
	}
	assert_int_equal(checked, 400 * 5);
}

/* Three threads busy 0-30 on two CPUs: 45; with a gap none is busy in,
 * the gap passes as it is. */
static void test_examples(void **state)
{
	(void)state;
	struct ecp_task_busy three[] = {{0, 30}, {0, 30}, {0, 30}};
	struct ecp_task_busy gap[] = {{0, 10}, {20, 30}};
	uint64_t got;
	assert_int_equal(ecp_task_shared_ns(three, 3, 2, &got), 0);
	assert_int_equal(got, 45);
	assert_int_equal(ecp_task_shared_ns(gap, 2, 2, &got), 0);
	assert_int_equal(got, 30);
	assert_int_equal(ecp_task_shared_ns(NULL, 0, 2, &got), 0);
	assert_int_equal(got, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_against_oracle),
	    cmocka_unit_test(test_examples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
