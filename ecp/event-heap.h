/* SPDX-License-Identifier: MIT */
/* The event queues of the engine's simulations (prun.c: real and work-clock
 * times; tangent.c: times with a symbolic eps): a binary min-heap of
 * {key, segment} records in a caller-allocated array (one record per
 * segment: a segment is queued at most once at a time).
 *
 * ECP_EVENT_HEAP(name, key_type, cmp) defines struct name_item, struct name
 * and name_push / name_push_aux / name_pop, comparing keys with cmp(x, y) < 0,
 * == 0, > 0.  A record carries its segment and an aux word for the caller
 * (prun.c: the running segment's slot), which fits in the record's padding
 * beside either key type.
 * One definition for both simulations, with the key type as a parameter,
 * because their keys differ (long double vs a + b * eps) and both loops are
 * hot: a comparison through a function pointer would cost more than the
 * sift itself.  Records of equal keys leave in an order fixed by the sift,
 * so a simulation is deterministic. */
#ifndef ECP_ECP_EVENT_HEAP_H
#define ECP_ECP_EVENT_HEAP_H

#include <stddef.h>
#include <stdint.h>

#define ECP_EVENT_HEAP(name, key_type, cmp)                                              \
	struct name##_item {                                                             \
		key_type key;                                                            \
		uint32_t seg, aux;                                                       \
	};                                                                               \
	struct name {                                                                    \
		struct name##_item *a;                                                   \
		size_t n;                                                                \
	};                                                                               \
	static inline void name##_push_aux(struct name *h, key_type key, uint32_t seg,   \
					   uint32_t aux)                                 \
	{                                                                                \
		size_t i = h->n++;                                                       \
		while (i > 0) {                                                          \
			size_t p = (i - 1) / 2;                                          \
			if (cmp(h->a[p].key, key) <= 0)                                  \
				break;                                                   \
			h->a[i] = h->a[p];                                               \
			i = p;                                                           \
		}                                                                        \
		h->a[i] = (struct name##_item){.key = key, .seg = seg, .aux = aux};      \
	}                                                                                \
	static inline void name##_push(struct name *h, key_type key, uint32_t seg)       \
	{                                                                                \
		name##_push_aux(h, key, seg, 0);                                         \
	}                                                                                \
	static inline struct name##_item name##_pop(struct name *h)                      \
	{                                                                                \
		struct name##_item top = h->a[0];                                        \
		struct name##_item last = h->a[--h->n];                                  \
		size_t i = 0;                                                            \
		for (;;) {                                                               \
			size_t c = 2 * i + 1;                                            \
			if (c >= h->n)                                                   \
				break;                                                   \
			if (c + 1 < h->n && cmp(h->a[c + 1].key, h->a[c].key) < 0)       \
				c++;                                                     \
			if (cmp(last.key, h->a[c].key) <= 0)                             \
				break;                                                   \
			h->a[i] = h->a[c];                                               \
			i = c;                                                           \
		}                                                                        \
		if (h->n)                                                                \
			h->a[i] = last;                                                  \
		return top;                                                              \
	}

#endif
