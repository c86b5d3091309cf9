/* SPDX-License-Identifier: MIT */
/* OpenMP task programs for tests (task-program.h): generator, one-CPU
 * recording, oracle.  Written from the task model's rules, not from the
 * builder's code. */
#include "tests/support/task-program.h"

#include <stdlib.h>
#include <string.h>

#define OBJ_FORK    0xecb0000000000004ull
#define OBJ_JOIN    0xecb0000000000005ull
#define OBJ_BARRIER 0xecb0000000000006ull
#define START_MAIN  0x10
#define START_POOL  0x20
#define NONE        UINT32_MAX

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		abort();
	return q;
}

/* ------------------------------------------------------------ generator */

static uint32_t gen_body(struct tp_program *p, uint64_t *rs, int depth, uint32_t *left,
			 uint64_t max_len)
{
	uint32_t me = p->n_bodies++;
	p->bodies = xrealloc(p->bodies, p->n_bodies * sizeof(*p->bodies));
	p->bodies[me].ops = NULL;
	p->bodies[me].n = 0;
	uint32_t n_ops = 1 + (uint32_t)(next_rand(rs) % 6);
	bool group = false;
	for (uint32_t i = 0; i <= n_ops; i++) {
		struct tp_op op;
		memset(&op, 0, sizeof(op));
		unsigned r = (unsigned)(next_rand(rs) % 100);
		if (i == n_ops) {
			if (!group)
				break;
			op.kind = TP_TG_END; /* close the group left open */
			group = false;
		} else if (r < 45 && depth < 3 && *left) {
			(*left)--;
			op.kind = TP_TASK;
			op.undeferred = next_rand(rs) % 7 == 0;
			op.n_deps = op.undeferred ? 0 : (uint32_t)(next_rand(rs) % 3);
			for (uint32_t k = 0; k < op.n_deps; k++) {
				op.dep_addr[k] = 0xa0 + 8 * (next_rand(rs) % 3);
				op.dep_kind[k] = (uint8_t)(1 + next_rand(rs) % 3);
			}
			op.body = gen_body(p, rs, depth + 1, left, max_len);
		} else if (r < 55) {
			op.kind = TP_TASKWAIT;
		} else if (r < 62) {
			op.kind = group ? TP_TG_END : TP_TG_START;
			group = !group;
		} else {
			op.kind = TP_WORK;
			op.len = next_rand(rs) % (max_len + 1);
		}
		struct tp_body *b = &p->bodies[me];
		b->ops = xrealloc(b->ops, (b->n + 1) * sizeof(*b->ops));
		b->ops[b->n++] = op;
	}
	return me;
}

void tp_random(struct tp_program *p, uint64_t seed, uint32_t max_tasks, uint64_t max_len)
{
	uint64_t rs = seed * 0x9e3779b97f4a7c15ull + 1;
	uint32_t left = max_tasks;
	memset(p, 0, sizeof(*p));
	p->n_threads = 2 + (uint32_t)(next_rand(&rs) % 3);
	p->libomp = seed & 1;
	gen_body(p, &rs, 0, &left, max_len);
}

void tp_free(struct tp_program *p)
{
	for (uint32_t i = 0; i < p->n_bodies; i++)
		free(p->bodies[i].ops);
	free(p->bodies);
	memset(p, 0, sizeof(*p));
}

uint64_t tp_work(const struct tp_program *p)
{
	/* every body runs once per task made from it: count from body 0 */
	uint64_t *times = calloc(p->n_bodies, sizeof(uint64_t)), w = 0;
	if (!times)
		abort();
	times[0] = 1;
	for (uint32_t b = 0; b < p->n_bodies; b++) /* children have larger indices */
		for (uint32_t i = 0; i < p->bodies[b].n; i++) {
			const struct tp_op *op = &p->bodies[b].ops[i];
			if (op->kind == TP_TASK)
				times[op->body] += times[b];
			else if (op->kind == TP_WORK)
				w += times[b] * op->len;
		}
	free(times);
	return w;
}

/* ------------------------------------------------------------ runtime shared by both */

