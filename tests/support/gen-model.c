/* SPDX-License-Identifier: MIT */
/* Random models by "recording" a random program on one simulated CPU (see
 * gen-model.h).  The program is generated first (per thread, a list of
 * operations), then interleaved at random: every synchronisation closes the
 * thread's current segment and opens the next one when the operation
 * completes, exactly as the recorder's events would split the thread. */
#include "tests/support/gen-model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simulator/ctf/event.h"

#define NONE UINT32_MAX

enum op_kind {
	OP_COMPUTE,
	OP_LOCK,
	OP_UNLOCK,
	OP_SLEEP,
	OP_POST,
	OP_WAIT,
	OP_CWAIT,     /* holding the cond's mutex: wait unless the flag is set */
	OP_BROADCAST, /* holding the cond's mutex: set the flag and broadcast */
	OP_BARRIER,
	OP_CREATE,
	OP_JOIN,
	OP_EXIT,
};

struct op {
	uint8_t kind;
	uint8_t mode; /* enum ecp_lock_mode for OP_LOCK */
	uint32_t obj;
	uint64_t val;
};

struct ops {
	struct op *v;
	size_t n, cap;
};

enum th_state { ST_NEW, ST_RUN, ST_BLOCK, ST_SLEEP, ST_DONE };

struct gthread {
	struct ops prog;
	size_t pc;
	uint8_t state;
	uint64_t wake_at, sleep_len;
	uint32_t cur;  /* open segment (uid) or NONE */
	uint32_t last; /* last closed segment */
	uint32_t joiner;
	uint32_t pending_from; /* condition edge to add when its segment opens */
	uint64_t cpu;
	uint8_t wait_mode;
};

struct tseg {
	uint32_t thread;
	uint32_t lock_acquire, lock_release;
	uint8_t mode;
	uint64_t length, delay, cpu_start, rec_start, rec_end;
};

struct tedge {
	uint32_t from, to, kind;
};

struct u32s {
	uint32_t *v;
	size_t n, cap, head; /* FIFO when head is used */
};

struct glock {
	uint32_t kind;
	bool recursive;
	uint32_t holder, depth, shared;
	uint32_t last_excl_release;
	struct u32s shared_releases;
	struct u32s waiters; /* FIFO of threads */
};

struct gsem {
	struct u32s tokens;  /* FIFO of posting segments */
	struct u32s waiters; /* FIFO of threads */
};

struct gcond {
	uint32_t mutex;
	bool flag;
	struct u32s waiters;
};

struct gen {
	uint64_t rng;
	const struct gen_model_opts *o;
	struct gthread *th;
	uint32_t n_threads;
	struct glock *locks;
	uint32_t n_locks, cap_locks;
	struct gsem *sems;
	uint32_t n_sems, cap_sems;
	struct gcond *conds;
	uint32_t n_conds, cap_conds;
	struct u32s barrier_waiters;
	uint32_t barrier_count;
	struct tseg *segs;
	size_t n_segs, cap_segs;
	struct tedge *edges;
	size_t n_edges, cap_edges;
	uint64_t now;
	bool oom;
};

