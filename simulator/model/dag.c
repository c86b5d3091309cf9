/* SPDX-License-Identifier: MIT */
/* The ASAP schedule on unlimited processors, as a fixed dependency DAG.
 *
 * The run is an event simulation in time order.  A segment becomes *ready*
 * once its thread predecessor has ended and its delay has passed and all its
 * recorded (non-lock) inputs have ended.  A ready segment without a lock to
 * take starts at once (unlimited processors).  One that starts by taking a
 * lock requests it at its ready time:
 *
 *  - arrival mode (default): the simulator decides the hand-offs.  All events
 *    of one instant are processed first (ends release locks, ready segments
 *    queue their requests); then, while some queued request can be granted,
 *    the one with the smallest (request time, thread, segment) is granted and
 *    starts; a zero-length critical section that ends at once is processed
 *    before the next grant.  Mutexes and spinlocks are exclusive and FIFO by
 *    request time; rwlocks let shared holders coexist and prefer readers
 *    (glibc's default): a reader is admitted while other readers hold the
 *    lock even if a writer waits.  A thread that already holds a lock
 *    exclusively and takes it again (recursive mutex) does not block.
 *    Every grant becomes an edge (ECP_EDGE_LOCK) from the release that must
 *    precede it: the previous exclusive holder's releasing segment and, for
 *    an exclusive grant, every shared release since then (same-thread
 *    releases are implied by program order and get no edge).  So the DAG
 *    fixes the order the run decided, and its node semantics (dag.h) give
 *    back exactly this run.
 *  - recorded mode: the model's ECP_EDGE_LOCK edges are kept as ordinary
 *    inputs and nothing is decided.
 *
 * Segments are started in time order, so `topo` lists them by nondecreasing
 * start time (ties in event order), every segment after its inputs.
 *
 * Cost: O(S log T + E) time for S segments, T threads and E edges: at most
 * one event per thread is pending at a time, so the event heap stays small;
 * lock wait queues are heaps too.  Memory: the DAG holds 48 bytes per
 * segment and 5 per dependency; building it takes about 21 bytes per segment
 * and 8 per edge more, freed on return.  A what-if rebuilds with other
 * lengths at that cost.  Segments that never become ready mean a deadlock (in
 * the simulated hand-off order, or a cycle among recorded edges) or an
 * incomplete model; the error names a stuck thread and what it waits for. */
#include "simulator/model/dag.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "simulator/model/model.h"
#include "simulator/model/sim-heap.h"

enum seg_state {
	SEG_BLOCKED = 0, /* inputs not all ended yet */
	SEG_PENDING,     /* READY event queued (waiting for its time) */
	SEG_LOCK_WAIT,   /* queued on a lock */
	SEG_RUNNING,
	SEG_DONE,
};

enum { EV_END = 0, EV_READY = 1 };

struct lock_state {
	ecp_id holder;                  /* thread holding it exclusively, or ECP_NO_ID */
	uint32_t depth;                 /* recursion depth of the exclusive hold */
	uint32_t shared;                /* shared (reader) holds */
	ecp_id last_excl_release;       /* segment that ended the last exclusive hold */
	struct ecp_vec shared_releases; /* ecp_id: shared releases since then */
	struct ecp_heap excl_waiters;   /* key = request time, a = thread, b = segment */
	struct ecp_heap shared_waiters;
	bool dirty; /* on the builder's dirty list */
};

struct dyn_edge {
	ecp_id to;
	ecp_id from;
};

struct builder {
	const struct ecp_model *m;
	struct ecp_dag *dag;
	enum ecp_lock_policy policy;
	struct ecp_error *err;
	uint32_t *remaining;
	uint64_t *ready;
	uint8_t *state;
	uint32_t *out_offset; /* successors through the inputs in force */
	ecp_id *out_to;
	struct ecp_heap events; /* key = time, a = EV_*, b = segment */
	struct ecp_vec instant; /* struct ecp_heap_item: events at `now` itself,
				 * kept off the heap (most events are) */
	uint64_t now;
	struct lock_state *locks;
	struct ecp_vec dirty;     /* ecp_id locks touched at the current instant */
	struct ecp_vec dyn_edges; /* struct dyn_edge: decided lock hand-offs */
	uint32_t n_topo;
	uint32_t n_done;
};