/* A task made at run time (by the recording's emulation or the oracle). */
struct rt_task {
	uint32_t body, parent_ctx, group;
	const struct tp_op *op; /* the op that made it */
	uint32_t pending;       /* depend predecessors not done */
	uint8_t state;          /* 0 waiting, 1 ready, 2 running, 3 done */
	uint64_t seq, id;
	uint64_t rseq; /* when it became ready, in the run's order */
	uint32_t *succ, n_succ;
};

struct rt_group {
	uint32_t live, parent;
};

struct frame {
	uint32_t body, pc, ctx, task, group; /* body NONE: empty */
	bool waiting;                        /* the recording wrote its wait's begin */
};

struct rt_thread {
	struct frame *stack;
	uint32_t depth;
	int state; /* RUN, WAIT, BARRIER, FRESH (not started), GONE */
	uint64_t t;
};

enum { RUN, WAIT, BARRIER, FRESH };

struct rt {
	const struct tp_program *p;
	struct rt_task *tasks;
	uint32_t n_tasks;
	struct rt_group *groups;
	uint32_t n_groups;
	uint32_t *live; /* by context: children not done (ctx < n_threads: implicit) */
	uint32_t *ctx_task; /* by context: its task, NONE for an implicit task */
	uint32_t n_ctx;
	struct rt_thread *th;
	uint64_t next_seq, next_rseq, done;
	bool gomp; /* the oracle follows libgomp's rules (else libomp's, which
		    * the recording's emulation uses: any task OpenMP allows) */
};

static uint32_t new_ctx(struct rt *r, uint32_t task)
{
	r->live = xrealloc(r->live, (r->n_ctx + 1) * sizeof(uint32_t));
	r->ctx_task = xrealloc(r->ctx_task, (r->n_ctx + 1) * sizeof(uint32_t));
	r->live[r->n_ctx] = 0;
	r->ctx_task[r->n_ctx] = task;
	return r->n_ctx++;
}

static bool writes(uint8_t kind)
{
	return kind != 1;
}

/* The sibling tasks (same parent context, made before) task ti's depend
 * items wait for: in -> the last writer of the address; out/inout -> the
 * last writer and the readers since. */
static void add_preds(struct rt *r, uint32_t ti)
{
	struct rt_task *t = &r->tasks[ti];
	for (uint32_t k = 0; k < t->op->n_deps; k++) {
		for (uint32_t s = ti; s-- > 0;) {
			struct rt_task *o = &r->tasks[s];
			if (o->parent_ctx != t->parent_ctx)
				continue;
			bool o_reads = false, o_writes = false;
			for (uint32_t q = 0; q < o->op->n_deps; q++)
				if (o->op->dep_addr[q] == t->op->dep_addr[k]) {
					o_writes |= writes(o->op->dep_kind[q]);
					o_reads |= !writes(o->op->dep_kind[q]);
				}
			if (!o_writes && !(o_reads && writes(t->op->dep_kind[k])))
				continue;
			o->succ = xrealloc(o->succ, (o->n_succ + 1) * sizeof(uint32_t));
			o->succ[o->n_succ++] = ti;
			if (o->state != 3)
				t->pending++;
			if (o_writes)
				break;
		}
	}
}

static void push_frame(struct rt *r, uint32_t j, uint32_t body, uint32_t ctx,
		       uint32_t task, uint32_t group)
{
	struct rt_thread *th = &r->th[j];
	th->stack = xrealloc(th->stack, (th->depth + 1) * sizeof(struct frame));
	th->stack[th->depth++] = (struct frame){body, 0, ctx, task, group, false};
}

static void rt_init(struct rt *r, const struct tp_program *p)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->th = calloc(p->n_threads, sizeof(*r->th));
	if (!r->th)
		abort();
	for (uint32_t j = 0; j < p->n_threads; j++)
		new_ctx(r, NONE); /* implicit tasks: contexts 0..n-1 */
}

static void rt_free(struct rt *r)
{
	for (uint32_t i = 0; i < r->n_tasks; i++)
		free(r->tasks[i].succ);
	for (uint32_t j = 0; j < r->p->n_threads; j++)
		free(r->th[j].stack);
	free(r->tasks);
	free(r->groups);
	free(r->live);
	free(r->ctx_task);
	free(r->th);
}

