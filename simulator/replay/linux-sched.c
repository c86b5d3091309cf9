/* SPDX-License-Identifier: MIT */
/* The Linux-like scheduler model (see linux-sched.h for what it models and
 * why).  A discrete-event simulation in integer ns: each CPU runs at most one
 * thread at full speed; the next event is the earliest of the CPUs' segment
 * completions or slice expiries, the sleepers' timers and the balancing tick.
 * Events at one instant are processed CPU by CPU in index order, then timers,
 * then the tick, which keeps the run deterministic. */
#include "simulator/replay/linux-sched.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "simulator/model/sim-heap.h"

__extension__ typedef unsigned __int128 u128;

#define NONE  UINT32_MAX
#define NEVER UINT64_MAX

enum th_state { TH_WAITING = 0, TH_SLEEPING, TH_QUEUED, TH_RUNNING, TH_DONE };

struct lthread {
	ecp_id seg;         /* segment it runs or waits to run */
	uint64_t remaining; /* CPU ns left in `seg` */
	uint32_t cpu;       /* current or last CPU, NONE before its first run */
	uint32_t qnext, qprev;
	uint8_t state;
	bool seg_started;
	bool util_running; /* running since util_at */
	double util;       /* PELT-like utilisation in [0, 1] at util_at */
	uint64_t util_at;
};

struct lcpu {
	uint32_t curr;     /* running thread or NONE */
	uint32_t last;     /* last thread it ran (no switch cost to resume it) */
	uint64_t run_from; /* progress counts from here (after the switch cost) */
	uint64_t slice_end;
	uint32_t qhead, qtail, qlen;
};

struct lsim {
	const struct ecp_dag *dag;
	const struct ecp_linux_params *par;
	unsigned p;
	uint32_t n_threads;
	struct lthread *th;
	struct lcpu *cpu;
	uint32_t *remaining; /* per segment: unfinished inputs */
	uint64_t *ready;     /* per segment: earliest start (pred end + delay, inputs) */
	uint32_t *out_offset;
	ecp_id *out_to;
	uint64_t *seg_start, *seg_end;
	struct ecp_heap timers; /* key = wake time, b = thread */
	uint32_t n_done;
	uint64_t now;
	uint64_t switches, migrations;
};

/* PELT: a thread's utilisation is a geometric average of "was running" with
 * a 32 ms half-life, as the kernel's per-entity load tracking. */
#define PELT_HALFLIFE_NS 32000000.0

static double util_now(const struct lsim *s, uint32_t t)
{
	const struct lthread *th = &s->th[t];
	double decay = exp2(-(double)(s->now - th->util_at) / PELT_HALFLIFE_NS);
	return th->util * decay + (th->util_running ? 1.0 - decay : 0.0);
}

static void util_set(struct lsim *s, uint32_t t, bool running)
{
	struct lthread *th = &s->th[t];
	th->util = util_now(s, t);
	th->util_at = s->now;
	th->util_running = running;
}

/* The load Linux compares when it places a wakee: the utilisation of every
 * thread attached to the CPU, sleeping ones included (blocked load). */
static double cpu_load(const struct lsim *s, uint32_t ci)
{
	double load = 0;
	for (uint32_t t = 0; t < s->n_threads; t++)
		if (s->th[t].cpu == ci && s->th[t].state != TH_DONE)
			load += util_now(s, t);
	return load;
}

static uint32_t nr_running(const struct lcpu *c)
{
	return c->qlen + (c->curr != NONE);
}

static bool cpu_idle(const struct lcpu *c)
{
	return c->curr == NONE && c->qlen == 0;
}

static void q_push(struct lsim *s, struct lcpu *c, uint32_t t)
{
	struct lthread *th = &s->th[t];
	th->qnext = NONE;
	th->qprev = c->qtail;
	if (c->qtail != NONE)
		s->th[c->qtail].qnext = t;
	else
		c->qhead = t;
	c->qtail = t;
	c->qlen++;
	th->state = TH_QUEUED;
}

