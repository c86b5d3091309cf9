/* SPDX-License-Identifier: MIT */
/* Ideal processor sharing on P processors (the paper's model), on the fixed
 * ASAP DAG.
 *
 * Without delays the P-processor run is a time-warp of the ASAP schedule:
 * between two consecutive changes of the running count n, every running
 * segment progresses at min(1, P/n), so the same segments run in the same
 * order and the interval just stretches by max(n/P, 1).  With integer lengths
 * that is exact in rationals with denominator P: we accumulate
 * num = sum len * max(n, P) in 128 bits and report T_P = num / P rounded to
 * the nearest ns (halves up); every time of the warped run (steps, per-segment
 * start and end) is the exact warped time rounded the same way, and the idle
 * time sum len * max(P - n, 0) is exact.
 *
 * With delays (time asleep that passes at full speed while computation is
 * slowed) the warp is wrong and the run is simulated event by event: a virtual
 * work clock V advances at min(1, P/n) while n segments run; a segment that
 * starts at V0 ends when V reaches V0 + length.  Times are doubles there
 * (53-bit mantissa: below 1e-4 ns of error for runs of hours), rounded to the
 * nearest ns on output.  Because the DAG is fixed, simultaneous events can
 * be processed in any order without changing the result.  When P is at
 * least the ASAP run's largest running count nothing is slowed and the warp
 * (then the identity) is used even with delays.
 *
 * Cost: the profile is built once per sweep (a merge of the threads' sorted
 * start/end sequences, O(S log T)); each warp is one pass over the profile,
 * O(S) (O(S log S) more with the per-segment timeline); each event
 * simulation is O(S log T).  Memory: the profile, 12 bytes per breakpoint;
 * an event simulation, about 24 bytes per segment. */
#include "simulator/replay/replay.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/time-round.h"
#include "common/vec.h"
#include "simulator/model/dag-succ.h"
#include "simulator/replay/linux-sched.h"
#include "simulator/model/sim-heap.h"

__extension__ typedef unsigned __int128 u128;

const char *ecp_sched_model_name(enum ecp_sched_model model)
{
	switch (model) {
	case ECP_SCHED_IDEAL:
		return "ideal";
	case ECP_SCHED_LINUX:
		return "linux";
	}
	return "unknown";
}

static int nomem(struct ecp_error *err, const char *what)
{
	return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory in the replay (%s)",
			     what);
}

/* ------------------------------------------------------------------ profile */

int ecp_profile_init(struct ecp_profile *prof, const struct ecp_dag *dag,
		     struct ecp_error *err)
{
	memset(prof, 0, sizeof(*prof));
	uint32_t n = dag->n_segments;
	/* At most one breakpoint per segment start and end, plus time 0. */
	size_t cap = 2 * (size_t)n + 2;
	prof->time = malloc(cap * sizeof(*prof->time));
	prof->runnable = malloc(cap * sizeof(*prof->runnable));
	uint8_t *phase = calloc((size_t)n + 1, 1);
	struct ecp_heap h;
	ecp_heap_init(&h);
	int rc = 0;
	if (!prof->time || !prof->runnable || !phase) {
		rc = nomem(err, "profile");
		goto out;
	}
	/* Each thread's events start0 <= end0 <= start1 <= ... are already in
	 * time order: merge the threads' sequences with a heap keyed by the
	 * next event's time.  Zero-length segments do not change the count. */
	for (ecp_id s = 0; s < n; s++)
		if (dag->pred[s] == ECP_NO_ID &&
		    ecp_heap_push(&h, dag->start[s], 0, s) < 0) {
			rc = nomem(err, "profile");
			goto out;
		}
	int64_t count = 0;
	prof->time[0] = 0;
	prof->runnable[0] = 0;
	prof->len = 1;
	struct ecp_heap_item it;
	while (ecp_heap_pop(&h, &it)) {
		ecp_id s = it.b;
		uint64_t t = it.key;
		if (dag->length[s] > 0)
			count += phase[s] ? -1 : 1;
		if (t != prof->time[prof->len - 1]) {
			prof->time[prof->len] = t;
			prof->runnable[prof->len] = prof->runnable[prof->len - 1];
			prof->len++;
		}
		prof->runnable[prof->len - 1] = (uint32_t)count;
		uint64_t next_key;
		ecp_id next = s;
		if (!phase[s]) {
			phase[s] = 1;
			next_key = dag->end[s];
		} else {
			next = s + 1;
			if (next >= n || dag->pred[next] != s)
				continue;
			next_key = dag->start[next];
		}
		if (ecp_heap_push(&h, next_key, 0, next) < 0) {
			rc = nomem(err, "profile");
			goto out;
		}
	}
	/* Merge equal neighbours (a start and an end at the same instant). */
	size_t w = 1;
	for (size_t i = 1; i < prof->len; i++) {
		if (prof->runnable[i] == prof->runnable[w - 1] && i + 1 < prof->len)
			continue;
		prof->time[w] = prof->time[i];
		prof->runnable[w] = prof->runnable[i];
		w++;
	}
	prof->len = w;
	prof->max_runnable = 0;
	for (size_t i = 0; i < prof->len; i++)
		if (prof->runnable[i] > prof->max_runnable)
			prof->max_runnable = prof->runnable[i];
	if (count != 0 || prof->time[prof->len - 1] != dag->span)
		rc = ecp_error_set(err, ECP_ERR,
				   "inconsistent DAG: the running count ends at %" PRId64
				   " at %" PRIu64 " ns, span %" PRIu64 " ns",
				   count, prof->time[prof->len - 1], dag->span);
out:
	free(phase);
	ecp_heap_finish(&h);
	if (rc)
		ecp_profile_finish(prof);
	return rc;
}