/* A task made by thread j's top frame's op. */
static uint32_t rt_create(struct rt *r, uint32_t j, const struct tp_op *op)
{
	struct frame *f = &r->th[j].stack[r->th[j].depth - 1];
	r->tasks = xrealloc(r->tasks, (r->n_tasks + 1) * sizeof(*r->tasks));
	uint32_t ti = r->n_tasks++;
	struct rt_task *t = &r->tasks[ti];
	memset(t, 0, sizeof(*t));
	t->body = op->body;
	t->op = op;
	t->parent_ctx = f->ctx;
	t->group = f->group;
	t->seq = r->next_seq++;
	t->id = ti + 1;
	r->live[f->ctx]++;
	if (t->group != NONE)
		r->groups[t->group].live++;
	add_preds(r, ti);
	t->state = t->pending ? 0 : 1;
	if (t->state == 1)
		t->rseq = r->next_rseq++;
	return ti;
}

static void rt_complete(struct rt *r, uint32_t ti)
{
	struct rt_task *t = &r->tasks[ti];
	t->state = 3;
	r->done++;
	r->live[t->parent_ctx]--;
	if (t->group != NONE)
		r->groups[t->group].live--;
	for (uint32_t k = 0; k < t->n_succ; k++) {
		struct rt_task *s = &r->tasks[t->succ[k]];
		if (s->state == 0 && --s->pending == 0) {
			s->state = 1;
			s->rseq = r->next_rseq++;
		}
	}
}

/* Whether task i descends from the task whose body is context ctx. */
static bool descends(const struct rt *r, uint32_t i, uint32_t ctx)
{
	for (uint32_t c = r->tasks[i].parent_ctx;;
	     c = r->tasks[r->ctx_task[c]].parent_ctx) {
		if (c == ctx)
			return true;
		if (r->ctx_task[c] == NONE)
			return false;
	}
}

/* The ready task under libgomp's rules (see the header) that thread j
 * runs where it waits: into out[0], 1; or 0. */
static uint32_t rt_allowed_gomp(struct rt *r, uint32_t j, uint32_t *out)
{
	struct rt_thread *th = &r->th[j];
	const struct frame *f = &th->stack[th->depth - 1];
	const struct tp_op *op =
	    th->state == BARRIER ? NULL : &r->p->bodies[f->body].ops[f->pc];
	bool group_queued = false;
	for (uint32_t i = 0; op && op->kind == TP_TG_END && i < r->n_tasks; i++)
		group_queued |= r->tasks[i].group == f->group &&
				(r->tasks[i].state == 1 || r->tasks[i].state == 2);
	uint32_t best = NONE;
	for (int pass = 0; pass < 2 && best == NONE; pass++)
		for (uint32_t i = 0; i < r->n_tasks; i++) {
			const struct rt_task *t = &r->tasks[i];
			bool mine;
			if (t->state != 1)
				continue;
			if (!op) /* the barrier: first in, first out */
				mine = pass == 0;
			else if (op->kind == TP_TASKWAIT)
				mine = pass == 0 && t->parent_ctx == f->ctx;
			else if (pass == 0)
				mine = t->group == f->group;
			else
				mine = !group_queued && t->parent_ctx == f->ctx;
			if (mine &&
			    (best == NONE || (op ? t->rseq > r->tasks[best].rseq
						 : t->rseq < r->tasks[best].rseq)))
				best = i;
		}
	if (best == NONE)
		return 0;
	out[0] = best;
	return 1;
}

/* The ready tasks thread j may run where it waits, oldest first into out
 * (their count): at the barrier any; at a taskwait the current task's
 * children, at a taskgroup's end the group's tasks, or when there is none
 * of those, any descendant of the current task (OpenMP's task scheduling
 * constraint; without it a wait could wait for itself).  Under libgomp's
 * rules (r->gomp), only the one its runtime would run. */