static void q_remove(struct lsim *s, struct lcpu *c, uint32_t t)
{
	struct lthread *th = &s->th[t];
	if (th->qprev != NONE)
		s->th[th->qprev].qnext = th->qnext;
	else
		c->qhead = th->qnext;
	if (th->qnext != NONE)
		s->th[th->qnext].qprev = th->qprev;
	else
		c->qtail = th->qprev;
	c->qlen--;
}

static void run_on(struct lsim *s, uint32_t ci, uint32_t t)
{
	struct lcpu *c = &s->cpu[ci];
	struct lthread *th = &s->th[t];
	uint64_t cost = 0;
	if (c->last != NONE && c->last != t) {
		cost = s->par->context_switch_ns;
		s->switches++;
	}
	c->curr = t;
	c->last = t;
	util_set(s, t, true);
	c->run_from = s->now + cost;
	c->slice_end = c->run_from + s->par->slice_ns;
	th->state = TH_RUNNING;
	th->cpu = ci;
	if (!th->seg_started) {
		th->seg_started = true;
		s->seg_start[th->seg] = c->run_from;
	}
}

/* Puts a runnable thread on CPU ci: runs it at once if the CPU is free. */
static void enqueue(struct lsim *s, uint32_t ci, uint32_t t)
{
	struct lthread *th = &s->th[t];
	if (th->cpu != NONE && th->cpu != ci)
		s->migrations++;
	th->cpu = ci;
	if (s->cpu[ci].curr == NONE)
		run_on(s, ci, t);
	else
		q_push(s, &s->cpu[ci], t);
}

static uint32_t least_loaded(const struct lsim *s)
{
	uint32_t best = 0;
	for (uint32_t i = 1; i < s->p; i++)
		if (nr_running(&s->cpu[i]) < nr_running(&s->cpu[best]))
			best = i;
	return best;
}

/* A thread whose segment may start now.  waker_cpu: CPU of the thread whose
 * segment end released it, NONE for a timer.  As select_task_rq_fair: a new
 * thread goes to the least loaded CPU; a woken one to its previous CPU or,
 * when wake_affine() prefers it, the waker's — an idle waker CPU, else an
 * idle previous CPU, else the waker's CPU only if its load plus the wakee's
 * is below the previous CPU's load without the wakee by the 8% bias of
 * WA_BIAS (imbalance_pct 117): light wakees follow their waker, heavy ones
 * stay put.  Then select_idle_sibling(): the target if idle, else the
 * previous CPU if idle, else any idle CPU, else the target. */
static void wake(struct lsim *s, uint32_t t, uint32_t waker_cpu)
{
	struct lthread *th = &s->th[t];
	th->remaining = s->dag->length[th->seg];
	th->seg_started = false;
	uint32_t ci;
	if (th->cpu == NONE) {
		ci = least_loaded(s);
		enqueue(s, ci, t);
		return;
	}
	uint32_t prev = th->cpu, target = prev;
	if (waker_cpu != NONE && waker_cpu != prev) {
		if (cpu_idle(&s->cpu[waker_cpu])) {
			target = cpu_idle(&s->cpu[prev]) ? prev : waker_cpu;
		} else if (!cpu_idle(&s->cpu[prev])) {
			double u = util_now(s, t);
			double this_eff = (cpu_load(s, waker_cpu) + u) * 100.0;
			double prev_eff = (cpu_load(s, prev) - u) * 108.0;
			if (this_eff < prev_eff)
				target = waker_cpu;
		}
	}
	ci = target;
	if (!cpu_idle(&s->cpu[target])) {
		if (cpu_idle(&s->cpu[prev])) {
			ci = prev;
		} else {
			for (uint32_t i = 0; i < s->p; i++)
				if (cpu_idle(&s->cpu[i])) {
					ci = i;
					break;
				}
		}
	}
	enqueue(s, ci, t);
}

/* CPU ci lost its current thread: run the next queued one, else pull one from
 * the busiest CPU (new-idle balancing), else stay idle. */
