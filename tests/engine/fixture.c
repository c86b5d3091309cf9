/* SPDX-License-Identifier: MIT */
#include "tests/engine/fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *grow(void *p, uint32_t n, size_t elem)
{
	void *q = realloc(p, (size_t)(n ? n : 1) * elem);
	if (!q) {
		fprintf(stderr, "fixture: out of memory\n");
		abort();
	}
	return q;
}

void fx_init(struct fx *f)
{
	memset(f, 0, sizeof(*f));
}

static void ensure_function(struct fx *f, ecp_id fn)
{
	if (fn < f->n_functions)
		return;
	f->names = grow(f->names, fn + 1, sizeof(char *));
	for (uint32_t i = f->n_functions; i <= fn; i++) {
		f->names[i] = malloc(16);
		snprintf(f->names[i], 16, "f%u", i);
	}
	f->n_functions = fn + 1;
}

void fx_name(struct fx *f, ecp_id function, const char *name)
{
	ensure_function(f, function);
	free(f->names[function]);
	f->names[function] = strdup(name);
}

ecp_id fx_seg(struct fx *f, ecp_id thread, uint64_t length, uint64_t delay)
{
	if (f->n_seg == f->cap_seg) {
		f->cap_seg = f->cap_seg ? 2 * f->cap_seg : 16;
		f->length = grow(f->length, f->cap_seg, sizeof(uint64_t));
		f->delay = grow(f->delay, f->cap_seg, sizeof(uint64_t));
		f->pred = grow(f->pred, f->cap_seg, sizeof(ecp_id));
		f->thread = grow(f->thread, f->cap_seg, sizeof(ecp_id));
		f->n_act = grow(f->n_act, f->cap_seg, sizeof(uint32_t));
		f->act = grow(f->act, f->cap_seg, sizeof(*f->act));
	}
	if (thread >= f->n_thread_last) {
		f->last_of_thread = grow(f->last_of_thread, thread + 1, sizeof(ecp_id));
		f->start_fn = grow(f->start_fn, thread + 1, sizeof(ecp_id));
		for (uint32_t t = f->n_thread_last; t <= thread; t++)
			f->last_of_thread[t] = f->start_fn[t] = ECP_NO_ID;
		f->n_thread_last = thread + 1;
	}
	ecp_id s = f->n_seg++;
	f->length[s] = length;
	f->delay[s] = delay;
	f->pred[s] = f->last_of_thread[thread];
	f->thread[s] = thread;
	f->n_act[s] = 0;
	f->last_of_thread[thread] = s;
	return s;
}

void fx_edge(struct fx *f, ecp_id from, ecp_id to)
{
	if (f->n_edge == f->cap_edge) {
		f->cap_edge = f->cap_edge ? 2 * f->cap_edge : 16;
		f->edge_from = grow(f->edge_from, f->cap_edge, sizeof(ecp_id));
		f->edge_to = grow(f->edge_to, f->cap_edge, sizeof(ecp_id));
	}
	f->edge_from[f->n_edge] = from;
	f->edge_to[f->n_edge] = to;
	f->n_edge++;
}

void fx_act(struct fx *f, ecp_id seg, ecp_id function, uint32_t calls, uint64_t self_ns,
	    uint64_t incl_ns)
{
	ensure_function(f, function);
	if (f->n_act[seg] >= FX_MAX_ACT)
		abort();
	f->act[seg][f->n_act[seg]++] = (struct fx_act){
	    .function = function, .calls = calls, .self_ns = self_ns, .incl_ns = incl_ns};
}

void fx_start(struct fx *f, ecp_id thread, ecp_id function)
{
	if (thread >= f->n_thread_last)
		abort(); /* a thread with segments */
	ensure_function(f, function);
	f->start_fn[thread] = function;
}

ecp_id fx_run(struct fx *f, ecp_id thread, ecp_id function, uint64_t length,
	      uint64_t delay)
{
	ecp_id s = fx_seg(f, thread, length, delay);
	fx_act(f, s, function, 1, length, length);
	return s;
}