static uint32_t rt_allowed(struct rt *r, uint32_t j, uint32_t *out)
{
	if (r->gomp)
		return rt_allowed_gomp(r, j, out);
	struct rt_thread *th = &r->th[j];
	uint32_t n = 0;
	const struct frame *f = th->depth ? &th->stack[th->depth - 1] : NULL;
	const struct tp_op *op = f && f->body != NONE && f->pc < r->p->bodies[f->body].n
				     ? &r->p->bodies[f->body].ops[f->pc]
				     : NULL;
	for (int pass = 0; pass < 2 && !n; pass++)
		for (uint32_t i = 0; i < r->n_tasks; i++) {
			const struct rt_task *t = &r->tasks[i];
			if (t->state != 1)
				continue;
			if (th->state == BARRIER ||
			    (pass == 0 && op && op->kind == TP_TASKWAIT &&
			     t->parent_ctx == f->ctx) ||
			    (pass == 0 && op && op->kind == TP_TG_END &&
			     t->group == f->group) ||
			    (pass == 1 && op && descends(r, i, f->ctx)))
				out[n++] = i; /* tasks are in seq order: oldest first */
		}
	return n;
}

/* Whether thread j's wait (taskwait, taskgroup end) is over. */
static bool rt_wait_over(struct rt *r, uint32_t j)
{
	const struct frame *f = &r->th[j].stack[r->th[j].depth - 1];
	const struct tp_op *op = &r->p->bodies[f->body].ops[f->pc];
	return op->kind == TP_TASKWAIT ? !r->live[f->ctx] : !r->groups[f->group].live;
}

static void rt_start(struct rt *r, uint32_t j, uint32_t ti)
{
	struct rt_task *t = &r->tasks[ti];
	t->state = 2;
	push_frame(r, j, t->body, new_ctx(r, ti), ti, t->group);
	r->th[j].state = RUN;
}

static void rt_tg_start(struct rt *r, struct frame *f)
{
	r->groups = xrealloc(r->groups, (r->n_groups + 1) * sizeof(*r->groups));
	r->groups[r->n_groups] = (struct rt_group){0, f->group};
	f->group = r->n_groups++;
}

static uint32_t body_len(const struct rt *r, const struct frame *f)
{
	return f->body == NONE ? 0 : r->p->bodies[f->body].n;
}

/* The wait at thread j's top frame is over: it goes on. */
static void rt_resume(struct rt *r, uint32_t j)
{
	struct frame *f = &r->th[j].stack[r->th[j].depth - 1];
	if (r->p->bodies[f->body].ops[f->pc].kind == TP_TG_END)
		f->group = r->groups[f->group].parent;
	f->pc++;
	f->waiting = false;
	r->th[j].state = RUN;
}

/* ------------------------------------------------------------ oracle */

struct busy {
	uint64_t *at; /* interval starts and ends, as +1 / -1 events */
	int *d;
	size_t n;
};

static void busy_add(struct busy *b, uint64_t from, uint64_t len)
{
	if (!len)
		return;
	b->at = xrealloc(b->at, (b->n + 2) * sizeof(uint64_t));
	b->d = xrealloc(b->d, (b->n + 2) * sizeof(int));
	b->at[b->n] = from;
	b->d[b->n++] = 1;
	b->at[b->n] = from + len;
	b->d[b->n++] = -1;
}

static void oracle_step(struct rt *r, uint32_t j, struct busy *bz)
{
	struct rt_thread *th = &r->th[j];
	struct frame *f = &th->stack[th->depth - 1];
	if (f->pc == body_len(r, f)) {
		if (f->task == NONE) {
			th->state = BARRIER;
			return;
		}
		rt_complete(r, f->task);
		th->depth--;
		return;
	}
	const struct tp_op *op = &r->p->bodies[f->body].ops[f->pc];
	switch (op->kind) {
	case TP_WORK:
		busy_add(bz, th->t, op->len);
		th->t += op->len;
		f->pc++;
		break;
	case TP_TASK: {
		f->pc++;
		uint32_t ti = rt_create(r, j, op);
		if (op->undeferred)
			rt_start(r, j, ti);
		break;
	}
	case TP_TG_START:
		rt_tg_start(r, f);
		f->pc++;
		break;
	default: /* a wait */
		if (rt_wait_over(r, j))
			rt_resume(r, j);
		else
			th->state = WAIT;
	}
}

/* A waiting thread goes on at `now`, or runs the oldest task its wait
 * allows; true when it does. */
