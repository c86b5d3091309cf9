/* SPDX-License-Identifier: MIT */
/* Builder: locks (mutexes, spinlocks, rwlocks).  An acquisition depends on
 * the last release of the lock by another thread. */
#include "simulator/trace/builder-internal.h"

#include <errno.h>

struct block *bld_lock_of(struct ecp_builder *b, uint64_t addr, uint32_t kind)
{
	bool created;
	struct block *l = bld_object_of(&b->locks, &b->lock_by_addr, addr, &created);
	if (l && created) {
		l->addr = addr;
		l->kind = kind;
		l->holder = ECP_NO_ID;
		l->displaced = ECP_NO_ID;
		l->last_release_seg = ECP_NO_ID;
		l->last_release_thread = ECP_NO_ID;
	}
	return l;
}

ecp_id bld_lock_id(struct ecp_builder *b, const struct block *l)
{
	return (ecp_id)(l - (const struct block *)b->locks.data);
}

/* Marks lock l acquired by th; returns true when this is a recursive
 * re-acquire (no synchronization). */
bool bld_take_lock(struct ecp_builder *b, struct bthread *th, struct block *l,
		   uint8_t mode)
{
	if (mode == ECP_LOCK_SHARED) {
		l->readers++;
		return false;
	}
	if (l->holder == th->index) {
		l->depth++;
		return true;
	}
	if (l->holder != ECP_NO_ID) {
		b->warn[WARN_LOCK_CONFLICT]++;
		l->displaced = l->holder;
	}
	l->holder = th->index;
	l->depth = 1;
	return false;
}

int bld_acquired(struct ecp_builder *b, struct bthread *th, struct block *l, uint8_t mode)
{
	if (l->last_release_seg != ECP_NO_ID && l->last_release_thread != th->index)
		return bld_pend_edge(th, l->last_release_seg, ECP_EDGE_LOCK);
	return 0;
}

/* Releases l by th.  *sync is false for the inner unlock of a recursive
 * mutex.  Returns ECP_ERR when th does not hold l. */
static int give_lock(struct bthread *th, struct block *l, bool *sync)
{
	*sync = true;
	if (l->holder == th->index) {
		if (l->depth > 1) {
			l->depth--;
			*sync = false;
			return 0;
		}
		l->holder = ECP_NO_ID;
		l->depth = 0;
		return 0;
	}
	if (l->readers > 0) {
		l->readers--;
		return 0;
	}
	/* Its taking was displaced by another's: the release was written
	 * after it happened.  LLVM's libomp calls OMPT's mutex_released after
	 * it releases, and a holder preempted in between shows so (a CI run:
	 * main's critical section released at replay by no one, the next
	 * taker waiting for it, "deadlock in the simulated run").  Its
	 * critical section ends here, late by the time it took to report. */
	if (l->displaced == th->index) {
		l->displaced = ECP_NO_ID;
		return 0;
	}
	return ECP_ERR;
}

static const char *const lock_kind_names[] = {"mutex", "spinlock", "rwlock"};

static const char *lock_kind_name(uint32_t kind)
{
	return kind < 3 ? lock_kind_names[kind] : "lock";
}

int bld_release(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		struct block *l, uint64_t v, struct ecp_error *err, ecp_id *seg_out)
{
	bool sync;
	*seg_out = ECP_NO_ID;
	if (give_lock(th, l, &sync) < 0) {
		int rc =
		    bld_inconsistent(b, err, ev,
				     "unlock of a %s that the thread does not hold "
				     "(%s 0x%llx, holder %s)",
				     lock_kind_name(l->kind), lock_kind_name(l->kind),
				     (unsigned long long)l->addr,
				     l->holder == ECP_NO_ID ? "none" : "another thread");
		return rc > 0 ? ECP_OK : rc; /* skipped: no boundary */
	}
	if (!sync)
		return ECP_OK;
	ecp_id seg = bld_close_segment(b, th, ev->ts, v, bld_lock_id(b, l));
	if (seg == ECP_NO_ID)
		return bld_nomem(err);
	l->last_release_seg = seg;
	l->last_release_thread = th->index;
	*seg_out = seg;
	return ECP_OK;
}

int bld_ev_lock(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		uint64_t v, struct ecp_error *err)
{
	struct block *l = bld_lock_of(b, ev->a, (uint32_t)ev->b);
	if (!l)
		return bld_nomem(err);
	switch (ev->type) {
	case ECP_EV_LOCK_INIT:
		l->kind = (uint32_t)ev->b;
		return ECP_OK;
	case ECP_EV_LOCK_REQUEST:
		if (bld_close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return bld_nomem(err);
		bld_begin_wait(b, th, ev, W_LOCK, ev->a, v);
		return ECP_OK;
	case ECP_EV_LOCK_ACQUIRED: {
		uint8_t mode = (uint8_t)ev->c;
		bool was_waiting = th->wait == W_LOCK && th->wait_obj == ev->a;
		if (was_waiting)
			th->wait = W_NONE;
		if (bld_take_lock(b, th, l, mode)) {
			if (was_waiting)
				bld_open_segment(th, ev->ts, ECP_NO_ID, 0, 0);
			return ECP_OK;
		}
		/* a trylock (or an acquire without request) is a boundary too */
		if (!was_waiting &&
		    bld_close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return bld_nomem(err);
		bld_open_segment(th, ev->ts, bld_lock_id(b, l), mode, 0);
		if (bld_acquired(b, th, l, mode) < 0)
			return bld_nomem(err);
		return ECP_OK;
	}
	case ECP_EV_LOCK_FAILED:
		if (th->wait == W_LOCK && th->wait_obj == ev->a) {
			th->wait = W_NONE;
			uint64_t d = (int64_t)ev->c == ETIMEDOUT
					 ? bld_blocked_time(b, th, th->wait_ts, ev->ts,
							    th->wait_cpu, v)
					 : 0;
			bld_open_segment(th, ev->ts, ECP_NO_ID, 0, d);
			bld_delay_kind(th, d, ECP_DELAY_TIMED_OUT);
		}
		return ECP_OK; /* a failed trylock synchronizes nothing */
	case ECP_EV_LOCK_RELEASE: {
		ecp_id seg;
		return bld_release(b, th, ev, l, v, err, &seg);
	}
	default:
		return ECP_OK;
	}
}