static bool edge_in_force(const struct builder *b, uint32_t kind)
{
	return b->policy == ECP_LOCK_ORDER_RECORDED || kind != ECP_EDGE_LOCK;
}

static bool uses_dynamic_locks(const struct builder *b, ecp_id s)
{
	return b->policy == ECP_LOCK_ORDER_ARRIVAL &&
	       b->m->segments[s].lock_acquire != ECP_NO_ID;
}

static int nomem(struct builder *b)
{
	return ecp_error_set(b->err, ECP_ERR_NOMEM,
			     "out of memory building the ASAP DAG (%" PRIu32 " segments)",
			     b->m->n_segments);
}

static const char *lock_kind_name(uint32_t kind)
{
	switch (kind) {
	case ECP_LOCK_MUTEX:
		return "mutex";
	case ECP_LOCK_SPIN:
		return "spinlock";
	case ECP_LOCK_RWLOCK:
		return "rwlock";
	default:
		return "lock";
	}
}

static const char *edge_kind_name(uint32_t kind)
{
	static const char *const names[ECP_EDGE_KIND_COUNT] = {
	    "thread creation", "join",    "lock hand-off",       "condition signal",
	    "semaphore post",  "barrier", "once initialisation", "lock held to the end",
	};
	return kind < ECP_EDGE_KIND_COUNT ? names[kind] : "dependency";
}

/* Checks what the simulation indexes blindly and fills pred/thread. */
static int check_model(struct builder *b)
{
	const struct ecp_model *m = b->m;
	struct ecp_dag *dag = b->dag;
	if (m->n_segments == 0)
		return ecp_error_set(b->err, ECP_ERR, "the model has no segments");
	for (ecp_id s = 0; s < m->n_segments; s++)
		dag->thread[s] = ECP_NO_ID;
	for (ecp_id t = 0; t < m->n_threads; t++) {
		const struct ecp_thread *th = &m->threads[t];
		if (th->first_segment > m->n_segments ||
		    th->n_segments > m->n_segments - th->first_segment)
			return ecp_error_set(
			    b->err, ECP_ERR,
			    "thread %" PRIu32 " (tid %" PRIu64 "): segments %" PRIu32
			    "..+%" PRIu32 " out of range",
			    t, th->tid, th->first_segment, th->n_segments);
		for (uint32_t i = 0; i < th->n_segments; i++) {
			ecp_id s = th->first_segment + i;
			if (m->segments[s].thread != t || dag->thread[s] != ECP_NO_ID)
				return ecp_error_set(b->err, ECP_ERR,
						     "segment %" PRIu32
						     " is listed by thread %" PRIu32
						     " but belongs to thread %" PRIu32,
						     s, t, m->segments[s].thread);
			dag->thread[s] = t;
			dag->pred[s] = i == 0 ? ECP_NO_ID : s - 1;
		}
	}
	for (ecp_id s = 0; s < m->n_segments; s++) {
		const struct ecp_segment *seg = &m->segments[s];
		if (dag->thread[s] == ECP_NO_ID)
			return ecp_error_set(b->err, ECP_ERR,
					     "segment %" PRIu32 " belongs to no thread",
					     s);
		if ((seg->lock_acquire != ECP_NO_ID && seg->lock_acquire >= m->n_locks) ||
		    (seg->lock_release != ECP_NO_ID && seg->lock_release >= m->n_locks))
			return ecp_error_set(b->err, ECP_ERR,
					     "segment %" PRIu32
					     ": lock index out of range (%" PRIu32
					     " locks)",
					     s, m->n_locks);
		uint32_t in_end = ecp_segment_in_end(m, s);
		if (seg->first_in > in_end || in_end > m->n_edges)
			return ecp_error_set(
			    b->err, ECP_ERR,
			    "segment %" PRIu32 ": incoming edges out of range", s);
		for (uint32_t k = 0; k < in_end - seg->first_in; k++) {
			const struct ecp_edge *e = &m->edges[seg->first_in + k];
			if (e->to != s || e->from >= m->n_segments ||
			    e->kind >= ECP_EDGE_KIND_COUNT)
				return ecp_error_set(b->err, ECP_ERR,
						     "edge %" PRIu32
						     " (into segment %" PRIu32
						     "): bad source,"
						     " target or kind",
						     seg->first_in + k, s);
		}
	}
	return 0;
}

