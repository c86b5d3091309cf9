/* SPDX-License-Identifier: MIT */
/* Benchmark: weights and attribution for P = 1..64 on a 10 M-event model.
 *
 *   bench-engine [SEGMENTS] [THREADS] [--delays] [--one]
 *
 * Generates a synthetic model (default 5 M segments = 10 M synchronization
 * events, 32 threads, two function activities per segment): phases of work
 * with lock-like hand-offs between threads and a barrier every 64 segments
 * per thread (the last arrival releases every waiter).  The ASAP DAG is built
 * by a forward pass as simulator/model/dag.h defines it.  Then times
 * ecp_sweep_create() (the P-independent plan + span weights) and
 * ecp_sweep_analyze() for every P in 1..64, and reports peak RSS against the
 * size of the model and DAG arrays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "ecp/sweep.h"

static uint64_t rng = 0x243f6a8885a308d3ULL;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "bench-engine: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

struct gen {
	struct ecp_model model;
	struct ecp_dag dag;
	size_t model_bytes, dag_bytes;
};

static void generate(struct gen *g, uint32_t S, uint32_t T, int delays)
{
	struct ecp_model *m = &g->model;
	struct ecp_dag *d = &g->dag;
	memset(g, 0, sizeof(*g));
	uint32_t F = 200;
	m->n_functions = F;
	m->functions = calloc(F, sizeof(*m->functions));
	static char names[200][16];
	for (uint32_t f = 0; f < F; f++) {
		snprintf(names[f], sizeof(names[f]), "fn%u", f);
		m->functions[f].name = names[f];
		m->functions[f].object = "";
	}
	m->n_segments = S;
	m->segments = calloc(S, sizeof(*m->segments));
	m->n_activities = 2ull * S;
	m->activities = xmalloc(m->n_activities * sizeof(*m->activities));
	/* edges: at most one hand-off per segment plus barrier releases */
	size_t cap_edges = (size_t)S + S / 32 + T + 16;
	ecp_id *edge_from = xmalloc(cap_edges * sizeof(ecp_id));
	ecp_id *edge_to = xmalloc(cap_edges * sizeof(ecp_id));
	size_t n_edges = 0;
	d->n_segments = S;
	d->length = xmalloc(S * sizeof(uint64_t));
	d->delay = calloc(S, sizeof(uint64_t));
	d->pred = xmalloc(S * sizeof(ecp_id));
	d->thread = xmalloc(S * sizeof(ecp_id));
	d->topo = xmalloc(S * sizeof(ecp_id));
	d->start = xmalloc(S * sizeof(uint64_t));
	d->end = xmalloc(S * sizeof(uint64_t));
	ecp_id last[256];
	uint32_t count[256];
	for (uint32_t t = 0; t < T; t++) {
		last[t] = ECP_NO_ID;
		count[t] = 0;
	}
	uint32_t waiting = 0; /* threads parked at the barrier */
	ecp_id barrier_last = ECP_NO_ID;
	uint8_t *parked = calloc(T, 1);
	uint32_t s = 0;
	while (s < S) {
		uint32_t t = (uint32_t)rnd(T);
		if (parked[t])
			continue;
		d->topo[s] = s;
		d->thread[s] = t;
		d->pred[s] = last[t];
		d->length[s] = 1000 + rnd(100000);
		if (delays && last[t] != ECP_NO_ID && rnd(10) == 0)
			d->delay[s] = 1000 + rnd(50000);
		uint64_t st = last[t] == ECP_NO_ID ? 0 : d->end[last[t]] + d->delay[s];
		/* a lock hand-off from another thread's recent segment */
		if (s > 0 && rnd(3) == 0) {
			ecp_id from = s - 1 - (ecp_id)rnd(s < 64 ? s : 64);
			if (d->thread[from] != t) {
				edge_from[n_edges] = from;
				edge_to[n_edges++] = s;
				if (d->end[from] > st)
					st = d->end[from];
			}
		}
		d->start[s] = st;
		d->end[s] = st + d->length[s];
		uint32_t f1 = (uint32_t)rnd(F), f2 = (uint32_t)(t % F);
		uint64_t self1 = d->length[s] / 3;
		m->activities[2ull * s] = (struct ecp_activity){
		    .function = f1, .calls = 1, .self_ns = self1, .incl_ns = self1};
		m->activities[2ull * s + 1] =
		    (struct ecp_activity){.function = f2,
					  .calls = 0,
					  .self_ns = d->length[s] - self1,
					  .incl_ns = d->length[s]};
		struct ecp_segment *seg = &m->segments[s];
		seg->thread = t;
		seg->length = d->length[s];
		seg->delay = d->delay[s];
		seg->first_activity = 2ull * s;
		seg->n_activity = 2;
		seg->lock_acquire = seg->lock_release = ECP_NO_ID;
		last[t] = s;
		s++;
		if (++count[t] % 64 == 0) {
			/* arrive at the barrier; the last arrival releases all */
			parked[t] = 1;
			waiting++;
			if (barrier_last == ECP_NO_ID ||
			    d->end[s - 1] > d->end[barrier_last])
				barrier_last = s - 1;
			if (waiting == T) {
				for (uint32_t u = 0; u < T && s < S; u++) {
					d->topo[s] = s;
					d->thread[s] = u;
					d->pred[s] = last[u];
					d->length[s] = 1000 + rnd(100000);
					uint64_t st2 = d->end[last[u]];
					if (d->end[barrier_last] > st2)
						st2 = d->end[barrier_last];
					if (last[u] != barrier_last) {
						edge_from[n_edges] = barrier_last;
						edge_to[n_edges++] = s;
					}
					d->start[s] = st2;
					d->end[s] = st2 + d->length[s];
					m->activities[2ull * s] = (struct ecp_activity){
					    .function = 0,
					    .calls = 1,
					    .self_ns = d->length[s],
					    .incl_ns = d->length[s]};
					m->activities[2ull * s + 1] =
					    (struct ecp_activity){.function = 1,
								  .calls = 0,
								  .self_ns = 0,
								  .incl_ns = 0};
					struct ecp_segment *sg = &m->segments[s];
					sg->thread = u;
					sg->length = d->length[s];
					sg->first_activity = 2ull * s;
					sg->n_activity = 2;
					sg->lock_acquire = sg->lock_release = ECP_NO_ID;
					last[u] = s;
					count[u]++;
					s++;
				}
				memset(parked, 0, T);
				waiting = 0;
				barrier_last = ECP_NO_ID;
			}
		}
	}
	free(parked);
	/* The model keeps each thread's segments contiguous (simulator/model/model.h):
	 * renumber thread-major; the generation order stays the topological
	 * order. */
	{
		uint32_t *first = calloc((size_t)T + 1, sizeof(uint32_t));
		uint32_t *id = xmalloc((size_t)S * sizeof(uint32_t));
		for (uint32_t i = 0; i < S; i++)
			first[d->thread[i] + 1]++;
		for (uint32_t t = 0; t < T; t++)
			first[t + 1] += first[t];
		for (uint32_t i = 0; i < S; i++)
			id[i] = first[d->thread[i]]++;
		uint64_t *u64 = xmalloc((size_t)S * sizeof(uint64_t));
#define PERMUTE(arr, type, tmp)                                                          \
	do {                                                                             \
		type *t_ = (type *)(tmp);                                                \
		for (uint32_t i_ = 0; i_ < S; i_++)                                      \
			t_[id[i_]] = (arr)[i_];                                          \
		memcpy((arr), t_, (size_t)S * sizeof(type));                             \
	} while (0)
		PERMUTE(d->length, uint64_t, u64);
		PERMUTE(d->delay, uint64_t, u64);
		PERMUTE(d->start, uint64_t, u64);
		PERMUTE(d->end, uint64_t, u64);
		for (uint32_t i = 0; i < S; i++)
			if (d->pred[i] != ECP_NO_ID)
				d->pred[i] = id[d->pred[i]];
		PERMUTE(d->pred, ecp_id, u64);
		PERMUTE(d->thread, ecp_id, u64);
		for (uint32_t i = 0; i < S; i++)
			d->topo[i] = id[i];
		struct ecp_segment *segs = xmalloc((size_t)S * sizeof(*segs));
		for (uint32_t i = 0; i < S; i++)
			segs[id[i]] = m->segments[i];
		free(m->segments);
		m->segments = segs;
		struct ecp_activity *acts = xmalloc(m->n_activities * sizeof(*acts));
		for (uint32_t i = 0; i < S; i++) {
			struct ecp_segment *sg = &m->segments[id[i]];
			acts[2ull * id[i]] = m->activities[sg->first_activity];
			acts[2ull * id[i] + 1] = m->activities[sg->first_activity + 1];
			sg->first_activity = 2ull * id[i];
		}
		free(m->activities);
		m->activities = acts;
		for (size_t e = 0; e < n_edges; e++) {
			edge_from[e] = id[edge_from[e]];
			edge_to[e] = id[edge_to[e]];
		}
#undef PERMUTE
		free(u64);
		free(id);
		free(first);
	}
	/* CSR of incoming edges */
	d->n_in = (uint32_t)n_edges;
	d->in_offset = calloc((size_t)S + 1, sizeof(uint32_t));
	d->in_from = xmalloc(n_edges * sizeof(ecp_id));
	d->in_kind = calloc(n_edges ? n_edges : 1, 1);
	for (size_t e = 0; e < n_edges; e++)
		d->in_offset[edge_to[e] + 1]++;
	for (uint32_t i = 0; i < S; i++)
		d->in_offset[i + 1] += d->in_offset[i];
	uint32_t *cur = xmalloc(S * sizeof(uint32_t));
	memcpy(cur, d->in_offset, S * sizeof(uint32_t));
	for (size_t e = 0; e < n_edges; e++)
		d->in_from[cur[edge_to[e]]++] = edge_from[e];
	free(cur);
	/* the model's edges sorted by target, as the DAG's (model.h) */
	m->n_edges = (uint32_t)n_edges;
	m->edges = xmalloc((n_edges ? n_edges : 1) * sizeof(*m->edges));
	for (uint32_t to = 0; to < S; to++) {
		m->segments[to].first_in = d->in_offset[to];
		for (uint32_t k = d->in_offset[to]; k < d->in_offset[to + 1]; k++)
			m->edges[k] = (struct ecp_edge){.from = d->in_from[k], .to = to};
	}
	free(edge_from);
	free(edge_to);
	for (uint32_t i = 0; i < S; i++) {
		d->work += d->length[i];
		if (d->end[i] > d->span)
			d->span = d->end[i];
		if (d->pred[i] != ECP_NO_ID)
			d->total_delay += d->delay[i];
	}
	g->model_bytes = S * sizeof(struct ecp_segment) +
			 m->n_activities * sizeof(struct ecp_activity) +
			 n_edges * sizeof(struct ecp_edge);
	g->dag_bytes = (size_t)S * (4 * sizeof(uint64_t) + 4 * sizeof(ecp_id)) +
		       ((size_t)S + 1) * sizeof(uint32_t) +
		       n_edges * (sizeof(ecp_id) + 1);
}

