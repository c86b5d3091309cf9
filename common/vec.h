/* SPDX-License-Identifier: MIT */
/* A growable array of fixed-size elements (amortised doubling).
 *
 * Used for the model's big arrays, so growth is checked for overflow and a
 * failed allocation leaves the vector untouched. */
#ifndef ECP_COMMON_VEC_H
#define ECP_COMMON_VEC_H

#include <stddef.h>
#include <stdint.h>

struct ecp_vec {
	void *data;
	size_t len;
	size_t cap;
	size_t elem_size;
};

void ecp_vec_init(struct ecp_vec *v, size_t elem_size);
void ecp_vec_finish(struct ecp_vec *v);
/* Returns a pointer to the new zeroed element, or NULL on allocation failure. */
void *ecp_vec_push(struct ecp_vec *v);
int ecp_vec_reserve(struct ecp_vec *v, size_t cap);
/* Hands the buffer to the caller (shrunk to fit) and resets the vector. */
void *ecp_vec_steal(struct ecp_vec *v, size_t *len);

#define ECP_VEC_AT(v, type, i) (((type *)(v)->data)[i])

#endif
