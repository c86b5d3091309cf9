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

/* The same in four lanes of words, so that their multiplications overlap:
 * about three times the speed.  The recorded streams' manifest is summed
 * this way since issue 35 (summing a sampled trace's 400 MB was 16% of its
 * first analysis); manifests from before keep ecp_csum. */
struct ecp_csum4 {
	uint64_t h[4];
	unsigned char pending[32]; /* a block not yet whole */
	unsigned n;
	uint64_t total;
};

void ecp_csum4_add(struct ecp_csum4 *c, const void *p, size_t len);
uint64_t ecp_csum4_end(struct ecp_csum4 *c);

#endif
