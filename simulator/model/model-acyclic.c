/* SPDX-License-Identifier: MIT */
/* The model's dependencies -- program order plus the recorded edges --
 * must form a DAG (ecp_model_validate).  Checked by running the threads:
 * a thread's finished segments are a prefix of its own, so one cursor per
 * thread says which segments are finished, and the segment at a cursor
 * finishes once the sources of its incoming edges have.  What is never
 * finished lies on or after a cycle: the same segments Kahn's algorithm
 * never releases.
 *
 * The state is per thread, not per segment or edge: the check runs on
 * every model built or loaded, the builder's at its peak, where Kahn's
 * in-degrees, queue and out-adjacency were 16 bytes per segment and 4 per
 * edge more.  A thread that waits parks on the thread whose segment it
 * waits for, in a list sorted by that segment, and is woken when that
 * thread's cursor passes it. */
#include "simulator/model/model-internal.h"

#include <stdlib.h>

#include "common/error.h"

struct runner {
	uint32_t cursor; /* its first unfinished segment */
	uint32_t end;    /* one past its last */
	uint32_t edge;   /* the next incoming edge of `cursor` to look at */
	uint32_t need;   /* parked: the segment it waits for */
	uint32_t next;   /* parked: the next in the same list */
};

/* The thread of segment s (threads hold contiguous ranges, in order:
 * validate_threads checked it). */
static uint32_t thread_of(const struct ecp_model *m, uint32_t s)
{
	uint32_t lo = 0, hi = m->n_threads;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->threads[mid].first_segment <= s)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Thread t runs until it ends or waits for an unfinished segment; then it
 * parks on that segment's thread (itself, for an edge from its own
 * future: a cycle, never woken). */
static void run(const struct ecp_model *m, struct runner *r, uint32_t *parked, uint32_t t)
{
	struct runner *me = &r[t];
	while (me->cursor < me->end) {
		for (uint32_t in_end = ecp_segment_in_end(m, me->cursor);
		     me->edge < in_end; me->edge++) {
			uint32_t from = m->edges[me->edge].from;
			uint32_t u = thread_of(m, from);
			if (from < r[u].cursor)
				continue;
			me->need = from;
			uint32_t *at = &parked[u];
			while (*at != ECP_NO_ID && r[*at].need <= from)
				at = &r[*at].next;
			me->next = *at;
			*at = t;
			return;
		}
		me->cursor++;
	}
}

int ecp_model_check_acyclic(const struct ecp_model *m, struct ecp_error *err)
{
	uint32_t nt = m->n_threads;
	struct runner *r = calloc(nt ? nt : 1, sizeof(*r));
	uint32_t *parked = malloc((nt ? nt : 1) * sizeof(*parked));
	uint32_t *ready = malloc((nt ? nt : 1) * sizeof(*ready));
	int rc = ECP_OK;
	if (!r || !parked || !ready) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM,
				   "out of memory validating the model");
		goto out;
	}
	/* every thread is ready, running, parked or ended: once in `ready` */
	uint32_t n_ready = 0;
	for (uint32_t t = 0; t < nt; t++) {
		const struct ecp_thread *th = &m->threads[t];
		r[t].cursor = th->first_segment;
		r[t].end = th->first_segment + th->n_segments;
		r[t].edge = th->n_segments ? m->segments[th->first_segment].first_in : 0;
		parked[t] = ECP_NO_ID;
		ready[n_ready++] = t;
	}
	while (n_ready) {
		uint32_t t = ready[--n_ready];
		uint32_t was = r[t].cursor;
		run(m, r, parked, t);
		if (r[t].cursor == was)
			continue;
		while (parked[t] != ECP_NO_ID && r[parked[t]].need < r[t].cursor) {
			uint32_t w = parked[t];
			parked[t] = r[w].next;
			ready[n_ready++] = w;
		}
	}
	uint32_t finished = 0;
	for (uint32_t t = 0; t < nt; t++)
		finished += r[t].cursor - m->threads[t].first_segment;
	if (finished != m->n_segments)
		rc = ecp_error_set(err, ECP_ERR,
				   "model has a dependency cycle: %u of %u segments are "
				   "never released",
				   m->n_segments - finished, m->n_segments);
out:
	free(r);
	free(parked);
	free(ready);
	return rc;
}
