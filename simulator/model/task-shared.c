/* SPDX-License-Identifier: MIT */
/* The time a deal's busy intervals take on P processors under the model's
 * ideal processor sharing (task-deal.c's tie check): while b threads are
 * busy each progresses at min(1, P/b), so a stretch of work time dt takes
 * dt * max(1, b/P); a stretch where none is busy passes as it is. */
#include <stdlib.h>

#include "simulator/model/task-graph.h"

struct edge_at {
	uint64_t t;
	int delta; /* +1 a thread starts being busy, -1 it stops */
};

static int cmp_edge(const void *a, const void *b)
{
	const struct edge_at *x = a, *y = b;
	return (x->t > y->t) - (x->t < y->t);
}

int ecp_task_shared_ns(const struct ecp_task_busy *busy, size_t n, unsigned procs,
		       uint64_t *out)
{
	struct edge_at *e = malloc((n ? 2 * n : 1) * sizeof(*e));
	if (!e)
		return -1;
	for (size_t i = 0; i < n; i++) {
		e[2 * i] = (struct edge_at){busy[i].start, +1};
		e[2 * i + 1] = (struct edge_at){busy[i].end, -1};
	}
	qsort(e, 2 * n, sizeof(*e), cmp_edge);
	/* dt * max(b, procs) added up exactly (at most the work plus procs
	 * times the makespan), divided once at the end */
	uint64_t scaled = 0;
	long b = 0;
	for (size_t i = 0; i + 1 < 2 * n; i++) {
		b += e[i].delta;
		uint64_t dt = e[i + 1].t - e[i].t;
		unsigned long w = (unsigned long)b > procs ? (unsigned long)b : procs;
		scaled += dt * w;
	}
	*out = (uint64_t)((scaled + procs / 2) / procs);
	free(e);
	return 0;
}
