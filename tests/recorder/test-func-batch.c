/* SPDX-License-Identifier: MIT */
/* recorder/agent/func-batch.h: function records in batches (issue 35).
 * Random records -- small and huge deltas of time, addresses and call
 * sites, times going backwards, repeats -- go through the agent's encoder,
 * batch by batch as the agent cuts them, through the agent's COBS encoding
 * (as in the trace) and back through common/cobs.h's decoder and the
 * reader's batch decoder, record for record; truncated, garbled and
 * extended batches are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/cobs.h"
#include "recorder/agent/func-batch.h"
#include "tests/support/xorshift.h"

#define RECORDS  200000u
#define COBS_MAX ECP_BATCH_COBS_MAX

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	return ecp_test_xorshift(&rng);
}

/* A value near `prev`: the same, a small step either way, or anything. */
static uint64_t near(uint64_t prev)
{
	switch (next() % 6) {
	case 0:
		return prev;
	case 1:
		return prev + next() % 300;
	case 2:
		return prev - next() % 5000;
	case 3:
		return prev + (next() % 0x200000);
	case 4:
		return next() >> (next() % 64);
	default:
		return next() % 3 == 0 ? UINT64_MAX - next() % 3 : next() % 3;
	}
}

static struct ecp_batch_record want[RECORDS];

