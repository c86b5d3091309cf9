/* SPDX-License-Identifier: MIT */
/* OpenMP tasks dealt out again (simulator/trace/builder-tasks.c collects
 * them, builder-tasks-graph.c makes the edges described below).
 *
 * Under the model's ideal processor sharing every runnable thread
 * progresses at the same rate, min(1, P/n), so in *work time* (the CPU
 * time each has used) the order of events is the same at every P as long
 * as nothing sleeps.  An epoch's deal is therefore simulated once, in work
 * time, as if each team thread had its own CPU, and that deal is the one
 * of every P: the model stays one DAG, and the ECP weights stay exact.
 *
 * The simulation follows the runtime's rules for tied tasks.  A task made
 * becomes ready once the sibling tasks its depend items wait for are done
 * (an undeferred one runs at once on its creator, as a call); a task is
 * run to its end before anything else (a task that waits runs only what
 * its wait allows); a thread at the barrier ending the epoch runs any
 * ready task.  Where the runtimes differ:
 *
 *  - libgomp (GCC): a thread at a taskwait runs the ready children of its
 *    current task, the last made ready first (libgomp queues a task's
 *    children at the front), and otherwise sleeps until one is done; at a
 *    taskgroup's end it runs the group's ready tasks, last first, and only
 *    when none of the group's tasks is ready or running, its own ready
 *    children; at the barrier the team's queue is first in, first out:
 *    the task made ready first.  A waiting thread never takes a task of
 *    another branch of the tree, which is why a recursive task program
 *    built with GCC gains less from P than the same program with libomp.
 *  - LLVM's libomp (recorded through OMPT): a thread at a taskwait runs
 *    the ready children of its current task, at a taskgroup's end the
 *    group's ready tasks, and when there is none of those any ready
 *    descendant of its current task (libomp steals within OpenMP's task
 *    scheduling constraint); at the barrier any ready task; each time the
 *    oldest made.
 *
 * Simultaneous events are taken in the order of the threads' places in the
 * team, so the deal depends only on the program's structure and its
 * measured lengths, never on the order the recording CPU ran the tasks in.
 *
 * The result is each thread's segments in their new order; then the task
 * graph's edges: creation point -> the task's first segment, a depend
 * item's predecessors' ends -> its first segment, the children's ends ->
 * the segment after a taskwait, the group's tasks' ends -> the segment
 * after a taskgroup's end, and each thread's last segment of the epoch ->
 * every other thread's first after the barrier (the barrier waits for all
 * the team's tasks).  A thread's run-to-completion order is its segment
 * order.
 *
 * The tie check: two events a few hundred ns apart in work time can decide
 * which thread keeps which subtree, and one recording cannot tell lengths
 * that close apart.  Once every epoch is dealt, each is simulated again,
 * as dealt and then up to ECP_TASK_JITTER_DRAWS times with the segments'
 * lengths moved by fixed pseudo-random amounts (seg_len); each run's
 * decisions are timed on the recorded lengths (sthread.rt), on the team's
 * own CPUs and on two under ideal sharing (task-shared.c), and builder-tasks.c
 * warns when a draw moves the makespan over ECP_TASK_TIE_WARN.  The model
 * keeps the deal the recorded lengths make. */
#include <stdlib.h>
#include <string.h>

#include "simulator/model/sim-heap.h"
#include "simulator/model/task-graph.h"

enum { TS_NEW, TS_DEPS, TS_READY, TS_RUNNING, TS_DONE };
enum { S_RUN, S_WAIT, S_BARRIER, S_DONE };

struct sframe {
	uint32_t ctx, pos;
};

struct sthread {
	uint64_t t; /* work time */
	/* the same on the segments' own lengths: in a draw of the tie check,
	 * where its decisions, made on the draw's lengths, take the thread */
	uint64_t rt;
	uint64_t seen; /* d->ready_gen when its wait last found nothing to run */
	int state;
	struct ecp_vec stack; /* struct sframe */
	struct ep_thread *et;
};

/* The simulation's state, by task, context and group index over the
 * whole builder (only the epoch's are touched). */