static int build_successors(struct builder *b)
{
	const struct ecp_model *m = b->m;
	uint32_t n = m->n_segments;
	b->out_offset = calloc((size_t)n + 1, sizeof(*b->out_offset));
	if (!b->out_offset)
		return nomem(b);
	for (ecp_id s = 0; s < n; s++) {
		const struct ecp_segment *seg = &m->segments[s];
		for (uint32_t k = 0, n_in = ecp_segment_n_in(m, s); k < n_in; k++) {
			const struct ecp_edge *e = &m->edges[seg->first_in + k];
			if (edge_in_force(b, e->kind)) {
				b->out_offset[e->from + 1]++;
				b->remaining[s]++;
			}
		}
		if (b->dag->pred[s] != ECP_NO_ID)
			b->remaining[s]++;
	}
	for (ecp_id s = 0; s < n; s++)
		b->out_offset[s + 1] += b->out_offset[s];
	b->out_to = malloc(((size_t)b->out_offset[n] + 1) * sizeof(*b->out_to));
	uint32_t *fill = malloc(((size_t)n + 1) * sizeof(*fill));
	if (!b->out_to || !fill) {
		free(fill);
		return nomem(b);
	}
	memcpy(fill, b->out_offset, ((size_t)n + 1) * sizeof(*fill));
	for (ecp_id s = 0; s < n; s++) {
		const struct ecp_segment *seg = &m->segments[s];
		for (uint32_t k = 0, n_in = ecp_segment_n_in(m, s); k < n_in; k++) {
			const struct ecp_edge *e = &m->edges[seg->first_in + k];
			if (edge_in_force(b, e->kind))
				b->out_to[fill[e->from]++] = s;
		}
	}
	free(fill);
	return 0;
}

/* Events of the current instant go to a plain list: the order of events
 * within an instant does not change the run (grants wait for all of them). */
static int push_event(struct builder *b, uint64_t t, uint32_t kind, ecp_id s)
{
	if (t == b->now) {
		struct ecp_heap_item *it = ecp_vec_push(&b->instant);
		if (!it)
			return -1;
		*it = (struct ecp_heap_item){t, kind, s};
		return 0;
	}
	return ecp_heap_push(&b->events, t, kind, s);
}

static int start_segment(struct builder *b, ecp_id s, uint64_t now)
{
	struct ecp_dag *dag = b->dag;
	b->state[s] = SEG_RUNNING;
	dag->topo[b->n_topo++] = s;
	dag->start[s] = now;
	if (dag->length[s] > UINT64_MAX - now)
		return ecp_error_set(b->err, ECP_ERR,
				     "segment %" PRIu32 ": time overflows", s);
	dag->end[s] = now + dag->length[s];
	if (push_event(b, dag->end[s], EV_END, s) < 0)
		return nomem(b);
	return 0;
}

static int mark_dirty(struct builder *b, ecp_id lock)
{
	if (b->locks[lock].dirty)
		return 0;
	ecp_id *slot = ecp_vec_push(&b->dirty);
	if (!slot)
		return nomem(b);
	*slot = lock;
	b->locks[lock].dirty = true;
	return 0;
}

static bool wants_shared(const struct builder *b, ecp_id s, ecp_id lock)
{
	return b->m->locks[lock].kind == ECP_LOCK_RWLOCK &&
	       b->m->segments[s].acquire_mode == ECP_LOCK_SHARED;
}

