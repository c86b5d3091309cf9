/* SPDX-License-Identifier: MIT */
/* OpenMP dynamic and guided loops (ecp:omp_chunk, recorder/agent/agent-omp.c).
 *
 * The other OpenMP constructs arrive as the events of the primitives they
 * mean (once, semaphore, barrier, mutex).  A dynamic loop is different:
 * the next free thread takes the next chunk, so which thread ran which
 * chunk on the one recording CPU is an artefact of time slices, and a
 * prediction must deal the chunks out again as P processors would, as lock
 * hand-offs are re-decided.
 *
 * Each thread's part of a loop (from its first chunk to the `done` that
 * finds none left) becomes a segment of its own, and each chunk's CPU time
 * is measured, in the order the chunks were handed out.  At finish, once
 * the steal is taken out (builder-clock-scale.c; each chunk's time on the
 * clock of the thread that ran it, where it ran: dealt before, the
 * segments after a resized one would be mapped through the readings of
 * another stretch of the thread), the chunks are dealt again in that
 * order, each to the thread that is free first, all threads starting
 * together; the threads' loop segments get the lengths that gives (their
 * time outside the chunks kept), and their function times are scaled with
 * them.  Under ideal processor sharing all the team's threads progress at
 * the same rate on any P, so this is the assignment of every P: the model
 * stays one for all P.  A loop whose chunks synchronize (a lock inside) is
 * left as recorded. */
#include <stdlib.h>
#include <string.h>

#include "simulator/trace/builder-internal.h"

struct loop_part {
	ecp_id thread;
	ecp_id seg; /* its loop segment (temporary id) */
};

/* A chunk where it ran on its thread's CPU line, so that its time is
 * scaled to the thread's own clock as the segments around it are. */
struct loop_chunk {
	uint64_t start; /* on the thread's CPU line, as a segment's cpu_start */
	uint64_t ns;
	ecp_id thread;
	uint32_t part; /* the loop part that ran it (once its `done`), or ECP_NO_ID */
};

struct bloop {
	struct ecp_vec chunks; /* struct loop_chunk, in hand-out order */
	struct ecp_vec parts;  /* struct loop_part */
	bool irregular;        /* a part spans more than one segment */
};

struct loop_thread {
	uint64_t loop;      /* the loop it is in, 0 when none */
	size_t seg_first;   /* th->segs.len when its loop segment began */
	size_t chunk_first; /* the loop's chunk count then */
	size_t chunk;       /* index of its running chunk in the loop's list */
	bool in_chunk;
	uint64_t v_chunk; /* CPU clock at the chunk's hand-out */
};

struct bld_omp {
	struct ecp_vec loops; /* struct bloop */
	struct ecp_hmap loop_by_id;
	struct ecp_vec threads; /* struct loop_thread, by thread index */
};

void bld_omp_free(struct bld_omp *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->loops.len; i++) {
		ecp_vec_finish(&ECP_VEC_AT(&o->loops, struct bloop, i).chunks);
		ecp_vec_finish(&ECP_VEC_AT(&o->loops, struct bloop, i).parts);
	}
	ecp_vec_finish(&o->loops);
	ecp_hmap_finish(&o->loop_by_id);
	ecp_vec_finish(&o->threads);
	free(o);
}

static struct loop_thread *loop_thread(struct bld_omp *o, ecp_id index)
{
	while (o->threads.len <= index) {
		struct loop_thread *t = ecp_vec_push(&o->threads);
		if (!t)
			return NULL;
		memset(t, 0, sizeof(*t));
	}
	return &ECP_VEC_AT(&o->threads, struct loop_thread, index);
}

static struct bloop *loop_of(struct bld_omp *o, uint64_t id)
{
	uint64_t *i = ecp_hmap_get(&o->loop_by_id, id);
	if (i)
		return &ECP_VEC_AT(&o->loops, struct bloop, *i);
	struct bloop *l = ecp_vec_push(&o->loops);
	if (!l || ecp_hmap_put(&o->loop_by_id, id, o->loops.len - 1) < 0)
		return NULL;
	ecp_vec_init(&l->chunks, sizeof(struct loop_chunk));
	ecp_vec_init(&l->parts, sizeof(struct loop_part));
	l->irregular = false;
	return l;
}

/* The running chunk ends at CPU clock v. */
static void end_chunk(struct bloop *l, struct loop_thread *lt, uint64_t v)
{
	if (!lt->in_chunk)
		return;
	ECP_VEC_AT(&l->chunks, struct loop_chunk, lt->chunk).ns = sat_sub(v, lt->v_chunk);
	lt->in_chunk = false;
}