struct deal {
	struct ecp_segment_record *segs;
	struct ecp_task_graph *tk;
	uint8_t *state;    /* by task */
	uint32_t *pending; /* by task: predecessors not done */
	uint64_t *seq;     /* by task: its place in the simulated creation order */
	uint32_t *live;    /* by context: children not done */
	uint32_t *glive;   /* by group: tasks not done */
	uint32_t *succ_first, *succ; /* by task: the tasks its end may make ready */
	struct ecp_heap ready;       /* every ready task, by seq */
	struct ecp_heap *by_parent;  /* by context */
	struct ecp_heap *by_group;   /* by group */
	uint64_t next_seq, done, n_tasks;
	uint64_t ready_gen;     /* tasks made ready so far */
	bool gomp;              /* the epoch's runtime is libgomp */
	uint32_t *gqueued;      /* by group: tasks ready or running (libgomp's
				 * taskgroup queue) */
	uint32_t *rset, n_rset; /* the ready tasks, in no order */
	uint32_t *rpos;         /* by task: its place in rset */
	struct sthread *th;
	size_t n_th;
	/* 0: the deal itself; k > 0: the k-th of the tie check's draws
	 * (seg_len) */
	uint32_t draw;
	uint64_t ops; /* the deal's steps, what a draw costs */
	/* in the tie check's runs (draw_epoch): struct ecp_task_busy, the
	 * threads running segments, on the segments' own lengths (rt), timed
	 * on two CPUs at the end (the deal itself needs neither) */
	bool timing;
	struct ecp_vec busy;
};

/* SplitMix64's finaliser: a well-mixed 64-bit value of x. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* A segment's length in the deal: the recorded one, or in a draw of the
 * tie check moved by up to ECP_TASK_JITTER_NS either way, each segment by
 * its own amount (odd draws), or all of them by the same amount of up to
 * ECP_TASK_SHIFT_NS (even draws). */
static uint64_t seg_len(const struct deal *d, uint32_t s)
{
	uint64_t len = d->segs[s].length;
	if (!d->draw)
		return len;
	bool shift = d->draw % 2 == 0;
	uint64_t amp = shift ? ECP_TASK_SHIFT_NS : ECP_TASK_JITTER_NS;
	uint64_t r =
	    mix64(shift ? d->draw : ((uint64_t)d->draw << 32) ^ s) % (2 * amp + 1);
	return len + r >= amp ? len + r - amp : 0;
}

/* The heaps' key of a task made ready: libomp takes the oldest made
 * everywhere; libgomp's team queue is first in, first out in the order
 * tasks became ready, its children and taskgroup queues last in, first
 * out. */
static uint64_t team_key(const struct deal *d, uint32_t ti)
{
	return d->gomp ? d->ready_gen : d->seq[ti];
}

static uint64_t own_key(const struct deal *d, uint32_t ti)
{
	return d->gomp ? UINT64_MAX - d->ready_gen : d->seq[ti];
}

static int make_ready(struct deal *d, uint32_t ti)
{
	const struct ttask *t = ttask_at(d->tk, ti);
	d->state[ti] = TS_READY;
	d->ready_gen++;
	d->rpos[ti] = d->n_rset;
	d->rset[d->n_rset++] = ti;
	if (ecp_heap_push(&d->ready, team_key(d, ti), ti, 0) < 0 ||
	    ecp_heap_push(&d->by_parent[t->parent], own_key(d, ti), ti, 0) < 0)
		return -1;
	if (t->group != ECP_NO_ID) {
		d->gqueued[t->group]++;
		if (ecp_heap_push(&d->by_group[t->group], own_key(d, ti), ti, 0) < 0)
			return -1;
	}
	return 0;
}

/* Thread j starts task ti at its current time. */
static int start(struct deal *d, size_t j, uint32_t ti)
{
	struct sframe *f = ecp_vec_push(&d->th[j].stack);
	if (!f)
		return -1;
	f->ctx = ttask_at(d->tk, ti)->ctx;
	f->pos = 0;
	if (d->state[ti] == TS_READY) {
		uint32_t last = d->rset[--d->n_rset];
		d->rset[d->rpos[ti]] = last;
		d->rpos[last] = d->rpos[ti];
	}
	d->state[ti] = TS_RUNNING;
	d->th[j].state = S_RUN;
	return 0;
}

/* The oldest ready task of the heap, or ECP_NO_ID (stale entries, of tasks
 * since started from another heap, are dropped). */