static int request_lock(struct builder *b, ecp_id s, uint64_t now)
{
	ecp_id lock = b->m->segments[s].lock_acquire;
	struct lock_state *ls = &b->locks[lock];
	ecp_id th = b->dag->thread[s];
	if (ls->holder == th) {
		/* Recursive acquisition (or a reader re-entering its own write
		 * lock): the thread already owns it and does not wait. */
		ls->depth++;
		return start_segment(b, s, now);
	}
	struct ecp_heap *q =
	    wants_shared(b, s, lock) ? &ls->shared_waiters : &ls->excl_waiters;
	if (ecp_heap_push(q, now, th, s) < 0)
		return nomem(b);
	b->state[s] = SEG_LOCK_WAIT;
	return mark_dirty(b, lock);
}

static int release_lock(struct builder *b, ecp_id s)
{
	ecp_id lock = b->m->segments[s].lock_release;
	struct lock_state *ls = &b->locks[lock];
	ecp_id th = b->dag->thread[s];
	if (ls->holder == th) {
		if (--ls->depth == 0) {
			ls->holder = ECP_NO_ID;
			ls->last_excl_release = s;
		}
	} else if (ls->shared > 0) {
		ls->shared--;
		ecp_id *slot = ecp_vec_push(&ls->shared_releases);
		if (!slot)
			return nomem(b);
		*slot = s;
	} else {
		return ecp_error_set(
		    b->err, ECP_ERR,
		    "thread %" PRIu32 " (tid %" PRIu64 ") segment %" PRIu32
		    " releases %s #%" PRIu32 " (0x%" PRIx64
		    ") which it does not hold in the simulated run"
		    " (an acquisition missing from the trace?)",
		    th, b->m->threads[th].tid, s, lock_kind_name(b->m->locks[lock].kind),
		    lock, b->m->locks[lock].addr);
	}
	return mark_dirty(b, lock);
}

static int add_dyn_edge(struct builder *b, ecp_id from, ecp_id to)
{
	if (from == ECP_NO_ID || b->dag->thread[from] == b->dag->thread[to])
		return 0;
	struct dyn_edge *e = ecp_vec_push(&b->dyn_edges);
	if (!e)
		return nomem(b);
	e->from = from;
	e->to = to;
	return 0;
}

/* The best request lock `lock` can grant now, or NULL. */
static const struct ecp_heap_item *grantable(const struct lock_state *ls, bool *shared)
{
	if (ls->holder != ECP_NO_ID)
		return NULL;
	const struct ecp_heap_item *r = ecp_heap_top(&ls->shared_waiters);
	if (ls->shared > 0) {
		*shared = true;
		return r;
	}
	const struct ecp_heap_item *w = ecp_heap_top(&ls->excl_waiters);
	if (w && (!r || ecp_heap_less(w, r))) {
		*shared = false;
		return w;
	}
	*shared = true;
	return r;
}

/* Grants the single best grantable request of the instant; *granted says
 * whether one was. */
static int grant_one(struct builder *b, uint64_t now, bool *granted)
{
	*granted = false;
	ecp_id *dirty = b->dirty.data;
	size_t best_i = SIZE_MAX;
	struct ecp_heap_item best = {0, 0, 0};
	bool best_shared = false;
	for (size_t i = 0; i < b->dirty.len;) {
		struct lock_state *ls = &b->locks[dirty[i]];
		bool shared = false;
		const struct ecp_heap_item *c = grantable(ls, &shared);
		if (!c) {
			/* Nothing to grant until its next release re-marks it. */
			ls->dirty = false;
			dirty[i] = dirty[--b->dirty.len];
			continue;
		}
		if (best_i == SIZE_MAX || ecp_heap_less(c, &best)) {
			best_i = i;
			best = *c;
			best_shared = shared;
		}
		i++;
	}
	if (best_i == SIZE_MAX)
		return 0;
	struct lock_state *ls = &b->locks[dirty[best_i]];
	struct ecp_heap_item req;
	ecp_heap_pop(best_shared ? &ls->shared_waiters : &ls->excl_waiters, &req);
	ecp_id s = req.b;
	int rc = add_dyn_edge(b, ls->last_excl_release, s);
	if (rc)
		return rc;
	if (best_shared) {
		ls->shared++;
	} else {
		ecp_id *rel = ls->shared_releases.data;
		for (size_t i = 0; i < ls->shared_releases.len; i++)
			if ((rc = add_dyn_edge(b, rel[i], s)))
				return rc;
		ls->shared_releases.len = 0;
		ls->holder = b->dag->thread[s];
		ls->depth = 1;
	}
	*granted = true;
	return start_segment(b, s, now);
}