/* Decodes one batch (COBS text as in the trace) against want[from..). */
static uint64_t check_batch(const char *cobs, size_t len, uint32_t n, uint64_t from)
{
	static unsigned char raw[ECP_BATCH_BYTES];
	int64_t got = ecp_cobs_decode(cobs, len, raw, sizeof(raw));
	assert_true(got > 0);
	struct ecp_batch_reader r;
	struct ecp_batch_record rec;
	const char *why = NULL;
	assert_int_equal(ecp_batch_reader_init(&r, raw, (size_t)got, &why), 0);
	uint64_t i = from;
	int rc;
	while ((rc = ecp_batch_next(&r, &rec, &why)) > 0) {
		assert_true(i < RECORDS);
		assert_int_equal(rec.kind, want[i].kind);
		assert_true(rec.tsc == want[i].tsc);
		assert_true(rec.addr == want[i].addr);
		assert_true(rec.site == want[i].site);
		i++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(r.n, n);
	return i;
}

static void test_round_trip(void **state)
{
	(void)state;
	static struct ecp_batch b;
	static char cobs[COBS_MAX];
	uint64_t tsc = 1ull << 40, addr = 0x401000, site = 0x401234, decoded = 0,
		 from = 0;
	unsigned batches = 0;
	ecp_batch_reset(&b);
	for (uint64_t i = 0; i < RECORDS; i++) {
		struct ecp_batch_record *w = &want[i];
		w->kind = (unsigned)(next() % 3);
		w->tsc = tsc = near(tsc);
		w->addr = addr = near(addr);
		w->site = w->kind == ECP_BATCH_ENTRY ? (site = near(site)) : 0;
		int full = ecp_batch_put(&b, w->kind, w->tsc, w->addr, w->site);
		assert_true(b.used <= ECP_BATCH_BYTES);
		if (full || i + 1 == RECORDS) {
			size_t len = ecp_batch_cobs(&b, cobs);
			/* the same bytes as the reader's own encoder writes */
			static char ref[COBS_MAX];
			assert_int_equal(ecp_cobs_encode(b.buf, b.used, ref), len);
			assert_memory_equal(ref, cobs, len + 1);
			assert_true(len < COBS_MAX);
			assert_int_equal(strlen(cobs), len);
			decoded = check_batch(cobs, len, b.n, from);
			assert_true(decoded == i + 1);
			from = decoded;
			ecp_batch_reset(&b);
			batches++;
		}
	}
	assert_true(decoded == RECORDS);
	assert_true(batches > RECORDS / 1000);
}

/* The agent's typical batch: one function called in a loop from one site
 * costs 3 bytes a record. */
static void test_compact(void **state)
{
	(void)state;
	static struct ecp_batch b;
	ecp_batch_reset(&b);
	uint64_t t = 1ull << 44;
	ecp_batch_put(&b, ECP_BATCH_ENTRY, t, 0x401000, 0x401500);
	uint32_t before = b.used;
	for (int i = 0; i < 100; i++) {
		ecp_batch_put(&b, ECP_BATCH_ENTRY, t += 300, 0x401000, 0x401500);
		ecp_batch_put(&b, ECP_BATCH_EXIT, t += 300, 0x401000, 0);
	}
	assert_int_equal(b.used - before, 200 * 3);
}

static int decode_all(const unsigned char *raw, size_t len, uint64_t *n, const char **why)
{
	struct ecp_batch_reader r;
	struct ecp_batch_record rec;
	int rc;
	*why = NULL;
	if (ecp_batch_reader_init(&r, raw, len, why) < 0)
		return -1;
	while ((rc = ecp_batch_next(&r, &rec, why)) > 0)
		;
	*n = r.n;
	return rc;
}

static void test_refused(void **state)
{
	(void)state;
	static struct ecp_batch b;
	const char *why;
	uint64_t n;
	ecp_batch_reset(&b);
	ecp_batch_put(&b, ECP_BATCH_ENTRY, 1ull << 50, 0x7f0000401000ull,
		      0x7f0000401500ull);
	ecp_batch_put(&b, ECP_BATCH_EXIT, (1ull << 50) + 70000, 0x7f0000401000ull, 0);
	assert_int_equal(decode_all(b.buf, b.used, &n, &why), 0);
	assert_int_equal(n, 2);
	/* cut anywhere inside the last record: refused, never a short read */
	unsigned cut_ok = 0;
	for (uint32_t len = 2; len < b.used; len++) {
		if (decode_all(b.buf, len, &n, &why) == 0) {
			cut_ok++; /* only where a whole first record ends */
			assert_int_equal(n, 1);
		} else {
			assert_non_null(why);
		}
	}
	assert_int_equal(cut_ok, 1);
	/* no format byte, another format, an empty batch */
	assert_int_equal(decode_all(b.buf, 0, &n, &why), -1);
	unsigned char bad[64];
	memcpy(bad, b.buf, b.used);
	bad[0] = 2;
	assert_int_equal(decode_all(bad, b.used, &n, &why), -1);
	/* unknown kinds and flags */
	const unsigned char tags[] = {3, 0x10, 0x80,
				      ECP_BATCH_EXIT | ECP_BATCH_SAME_SITE};
	for (size_t k = 0; k < sizeof(tags); k++) {
		unsigned char one[] = {ECP_BATCH_FORMAT, tags[k], 1, 1, 1};
		assert_int_equal(decode_all(one, sizeof(one), &n, &why), -1);
		assert_non_null(why);
	}
	/* a number longer than 10 bytes, or over 64 bits */
	unsigned char longer[16] = {ECP_BATCH_FORMAT,
				    ECP_BATCH_EXIT | ECP_BATCH_SAME_ADDR};
	memset(longer + 2, 0x80, 10);
	longer[12] = 1;
	assert_int_equal(decode_all(longer, 13, &n, &why), -1);
	unsigned char over[12] = {ECP_BATCH_FORMAT, ECP_BATCH_EXIT | ECP_BATCH_SAME_ADDR};
	memset(over + 2, 0xff, 9);
	over[11] = 2;
	assert_int_equal(decode_all(over, 12, &n, &why), -1);
	over[11] = 1; /* 2^64 - 1: the largest, taken */
	assert_int_equal(decode_all(over, 12, &n, &why), 0);
	/* garbled bytes: refused or decoded, always within the input */
	static unsigned char junk[512];
	for (int round = 0; round < 20000; round++) {
		size_t len = 1 + next() % sizeof(junk);
		for (size_t i = 0; i < len; i++)
			junk[i] = (unsigned char)next();
		junk[0] = ECP_BATCH_FORMAT;
		int rc = decode_all(junk, len, &n, &why);
		assert_true(rc == 0 || (rc == -1 && why));
		assert_true(n <= len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_compact),
	    cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