static uint32_t take(struct deal *d, struct ecp_heap *h)
{
	struct ecp_heap_item it;
	while (!ecp_heap_empty(h)) {
		uint32_t ti = ecp_heap_top(h)->a;
		if (d->state[ti] == TS_READY)
			return ti;
		ecp_heap_pop(h, &it);
	}
	return ECP_NO_ID;
}

static int create(struct deal *d, size_t j, uint32_t ti)
{
	struct ttask *t = ttask_at(d->tk, ti);
	d->seq[ti] = d->next_seq++;
	d->live[t->parent]++;
	if (t->group != ECP_NO_ID)
		d->glive[t->group]++;
	d->pending[ti] = 0;
	for (size_t k = 0; k < t->preds.len; k++)
		if (d->state[ECP_VEC_AT(&t->preds, uint32_t, k)] != TS_DONE)
			d->pending[ti]++;
	if (t->flags & TASK_F_UNDEFERRED)
		return start(d, j, ti); /* a call: at once, here */
	if (d->pending[ti]) {
		d->state[ti] = TS_DEPS;
		return 0;
	}
	return make_ready(d, ti);
}

static int complete(struct deal *d, uint32_t ti)
{
	struct ttask *t = ttask_at(d->tk, ti);
	d->state[ti] = TS_DONE;
	d->done++;
	d->live[t->parent]--;
	if (t->group != ECP_NO_ID) {
		d->glive[t->group]--;
		if (!(t->flags & TASK_F_UNDEFERRED))
			d->gqueued[t->group]--;
	}
	for (uint32_t k = d->succ_first[ti]; k < d->succ_first[ti + 1]; k++) {
		uint32_t s = d->succ[k];
		if (d->state[s] == TS_DEPS && --d->pending[s] == 0 &&
		    make_ready(d, s) < 0)
			return -1;
	}
	return 0;
}

/* Thread j takes its next item at its current time. */
static int step(struct deal *d, size_t j)
{
	struct sthread *st = &d->th[j];
	struct sframe *f = &ECP_VEC_AT(&st->stack, struct sframe, st->stack.len - 1);
	struct tctx *c = tctx_at(d->tk, f->ctx);
	if (f->pos == c->items.len) {
		if (c->task == ECP_NO_ID) {
			st->state = S_BARRIER;
			return 0;
		}
		st->stack.len--;
		return complete(d, c->task);
	}
	const struct titem *it = &ECP_VEC_AT(&c->items, struct titem, f->pos);
	uint32_t *slot;
	switch (it->kind) {
	case IT_SEG:
		f->pos++;
		st->t += seg_len(d, it->arg);
		if (d->timing && d->segs[it->arg].length) {
			struct ecp_task_busy *b = ecp_vec_push(&d->busy);
			if (!b)
				return -1;
			b->start = st->rt;
			b->end = st->rt + d->segs[it->arg].length;
		}
		st->rt += d->segs[it->arg].length;
		if (!(slot = ecp_vec_push(&st->et->seq)))
			return -1;
		*slot = it->arg;
		return 0;
	case IT_CREATE:
		f->pos++;
		return create(d, j, it->arg);
	case IT_TW:
		if (d->live[f->ctx])
			st->state = S_WAIT;
		else
			f->pos++;
		return 0;
	default: /* IT_TG_END */
		if (d->glive[it->arg])
			st->state = S_WAIT;
		else
			f->pos++;
		return 0;
	}
}

/* Whether task ti descends from the task whose body is context ctx. */
static bool descends(struct ecp_task_graph *tk, uint32_t ti, uint32_t ctx)
{
	for (uint32_t c = ttask_at(tk, ti)->parent;;) {
		if (c == ctx)
			return true;
		uint32_t t = tctx_at(tk, c)->task;
		if (t == ECP_NO_ID)
			return false;
		c = ttask_at(tk, t)->parent;
	}
}

/* The oldest ready descendant of context ctx's task, or ECP_NO_ID: what a
 * wait runs when it has none of its own (OpenMP's task scheduling
 * constraint allows it; without it a wait could wait for a sibling of
 * what it waits for, which nothing else may run).  Looked for again only
 * when tasks were made ready since the last search found none. */