static int resolve(struct builder *b, ecp_id s, uint64_t at)
{
	if (b->ready[s] < at)
		b->ready[s] = at;
	if (--b->remaining[s] > 0)
		return 0;
	b->state[s] = SEG_PENDING;
	if (push_event(b, b->ready[s], EV_READY, s) < 0)
		return nomem(b);
	return 0;
}

static int end_segment(struct builder *b, ecp_id s, uint64_t now)
{
	struct ecp_dag *dag = b->dag;
	int rc;
	b->state[s] = SEG_DONE;
	b->n_done++;
	if (b->policy == ECP_LOCK_ORDER_ARRIVAL &&
	    b->m->segments[s].lock_release != ECP_NO_ID && (rc = release_lock(b, s)))
		return rc;
	ecp_id next = s + 1;
	if (next < dag->n_segments && dag->pred[next] == s) {
		uint64_t d = dag->delay[next];
		if (d > UINT64_MAX - now)
			return ecp_error_set(b->err, ECP_ERR,
					     "segment %" PRIu32 ": time overflows", next);
		if ((rc = resolve(b, next, now + d)))
			return rc;
	}
	for (uint32_t k = b->out_offset[s]; k < b->out_offset[s + 1]; k++)
		if ((rc = resolve(b, b->out_to[k], now)))
			return rc;
	return 0;
}

static int simulate(struct builder *b)
{
	int rc;
	uint32_t n = b->m->n_segments;
	b->now = 0;
	for (ecp_id s = 0; s < n; s++)
		if (b->remaining[s] == 0) {
			b->state[s] = SEG_PENDING;
			if (push_event(b, 0, EV_READY, s) < 0)
				return nomem(b);
		}
	for (;;) {
		struct ecp_heap_item ev;
		const struct ecp_heap_item *top = ecp_heap_top(&b->events);
		if (b->instant.len) {
			ev = ((struct ecp_heap_item *)b->instant.data)[--b->instant.len];
		} else if (top && top->key == b->now) {
			ecp_heap_pop(&b->events, &ev);
		} else {
			/* Every event of this instant is done: decide the
			 * hand-offs, one at a time. */
			bool granted;
			if ((rc = grant_one(b, b->now, &granted)))
				return rc;
			if (granted)
				continue;
			if (!top)
				break;
			b->now = top->key;
			continue;
		}
		if (ev.a == EV_END)
			rc = end_segment(b, ev.b, b->now);
		else if (uses_dynamic_locks(b, ev.b))
			rc = request_lock(b, ev.b, b->now);
		else
			rc = start_segment(b, ev.b, b->now);
		if (rc)
			return rc;
	}
	return 0;
}

static uint32_t n_left(const struct builder *b)
{
	return b->m->n_segments - b->n_done;
}

/* Explains why segments never ran: picks the first stuck thread, preferring
 * one queued on a lock (the usual deadlock), else one waiting for an input. */