static bool oracle_go(struct rt *r, uint32_t j, uint64_t now, uint32_t *scratch)
{
	struct rt_thread *th = &r->th[j];
	if (th->state == WAIT && rt_wait_over(r, j)) {
		rt_resume(r, j);
	} else if (rt_allowed(r, j, scratch)) {
		rt_start(r, j, scratch[0]);
	} else {
		return false;
	}
	th->t = th->t > now ? th->t : now;
	return true;
}

static double busy_time(struct busy *b, unsigned processors)
{
	/* sort the events by time (insertion sort: small) */
	for (size_t i = 1; i < b->n; i++)
		for (size_t k = i; k > 0 && b->at[k - 1] > b->at[k]; k--) {
			uint64_t t = b->at[k];
			int d = b->d[k];
			b->at[k] = b->at[k - 1];
			b->d[k] = b->d[k - 1];
			b->at[k - 1] = t;
			b->d[k - 1] = d;
		}
	double total = 0;
	int n = 0;
	for (size_t i = 0; i < b->n; i++) {
		if (i && n > 0) {
			double rate = processors && (unsigned)n > processors
					  ? (double)processors / n
					  : 1.0;
			total += (double)(b->at[i] - b->at[i - 1]) / rate;
		}
		n += b->d[i];
	}
	return total;
}

double tp_oracle(const struct tp_program *p, unsigned processors)
{
	struct rt r;
	struct busy bz = {0};
	rt_init(&r, p);
	r.gomp = !p->libomp;
	for (uint32_t j = 0; j < p->n_threads; j++) {
		push_frame(&r, j, j == 0 ? 0 : NONE, j, NONE, NONE);
		r.th[j].state = RUN;
	}
	uint32_t *scratch = NULL;
	uint64_t now = 0;
	for (;;) {
		scratch = xrealloc(scratch, (r.n_tasks + 1) * sizeof(uint32_t));
		for (bool moved = true; moved;) {
			moved = false;
			for (uint32_t j = 0; j < p->n_threads; j++)
				if ((r.th[j].state == WAIT || r.th[j].state == BARRIER) &&
				    oracle_go(&r, j, now, scratch))
					moved = true;
		}
		uint32_t best = NONE;
		for (uint32_t j = 0; j < p->n_threads; j++)
			if (r.th[j].state == RUN &&
			    (best == NONE || r.th[j].t < r.th[best].t))
				best = j;
		if (best == NONE)
			break;
		now = r.th[best].t;
		oracle_step(&r, best, &bz);
		scratch = xrealloc(scratch, (r.n_tasks + 1) * sizeof(uint32_t));
	}
	if (r.done != r.n_tasks)
		abort(); /* a program the oracle cannot finish: a generator bug */
	double t = busy_time(&bz, processors);
	free(scratch);
	free(bz.at);
	free(bz.d);
	rt_free(&r);
	return t;
}

/* ------------------------------------------------------------ recording */

struct em {
	struct rt r;
	struct ecp_test_seq *s, evs; /* switches go to s at once, events after */
	uint64_t rs, order, clock;
	uint32_t cur;
};

static uint64_t handle_of(uint32_t j)
{
	return 0x1000ull * (j + 1);
}

static struct ecp_event *emit(struct em *e, uint32_t j, enum ecp_event_type type,
			      uint64_t a, uint64_t b, uint64_t c)
{
	return ecp_test_ev(&e->evs, j + 1, e->clock, type, a, b, c);
}

static void switch_to(struct em *e, uint32_t j)
{
	if (e->cur == j)
		return;
	if (e->cur != NONE)
		ecp_test_switch(e->s, e->cur + 1, e->clock, 1,
				e->r.th[e->cur].state == RUN ||
				    e->r.th[e->cur].state == FRESH);
	ecp_test_switch(e->s, j + 1, e->clock, 0, 0);
	e->cur = j;
}

static uint64_t task_id(const struct em *e, uint32_t task)
{
	return task == NONE ? 0 : e->r.tasks[task].id;
}