static uint32_t take_descendant(struct deal *d, struct sthread *st, uint32_t ctx)
{
	uint32_t best = ECP_NO_ID;
	if (st->seen == d->ready_gen)
		return best;
	d->ops += d->n_rset;
	for (uint32_t i = 0; i < d->n_rset; i++) {
		uint32_t ti = d->rset[i];
		if ((best == ECP_NO_ID || d->seq[ti] < d->seq[best]) &&
		    descends(d->tk, ti, ctx))
			best = ti;
	}
	if (best == ECP_NO_ID)
		st->seen = d->ready_gen;
	return best;
}

/* What a wait runs when it has none of the tasks it waits for ready: under
 * libomp any ready descendant; under libgomp nothing at a taskwait, and at
 * a taskgroup's end (group != ECP_NO_ID) the thread's own ready children
 * once none of the group's tasks is ready or running. */
static uint32_t take_other(struct deal *d, struct sthread *st, uint32_t ctx,
			   uint32_t group)
{
	if (!d->gomp)
		return take_descendant(d, st, ctx);
	if (group != ECP_NO_ID && !d->gqueued[group])
		return take(d, &d->by_parent[ctx]);
	return ECP_NO_ID;
}

/* A waiting thread goes on at `now` when its wait is over, or runs a task
 * its wait allows.  Returns 1 when it does, 0 not, -1 out of memory. */
static int try_go(struct deal *d, size_t j, uint64_t now, uint64_t now_rt)
{
	struct sthread *st = &d->th[j];
	uint32_t ti = ECP_NO_ID;
	if (st->state == S_BARRIER) {
		ti = take(d, &d->ready);
	} else {
		struct sframe *f =
		    &ECP_VEC_AT(&st->stack, struct sframe, st->stack.len - 1);
		const struct titem *it =
		    &ECP_VEC_AT(&tctx_at(d->tk, f->ctx)->items, struct titem, f->pos);
		bool tw = it->kind == IT_TW;
		if (tw ? !d->live[f->ctx] : !d->glive[it->arg]) {
			f->pos++;
			st->state = S_RUN;
			st->t = st->t > now ? st->t : now;
			st->rt = st->rt > now_rt ? st->rt : now_rt;
			return 1;
		}
		ti = take(d, tw ? &d->by_parent[f->ctx] : &d->by_group[it->arg]);
		if (ti == ECP_NO_ID)
			ti = take_other(d, st, f->ctx, tw ? ECP_NO_ID : it->arg);
	}
	if (ti == ECP_NO_ID)
		return 0;
	st->t = st->t > now ? st->t : now;
	st->rt = st->rt > now_rt ? st->rt : now_rt;
	return start(d, j, ti) < 0 ? -1 : 1;
}

/* The simulation proper: 0 done, 1 stuck (kept as recorded), -1 memory. */
static int simulate(struct deal *d)
{
	uint64_t now = 0, now_rt = 0;
	for (;;) {
		int moved = 1, rc;
		while (moved) {
			moved = 0;
			d->ops += d->n_th;
			for (size_t j = 0; j < d->n_th; j++) {
				if (d->th[j].state != S_WAIT &&
				    d->th[j].state != S_BARRIER)
					continue;
				if ((rc = try_go(d, j, now, now_rt)) < 0)
					return -1;
				moved |= rc;
			}
		}
		size_t best = d->n_th;
		for (size_t j = 0; j < d->n_th; j++)
			if (d->th[j].state == S_RUN &&
			    (best == d->n_th || d->th[j].t < d->th[best].t))
				best = j;
		if (best == d->n_th) {
			for (size_t j = 0; j < d->n_th; j++)
				if (d->th[j].state != S_BARRIER)
					return 1;
			return d->done == d->n_tasks ? 0 : 1;
		}
		now = d->th[best].t;
		now_rt = d->th[best].rt;
		if (step(d, best) < 0)
			return -1;
	}
}

/* Whether the epoch can be dealt: regular, every thread left it at a
 * barrier, every task ran to its end in the recording. */
static bool dealable(struct ecp_task_graph *tk, uint32_t e, const uint32_t *tasks,
		     size_t n)
{
	const struct tepoch *ep = &ECP_VEC_AT(&tk->epochs, struct tepoch, e);
	if (ep->irregular || !ep->threads.len)
		return false;
	for (size_t k = 0; k < ep->threads.len; k++) {
		const struct ep_thread *et =
		    &ECP_VEC_AT(&ep->threads, struct ep_thread, k);
		if (!et->closed || !et->at_barrier)
			return false;
	}
	for (size_t i = 0; i < n; i++)
		if (!ttask_at(tk, tasks[i])->begun || !ttask_at(tk, tasks[i])->ended)
			return false;
	return true;
}

