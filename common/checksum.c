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

uint64_t ecp_csum_end(struct ecp_csum *c)
{
	mix(c, c->word ^ ((uint64_t)c->n << 56));
	return c->h;
}
