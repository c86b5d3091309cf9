/* SPDX-License-Identifier: MIT */
/* OpenMP tasks at finish: each epoch with tasks dealt out again
 * (simulator/model/task-deal.c), then the task graph's edges, and the dealt
 * threads' segment lists, CPU-time starts and calls put in their new
 * order.  An epoch that could not be dealt keeps the recorded placement,
 * with the same edges (the recording obeyed them). */
#include <stdlib.h>
#include <string.h>

#include "simulator/model/task-graph.h"
#include "simulator/trace/builder-internal.h"

struct graph {
	struct ecp_builder *b;
	struct ecp_task_graph *tk;
	uint32_t *first_s, *last_s; /* by task: its body's first and last segment */
};

static int edge(struct graph *g, uint32_t from, uint32_t to, uint32_t kind)
{
	if (from == ECP_NO_ID || to == ECP_NO_ID)
		return 0;
	const struct ecp_segment_record *f =
	    &ECP_VEC_AT(&g->b->segments, struct ecp_segment_record, from);
	const struct ecp_segment_record *t =
	    &ECP_VEC_AT(&g->b->segments, struct ecp_segment_record, to);
	if (f->thread == t->thread)
		return 0; /* the thread's order holds it */
	return bld_add_edge(g->b, from, to, kind);
}

/* A context's edges: creation -> each child's start; after a taskwait the
 * children made since the last one, after a taskgroup's end its tasks ->
 * the next segment. */
static int ctx_edges(struct graph *g, uint32_t ctx)
{
	const struct tctx *c = tctx_at(g->tk, ctx);
	uint32_t last = ECP_NO_ID, group = ECP_NO_ID;
	size_t made = 0, waited = 0, upto = 0;
	bool tw = false;
	for (size_t i = 0; i < c->items.len; i++) {
		const struct titem *it = &ECP_VEC_AT(&c->items, struct titem, i);
		if (it->kind == IT_CREATE) {
			made++;
			if (edge(g, last, g->first_s[it->arg], ECP_EDGE_CREATE) < 0)
				return -1;
		} else if (it->kind == IT_TW) {
			tw = true;
			upto = made;
		} else if (it->kind == IT_TG_END) {
			group = it->arg;
		} else {
			for (; tw && waited < upto; waited++) {
				uint32_t ch = ECP_VEC_AT(&c->children, uint32_t, waited);
				if (edge(g, g->last_s[ch], it->arg, ECP_EDGE_JOIN) < 0)
					return -1;
			}
			const struct tgroup *gr =
			    group == ECP_NO_ID
				? NULL
				: &ECP_VEC_AT(&g->tk->groups, struct tgroup, group);
			for (size_t k = 0; gr && k < gr->members.len; k++)
				if (edge(g,
					 g->last_s[ECP_VEC_AT(&gr->members, uint32_t, k)],
					 it->arg, ECP_EDGE_JOIN) < 0)
					return -1;
			tw = false;
			group = ECP_NO_ID;
			last = it->arg;
		}
	}
	return 0;
}

/* The barrier ending the epoch waits for the whole team and its tasks:
 * each thread's last segment in it -> every other thread's first after. */
static int barrier_edges(struct graph *g, const struct tepoch *ep)
{
	for (size_t k = 0; k < ep->threads.len; k++) {
		const struct ep_thread *a =
		    &ECP_VEC_AT(&ep->threads, struct ep_thread, k);
		const struct bthread *ta = thread_at(g->b, a->thread);
		uint32_t last =
		    ep->dealt
			? (a->seq.len ? ECP_VEC_AT(&a->seq, uint32_t, a->seq.len - 1)
				      : ECP_NO_ID)
		    : a->hi > a->lo ? ECP_VEC_AT(&ta->segs, uint32_t, a->hi - 1)
				    : ECP_NO_ID;
		if (!a->at_barrier)
			continue;
		for (size_t m = 0; m < ep->threads.len; m++) {
			const struct ep_thread *o =
			    &ECP_VEC_AT(&ep->threads, struct ep_thread, m);
			const struct bthread *to = thread_at(g->b, o->thread);
			if (m == k || !o->at_barrier || o->hi >= to->segs.len)
				continue;
			if (edge(g, last, ECP_VEC_AT(&to->segs, uint32_t, o->hi),
				 ECP_EDGE_BARRIER) < 0)
				return -1;
		}
	}
	return 0;
}