static int cmp_ep_thread(const void *a, const void *b)
{
	const struct ep_thread *x = a, *y = b;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

/* Every segment of the epoch placed once: the deal is complete. */
static bool all_placed(const struct tepoch *ep)
{
	size_t old = 0, placed = 0;
	for (size_t k = 0; k < ep->threads.len; k++) {
		const struct ep_thread *et =
		    &ECP_VEC_AT(&ep->threads, struct ep_thread, k);
		old += et->hi - et->lo;
		placed += et->seq.len;
	}
	return old == placed;
}

/* The epoch's tasks, contexts and groups as no simulation has touched
 * them (the arrays are the whole graph's; a draw of the tie check leaves
 * them done, its heaps holding stale entries). */
static void reset_epoch(struct deal *d, const struct tepoch *ep, const uint32_t *tasks,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct ttask *t = ttask_at(d->tk, tasks[i]);
		d->state[tasks[i]] = TS_NEW;
		d->pending[tasks[i]] = 0;
		d->live[t->ctx] = d->live[t->parent] = 0;
		d->by_parent[t->ctx].len = d->by_parent[t->parent].len = 0;
		if (t->group != ECP_NO_ID) {
			d->glive[t->group] = d->gqueued[t->group] = 0;
			d->by_group[t->group].len = 0;
		}
	}
	for (size_t k = 0; k < ep->threads.len; k++) {
		uint32_t c = ECP_VEC_AT(&ep->threads, struct ep_thread, k).ctx;
		d->live[c] = 0;
		d->by_parent[c].len = 0;
	}
	d->ready.len = 0;
	d->n_rset = 0;
	d->done = 0;
	d->next_seq = 0;
}

/* What a deal of an epoch takes on the segments' own lengths: on as many
 * CPUs as the team has threads (the last thread's arrival at the closing
 * barrier, in work time) and, when d->timing, on two under ideal
 * sharing. */
struct taken {
	uint64_t team_ns, two_ns;
};

/* One simulation of the epoch, its decisions made on d->draw's lengths:
 * 0 and *took when it placed every segment, 1 stuck, -1 out of memory. */
static int simulate_epoch(struct deal *d, struct tepoch *ep, const uint32_t *tasks,
			  size_t n, struct taken *took)
{
	reset_epoch(d, ep, tasks, n);
	d->busy.len = 0;
	d->n_th = ep->threads.len;
	d->th = calloc(d->n_th, sizeof(*d->th));
	if (!d->th)
		return -1;
	int rc = 0;
	for (size_t j = 0; j < d->n_th && !rc; j++) {
		struct sthread *st = &d->th[j];
		st->et = &ECP_VEC_AT(&ep->threads, struct ep_thread, j);
		st->et->seq.len = 0;
		ecp_vec_init(&st->stack, sizeof(struct sframe));
		struct sframe *f = ecp_vec_push(&st->stack);
		if (!f)
			rc = -1;
		else
			*f = (struct sframe){st->et->ctx, 0};
	}
	d->n_tasks = n;
	if (!rc)
		rc = simulate(d);
	if (!rc && !all_placed(ep))
		rc = 1;
	took->team_ns = 0;
	for (size_t j = 0; j < d->n_th; j++) {
		if (d->th[j].rt > took->team_ns)
			took->team_ns = d->th[j].rt;
		ecp_vec_finish(&d->th[j].stack);
	}
	free(d->th);
	d->th = NULL;
	took->two_ns = 0;
	if (!rc && d->timing &&
	    ecp_task_shared_ns(d->busy.data, d->busy.len, 2, &took->two_ns) < 0)
		rc = -1;
	return rc;
}

/* Whether the epoch's tasks are libgomp's (none came through OMPT). */
static bool made_by_libgomp(struct ecp_task_graph *tk, const uint32_t *tasks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ttask_at(tk, tasks[i])->flags & TASK_F_OMPT)
			return false;
	return true;
}

