/* SPDX-License-Identifier: MIT */
/* A small open-addressing hash map from uint64_t keys to uint64_t values.
 *
 * The model builder keys almost everything by a 64-bit number (thread ids,
 * object addresses, function addresses, create ids), so one map type serves
 * them all.  Any key value is allowed (0 and UINT64_MAX included): slot use
 * is kept in a separate byte array rather than a sentinel key. */
#ifndef ECP_COMMON_HMAP_H
#define ECP_COMMON_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ecp_hmap {
	uint64_t *keys;
	uint64_t *vals;
	uint8_t *used;
	size_t cap; /* power of two, or 0 */
	size_t len;
};

void ecp_hmap_init(struct ecp_hmap *m);
void ecp_hmap_finish(struct ecp_hmap *m);
/* Pointer to the value of key, or NULL. Valid until the next insertion. */
uint64_t *ecp_hmap_get(const struct ecp_hmap *m, uint64_t key);
/* Inserts or replaces; returns 0, or -1 when memory ran out (map unchanged). */
int ecp_hmap_put(struct ecp_hmap *m, uint64_t key, uint64_t val);
/* Removes every entry but keeps the storage. */
void ecp_hmap_clear(struct ecp_hmap *m);

#endif