static int report_stuck(struct builder *b)
{
	const struct ecp_model *m = b->m;
	struct ecp_dag *dag = b->dag;
	ecp_id waiting_input = ECP_NO_ID;
	for (ecp_id t = 0; t < m->n_threads; t++) {
		const struct ecp_thread *th = &m->threads[t];
		for (uint32_t i = 0; i < th->n_segments; i++) {
			ecp_id s = th->first_segment + i;
			if (b->state[s] == SEG_DONE)
				continue;
			if (b->state[s] == SEG_LOCK_WAIT) {
				ecp_id lock = m->segments[s].lock_acquire;
				const struct lock_state *ls = &b->locks[lock];
				char holder[96];
				if (ls->holder != ECP_NO_ID)
					snprintf(holder, sizeof(holder),
						 "held by thread %" PRIu32
						 " (tid %" PRIu64 ")",
						 ls->holder, m->threads[ls->holder].tid);
				else
					snprintf(holder, sizeof(holder),
						 "held by %" PRIu32 " reader(s)",
						 ls->shared);
				return ecp_error_set(
				    b->err, ECP_ERR,
				    "deadlock in the simulated run"
				    " (%" PRIu32 " of %" PRIu32 " segments never"
				    " ran): thread %" PRIu32 " (tid %" PRIu64
				    ") segment %" PRIu32 " waits for %s #%" PRIu32
				    " (0x%" PRIx64 ") %s",
				    n_left(b), dag->n_segments, t, th->tid, s,
				    lock_kind_name(m->locks[lock].kind), lock,
				    m->locks[lock].addr, holder);
			}
			if (waiting_input == ECP_NO_ID)
				waiting_input = s;
			break;
		}
	}
	if (waiting_input == ECP_NO_ID)
		return ecp_error_set(b->err, ECP_ERR,
				     "internal error: segments left but none stuck");
	ecp_id s = waiting_input, t = dag->thread[s];
	const struct ecp_segment *seg = &m->segments[s];
	for (uint32_t k = 0, n_in = ecp_segment_n_in(m, s); k < n_in; k++) {
		const struct ecp_edge *e = &m->edges[seg->first_in + k];
		if (!edge_in_force(b, e->kind) || b->state[e->from] == SEG_DONE)
			continue;
		ecp_id u = dag->thread[e->from];
		return ecp_error_set(
		    b->err, ECP_ERR,
		    "deadlock or incomplete trace (%" PRIu32 " of %" PRIu32
		    " segments never ran): thread %" PRIu32 " (tid %" PRIu64
		    ") segment %" PRIu32 " waits for a %s from"
		    " thread %" PRIu32 " (tid %" PRIu64 ") segment %" PRIu32
		    ", which never completes",
		    n_left(b), dag->n_segments, t, m->threads[t].tid, s,
		    edge_kind_name(e->kind), u, m->threads[u].tid, e->from);
	}
	return ecp_error_set(b->err, ECP_ERR,
			     "deadlock or incomplete trace: thread %" PRIu32
			     " (tid %" PRIu64 ") segment %" PRIu32 " never becomes ready",
			     t, m->threads[t].tid, s);
}

/* The inputs in force (the model's, minus lock edges in arrival mode) and the
 * decided hand-offs, merged into one CSR by target. */
static int build_inputs(struct builder *b)
{
	const struct ecp_model *m = b->m;
	struct ecp_dag *dag = b->dag;
	uint32_t n = m->n_segments;
	const struct dyn_edge *dyn = b->dyn_edges.data;
	uint64_t total = b->dyn_edges.len;
	for (ecp_id s = 0; s < n; s++) {
		const struct ecp_segment *seg = &m->segments[s];
		for (uint32_t k = 0, n_in = ecp_segment_n_in(m, s); k < n_in; k++)
			if (edge_in_force(b, m->edges[seg->first_in + k].kind))
				total++;
	}
	if (total >= UINT32_MAX)
		return ecp_error_set(b->err, ECP_ERR,
				     "too many dependencies (%" PRIu64 ")", total);
	dag->in_offset = calloc((size_t)n + 1, sizeof(*dag->in_offset));
	dag->in_from = malloc(((size_t)total + 1) * sizeof(*dag->in_from));
	dag->in_kind = malloc((size_t)total + 1);
	if (!dag->in_offset || !dag->in_from || !dag->in_kind)
		return nomem(b);
	for (size_t i = 0; i < b->dyn_edges.len; i++)
		dag->in_offset[dyn[i].to + 1]++;
	for (ecp_id s = 0; s < n; s++) {
		const struct ecp_segment *seg = &m->segments[s];
		for (uint32_t k = 0, n_in = ecp_segment_n_in(m, s); k < n_in; k++)
			if (edge_in_force(b, m->edges[seg->first_in + k].kind))
				dag->in_offset[s + 1]++;
	}
	for (ecp_id s = 0; s < n; s++)
		dag->in_offset[s + 1] += dag->in_offset[s];
	/* Fill: the model's edges first, in their order, then the decided ones;
	 * `fill` reuses `remaining` (all zero after a complete run). */
	uint32_t *fill = b->remaining;
	for (ecp_id s = 0; s < n; s++) {
		fill[s] = dag->in_offset[s];
		const struct ecp_segment *seg = &m->segments[s];
		for (uint32_t k = 0, n_in = ecp_segment_n_in(m, s); k < n_in; k++) {
			const struct ecp_edge *e = &m->edges[seg->first_in + k];
			if (!edge_in_force(b, e->kind))
				continue;
			dag->in_from[fill[s]] = e->from;
			dag->in_kind[fill[s]++] = (uint8_t)e->kind;
		}
	}
	for (size_t i = 0; i < b->dyn_edges.len; i++) {
		ecp_id s = dyn[i].to;
		dag->in_from[fill[s]] = dyn[i].from;
		dag->in_kind[fill[s]++] = ECP_EDGE_LOCK;
	}
	dag->n_in = (uint32_t)total;
	return 0;
}