static int deal_epoch(struct deal *d, uint32_t e, const uint32_t *tasks, size_t n)
{
	struct ecp_task_graph *tk = d->tk;
	struct tepoch *ep = &ECP_VEC_AT(&tk->epochs, struct tepoch, e);
	if (!dealable(tk, e, tasks, n))
		return 1;
	/* simultaneous events in the threads' order in the model */
	qsort(ep->threads.data, ep->threads.len, sizeof(struct ep_thread), cmp_ep_thread);
	d->gomp = made_by_libgomp(tk, tasks, n);
	d->draw = 0;
	struct taken took;
	int rc = simulate_epoch(d, ep, tasks, n, &took);
	for (size_t j = 0; j < ep->threads.len && !rc; j++) {
		const struct ep_thread *et =
		    &ECP_VEC_AT(&ep->threads, struct ep_thread, j);
		for (size_t k = 0; k < et->seq.len; k++)
			d->segs[ECP_VEC_AT(&et->seq, uint32_t, k)].thread = et->thread;
	}
	ep->dealt = rc == 0;
	return rc;
}

/* The tie check of a dealt epoch: the deal timed again (the same
 * decisions, now with its busy intervals), its makespans added to
 * tk->tie_dealt_ns and its draws' to tk->tie_drawn_ns (a draw that gets
 * stuck counts as the deal).  The threads' sequences are the deal's again
 * after. */
static int draw_epoch(struct deal *d, uint32_t e, const uint32_t *tasks, size_t n)
{
	struct ecp_task_graph *tk = d->tk;
	struct tepoch *ep = &ECP_VEC_AT(&tk->epochs, struct tepoch, e);
	size_t nt = ep->threads.len;
	struct ecp_vec *dealt = calloc(nt ? nt : 1, sizeof(*dealt));
	if (!dealt)
		return -1;
	d->gomp = made_by_libgomp(tk, tasks, n);
	/* the deal's sequences aside, the draws' in fresh vectors */
	for (size_t j = 0; j < nt; j++) {
		struct ep_thread *et = &ECP_VEC_AT(&ep->threads, struct ep_thread, j);
		dealt[j] = et->seq;
		ecp_vec_init(&et->seq, sizeof(uint32_t));
	}
	struct taken dealt_took, took;
	d->timing = true;
	d->draw = 0;
	int rc = simulate_epoch(d, ep, tasks, n, &dealt_took);
	if (!rc) {
		tk->tie_dealt_ns += dealt_took.team_ns;
		tk->tie_dealt_two_ns += dealt_took.two_ns;
		if (nt > tk->tie_team)
			tk->tie_team = (uint32_t)nt;
	}
	for (uint32_t k = 1; k <= tk->tie_draws && rc == 0; k++) {
		d->draw = k;
		int r = simulate_epoch(d, ep, tasks, n, &took);
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r)
			took = dealt_took;
		tk->tie_drawn_ns[k - 1] += took.team_ns;
		tk->tie_drawn_two_ns[k - 1] += took.two_ns;
	}
	d->draw = 0;
	d->timing = false;
	for (size_t j = 0; j < nt; j++) {
		struct ep_thread *et = &ECP_VEC_AT(&ep->threads, struct ep_thread, j);
		ecp_vec_finish(&et->seq);
		et->seq = dealt[j];
	}
	free(dealt);
	return rc < 0 ? -1 : 0;
}

/* Each task's successors (the tasks whose depend items wait for it), as
 * index ranges into one array. */
static int successors(struct deal *d)
{
	size_t n = d->tk->tasks.len, total = 0;
	d->succ_first = calloc(n + 1, sizeof(uint32_t));
	if (!d->succ_first)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct ttask *t = ttask_at(d->tk, (uint32_t)i);
		for (size_t k = 0; k < t->preds.len; k++)
			d->succ_first[ECP_VEC_AT(&t->preds, uint32_t, k) + 1]++;
		total += t->preds.len;
	}
	for (size_t i = 0; i < n; i++)
		d->succ_first[i + 1] += d->succ_first[i];
	d->succ = malloc((total ? total : 1) * sizeof(uint32_t));
	uint32_t *fill = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!d->succ || !fill) {
		free(fill);
		return -1;
	}
	memcpy(fill, d->succ_first, n * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		const struct ttask *t = ttask_at(d->tk, (uint32_t)i);
		for (size_t k = 0; k < t->preds.len; k++)
			d->succ[fill[ECP_VEC_AT(&t->preds, uint32_t, k)]++] = (uint32_t)i;
	}
	free(fill);
	return 0;
}