int bld_ev_omp_chunk(struct ecp_builder *b, struct bthread *th,
		     const struct ecp_event *ev, uint64_t v, struct ecp_error *err)
{
	if (!b->omp) {
		b->omp = calloc(1, sizeof(*b->omp));
		if (!b->omp)
			return bld_nomem(err);
		ecp_vec_init(&b->omp->loops, sizeof(struct bloop));
		ecp_hmap_init(&b->omp->loop_by_id);
		ecp_vec_init(&b->omp->threads, sizeof(struct loop_thread));
	}
	struct loop_thread *lt = loop_thread(b->omp, th->index);
	struct bloop *l = lt ? loop_of(b->omp, ev->a) : NULL;
	if (!l)
		return bld_nomem(err);
	if (lt->loop != ev->a) {
		/* its first chunk (or `done` at once): the loop segment begins */
		if (bld_close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return bld_nomem(err);
		lt->loop = ev->a;
		lt->seg_first = th->segs.len;
		lt->chunk_first = l->chunks.len;
		lt->in_chunk = false;
	}
	end_chunk(l, lt, v);
	if (!ev->b) {
		struct loop_chunk *c = ecp_vec_push(&l->chunks);
		if (!c)
			return bld_nomem(err);
		*c = (struct loop_chunk){.start = sat_sub(v, th->v_start),
					 .ns = 0,
					 .thread = th->index,
					 .part = ECP_NO_ID};
		lt->chunk = l->chunks.len - 1;
		lt->v_chunk = v;
		lt->in_chunk = true;
		return ECP_OK;
	}
	ecp_id seg = bld_close_segment(b, th, ev->ts, v, ECP_NO_ID);
	if (seg == ECP_NO_ID)
		return bld_nomem(err);
	if (th->segs.len != lt->seg_first + 1)
		l->irregular = true;
	struct loop_part *p = ecp_vec_push(&l->parts);
	if (!p)
		return bld_nomem(err);
	p->thread = th->index;
	p->seg = seg;
	for (size_t k = lt->chunk_first; k < l->chunks.len; k++) {
		struct loop_chunk *c = &ECP_VEC_AT(&l->chunks, struct loop_chunk, k);
		if (c->thread == th->index && c->part == ECP_NO_ID)
			c->part = (uint32_t)(l->parts.len - 1);
	}
	lt->loop = 0;
	return ECP_OK;
}

/* Gives thread part `p` a loop segment of `length`: its function times
 * scale with it (or, when it ran no chunk in the recording, the new time is
 * its start routine's), and its later segments and calls start later or
 * earlier by the difference. */
static void resize(struct ecp_builder *b, const struct loop_part *p, uint64_t length)
{
	struct ecp_segment_record *seg =
	    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, p->seg);
	struct bthread *th = thread_at(b, p->thread);
	uint64_t old = seg->length, old_end = seg->cpu_start + old;
	seg->length = length;
	/* the chunks it got are not what its own clock counted */
	th->dealt_ns += (int64_t)length - (int64_t)old;
	if (old) {
		bld_rescale_activities(b, p->seg, old, th->start_fn);
	} else {
		for (uint32_t a = 0; a < seg->n_activity; a++) {
			struct ecp_activity *act =
			    &ECP_VEC_AT(&b->activities, struct ecp_activity,
					bld_first_activity(b, p->seg) + a);
			if (act->function == th->start_fn)
				act->self_ns = act->incl_ns = length;
		}
	}
	bool after = false;
	for (size_t k = 0; k < th->segs.len; k++) {
		ecp_id s = ECP_VEC_AT(&th->segs, uint32_t, k);
		if (after) {
			struct ecp_segment_record *later =
			    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, s);
			later->cpu_start = later->cpu_start - old + length;
		}
		if (s == p->seg)
			after = true;
	}
	for (size_t i = 0; i < b->calls.len; i++) {
		struct ecp_call *c = &ECP_VEC_AT(&b->calls, struct ecp_call, i);
		if (c->thread != p->thread || c->enter < old_end)
			continue;
		c->enter = c->enter - old + length;
		c->exit = c->exit - old + length;
	}
}

int bld_omp_finish(struct ecp_builder *b)
{
	struct bld_omp *o = b->omp;
	for (size_t i = 0; o && i < o->loops.len; i++) {
		struct bloop *l = &ECP_VEC_AT(&o->loops, struct bloop, i);
		size_t n = l->parts.len;
		if (l->irregular || n < 2)
			continue;
		uint64_t *free_at = calloc(n, sizeof(*free_at));
		uint64_t *own = calloc(n, sizeof(*own));
		if (!free_at || !own) {
			free(free_at);
			free(own);
			return -1;
		}
		for (size_t k = 0; k < l->chunks.len; k++) {
			const struct loop_chunk *c =
			    &ECP_VEC_AT(&l->chunks, struct loop_chunk, k);
			uint64_t ns =
			    bld_scaled_length(thread_at(b, c->thread), c->start, c->ns);
			if (c->part != ECP_NO_ID)
				own[c->part] += ns;
			size_t best = 0;
			for (size_t j = 1; j < n; j++)
				if (free_at[j] < free_at[best])
					best = j;
			free_at[best] += ns;
		}
		for (size_t j = 0; j < n; j++) {
			const struct loop_part *p =
			    &ECP_VEC_AT(&l->parts, struct loop_part, j);
			uint64_t old =
			    ECP_VEC_AT(&b->segments, struct ecp_segment_record, p->seg)
				.length;
			resize(b, p, sat_sub(old, own[j]) + free_at[j]);
		}
		free(free_at);
		free(own);
	}
	return 0;
}
