/* SPDX-License-Identifier: MIT */
#include "common/cobs.h"

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

int64_t ecp_cobs_cursor_reach(struct ecp_cobs_cursor *c, size_t want)
{
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
