/* SPDX-License-Identifier: MIT */
#include "common/checksum.h"

#include <string.h>

static void mix(struct ecp_csum *c, uint64_t w)
{
	uint64_t h = c->h ^ (w * 0x9e3779b97f4a7c15ull);
	c->h = ((h << 31) | (h >> 33)) * 0xc2b2ae3d27d4eb4full;
}

void ecp_csum_add(struct ecp_csum *c, const void *p, size_t len)
{
	const unsigned char *b = p;
	while (len && c->n) {
		c->word |= (uint64_t)*b++ << (8 * c->n);
		len--;
		if (++c->n == 8) {
			mix(c, c->word);
			c->word = 0;
			c->n = 0;
		}
	}
	for (; len >= 8; b += 8, len -= 8) {
		uint64_t w;
		memcpy(&w, b, 8);
		mix(c, w);
	}
	for (; len; len--)
		c->word |= (uint64_t)*b++ << (8 * c->n++);
}

static uint64_t lane_mix(uint64_t h, uint64_t w)
{
	h ^= w * 0x9e3779b97f4a7c15ull;
	return ((h << 31) | (h >> 33)) * 0xc2b2ae3d27d4eb4full;
}

static void block4(struct ecp_csum4 *c, const unsigned char *b)
{
	for (int k = 0; k < 4; k++) {
		uint64_t w;
		memcpy(&w, b + 8 * k, 8);
		c->h[k] = lane_mix(c->h[k], w);
	}
}

void ecp_csum4_add(struct ecp_csum4 *c, const void *p, size_t len)
{
	const unsigned char *b = p;
	c->total += len;
	while (len && c->n) {
		c->pending[c->n++] = *b++;
		len--;
		if (c->n == sizeof(c->pending)) {
			block4(c, c->pending);
			c->n = 0;
		}
	}
	for (; len >= sizeof(c->pending);
	     b += sizeof(c->pending), len -= sizeof(c->pending))
		block4(c, b);
	memcpy(c->pending + c->n, b, len);
	c->n += (unsigned)len;
}

uint64_t ecp_csum4_end(struct ecp_csum4 *c)
{
	/* the last block, zero-filled, and the length, which tells a stream
	 * from the same stream with zeros after it */
	memset(c->pending + c->n, 0, sizeof(c->pending) - c->n);
	if (c->n)
		block4(c, c->pending);
	uint64_t h = c->total;
	for (int k = 0; k < 4; k++)
		h = lane_mix(h, c->h[k]);
	return h;
}

uint64_t ecp_csum_end(struct ecp_csum *c)
{
	mix(c, c->word ^ ((uint64_t)c->n << 56));
	return c->h;
}