int fx_build(struct fx *f)
{
	uint32_t S = f->n_seg;
	struct ecp_dag *d = &f->dag;
	memset(d, 0, sizeof(*d));
	d->n_segments = S;
	d->length = grow(NULL, S, sizeof(uint64_t));
	d->delay = grow(NULL, S, sizeof(uint64_t));
	d->pred = grow(NULL, S, sizeof(ecp_id));
	d->thread = grow(NULL, S, sizeof(ecp_id));
	d->in_offset = calloc((size_t)S + 1, sizeof(uint32_t));
	d->in_from = grow(NULL, f->n_edge, sizeof(ecp_id));
	d->in_kind = calloc(f->n_edge ? f->n_edge : 1, 1);
	d->n_in = f->n_edge;
	d->topo = grow(NULL, S, sizeof(ecp_id));
	d->start = grow(NULL, S, sizeof(uint64_t));
	d->end = grow(NULL, S, sizeof(uint64_t));
	if (S) {
		memcpy(d->length, f->length, S * sizeof(uint64_t));
		memcpy(d->delay, f->delay, S * sizeof(uint64_t));
		memcpy(d->pred, f->pred, S * sizeof(ecp_id));
		memcpy(d->thread, f->thread, S * sizeof(ecp_id));
	}
	for (uint32_t e = 0; e < f->n_edge; e++)
		d->in_offset[f->edge_to[e] + 1]++;
	for (uint32_t s = 0; s < S; s++)
		d->in_offset[s + 1] += d->in_offset[s];
	uint32_t *cur = grow(NULL, S, sizeof(uint32_t));
	for (uint32_t s = 0; s < S; s++)
		cur[s] = d->in_offset[s];
	for (uint32_t e = 0; e < f->n_edge; e++)
		d->in_from[cur[f->edge_to[e]]++] = f->edge_from[e];
	/* Kahn's algorithm over thread edges and cross edges. */
	uint32_t *need = calloc(S ? S : 1, sizeof(uint32_t));
	ecp_id *next = grow(NULL, S, sizeof(ecp_id));
	for (uint32_t s = 0; s < S; s++)
		next[s] = ECP_NO_ID;
	for (uint32_t s = 0; s < S; s++) {
		need[s] =
		    (d->pred[s] != ECP_NO_ID) + d->in_offset[s + 1] - d->in_offset[s];
		if (d->pred[s] != ECP_NO_ID)
			next[d->pred[s]] = s;
	}
	uint32_t head = 0, tail = 0;
	for (uint32_t s = 0; s < S; s++)
		if (!need[s])
			d->topo[tail++] = s;
	while (head < tail) {
		ecp_id s = d->topo[head++];
		uint64_t st = 0;
		if (d->pred[s] != ECP_NO_ID)
			st = d->end[d->pred[s]] + d->delay[s];
		for (uint32_t e = d->in_offset[s]; e < d->in_offset[s + 1]; e++)
			if (d->end[d->in_from[e]] > st)
				st = d->end[d->in_from[e]];
		d->start[s] = st;
		d->end[s] = st + d->length[s];
		d->work += d->length[s];
		if (d->end[s] > d->span)
			d->span = d->end[s];
		if (next[s] != ECP_NO_ID && --need[next[s]] == 0)
			d->topo[tail++] = next[s];
		for (uint32_t v = 0; v < S; v++)
			for (uint32_t e = d->in_offset[v]; e < d->in_offset[v + 1]; e++)
				if (d->in_from[e] == s && --need[v] == 0)
					d->topo[tail++] = v;
	}
	free(cur);
	free(need);
	free(next);
	for (uint32_t s = 0; s < S; s++)
		if (d->delay[s] && d->pred[s] != ECP_NO_ID)
			d->total_delay += d->delay[s];
	/* model */
	struct ecp_model *m = &f->model;
	memset(m, 0, sizeof(*m));
	m->n_segments = S;
	m->segments = calloc(S ? S : 1, sizeof(*m->segments));
	uint64_t n_act = 0;
	for (uint32_t s = 0; s < S; s++)
		n_act += f->n_act[s];
	m->activities = calloc(n_act ? n_act : 1, sizeof(*m->activities));
	m->n_activities = n_act;
	uint64_t k = 0;
	for (uint32_t s = 0; s < S; s++) {
		struct ecp_segment *seg = &m->segments[s];
		seg->thread = f->thread[s];
		seg->length = f->length[s];
		seg->delay = f->delay[s];
		seg->lock_acquire = seg->lock_release = ECP_NO_ID;
		seg->first_activity = k;
		seg->n_activity = f->n_act[s];
		for (uint32_t i = 0; i < f->n_act[s]; i++) {
			struct fx_act *a = &f->act[s][i];
			m->activities[k++] =
			    (struct ecp_activity){.function = a->function,
						  .calls = a->calls,
						  .self_ns = a->self_ns,
						  .incl_ns = a->incl_ns};
		}
	}
	/* a segment without activities is its thread's start routine's
	 * (model.h), no function's where fx_start named none */
	m->n_threads = f->n_thread_last;
	m->threads = calloc(m->n_threads ? m->n_threads : 1, sizeof(*m->threads));
	for (uint32_t t = 0; t < m->n_threads; t++) {
		m->threads[t].start_function = f->start_fn[t];
		m->threads[t].parent = ECP_NO_ID;
	}
	m->n_functions = f->n_functions;
	m->functions = calloc(f->n_functions ? f->n_functions : 1, sizeof(*m->functions));
	for (uint32_t i = 0; i < f->n_functions; i++) {
		m->functions[i].name = f->names[i];
		m->functions[i].object = "";
	}
	return tail == S ? 0 : -1;
}

void fx_free(struct fx *f)
{
	struct ecp_dag *d = &f->dag;
	free(d->length);
	free(d->delay);
	free(d->pred);
	free(d->thread);
	free(d->in_offset);
	free(d->in_from);
	free(d->in_kind);
	free(d->topo);
	free(d->start);
	free(d->end);
	free(f->model.segments);
	free(f->model.threads);
	free(f->model.activities);
	free(f->model.functions);
	free(f->length);
	free(f->delay);
	free(f->pred);
	free(f->thread);
	free(f->edge_from);
	free(f->edge_to);
	free(f->last_of_thread);
	free(f->start_fn);
	free(f->n_act);
	free(f->act);
	for (uint32_t i = 0; i < f->n_functions; i++)
		free(f->names[i]);
	free(f->names);
	memset(f, 0, sizeof(*f));
}
