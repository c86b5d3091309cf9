/* SPDX-License-Identifier: MIT */
#include "simulator/ctf/tsc-map.h"

#include <stdlib.h>

__extension__ typedef unsigned __int128 u128;

void ecp_tsc_map_init(struct ecp_tsc_map *m)
{
	m->a = NULL;
	m->n = m->cap = m->hint = 0;
}

void ecp_tsc_map_finish(struct ecp_tsc_map *m)
{
	free(m->a);
	ecp_tsc_map_init(m);
}

int ecp_tsc_map_add(struct ecp_tsc_map *m, uint64_t mono, uint64_t tsc)
{
	if (m->n && (tsc <= m->a[m->n - 1].tsc || mono <= m->a[m->n - 1].mono))
		return 0; /* not later in both clocks: would bend the map back */
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 256;
		struct ecp_tsc_anchor *a = realloc(m->a, cap * sizeof(*a));
		if (!a)
			return -1;
		m->a = a;
		m->cap = cap;
	}
	m->a[m->n++] = (struct ecp_tsc_anchor){.tsc = tsc, .mono = mono};
	return 0;
}

/* The segment [a[i], a[i+1]] to use for `tsc`: the one containing it, or
 * the first / last one outside the anchors. */
static size_t segment_of(struct ecp_tsc_map *m, uint64_t tsc)
{
	size_t h = m->hint;
	if (m->a[h].tsc <= tsc && tsc < m->a[h + 1].tsc)
		return h;
	if (tsc < m->a[0].tsc)
		return 0;
	if (tsc >= m->a[m->n - 1].tsc)
		return m->n - 2;
	size_t lo = 0, hi = m->n - 1; /* a[lo].tsc <= tsc < a[hi].tsc */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->a[mid].tsc <= tsc)
			lo = mid;
		else
			hi = mid;
	}
	return m->hint = lo;
}

uint64_t ecp_tsc_map_time(struct ecp_tsc_map *m, uint64_t tsc)
{
	size_t i = segment_of(m, tsc);
	const struct ecp_tsc_anchor *p = &m->a[i], *q = &m->a[i + 1];
	uint64_t dm = q->mono - p->mono, dt = q->tsc - p->tsc;
	if (tsc >= p->tsc)
		return p->mono + (uint64_t)((u128)(tsc - p->tsc) * dm / dt);
	uint64_t back = (uint64_t)((u128)(p->tsc - tsc) * dm / dt);
	return back < p->mono ? p->mono - back : 0;
}

uint64_t ecp_tsc_map_duration(const struct ecp_tsc_map *m, uint64_t ticks)
{
	const struct ecp_tsc_anchor *p = &m->a[0], *q = &m->a[m->n - 1];
	return (uint64_t)((u128)ticks * (q->mono - p->mono) / (q->tsc - p->tsc));
}
