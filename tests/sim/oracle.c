/* SPDX-License-Identifier: MIT */
#include "tests/sim/oracle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "simulator/ctf/event.h"

#define NONE UINT32_MAX

static bool in_force(bool recorded, uint32_t kind)
{
	return recorded || kind != ECP_EDGE_LOCK;
}

static uint32_t pred_of(const struct ecp_model *m, uint32_t s)
{
	const struct ecp_thread *t = &m->threads[m->segments[s].thread];
	return s == t->first_segment ? NONE : s - 1;
}

static bool is_shared(const struct ecp_model *m, uint32_t s)
{
	uint32_t l = m->segments[s].lock_acquire;
	return m->locks[l].kind == ECP_LOCK_RWLOCK &&
	       m->segments[s].acquire_mode == ECP_LOCK_SHARED;
}

void oracle_run_free(struct oracle_run *r)
{
	free(r->start);
	free(r->end);
	free(r->grant_seq);
	memset(r, 0, sizeof(*r));
}

int oracle_asap(const struct ecp_model *m, bool recorded, struct oracle_run *out)
{
	uint32_t n = m->n_segments, nl = m->n_locks;
	out->start = calloc(n + 1, sizeof(uint64_t));
	out->end = calloc(n + 1, sizeof(uint64_t));
	out->grant_seq = malloc((n + 1) * sizeof(uint32_t));
	bool *started = calloc(n + 1, 1), *done = calloc(n + 1, 1),
	     *requested = calloc(n + 1, 1);
	uint64_t *req_time = calloc(n + 1, sizeof(uint64_t));
	uint32_t *holder = malloc((nl + 1) * sizeof(uint32_t));
	uint32_t *depth = calloc(nl + 1, sizeof(uint32_t)),
		 *shared = calloc(nl + 1, sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++)
		out->grant_seq[i] = NONE;
	for (uint32_t i = 0; i < nl; i++)
		holder[i] = NONE;
	uint32_t seq = 0, n_done = 0;
	uint64_t now = 0;
	int rc = 0;
	for (;;) {
		bool progress = true;
		while (progress && rc == 0) {
			progress = false;
			for (uint32_t s = 0; s < n; s++) {
				if (!started[s] || done[s] || out->end[s] != now)
					continue;
				done[s] = true;
				n_done++;
				progress = true;
				uint32_t l = m->segments[s].lock_release;
				if (recorded || l == NONE)
					continue;
				if (holder[l] == m->segments[s].thread) {
					if (--depth[l] == 0)
						holder[l] = NONE;
				} else if (shared[l] > 0) {
					shared[l]--;
				} else {
					rc = -2;
				}
			}
			for (uint32_t s = 0; s < n; s++) {
				if (started[s] || requested[s])
					continue;
				uint32_t p = pred_of(m, s);
				if (p != NONE &&
				    (!done[p] ||
				     now < out->end[p] + m->segments[s].delay))
					continue;
				bool ok = true;
				const struct ecp_segment *seg = &m->segments[s];
				for (uint32_t k = 0, n_in = ecp_segment_n_in(m, s);
				     k < n_in && ok; k++) {
					const struct ecp_edge *e =
					    &m->edges[seg->first_in + k];
					if (in_force(recorded, e->kind) && !done[e->from])
						ok = false;
				}
				if (!ok)
					continue;
				progress = true;
				uint32_t l = seg->lock_acquire;
				if (!recorded && l != NONE) {
					if (holder[l] == seg->thread) {
						depth[l]++;
					} else {
						requested[s] = true;
						req_time[s] = now;
						continue;
					}
				}
				started[s] = true;
				out->start[s] = now;
				out->end[s] = now + seg->length;
			}
			if (progress)
				continue;
			uint32_t best = NONE;
			for (uint32_t s = 0; s < n; s++) {
				if (!requested[s] || started[s])
					continue;
				uint32_t l = m->segments[s].lock_acquire;
				bool ok = holder[l] == NONE &&
					  (is_shared(m, s) || shared[l] == 0);
				if (!ok)
					continue;
				if (best == NONE || req_time[s] < req_time[best] ||
				    (req_time[s] == req_time[best] &&
				     (m->segments[s].thread < m->segments[best].thread ||
				      (m->segments[s].thread ==
					   m->segments[best].thread &&
				       s < best))))
					best = s;
			}
			if (best != NONE) {
				uint32_t l = m->segments[best].lock_acquire;
				if (is_shared(m, best)) {
					shared[l]++;
				} else {
					holder[l] = m->segments[best].thread;
					depth[l] = 1;
				}
				out->grant_seq[best] = seq++;
				started[best] = true;
				out->start[best] = now;
				out->end[best] = now + m->segments[best].length;
				progress = true;
			}
		}
		if (rc)
			break;
		uint64_t next = UINT64_MAX;
		for (uint32_t s = 0; s < n; s++) {
			if (started[s] && !done[s] && out->end[s] < next)
				next = out->end[s];
			uint32_t p = pred_of(m, s);
			if (!started[s] && !requested[s] && p != NONE && done[p] &&
			    out->end[p] + m->segments[s].delay > now &&
			    out->end[p] + m->segments[s].delay < next)
				next = out->end[p] + m->segments[s].delay;
		}
		if (next == UINT64_MAX)
			break;
		now = next;
	}
	if (rc == 0 && n_done != n)
		rc = -1;
	out->span = 0;
	for (uint32_t s = 0; s < n; s++)
		if (out->end[s] > out->span)
			out->span = out->end[s];
	free(started);
	free(done);
	free(requested);
	free(req_time);
	free(holder);
	free(depth);
	free(shared);
	return rc;
}

