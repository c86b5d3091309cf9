/* SPDX-License-Identifier: MIT */
/* Benchmark of the simulator (issue 5): builds a big synthetic model, then
 * times the ASAP DAG build and the ideal replays for P = 1..64.
 *
 *     bench-sim [--delays] [EVENTS ...]   default: 1000000 3000000 10000000
 *
 * A model of E events has E/2 segments (each segment is bounded by two
 * synchronisation events).  The program: main creates 63 workers and joins
 * them; workers run phases of 8 segments ending in a barrier; 30% of the
 * segments are critical sections on one of 16 mutexes (contention decided by
 * arrival); each phase every worker hands one item to the next worker with
 * a semaphore.  Lengths are random 1..2000 ns, with a few zeros.
 * With --delays, 5% of the segments sleep up to 5 us first: the ideal
 * replays are then simulated event by event instead of time-warped.
 * Prints one line per size: build time, sweep time, total, peak RSS. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "common/error.h"
#include "simulator/model/dag.h"
#include "simulator/ctf/event.h"
#include "simulator/replay/replay.h"

#define WORKERS   63u
#define PER_PHASE 8u
#define MUTEXES   16u

static uint64_t rng = 88172645463325252ull;
static int with_delays; /* --delays: 5% of the segments sleep first */

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct gen_edge {
	uint32_t from, to, kind;
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p) {
		fprintf(stderr, "bench-sim: out of memory\n");
		exit(1);
	}
	return p;
}

static struct ecp_model *make_model(uint64_t events)
{
	uint64_t segs_wanted = events / 2;
	uint32_t phases = (uint32_t)(segs_wanted / ((uint64_t)WORKERS * PER_PHASE));
	if (phases < 1)
		phases = 1;
	uint32_t per_worker = phases * PER_PHASE + 1; /* + exit */
	uint32_t main_segs = WORKERS + 1;             /* creates + join */
	uint64_t n = (uint64_t)main_segs + (uint64_t)WORKERS * per_worker;
	struct ecp_model *m = xcalloc(1, sizeof(*m));
	m->n_threads = WORKERS + 1;
	m->threads = xcalloc(m->n_threads, sizeof(*m->threads));
	m->n_segments = (uint32_t)n;
	m->segments = xcalloc(n, sizeof(*m->segments));
	m->n_locks = MUTEXES;
	m->locks = xcalloc(MUTEXES, sizeof(*m->locks));
	for (uint32_t i = 0; i < MUTEXES; i++)
		m->locks[i] =
		    (struct ecp_lock){0x1000 + 64 * (uint64_t)i, ECP_LOCK_MUTEX};
	for (uint32_t t = 0; t <= WORKERS; t++) {
		m->threads[t].tid = 1000 + t;
		m->threads[t].first_segment =
		    t == 0 ? 0 : main_segs + (t - 1) * per_worker;
		m->threads[t].n_segments = t == 0 ? main_segs : per_worker;
		m->threads[t].parent = t == 0 ? ECP_NO_ID : 0;
	}
	for (uint64_t s = 0; s < n; s++) {
		struct ecp_segment *seg = &m->segments[s];
		seg->lock_acquire = seg->lock_release = ECP_NO_ID;
		seg->length = next_rand() % 16 == 0 ? 0 : 1 + next_rand() % 2000;
		if (with_delays && next_rand() % 20 == 0)
			seg->delay = 1 + next_rand() % 5000;
	}
	for (uint32_t t = 0; t <= WORKERS; t++)
		for (uint32_t i = 0; i < m->threads[t].n_segments; i++)
			m->segments[m->threads[t].first_segment + i].thread = t;
	/* Edges: creates, joins, semaphore hand-offs, barriers. */
	uint64_t cap = 2 * (uint64_t)WORKERS + (uint64_t)phases * WORKERS * 2;
	struct gen_edge *e = xcalloc(cap, sizeof(*e));
	uint64_t ne = 0;
#define SEG(w, p, j) (m->threads[w].first_segment + (p)*PER_PHASE + (j))
	for (uint32_t w = 1; w <= WORKERS; w++) {
		e[ne++] = (struct gen_edge){w - 1, m->threads[w].first_segment,
					    ECP_EDGE_CREATE};
		e[ne++] = (struct gen_edge){m->threads[w].first_segment + per_worker - 1,
					    WORKERS, ECP_EDGE_JOIN};
	}
	for (uint32_t p = 0; p < phases; p++) {
		for (uint32_t w = 1; w <= WORKERS; w++) {
			/* Critical sections (acquire at start, release at end). */
			for (uint32_t j = 0; j < PER_PHASE; j++)
				if (next_rand() % 10 < 3) {
					struct ecp_segment *seg =
					    &m->segments[SEG(w, p, j)];
					seg->lock_acquire = seg->lock_release =
					    (uint32_t)(next_rand() % MUTEXES);
				}
			/* Worker w posts at the end of segment j, w+1 waits
			 * before segment j+1. */
			if (w < WORKERS) {
				uint32_t j = (uint32_t)(next_rand() % (PER_PHASE - 1));
				e[ne++] = (struct gen_edge){
				    SEG(w, p, j), SEG(w + 1, p, j + 1), ECP_EDGE_SEM};
			}
			/* Barrier: worker 1's arrival releases the others. */
			if (p + 1 < phases && w != 1)
				e[ne++] =
				    (struct gen_edge){SEG(1, p, PER_PHASE - 1),
						      SEG(w, p + 1, 0), ECP_EDGE_BARRIER};
		}
	}
#undef SEG
	/* Counting sort by target, as the model requires. */
	m->n_edges = (uint32_t)ne;
	m->edges = xcalloc(ne, sizeof(*m->edges));
	uint32_t *fill = xcalloc(n + 1, sizeof(*fill));
	for (uint64_t i = 0; i < ne; i++)
		fill[e[i].to + 1]++;
	for (uint64_t s = 0; s < n; s++) {
		fill[s + 1] += fill[s];
		m->segments[s].first_in = fill[s];
	}
	for (uint64_t i = 0; i < ne; i++)
		m->edges[fill[e[i].to]++] =
		    (struct ecp_edge){e[i].from, e[i].to, e[i].kind};
	free(fill);
	free(e);
	return m;
}

