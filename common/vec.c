/* SPDX-License-Identifier: MIT */
#include "common/vec.h"

#include <stdlib.h>

void ecp_vec_init(struct ecp_vec *v, size_t elem_size)
{
	v->data = NULL;
	v->len = 0;
	v->cap = 0;
	v->elem_size = elem_size;
}

void ecp_vec_finish(struct ecp_vec *v)
{
	if (!v)
		return;
	free(v->data);
	v->data = NULL;
	v->len = v->cap = 0;
}

int ecp_vec_reserve(struct ecp_vec *v, size_t cap)
{
	if (cap <= v->cap)
		return 0;
	if (cap > SIZE_MAX / v->elem_size)
		return -1;
	void *p = realloc(v->data, cap * v->elem_size);
	if (!p)
		return -1;
	v->data = p;
	v->cap = cap;
	return 0;
}

int ecp_vec_grow(struct ecp_vec *v)
{
	size_t cap = v->cap ? v->cap * 2 : 16;
	return cap < v->cap ? -1 : ecp_vec_reserve(v, cap);
}

void *ecp_vec_steal(struct ecp_vec *v, size_t *len)
{
	void *p = v->data;
	if (len)
		*len = v->len;
	if (p && v->len && v->len < v->cap) {
		void *q = realloc(p, v->len * v->elem_size);
		if (q)
			p = q;
	}
	v->data = NULL;
	v->len = v->cap = 0;
	return p;
}