static void em_create(struct em *e, uint32_t j, const struct tp_op *op)
{
	uint32_t parent = e->r.th[j].stack[e->r.th[j].depth - 1].task;
	uint32_t ti = rt_create(&e->r, j, op);
	struct ecp_event *ev = emit(e, j, ECP_EV_OMP_TASK_CREATE, task_id(e, ti),
				    task_id(e, parent), tp_site(op->body));
	if (op->undeferred)
		ev->flags |= ECP_EVF_TASK_UNDEFERRED;
	if (e->r.p->libomp)
		ev->flags |= ECP_EVF_TASK_OMPT;
	for (uint32_t k = 0; k < op->n_deps; k++)
		emit(e, j, ECP_EV_OMP_TASK_DEP, task_id(e, ti), op->dep_addr[k],
		     op->dep_kind[k]);
	if (op->undeferred) {
		rt_start(&e->r, j, ti);
		emit(e, j, ECP_EV_OMP_TASK_BEGIN, task_id(e, ti), 0, 0);
	}
}

/* The wait's end (taskwait 1, taskgroup 2), once it is over. */
static void em_resume(struct em *e, uint32_t j)
{
	const struct frame *f = &e->r.th[j].stack[e->r.th[j].depth - 1];
	if (e->r.p->bodies[f->body].ops[f->pc].kind == TP_TASKWAIT)
		emit(e, j, ECP_EV_OMP_TASKWAIT, 1, 0, 0);
	else
		emit(e, j, ECP_EV_OMP_TASKGROUP, 2, 0, 0);
	rt_resume(&e->r, j);
}

static void em_op(struct em *e, uint32_t j, struct frame *f)
{
	const struct tp_op *op = &e->r.p->bodies[f->body].ops[f->pc];
	switch (op->kind) {
	case TP_WORK:
		e->clock += op->len;
		f->pc++;
		return;
	case TP_TASK:
		f->pc++;
		em_create(e, j, op);
		return;
	case TP_TG_START:
		emit(e, j, ECP_EV_OMP_TASKGROUP, 0, 0, 0);
		rt_tg_start(&e->r, f);
		f->pc++;
		return;
	default:
		if (!f->waiting)
			emit(e, j,
			     op->kind == TP_TASKWAIT ? ECP_EV_OMP_TASKWAIT
						     : ECP_EV_OMP_TASKGROUP,
			     op->kind == TP_TASKWAIT ? 0 : 1, 0, 0);
		f->waiting = true;
		if (rt_wait_over(&e->r, j))
			em_resume(e, j);
		else
			e->r.th[j].state = WAIT;
	}
}

static void em_step(struct em *e, uint32_t j)
{
	struct rt_thread *th = &e->r.th[j];
	if (th->state == FRESH) {
		emit(e, j, ECP_EV_THREAD_START, j, START_POOL, handle_of(j));
		emit(e, j, ECP_EV_ONCE_BEGIN, OBJ_FORK, 0, 0);
		emit(e, j, ECP_EV_ONCE_END, OBJ_FORK, 0, 0);
		th->state = RUN;
		return;
	}
	struct frame *f = &th->stack[th->depth - 1];
	if (f->pc < body_len(&e->r, f)) {
		em_op(e, j, f);
	} else if (f->task != NONE) {
		emit(e, j, ECP_EV_OMP_TASK_END, task_id(e, f->task), 0, 0);
		rt_complete(&e->r, f->task);
		th->depth--;
	} else {
		emit(e, j, ECP_EV_BARRIER_WAIT_BEGIN, OBJ_BARRIER, 0, 0);
		th->state = BARRIER;
	}
}

/* A waiting thread that can go on, or run a task: done here, true. */
static bool em_go(struct em *e, uint32_t j, uint32_t *scratch)
{
	struct rt_thread *th = &e->r.th[j];
	if (th->state == WAIT && rt_wait_over(&e->r, j)) {
		em_resume(e, j);
		return true;
	}
	uint32_t n = rt_allowed(&e->r, j, scratch);
	if (!n)
		return false;
	uint32_t ti = scratch[e->order ? next_rand(&e->rs) % n : 0];
	rt_start(&e->r, j, ti);
	emit(e, j, ECP_EV_OMP_TASK_BEGIN, task_id(e, ti), 0, 0);
	return true;
}

