/* SPDX-License-Identifier: MIT */
#include "common/cobs.h"

#include <string.h>

size_t ecp_cobs_encode(const void *src, size_t n, char *dst)
{
	const unsigned char *in = src;
	unsigned char *out = (unsigned char *)dst;
	/* each block: a code byte (1 + the non-zero bytes that follow it; 0xFF
	 * for 254 of them and no zero after) then those bytes */
	size_t code_at = 0, o = 1;
	unsigned code = 1;
	for (size_t i = 0; i < n; i++) {
		if (in[i]) {
			out[o++] = in[i];
			code++;
		}
		if (!in[i] || code == 0xFF) {
			out[code_at] = (unsigned char)code;
			code_at = o++;
			code = 1;
		}
	}
	out[code_at] = (unsigned char)code;
	out[o] = 0;
	return o;
}

void ecp_cobs_cursor_init(struct ecp_cobs_cursor *c, const char *src, size_t n, void *dst,
			  size_t cap)
{
	*c = (struct ecp_cobs_cursor){
	    .in = (const unsigned char *)src, .n = n, .out = dst, .cap = cap};
}

static int64_t zr_reach(struct ecp_cobs_cursor *c, size_t want);

int64_t ecp_cobs_cursor_reach(struct ecp_cobs_cursor *c, size_t want)
{
	if (c->zero_runs)
		return zr_reach(c, want);
	const unsigned char *in = c->in;
	unsigned char *out = c->out;
	size_t i = c->i, o = c->o;
	while (!c->bad && o < want && i < c->n) {
		/* the zero the previous short block stands for: it is written
		 * only once a block follows it, as the last block has none */
		if (c->zero_due) {
			if (o == c->cap) {
				c->bad = true;
				break;
			}
			out[o++] = 0;
			c->zero_due = false;
		}
		unsigned code = in[i++];
		if (!code || code - 1 > c->n - i || code - 1 > c->cap - o) {
			c->bad = true;
			break;
		}
		/* byte by byte: most blocks of a stack are a few bytes long */
		for (unsigned k = 1; k < code; k++)
			out[o++] = in[i++];
		c->zero_due = code < 0xFF;
	}
	c->i = i;
	c->o = o;
	return c->bad ? -1 : (int64_t)o;
}

int64_t ecp_cobs_decode(const char *src, size_t n, void *dst, size_t cap)
{
	struct ecp_cobs_cursor c;
	ecp_cobs_cursor_init(&c, src, n, dst, cap);
	return ecp_cobs_cursor_reach(&c, SIZE_MAX);
}

/* ------------------------------------------------- COBS with zero runs */

const unsigned short ecp_cobs_zero_run[16] = {0, 1,  2,  3,  4,  5,  6,  7,
					      8, 10, 12, 16, 24, 32, 64, 256};

size_t ecp_cobs_zr_encode(const void *src, size_t n, char *dst)
{
	const unsigned char *in = src;
	unsigned char *out = (unsigned char *)dst;
	size_t i = 0, o = 0;
	while (i < n) {
		size_t lit = 0, run = 0;
		while (lit < 15 && i + lit < n && in[i + lit])
			lit++;
		size_t code_at = o++;
		memcpy(out + o, in + i, lit);
		o += lit;
		i += lit;
		/* a word at a time through runs of zeros: 90% of a stack */
		while (run < 256 && i + run < n) {
			uint64_t w;
			if (run <= 256 - 8 && n - (i + run) >= 8 &&
			    (memcpy(&w, in + i + run, 8), !w)) {
				run += 8;
				continue;
			}
			if (in[i + run])
				break;
			run++;
		}
		/* the longest run the code says that is no longer than the
		 * zeros there; 1 + 15 + 16 * 15 would be 256, no byte */
		unsigned z = lit == 15 ? 14 : 15;
		while (ecp_cobs_zero_run[z] > run)
			z--;
		out[code_at] = (unsigned char)(1 + lit + 16 * z);
		i += ecp_cobs_zero_run[z];
	}
	out[o] = 0;
	return o;
}

void ecp_cobs_zr_cursor_init(struct ecp_cobs_cursor *c, const char *src, size_t n,
			     void *dst, size_t cap)
{
	ecp_cobs_cursor_init(c, src, n, dst, cap);
	c->zero_runs = true;
}

/* The room beyond a block in which it is written with fixed-size copies. */
#define ZR_ROOM 16

static int64_t zr_reach(struct ecp_cobs_cursor *c, size_t want)
{
	/* all in locals: the copies into out (bytes) could otherwise alias
	 * c, and each field would be read again after each of them */
	const unsigned char *in = c->in;
	unsigned char *out = c->out;
	size_t i = c->i, o = c->o, n = c->n, cap = c->cap;
	bool bad = c->bad;
	while (!bad && o < want && i < n) {
		unsigned v = in[i++] - 1u; /* a code of 0: not a code */
		size_t lit = v & 15, zeros = ecp_cobs_zero_run[(v >> 4) & 15];
		if (v > 254 || lit > n - i || lit + zeros > cap - o) {
			bad = true;
			break;
		}
		/* a block's few bytes, then its zeros, each in one fixed-size
		 * copy where there is room to run past them (what that writes
		 * past a block, the blocks after it write again): a branch on
		 * their varying lengths would be mispredicted */
		if (n - i >= ZR_ROOM && cap - o >= ZR_ROOM)
			memcpy(out + o, in + i, ZR_ROOM);
		else
			memcpy(out + o, in + i, lit);
		i += lit;
		o += lit;
		if (zeros <= ZR_ROOM && cap - o >= ZR_ROOM)
			memset(out + o, 0, ZR_ROOM);
		else
			memset(out + o, 0, zeros);
		o += zeros;
	}
	c->i = i;
	c->o = o;
	c->bad = bad;
	return bad ? -1 : (int64_t)o;
}

int64_t ecp_cobs_zr_decode(const char *src, size_t n, void *dst, size_t cap)
{
	struct ecp_cobs_cursor c;
	ecp_cobs_zr_cursor_init(&c, src, n, dst, cap);
	return ecp_cobs_cursor_reach(&c, SIZE_MAX);
}
