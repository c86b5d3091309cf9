/* SPDX-License-Identifier: MIT */
/* Consistent Overhead Byte Stuffing (Cheshire and Baker, 1999): any bytes
 * as a string with no NUL, at most one byte longer per 254.
 *
 * A sample's copy of the user stack (up to 64 KiB, mostly zeros and
 * pointers) travels in the trace as a CTF string encoded this way:
 * babeltrace2 reads a string in bulk, where an array of integers costs one
 * field object per element (issue 35: 69% of a sampled analysis). */
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

/* Decoding as far as a reader needs: the unwinder reads a few hundred
 * bytes of a stack copy of up to 64 KiB. */
struct ecp_cobs_cursor {
	const unsigned char *in;
	size_t n, i; /* the input and how far it is read */
	unsigned char *out;
	size_t cap, o; /* the output's room and how much is written */
	bool zero_due; /* the block read last stands for a zero after it */
	bool bad;      /* not an encoding, or more than cap */
};

void ecp_cobs_cursor_init(struct ecp_cobs_cursor *c, const char *src, size_t n, void *dst,
			  size_t cap);

/* Decodes until `want` bytes are out or the input ends; returns the bytes
 * out so far, or -1 once the input is found not to be an encoding (or to
 * need more than cap). */
int64_t ecp_cobs_cursor_reach(struct ecp_cobs_cursor *c, size_t want);

#endif
