/* SPDX-License-Identifier: MIT */
/* Builder: threads -- start (and exec), create, join. */
#include "simulator/trace/builder-internal.h"

#include <stdlib.h>

static struct bthread *thread_new(struct ecp_builder *b, const struct ecp_event *ev)
{
	struct bthread *th = calloc(1, sizeof(*th));
	struct bthread **slot = th ? ecp_vec_push(&b->threads) : NULL;
	if (!slot) {
		free(th);
		return NULL;
	}
	*slot = th;
	th->tid = ev->tid;
	th->index = (ecp_id)(b->threads.len - 1);
	th->parent = ECP_NO_ID;
	th->seg_lock = ECP_NO_ID;
	th->first_seg = th->last_seg = ECP_NO_ID;
	th->cond_from = th->barrier_from = th->futex_from = ECP_NO_ID;
	ecp_vec_init(&th->pend, sizeof(struct pend_edge));
	ecp_vec_init(&th->timeout_segs, sizeof(struct timeout_seg));
	ecp_vec_init(&th->clock_knots, sizeof(struct clock_knot));
	ecp_vec_init(&th->child_waits, sizeof(uint32_t));
	ecp_vec_init(&th->segs, sizeof(uint32_t));
	ecp_vec_init(&th->frames, sizeof(struct frame));
	ecp_vec_init(&th->acts, sizeof(struct act_slot));
	ecp_hmap_init(&th->depth);
	ecp_hmap_init(&th->act_idx);
	ecp_vec_init(&th->samp, sizeof(ecp_id));
	ecp_vec_init(&th->samp_since, sizeof(uint64_t));
	uint64_t *sl = ecp_hmap_get(&b->sched_by_tid, ev->tid);
	if (sl)
		th->sched = ECP_VEC_AT(&b->sched_lists, struct sched_list *, *sl);
	else if (b->any_switch)
		b->warn[WARN_NO_SWITCHES]++;
	if (ecp_hmap_put(&b->thread_by_tid, ev->tid, th->index) < 0)
		return NULL;
	tid_cache_set(&b->thread_cache, ev->tid, th->index);
	return th;
}

void bld_thread_free(struct bthread *th)
{
	if (!th)
		return;
	ecp_vec_finish(&th->pend);
	ecp_vec_finish(&th->timeout_segs);
	ecp_vec_finish(&th->clock_knots);
	ecp_vec_finish(&th->child_waits);
	ecp_vec_finish(&th->segs);
	ecp_vec_finish(&th->frames);
	ecp_vec_finish(&th->acts);
	ecp_hmap_finish(&th->depth);
	ecp_hmap_finish(&th->act_idx);
	ecp_vec_finish(&th->samp);
	ecp_vec_finish(&th->samp_since);
	free(th);
}

/* A main thread starting again in its own process is an exec: a wrapper
 * (sh -c, env, a launcher script) replaced itself with the program.  The
 * final image is what is analysed: the thread's accumulating segment
 * starts again at the exec (the wrappers' own start-up, mostly LTTng-UST's
 * ~5 ms per image, is dropped), the old image's open frames are closed,
 * and the new `main` is the start function. */
static int ev_exec(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		   struct ecp_error *err)
{
	uint64_t v = bld_cpu_clock(b, th, ev);
	while (th->frames.len)
		if (bld_pop_frame(b, th, v > th->f_last ? v : th->f_last, 0) < 0)
			return bld_nomem(err);
	ecp_id fn = bld_start_function(b, ev->b);
	if (fn == ECP_NO_ID)
		return bld_nomem(err);
	/* the old image's segments stay its start routine's */
	for (size_t k = 0; k < th->segs.len; k++)
		if (bld_write_out_activity(b, ECP_VEC_AT(&th->segs, uint32_t, k),
					   th->start_fn) < 0)
			return bld_nomem(err);
	th->start_fn = fn;
	bld_acts_reset(th);
	th->v_start = th->seg_v0 = th->f_last = v;
	th->seg_wall0 = th->seg_rec_start = th->last_ts = ev->ts;
	th->n_events++;
	if (th->sched && b->opts.clock == ECP_CLOCK_PERF_SWITCH) {
		th->clock_first = ev->cpu_ns;
		th->sched_first = bld_sched_cpu_at(th->sched, ev->ts);
		th->clock_knots.len = 0; /* the old image's, before the first */
	}
	/* (the old image's handle stays mapped: nothing can join it) */
	th->handle = ev->c;
	if (ecp_hmap_put(&b->thread_by_handle, th->handle, th->index) < 0)
		return bld_nomem(err);
	return ECP_OK;
}

