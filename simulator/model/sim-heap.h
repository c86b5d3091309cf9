/* SPDX-License-Identifier: MIT */
/* A binary min-heap of small fixed records, used by the simulators' event
 * queues and by the lock wait queues of the ASAP DAG builder.
 *
 * Records compare lexicographically on (key, a, b): the key is a time, `a` and
 * `b` break ties deterministically (thread index, segment index), so every
 * simulation that uses the heap processes simultaneous events in one
 * documented order. */
#ifndef ECP_SIMULATOR_SIM_HEAP_H
#define ECP_SIMULATOR_SIM_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ecp_heap_item {
	uint64_t key;
	uint32_t a;
	uint32_t b;
};

struct ecp_heap {
	struct ecp_heap_item *items;
	size_t len;
	size_t cap;
};

void ecp_heap_init(struct ecp_heap *h);
void ecp_heap_finish(struct ecp_heap *h);
/* Returns 0, or -1 when memory runs out (the heap is then unchanged). */
int ecp_heap_push(struct ecp_heap *h, uint64_t key, uint32_t a, uint32_t b);
/* Removes the smallest record into *out; false when empty. */
bool ecp_heap_pop(struct ecp_heap *h, struct ecp_heap_item *out);

static inline bool ecp_heap_empty(const struct ecp_heap *h)
{
	return h->len == 0;
}

static inline const struct ecp_heap_item *ecp_heap_top(const struct ecp_heap *h)
{
	return h->len ? &h->items[0] : NULL;
}

static inline bool ecp_heap_less(const struct ecp_heap_item *x,
				 const struct ecp_heap_item *y)
{
	if (x->key != y->key)
		return x->key < y->key;
	if (x->a != y->a)
		return x->a < y->a;
	return x->b < y->b;
}

#endif