static void free_model(struct ecp_model *m)
{
	free(m->threads);
	free(m->segments);
	free(m->edges);
	free(m->locks);
	free(m);
}

static int bench(uint64_t events)
{
	struct ecp_model *m = make_model(events);
	struct ecp_error err = {0};
	struct ecp_dag dag;
	unsigned ps[64];
	struct ecp_replay *r = xcalloc(64, sizeof(*r));
	for (unsigned i = 0; i < 64; i++)
		ps[i] = i + 1;
	double t0 = now_s();
	if (ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err)) {
		fprintf(stderr, "bench-sim: %s\n", err.msg);
		return 1;
	}
	double t1 = now_s();
	if (ecp_replay_sweep(&dag, ps, 64, 0, r, &err)) {
		fprintf(stderr, "bench-sim: %s\n", err.msg);
		return 1;
	}
	double t2 = now_s();
	struct ecp_replay lin;
	if (ecp_replay_model_run(&dag, ECP_SCHED_LINUX, 2, 0, &lin, &err)) {
		fprintf(stderr, "bench-sim: %s\n", err.msg);
		return 1;
	}
	double t3 = now_s();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf(
	    "events %9" PRIu64 "  segments %8" PRIu32
	    "  dag-build %6.3f s  P=1..64 %6.3f s"
	    "  total %6.3f s  (linux model P=2: %6.3f s)  T1/T64 %.2f  peak RSS %ld MB\n",
	    2 * (uint64_t)m->n_segments, m->n_segments, t1 - t0, t2 - t1, t2 - t0,
	    t3 - t2, r[63].speedup, ru.ru_maxrss / 1024);
	for (unsigned i = 0; i < 64; i++) {
		if (!r[i].work_law_ok || !r[i].span_law_ok) {
			fprintf(stderr, "bench-sim: a law fails at P=%u\n", ps[i]);
			return 1;
		}
		ecp_replay_finish(&r[i]);
	}
	ecp_replay_finish(&lin);
	free(r);
	ecp_dag_finish(&dag);
	free_model(m);
	return 0;
}

int main(int argc, char **argv)
{
	static const uint64_t defaults[] = {1000000, 3000000, 10000000};
	if (argc > 1 && strcmp(argv[1], "--delays") == 0) {
		with_delays = 1;
		argc--;
		argv++;
	}
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			if (bench(strtoull(argv[i], NULL, 10)))
				return 1;
		return 0;
	}
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		if (bench(defaults[i]))
			return 1;
	return 0;
}
