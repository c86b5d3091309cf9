/* SPDX-License-Identifier: MIT */
#include "ecp/timeline.h"

#include <stdlib.h>
#include <string.h>

int ecp_timeline_init(struct ecp_timeline *tl, const struct ecp_model *m,
		      const uint64_t *seg_start, const uint64_t *seg_end,
		      const double *weights)
{
	memset(tl, 0, sizeof(*tl));
	tl->model = m;
	tl->seg_start = seg_start;
	tl->seg_end = seg_end;
	tl->weights = weights;
	tl->weighted_before = calloc(m->n_segments ? m->n_segments : 1, sizeof(double));
	if (!tl->weighted_before)
		return -1;
	for (uint32_t t = 0; t < m->n_threads; t++) {
		const struct ecp_thread *th = &m->threads[t];
		double w = 0;
		for (uint32_t k = 0; k < th->n_segments; k++) {
			ecp_id s = th->first_segment + k;
			tl->weighted_before[s] = w;
			w += weights[s] * (double)m->segments[s].length;
		}
	}
	return 0;
}

void ecp_timeline_finish(struct ecp_timeline *tl)
{
	if (!tl)
		return;
	free(tl->weighted_before);
	tl->weighted_before = NULL;
}

/* Index (within the thread) of the last segment with cpu_start <= cpu, or of
 * the first one whose end reaches cpu when `earliest`. */
static uint32_t locate(const struct ecp_model *m, const struct ecp_thread *th,
		       uint64_t cpu, bool earliest)
{
	uint32_t lo = 0, hi = th->n_segments;
	if (earliest) {
		/* first k with cpu_start + length >= cpu */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			const struct ecp_segment *s =
			    &m->segments[th->first_segment + mid];
			if (s->cpu_start + s->length >= cpu)
				hi = mid;
			else
				lo = mid + 1;
		}
		return lo < th->n_segments ? lo : th->n_segments - 1;
	}
	/* last k with cpu_start <= cpu */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->segments[th->first_segment + mid].cpu_start <= cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

double ecp_timeline_sim_time(const struct ecp_timeline *tl, ecp_id thread, uint64_t cpu,
			     bool is_exit)
{
	const struct ecp_model *m = tl->model;
	const struct ecp_thread *th = &m->threads[thread];
	if (th->n_segments == 0)
		return 0;
	ecp_id s = th->first_segment + locate(m, th, cpu, is_exit);
	const struct ecp_segment *seg = &m->segments[s];
	double start = (double)tl->seg_start[s], end = (double)tl->seg_end[s];
	if (seg->length == 0 || cpu <= seg->cpu_start)
		return start;
	if (cpu >= seg->cpu_start + seg->length)
		return end;
	return start +
	       (end - start) * (double)(cpu - seg->cpu_start) / (double)seg->length;
}

static double weighted_at(const struct ecp_timeline *tl, const struct ecp_thread *th,
			  uint64_t cpu)
{
	const struct ecp_model *m = tl->model;
	if (th->n_segments == 0)
		return 0;
	ecp_id s = th->first_segment + locate(m, th, cpu, false);
	const struct ecp_segment *seg = &m->segments[s];
	uint64_t into = cpu > seg->cpu_start ? cpu - seg->cpu_start : 0;
	if (into > seg->length)
		into = seg->length;
	return tl->weighted_before[s] + tl->weights[s] * (double)into;
}

double ecp_timeline_weighted(const struct ecp_timeline *tl, ecp_id thread, uint64_t a,
			     uint64_t b)
{
	const struct ecp_thread *th = &tl->model->threads[thread];
	if (b <= a)
		return 0;
	return weighted_at(tl, th, b) - weighted_at(tl, th, a);
}

bool ecp_timeline_on_ecp(const struct ecp_timeline *tl, ecp_id thread, uint64_t a,
			 uint64_t b)
{
	const struct ecp_model *m = tl->model;
	const struct ecp_thread *th = &m->threads[thread];
	if (th->n_segments == 0)
		return false;
	for (uint32_t k = locate(m, th, a, true); k < th->n_segments; k++) {
		ecp_id s = th->first_segment + k;
		const struct ecp_segment *seg = &m->segments[s];
		if (seg->cpu_start > b || (seg->cpu_start == b && b > a))
			break;
		if (tl->weights[s] != 0)
			return true;
	}
	return false;
}