int bld_ev_thread_start(struct ecp_builder *b, const struct ecp_event *ev,
			struct ecp_error *err)
{
	uint64_t *ti = ecp_hmap_get(&b->thread_by_tid, ev->tid);
	if (ti && !thread_at(b, (ecp_id)*ti)->exited) {
		if (ev->a == 0)
			return ev_exec(b, thread_at(b, (ecp_id)*ti), ev, err);
		int rc = bld_inconsistent(b, err, ev,
					  "thread_start of a thread already started");
		return rc > 0 ? ECP_OK : rc; /* skipped */
	}
	struct bthread *th = thread_new(b, ev);
	if (!th)
		return bld_nomem(err);
	th->handle = ev->c;
	/* a thread other than main with start_routine 0 gets function 0x0 */
	th->start_fn =
	    ev->a == 0 ? bld_start_function(b, ev->b) : bld_function_of(b, ev->b);
	if (th->start_fn == ECP_NO_ID)
		return bld_nomem(err);
	if (ecp_hmap_put(&b->thread_by_handle, th->handle, th->index) < 0)
		return bld_nomem(err);
	th->last_ts = ev->ts;
	if (th->sched && b->opts.clock == ECP_CLOCK_PERF_SWITCH) {
		th->clock_first = ev->cpu_ns;
		th->sched_first = bld_sched_cpu_at(th->sched, ev->ts);
	}
	uint64_t v = bld_cpu_clock(b, th, ev);
	th->v_start = th->seg_v0 = th->f_last = v;
	th->n_events = 1; /* the thread_start event itself */
	th->n_func_events = 0;
	th->seg_wall0 = th->seg_rec_start = ev->ts;
	bld_samples_attach(b, th, ev->ts);
	if (ev->a != 0) {
		uint64_t *p = ecp_hmap_get(&b->create_parent, ev->a);
		if (p && *p != UINT64_MAX) {
			/* parent's segment that ended at pthread_create */
			if (bld_pend_edge(th, (ecp_id)(*p & 0xffffffffu),
					  ECP_EDGE_CREATE) < 0)
				return bld_nomem(err);
			th->parent = (ecp_id)(*p >> 32);
			*p = UINT64_MAX; /* matched */
		} else if (ecp_hmap_put(&b->create_child, ev->a, th->index) < 0) {
			return bld_nomem(err);
		}
	}
	return ECP_OK;
}

int bld_ev_thread_create(struct ecp_builder *b, struct bthread *th,
			 const struct ecp_event *ev, uint64_t v, struct ecp_error *err)
{
	if (!ev->c)
		return ECP_OK; /* pthread_create failed: nothing started */
	ecp_id seg = bld_close_segment(b, th, ev->ts, v, ECP_NO_ID);
	if (seg == ECP_NO_ID)
		return bld_nomem(err);
	uint64_t *ci = ecp_hmap_get(&b->create_child, ev->a);
	if (ci && *ci != UINT64_MAX) {
		/* The child ran before pthread_create returned (one CPU). */
		struct bthread *child = thread_at(b, (ecp_id)*ci);
		child->parent = th->index;
		int rc = child->first_seg != ECP_NO_ID
			     ? bld_add_edge(b, seg, child->first_seg, ECP_EDGE_CREATE)
			     : bld_pend_edge(child, seg, ECP_EDGE_CREATE);
		if (rc < 0)
			return bld_nomem(err);
		*ci = UINT64_MAX; /* matched */
	} else if (ecp_hmap_put(&b->create_parent, ev->a,
				((uint64_t)th->index << 32) | seg) < 0) {
		return bld_nomem(err);
	}
	return ECP_OK;
}

int bld_ev_join(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		uint64_t v, struct ecp_error *err)
{
	if (ev->type == ECP_EV_THREAD_JOIN_BEGIN) {
		if (bld_close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return bld_nomem(err);
		bld_begin_wait(b, th, ev, W_JOIN, ev->a, v);
		return ECP_OK;
	}
	int rc = bld_end_wait(b, th, ev, W_JOIN, err);
	if (rc < 0)
		return rc;
	if (ev->b) {
		uint64_t *ji = ecp_hmap_get(&b->thread_by_handle, ev->a);
		struct bthread *jt = ji ? thread_at(b, (ecp_id)*ji) : NULL;
		if (jt && jt->exited && jt->last_seg != ECP_NO_ID) {
			if (bld_pend_edge(th, jt->last_seg, ECP_EDGE_JOIN) < 0)
				return bld_nomem(err);
		} else {
			b->warn[WARN_JOIN_UNKNOWN]++;
		}
	}
	bld_open_segment(th, ev->ts, ECP_NO_ID, 0, 0);
	return ECP_OK;
}