static bool can_go(struct em *e, uint32_t j, uint32_t *scratch)
{
	int st = e->r.th[j].state;
	if (st == RUN || st == FRESH)
		return true;
	return (st == WAIT && rt_wait_over(&e->r, j)) || rt_allowed(&e->r, j, scratch);
}

static void em_finish(struct em *e)
{
	uint32_t n = e->r.p->n_threads;
	for (uint32_t j = 1; j < n; j++) {
		switch_to(e, j);
		emit(e, j, ECP_EV_BARRIER_WAIT_END, OBJ_BARRIER, 0, 0);
		emit(e, j, ECP_EV_SEM_POST, OBJ_JOIN, 0, 0);
		emit(e, j, ECP_EV_THREAD_EXIT, handle_of(j), 0, 0);
	}
	switch_to(e, 0);
	emit(e, 0, ECP_EV_BARRIER_WAIT_END, OBJ_BARRIER, 0, 0);
	for (uint32_t j = 1; j < n; j++) {
		emit(e, 0, ECP_EV_SEM_WAIT_BEGIN, OBJ_JOIN, 0, 0);
		emit(e, 0, ECP_EV_SEM_WAIT_END, OBJ_JOIN, 0, 0);
	}
	emit(e, 0, ECP_EV_THREAD_EXIT, handle_of(0), 0, 0);
}

void tp_record(const struct tp_program *p, uint64_t order, struct ecp_test_seq *s)
{
	struct em e;
	memset(&e, 0, sizeof(e));
	rt_init(&e.r, p);
	e.s = s;
	e.order = order;
	e.rs = order * 0x2545f4914f6cdd1dull + 7;
	e.cur = NONE;
	ecp_test_seq_init(&e.evs);
	e.r.th[0].state = RUN;
	switch_to(&e, 0);
	emit(&e, 0, ECP_EV_THREAD_START, 0, 0, handle_of(0));
	for (uint32_t j = 1; j < p->n_threads; j++) {
		emit(&e, 0, ECP_EV_THREAD_CREATE, j, START_POOL, 1);
		e.r.th[j].state = FRESH;
		push_frame(&e.r, j, NONE, j, NONE, NONE);
	}
	emit(&e, 0, ECP_EV_ONCE_BEGIN, OBJ_FORK, 0, 0);
	emit(&e, 0, ECP_EV_ONCE_END, OBJ_FORK, 1, 0);
	push_frame(&e.r, 0, 0, 0, NONE, NONE);
	uint32_t *scratch = NULL, *cand = xrealloc(NULL, p->n_threads * sizeof(uint32_t));
	for (;;) {
		scratch = xrealloc(scratch, (e.r.n_tasks + 1) * sizeof(uint32_t));
		uint32_t n = 0;
		for (uint32_t j = 0; j < p->n_threads; j++)
			if (can_go(&e, j, scratch))
				cand[n++] = j;
		if (!n)
			break;
		/* order 0: the current thread while it can, else the first */
		uint32_t j = cand[0];
		for (uint32_t k = 0; !e.order && k < n; k++)
			if (cand[k] == e.cur)
				j = e.cur;
		if (e.order)
			j = cand[next_rand(&e.rs) % n];
		switch_to(&e, j);
		if (e.r.th[j].state == WAIT || e.r.th[j].state == BARRIER)
			em_go(&e, j, scratch);
		else
			em_step(&e, j);
	}
	if (e.r.done != e.r.n_tasks)
		abort(); /* the emulation deadlocked: a generator bug */
	em_finish(&e);
	for (size_t i = 0; i < e.evs.n; i++) {
		const struct ecp_event *v = &e.evs.ev[i];
		ecp_test_ev(s, v->tid, v->ts, (enum ecp_event_type)v->type, v->a, v->b,
			    v->c)
		    ->flags = v->flags;
	}
	ecp_test_seq_finish(&e.evs);
	free(scratch);
	free(cand);
	rt_free(&e.r);
}

/* ------------------------------------------------------------ spawn sites */

uint64_t tp_site(uint32_t body)
{
	return 0x4000 + body % 3;
}

struct sub {
	uint64_t end, sub, work;
};

struct sites {
	struct tp_site *s;
	uint32_t n, max;
};