static int all_edges(struct graph *g, const uint32_t *first, const uint32_t *tasks)
{
	for (size_t i = 0; i < g->tk->tasks.len; i++) {
		const struct tctx *c = tctx_at(g->tk, ttask_at(g->tk, (uint32_t)i)->ctx);
		g->first_s[i] = g->last_s[i] = ECP_NO_ID;
		for (size_t k = 0; k < c->items.len; k++) {
			const struct titem *it = &ECP_VEC_AT(&c->items, struct titem, k);
			if (it->kind != IT_SEG)
				continue;
			if (g->first_s[i] == ECP_NO_ID)
				g->first_s[i] = it->arg;
			g->last_s[i] = it->arg;
		}
	}
	for (size_t e = 0; e < g->tk->epochs.len; e++) {
		const struct tepoch *ep = &ECP_VEC_AT(&g->tk->epochs, struct tepoch, e);
		if (first[e + 1] == first[e])
			continue;
		for (size_t k = 0; k < ep->threads.len; k++)
			if (ctx_edges(
				g, ECP_VEC_AT(&ep->threads, struct ep_thread, k).ctx) < 0)
				return -1;
		for (uint32_t i = first[e]; i < first[e + 1]; i++) {
			const struct ttask *t = ttask_at(g->tk, tasks[i]);
			if (ctx_edges(g, t->ctx) < 0)
				return -1;
			for (size_t k = 0; k < t->preds.len; k++)
				if (edge(g, g->last_s[ECP_VEC_AT(&t->preds, uint32_t, k)],
					 g->first_s[tasks[i]], ECP_EDGE_JOIN) < 0)
					return -1;
		}
		if (barrier_edges(g, ep) < 0)
			return -1;
	}
	return 0;
}

struct splice {
	ecp_id thread;
	const struct ep_thread *et;
};

static int cmp_splice(const void *a, const void *b)
{
	const struct splice *x = a, *y = b;
	if (x->thread != y->thread)
		return (x->thread > y->thread) - (x->thread < y->thread);
	return (x->et->lo > y->et->lo) - (x->et->lo < y->et->lo);
}

/* A call's times follow the segment its entry was in. */
static void move_calls(struct ecp_builder *b, const uint64_t *old_start,
		       const uint32_t *old_thread, const struct ecp_vec *old_segs)
{
	for (size_t i = 0; i < b->calls.len; i++) {
		struct ecp_call *c = &ECP_VEC_AT(&b->calls, struct ecp_call, i);
		const struct ecp_vec *l = &old_segs[c->thread];
		size_t lo = 0, hi = l->len;
		if (!l->data || !hi)
			continue;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (old_start[ECP_VEC_AT(l, uint32_t, mid)] <= c->enter)
				lo = mid;
			else
				hi = mid;
		}
		uint32_t s = ECP_VEC_AT(l, uint32_t, lo);
		const struct ecp_segment_record *seg =
		    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, s);
		if (old_thread[s] != c->thread)
			continue;
		int64_t delta = (int64_t)seg->cpu_start - (int64_t)old_start[s];
		c->thread = seg->thread;
		c->enter = (uint64_t)((int64_t)c->enter + delta);
		c->exit = (uint64_t)((int64_t)c->exit + delta);
		if (c->exit < c->enter)
			c->exit = c->enter;
	}
}

/* One thread's list with its dealt epochs' ranges replaced, its segments'
 * CPU-time starts recomputed from the first change on. */