static void pick_next(struct lsim *s, uint32_t ci)
{
	struct lcpu *c = &s->cpu[ci];
	if (c->curr != NONE)
		util_set(s, c->curr, false);
	c->curr = NONE;
	if (c->qlen) {
		uint32_t t = c->qhead;
		q_remove(s, c, t);
		run_on(s, ci, t);
		return;
	}
	uint32_t busiest = NONE;
	for (uint32_t i = 0; i < s->p; i++)
		if (s->cpu[i].qlen > 0 &&
		    (busiest == NONE || s->cpu[i].qlen > s->cpu[busiest].qlen))
			busiest = i;
	if (busiest == NONE)
		return;
	uint32_t t = s->cpu[busiest].qtail;
	q_remove(s, &s->cpu[busiest], t);
	s->migrations++;
	run_on(s, ci, t);
}

static void periodic_balance(struct lsim *s)
{
	for (uint32_t guard = 0; guard < s->n_threads; guard++) {
		uint32_t hi = 0, lo = 0;
		for (uint32_t i = 1; i < s->p; i++) {
			if (nr_running(&s->cpu[i]) > nr_running(&s->cpu[hi]))
				hi = i;
			if (nr_running(&s->cpu[i]) < nr_running(&s->cpu[lo]))
				lo = i;
		}
		if (nr_running(&s->cpu[hi]) < nr_running(&s->cpu[lo]) + 2 ||
		    s->cpu[hi].qlen == 0)
			return;
		uint32_t t = s->cpu[hi].qtail;
		q_remove(s, &s->cpu[hi], t);
		enqueue(s, lo, t);
	}
}

static int sleep_until(struct lsim *s, uint32_t t, uint64_t when)
{
	s->th[t].state = TH_SLEEPING;
	return ecp_heap_push(&s->timers, when, 0, t);
}

/* One input of segment u ended (or its thread predecessor, with the delay
 * folded into `at`); u's thread wakes when the last one does. */
static int resolve(struct lsim *s, ecp_id u, uint64_t at, uint32_t waker_cpu,
		   bool *runnable)
{
	*runnable = false;
	if (s->ready[u] < at)
		s->ready[u] = at;
	if (--s->remaining[u] > 0)
		return 0;
	uint32_t t = s->dag->thread[u];
	if (s->ready[u] > s->now)
		return sleep_until(s, t, s->ready[u]);
	*runnable = true;
	if (s->th[t].state != TH_RUNNING)
		wake(s, t, waker_cpu);
	return 0;
}

static int complete_segment(struct lsim *s, uint32_t ci)
{
	struct lcpu *c = &s->cpu[ci];
	uint32_t t = c->curr;
	struct lthread *th = &s->th[t];
	const struct ecp_dag *dag = s->dag;
	ecp_id seg = th->seg;
	s->seg_end[seg] = s->now;
	s->n_done++;
	bool runnable;
	/* Wake the threads it releases first: the waker is still running on
	 * its CPU when it posts, signals or unlocks. */
	for (uint32_t k = s->out_offset[seg]; k < s->out_offset[seg + 1]; k++)
		if (resolve(s, s->out_to[k], s->now, ci, &runnable) < 0)
			return -1;
	ecp_id next = seg + 1;
	if (next < dag->n_segments && dag->pred[next] == seg) {
		/* Still the current thread (TH_RUNNING): resolve() does not
		 * wake it, it only tells whether it may go on. */
		th->seg = next;
		if (resolve(s, next, s->now + dag->delay[next], NONE, &runnable) < 0)
			return -1;
		if (runnable) {
			/* Continues on the same CPU within its slice. */
			th->remaining = dag->length[next];
			th->seg_started = true;
			s->seg_start[next] = s->now;
			c->run_from = s->now;
			return 0;
		}
		if (th->state == TH_RUNNING)
			th->state = TH_WAITING;
	} else {
		th->state = TH_DONE;
	}
	pick_next(s, ci);
	return 0;
}