/* The segment that ends the hold taken by grant g (recursion counted). */
static uint32_t release_of(const struct ecp_model *m, uint32_t g)
{
	uint32_t l = m->segments[g].lock_acquire, t = m->segments[g].thread;
	const struct ecp_thread *th = &m->threads[t];
	uint32_t depth = 0;
	for (uint32_t x = g; x < th->first_segment + th->n_segments; x++) {
		if (m->segments[x].lock_acquire == l)
			depth++;
		if (m->segments[x].lock_release == l && --depth == 0)
			return x;
	}
	return NONE; /* held until the end: nothing later can follow it */
}

double oracle_replay(const struct ecp_model *m, bool recorded,
		     const struct oracle_run *asap, unsigned p, double *t_start,
		     double *t_end)
{
	uint32_t n = m->n_segments;
	/* deps[s]: release segments s must wait for, from the decided order. */
	uint32_t **deps = calloc(n + 1, sizeof(*deps));
	uint32_t *n_deps = calloc(n + 1, sizeof(*n_deps));
	for (uint32_t s = 0; s < n && !recorded; s++) {
		if (asap->grant_seq[s] == NONE)
			continue;
		deps[s] = malloc((n + 1) * sizeof(uint32_t));
		for (uint32_t g = 0; g < n; g++) {
			if (asap->grant_seq[g] == NONE ||
			    asap->grant_seq[g] >= asap->grant_seq[s] ||
			    m->segments[g].lock_acquire != m->segments[s].lock_acquire ||
			    m->segments[g].thread == m->segments[s].thread)
				continue;
			if (is_shared(m, g) && is_shared(m, s))
				continue;
			uint32_t r = release_of(m, g);
			if (r != NONE)
				deps[s][n_deps[s]++] = r;
		}
	}
	bool *started = calloc(n + 1, 1), *done = calloc(n + 1, 1);
	double *rem = calloc(n + 1, sizeof(double)), *st = calloc(n + 1, sizeof(double)),
	       *en = calloc(n + 1, sizeof(double));
	const double tol = 1e-6;
	double now = 0;
	uint32_t n_done = 0;
	for (;;) {
		bool progress = true;
		while (progress) {
			progress = false;
			for (uint32_t s = 0; s < n; s++) {
				if (started[s])
					continue;
				const struct ecp_segment *seg = &m->segments[s];
				uint32_t pr = pred_of(m, s);
				if (pr != NONE &&
				    (!done[pr] ||
				     now + tol < en[pr] + (double)seg->delay))
					continue;
				bool ok = true;
				for (uint32_t k = 0, n_in = ecp_segment_n_in(m, s);
				     k < n_in && ok; k++) {
					const struct ecp_edge *e =
					    &m->edges[seg->first_in + k];
					if (in_force(recorded, e->kind) && !done[e->from])
						ok = false;
				}
				for (uint32_t k = 0; k < n_deps[s] && ok; k++)
					if (!done[deps[s][k]])
						ok = false;
				if (!ok)
					continue;
				started[s] = true;
				st[s] = now;
				rem[s] = (double)seg->length;
				if (seg->length == 0) {
					done[s] = true;
					en[s] = now;
					n_done++;
				}
				progress = true;
			}
		}
		uint32_t running = 0;
		for (uint32_t s = 0; s < n; s++)
			running += started[s] && !done[s];
		double rate = 1.0;
		if (p && running > p)
			rate = (double)p / running;
		double dt = INFINITY;
		for (uint32_t s = 0; s < n; s++) {
			if (started[s] && !done[s] && rem[s] / rate < dt)
				dt = rem[s] / rate;
			uint32_t pr = pred_of(m, s);
			if (!started[s] && pr != NONE && done[pr]) {
				double w = en[pr] + (double)m->segments[s].delay - now;
				if (w > tol && w < dt)
					dt = w;
			}
		}
		if (dt == INFINITY)
			break;
		now += dt;
		for (uint32_t s = 0; s < n; s++) {
			if (!started[s] || done[s])
				continue;
			rem[s] -= rate * dt;
			if (rem[s] <= tol) {
				done[s] = true;
				en[s] = now;
				n_done++;
			}
		}
	}
	double makespan = 0;
	for (uint32_t s = 0; s < n; s++) {
		if (en[s] > makespan)
			makespan = en[s];
		if (t_start)
			t_start[s] = st[s];
		if (t_end)
			t_end[s] = en[s];
	}
	for (uint32_t s = 0; s < n; s++)
		free(deps[s]);
	free(deps);
	free(n_deps);
	free(started);
	free(done);
	free(rem);
	free(st);
	free(en);
	return n_done == n ? makespan : -1.0;
}
