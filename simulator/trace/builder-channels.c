/* SPDX-License-Identifier: MIT */
/* Builder: channels -- pipes, socketpairs and eventfds between the
 * program's threads (recorder/agent/agent-io.c).  Writes queue their units, FIFO,
 * with the segment that ended at the write; a read takes units in that
 * order (an eventfd's initial counter first) and depends on the write of
 * the last unit it took, when another thread wrote it: as a semaphore's
 * post and wait.  The read is a segment boundary then; when it had blocked
 * (its delay_end came just before), the time it blocked was that wait, not
 * a delay, and the segment's delay is taken back. */
#include "simulator/trace/builder-internal.h"

#include <string.h>

#define CHAN_MAX_PENDING 65536

static struct bchan *chan_of(struct ecp_builder *b, uint64_t id)
{
	bool created;
	struct bchan *c = bld_object_of(&b->chans, &b->chan_by_id, id, &created);
	if (c && created)
		ecp_vec_init(&c->q, sizeof(struct chunk));
	return c;
}

/* A short write's last units never went in: taken off the queue's end. */
static void unwrite(struct bchan *c, uint64_t left)
{
	while (left && c->q.len > c->head) {
		struct chunk *k = &ECP_VEC_AT(&c->q, struct chunk, c->q.len - 1);
		uint64_t n = k->units < left ? k->units : left;
		k->units -= n;
		left -= n;
		if (!k->units)
			c->q.len--;
	}
}

/* Pending writes nobody reads (a FIFO to another process) stay bounded. */
static void bound(struct ecp_builder *b, struct bchan *c)
{
	if (c->q.len - c->head >= CHAN_MAX_PENDING) {
		c->head++;
		b->warn[WARN_CHAN_DROPPED]++;
	}
	if (c->head > 1024 && c->head * 2 > c->q.len) {
		memmove(c->q.data, &ECP_VEC_AT(&c->q, struct chunk, c->head),
			(c->q.len - c->head) * sizeof(struct chunk));
		c->q.len -= c->head;
		c->head = 0;
	}
}

static int chan_write(struct ecp_builder *b, struct bthread *th,
		      const struct ecp_event *ev, uint64_t v, struct bchan *c,
		      struct ecp_error *err)
{
	int64_t units = (int64_t)ev->b;
	if (units <= 0) {
		unwrite(c, units < 0 ? 0 - (uint64_t)units
				     : 0); /* no signed overflow at INT64_MIN */
		return ECP_OK;
	}
	ecp_id seg = bld_close_segment(b, th, ev->ts, v, ECP_NO_ID);
	if (seg == ECP_NO_ID)
		return bld_nomem(err);
	bound(b, c);
	struct chunk *k = ecp_vec_push(&c->q);
	if (!k)
		return bld_nomem(err);
	k->seg = seg;
	k->thread = th->index;
	k->units = (uint64_t)units;
	return ECP_OK;
}

/* An event loop (libuv, glib, a server's epoll) waits in poll or epoll for
 * any of its descriptors, then handles the ones that are ready, with other
 * work and synchronization between (libuv takes a lock and reads its signal
 * pipe before its async eventfd): a unit another thread wrote before the
 * poll returned is what may have ended it.  The poll's delay is taken back
 * and the segment it opened depends on that write, as a read that blocked.
 * Data written after the poll returned (it woke for another descriptor)
 * cannot have ended it. */
static int poll_woken_by(struct ecp_builder *b, struct bthread *th, ecp_id from,
			 struct ecp_error *err)
{
	th->poll_pending = false;
	if (th->poll_seg == ECP_NO_ID) {
		/* still the accumulating segment */
		th->seg_delay = sat_sub(th->seg_delay, th->poll_delay);
		th->delay_open = 0;
		return bld_pend_edge(th, from, ECP_EDGE_SEM) < 0 ? bld_nomem(err)
								 : ECP_OK;
	}
	struct ecp_segment_record *seg =
	    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, th->poll_seg);
	seg->delay = sat_sub(seg->delay, th->poll_delay);
	return bld_add_edge(b, from, th->poll_seg, ECP_EDGE_SEM) < 0 ? bld_nomem(err)
								     : ECP_OK;
}

static int chan_read(struct ecp_builder *b, struct bthread *th,
		     const struct ecp_event *ev, uint64_t v, struct bchan *c,
		     struct ecp_error *err)
{
	uint64_t want = (int64_t)ev->b > 0 ? ev->b : 0;
	ecp_id from = ECP_NO_ID, from_thread = ECP_NO_ID;
	uint64_t n = c->initial < want ? c->initial : want;
	c->initial -= n;
	want -= n;
	while (want && c->head < c->q.len) {
		struct chunk *k = &ECP_VEC_AT(&c->q, struct chunk, c->head);
		n = k->units < want ? k->units : want;
		k->units -= n;
		want -= n;
		from = k->seg;
		from_thread = k->thread;
		if (!k->units)
			c->head++;
	}
	if (c->head == c->q.len)
		c->head = c->q.len = 0;
	if (from == ECP_NO_ID || from_thread == th->index)
		return ECP_OK;
	if (th->poll_pending &&
	    ECP_VEC_AT(&b->segments, struct ecp_segment_record, from).rec_end <=
		sat_sub(th->poll_end_ts, b->t0))
		return poll_woken_by(b, th, from, err);
	if (th->delay_open && th->delay_open_event + 1 == th->n_events) {
		/* it blocked for this write: a dependency, not a delay */
		th->seg_delay = sat_sub(th->seg_delay, th->delay_open);
	} else {
		if (bld_close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return bld_nomem(err);
		bld_open_segment(th, ev->ts, ECP_NO_ID, 0, 0);
	}
	th->delay_open = 0;
	return bld_pend_edge(th, from, ECP_EDGE_SEM) < 0 ? bld_nomem(err) : ECP_OK;
}

int bld_ev_chan(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		uint64_t v, struct ecp_error *err)
{
	struct bchan *c = chan_of(b, ev->a);
	if (!c)
		return bld_nomem(err);
	switch (ev->type) {
	case ECP_EV_CHAN_OPEN:
		c->peer = ev->b;
		c->initial += ev->c;
		return ECP_OK;
	case ECP_EV_CHAN_WRITE:
		/* what one end of a socketpair writes, the other end reads */
		if (c->peer && !(c = chan_of(b, c->peer)))
			return bld_nomem(err);
		return chan_write(b, th, ev, v, c, err);
	case ECP_EV_CHAN_READ:
		return chan_read(b, th, ev, v, c, err);
	default:
		return ECP_OK;
	}
}