static uint64_t cpu_event(const struct lsim *s, const struct lcpu *c)
{
	if (c->curr == NONE)
		return NEVER;
	uint64_t done = c->run_from + s->th[c->curr].remaining;
	if (c->qlen && c->slice_end < done)
		/* A thread that ran past its slice alone yields as soon as
		 * another one waits. */
		return c->slice_end > s->now ? c->slice_end : s->now;
	return done;
}

/* Accounts the progress of CPU c's thread up to now. */
static void sync_progress(struct lsim *s, struct lcpu *c)
{
	if (c->curr == NONE || s->now <= c->run_from)
		return;
	struct lthread *th = &s->th[c->curr];
	uint64_t ran = s->now - c->run_from;
	th->remaining = ran >= th->remaining ? 0 : th->remaining - ran;
	c->run_from = s->now;
}

static int record_step(struct lsim *s, struct ecp_vec *steps)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < s->p; i++)
		n += nr_running(&s->cpu[i]);
	struct ecp_replay_step *last =
	    steps->len ? (struct ecp_replay_step *)steps->data + steps->len - 1 : NULL;
	if (last && last->time == s->now) {
		last->runnable = n;
		return 0;
	}
	if (last && last->runnable == n)
		return 0;
	struct ecp_replay_step *st = ecp_vec_push(steps);
	if (!st)
		return -1;
	st->time = s->now;
	st->runnable = n;
	return 0;
}

void ecp_linux_params_default(struct ecp_linux_params *params)
{
	params->slice_ns = 3000000;
	params->balance_ns = 4000000;
	params->context_switch_ns = 3000;
}

/* The simulation's arrays; false when out of memory (fill: scratch for the
 * output edges, freed by the caller). */
static bool lsim_alloc(struct lsim *s, uint32_t **fill)
{
	const struct ecp_dag *dag = s->dag;
	uint32_t n = dag->n_segments;
	size_t cells = (size_t)n + 1;
	for (ecp_id i = 0; i < n; i++)
		if (dag->thread[i] >= s->n_threads)
			s->n_threads = dag->thread[i] + 1;
	s->th = calloc((size_t)s->n_threads + 1, sizeof(*s->th));
	s->cpu = calloc(s->p, sizeof(*s->cpu));
	s->remaining = calloc(cells, sizeof(*s->remaining));
	s->ready = calloc(cells, sizeof(*s->ready));
	s->out_offset = calloc(cells, sizeof(*s->out_offset));
	s->out_to = malloc(((size_t)dag->n_in + 1) * sizeof(*s->out_to));
	s->seg_start = calloc(cells, sizeof(*s->seg_start));
	s->seg_end = calloc(cells, sizeof(*s->seg_end));
	*fill = malloc(cells * sizeof(**fill));
	return s->th && s->cpu && s->remaining && s->ready && s->out_offset &&
	       s->out_to && s->seg_start && s->seg_end && *fill;
}

/* Each segment's count of unfinished inputs and its output edges (CSR, in
 * out_offset and out_to); then every thread and CPU idle, each thread at
 * its first segment, and the segments without inputs woken. */
static void lsim_init(struct lsim *s, uint32_t *fill)
{
	const struct ecp_dag *dag = s->dag;
	uint32_t n = dag->n_segments;
	size_t cells = (size_t)n + 1;
	for (ecp_id i = 0; i < n; i++) {
		s->remaining[i] = dag->in_offset[i + 1] - dag->in_offset[i] +
				  (dag->pred[i] != ECP_NO_ID);
		for (uint32_t k = dag->in_offset[i]; k < dag->in_offset[i + 1]; k++)
			s->out_offset[dag->in_from[k] + 1]++;
	}
	for (ecp_id i = 0; i < n; i++)
		s->out_offset[i + 1] += s->out_offset[i];
	memcpy(fill, s->out_offset, cells * sizeof(*fill));
	for (ecp_id i = 0; i < n; i++)
		for (uint32_t k = dag->in_offset[i]; k < dag->in_offset[i + 1]; k++)
			s->out_to[fill[dag->in_from[k]]++] = i;
	for (uint32_t t = 0; t < s->n_threads; t++) {
		s->th[t].cpu = NONE;
		s->th[t].seg = ECP_NO_ID;
	}
	for (uint32_t i = 0; i < s->p; i++) {
		s->cpu[i].curr = s->cpu[i].last = NONE;
		s->cpu[i].qhead = s->cpu[i].qtail = NONE;
	}
	for (ecp_id i = 0; i < n; i++)
		if (dag->pred[i] == ECP_NO_ID)
			s->th[dag->thread[i]].seg = i;
	for (ecp_id i = 0; i < n; i++)
		if (s->remaining[i] == 0)
			wake(s, dag->thread[i], NONE);
}