static struct tp_site *site_of(struct sites *ss, uint64_t site)
{
	for (uint32_t i = 0; i < ss->n; i++)
		if (ss->s[i].site == site)
			return &ss->s[i];
	if (ss->n == ss->max)
		abort();
	ss->s[ss->n] = (struct tp_site){site, 0, 0, 0, 0};
	return &ss->s[ss->n++];
}

/* Whether sibling op a (earlier in the body) is a depend predecessor of
 * op b: b reads or writes an address a writes, or writes one a reads
 * with no writer between them (a later sibling writing it is checked by
 * the caller's scan, which stops at the first writer). */
static int dep_link(const struct tp_op *a, const struct tp_op *b, uint64_t addr,
		    uint8_t kind)
{
	bool w = false, r = false;
	for (uint32_t q = 0; q < a->n_deps; q++)
		if (a->dep_addr[q] == addr) {
			w |= a->dep_kind[q] != 1;
			r |= a->dep_kind[q] == 1;
		}
	(void)b;
	return w ? 2 : r && kind != 1 ? 1 : 0; /* 2: a writer, the scan stops */
}

/* Body b run as a task body (path: the sites of its ancestors and its
 * own, n_path of them): its figures, its tasks counted per site. */
static struct sub eval_body(const struct tp_program *p, uint32_t b, uint64_t *path,
			    uint32_t n_path, struct sites *ss)
{
	const struct tp_body *body = &p->bodies[b];
	uint64_t *start = calloc(body->n + 1, sizeof(uint64_t));
	struct sub *ch = calloc(body->n + 1, sizeof(struct sub));
	uint64_t t = 0, sub = 0, work = 0;
	uint32_t waited = 0, group_from = 0;
	if (!start || !ch)
		abort();
	for (uint32_t i = 0; i < body->n; i++) {
		const struct tp_op *op = &body->ops[i];
		if (op->kind == TP_WORK) {
			t += op->len;
			work += op->len;
		} else if (op->kind == TP_TASK) {
			uint64_t site = tp_site(op->body);
			bool nested = false;
			for (uint32_t k = 0; k < n_path; k++)
				nested |= path[k] == site;
			path[n_path] = site;
			ch[i] = eval_body(p, op->body, path, n_path + 1, ss);
			struct tp_site *s = site_of(ss, site);
			s->tasks++;
			if (!nested) {
				s->work += ch[i].work;
				s->span += ch[i].sub;
				s->outermost++;
			}
			start[i] = t;
			for (uint32_t k = 0; k < op->n_deps; k++)
				for (uint32_t j = i; j-- > 0;) {
					if (body->ops[j].kind != TP_TASK)
						continue;
					int l =
					    dep_link(&body->ops[j], op, op->dep_addr[k],
						     op->dep_kind[k]);
					if (l && start[j] + ch[j].end > start[i])
						start[i] = start[j] + ch[j].end;
					if (l == 2)
						break;
				}
			sub = sub > start[i] + ch[i].sub ? sub : start[i] + ch[i].sub;
			work += ch[i].work;
		} else if (op->kind == TP_TASKWAIT) {
			for (; waited < i; waited++)
				if (body->ops[waited].kind == TP_TASK &&
				    start[waited] + ch[waited].end > t)
					t = start[waited] + ch[waited].end;
		} else if (op->kind == TP_TG_START) {
			group_from = i;
		} else { /* the group's children, with their subtrees */
			for (uint32_t j = group_from; j < i; j++)
				if (body->ops[j].kind == TP_TASK &&
				    start[j] + ch[j].sub > t)
					t = start[j] + ch[j].sub;
		}
	}
	free(start);
	free(ch);
	return (struct sub){t, sub > t ? sub : t, work};
}

uint32_t tp_spawn_sites(const struct tp_program *p, struct tp_site *out, uint32_t max)
{
	struct sites ss = {out, 0, max};
	uint64_t path[8];
	eval_body(p, 0, path, 0, &ss);
	for (uint32_t i = 1; i < ss.n; i++) /* sort by site */
		for (uint32_t k = i; k > 0 && out[k - 1].site > out[k].site; k--) {
			struct tp_site x = out[k];
			out[k] = out[k - 1];
			out[k - 1] = x;
		}
	return ss.n;
}
