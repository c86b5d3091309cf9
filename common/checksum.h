/* SPDX-License-Identifier: MIT */
/* A fast checksum of a byte stream, word by word, the same whatever pieces
 * the stream comes in: what the model cache and the recorded streams are
 * checked with (simulator/model/cache.c, common/manifest.c).  It finds damage
 * (flipped bytes, truncation, another file); it is no defence against
 * someone who forges a trace on purpose. */
#ifndef ECP_COMMON_CHECKSUM_H
#define ECP_COMMON_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

struct ecp_csum {
	uint64_t h, word;
	unsigned n; /* bytes waiting in word */
};

void ecp_csum_add(struct ecp_csum *c, const void *p, size_t len);
uint64_t ecp_csum_end(struct ecp_csum *c);

#endif