/* The earliest CPU event or timer into *t; false if there is none. */
static bool lsim_next_event(const struct lsim *s, uint64_t *t)
{
	*t = NEVER;
	for (uint32_t i = 0; i < s->p; i++) {
		uint64_t e = cpu_event(s, &s->cpu[i]);
		if (e < *t)
			*t = e;
	}
	const struct ecp_heap_item *tmr = ecp_heap_top(&s->timers);
	bool someone = *t != NEVER || tmr;
	if (tmr && tmr->key < *t)
		*t = tmr->key;
	return someone;
}

/* The CPUs' events at t, CPU by CPU in index order; -1 when out of memory. */
static int lsim_cpu_events(struct lsim *s, uint64_t t)
{
	for (uint32_t i = 0; i < s->p; i++) {
		struct lcpu *c = &s->cpu[i];
		/* Loop: a thread continuing with a zero-length segment
		 * completes again at the same instant. */
		while (c->curr != NONE && cpu_event(s, c) == t) {
			sync_progress(s, c);
			if (s->th[c->curr].remaining == 0) {
				if (complete_segment(s, i) < 0)
					return -1;
			} else {
				/* Slice over and others wait: round robin. */
				uint32_t cur = c->curr;
				pick_next(s, i);
				q_push(s, c, cur);
			}
		}
	}
	return 0;
}

/* Wakes the sleepers whose timers expire at t or before. */
static void lsim_timers_fire(struct lsim *s, uint64_t t)
{
	const struct ecp_heap_item *tmr;
	struct ecp_heap_item it;
	while ((tmr = ecp_heap_top(&s->timers)) && tmr->key <= t) {
		ecp_heap_pop(&s->timers, &it);
		if (s->th[it.b].state == TH_SLEEPING)
			wake(s, it.b, NONE);
	}
}

enum lsim_step { LSIM_STEPPED, LSIM_STUCK, LSIM_NOMEM };

/* Advances to the next event and processes it: CPUs, then timers, then the
 * balancing tick; idle CPU time up to it is added to *idle. */
static enum lsim_step lsim_step(struct lsim *s, uint64_t *next_tick, double *idle)
{
	uint64_t t;
	if (!lsim_next_event(s, &t))
		return LSIM_STUCK;
	/* The tick only matters while threads wait in queues. */
	if (*next_tick < t)
		t = *next_tick;
	uint32_t busy = 0;
	for (uint32_t i = 0; i < s->p; i++)
		busy += s->cpu[i].curr != NONE;
	*idle += (double)(t - s->now) * (double)(s->p - busy);
	s->now = t;
	if (lsim_cpu_events(s, t) < 0)
		return LSIM_NOMEM;
	lsim_timers_fire(s, t);
	if (t == *next_tick) {
		periodic_balance(s);
		*next_tick += s->par->balance_ns;
	}
	return LSIM_STEPPED;
}