void ecp_profile_finish(struct ecp_profile *prof)
{
	if (!prof)
		return;
	free(prof->time);
	free(prof->runnable);
	memset(prof, 0, sizeof(*prof));
}

/* --------------------------------------------------------------- time-warp */

static uint64_t div_round(u128 num, unsigned p)
{
	return (uint64_t)((num + p / 2) / p);
}

static void set_totals(const struct ecp_dag *dag, unsigned p, struct ecp_replay *out)
{
	out->processors = p;
	out->work = dag->work;
	out->span = dag->span;
	out->t1 = dag->work; /* the sweep replaces it when delays make T_1 differ */
	out->speedup = out->makespan ? (double)out->t1 / (double)out->makespan : 1.0;
}

/* W(t): the warped time of ASAP time t, with prefix[i] = exact P * W(time[i]). */
static uint64_t warp_time(const struct ecp_profile *prof, const u128 *prefix, unsigned p,
			  uint64_t t)
{
	size_t lo = 0, hi = prof->len; /* last breakpoint <= t */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (prof->time[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	uint32_t nr = prof->runnable[lo];
	u128 num = prefix[lo] + (u128)(t - prof->time[lo]) * (nr > p ? nr : p);
	return div_round(num, p);
}

static int warp(const struct ecp_dag *dag, const struct ecp_profile *prof, unsigned p,
		unsigned flags, struct ecp_replay *out, struct ecp_error *err)
{
	uint32_t n = dag->n_segments;
	if (flags & ECP_REPLAY_STEPS) {
		out->steps = calloc(prof->len, sizeof(*out->steps));
		if (!out->steps)
			return nomem(err, "steps");
		out->n_steps = prof->len;
	}
	if (flags & ECP_REPLAY_TIMELINE) {
		out->seg_start = malloc(((size_t)n + 1) * sizeof(uint64_t));
		out->seg_end = malloc(((size_t)n + 1) * sizeof(uint64_t));
		if (!out->seg_start || !out->seg_end)
			return nomem(err, "timeline");
	}
	if (p == 0) {
		/* Unlimited processors: the ASAP schedule itself. */
		out->makespan = dag->span;
		out->idle = 0;
		out->work_law_ok = true;
		out->span_law_ok = true;
		for (size_t i = 0; out->steps && i < prof->len; i++) {
			out->steps[i].time = prof->time[i];
			out->steps[i].runnable = prof->runnable[i];
		}
		if (out->seg_start) {
			memcpy(out->seg_start, dag->start, (size_t)n * sizeof(uint64_t));
			memcpy(out->seg_end, dag->end, (size_t)n * sizeof(uint64_t));
		}
		set_totals(dag, p, out);
		return 0;
	}
	u128 *prefix = NULL;
	if (out->seg_start) {
		prefix = malloc(prof->len * sizeof(*prefix));
		if (!prefix)
			return nomem(err, "timeline");
	}
	u128 num = 0, idle = 0;
	for (size_t i = 0; i < prof->len; i++) {
		if (prefix)
			prefix[i] = num;
		if (out->steps) {
			out->steps[i].time = div_round(num, p);
			out->steps[i].runnable = prof->runnable[i];
		}
		if (i + 1 == prof->len)
			break;
		uint64_t len = prof->time[i + 1] - prof->time[i];
		uint32_t nr = prof->runnable[i];
		num += (u128)len * (nr > p ? nr : p);
		if (nr < p)
			idle += (u128)len * (p - nr);
	}
	out->makespan = div_round(num, p);
	out->idle = (uint64_t)idle;
	out->work_law_ok = num >= (u128)dag->work;
	out->span_law_ok = num >= (u128)dag->span * p;
	if (prefix) {
		for (ecp_id s = 0; s < n; s++) {
			out->seg_start[s] = warp_time(prof, prefix, p, dag->start[s]);
			out->seg_end[s] = warp_time(prof, prefix, p, dag->end[s]);
		}
		free(prefix);
	}
	set_totals(dag, p, out);
	return 0;
}

/* ------------------------------------------------- event-by-event sharing */

/* Nonnegative doubles order like their bit patterns, so they can key the
 * integer heap directly. */
static uint64_t dkey(double x)
{
	uint64_t k;
	if (x < 0)
		x = 0;
	memcpy(&k, &x, sizeof(k));
	return k;
}

static double kdbl(uint64_t k)
{
	double x;
	memcpy(&x, &k, sizeof(x));
	return x;
}

struct sim {
	const struct ecp_dag *dag;
	const struct ecp_dag_succ *g;
	uint32_t *remaining;
	double *ready;
	double *t_start, *t_end; /* only with ECP_REPLAY_TIMELINE */
	ecp_id *stack;           /* segments to start at the current instant */
	size_t n_stack;
	struct ecp_heap running; /* key = dkey(V at end), b = segment */
	struct ecp_heap timers;  /* key = dkey(ready time), b = segment */
	uint32_t n_running;
	uint32_t n_done;
	double now, v;
	struct ecp_vec *steps; /* only with ECP_REPLAY_STEPS */
};

static int sim_ready(struct sim *s, ecp_id seg, double at)
{
	if (s->ready[seg] < at)
		s->ready[seg] = at;
	if (--s->remaining[seg] > 0)
		return 0;
	if (s->ready[seg] > s->now)
		return ecp_heap_push(&s->timers, dkey(s->ready[seg]), 0, seg);
	s->stack[s->n_stack++] = seg;
	return 0;
}

/* Ends a segment at the current time and releases what it enables. */
static int sim_end(struct sim *s, ecp_id seg)
{
	const struct ecp_dag *dag = s->dag;
	if (s->t_end)
		s->t_end[seg] = s->now;
	s->n_done++;
	ecp_id next = seg + 1;
	if (next < dag->n_segments && dag->pred[next] == seg &&
	    sim_ready(s, next, s->now + (double)dag->delay[next]) < 0)
		return -1;
	for (uint32_t k = s->g->out_offset[seg]; k < s->g->out_offset[seg + 1]; k++)
		if (sim_ready(s, s->g->out_to[k], s->now) < 0)
			return -1;
	return 0;
}

/* Starts every segment on the stack; zero-length ones end at once. */
static int sim_drain(struct sim *s)
{
	while (s->n_stack) {
		ecp_id seg = s->stack[--s->n_stack];
		if (s->t_start)
			s->t_start[seg] = s->now;
		if (s->dag->length[seg] == 0) {
			if (sim_end(s, seg) < 0)
				return -1;
			continue;
		}
		if (ecp_heap_push(&s->running, dkey(s->v + (double)s->dag->length[seg]),
				  0, seg) < 0)
			return -1;
		s->n_running++;
	}
	return 0;
}

static int sim_step(struct sim *s)
{
	if (!s->steps)
		return 0;
	struct ecp_replay_step *st = ecp_vec_push(s->steps);
	if (!st)
		return -1;
	st->time = ecp_round_time_ns(s->now);
	st->runnable = s->n_running;
	if (s->steps->len >= 2) {
		struct ecp_replay_step *prev = st - 1;
		if (prev->time == st->time || prev->runnable == st->runnable) {
			if (prev->time == st->time)
				prev->runnable = st->runnable;
			s->steps->len--;
		}
	}
	return 0;
}

/* The simulation's arrays (the timeline's only when flags ask for it) and
 * heaps; -1 when out of memory. */
static int sim_alloc(struct sim *s, size_t cells, unsigned flags)
{
	s->remaining = malloc(cells * sizeof(*s->remaining));
	s->ready = calloc(cells, sizeof(*s->ready));
	s->stack = malloc(cells * sizeof(*s->stack));
	if (flags & ECP_REPLAY_TIMELINE) {
		s->t_start = calloc(cells, sizeof(*s->t_start));
		s->t_end = calloc(cells, sizeof(*s->t_end));
		if (!s->t_start || !s->t_end)
			return -1;
	}
	ecp_heap_init(&s->running);
	ecp_heap_init(&s->timers);
	if (!s->remaining || !s->ready || !s->stack)
		return -1;
	return 0;
}

/* Runs the DAG from its sources until no segment runs or sleeps: on p
 * processors (0: unbounded) shared equally by the running segments; idle
 * processor time into *idle.  -1 when out of memory. */
static int sim_run(struct sim *s, unsigned p, double *idle)
{
	uint32_t n = s->dag->n_segments;
	size_t cells = (size_t)n + 1;
	memcpy(s->remaining, s->g->init_remaining, cells * sizeof(*s->remaining));
	for (ecp_id i = 0; i < n; i++)
		if (s->remaining[i] == 0)
			s->stack[s->n_stack++] = i;
	double rate_p = (double)p;
	if (sim_drain(s) < 0 || sim_step(s) < 0)
		return -1;
	for (;;) {
		const struct ecp_heap_item *run = ecp_heap_top(&s->running);
		const struct ecp_heap_item *tmr = ecp_heap_top(&s->timers);
		if (!run && !tmr)
			break;
		double rate = 1.0;
		if (p && s->n_running > p)
			rate = rate_p / (double)s->n_running;
		double t_run = run ? s->now + (kdbl(run->key) - s->v) / rate : INFINITY;
		double t_tmr = tmr ? kdbl(tmr->key) : INFINITY;
		double t = t_run <= t_tmr ? t_run : t_tmr;
		if (t < s->now)
			t = s->now;
		if (p && s->n_running < p)
			*idle += (t - s->now) * (double)(p - s->n_running);
		if (t_run <= t_tmr)
			s->v = kdbl(run->key); /* exactly, so ties end together */
		else
			s->v += (t - s->now) * rate;
		s->now = t;
		struct ecp_heap_item it;
		while ((run = ecp_heap_top(&s->running)) && kdbl(run->key) <= s->v) {
			ecp_heap_pop(&s->running, &it);
			s->n_running--;
			if (sim_end(s, it.b) < 0)
				return -1;
		}
		while ((tmr = ecp_heap_top(&s->timers)) && kdbl(tmr->key) <= s->now) {
			ecp_heap_pop(&s->timers, &it);
			s->stack[s->n_stack++] = it.b;
		}
		if (sim_drain(s) < 0 || sim_step(s) < 0)
			return -1;
	}
	return 0;
}

/* T_P, idle time and the laws into out, with the timeline and steps as
 * flags ask; -1 when out of memory. */
static int sim_result(const struct sim *s, unsigned p, unsigned flags, double idle,
		      struct ecp_vec *steps, struct ecp_replay *out)
{
	const struct ecp_dag *dag = s->dag;
	uint32_t n = dag->n_segments;
	size_t cells = (size_t)n + 1;
	double rate_p = (double)p;
	out->simulated = true;
	out->makespan = ecp_round_time_ns(s->now);
	out->idle = ecp_round_time_ns(idle);
	/* Laws, with 1 ns of slack for the floating-point times. */
	out->span_law_ok = s->now + 1.0 >= (double)dag->span;
	out->work_law_ok = p == 0 || (s->now + 1.0) * rate_p >= (double)dag->work;
	if (flags & ECP_REPLAY_TIMELINE) {
		out->seg_start = malloc(cells * sizeof(uint64_t));
		out->seg_end = malloc(cells * sizeof(uint64_t));
		if (!out->seg_start || !out->seg_end)
			return -1;
		for (ecp_id i = 0; i < n; i++) {
			out->seg_start[i] = ecp_round_time_ns(s->t_start[i]);
			out->seg_end[i] = ecp_round_time_ns(s->t_end[i]);
		}
	}
	if (flags & ECP_REPLAY_STEPS) {
		out->steps = ecp_vec_steal(steps, &out->n_steps);
		if (!out->steps)
			return -1;
	}
	set_totals(dag, p, out);
	return 0;
}

static int simulate(const struct ecp_dag *dag, const struct ecp_dag_succ *g, unsigned p,
		    unsigned flags, struct ecp_replay *out, struct ecp_error *err)
{
	uint32_t n = dag->n_segments;
	struct sim s = {.dag = dag, .g = g};
	struct ecp_vec steps;
	int rc = 0;
	ecp_vec_init(&steps, sizeof(struct ecp_replay_step));
	if (flags & ECP_REPLAY_STEPS)
		s.steps = &steps;
	if (sim_alloc(&s, (size_t)n + 1, flags) < 0)
		goto nomem;
	double idle = 0;
	if (sim_run(&s, p, &idle) < 0)
		goto nomem;
	if (s.n_done != n) {
		rc = ecp_error_set(err, ECP_ERR,
				   "inconsistent DAG: %" PRIu32 " of %" PRIu32
				   " segments never ran in the replay on %u processors",
				   n - s.n_done, n, p);
		goto out;
	}
	if (sim_result(&s, p, flags, idle, &steps, out) < 0)
		goto nomem;
	goto out;
nomem:
	rc = nomem(err, "event simulation");
out:
	free(s.remaining);
	free(s.ready);
	free(s.t_start);
	free(s.t_end);
	free(s.stack);
	ecp_heap_finish(&s.running);
	ecp_heap_finish(&s.timers);
	ecp_vec_finish(&steps);
	return rc;
}

/* ----------------------------------------------------------------- entries */

/* Delays break the time-warp, except where processors never run short: if
 * P is at least the ASAP run's largest running count, every segment runs at
 * full speed and the P-processor run is the ASAP schedule itself, which the
 * warp reproduces exactly (it then stretches nothing). */
static bool needs_simulation(const struct ecp_dag *dag, const struct ecp_profile *prof,
			     unsigned p, unsigned flags)
{
	if (flags & ECP_REPLAY_SIMULATE)
		return true;
	if (dag->total_delay == 0 || p == 0)
		return false;
	return p < prof->max_runnable;
}

static int replay_one(const struct ecp_dag *dag, const struct ecp_profile *prof,
		      const struct ecp_dag_succ *g, unsigned p, unsigned flags,
		      struct ecp_replay *out, struct ecp_error *err)
{
	memset(out, 0, sizeof(*out));
	out->sched_model = ECP_SCHED_IDEAL;
	int rc = needs_simulation(dag, prof, p, flags)
		     ? simulate(dag, g, p, flags, out, err)
		     : warp(dag, prof, p, flags, out, err);
	if (rc) {
		ecp_replay_finish(out);
		ecp_error_prefix(err, "replay on %u processors", p);
	}
	return rc;
}

static bool memchr_u(const unsigned *v, size_t n, unsigned x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* A share of a sweep: every `stride`-th processor count from `first`. */
struct sweep_job {
	const struct ecp_dag *dag;
	const struct ecp_profile *prof;
	const struct ecp_dag_succ *g;
	const unsigned *processors;
	size_t n, first, stride;
	unsigned flags;
	struct ecp_replay *out;
	struct ecp_error err;
	int rc;
};

static void *sweep_worker(void *arg)
{
	struct sweep_job *j = arg;
	for (size_t i = j->first; i < j->n && j->rc == 0; i += j->stride)
		j->rc = replay_one(j->dag, j->prof, j->g, j->processors[i], j->flags,
				   &j->out[i], &j->err);
	return NULL;
}

/* Event simulations are independent per P and read only shared data: a big
 * sweep runs them on up to SWEEP_THREADS threads (one per online CPU).
 * Small ones (tests) stay on the caller's thread. */
#define SWEEP_THREADS      8
#define SWEEP_PARALLEL_MIN 200000u /* segments x simulated counts: ~20 ms */

int ecp_replay_sweep(const struct ecp_dag *dag, const unsigned *processors, size_t n,
		     unsigned flags, struct ecp_replay *out, struct ecp_error *err)
{
	struct ecp_profile prof = {0};
	struct ecp_dag_succ g = {0};
	int rc = 0;
	if (dag->n_segments == 0)
		return ecp_error_set(err, ECP_ERR_USAGE, "replay of an empty DAG");
	if ((rc = ecp_profile_init(&prof, dag, err)))
		return rc;
	size_t simulated = 0;
	for (size_t k = 0; k < n; k++)
		simulated += needs_simulation(dag, &prof, processors[k], flags);
	if (simulated && (rc = ecp_dag_succ_init(&g, dag, err))) {
		ecp_profile_finish(&prof);
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		memset(&out[i], 0, sizeof(out[i]));
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t workers = cpus > 1 ? (size_t)cpus : 1;
	if (workers > SWEEP_THREADS)
		workers = SWEEP_THREADS;
	if (workers > n)
		workers = n;
	if ((uint64_t)simulated * dag->n_segments < SWEEP_PARALLEL_MIN)
		workers = 1;
	struct sweep_job jobs[SWEEP_THREADS];
	pthread_t tids[SWEEP_THREADS];
	bool threaded[SWEEP_THREADS] = {false};
	for (size_t w = 0; w < workers; w++) {
		jobs[w] = (struct sweep_job){.dag = dag,
					     .prof = &prof,
					     .g = &g,
					     .processors = processors,
					     .n = n,
					     .first = w,
					     .stride = workers,
					     .flags = flags,
					     .out = out};
		if (w > 0)
			threaded[w] =
			    pthread_create(&tids[w], NULL, sweep_worker, &jobs[w]) == 0;
	}
	/* This thread does its share, and that of any thread not started. */
	for (size_t w = 0; w < workers; w++)
		if (!threaded[w])
			sweep_worker(&jobs[w]);
	for (size_t w = 1; w < workers; w++)
		if (threaded[w])
			pthread_join(tids[w], NULL);
	for (size_t w = 0; w < workers && rc == 0; w++)
		if (jobs[w].rc) {
			rc = jobs[w].rc;
			*err = jobs[w].err;
		}
	/* T_1 for the speedups: the work, unless delays can idle the
	 * processor (then the P = 1 run, simulated once). */
	uint64_t t1 = dag->work;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (processors[i] == 1)
			t1 = out[i].makespan;
	if (rc == 0 && dag->total_delay > 0 && !memchr_u(processors, n, 1)) {
		struct ecp_replay one;
		if (!g.out_offset && needs_simulation(dag, &prof, 1, 0))
			rc = ecp_dag_succ_init(&g, dag, err);
		if (rc == 0 && (rc = replay_one(dag, &prof, &g, 1, 0, &one, err)) == 0) {
			t1 = one.makespan;
			ecp_replay_finish(&one);
		}
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		out[i].t1 = t1;
		out[i].speedup =
		    out[i].makespan ? (double)t1 / (double)out[i].makespan : 1.0;
	}
	if (rc)
		for (size_t i = 0; i < n; i++)
			ecp_replay_finish(&out[i]);
	ecp_profile_finish(&prof);
	ecp_dag_succ_finish(&g);
	return rc;
}

int ecp_replay_t1(const struct ecp_dag *dag, uint64_t *t1, struct ecp_error *err)
{
	if (dag->total_delay == 0) {
		*t1 = dag->work;
		return 0;
	}
	struct ecp_replay r;
	int rc = ecp_replay_run(dag, 1, 0, &r, err);
	if (rc == 0)
		*t1 = r.makespan;
	ecp_replay_finish(&r);
	return rc;
}

int ecp_replay_run(const struct ecp_dag *dag, unsigned processors, unsigned flags,
		   struct ecp_replay *out, struct ecp_error *err)
{
	return ecp_replay_sweep(dag, &processors, 1, flags, out, err);
}

int ecp_replay_model_run(const struct ecp_dag *dag, enum ecp_sched_model model,
			 unsigned processors, unsigned flags, struct ecp_replay *out,
			 struct ecp_error *err)
{
	switch (model) {
	case ECP_SCHED_IDEAL:
		return ecp_replay_run(dag, processors, flags, out, err);
	case ECP_SCHED_LINUX: {
		struct ecp_linux_params params;
		ecp_linux_params_default(&params);
		return ecp_linux_replay(dag, processors, &params, flags, out, err);
	}
	}
	return ecp_error_set(err, ECP_ERR_USAGE, "unknown scheduler model %d",
			     (int)model);
}

void ecp_replay_finish(struct ecp_replay *r)
{
	if (!r)
		return;
	free(r->steps);
	free(r->seg_start);
	free(r->seg_end);
	r->steps = NULL;
	r->seg_start = r->seg_end = NULL;
	r->n_steps = 0;
}
