/* SPDX-License-Identifier: MIT */
#include "common/hmap.h"

#include <stdlib.h>
#include <string.h>

/* splitmix64 finaliser: addresses and tids share low bits, so mix them all. */
static inline size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebULL;
	key ^= key >> 31;
	return (size_t)key & (cap - 1);
}

void ecp_hmap_init(struct ecp_hmap *m)
{
	memset(m, 0, sizeof(*m));
}

void ecp_hmap_finish(struct ecp_hmap *m)
{
	if (!m)
		return;
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

uint64_t *ecp_hmap_get(const struct ecp_hmap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->used[i])
			return NULL;
		if (m->keys[i] == key)
			return &m->vals[i];
	}
}

static int grow(struct ecp_hmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	if (cap < m->cap || cap > SIZE_MAX / sizeof(uint64_t))
		return -1;
	uint64_t *keys = malloc(cap * sizeof(*keys));
	uint64_t *vals = malloc(cap * sizeof(*vals));
	uint8_t *used = calloc(cap, 1);
	if (!keys || !vals || !used) {
		free(keys);
		free(vals);
		free(used);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		size_t j = slot_of(m->keys[i], cap);
		while (used[j])
			j = (j + 1) & (cap - 1);
		used[j] = 1;
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	free(m->used);
	m->keys = keys;
	m->vals = vals;
	m->used = used;
	m->cap = cap;
	return 0;
}

int ecp_hmap_put(struct ecp_hmap *m, uint64_t key, uint64_t val)
{
	uint64_t *v = ecp_hmap_get(m, key);
	if (v) {
		*v = val;
		return 0;
	}
	/* Keep the load factor at most 1/2 so probes stay short. */
	if ((m->len + 1) * 2 > m->cap && grow(m) < 0)
		return -1;
	size_t i = slot_of(key, m->cap);
	while (m->used[i])
		i = (i + 1) & (m->cap - 1);
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->len++;
	return 0;
}

void ecp_hmap_clear(struct ecp_hmap *m)
{
	if (m->cap)
		memset(m->used, 0, m->cap);
	m->len = 0;
}