/* T_P, and the idle time up to it (the last tick may lie beyond). */
static void lsim_times(const struct lsim *s, double idle, struct ecp_replay *out)
{
	const struct ecp_dag *dag = s->dag;
	out->processors = s->p;
	out->sched_model = ECP_SCHED_LINUX;
	out->simulated = true;
	out->work = dag->work;
	out->span = dag->span;
	for (ecp_id i = 0; i < dag->n_segments; i++)
		if (s->seg_end[i] > out->makespan)
			out->makespan = s->seg_end[i];
	/* Idle time counts up to T_P only (the last tick may lie beyond). */
	out->idle = (uint64_t)idle;
	if (s->now > out->makespan)
		out->idle -= (s->now - out->makespan) * s->p;
}

/* The steps and the timeline, as flags ask, move into out; -1 when out of
 * memory. */
static int lsim_hand_over(struct lsim *s, unsigned flags, struct ecp_vec *steps,
			  struct ecp_replay *out)
{
	if (flags & ECP_REPLAY_STEPS) {
		out->steps = ecp_vec_steal(steps, &out->n_steps);
		if (!out->steps)
			return -1;
	}
	if (flags & ECP_REPLAY_TIMELINE) {
		out->seg_start = s->seg_start;
		out->seg_end = s->seg_end;
		s->seg_start = s->seg_end = NULL;
	}
	return 0;
}

int ecp_linux_replay(const struct ecp_dag *dag, unsigned processors,
		     const struct ecp_linux_params *params, unsigned flags,
		     struct ecp_replay *out, struct ecp_error *err)
{
	memset(out, 0, sizeof(*out));
	if (processors == 0)
		return ecp_error_set(err, ECP_ERR_USAGE,
				     "the Linux scheduler model needs a finite"
				     " number of processors");
	if (params->slice_ns == 0 || params->balance_ns == 0)
		return ecp_error_set(err, ECP_ERR_USAGE,
				     "Linux model: slice and balancing"
				     " interval must be positive");
	if (dag->n_segments == 0)
		return ecp_error_set(err, ECP_ERR_USAGE, "replay of an empty DAG");
	uint32_t n = dag->n_segments;
	struct lsim s = {.dag = dag, .par = params, .p = processors};
	struct ecp_vec steps;
	ecp_vec_init(&steps, sizeof(struct ecp_replay_step));
	ecp_heap_init(&s.timers);
	int rc = 0;
	uint32_t *fill = NULL;
	if (!lsim_alloc(&s, &fill))
		goto nomem;
	lsim_init(&s, fill);
	uint64_t next_tick = params->balance_ns;
	double idle = 0;
	if (record_step(&s, &steps) < 0)
		goto nomem;
	while (s.n_done < n) {
		enum lsim_step step = lsim_step(&s, &next_tick, &idle);
		if (step == LSIM_STUCK) {
			rc = ecp_error_set(err, ECP_ERR,
					   "inconsistent DAG: %" PRIu32 " segments"
					   " can never run in the Linux-model replay",
					   n - s.n_done);
			goto out;
		}
		if (step == LSIM_NOMEM || record_step(&s, &steps) < 0)
			goto nomem;
	}
	lsim_times(&s, idle, out);
	/* Speedups against the ideal model's T_1, the predicted one-core time,
	 * so both models' speedups share a denominator. */
	if ((rc = ecp_replay_t1(dag, &out->t1, err)))
		goto out;
	out->speedup = out->makespan ? (double)out->t1 / (double)out->makespan : 1.0;
	out->work_law_ok = (u128)out->makespan * processors >= dag->work;
	out->span_law_ok = out->makespan >= dag->span;
	out->context_switches = s.switches;
	out->migrations = s.migrations;
	if (lsim_hand_over(&s, flags, &steps, out) < 0)
		goto nomem;
	goto out;
nomem:
	rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory in the Linux-model replay");
	ecp_replay_finish(out);
out:
	free(fill);
	free(s.th);
	free(s.cpu);
	free(s.remaining);
	free(s.ready);
	free(s.out_offset);
	free(s.out_to);
	free(s.seg_start);
	free(s.seg_end);
	ecp_heap_finish(&s.timers);
	ecp_vec_finish(&steps);
	return rc;
}
