/* SPDX-License-Identifier: MIT */
/* A thread's stays on the CPU as the builder keeps them (issue 35: in
 * blocks of 64, 32-bit offsets from each block's first stay, a block
 * kept whole where they do not fit): on random switch records -- gaps of
 * microseconds and now and then of 4.3 to 9 s, so that blocks span more
 * than 32 bits of ns, and a thread on the CPU before the records begin --
 * each segment's CPU time equals the on-CPU time between its events,
 * summed here from the records themselves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tests/support/event-seq.h"

#define MAIN      1
#define COND      0x2000
#define START_FN  0x1000
#define CASES     300
#define MAX_STAYS 400
#define BLOCK     64 /* the builder's SCHED_BLOCK */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t between(uint64_t lo, uint64_t hi)
{
	return lo + next_rand() % (hi - lo + 1);
}

struct stay {
	uint64_t in, out;
};

/* On-CPU time before t: the stays' overlap with [0, t). */
static uint64_t cpu_before(const struct stay *st, size_t n, uint64_t t)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n && st[i].in < t; i++)
		sum += (t < st[i].out ? t : st[i].out) - st[i].in;
	return sum;
}

/* Whether some block of 64 stays spans more than 32 bits of ns (or
 * starts with the open start at 0): the builder keeps it whole. */
static bool has_wide_block(const struct stay *st, size_t n)
{
	for (size_t first = 0; first < n; first += BLOCK) {
		size_t last = first + BLOCK < n ? first + BLOCK - 1 : n - 1;
		if (st[last].in - st[first].in > UINT32_MAX)
			return true;
	}
	return false;
}

static void test_segment_lengths_from_the_stays(void **state)
{
	(void)state;
	static struct stay st[MAX_STAYS];
	static uint64_t at[2 * MAX_STAYS];
	int ran = 0, wide = 0, open_start = 0, events = 0;
	for (int c = 0; c < CASES; c++) {
		size_t n = (size_t)between(1, MAX_STAYS);
		bool on_before = next_rand() % 4 == 0;
		/* a third of the cases without long gaps: every block narrow */
		uint64_t long_gap_in = next_rand() % 3 ? 40 : 0;
		uint64_t t = 1000;
		for (size_t i = 0; i < n; i++) {
			st[i].in = i == 0 && on_before ? 0 : t;
			st[i].out = t + between(1, 200000);
			bool long_gap = long_gap_in && next_rand() % long_gap_in == 0;
			t = st[i].out + (long_gap ? between(4300000000ull, 9000000000ull)
						  : between(1000, 100000));
		}
		struct ecp_test_seq s;
		ecp_test_seq_init(&s);
		for (size_t i = 0; i < n; i++) {
			if (st[i].in)
				ecp_test_switch(&s, MAIN, st[i].in, 0, 0);
			ecp_test_switch(&s, MAIN, st[i].out, 1, (int)(next_rand() % 2));
		}
		/* events inside the stays, in time: a start, signals, an exit */
		size_t n_at = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t from = st[i].in ? st[i].in : st[i].out - 1;
			int k = (int)(next_rand() % 3);
			for (int j = 0;
			     j < k || (i == 0 && j < 1) || (i + 1 == n && j < 1); j++) {
				uint64_t e = between(from, st[i].out);
				if (!n_at || e > at[n_at - 1])
					at[n_at++] = e;
			}
		}
		if (n_at < 2) {
			ecp_test_seq_finish(&s);
			c--;
			continue;
		}
		ecp_test_ev(&s, MAIN, at[0], ECP_EV_THREAD_START, 0, 0, START_FN);
		for (size_t k = 1; k + 1 < n_at; k++)
			ecp_test_ev(&s, MAIN, at[k], ECP_EV_COND_SIGNAL, COND, 0, 0);
		ecp_test_ev(&s, MAIN, at[n_at - 1], ECP_EV_PROCESS_EXIT, 0, 0, 0);

		struct ecp_error err = {0};
		struct ecp_model *m = ecp_test_seq_build(&s, NULL, &err);
		if (!m)
			fail_msg("case %d: build failed: %s", c, err.msg);
		assert_int_equal(m->n_threads, 1);
		assert_int_equal(m->threads[0].n_segments, n_at - 1);
		uint64_t base = cpu_before(st, n, at[0]);
		for (size_t k = 0; k + 1 < n_at; k++) {
			const struct ecp_segment *seg =
			    &m->segments[ecp_test_seg(m, 0, (uint32_t)k)];
			uint64_t a = cpu_before(st, n, at[k]),
				 b = cpu_before(st, n, at[k + 1]);
			if (seg->length != b - a || seg->cpu_start != a - base)
				fail_msg(
				    "case %d, %zu stays, segment %zu: length %llu from "
				    "%llu, the records give %llu from %llu",
				    c, n, k, (unsigned long long)seg->length,
				    (unsigned long long)seg->cpu_start,
				    (unsigned long long)(b - a),
				    (unsigned long long)(a - base));
		}
		events += (int)n_at;
		wide += has_wide_block(st, n);
		open_start += on_before;
		ran++;
		ecp_model_destroy(m);
		ecp_test_seq_finish(&s);
	}
	assert_int_equal(ran, CASES);
	/* the three shapes the packing must keep apart were met */
	assert_true(wide >= CASES / 10);
	assert_true(open_start >= CASES / 10);
	assert_true(ran - wide >= CASES / 10);
	print_message("%d cases, %d events, %d with a block kept whole, %d on the CPU "
		      "before the records\n",
		      ran, events, wide, open_start);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_segment_lengths_from_the_stays),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
