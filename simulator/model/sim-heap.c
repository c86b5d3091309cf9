/* SPDX-License-Identifier: MIT */
#include "simulator/model/sim-heap.h"

#include <stdlib.h>

void ecp_heap_init(struct ecp_heap *h)
{
	h->items = NULL;
	h->len = 0;
	h->cap = 0;
}

void ecp_heap_finish(struct ecp_heap *h)
{
	if (!h)
		return;
	free(h->items);
	ecp_heap_init(h);
}

int ecp_heap_push(struct ecp_heap *h, uint64_t key, uint32_t a, uint32_t b)
{
	if (h->len == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 16;
		struct ecp_heap_item *items = realloc(h->items, cap * sizeof(*items));
		if (!items)
			return -1;
		h->items = items;
		h->cap = cap;
	}
	struct ecp_heap_item it = {key, a, b};
	size_t i = h->len++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!ecp_heap_less(&it, &h->items[parent]))
			break;
		h->items[i] = h->items[parent];
		i = parent;
	}
	h->items[i] = it;
	return 0;
}

bool ecp_heap_pop(struct ecp_heap *h, struct ecp_heap_item *out)
{
	if (h->len == 0)
		return false;
	*out = h->items[0];
	struct ecp_heap_item last = h->items[--h->len];
	size_t n = h->len, i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && ecp_heap_less(&h->items[c + 1], &h->items[c]))
			c++;
		if (!ecp_heap_less(&h->items[c], &last))
			break;
		h->items[i] = h->items[c];
		i = c;
	}
	if (n)
		h->items[i] = last;
	return true;
}
