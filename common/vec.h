/* SPDX-License-Identifier: MIT */
/* A growable array of fixed-size elements (amortised doubling).
 *
 * Used for the model's big arrays, so growth is checked for overflow and a
 * failed allocation leaves the vector untouched. */
#ifndef ECP_COMMON_VEC_H
#define ECP_COMMON_VEC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct ecp_vec {
	void *data;
	size_t len;
	size_t cap;
	size_t elem_size;
};

void ecp_vec_init(struct ecp_vec *v, size_t elem_size);
void ecp_vec_finish(struct ecp_vec *v);
/* Doubles the capacity (ecp_vec_push when the vector is full); -1 when
 * memory ran out (the vector unchanged). */
int ecp_vec_grow(struct ecp_vec *v);

/* Returns a pointer to the new zeroed element, or NULL on allocation failure.
 * Inline because the model builder pushes once or twice an event: zeroing
 * an element of a size known here is a few stores, where a call to memset
 * with the size unknown was 2.5% of a sync-heavy model build (issue 35). */
static inline void *ecp_vec_push(struct ecp_vec *v)
{
	if (__builtin_expect(v->len == v->cap, 0) && ecp_vec_grow(v) < 0)
		return NULL;
	void *slot = (char *)v->data + v->len * v->elem_size;
	switch (v->elem_size) {
	case 4:
		memset(slot, 0, 4);
		break;
	case 8:
		memset(slot, 0, 8);
		break;
	case 12:
		memset(slot, 0, 12);
		break;
	case 16:
		memset(slot, 0, 16);
		break;
	case 24:
		memset(slot, 0, 24);
		break;
	case 32:
		memset(slot, 0, 32);
		break;
	case 40:
		memset(slot, 0, 40);
		break;
	case 48:
		memset(slot, 0, 48);
		break;
	case 56:
		memset(slot, 0, 56);
		break;
	case 64:
		memset(slot, 0, 64);
		break;
	default:
		memset(slot, 0, v->elem_size);
		break;
	}
	v->len++;
	return slot;
}
int ecp_vec_reserve(struct ecp_vec *v, size_t cap);
/* Hands the buffer to the caller (shrunk to fit) and resets the vector. */
void *ecp_vec_steal(struct ecp_vec *v, size_t *len);

#define ECP_VEC_AT(v, type, i) (((type *)(v)->data)[i])

#endif
