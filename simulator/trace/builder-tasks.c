/* SPDX-License-Identifier: MIT */
/* OpenMP tasks (ecp:omp_task_create, omp_task_dep, omp_task_begin,
 * omp_task_end, omp_taskwait, omp_taskgroup): the task graph, collected
 * while the trace is read (simulator/model/task-graph.h says what epochs and contexts
 * are), dealt out again at finish (simulator/model/task-deal.c).
 *
 * Which thread ran which task, and when, on the one recording CPU is an
 * artefact of its time slices, like a dynamic loop's chunks
 * (builder-omp.c).  So every task event closes the thread's segment, and
 * each segment is filed in the context it belongs to: the implicit task's
 * items, or the body of the task it ran in.  A task run inside a barrier
 * or a taskwait interrupts that wait: the builder's wait state is put
 * aside for the body and restored after it.  Any other event that splits
 * a segment inside an epoch (a lock, a sleep, a dynamic loop's chunk, a
 * nested region) makes the epoch irregular: its tasks keep the threads
 * and the order they were recorded in, with the task graph's edges.
 * libomp's workers run the tasks left at a region's end after their join
 * post (join_early): they stay in the epoch until the master joins.
 * The CPU time a thread uses waiting for tasks (taskwait, taskgroup end,
 * barrier) outside their bodies is no work (bld_skip_cpu): libomp spins
 * there, on the one recording CPU for as long as the other threads run.
 *
 * Tasks made where no team epoch is open (outside a region, where libgomp
 * runs them at once) are calls of their creator: nothing to do. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simulator/model/task-graph.h"
#include "simulator/trace/builder-internal.h"

static void free_deps(struct tdeps *d)
{
	for (size_t i = 0; i < d->addrs.len; i++)
		ecp_vec_finish(&ECP_VEC_AT(&d->addrs, struct tdep_addr, i).readers);
	ecp_vec_finish(&d->addrs);
	ecp_hmap_finish(&d->by_addr);
}

void bld_tasks_free(struct ecp_task_graph *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ctxs.len; i++) {
		ecp_vec_finish(&tctx_at(t, (uint32_t)i)->items);
		ecp_vec_finish(&tctx_at(t, (uint32_t)i)->children);
	}
	for (size_t i = 0; i < t->tasks.len; i++)
		ecp_vec_finish(&ttask_at(t, (uint32_t)i)->preds);
	for (size_t i = 0; i < t->groups.len; i++)
		ecp_vec_finish(&ECP_VEC_AT(&t->groups, struct tgroup, i).members);
	for (size_t i = 0; i < t->epochs.len; i++) {
		struct tepoch *e = &ECP_VEC_AT(&t->epochs, struct tepoch, i);
		for (size_t k = 0; k < e->threads.len; k++)
			ecp_vec_finish(&ECP_VEC_AT(&e->threads, struct ep_thread, k).seq);
		ecp_vec_finish(&e->threads);
	}
	for (size_t i = 0; i < t->threads.len; i++) {
		struct tthread *tt = &ECP_VEC_AT(&t->threads, struct tthread, i);
		for (size_t k = 0; k < tt->saved.len; k++)
			ecp_vec_finish(&ECP_VEC_AT(&tt->saved, struct tsaved, k).stack);
		ecp_vec_finish(&tt->saved);
		ecp_vec_finish(&tt->stack);
	}
	for (size_t i = 0; i < t->deps.len; i++)
		free_deps(&ECP_VEC_AT(&t->deps, struct tdeps, i));
	ecp_vec_finish(&t->ctxs);
	ecp_vec_finish(&t->tasks);
	ecp_vec_finish(&t->groups);
	ecp_vec_finish(&t->epochs);
	ecp_vec_finish(&t->threads);
	ecp_vec_finish(&t->deps);
	ecp_hmap_finish(&t->task_by_id);
	ecp_hmap_finish(&t->epoch_by_key);
	free(t->sites);
	free(t);
}

static struct ecp_task_graph *tasks_of(struct ecp_builder *b)
{
	if (b->tasks)
		return b->tasks;
	struct ecp_task_graph *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	ecp_vec_init(&t->ctxs, sizeof(struct tctx));
	ecp_vec_init(&t->tasks, sizeof(struct ttask));
	ecp_vec_init(&t->groups, sizeof(struct tgroup));
	ecp_vec_init(&t->epochs, sizeof(struct tepoch));
	ecp_vec_init(&t->threads, sizeof(struct tthread));
	ecp_vec_init(&t->deps, sizeof(struct tdeps));
	ecp_hmap_init(&t->task_by_id);
	ecp_hmap_init(&t->epoch_by_key);
	b->tasks = t;
	return t;
}

static struct tthread *tthread_of(struct ecp_task_graph *t, ecp_id index)
{
	while (t->threads.len <= index) {
		struct tthread *tt = ecp_vec_push(&t->threads);
		if (!tt)
			return NULL;
		memset(tt, 0, sizeof(*tt));
		ecp_vec_init(&tt->stack, sizeof(struct tframe));
		ecp_vec_init(&tt->saved, sizeof(struct tsaved));
	}
	return &ECP_VEC_AT(&t->threads, struct tthread, index);
}

static struct tepoch *epoch_at(struct ecp_task_graph *t, uint32_t i)
{
	return &ECP_VEC_AT(&t->epochs, struct tepoch, i);
}

static uint32_t new_ctx(struct ecp_task_graph *t, uint32_t task, ecp_id thread,
			uint32_t epoch)
{
	struct tctx *c = ecp_vec_push(&t->ctxs);
	if (!c)
		return ECP_NO_ID;
	ecp_vec_init(&c->items, sizeof(struct titem));
	ecp_vec_init(&c->children, sizeof(uint32_t));
	c->task = task;
	c->thread = thread;
	c->epoch = epoch;
	c->group = ECP_NO_ID;
	c->deps = ECP_NO_ID;
	c->tw_mark = 0;
	c->tg_wait = ECP_NO_ID;
	return (uint32_t)(t->ctxs.len - 1);
}

static int push_item(struct ecp_task_graph *t, uint32_t ctx, uint32_t kind, uint32_t arg)
{
	struct titem *it = ecp_vec_push(&tctx_at(t, ctx)->items);
	if (!it)
		return -1;
	it->kind = kind;
	it->arg = arg;
	return 0;
}

static uint32_t top_ctx(const struct tthread *tt)
{
	return ECP_VEC_AT(&tt->stack, struct tframe, tt->stack.len - 1).ctx;
}

static struct tframe *top_frame(struct tthread *tt)
{
	return &ECP_VEC_AT(&tt->stack, struct tframe, tt->stack.len - 1);
}

/* A taskwait or taskgroup wait begins (`on`) or ends in the thread's
 * current context: from its begin, and from each task's end inside it, to
 * the next task's begin or the wait's end, the thread only looked for
 * tasks. */
