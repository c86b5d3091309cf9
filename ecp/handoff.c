/* SPDX-License-Identifier: MIT */
#include "ecp/handoff.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return (a > b) - (a < b);
}

/* When the segment's thread stopped running before it: the end of its
 * previous segment, or 0 for a thread's first (it did not exist yet, and
 * its start edge is its creation, which is no hand-off). */
static bool waiting_since(const struct ecp_model *m, ecp_id s, uint64_t *since)
{
	const struct ecp_thread *t = &m->threads[m->segments[s].thread];
	if (s == t->first_segment)
		return false;
	*since = m->segments[s - 1].rec_end;
	return true;
}

int ecp_handoffs_measure(const struct ecp_model *m, struct ecp_handoffs *out)
{
	memset(out, 0, sizeof(*out));
	uint64_t *lat = malloc((m->n_segments ? m->n_segments : 1) * sizeof(*lat));
	if (!lat)
		return -1;
	for (ecp_id s = 0; s < m->n_segments; s++) {
		const struct ecp_segment *seg = &m->segments[s];
		uint64_t release = 0, since;
		bool any = false;
		for (uint32_t k = 0, n_in = ecp_segment_n_in(m, s); k < n_in; k++) {
			const struct ecp_edge *e = &m->edges[seg->first_in + k];
			if (m->segments[e->from].thread == seg->thread)
				continue;
			any = true;
			if (m->segments[e->from].rec_end > release)
				release = m->segments[e->from].rec_end;
		}
		/* a release that came before the thread waited let it run on:
		 * nothing was handed over */
		if (!any || !waiting_since(m, s, &since) || since > release ||
		    seg->rec_start < release)
			continue;
		lat[out->count] = seg->rec_start - release;
		out->total_ns += lat[out->count++];
	}
	if (out->count) {
		qsort(lat, out->count, sizeof(*lat), cmp_u64);
		out->median_ns = lat[out->count / 2];
	}
	free(lat);
	return 0;
}
