/* SPDX-License-Identifier: MIT */
/* The byte format the fuzz-builder target decodes into model-builder pushes,
 * shared by the harness (harness-builder.c) and the seed generator
 * (gen-corpus.c) so that seeds mean what the harness reads.
 *
 * Input = one options byte, then 8-byte records (a trailing partial record
 * is ignored):
 *
 *     options   bit 0: keep_calls; bits 1-2: event cost (0, 3, 50, 1000 ns);
 *               bit 3: by_callsite; bit 4: ignore_function_events
 *     record    [0] type      modulo ECP_EV_COUNT + 1; ECP_EV_COUNT itself
 *                             means ecp_builder_set_comm(tid, name a), or
 *                             with bit 5 of [1] ecp_builder_push_sample(tid,
 *                             stack a, b, c: [7] % 3 + 1 frames of them)
 *               [1] tid/flags bits 0-2: tid (1..6, then 0 and UINT32_MAX);
 *                             bit 3: flags = ECP_EVF_TRY; bit 4: the time
 *                             delta goes backwards; bit 5: see [0]
 *               [2..4] a b c  value codes, ecp_fuzz_value()
 *               [5..6]        time delta, little endian (0xffff: +2^40 ns)
 *               [7]           thread CPU time delta / 16 ns (per tid)
 *
 * Value codes are chosen so that random bytes hit the values the builder
 * matches on: small integers (kinds, modes, errno, counts, create ids),
 * thread handles, synchronization object addresses, function addresses,
 * ETIMEDOUT, and a few extremes. */
#ifndef ECP_FUZZ_BUILDER_FORMAT_H
#define ECP_FUZZ_BUILDER_FORMAT_H

#include <errno.h>
#include <stdint.h>

#define ECP_FUZZ_REC_SIZE 8u

#define ECP_FUZZ_OPT_KEEP_CALLS   0x1u
#define ECP_FUZZ_OPT_BY_CALLSITE  0x8u
#define ECP_FUZZ_OPT_SAMPLES_ONLY 0x10u
#define ECP_FUZZ_SAMPLE           0x20u /* in a record's [1], with type ECP_EV_COUNT */

/* Value codes for the generator. */
#define ECP_FUZZ_HANDLE(k) ((uint8_t)(0x40u + (k))) /* 0x1000 * (k + 1) */
#define ECP_FUZZ_OBJ(k)    ((uint8_t)(0x60u + (k))) /* 0xa0 + 8 k */
#define ECP_FUZZ_FN(k)     ((uint8_t)(0x80u + (k))) /* 0x400000 + 16 k */
#define ECP_FUZZ_ETIMEDOUT 0xfcu

static inline uint64_t ecp_fuzz_value(uint8_t code)
{
	if (code < 0x40u)
		return code;
	if (code < 0x60u)
		return 0x1000u * (uint64_t)(code - 0x3fu);
	if (code < 0x80u)
		return 0xa0u + 8u * (uint64_t)(code - 0x60u);
	if (code < 0xc0u)
		return 0x400000u + 0x10u * (uint64_t)(code - 0x80u);
	if (code == 0xffu)
		return UINT64_MAX;
	if (code == 0xfeu)
		return (uint64_t)1 << 63;
	if (code == 0xfdu)
		return UINT32_MAX;
	if (code == ECP_FUZZ_ETIMEDOUT)
		return ETIMEDOUT; /* the timed waits' outcome, above the small range */
	return (uint64_t)(code - 0xc0u) * 1000003u; /* timeouts, odd values */
}

static inline uint32_t ecp_fuzz_tid(uint8_t tidflags)
{
	uint32_t t = tidflags & 7u;
	if (t < 6u)
		return t + 1u;
	return t == 6u ? 0u : UINT32_MAX;
}

#endif
