/* SPDX-License-Identifier: MIT */
/* common/cobs: a sample's stack in the trace (issue 35).  Random buffers of
 * every length around the 254-byte block size, dense and sparse in zeros,
 * go through and back, in COBS and in COBS with zero runs; what is not an
 * encoding is refused. */
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

/* Zeros in runs of every length around the run lengths a code can say (up to
 * 256) and non-zero bytes in runs around the 15 a block holds, as stacks
 * have them, go through and back. */
static void test_zr_round_trip(void **state)
{
	(void)state;
	unsigned char src[MAX_LEN], back[MAX_LEN];
	char enc[MAX_LEN + MAX_LEN / 15 + 2];
	/* zero density: none, 1 in 300, 1 in 8, half, all; and runs */
	const unsigned one_in[] = {0, 300, 8, 2, 1, 0};
	for (size_t n = 0; n <= MAX_LEN; n++) {
		for (size_t d = 0; d < sizeof(one_in) / sizeof(*one_in); d++) {
			if (d == 5) { /* runs: zeros 0-300 long, bytes 0-40 */
				for (size_t i = 0; i < n;) {
					size_t z = next() % 301, b = next() % 41;
					for (; z && i < n; z--)
						src[i++] = 0;
					for (; b && i < n; b--)
						src[i++] =
						    (unsigned char)(1 + next() % 255);
				}
			} else {
				for (size_t i = 0; i < n; i++) {
					bool zero = one_in[d] && next() % one_in[d] == 0;
					src[i] =
					    zero ? 0 : (unsigned char)(1 + next() % 255);
				}
			}
			size_t len = ecp_cobs_zr_encode(src, n, enc);
			assert_true(len + 1 <= ecp_cobs_zr_max(n));
			assert_int_equal(strlen(enc), len);
			assert_int_equal(ecp_cobs_zr_decode(enc, len, back, n),
					 (int64_t)n);
			assert_memory_equal(src, back, n);
			if (n)
				assert_int_equal(
				    ecp_cobs_zr_decode(enc, len, back, n - 1), -1);
			struct ecp_cobs_cursor c;
			memset(back, 0xA5, sizeof(back));
			ecp_cobs_zr_cursor_init(&c, enc, len, back, n);
			int64_t have = 0;
			for (size_t want = 0; have < (int64_t)n;
			     want += 1 + next() % 40) {
				have = ecp_cobs_cursor_reach(&c, want);
				assert_true(have >= (int64_t)(want < n ? want : n));
			}
			assert_int_equal(ecp_cobs_cursor_reach(&c, SIZE_MAX), (int64_t)n);
			assert_memory_equal(src, back, n);
		}
	}
}

/* The worst case (no zeros: 16 bytes for 15) fits ecp_cobs_zr_max, and
 * the blocks are as documented. */
static void test_zr_known_encodings(void **state)
{
	(void)state;
	char enc[64];
	unsigned char zeros[300] = {0}, ones[30];
	memset(ones, 1, sizeof(ones));
	assert_int_equal(ecp_cobs_zr_encode("", 0, enc), 0);
	assert_string_equal(enc, "");
	/* 1 + L + 16 * Z: "ab" then 2 zeros (Z 2), "c" */
	assert_int_equal(ecp_cobs_zr_encode("ab\0\0c", 5, enc), 5);
	assert_string_equal(enc, "\x23"
				 "ab"
				 "\x02"
				 "c");
	/* 300 zeros: 256 (Z 15), 32 (Z 13), 12 (Z 10) */
	assert_int_equal(ecp_cobs_zr_encode(zeros, 300, enc), 3);
	assert_string_equal(enc, "\xf1\xd1\xa1");
	/* 30 non-zero bytes: two blocks of 15 */
	assert_int_equal(ecp_cobs_zr_encode(ones, 30, enc), 32);
	assert_int_equal((unsigned char)enc[0], 16);
	assert_int_equal((unsigned char)enc[16], 16);
	assert_true(32 + 1 <= ecp_cobs_zr_max(30));
}

static void test_zr_refused(void **state)
{
	(void)state;
	unsigned char out[64];
	/* a code of 0, a block longer than what follows, zeros past the room */
	assert_int_equal(ecp_cobs_zr_decode("\x00", 1, out, sizeof(out)), -1);
	assert_int_equal(ecp_cobs_zr_decode("\x04"
					    "ab",
					    3, out, sizeof(out)),
			 -1);
	assert_int_equal(ecp_cobs_zr_decode("\xd1", 1, out, 31), -1);
	assert_int_equal(ecp_cobs_zr_decode("\xd1", 1, out, 32), 32);
	assert_int_equal(ecp_cobs_zr_decode("\x03"
					    "ab",
					    3, out, sizeof(out)),
			 2);
	assert_int_equal(ecp_cobs_zr_decode("", 0, out, sizeof(out)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_known_encodings),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_zr_round_trip),
	    cmocka_unit_test(test_zr_known_encodings),
	    cmocka_unit_test(test_zr_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