static void free_gen(struct gen *g)
{
	struct ecp_model *m = &g->model;
	struct ecp_dag *d = &g->dag;
	free(m->functions);
	free(m->segments);
	free(m->activities);
	free(m->edges);
	free(d->length);
	free(d->delay);
	free(d->pred);
	free(d->thread);
	free(d->topo);
	free(d->start);
	free(d->end);
	free(d->in_offset);
	free(d->in_from);
	free(d->in_kind);
}

int main(int argc, char **argv)
{
	uint32_t S = 5000000, T = 32;
	int delays = 0, one_at_a_time = 0, pos = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--delays"))
			delays = 1;
		else if (!strcmp(argv[i], "--one"))
			one_at_a_time = 1;
		else if (pos++ == 0)
			S = (uint32_t)strtoul(argv[i], NULL, 10);
		else
			T = (uint32_t)strtoul(argv[i], NULL, 10);
	}
	if (T < 2 || T > 256 || S < T) {
		fprintf(stderr, "usage: bench-engine [SEGMENTS] [THREADS 2..256] "
				"[--delays] [--one]\n");
		return 2;
	}
	double t0 = now();
	struct gen g;
	generate(&g, S, T, delays);
	long rss_model = peak_rss_kb();
	double t1 = now();
	printf("model: %u segments (%u sync events), %llu activities, %u edges, %u "
	       "threads%s\n",
	       S, 2 * S, (unsigned long long)g.model.n_activities, g.dag.n_in, T,
	       delays ? ", 10% of segments after a delay" : "");
	printf("model arrays %.0f MB + DAG arrays %.0f MB; peak RSS after generating "
	       "%.0f MB (%.1f s)\n",
	       g.model_bytes / 1e6, g.dag_bytes / 1e6, rss_model / 1e3, t1 - t0);
	printf("T1 = %.3f s, Tinf = %.3f s, parallelism %.2f\n", g.dag.work / 1e9,
	       g.dag.span / 1e9, (double)g.dag.work / (double)g.dag.span);
	struct ecp_error err = {0};
	struct ecp_sweep *sw;
	double t2 = now(), c2 = cpu_now();
	if (ecp_sweep_create(&g.model, &g.dag, NULL, &sw, &err) < 0) {
		fprintf(stderr, "bench-engine: %s\n", err.msg);
		return 1;
	}
	double t3 = now(), c3 = cpu_now();
	printf(
	    "prepare (dominator tree, instants, span weights): %.2f s wall, %.2f s CPU\n",
	    t3 - t2, c3 - c2);
	/* As `ecp scan -P 1-64` does: batches of ECP_SWEEP_BATCH P sharing
	 * one attribution pass, weights not kept (--one: one P at a time,
	 * weights kept, as `ecp report` per P). */
	unsigned long long resimulated = 0, synced = 0, reverse = 0, unverified = 0,
			   inexact_p = 0;
	unsigned batch = one_at_a_time ? 1 : ECP_SWEEP_BATCH;
	for (unsigned p0 = 1; p0 <= 64; p0 += batch) {
		unsigned ps[ECP_SWEEP_BATCH];
		struct ecp_analysis as[ECP_SWEEP_BATCH];
		unsigned k = 0;
		for (; k < batch && p0 + k <= 64; k++)
			ps[k] = p0 + k;
		double ta = now();
		int rc = one_at_a_time
			     ? ecp_sweep_analyze(sw, ps[0], &as[0], &err)
			     : ecp_sweep_analyze_many(sw, ps, k, false, as, &err);
		if (rc < 0) {
			fprintf(stderr, "bench-engine: %s\n", err.msg);
			return 1;
		}
		double tb = now();
		for (unsigned j = 0; j < k; j++) {
			struct ecp_analysis *a = &as[j];
			unsigned p = ps[j];
			resimulated += a->resimulated_segments;
			synced += a->synced_segments;
			reverse += a->reverse_pass_segments;
			unverified += a->inexact_segments;
			inexact_p += !a->weights_exact;
			if (p == 1 || p == 2 || p == 4 || p == 8 || p == 16 || p == 32 ||
			    p == 64)
				printf("P=%2u  T_P = %.4f s  speedup %.2f  idle %.3f s  "
				       "top %s  "
				       "(P %u-%u: %.3f s; %u segments re-simulated, %u "
				       "by the "
				       "reverse pass, %u unverified)\n",
				       p, a->makespan_ns / 1e9, a->speedup,
				       a->idle_ns / 1e9,
				       g.model.functions[a->functions[0].function].name,
				       ps[0], ps[k - 1], tb - ta, a->resimulated_segments,
				       a->reverse_pass_segments, a->inexact_segments);
			ecp_analysis_finish(a);
		}
	}
	double t4 = now(), c4 = cpu_now();
	long rss = peak_rss_kb();
	printf("P = 1..64%s: %.2f s wall (%.3f s per P), %.2f s CPU; total with prepare "
	       "%.2f s wall, %.2f s CPU\n",
	       one_at_a_time ? ", one at a time" : "", t4 - t3, (t4 - t3) / 64, c4 - c3,
	       t4 - t2, c4 - c2);
	printf(
	    "exactness: %llu segment weights re-simulated exactly (%llu of them ended "
	    "at a snapshot by the reverse pass's adjoints), %llu from the reverse pass, "
	    "%llu left unverified (flagged) over %llu of the 64 P\n",
	    resimulated, synced, reverse, unverified, inexact_p);
	printf("peak RSS %.0f MB = %.2fx the model+DAG arrays (%.0f MB); engine added "
	       "%.0f MB\n",
	       rss / 1e3, rss * 1e3 / (double)(g.model_bytes + g.dag_bytes),
	       (g.model_bytes + g.dag_bytes) / 1e6, (rss - rss_model) / 1e3);
	ecp_sweep_destroy(sw);
	free_gen(&g);
	return 0;
}