static void task_wait(struct bthread *th, struct tthread *tt, const struct ecp_event *ev,
		      uint64_t v, bool on)
{
	struct tframe *f = top_frame(tt);
	if (!on && f->spin)
		bld_skip_cpu(th, ev->ts, v);
	f->spin = on;
}

/* Files the thread's segments closed since the last filing in its
 * current context; closed by anything but a task event (`ours` false),
 * they make the epoch irregular. */
static int file_segments(struct ecp_task_graph *t, struct bthread *th, struct tthread *tt,
			 bool ours)
{
	uint32_t ctx = top_ctx(tt);
	if (!ours && th->segs.len > tt->mark)
		epoch_at(t, tt->epoch - 1)->irregular = true;
	for (size_t k = tt->mark; k < th->segs.len; k++)
		if (push_item(t, ctx, IT_SEG, ECP_VEC_AT(&th->segs, uint32_t, k)) < 0)
			return -1;
	tt->mark = th->segs.len;
	return 0;
}

/* A task event: the segment ends here, filed in the current context. */
static int split_here(struct ecp_builder *b, struct bthread *th, struct tthread *tt,
		      const struct ecp_event *ev, uint64_t v)
{
	if (file_segments(b->tasks, th, tt, false) < 0 ||
	    bld_close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
		return -1;
	return file_segments(b->tasks, th, tt, true);
}

/* The thread enters epoch `round` of `team`, its implicit task's context
 * at the bottom of its stack. */
static int enter_epoch(struct ecp_task_graph *t, struct bthread *th, struct tthread *tt,
		       uint64_t team, uint32_t round)
{
	uint64_t key = (team << 24) ^ round;
	uint64_t *ei = ecp_hmap_get(&t->epoch_by_key, key);
	uint32_t e;
	if (ei) {
		e = (uint32_t)*ei;
	} else {
		struct tepoch *ep = ecp_vec_push(&t->epochs);
		if (!ep)
			return -1;
		memset(ep, 0, sizeof(*ep));
		ecp_vec_init(&ep->threads, sizeof(struct ep_thread));
		e = (uint32_t)(t->epochs.len - 1);
		if (ecp_hmap_put(&t->epoch_by_key, key, e) < 0)
			return -1;
	}
	uint32_t ctx = new_ctx(t, ECP_NO_ID, th->index, e);
	struct ep_thread *et =
	    ctx == ECP_NO_ID ? NULL : ecp_vec_push(&epoch_at(t, e)->threads);
	struct tframe *f = et ? ecp_vec_push(&tt->stack) : NULL;
	if (!f)
		return -1;
	memset(et, 0, sizeof(*et));
	et->thread = th->index;
	et->ctx = ctx;
	et->lo = th->segs.len;
	ecp_vec_init(&et->seq, sizeof(uint32_t));
	memset(f, 0, sizeof(*f));
	f->ctx = ctx;
	tt->epoch = e + 1;
	tt->team = team;
	tt->round = round;
	tt->mark = th->segs.len;
	return 0;
}

/* The thread leaves its epoch (a barrier's end, its region's end). */
static int leave_epoch(struct ecp_task_graph *t, struct bthread *th, struct tthread *tt,
		       bool at_barrier)
{
	if (!tt->epoch)
		return 0;
	struct tepoch *ep = epoch_at(t, tt->epoch - 1);
	if (file_segments(t, th, tt, true) < 0)
		return -1;
	if (tt->stack.len != 1)
		ep->irregular = true; /* a task was still open */
	for (size_t k = ep->threads.len; k-- > 0;) {
		struct ep_thread *et = &ECP_VEC_AT(&ep->threads, struct ep_thread, k);
		if (et->thread == th->index && !et->closed) {
			et->hi = th->segs.len;
			et->closed = true;
			et->at_barrier = at_barrier;
			break;
		}
	}
	if (tt->stack.len > 1) {
		/* the interrupted wait comes back */
		const struct tframe *f = &ECP_VEC_AT(&tt->stack, struct tframe, 1);
		th->wait = f->wait;
	}
	tt->stack.len = 0;
	tt->epoch = 0;
	tt->joined = false;
	return 0;
}

/* A fork inside an epoch where the thread runs a task or tasks were made:
 * a nested region.  The outer epoch is kept as recorded; the thread's
 * place in it (its task frames and their interrupted waits) is put aside
 * until the nested region ends. */
static int save_outer(struct ecp_task_graph *t, struct bthread *th, struct tthread *tt)
{
	if (file_segments(t, th, tt, true) < 0)
		return -1;
	epoch_at(t, tt->epoch - 1)->irregular = true;
	struct tsaved *sv = ecp_vec_push(&tt->saved);
	if (!sv)
		return -1;
	sv->epoch = tt->epoch;
	sv->team = tt->team;
	sv->round = tt->round;
	sv->stack = tt->stack;
	sv->early = tt->early;
	ecp_vec_init(&tt->stack, sizeof(struct tframe));
	tt->epoch = 0;
	tt->early = false;
	tt->joined = false;
	return 0;
}

/* The nested region is over for the thread: back to its outer place. */
static int restore_outer(struct ecp_task_graph *t, struct bthread *th, struct tthread *tt)
{
	if (leave_epoch(t, th, tt, false) < 0)
		return -1;
	struct tsaved *sv = &ECP_VEC_AT(&tt->saved, struct tsaved, tt->saved.len - 1);
	ecp_vec_finish(&tt->stack);
	tt->stack = sv->stack;
	tt->epoch = sv->epoch;
	tt->team = sv->team;
	tt->round = sv->round;
	tt->early = sv->early;
	tt->mark = th->segs.len;
	tt->saved.len--;
	return 0;
}

/* Whether the thread's outer region (put aside) is team's. */
static bool outer_is(const struct tthread *tt, uint64_t team)
{
	return tt->saved.len &&
	       ECP_VEC_AT(&tt->saved, struct tsaved, tt->saved.len - 1).team == team;
}

/* A worker's join post (its share of the region done) in an epoch with
 * tasks: libomp runs the tasks still queued at a region's end inside its
 * closing barrier, which the agent writes as this post (recorder/EVENTS.md),
 * not as a team barrier as libgomp's.  The worker stays in the epoch, at
 * its barrier, until the master joins (join_epoch). */
static bool join_early(struct ecp_task_graph *t, const struct tthread *tt,
		       const struct ecp_event *ev, unsigned kind, uint64_t team)
{
	return ev->type == ECP_EV_SEM_POST && kind == 1 && tt->epoch &&
	       tt->team == team && !tt->saved.len && epoch_at(t, tt->epoch - 1)->n_tasks;
}

/* The master joins the team: the epoch ends as at a barrier for it and
 * for the workers still in it (join_early), each one's last segment there
 * before the others' first after. */
static int join_epoch(struct ecp_builder *b, struct bthread *th, struct tthread *tt)
{
	struct ecp_task_graph *t = b->tasks;
	uint32_t e = tt->epoch - 1;
	bool any = false;
	for (size_t k = 0; k < epoch_at(t, e)->threads.len; k++) {
		struct ep_thread *et =
		    &ECP_VEC_AT(&epoch_at(t, e)->threads, struct ep_thread, k);
		struct tthread *wt =
		    et->thread < t->threads.len
			? &ECP_VEC_AT(&t->threads, struct tthread, et->thread)
			: NULL;
		if (et->closed || et->thread == th->index || !wt || !wt->joined ||
		    wt->epoch != e + 1)
			continue;
		any = true;
		if (leave_epoch(t, thread_at(b, et->thread), wt, true) < 0)
			return -1;
	}
	return leave_epoch(t, th, tt, any);
}

/* A team's synchronization just handled by its builder file: the fork
 * (once_end), a barrier's begin or end, the join (sem_post, sem_wait_end)
 * on the agent's OpenMP objects (recorder/agent/agent-omp.c); or a thread
 * created (libgomp's pool, made inside the first region): its edge leaves
 * the epoch, so the segment it ends is filed as a task event's. */
int bld_tasks_team_sync(struct ecp_builder *b, struct bthread *th,
			const struct ecp_event *ev, struct ecp_error *err)
{
	uint64_t obj = ev->a, team = (obj & 0xffffffffffffull) >> 2;
	unsigned kind = (unsigned)(obj & 3);
	struct ecp_task_graph *t = tasks_of(b);
	struct tthread *tt = t ? tthread_of(t, th->index) : NULL;
	int rc = 0;
	if (!tt)
		return bld_nomem(err);
	if (ev->type != ECP_EV_THREAD_CREATE && team != tt->team && outer_is(tt, team) &&
	    restore_outer(t, th, tt) < 0)
		return bld_nomem(err); /* its nested region ended unseen (a team of 1) */
	if (ev->type == ECP_EV_THREAD_CREATE) {
		rc = tt->epoch ? file_segments(t, th, tt, true) : 0;
	} else if (ev->type == ECP_EV_ONCE_END && kind == 0) {
		if (tt->epoch &&
		    (tt->stack.len > 1 || epoch_at(t, tt->epoch - 1)->n_tasks))
			rc = save_outer(t, th, tt);
		else
			rc = leave_epoch(t, th, tt, false);
		if (!rc)
			rc = enter_epoch(t, th, tt, team, 0);
	} else if (ev->type == ECP_EV_BARRIER_WAIT_BEGIN && kind == 2 && tt->epoch &&
		   tt->team == team) {
		rc = file_segments(t, th, tt, true);
	} else if (ev->type == ECP_EV_BARRIER_WAIT_END && kind == 2 && tt->epoch &&
		   tt->team == team && tt->early) {
		tt->early = false; /* on_begin moved it into the next epoch */
		rc = file_segments(t, th, tt, true);
	} else if (ev->type == ECP_EV_BARRIER_WAIT_END && kind == 2 && tt->epoch &&
		   tt->team == team) {
		uint32_t round = tt->round + 1;
		rc = leave_epoch(t, th, tt, true);
		if (!rc)
			rc = enter_epoch(t, th, tt, team, round);
	} else if (join_early(t, tt, ev, kind, team)) {
		tt->joined = true;
		rc = file_segments(t, th, tt, true);
	} else if ((ev->type == ECP_EV_SEM_POST || ev->type == ECP_EV_SEM_WAIT_END) &&
		   kind == 1 && tt->epoch && tt->team == team) {
		rc = tt->saved.len ? restore_outer(t, th, tt) : join_epoch(b, th, tt);
	}
	return rc < 0 ? bld_nomem(err) : ECP_OK;
}

/* The sibling tasks a new depend item of task `ti` waits for: an `in`
 * the last writer of the address, an out/inout (or mutexinoutset) the
 * last writer and the readers since. */
static int add_dep(struct ecp_task_graph *t, uint32_t ti, uint64_t addr, uint64_t kind)
{
	struct ttask *task = ttask_at(t, ti);
	struct tctx *parent = tctx_at(t, task->parent);
	if (parent->deps == ECP_NO_ID) {
		struct tdeps *d = ecp_vec_push(&t->deps);
		if (!d)
			return -1;
		ecp_hmap_init(&d->by_addr);
		ecp_vec_init(&d->addrs, sizeof(struct tdep_addr));
		parent->deps = (uint32_t)(t->deps.len - 1);
	}
	struct tdeps *d = &ECP_VEC_AT(&t->deps, struct tdeps, parent->deps);
	uint64_t *ai = ecp_hmap_get(&d->by_addr, addr);
	struct tdep_addr *a;
	if (ai) {
		a = &ECP_VEC_AT(&d->addrs, struct tdep_addr, *ai);
	} else {
		a = ecp_vec_push(&d->addrs);
		if (!a || ecp_hmap_put(&d->by_addr, addr, d->addrs.len - 1) < 0)
			return -1;
		a->writer = ECP_NO_ID;
		ecp_vec_init(&a->readers, sizeof(uint32_t));
	}
	uint32_t *p;
	if (a->writer != ECP_NO_ID && a->writer != ti) {
		if (!(p = ecp_vec_push(&task->preds)))
			return -1;
		*p = a->writer;
	}
	if (kind == 1) {
		if (!(p = ecp_vec_push(&a->readers)))
			return -1;
		*p = ti;
		return 0;
	}
	for (size_t i = 0; i < a->readers.len; i++) {
		uint32_t r = ECP_VEC_AT(&a->readers, uint32_t, i);
		if (r == ti)
			continue;
		if (!(p = ecp_vec_push(&task->preds)))
			return -1;
		*p = r;
	}
	a->readers.len = 0;
	a->writer = ti;
	return 0;
}

static int on_create(struct ecp_builder *b, struct bthread *th, struct tthread *tt,
		     const struct ecp_event *ev, uint64_t v)
{
	struct ecp_task_graph *t = b->tasks;
	if (split_here(b, th, tt, ev, v) < 0)
		return -1;
	uint32_t parent = top_ctx(tt), ti = (uint32_t)t->tasks.len;
	struct ttask *task = ecp_vec_push(&t->tasks);
	if (!task)
		return -1;
	memset(task, 0, sizeof(*task));
	ecp_vec_init(&task->preds, sizeof(uint32_t));
	task->id = ev->a;
	task->parent = parent;
	task->epoch = tt->epoch - 1;
	task->flags =
	    (uint16_t)((ev->flags & ECP_EVF_TASK_UNDEFERRED ? TASK_F_UNDEFERRED : 0) |
		       (ev->flags & ECP_EVF_TASK_LOOP ? TASK_F_LOOP : 0) |
		       (ev->flags & ECP_EVF_TASK_OMPT ? TASK_F_OMPT : 0));
	task->group = tctx_at(t, parent)->group;
	task->site = ev->c;
	/* the site is named by the function that made the task */
	task->site_fn =
	    th->frames.len
		? ECP_VEC_AT(&th->frames, struct frame, th->frames.len - 1).func
		: th->start_fn;
	task->ctx = new_ctx(t, ti, th->index, task->epoch);
	if (task->ctx == ECP_NO_ID || ecp_hmap_put(&t->task_by_id, ev->a, ti) < 0)
		return -1;
	/* its children count in its group until they open their own */
	tctx_at(t, task->ctx)->group = task->group;
	uint32_t *c = ecp_vec_push(&tctx_at(t, parent)->children);
	if (!c)
		return -1;
	*c = ti;
	if (task->group != ECP_NO_ID) {
		c = ecp_vec_push(
		    &ECP_VEC_AT(&t->groups, struct tgroup, task->group).members);
		if (!c)
			return -1;
		*c = ti;
	}
	epoch_at(t, task->epoch)->n_tasks++;
	tt->last_task = ti;
	return push_item(t, parent, IT_CREATE, ti);
}

/* Whether epoch e is the one after the thread's, and the thread waits in
 * the barrier between them. */
static bool next_epoch(struct ecp_task_graph *t, const struct bthread *th,
		       const struct tthread *tt, uint32_t e)
{
	uint64_t *ei =
	    ecp_hmap_get(&t->epoch_by_key, (tt->team << 24) ^ (uint64_t)(tt->round + 1));
	return ei && *ei == e && tt->stack.len == 1 && th->wait == W_BARRIER &&
	       !tt->early;
}

static int on_begin(struct ecp_builder *b, struct bthread *th, struct tthread *tt,
		    const struct ecp_event *ev, uint64_t v)
{
	struct ecp_task_graph *t = b->tasks;
	uint64_t *ti = ecp_hmap_get(&t->task_by_id, ev->a);
	struct ttask *task = ti ? ttask_at(t, (uint32_t)*ti) : NULL;
	if (!task || task->begun) {
		epoch_at(t, tt->epoch - 1)->irregular = true;
		return 0; /* not ours to deal: its time stays where it ran */
	}
	if (top_frame(tt)->spin || th->wait == W_BARRIER || tt->joined)
		bld_skip_cpu(th, ev->ts, v); /* the wait looked for this task */
	if (split_here(b, th, tt, ev, v) < 0)
		return -1;
	if (task->epoch != tt->epoch - 1 && next_epoch(t, th, tt, task->epoch)) {
		/* libgomp let a thread still in the barrier that ended its
		 * epoch run a task of the next: the barrier was over */
		if (leave_epoch(t, th, tt, true) < 0 ||
		    enter_epoch(t, th, tt, tt->team, tt->round + 1) < 0)
			return -1;
		tt->early = true;
	}
	if (task->epoch != tt->epoch - 1) {
		epoch_at(t, tt->epoch - 1)->irregular = true;
		epoch_at(t, task->epoch)->irregular = true;
	}
	task->begun = true;
	tctx_at(t, task->ctx)->thread = th->index;
	struct tframe *f = ecp_vec_push(&tt->stack);
	if (!f)
		return -1;
	f->ctx = task->ctx;
	f->spin = false;
	f->wait = th->wait;
	f->wait_obj = th->wait_obj;
	f->wait_ts = th->wait_ts;
	f->wait_cpu = th->wait_cpu;
	f->wait_timeout = th->wait_timeout;
	th->wait = W_NONE;
	return 0;
}

/* Whether the task on top of the thread's outer place (put aside) is id. */
static bool outer_task_is(struct ecp_task_graph *t, const struct tthread *tt, uint64_t id)
{
	const struct tsaved *sv =
	    &ECP_VEC_AT(&tt->saved, struct tsaved, tt->saved.len - 1);
	if (sv->stack.len < 2)
		return false;
	uint32_t ctx = ECP_VEC_AT(&sv->stack, struct tframe, sv->stack.len - 1).ctx;
	return ttask_at(t, tctx_at(t, ctx)->task)->id == id;
}

static int on_end(struct ecp_builder *b, struct bthread *th, struct tthread *tt,
		  const struct ecp_event *ev, uint64_t v)
{
	struct ecp_task_graph *t = b->tasks;
	if (tt->saved.len && outer_task_is(t, tt, ev->a) && restore_outer(t, th, tt) < 0)
		return -1; /* a nested region of one thread ended unseen */
	uint32_t ctx = top_ctx(tt);
	struct ttask *task = tctx_at(t, ctx)->task == ECP_NO_ID
				 ? NULL
				 : ttask_at(t, tctx_at(t, ctx)->task);
	if (!task || task->id != ev->a)
		return 0; /* a task on_begin left alone */
	if (split_here(b, th, tt, ev, v) < 0)
		return -1;
	task->ended = true;
	const struct tframe *f =
	    &ECP_VEC_AT(&tt->stack, struct tframe, tt->stack.len - 1);
	th->wait = f->wait;
	th->wait_obj = f->wait_obj;
	th->wait_ts = f->wait_ts;
	th->wait_cpu = f->wait_cpu;
	th->wait_timeout = f->wait_timeout;
	tt->stack.len--;
	return 0;
}

/* taskwait: the segment is split where the wait begins (what follows is
 * the wait's) and where it ends, and the wait is filed at its end: the
 * segment after it is what the children's ends release.  A thread that ran
 * tasks inside the wait has their bodies between the two; at the wait's
 * begin, the join would precede them on the thread, and where the epoch
 * keeps its recorded placement a child made by one of them would close a
 * cycle. */
static int on_taskwait(struct ecp_builder *b, struct bthread *th, struct tthread *tt,
		       const struct ecp_event *ev, uint64_t v)
{
	if (ev->a != 0 && ev->a != 1)
		return 0;
	if (ev->a == 1)
		task_wait(th, tt, ev, v, false);
	if (split_here(b, th, tt, ev, v) < 0)
		return -1;
	if (ev->a == 0) {
		task_wait(th, tt, ev, v, true);
		return 0;
	}
	return push_item(b->tasks, top_ctx(tt), IT_TW, 0);
}

/* taskgroup: its start opens a group in the context; its end's wait is
 * split at its begin and its end, and the group filed at its end, as a
 * taskwait is (on_taskwait). */
static int on_taskgroup(struct ecp_builder *b, struct bthread *th, struct tthread *tt,
			const struct ecp_event *ev, uint64_t v)
{
	struct ecp_task_graph *t = b->tasks;
	struct tctx *c = tctx_at(t, top_ctx(tt));
	if (ev->a == 0) {
		struct tgroup *g = ecp_vec_push(&t->groups);
		if (!g)
			return -1;
		g->ctx = top_ctx(tt);
		g->parent = c->group;
		ecp_vec_init(&g->members, sizeof(uint32_t));
		c->group = (uint32_t)(t->groups.len - 1);
		return 0;
	}
	if (ev->a == 2) {
		/* the wait ends: its group is filed here, as a taskwait */
		uint32_t g = c->tg_wait;
		task_wait(th, tt, ev, v, false);
		if (g == ECP_NO_ID)
			return 0;
		c->tg_wait = ECP_NO_ID;
		if (split_here(b, th, tt, ev, v) < 0)
			return -1;
		return push_item(t, top_ctx(tt), IT_TG_END, g);
	}
	if (ev->a != 1)
		return 0;
	if (c->group == ECP_NO_ID ||
	    ECP_VEC_AT(&t->groups, struct tgroup, c->group).ctx != top_ctx(tt)) {
		epoch_at(t, tt->epoch - 1)->irregular = true;
		return 0;
	}
	uint32_t g = c->group;
	if (split_here(b, th, tt, ev, v) < 0)
		return -1;
	c = tctx_at(t, top_ctx(tt));
	c->group = ECP_VEC_AT(&t->groups, struct tgroup, g).parent;
	c->tg_wait = g;
	task_wait(th, tt, ev, v, true);
	return 0;
}

int bld_ev_task(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		uint64_t v, struct ecp_error *err)
{
	struct ecp_task_graph *t = tasks_of(b);
	struct tthread *tt = t ? tthread_of(t, th->index) : NULL;
	int rc = 0;
	if (!tt)
		return bld_nomem(err);
	if (!tt->epoch)
		return ECP_OK; /* outside a team: its tasks are calls */
	switch (ev->type) {
	case ECP_EV_OMP_TASK_CREATE:
		rc = on_create(b, th, tt, ev, v);
		break;
	case ECP_EV_OMP_TASK_DEP:
		if (tt->last_task < t->tasks.len &&
		    ttask_at(t, tt->last_task)->id == ev->a)
			rc = add_dep(t, tt->last_task, ev->b, ev->c);
		break;
	case ECP_EV_OMP_TASK_BEGIN:
		rc = on_begin(b, th, tt, ev, v);
		break;
	case ECP_EV_OMP_TASK_END:
		rc = on_end(b, th, tt, ev, v);
		break;
	case ECP_EV_OMP_TASKWAIT:
		rc = on_taskwait(b, th, tt, ev, v);
		break;
	case ECP_EV_OMP_TASKGROUP:
		rc = on_taskgroup(b, th, tt, ev, v);
		break;
	default:
		break;
	}
	return rc < 0 ? bld_nomem(err) : ECP_OK;
}

/* The tie check's answer (task-deal.c): a deal that other deals, made on
 * lengths the recording cannot tell apart, take over ECP_TASK_TIE_WARN of
 * its makespan away from is a near tie.  The makespan is the dealt
 * stretches' time at P as large as a team; on fewer CPUs the threads
 * share them and a deal's imbalance can cost less, so the time on two is
 * given too (omp_fib's moved 0.2-8% where its makespan moved 12-31%,
 * docs/VALIDATION.md). */
static int tie_warning(const struct ecp_task_graph *t, struct ecp_model *m)
{
	uint64_t lo = t->tie_dealt_ns, hi = t->tie_dealt_ns, off = 0;
	uint64_t lo2 = t->tie_dealt_two_ns, hi2 = t->tie_dealt_two_ns;
	double bound = ECP_TASK_TIE_WARN * (double)t->tie_dealt_ns;
	for (uint32_t k = 0; k < t->tie_draws; k++) {
		uint64_t x = t->tie_drawn_ns[k], x2 = t->tie_drawn_two_ns[k];
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
		lo2 = x2 < lo2 ? x2 : lo2;
		hi2 = x2 > hi2 ? x2 : hi2;
		if (fabs((double)x - (double)t->tie_dealt_ns) > bound)
			off++;
	}
	if (!off)
		return 0;
	char two[160] = "";
	if (t->tie_team > 2)
		snprintf(two, sizeof(two),
			 " and %.4g to %.4g ms on two CPUs instead of %.4g ms",
			 (double)lo2 / 1e6, (double)hi2 / 1e6,
			 (double)t->tie_dealt_two_ns / 1e6);
	return ecp_model_add_warning(
	    m,
	    "near tie in the OpenMP task deal: dealt again with each task "
	    "segment's length moved by up to %u ns, or all by the same up to %u "
	    "ns (%u draws), its %llu tasks take "
	    "%.4g to %.4g ms on their teams' own CPUs instead of %.4g ms (%llu draws "
	    "over %.0f%% off)%s: T_P at P > 1 can move as much (a P-core run's "
	    "scheduler breaks such ties by timing)",
	    ECP_TASK_JITTER_NS, ECP_TASK_SHIFT_NS, t->tie_draws,
	    (unsigned long long)t->dealt_tasks, (double)lo / 1e6, (double)hi / 1e6,
	    (double)t->tie_dealt_ns / 1e6, (unsigned long long)off,
	    ECP_TASK_TIE_WARN * 100, two);
}

int bld_tasks_tell(const struct ecp_builder *b, struct ecp_model *m)
{
	const struct ecp_task_graph *t = b->tasks;
	if (t) {
		m->info.tasks_dealt = t->dealt_tasks;
		m->info.tasks_kept = t->kept_tasks;
		m->info.tie_draws = t->tie_draws;
	}
	if (t && t->tie_draws && tie_warning(t, m) < 0)
		return -1;
	if (!t || !t->kept_tasks)
		return 0;
	if (t->lossy)
		return ecp_model_add_warning(
		    m,
		    "%llu OpenMP tasks kept on the threads and in the order the "
		    "recording "
		    "ran them, without their dependencies (the trace lost events)",
		    (unsigned long long)t->kept_tasks);
	return ecp_model_add_warning(
	    m,
	    "%llu OpenMP tasks (of %llu) ran between team barriers where something "
	    "else than tasks synchronized or slept (a lock, a sleep, a dynamic loop, "
	    "a nested region) or a task did not end: kept on the threads and in the "
	    "order the recording ran them, with their dependencies, not dealt out "
	    "again as P processors would",
	    (unsigned long long)t->kept_tasks,
	    (unsigned long long)(t->kept_tasks + t->dealt_tasks));
}