static int splice_thread(struct ecp_builder *b, const struct splice *sp, size_t n)
{
	struct bthread *th = thread_at(b, sp[0].thread);
	struct ecp_vec out;
	size_t at = 0;
	int64_t moved = 0;
	ecp_vec_init(&out, sizeof(uint32_t));
	for (size_t i = 0; i <= n; i++) {
		size_t upto = i < n ? sp[i].et->lo : th->segs.len;
		for (; at < upto; at++) {
			uint32_t *p = ecp_vec_push(&out);
			if (!p)
				return -1;
			*p = ECP_VEC_AT(&th->segs, uint32_t, at);
		}
		if (i == n)
			break;
		for (; at < sp[i].et->hi; at++)
			moved -=
			    (int64_t)ECP_VEC_AT(&b->segments, struct ecp_segment_record,
						ECP_VEC_AT(&th->segs, uint32_t, at))
				.length;
		for (size_t k = 0; k < sp[i].et->seq.len; k++) {
			uint32_t *p = ecp_vec_push(&out),
				 s = ECP_VEC_AT(&sp[i].et->seq, uint32_t, k);
			if (!p)
				return -1;
			*p = s;
			moved += (int64_t)ECP_VEC_AT(&b->segments,
						     struct ecp_segment_record, s)
				     .length;
		}
	}
	for (size_t k = sp[0].et->lo; k < out.len; k++) {
		struct ecp_segment_record *s =
		    &ECP_VEC_AT(&b->segments, struct ecp_segment_record,
				ECP_VEC_AT(&out, uint32_t, k));
		const struct ecp_segment_record *prev =
		    k ? &ECP_VEC_AT(&b->segments, struct ecp_segment_record,
				    ECP_VEC_AT(&out, uint32_t, k - 1))
		      : NULL;
		if (prev)
			s->cpu_start = prev->cpu_start + prev->length;
	}
	ecp_vec_finish(&th->segs);
	th->segs = out;
	th->dealt_ns += moved;
	if (out.len) {
		th->first_seg = ECP_VEC_AT(&out, uint32_t, 0);
		th->last_seg = ECP_VEC_AT(&out, uint32_t, out.len - 1);
	}
	return 0;
}

static int splice_all(struct ecp_builder *b)
{
	struct ecp_task_graph *tk = b->tasks;
	size_t n = 0;
	for (size_t e = 0; e < tk->epochs.len; e++) {
		const struct tepoch *ep = &ECP_VEC_AT(&tk->epochs, struct tepoch, e);
		n += ep->dealt ? ep->threads.len : 0;
	}
	struct splice *sp = malloc((n ? n : 1) * sizeof(*sp));
	if (!sp)
		return -1;
	n = 0;
	for (size_t e = 0; e < tk->epochs.len; e++) {
		const struct tepoch *ep = &ECP_VEC_AT(&tk->epochs, struct tepoch, e);
		for (size_t k = 0; ep->dealt && k < ep->threads.len; k++) {
			sp[n].et = &ECP_VEC_AT(&ep->threads, struct ep_thread, k);
			sp[n].thread = sp[n].et->thread;
			n++;
		}
	}
	qsort(sp, n, sizeof(*sp), cmp_splice);
	int rc = 0;
	for (size_t i = 0, j; i < n && !rc; i = j) {
		for (j = i; j < n && sp[j].thread == sp[i].thread;)
			j++;
		rc = splice_thread(b, sp + i, j - i);
	}
	free(sp);
	return rc;
}

/* Where each segment was before the deal: its thread (for its start
 * routine), and with calls to move its start and each thread's list. */
struct before {
	uint64_t *start; /* NULL without calls */
	uint32_t *thread;
	struct ecp_vec *segs; /* by thread: its segment list; NULL without calls */
};

static void before_free(struct before *o, size_t n_threads)
{
	for (size_t i = 0; o->segs && i < n_threads; i++)
		ecp_vec_finish(&o->segs[i]);
	free(o->segs);
	free(o->start);
	free(o->thread);
}

static int before_take(struct ecp_builder *b, struct before *o, bool calls)
{
	size_t n = b->segments.len ? b->segments.len : 1;
	o->thread = malloc(n * sizeof(uint32_t));
	if (!o->thread)
		return -1;
	if (calls) {
		o->start = malloc(n * sizeof(uint64_t));
		o->segs =
		    calloc(b->threads.len ? b->threads.len : 1, sizeof(struct ecp_vec));
		if (!o->start || !o->segs)
			return -1;
	}
	for (size_t i = 0; i < b->segments.len; i++) {
		const struct ecp_segment_record *s =
		    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, i);
		if (calls)
			o->start[i] = s->cpu_start;
		o->thread[i] = s->thread;
	}
	for (size_t i = 0; calls && i < b->threads.len; i++) {
		const struct bthread *th = thread_at(b, (ecp_id)i);
		ecp_vec_init(&o->segs[i], sizeof(uint32_t));
		if (th->segs.len && ecp_vec_reserve(&o->segs[i], th->segs.len) < 0)
			return -1;
		if (th->segs.len)
			memcpy(o->segs[i].data, th->segs.data,
			       th->segs.len * sizeof(uint32_t));
		o->segs[i].len = th->segs.len;
	}
	return 0;
}

