/* SPDX-License-Identifier: MIT */
#include "tests/sim/mb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xgrow(void *p, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	uint32_t c = *cap ? *cap * 2 : 16;
	while (c < need)
		c *= 2;
	p = realloc(p, (size_t)c * elem);
	if (!p)
		abort(); /* tests only */
	memset((char *)p + (size_t)*cap * elem, 0, (size_t)(c - *cap) * elem);
	*cap = c;
	return p;
}

void mb_init(struct mb *b)
{
	memset(b, 0, sizeof(*b));
	b->m = calloc(1, sizeof(*b->m));
	if (!b->m)
		abort();
}

uint32_t mb_thread(struct mb *b)
{
	struct ecp_model *m = b->m;
	m->threads = realloc(m->threads, (m->n_threads + 1) * sizeof(*m->threads));
	if (!m->threads)
		abort();
	struct ecp_thread *t = &m->threads[m->n_threads];
	memset(t, 0, sizeof(*t));
	t->tid = 100 + m->n_threads;
	snprintf(t->name, sizeof(t->name), "T%u", (unsigned)m->n_threads + 1);
	t->first_segment = m->n_segments;
	t->parent = m->n_threads ? 0 : ECP_NO_ID;
	return m->n_threads++;
}

uint32_t mb_seg(struct mb *b, uint64_t length, uint64_t delay)
{
	struct ecp_model *m = b->m;
	m->segments =
	    xgrow(m->segments, &b->cap_seg, m->n_segments + 1, sizeof(*m->segments));
	struct ecp_segment *s = &m->segments[m->n_segments];
	s->thread = m->n_threads - 1;
	s->lock_acquire = s->lock_release = ECP_NO_ID;
	s->length = length;
	s->delay = delay;
	m->threads[m->n_threads - 1].n_segments++;
	return m->n_segments++;
}

uint32_t mb_lock(struct mb *b, uint32_t kind)
{
	struct ecp_model *m = b->m;
	m->locks = xgrow(m->locks, &b->cap_lock, m->n_locks + 1, sizeof(*m->locks));
	m->locks[m->n_locks].kind = kind;
	m->locks[m->n_locks].addr = 0x5000 + 0x40 * (uint64_t)m->n_locks;
	return m->n_locks++;
}

void mb_acquire(struct mb *b, uint32_t seg, uint32_t lock, uint8_t mode)
{
	b->m->segments[seg].lock_acquire = lock;
	b->m->segments[seg].acquire_mode = mode;
}

void mb_release(struct mb *b, uint32_t seg, uint32_t lock)
{
	b->m->segments[seg].lock_release = lock;
}

void mb_edge(struct mb *b, uint32_t from, uint32_t to, uint32_t kind)
{
	struct ecp_model *m = b->m;
	m->edges = xgrow(m->edges, &b->cap_edge, m->n_edges + 1, sizeof(*m->edges));
	m->edges[m->n_edges++] = (struct ecp_edge){from, to, kind};
}

static int cmp_to(const void *x, const void *y)
{
	const struct ecp_edge *a = x, *c = y;
	return a->to < c->to ? -1 : a->to > c->to;
}

struct ecp_model *mb_done(struct mb *b)
{
	struct ecp_model *m = b->m;
	if (m->n_edges)
		qsort(m->edges, m->n_edges, sizeof(*m->edges), cmp_to);
	ecp_model_index_edges(m);
	return m;
}

void mb_free(struct ecp_model *m)
{
	if (!m)
		return;
	free(m->threads);
	free(m->segments);
	free(m->edges);
	free(m->locks);
	free(m);
}