static void deal_free(struct deal *d)
{
	free(d->state);
	free(d->pending);
	free(d->seq);
	free(d->live);
	free(d->glive);
	free(d->gqueued);
	free(d->rset);
	free(d->rpos);
	free(d->succ_first);
	free(d->succ);
	ecp_heap_finish(&d->ready);
	ecp_vec_finish(&d->busy);
	for (size_t i = 0; d->by_parent && i < d->tk->ctxs.len; i++)
		ecp_heap_finish(&d->by_parent[i]);
	for (size_t i = 0; d->by_group && i < d->tk->groups.len; i++)
		ecp_heap_finish(&d->by_group[i]);
	free(d->by_parent);
	free(d->by_group);
}

static int deal_init(struct deal *d, struct ecp_task_graph *tk,
		     struct ecp_segment_record *segs)
{
	size_t nt = tk->tasks.len ? tk->tasks.len : 1;
	size_t nc = tk->ctxs.len ? tk->ctxs.len : 1;
	size_t ng = tk->groups.len ? tk->groups.len : 1;
	memset(d, 0, sizeof(*d));
	d->segs = segs;
	d->tk = tk;
	ecp_heap_init(&d->ready);
	ecp_vec_init(&d->busy, sizeof(struct ecp_task_busy));
	d->state = calloc(nt, 1);
	d->pending = calloc(nt, sizeof(uint32_t));
	d->rset = calloc(nt, sizeof(uint32_t));
	d->rpos = calloc(nt, sizeof(uint32_t));
	d->seq = calloc(nt, sizeof(uint64_t));
	d->live = calloc(nc, sizeof(uint32_t));
	d->glive = calloc(ng, sizeof(uint32_t));
	d->gqueued = calloc(ng, sizeof(uint32_t));
	d->by_parent = calloc(nc, sizeof(struct ecp_heap));
	d->by_group = calloc(ng, sizeof(struct ecp_heap));
	if (!d->state || !d->pending || !d->rset || !d->rpos || !d->seq || !d->live ||
	    !d->glive || !d->gqueued || !d->by_parent || !d->by_group)
		return -1;
	return successors(d);
}

/* Deals every epoch that has tasks and can be dealt (tasks[first[e],
 * first[e+1]) are epoch e's); the others keep their recorded placement. */
int ecp_task_deal_all(struct ecp_task_graph *tk, struct ecp_segment_record *segs,
		      const uint32_t *first, const uint32_t *tasks)
{
	struct deal d;
	int rc = deal_init(&d, tk, segs) < 0 ? -1 : 0;
	for (size_t e = 0; !rc && e < tk->epochs.len; e++) {
		size_t n = first[e + 1] - first[e];
		if (!n)
			continue;
		int r = deal_epoch(&d, (uint32_t)e, tasks + first[e], n);
		if (r < 0) {
			rc = -1;
		} else if (r == 0) {
			tk->dealt_epochs++;
			tk->dealt_tasks += n;
		} else {
			tk->kept_epochs++;
			tk->kept_tasks += n;
		}
	}
	/* The tie check costs a deal per draw: as many draws as
	 * ECP_TASK_JITTER_WORK of the deal's steps allow, none below
	 * ECP_TASK_JITTER_MIN_DRAWS (the count depends on the deal only, not
	 * on the machine). */
	uint64_t per = d.ops ? ECP_TASK_JITTER_WORK / d.ops : 0;
	tk->tie_draws = per >= ECP_TASK_JITTER_DRAWS       ? ECP_TASK_JITTER_DRAWS
			: per >= ECP_TASK_JITTER_MIN_DRAWS ? (uint32_t)per
							   : 0;
	for (size_t e = 0; !rc && tk->tie_draws && e < tk->epochs.len; e++)
		if (ECP_VEC_AT(&tk->epochs, struct tepoch, e).dealt)
			rc = draw_epoch(&d, (uint32_t)e, tasks + first[e],
					first[e + 1] - first[e]);
	deal_free(&d);
	return rc;
}