/* A dealt segment with no activity of its own (its thread's start
 * routine's, model.h) that the deal moved to a thread with another start
 * routine keeps the one it ran in.  Returns -1 out of memory. */
static int keep_start_routines(struct ecp_builder *b, const uint32_t *before)
{
	for (size_t i = 0; i < b->segments.len; i++) {
		struct ecp_segment_record *seg =
		    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, i);
		if (seg->n_activity || seg->thread == before[i])
			continue;
		ecp_id was = thread_at(b, before[i])->start_fn;
		if (thread_at(b, seg->thread)->start_fn != was &&
		    bld_write_out_activity(b, (ecp_id)i, was) < 0)
			return -1;
	}
	return 0;
}

/* Each epoch's tasks, by epoch: tasks[first[e], first[e+1]). */
static int by_epoch(struct ecp_task_graph *tk, uint32_t **first, uint32_t **tasks)
{
	size_t ne = tk->epochs.len, nt = tk->tasks.len;
	*first = calloc(ne + 2, sizeof(uint32_t));
	*tasks = malloc((nt ? nt : 1) * sizeof(uint32_t));
	uint32_t *fill = calloc(ne + 1, sizeof(uint32_t));
	if (!*first || !*tasks || !fill) {
		free(fill);
		return -1;
	}
	for (size_t i = 0; i < nt; i++)
		(*first)[ttask_at(tk, (uint32_t)i)->epoch + 1]++;
	for (size_t e = 0; e < ne; e++)
		(*first)[e + 1] += (*first)[e];
	memcpy(fill, *first, (ne + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < nt; i++)
		(*tasks)[fill[ttask_at(tk, (uint32_t)i)->epoch]++] = (uint32_t)i;
	free(fill);
	return 0;
}

int bld_tasks_finish(struct ecp_builder *b)
{
	struct ecp_task_graph *tk = b->tasks;
	if (!tk || !tk->tasks.len)
		return 0;
	if (b->warn[WARN_INCONSISTENT]) {
		/* a lossy trace analysed anyway: a task's missing begin or end
		 * would misplace its edges, which could close a cycle */
		tk->kept_tasks = tk->tasks.len;
		tk->lossy = true;
		return 0;
	}
	if (ecp_task_spawn_sites(tk, b->segments.data, &tk->sites, &tk->n_sites) < 0)
		return -1;
	uint32_t *first = NULL, *tasks = NULL;
	struct before old = {0};
	struct graph g = {b, tk, NULL, NULL};
	size_t nt = tk->tasks.len;
	int rc = by_epoch(tk, &first, &tasks);
	if (!rc)
		rc = before_take(b, &old, b->calls.len > 0);
	g.first_s = malloc(nt * sizeof(uint32_t));
	g.last_s = malloc(nt * sizeof(uint32_t));
	if (!g.first_s || !g.last_s)
		rc = -1;
	if (!rc)
		rc = ecp_task_deal_all(tk, b->segments.data, first, tasks);
	if (!rc)
		rc = keep_start_routines(b, old.thread);
	if (!rc)
		rc = all_edges(&g, first, tasks);
	if (!rc)
		rc = splice_all(b);
	if (!rc && old.segs)
		move_calls(b, old.start, old.thread, old.segs);
	before_free(&old, b->threads.len);
	free(g.first_s);
	free(g.last_s);
	free(first);
	free(tasks);
	return rc;
}

int bld_tasks_take_sites(struct ecp_builder *b, struct ecp_model *m)
{
	struct ecp_task_graph *tk = b->tasks;
	if (!tk || !tk->sites)
		return 0;
	m->spawn_sites = tk->sites;
	m->n_spawn_sites = tk->n_sites;
	tk->sites = NULL;
	tk->n_sites = 0;
	return 0;
}
