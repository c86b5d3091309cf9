/* SPDX-License-Identifier: MIT */
/* common/checksum: both sums are the same whatever pieces a stream comes
 * in (the manifest reads 64 KiB at a time, the cache writes table by
 * table), and damage (a flipped byte, a zero more) changes them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/checksum.h"
#include "tests/support/xorshift.h"

#define LEN 70001

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t next(void)
{
	return (uint32_t)ecp_test_xorshift(&rng);
}

static unsigned char data[LEN + 1];

static uint64_t sum1(const unsigned char *p, size_t n, size_t piece_max)
{
	struct ecp_csum c = {0};
	for (size_t i = 0; i < n;) {
		size_t k = piece_max ? 1 + next() % piece_max : n;
		k = k < n - i ? k : n - i;
		ecp_csum_add(&c, p + i, k);
		i += k;
	}
	return ecp_csum_end(&c);
}

static uint64_t sum4(const unsigned char *p, size_t n, size_t piece_max)
{
	struct ecp_csum4 c = {0};
	for (size_t i = 0; i < n;) {
		size_t k = piece_max ? 1 + next() % piece_max : n;
		k = k < n - i ? k : n - i;
		ecp_csum4_add(&c, p + i, k);
		i += k;
	}
	return ecp_csum4_end(&c);
}

static void test_pieces_and_damage(void **state)
{
	(void)state;
	for (size_t i = 0; i < LEN; i++)
		data[i] = (unsigned char)next();
	uint64_t whole1 = sum1(data, LEN, 0), whole4 = sum4(data, LEN, 0);
	unsigned splits = 0, flips = 0;
	/* pieces of 1..k bytes, around the 8- and 32-byte blocks */
	const size_t piece_max[] = {1, 7, 9, 31, 33, 4096, 65536};
	for (size_t m = 0; m < sizeof(piece_max) / sizeof(*piece_max); m++) {
		for (int t = 0; t < 3; t++) {
			assert_true(sum1(data, LEN, piece_max[m]) == whole1);
			assert_true(sum4(data, LEN, piece_max[m]) == whole4);
			splits++;
		}
	}
	for (int t = 0; t < 300; t++) {
		size_t at = next() % LEN;
		unsigned char bit = (unsigned char)(1u << (next() % 8));
		data[at] ^= bit;
		assert_true(sum1(data, LEN, 0) != whole1);
		assert_true(sum4(data, LEN, 0) != whole4);
		data[at] ^= bit;
		flips++;
	}
	/* one zero more, and one byte less */
	data[LEN] = 0;
	assert_true(sum4(data, LEN + 1, 0) != whole4);
	assert_true(sum4(data, LEN - 1, 0) != whole4);
	assert_true(sum1(data, LEN - 1, 0) != whole1);
	assert_int_equal(splits, 21);
	assert_int_equal(flips, 300);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pieces_and_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
