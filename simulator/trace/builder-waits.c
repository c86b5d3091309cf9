/* SPDX-License-Identifier: MIT */
/* Builder: waits on another thread's signal -- condition variables,
 * semaphores, barriers, once-initialization. */
#include "simulator/trace/builder-internal.h"

#include <errno.h>
#include <string.h>

/* sem_wait_begin's timeout_ns for sem_trywait (recorder/EVENTS.md) */
#define SEM_TRY UINT64_MAX

int bld_ev_cond(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		uint64_t v, struct ecp_error *err)
{
	struct bcond *c = bld_object_of(&b->conds, &b->cond_by_addr, ev->a, NULL);
	if (!c)
		return bld_nomem(err);
	if (!c->waiters.elem_size)
		ecp_vec_init(&c->waiters, sizeof(ecp_id));
	switch (ev->type) {
	case ECP_EV_COND_WAIT_BEGIN: {
		struct block *l = bld_lock_of(b, ev->b, ECP_LOCK_MUTEX);
		if (!l)
			return bld_nomem(err);
		ecp_id seg;
		int rc = bld_release(b, th, ev, l, v, err, &seg);
		if (rc < 0)
			return rc;
		if (seg == ECP_NO_ID &&
		    bld_close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return bld_nomem(err);
		bld_begin_wait(b, th, ev, W_COND, ev->a, v);
		th->wait_timeout = ev->c;
		th->cond_woken = false;
		th->cond_from = ECP_NO_ID;
		ecp_id *w = ecp_vec_push(&c->waiters);
		if (!w)
			return bld_nomem(err);
		*w = th->index;
		return ECP_OK;
	}
	case ECP_EV_COND_WAIT_END: {
		int rc = bld_end_wait(b, th, ev, W_COND, err);
		if (rc < 0)
			return rc;
		ecp_id *w = c->waiters.data;
		for (size_t i = 0; i < c->waiters.len; i++) {
			if (w[i] == th->index) {
				memmove(&w[i], &w[i + 1],
					(c->waiters.len - i - 1) * sizeof(*w));
				c->waiters.len--;
				break;
			}
		}
		uint64_t d = 0;
		if (th->cond_woken) {
			if (bld_pend_edge(th, th->cond_from, ECP_EDGE_COND) < 0)
				return bld_nomem(err);
			bld_woken_on(b, th, ev->a);
		} else if ((int64_t)ev->c == ETIMEDOUT) {
			d = bld_timeout_delay(b, th, ev->ts, v);
			bld_timed_out(b, th, ev->a, d);
		} else {
			b->warn[WARN_COND_UNWOKEN]++;
		}
		struct block *l = bld_lock_of(b, ev->b, ECP_LOCK_MUTEX);
		if (!l)
			return bld_nomem(err);
		bld_take_lock(b, th, l, ECP_LOCK_EXCLUSIVE);
		bld_open_segment(th, ev->ts, bld_lock_id(b, l), ECP_LOCK_EXCLUSIVE, d);
		bld_delay_kind(th, d, ECP_DELAY_TIMED_OUT);
		if (bld_acquired(b, th, l, ECP_LOCK_EXCLUSIVE) < 0)
			return bld_nomem(err);
		return ECP_OK;
	}
	case ECP_EV_COND_SIGNAL:
	case ECP_EV_COND_BROADCAST: {
		ecp_id seg = bld_close_segment(b, th, ev->ts, v, ECP_NO_ID);
		if (seg == ECP_NO_ID)
			return bld_nomem(err);
		size_t n = ev->type == ECP_EV_COND_SIGNAL ? (c->waiters.len ? 1 : 0)
							  : c->waiters.len;
		ecp_id *w = c->waiters.data;
		for (size_t i = 0; i < n; i++) {
			struct bthread *wt = thread_at(b, w[i]);
			wt->cond_woken = true;
			wt->cond_from = seg;
		}
		/* No waiters: the vector may have no buffer at all (NULL). */
		if (n)
			memmove(w, w + n, (c->waiters.len - n) * sizeof(*w));
		c->waiters.len -= n;
		return ECP_OK;
	}
	default:
		return ECP_OK;
	}
}

int bld_ev_sem(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
	       uint64_t v, struct ecp_error *err)
{
	bool created;
	struct bsem *s = bld_object_of(&b->sems, &b->sem_by_addr, ev->a, &created);
	if (!s)
		return bld_nomem(err);
	if (created)
		ecp_vec_init(&s->posts, sizeof(ecp_id));
	switch (ev->type) {
	case ECP_EV_SEM_INIT:
		s->initial = ev->b;
		s->posts.len = 0;
		s->head = 0;
		return ECP_OK;
	case ECP_EV_SEM_WAIT_BEGIN: {
		if (bld_close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return bld_nomem(err);
		/* sem_trywait never waits for another thread: what a poll
		 * before it could be woken by stays open.  CPython takes every
		 * threading.Lock with a trywait first; asyncio's loop takes a
		 * few between epoll_wait's return and the read of its self-
		 * pipe, and 1.41 s of waits for its executor's threads were
		 * kept as delays (T1 1.80 s for 0.77 s of work). */
		bool poll_pending = th->poll_pending;
		bld_begin_wait(b, th, ev, W_SEM, ev->a, v);
		th->wait_timeout = ev->b;
		if (ev->b == SEM_TRY)
			th->poll_pending = poll_pending;
		return ECP_OK;
	}
	case ECP_EV_SEM_WAIT_END: {
		int rc = bld_end_wait(b, th, ev, W_SEM, err);
		if (rc < 0)
			return rc;
		uint64_t d = 0;
		if (ev->b == 0) {
			/* Tokens are taken in FIFO order: initial ones first (no
			 * dependency), then the posts in the order they happened. */
			if (s->initial) {
				s->initial--;
			} else if (s->head < s->posts.len) {
				ecp_id from = ECP_VEC_AT(&s->posts, ecp_id, s->head++);
				if (bld_pend_edge(th, from, ECP_EDGE_SEM) < 0)
					return bld_nomem(err);
				bld_woken_on(b, th, ev->a);
				if (s->head == s->posts.len)
					s->head = s->posts.len = 0;
			} else {
				b->warn[WARN_SEM_NO_TOKEN]++;
			}
		} else if ((int64_t)ev->b == ETIMEDOUT) {
			d = bld_timeout_delay(b, th, ev->ts, v);
			bld_timed_out(b, th, ev->a, d);
		}
		bld_open_segment(th, ev->ts, ECP_NO_ID, 0, d);
		bld_delay_kind(th, d, ECP_DELAY_TIMED_OUT);
		return ECP_OK;
	}
	case ECP_EV_SEM_POST: {
		ecp_id seg = bld_close_segment(b, th, ev->ts, v, ECP_NO_ID);
		if (seg == ECP_NO_ID)
			return bld_nomem(err);
		ecp_id *p = ecp_vec_push(&s->posts);
		if (!p)
			return bld_nomem(err);
		*p = seg;
		return ECP_OK;
	}
	default:
		return ECP_OK;
	}
}

/* A barrier round is complete: its last arrival releases every waiter. */
static void complete_round(struct ecp_builder *b, struct bbarrier *br)
{
	if (!br->arrivals.len)
		return;
	ecp_id last = ECP_VEC_AT(&br->arrivals, ecp_id, br->arrivals.len - 1);
	ecp_id last_seg = ECP_VEC_AT(&br->arrival_segs, ecp_id, br->arrival_segs.len - 1);
	for (size_t i = 0; i + 1 < br->arrivals.len; i++) {
		struct bthread *wt = thread_at(b, ECP_VEC_AT(&br->arrivals, ecp_id, i));
		if (wt->index == last)
			continue;
		wt->barrier_woken = true;
		wt->barrier_from = last_seg;
	}
	br->arrivals.len = 0;
	br->arrival_segs.len = 0;
}

int bld_ev_barrier(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		   uint64_t v, struct ecp_error *err)
{
	bool created;
	struct bbarrier *br =
	    bld_object_of(&b->barriers, &b->barrier_by_addr, ev->a, &created);
	if (!br)
		return bld_nomem(err);
	if (created) {
		ecp_vec_init(&br->arrivals, sizeof(ecp_id));
		ecp_vec_init(&br->arrival_segs, sizeof(ecp_id));
	}
	switch (ev->type) {
	case ECP_EV_BARRIER_INIT:
		br->count = ev->b;
		br->arrivals.len = br->arrival_segs.len = 0;
		return ECP_OK;
	case ECP_EV_BARRIER_WAIT_BEGIN: {
		ecp_id seg = bld_close_segment(b, th, ev->ts, v, ECP_NO_ID);
		if (seg == ECP_NO_ID)
			return bld_nomem(err);
		bld_begin_wait(b, th, ev, W_BARRIER, ev->a, v);
		th->barrier_woken = false;
		ecp_id *a = ecp_vec_push(&br->arrivals);
		ecp_id *s = ecp_vec_push(&br->arrival_segs);
		if (!a || !s)
			return bld_nomem(err);
		*a = th->index;
		*s = seg;
		if (br->count && br->arrivals.len >= br->count)
			complete_round(b, br);
		return ECP_OK;
	}
	case ECP_EV_BARRIER_WAIT_END: {
		int rc = bld_end_wait(b, th, ev, W_BARRIER, err);
		if (rc < 0)
			return rc;
		/* Without barrier_init the count is unknown: the first thread
		 * to leave proves the round complete. */
		if (!th->barrier_woken && !br->count)
			complete_round(b, br);
		if (th->barrier_woken &&
		    bld_pend_edge(th, th->barrier_from, ECP_EDGE_BARRIER) < 0)
			return bld_nomem(err);
		th->barrier_woken = false;
		bld_open_segment(th, ev->ts, ECP_NO_ID, 0, 0);
		return ECP_OK;
	}
	default:
		return ECP_OK;
	}
}

/* A once is not a wait of the thread's (th->wait): the thread that runs
 * the init routine runs program code inside it, which may itself wait
 * (libstdc++'s std::async joins its thread inside std::call_once).  Only
 * the nesting is counted. */
int bld_ev_once(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		uint64_t v, struct ecp_error *err)
{
	bool created;
	struct bonce *o = bld_object_of(&b->onces, &b->once_by_addr, ev->a, &created);
	if (!o)
		return bld_nomem(err);
	if (created)
		o->done_seg = o->done_thread = ECP_NO_ID;
	if (ev->type == ECP_EV_ONCE_BEGIN) {
		if (bld_close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return bld_nomem(err);
		th->once_depth++;
		return ECP_OK;
	}
	if (!th->once_depth) {
		int rc = bld_inconsistent(b, err, ev, "once_end without once_begin");
		if (rc < 0)
			return rc;
		/* repaired: as if it had begun */
	} else {
		th->once_depth--;
	}
	if (ev->b) {
		/* this thread ran the initializer: its end releases the others */
		ecp_id seg = bld_close_segment(b, th, ev->ts, v, ECP_NO_ID);
		if (seg == ECP_NO_ID)
			return bld_nomem(err);
		o->done_seg = seg;
		o->done_thread = th->index;
	} else if (o->done_thread != ECP_NO_ID && o->done_thread != th->index) {
		if (bld_pend_edge(th, o->done_seg, ECP_EDGE_ONCE) < 0)
			return bld_nomem(err);
	}
	bld_open_segment(th, ev->ts, ECP_NO_ID, 0, 0);
	return ECP_OK;
}

/* Futexes (syscall(SYS_futex), libstdc++'s C++20 waits): as a condition
 * variable without a mutex.  A wake of n releases the first n threads then
 * waiting on the address (FIFO, as the kernel mostly does); the wake is
 * written before the syscall, so a waiter that wrote its begin but had not
 * yet entered the kernel counts as woken: it then returns EAGAIN, having
 * seen the value the waker stored.  A wait that returns EAGAIN unwoken
 * found the value already changed: it depends on the last wake of the
 * address by another thread, if any (the store that came with it). */
int bld_ev_futex(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		 uint64_t v, struct ecp_error *err)
{
	bool created;
	struct bfutex *f = bld_object_of(&b->futexes, &b->futex_by_addr, ev->a, &created);
	if (!f)
		return bld_nomem(err);
	if (created) {
		ecp_vec_init(&f->waiters, sizeof(ecp_id));
		f->last_wake_seg = f->last_wake_thread = ECP_NO_ID;
	}
	switch (ev->type) {
	case ECP_EV_FUTEX_WAIT_BEGIN: {
		if (bld_close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return bld_nomem(err);
		bld_begin_wait(b, th, ev, W_FUTEX, ev->a, v);
		th->wait_timeout = ev->b;
		th->futex_woken = false;
		th->futex_from = ECP_NO_ID;
		ecp_id *w = ecp_vec_push(&f->waiters);
		if (!w)
			return bld_nomem(err);
		*w = th->index;
		return ECP_OK;
	}
	case ECP_EV_FUTEX_WAIT_END: {
		int rc = bld_end_wait(b, th, ev, W_FUTEX, err);
		if (rc < 0)
			return rc;
		ecp_id *w = f->waiters.data;
		for (size_t i = 0; i < f->waiters.len; i++) {
			if (w[i] == th->index) {
				memmove(&w[i], &w[i + 1],
					(f->waiters.len - i - 1) * sizeof(*w));
				f->waiters.len--;
				break;
			}
		}
		uint64_t d = 0;
		int64_t e = (int64_t)ev->b;
		if (th->futex_woken) {
			if (bld_pend_edge(th, th->futex_from, ECP_EDGE_COND) < 0)
				return bld_nomem(err);
			bld_woken_on(b, th, ev->a);
		} else if (e == EAGAIN) {
			if (f->last_wake_thread != ECP_NO_ID &&
			    f->last_wake_thread != th->index) {
				if (bld_pend_edge(th, f->last_wake_seg, ECP_EDGE_COND) <
				    0)
					return bld_nomem(err);
				bld_woken_on(b, th, ev->a);
			}
		} else if (e == ETIMEDOUT) {
			d = bld_timeout_delay(b, th, ev->ts, v);
			bld_timed_out(b, th, ev->a, d);
		} else if (e == 0) {
			b->warn[WARN_FUTEX_UNWOKEN]++;
		}
		th->futex_woken = false;
		bld_open_segment(th, ev->ts, ECP_NO_ID, 0, d);
		bld_delay_kind(th, d, ECP_DELAY_TIMED_OUT);
		return ECP_OK;
	}
	case ECP_EV_FUTEX_WAKE: {
		ecp_id seg = bld_close_segment(b, th, ev->ts, v, ECP_NO_ID);
		if (seg == ECP_NO_ID)
			return bld_nomem(err);
		size_t n = ev->b < f->waiters.len ? (size_t)ev->b : f->waiters.len;
		ecp_id *w = f->waiters.data;
		for (size_t i = 0; i < n; i++) {
			struct bthread *wt = thread_at(b, w[i]);
			wt->futex_woken = true;
			wt->futex_from = seg;
		}
		if (n)
			memmove(w, w + n, (f->waiters.len - n) * sizeof(*w));
		f->waiters.len -= n;
		f->last_wake_seg = seg;
		f->last_wake_thread = th->index;
		return ECP_OK;
	}
	default:
		return ECP_OK;
	}
}
