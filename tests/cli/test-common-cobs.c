/* SPDX-License-Identifier: MIT */
/* common/cobs: a sample's stack in the trace (issue 35).  Random buffers of
 * every length around the 254-byte block size, dense and sparse in zeros,
 * go through and back; what is not an encoding is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/cobs.h"
#include "tests/support/xorshift.h"

#define MAX_LEN 1100

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next(void)
{
	return (uint32_t)ecp_test_xorshift(&rng);
}

static void test_round_trip(void **state)
{
	(void)state;
	unsigned char src[MAX_LEN], back[MAX_LEN];
	char enc[MAX_LEN + MAX_LEN / 254 + 2];
	unsigned cases = 0;
	/* zero density: none, 1 in 300, 1 in 8, half, all */
	const unsigned one_in[] = {0, 300, 8, 2, 1};
	for (size_t n = 0; n <= MAX_LEN; n++) {
		for (size_t d = 0; d < sizeof(one_in) / sizeof(*one_in); d++) {
			for (size_t i = 0; i < n; i++) {
				bool zero = one_in[d] && next() % one_in[d] == 0;
				src[i] = zero ? 0 : (unsigned char)(1 + next() % 255);
			}
			size_t len = ecp_cobs_encode(src, n, enc);
			assert_true(len + 1 <= ecp_cobs_max(n));
			assert_int_equal(strlen(enc), len);
			assert_int_equal(ecp_cobs_decode(enc, len, back, n), (int64_t)n);
			assert_memory_equal(src, back, n);
			if (n)
				assert_int_equal(ecp_cobs_decode(enc, len, back, n - 1),
						 -1);
			/* as the unwinder reads: a little further each time */
			struct ecp_cobs_cursor c;
			memset(back, 0xA5, sizeof(back));
			ecp_cobs_cursor_init(&c, enc, len, back, n);
			int64_t have = 0;
			for (size_t want = 0; have < (int64_t)n;
			     want += 1 + next() % 40) {
				have = ecp_cobs_cursor_reach(&c, want);
				assert_true(have >= (int64_t)(want < n ? want : n));
			}
			assert_int_equal(ecp_cobs_cursor_reach(&c, SIZE_MAX), (int64_t)n);
			assert_memory_equal(src, back, n);
			cases++;
		}
	}
	assert_int_equal(cases, (MAX_LEN + 1) * 5);
}

static void test_known_encodings(void **state)
{
	(void)state;
	char enc[16];
	assert_int_equal(ecp_cobs_encode("", 0, enc), 1);
	assert_string_equal(enc, "\x01");
	assert_int_equal(ecp_cobs_encode("\0", 1, enc), 2);
	assert_string_equal(enc, "\x01\x01");
	assert_int_equal(ecp_cobs_encode("ab\0c", 4, enc), 5);
	assert_string_equal(enc, "\x03"
				 "ab"
				 "\x02"
				 "c");
}

static void test_refused(void **state)
{
	(void)state;
	unsigned char out[64];
	/* a code byte of 0, a block longer than what follows (at the end, and
	 * by one byte), a result one byte over the room */
	assert_int_equal(ecp_cobs_decode("\x00", 1, out, sizeof(out)), -1);
	assert_int_equal(ecp_cobs_decode("\x05"
					 "ab",
					 3, out, sizeof(out)),
			 -1);
	assert_int_equal(ecp_cobs_decode("\x02"
					 "a"
					 "\x03"
					 "b",
					 4, out, sizeof(out)),
			 -1);
	assert_int_equal(ecp_cobs_decode("\x02"
					 "a"
					 "\x02"
					 "b",
					 4, out, 2),
			 -1);
	assert_int_equal(ecp_cobs_decode("\x02"
					 "a"
					 "\x02"
					 "b",
					 4, out, 3),
			 3);
	assert_int_equal(ecp_cobs_decode("\x03"
					 "ab",
					 3, out, sizeof(out)),
			 2);
	assert_int_equal(ecp_cobs_decode("", 0, out, sizeof(out)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_known_encodings),
	    cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