static void builder_finish(struct builder *b)
{
	free(b->remaining);
	free(b->ready);
	free(b->state);
	free(b->out_offset);
	free(b->out_to);
	ecp_heap_finish(&b->events);
	ecp_vec_finish(&b->instant);
	if (b->locks) {
		for (uint32_t i = 0; i < b->m->n_locks; i++) {
			ecp_vec_finish(&b->locks[i].shared_releases);
			ecp_heap_finish(&b->locks[i].excl_waiters);
			ecp_heap_finish(&b->locks[i].shared_waiters);
		}
		free(b->locks);
	}
	ecp_vec_finish(&b->dirty);
	ecp_vec_finish(&b->dyn_edges);
}

int ecp_dag_build(const struct ecp_model *model, const uint64_t *lengths,
		  enum ecp_lock_policy policy, struct ecp_dag *dag, struct ecp_error *err)
{
	struct builder b = {.m = model, .dag = dag, .policy = policy, .err = err};
	int rc;
	memset(dag, 0, sizeof(*dag));
	if (policy != ECP_LOCK_ORDER_ARRIVAL && policy != ECP_LOCK_ORDER_RECORDED)
		return ecp_error_set(err, ECP_ERR_USAGE, "unknown lock-order policy %d",
				     (int)policy);
	uint32_t n = model->n_segments;
	size_t cells = (size_t)n + 1;
	dag->n_segments = n;
	dag->length = malloc(cells * sizeof(*dag->length));
	dag->delay = malloc(cells * sizeof(*dag->delay));
	dag->pred = malloc(cells * sizeof(*dag->pred));
	dag->thread = malloc(cells * sizeof(*dag->thread));
	dag->topo = malloc(cells * sizeof(*dag->topo));
	dag->start = calloc(cells, sizeof(*dag->start));
	dag->end = calloc(cells, sizeof(*dag->end));
	b.remaining = calloc(cells, sizeof(*b.remaining));
	b.ready = calloc(cells, sizeof(*b.ready));
	b.state = calloc(cells, 1);
	b.locks = calloc((size_t)model->n_locks + 1, sizeof(*b.locks));
	ecp_heap_init(&b.events);
	ecp_vec_init(&b.instant, sizeof(struct ecp_heap_item));
	ecp_vec_init(&b.dirty, sizeof(ecp_id));
	ecp_vec_init(&b.dyn_edges, sizeof(struct dyn_edge));
	if (!dag->length || !dag->delay || !dag->pred || !dag->thread || !dag->topo ||
	    !dag->start || !dag->end || !b.remaining || !b.ready || !b.state ||
	    !b.locks) {
		rc = nomem(&b);
		goto error;
	}
	for (uint32_t i = 0; i < model->n_locks; i++) {
		struct lock_state *ls = &b.locks[i];
		ls->holder = ECP_NO_ID;
		ls->last_excl_release = ECP_NO_ID;
		ecp_vec_init(&ls->shared_releases, sizeof(ecp_id));
		ecp_heap_init(&ls->excl_waiters);
		ecp_heap_init(&ls->shared_waiters);
	}
	if ((rc = check_model(&b)))
		goto error;
	for (ecp_id s = 0; s < n; s++) {
		const struct ecp_segment *seg = &model->segments[s];
		dag->length[s] = lengths ? lengths[s] : seg->length;
		/* A thread's first segment has no predecessor to be delayed after. */
		dag->delay[s] = dag->pred[s] == ECP_NO_ID ? 0 : seg->delay;
		dag->work += dag->length[s];
		dag->total_delay += dag->delay[s];
	}
	if ((rc = build_successors(&b)) || (rc = simulate(&b)))
		goto error;
	if (b.n_done != n) {
		rc = report_stuck(&b);
		goto error;
	}
	if ((rc = build_inputs(&b)))
		goto error;
	for (ecp_id s = 0; s < n; s++)
		if (dag->end[s] > dag->span)
			dag->span = dag->end[s];
	builder_finish(&b);
	return 0;
error:
	builder_finish(&b);
	ecp_dag_finish(dag);
	return rc;
}

