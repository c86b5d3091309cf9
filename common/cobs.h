/* SPDX-License-Identifier: MIT */
/* Consistent Overhead Byte Stuffing (Cheshire and Baker, 1999): any bytes
 * as a string with no NUL, at most one byte longer per 254.
 *
 * A sample's copy of the user stack (up to 64 KiB, mostly zeros and
 * pointers) travels in the trace as a CTF string encoded this way, or
 * since in the variant with zero runs below: babeltrace2 reads a string in
 * bulk, where an array of integers costs one field object per element
 * (issue 35: 69% of a sampled analysis).  The agent's function batches
 * are COBS. */
#ifndef ECP_COMMON_COBS_H
#define ECP_COMMON_COBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most bytes ecp_cobs_encode writes for n bytes, its NUL included. */
static inline size_t ecp_cobs_max(size_t n)
{
	return n + n / 254 + 2;
}

/* Encodes n bytes of src into dst (ecp_cobs_max(n) bytes), NUL-terminated;
 * returns the encoded length without the NUL. */
size_t ecp_cobs_encode(const void *src, size_t n, char *dst);

/* Decodes the n bytes of src, a string (no NUL among them: the caller's
 * strlen, a CTF string's length), into dst (cap bytes); returns the decoded
 * length, or -1 when src is not an encoding (a block past its end) or the
 * result would not fit. */
int64_t ecp_cobs_decode(const char *src, size_t n, void *dst, size_t cap);

/* COBS with zero runs: how a sample's stack is written since the stack
 * copies proved to be mostly zeros, in runs (90% of xz's bytes, 83% of
 * its words): COBS spent a block on each zero, 2 bytes a block on average,
 * and the trace kept all 8 KiB of each.
 * Each block is a code byte c = 1 + L + 16 * Z (1..255), then L non-zero
 * bytes (0..15), which stand for themselves followed by ecp_cobs_zero_run[Z]
 * zeros (0-8, 10, 12, 16, 24, 32, 64 or 256).  Nothing is implied at the
 * end: the blocks add up to the bytes.  xz's stacks take 7.5 times less
 * room than in COBS, and a reader has a quarter of the blocks to walk. */
extern const unsigned short ecp_cobs_zero_run[16];

/* The most bytes ecp_cobs_zr_encode writes for n bytes, its NUL included:
 * 16 for 15 non-zero bytes at worst. */
static inline size_t ecp_cobs_zr_max(size_t n)
{
	return n + n / 15 + 2;
}

/* Encodes n bytes of src into dst (ecp_cobs_zr_max(n) bytes),
 * NUL-terminated; returns the encoded length without the NUL (0 for n 0). */
size_t ecp_cobs_zr_encode(const void *src, size_t n, char *dst);

/* Decodes as ecp_cobs_decode does, from COBS with zero runs. */
int64_t ecp_cobs_zr_decode(const char *src, size_t n, void *dst, size_t cap);

/* Decoding as far as a reader needs: the unwinder reads a few hundred
 * bytes of a stack copy of up to 64 KiB. */
struct ecp_cobs_cursor {
	const unsigned char *in;
	size_t n, i; /* the input and how far it is read */
	unsigned char *out;
	size_t cap, o;  /* the output's room and how much is written */
	bool zero_runs; /* COBS with zero runs, else COBS */
	bool zero_due;  /* (COBS) the block read last stands for a zero after it */
	bool bad;       /* not an encoding, or more than cap */
};

void ecp_cobs_cursor_init(struct ecp_cobs_cursor *c, const char *src, size_t n, void *dst,
			  size_t cap);

/* The same for COBS with zero runs. */
void ecp_cobs_zr_cursor_init(struct ecp_cobs_cursor *c, const char *src, size_t n,
			     void *dst, size_t cap);

/* Decodes until `want` bytes are out or the input ends; returns the bytes
 * out so far, or -1 once the input is found not to be an encoding (or to
 * need more than cap). */
int64_t ecp_cobs_cursor_reach(struct ecp_cobs_cursor *c, size_t want);

#endif