static uint64_t rnd(struct gen *g)
{
	/* splitmix64: good enough and reproducible everywhere. */
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t below(struct gen *g, uint32_t n)
{
	return n ? (uint32_t)(rnd(g) % n) : 0;
}

static void *grow(struct gen *g, void *v, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return v;
	size_t c = *cap ? *cap * 2 : 8;
	while (c < need)
		c *= 2;
	void *p = realloc(v, c * elem);
	if (!p) {
		g->oom = true;
		return NULL;
	}
	*cap = c;
	return p;
}

static void u32_push(struct gen *g, struct u32s *q, uint32_t x)
{
	uint32_t *v = grow(g, q->v, &q->cap, q->n + 1, sizeof(*v));
	if (!v)
		return;
	q->v = v;
	q->v[q->n++] = x;
}

static bool u32_empty(const struct u32s *q)
{
	return q->head == q->n;
}

static uint32_t u32_pop(struct u32s *q)
{
	return q->v[q->head++];
}

static void op_insert(struct gen *g, struct ops *p, size_t at, struct op o)
{
	struct op *v = grow(g, p->v, &p->cap, p->n + 1, sizeof(*v));
	if (!v)
		return;
	p->v = v;
	memmove(&p->v[at + 1], &p->v[at], (p->n - at) * sizeof(*v));
	p->v[at] = o;
	p->n++;
}

static void op_add(struct gen *g, struct ops *p, uint8_t kind, uint32_t obj, uint64_t val)
{
	op_insert(g, p, p->n, (struct op){kind, ECP_LOCK_EXCLUSIVE, obj, val});
}

static uint64_t rnd_len(struct gen *g)
{
	return below(g, g->o->max_len + 1) * g->o->unit_ns;
}

static uint32_t new_lock(struct gen *g, uint32_t kind, bool recursive)
{
	size_t cap = g->cap_locks;
	struct glock *l = grow(g, g->locks, &cap, g->n_locks + 1, sizeof(*l));
	if (!l)
		return 0;
	g->locks = l;
	g->cap_locks = (uint32_t)cap;
	memset(&l[g->n_locks], 0, sizeof(*l));
	l[g->n_locks].kind = kind;
	l[g->n_locks].recursive = recursive;
	l[g->n_locks].holder = NONE;
	l[g->n_locks].last_excl_release = NONE;
	return g->n_locks++;
}

/* ------------------------------------------------------ program generation */

/* Positions between the thread's blocks where a new block may go: never
 * inside a critical section, never after its exit. */
static size_t block_boundary(struct gen *g, const struct ops *p, size_t lo)
{
	size_t cands = 0;
	int depth = 0;
	for (size_t i = lo; i <= p->n; i++) {
		if (depth == 0 && (i == p->n || p->v[i].kind != OP_EXIT))
			cands++;
		if (i < p->n && p->v[i].kind == OP_LOCK)
			depth++;
		if (i < p->n && p->v[i].kind == OP_UNLOCK)
			depth--;
	}
	size_t pick = below(g, (uint32_t)cands);
	depth = 0;
	for (size_t i = lo; i <= p->n; i++) {
		if (depth == 0 && (i == p->n || p->v[i].kind != OP_EXIT)) {
			if (pick-- == 0)
				return i;
		}
		if (i < p->n && p->v[i].kind == OP_LOCK)
			depth++;
		if (i < p->n && p->v[i].kind == OP_UNLOCK)
			depth--;
	}
	return p->n;
}

static void gen_random_block(struct gen *g, struct ops *p, uint32_t rwlock)
{
	const struct gen_model_opts *o = g->o;
	uint32_t choice = below(g, 4);
	if (choice == 1 && o->n_mutexes > 0) {
		uint32_t l = below(g, o->n_mutexes);
		op_add(g, p, OP_LOCK, l, 0);
		op_add(g, p, OP_COMPUTE, 0, rnd_len(g));
		if (g->locks[l].recursive && below(g, 2)) {
			op_add(g, p, OP_LOCK, l, 0);
			op_add(g, p, OP_COMPUTE, 0, rnd_len(g));
			op_add(g, p, OP_UNLOCK, l, 0);
		}
		op_add(g, p, OP_UNLOCK, l, 0);
	} else if (choice == 2 && rwlock != NONE) {
		struct op lk = {OP_LOCK,
				below(g, 3) ? ECP_LOCK_SHARED : ECP_LOCK_EXCLUSIVE,
				rwlock, 0};
		op_insert(g, p, p->n, lk);
		op_add(g, p, OP_COMPUTE, 0, rnd_len(g));
		op_add(g, p, OP_UNLOCK, rwlock, 0);
	} else if (choice == 3 && o->delays) {
		op_add(g, p, OP_SLEEP, 0, (1 + below(g, o->max_len + 1)) * o->unit_ns);
	} else {
		op_add(g, p, OP_COMPUTE, 0, rnd_len(g));
	}
}

/* A semaphore or condition hand-off from child a to child b > a, inside
 * the phase whose blocks span [lo_a, n) and [lo_b, n). */
static void gen_handoff(struct gen *g, uint32_t a, uint32_t b, size_t lo_a, size_t lo_b)
{
	struct ops *pa = &g->th[a].prog, *pb = &g->th[b].prog;
	bool sem = g->o->semaphores && (!g->o->conds || below(g, 2));
	if (sem) {
		size_t cap = g->cap_sems;
		struct gsem *s = grow(g, g->sems, &cap, g->n_sems + 1, sizeof(*s));
		if (!s)
			return;
		g->sems = s;
		g->cap_sems = (uint32_t)cap;
		memset(&s[g->n_sems], 0, sizeof(*s));
		uint32_t id = g->n_sems++;
		uint32_t k = 1 + below(g, 2);
		for (uint32_t i = 0; i < k; i++) {
			op_insert(g, pa, block_boundary(g, pa, lo_a),
				  (struct op){OP_POST, 0, id, 0});
			op_insert(g, pb, block_boundary(g, pb, lo_b),
				  (struct op){OP_WAIT, 0, id, 0});
		}
		return;
	}
	size_t cap = g->cap_conds;
	struct gcond *c = grow(g, g->conds, &cap, g->n_conds + 1, sizeof(*c));
	if (!c)
		return;
	g->conds = c;
	g->cap_conds = (uint32_t)cap;
	memset(&c[g->n_conds], 0, sizeof(*c));
	uint32_t id = g->n_conds++;
	uint32_t m = new_lock(g, ECP_LOCK_MUTEX, false);
	g->conds[id].mutex = m;
	size_t at = block_boundary(g, pa, lo_a);
	op_insert(g, pa, at++, (struct op){OP_LOCK, ECP_LOCK_EXCLUSIVE, m, 0});
	op_insert(g, pa, at++, (struct op){OP_COMPUTE, 0, 0, rnd_len(g)});
	op_insert(g, pa, at++, (struct op){OP_BROADCAST, 0, id, 0});
	op_insert(g, pa, at, (struct op){OP_UNLOCK, 0, m, 0});
	at = block_boundary(g, pb, lo_b);
	op_insert(g, pb, at++, (struct op){OP_LOCK, ECP_LOCK_EXCLUSIVE, m, 0});
	op_insert(g, pb, at++, (struct op){OP_CWAIT, 0, id, 0});
	op_insert(g, pb, at, (struct op){OP_UNLOCK, 0, m, 0});
}

static void gen_program(struct gen *g)
{
	const struct gen_model_opts *o = g->o;
	uint32_t kids = 1 + below(g, o->max_threads);
	uint32_t phases = 1 + below(g, o->max_phases);
	g->n_threads = kids + 1;
	g->th = calloc(g->n_threads, sizeof(*g->th));
	if (!g->th) {
		g->oom = true;
		return;
	}
	for (uint32_t i = 0; i < o->n_mutexes; i++)
		new_lock(g, ECP_LOCK_MUTEX, i == 0);
	uint32_t rwlock = o->rwlocks ? new_lock(g, ECP_LOCK_RWLOCK, false) : NONE;
	size_t *phase_lo = calloc(g->n_threads, sizeof(*phase_lo));
	if (!phase_lo) {
		g->oom = true;
		return;
	}
	for (uint32_t ph = 0; ph < phases && !g->oom; ph++) {
		for (uint32_t k = 1; k <= kids; k++) {
			struct ops *p = &g->th[k].prog;
			phase_lo[k] = p->n;
			uint32_t nb = 1 + below(g, o->max_blocks);
			for (uint32_t b = 0; b < nb; b++)
				gen_random_block(g, p, rwlock);
		}
		uint32_t pairs =
		    kids >= 2 && (o->semaphores || o->conds) ? below(g, 3) : 0;
		for (uint32_t i = 0; i < pairs; i++) {
			uint32_t a = 1 + below(g, kids), b = 1 + below(g, kids);
			if (a == b)
				continue;
			if (a > b) {
				uint32_t t = a;
				a = b;
				b = t;
			}
			gen_handoff(g, a, b, phase_lo[a], phase_lo[b]);
		}
		if (o->barriers && ph + 1 < phases)
			for (uint32_t k = 1; k <= kids; k++)
				op_add(g, &g->th[k].prog, OP_BARRIER, 0, 0);
	}
	free(phase_lo);
	for (uint32_t k = 1; k <= kids; k++)
		op_add(g, &g->th[k].prog, OP_EXIT, 0, 0);
	g->barrier_count = kids;
	struct ops *mp = &g->th[0].prog;
	op_add(g, mp, OP_COMPUTE, 0, rnd_len(g));
	for (uint32_t k = 1; k <= kids; k++) {
		op_add(g, mp, OP_CREATE, k, 0);
		if (below(g, 2))
			op_add(g, mp, OP_COMPUTE, 0, rnd_len(g));
	}
	if (below(g, 2))
		gen_random_block(g, mp, rwlock);
	for (uint32_t k = 1; k <= kids; k++)
		op_add(g, mp, OP_JOIN, k, 0);
	op_add(g, mp, OP_COMPUTE, 0, rnd_len(g));
	op_add(g, mp, OP_EXIT, 0, 0);
}

/* ------------------------------------------------------------- recording */

static void edge(struct gen *g, uint32_t from, uint32_t to, uint32_t kind)
{
	if (from == NONE || g->segs[from].thread == g->segs[to].thread)
		return;
	struct tedge *e = grow(g, g->edges, &g->cap_edges, g->n_edges + 1, sizeof(*e));
	if (!e)
		return;
	g->edges = e;
	g->edges[g->n_edges++] = (struct tedge){from, to, kind};
}

static uint32_t open_seg(struct gen *g, uint32_t t, uint32_t lock, uint8_t mode,
			 uint64_t delay)
{
	struct tseg *s = grow(g, g->segs, &g->cap_segs, g->n_segs + 1, sizeof(*s));
	if (!s)
		return 0;
	g->segs = s;
	uint32_t id = (uint32_t)g->n_segs++;
	g->segs[id] = (struct tseg){.thread = t,
				    .lock_acquire = lock,
				    .lock_release = NONE,
				    .mode = mode,
				    .delay = delay,
				    .cpu_start = g->th[t].cpu,
				    .rec_start = g->now};
	g->th[t].cur = id;
	if (g->th[t].pending_from != NONE) {
		edge(g, g->th[t].pending_from, id, ECP_EDGE_COND);
		g->th[t].pending_from = NONE;
	}
	return id;
}

static uint32_t close_seg(struct gen *g, uint32_t t, uint32_t release)
{
	uint32_t id = g->th[t].cur;
	g->segs[id].rec_end = g->now;
	g->segs[id].lock_release = release;
	g->th[t].last = id;
	g->th[t].cur = NONE;
	return id;
}

/* The blocked operation of thread t completed: it runs again. */
static void resume(struct gen *g, uint32_t t)
{
	g->th[t].state = ST_RUN;
	g->th[t].pc++;
}

static bool compatible(const struct glock *l, uint32_t t, uint8_t mode)
{
	if (l->holder != NONE)
		return false;
	return mode == ECP_LOCK_SHARED || l->shared == 0;
}

static void grant(struct gen *g, uint32_t lock, uint32_t t, uint8_t mode)
{
	struct glock *l = &g->locks[lock];
	uint32_t s = open_seg(g, t, lock, mode, 0);
	if (g->oom)
		return;
	edge(g, l->last_excl_release, s, ECP_EDGE_LOCK);
	if (mode == ECP_LOCK_SHARED) {
		l->shared++;
	} else {
		for (size_t i = 0; i < l->shared_releases.n; i++)
			edge(g, l->shared_releases.v[i], s, ECP_EDGE_LOCK);
		l->shared_releases.n = 0;
		l->holder = t;
		l->depth = 1;
	}
}

static void release(struct gen *g, uint32_t lock, uint32_t t, uint32_t seg)
{
	struct glock *l = &g->locks[lock];
	if (l->holder == t) {
		if (--l->depth > 0)
			return;
		l->holder = NONE;
		l->last_excl_release = seg;
	} else {
		l->shared--;
		u32_push(g, &l->shared_releases, seg);
	}
	/* Hand the lock to the queue's head, and to the readers after it. */
	while (!u32_empty(&l->waiters)) {
		uint32_t w = l->waiters.v[l->waiters.head];
		if (!compatible(l, w, g->th[w].wait_mode))
			break;
		u32_pop(&l->waiters);
		grant(g, lock, w, g->th[w].wait_mode);
		resume(g, w);
	}
}

static void step(struct gen *g, uint32_t t)
{
	struct gthread *th = &g->th[t];
	const struct op *op = &th->prog.v[th->pc];
	uint32_t s;
	switch ((enum op_kind)op->kind) {
	case OP_COMPUTE:
		g->segs[th->cur].length += op->val;
		th->cpu += op->val;
		g->now += op->val;
		th->pc++;
		break;
	case OP_LOCK: {
		struct glock *l = &g->locks[op->obj];
		uint8_t mode = l->kind == ECP_LOCK_RWLOCK ? op->mode : ECP_LOCK_EXCLUSIVE;
		close_seg(g, t, NONE);
		if (l->holder == t) {
			l->depth++;
			open_seg(g, t, op->obj, mode, 0);
			th->pc++;
		} else if (compatible(l, t, mode)) {
			grant(g, op->obj, t, mode);
			th->pc++;
		} else {
			th->wait_mode = mode;
			u32_push(g, &l->waiters, t);
			th->state = ST_BLOCK;
		}
		break;
	}
	case OP_UNLOCK:
		s = close_seg(g, t, op->obj);
		open_seg(g, t, NONE, 0, 0);
		th->pc++;
		release(g, op->obj, t, s);
		break;
	case OP_SLEEP:
		close_seg(g, t, NONE);
		th->state = ST_SLEEP;
		th->wake_at = g->now + op->val;
		th->sleep_len = op->val;
		break;
	case OP_POST: {
		struct gsem *sem = &g->sems[op->obj];
		s = close_seg(g, t, NONE);
		if (!u32_empty(&sem->waiters)) {
			uint32_t w = u32_pop(&sem->waiters);
			uint32_t ws = open_seg(g, w, NONE, 0, 0);
			edge(g, s, ws, ECP_EDGE_SEM);
			resume(g, w);
		} else {
			u32_push(g, &sem->tokens, s);
		}
		open_seg(g, t, NONE, 0, 0);
		th->pc++;
		break;
	}
	case OP_WAIT: {
		struct gsem *sem = &g->sems[op->obj];
		close_seg(g, t, NONE);
		if (!u32_empty(&sem->tokens)) {
			uint32_t tok = u32_pop(&sem->tokens);
			uint32_t ws = open_seg(g, t, NONE, 0, 0);
			edge(g, tok, ws, ECP_EDGE_SEM);
			th->pc++;
		} else {
			u32_push(g, &sem->waiters, t);
			th->state = ST_BLOCK;
		}
		break;
	}
	case OP_CWAIT: {
		struct gcond *c = &g->conds[op->obj];
		if (c->flag) {
			th->pc++;
			break;
		}
		/* pthread_cond_wait: releases the mutex, sleeps, re-acquires. */
		s = close_seg(g, t, c->mutex);
		th->state = ST_BLOCK;
		th->wait_mode = ECP_LOCK_EXCLUSIVE;
		u32_push(g, &c->waiters, t);
		release(g, c->mutex, t, s);
		break;
	}
	case OP_BROADCAST: {
		struct gcond *c = &g->conds[op->obj];
		c->flag = true;
		s = close_seg(g, t, NONE);
		while (!u32_empty(&c->waiters)) {
			uint32_t w = u32_pop(&c->waiters);
			g->th[w].pending_from = s;
			/* Woken, it queues for the mutex this thread holds. */
			u32_push(g, &g->locks[c->mutex].waiters, w);
		}
		open_seg(g, t, NONE, 0, 0);
		th->pc++;
		break;
	}
	case OP_BARRIER:
		s = close_seg(g, t, NONE);
		if (g->barrier_waiters.n + 1 < g->barrier_count) {
			u32_push(g, &g->barrier_waiters, t);
			th->state = ST_BLOCK;
			break;
		}
		for (size_t i = 0; i < g->barrier_waiters.n; i++) {
			uint32_t w = g->barrier_waiters.v[i];
			uint32_t ws = open_seg(g, w, NONE, 0, 0);
			edge(g, s, ws, ECP_EDGE_BARRIER);
			resume(g, w);
		}
		g->barrier_waiters.n = 0;
		open_seg(g, t, NONE, 0, 0);
		th->pc++;
		break;
	case OP_CREATE: {
		s = close_seg(g, t, NONE);
		uint32_t c = op->obj;
		uint32_t cs = open_seg(g, c, NONE, 0, 0);
		edge(g, s, cs, ECP_EDGE_CREATE);
		g->th[c].state = ST_RUN;
		open_seg(g, t, NONE, 0, 0);
		th->pc++;
		break;
	}
	case OP_JOIN: {
		close_seg(g, t, NONE);
		struct gthread *c = &g->th[op->obj];
		if (c->state == ST_DONE) {
			uint32_t js = open_seg(g, t, NONE, 0, 0);
			edge(g, c->last, js, ECP_EDGE_JOIN);
			th->pc++;
		} else {
			c->joiner = t;
			th->state = ST_BLOCK;
		}
		break;
	}
	case OP_EXIT:
		s = close_seg(g, t, NONE);
		th->state = ST_DONE;
		if (th->joiner != NONE) {
			uint32_t js = open_seg(g, th->joiner, NONE, 0, 0);
			edge(g, s, js, ECP_EDGE_JOIN);
			resume(g, th->joiner);
		}
		break;
	}
}

static int record(struct gen *g, struct ecp_error *err)
{
	uint32_t *runnable = malloc(g->n_threads * sizeof(*runnable));
	if (!runnable)
		return ecp_error_set(err, ECP_ERR_NOMEM, "gen-model: out of memory");
	for (uint32_t t = 0; t < g->n_threads; t++) {
		g->th[t].cur = g->th[t].last = g->th[t].joiner = g->th[t].pending_from =
		    NONE;
		g->th[t].state = ST_NEW;
	}
	g->th[0].state = ST_RUN;
	open_seg(g, 0, NONE, 0, 0);
	uint32_t last = 0;
	for (;;) {
		uint32_t n_run = 0, n_done = 0;
		uint64_t next_wake = UINT64_MAX;
		for (uint32_t t = 0; t < g->n_threads; t++) {
			struct gthread *th = &g->th[t];
			if (th->state == ST_SLEEP && th->wake_at <= g->now) {
				open_seg(g, t, NONE, 0, th->sleep_len);
				resume(g, t);
			}
			if (th->state == ST_SLEEP && th->wake_at < next_wake)
				next_wake = th->wake_at;
			if (th->state == ST_RUN)
				runnable[n_run++] = t;
			n_done += th->state == ST_DONE;
		}
		if (g->oom || n_done == g->n_threads)
			break;
		if (n_run == 0) {
			if (next_wake == UINT64_MAX) {
				free(runnable);
				return ecp_error_set(err, ECP_ERR,
						     "gen-model: the generated program"
						     " deadlocked (generator bug)");
			}
			g->now = next_wake;
			continue;
		}
		/* Keep running the same thread half of the time: recorded runs
		 * have runs of events, not a fresh choice at every step. */
		uint32_t t = runnable[below(g, n_run)];
		if (g->th[last].state == ST_RUN && below(g, 2))
			t = last;
		step(g, t);
		last = t;
	}
	free(runnable);
	if (g->oom)
		return ecp_error_set(err, ECP_ERR_NOMEM, "gen-model: out of memory");
	return 0;
}

/* --------------------------------------------------------------- assembly */

static int cmp_edge_to(const void *a, const void *b)
{
	const struct ecp_edge *x = a, *y = b;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

static const char *const fake_names[3] = {"f0", "f1", "f2"};

static int assemble(struct gen *g, struct ecp_model *m, struct ecp_error *err)
{
	uint32_t n = (uint32_t)g->n_segs;
	uint32_t *map = malloc((size_t)n * sizeof(*map) + 1);
	m->threads = calloc(g->n_threads, sizeof(*m->threads));
	m->segments = calloc((size_t)n + 1, sizeof(*m->segments));
	m->edges = calloc(g->n_edges + 1, sizeof(*m->edges));
	m->locks = calloc((size_t)g->n_locks + 1, sizeof(*m->locks));
	m->functions = calloc(3, sizeof(*m->functions));
	m->activities = calloc(3 * (size_t)n + 1, sizeof(*m->activities));
	if (!map || !m->threads || !m->segments || !m->edges || !m->locks ||
	    !m->functions || !m->activities) {
		free(map);
		return ecp_error_set(err, ECP_ERR_NOMEM, "gen-model: out of memory");
	}
	m->n_threads = g->n_threads;
	m->n_segments = n;
	uint32_t next = 0;
	for (uint32_t t = 0; t < g->n_threads; t++) {
		struct ecp_thread *th = &m->threads[t];
		th->tid = 1000 + t;
		snprintf(th->name, sizeof(th->name), "t%u", (unsigned)t);
		th->first_segment = next;
		th->start_function = 0;
		th->parent = t == 0 ? ECP_NO_ID : 0;
		for (uint32_t i = 0; i < n; i++)
			if (g->segs[i].thread == t)
				map[i] = next++;
		th->n_segments = next - th->first_segment;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct tseg *ts = &g->segs[i];
		struct ecp_segment *s = &m->segments[map[i]];
		s->thread = ts->thread;
		s->lock_acquire = ts->lock_acquire;
		s->lock_release = ts->lock_release;
		s->acquire_mode = ts->mode;
		s->length = ts->length;
		s->delay = ts->delay;
		s->cpu_start = ts->cpu_start;
		s->rec_start = ts->rec_start;
		s->rec_end = ts->rec_end;
	}
	for (size_t i = 0; i < g->n_edges; i++)
		m->edges[i] = (struct ecp_edge){map[g->edges[i].from],
						map[g->edges[i].to], g->edges[i].kind};
	m->n_edges = (uint32_t)g->n_edges;
	qsort(m->edges, m->n_edges, sizeof(*m->edges), cmp_edge_to);
	/* first_in is the running position even without edges (validate
	 * checks the CSR that way). */
	ecp_model_index_edges(m);
	free(map);
	m->n_locks = g->n_locks;
	for (uint32_t i = 0; i < g->n_locks; i++) {
		m->locks[i].addr = 0x1000 + 0x40 * (uint64_t)i;
		m->locks[i].kind = g->locks[i].kind;
	}
	m->n_functions = 3;
	for (uint32_t i = 0; i < 3; i++) {
		m->functions[i].name = fake_names[i];
		m->functions[i].object = "";
		m->functions[i].addr = 0x400000 + 0x100 * (uint64_t)i;
	}
	/* Activities: split each segment's time among 1..3 fake functions,
	 * f0 (the start routine) on the bottom of the stack. */
	uint64_t na = 0;
	for (uint32_t i = 0; i < n && g->o->activities; i++) {
		struct ecp_segment *s = &m->segments[i];
		uint32_t k = 1 + below(g, 3);
		uint64_t left = s->length;
		s->first_activity = na;
		for (uint32_t f = 0; f < k; f++) {
			struct ecp_activity *a = &m->activities[na++];
			uint64_t self = f + 1 == k ? left : below(g, (uint32_t)left + 1);
			left -= self;
			a->function = f;
			a->calls = below(g, 3);
			a->self_ns = self;
			a->incl_ns = 0;
		}
		/* Inclusive time of a frame = its self time plus the frames above. */
		uint64_t above = 0;
		for (uint32_t f = k; f-- > 0;) {
			struct ecp_activity *a = &m->activities[s->first_activity + f];
			above += a->self_ns;
			a->incl_ns = above;
		}
		s->n_activity = k;
		/* the start routine's alone, all of it, no call: implicit
		 * (model.h), as the builder leaves it */
		const struct ecp_activity *a0 = &m->activities[s->first_activity];
		if (k == 1 && a0->calls == 0 &&
		    a0->function == m->threads[s->thread].start_function) {
			s->n_activity = 0;
			na--;
		}
	}
	m->n_activities = na;
	return 0;
}

static void gen_finish(struct gen *g)
{
	for (uint32_t t = 0; g->th && t < g->n_threads; t++)
		free(g->th[t].prog.v);
	free(g->th);
	for (uint32_t i = 0; i < g->n_locks; i++) {
		free(g->locks[i].shared_releases.v);
		free(g->locks[i].waiters.v);
	}
	free(g->locks);
	for (uint32_t i = 0; i < g->n_sems; i++) {
		free(g->sems[i].tokens.v);
		free(g->sems[i].waiters.v);
	}
	free(g->sems);
	for (uint32_t i = 0; i < g->n_conds; i++)
		free(g->conds[i].waiters.v);
	free(g->conds);
	free(g->barrier_waiters.v);
	free(g->segs);
	free(g->edges);
}

void gen_model_opts_default(struct gen_model_opts *opts)
{
	*opts = (struct gen_model_opts){
	    .max_threads = 4,
	    .max_phases = 2,
	    .max_blocks = 4,
	    .n_mutexes = 2,
	    .max_len = 3,
	    .unit_ns = 1,
	    .rwlocks = true,
	    .semaphores = true,
	    .conds = true,
	    .barriers = true,
	    .delays = true,
	    .activities = true,
	};
}

int gen_model_create(uint64_t seed, const struct gen_model_opts *opts,
		     struct ecp_model **out, struct ecp_error *err)
{
	*out = NULL;
	if (opts->max_threads == 0 || opts->max_phases == 0 || opts->max_blocks == 0 ||
	    opts->unit_ns == 0)
		return ecp_error_set(err, ECP_ERR_USAGE,
				     "gen-model: max_threads, max_phases,"
				     " max_blocks and unit_ns must be positive");
	struct gen g = {.rng = seed * 0x2545f4914f6cdd1dull + 1, .o = opts};
	struct ecp_model *m = calloc(1, sizeof(*m));
	int rc;
	if (!m)
		return ecp_error_set(err, ECP_ERR_NOMEM, "gen-model: out of memory");
	gen_program(&g);
	if (g.oom) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "gen-model: out of memory");
		goto error;
	}
	if ((rc = record(&g, err)) || (rc = assemble(&g, m, err)))
		goto error;
	m->info.recorded_wall_ns = g.now;
	m->info.functions_recorded = opts->activities;
	gen_finish(&g);
	*out = m;
	return 0;
error:
	gen_finish(&g);
	gen_model_destroy(m);
	return rc;
}

void gen_model_destroy(struct ecp_model *m)
{
	if (!m)
		return;
	free(m->threads);
	free(m->segments);
	free(m->edges);
	free(m->locks);
	free(m->functions);
	free(m->activities);
	free(m);
}