void ecp_dag_free_schedule(struct ecp_dag *dag)
{
	free(dag->start);
	free(dag->end);
	dag->start = dag->end = NULL;
}

void ecp_dag_finish(struct ecp_dag *dag)
{
	if (!dag)
		return;
	free(dag->length);
	free(dag->delay);
	free(dag->pred);
	free(dag->thread);
	free(dag->in_offset);
	free(dag->in_from);
	free(dag->in_kind);
	free(dag->topo);
	free(dag->start);
	free(dag->end);
	memset(dag, 0, sizeof(*dag));
}

uint64_t ecp_dag_span_delay(const struct ecp_dag *dag)
{
	return ecp_dag_span_delay_by_kind(dag, NULL, NULL);
}

void ecp_dag_walk_critical_path(const struct ecp_dag *dag,
				void (*step)(void *ctx, ecp_id s, ecp_id from,
					     bool by_delay),
				void *ctx)
{
	uint32_t n = dag->n_segments;
	if (!n)
		return;
	ecp_id s = 0;
	for (ecp_id i = 1; i < n; i++)
		if (dag->end[i] > dag->end[s])
			s = i;
	/* each step goes to a segment that ended no later: at most n steps */
	for (uint32_t steps = 0; steps <= n && dag->start[s] > 0; steps++) {
		ecp_id next = ECP_NO_ID;
		for (uint32_t k = dag->in_offset[s]; k < dag->in_offset[s + 1]; k++)
			if (dag->end[dag->in_from[k]] == dag->start[s]) {
				next = dag->in_from[k];
				break;
			}
		bool by_delay = false;
		ecp_id p = dag->pred[s];
		if (next == ECP_NO_ID && p != ECP_NO_ID &&
		    dag->end[p] + dag->delay[s] == dag->start[s]) {
			next = p;
			by_delay = true;
		}
		if (next == ECP_NO_ID)
			break; /* a start no input explains: nothing more to follow */
		step(ctx, s, next, by_delay);
		s = next;
	}
}

struct span_delay {
	const struct ecp_dag *dag;
	const struct ecp_model *m;
	uint64_t *by_kind;
	uint64_t sum;
};

static void add_delay(void *ctx, ecp_id s, ecp_id from, bool by_delay)
{
	struct span_delay *d = ctx;
	(void)from;
	if (!by_delay)
		return;
	d->sum += d->dag->delay[s];
	if (d->by_kind && d->m && s < d->m->n_segments &&
	    d->m->segments[s].delay_kind < ECP_DELAY_KINDS)
		d->by_kind[d->m->segments[s].delay_kind] += d->dag->delay[s];
}

uint64_t ecp_dag_span_delay_by_kind(const struct ecp_dag *dag, const struct ecp_model *m,
				    uint64_t by_kind[ECP_DELAY_KINDS])
{
	if (by_kind)
		memset(by_kind, 0, ECP_DELAY_KINDS * sizeof(*by_kind));
	struct span_delay d = {dag, m, by_kind, 0};
	ecp_dag_walk_critical_path(dag, add_delay, &d);
	return d.sum;
}
