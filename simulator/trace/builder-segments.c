/* SPDX-License-Identifier: MIT */
/* Builder: segments and edges.  Every thread always has one *accumulating*
 * segment.  A point synchronization (post, signal, unlock, create) closes
 * it and starts the next at the same instant.  A blocking operation is a
 * begin/end pair: the begin closes the segment, the end *opens* the
 * accumulating one (sets its recorded start, the lock it acquires, its delay
 * and its incoming edges).  The thread's CPU time between begin and end
 * (the syscall, spinning in the futex) is therefore charged to the segment
 * after the wait, so that the segment lengths of a thread add up to all the
 * CPU time it used.
 *
 * Segment records are created when a segment closes, with a temporary id in
 * closing order; finish() renumbers them so that each thread's segments are
 * contiguous and sorts the edges by target.  An edge into a segment that is
 * still accumulating (or not yet opened) waits in the thread's `pend` list. */
#include "simulator/trace/builder-internal.h"

static const char *const wait_names[] = {"none",     "lock",         "cond_wait",
					 "sem_wait", "barrier_wait", "thread_join",
					 "once",     "futex_wait"};

int bld_add_edge(struct ecp_builder *b, ecp_id from, ecp_id to, uint32_t kind)
{
	struct ecp_edge *e = ecp_vec_push(&b->edges);
	if (!e)
		return -1;
	e->from = from;
	e->to = to;
	e->kind = kind;
	return 0;
}

/* An edge into the thread's accumulating (or next) segment. */
int bld_pend_edge(struct bthread *th, ecp_id from, uint32_t kind)
{
	if (from == ECP_NO_ID)
		return 0;
	struct pend_edge *p = ecp_vec_push(&th->pend);
	if (!p)
		return -1;
	p->from = from;
	p->kind = kind;
	return 0;
}

/* Closes the accumulating segment at wall time ts / CPU clock v and starts
 * the next one there.  Returns the closed segment's temporary id. */
/* The activities' inclusive times closed at the boundary fend, and on the
 * thread-CPU clock the wall-based times scaled to the segment's length;
 * the start routine is on the stack for the whole segment.  Returns -1 out
 * of memory. */
static int close_activities(struct ecp_builder *b, struct bthread *th, uint64_t fend,
			    uint64_t length)
{
	for (size_t i = 0; i < th->frames.len; i++) {
		struct frame *fr = &ECP_VEC_AT(&th->frames, struct frame, i);
		if (!fr->outermost)
			continue;
		struct act_slot *s = bld_act(th, fr->func);
		if (!s)
			return -1;
		s->incl += fend - fr->incl_from;
	}
	struct act_slot *root = bld_act(th, th->start_fn);
	if (!root)
		return -1;
	if (b->opts.clock == ECP_CLOCK_THREAD_CPUTIME) {
		/* Scale the wall-based function times to the segment's CPU time. */
		uint64_t span = fend - th->seg_v0;
		for (size_t i = 0; i < th->acts.len; i++) {
			struct act_slot *s = &ECP_VEC_AT(&th->acts, struct act_slot, i);
			if (span) {
				s->self = (uint64_t)((double)s->self * (double)length /
						     (double)span);
				s->incl = (uint64_t)((double)s->incl * (double)length /
						     (double)span);
			} else {
				s->self = s->incl = 0;
			}
			if (s->self > s->incl)
				s->self = s->incl;
		}
		uint64_t sum = 0;
		for (size_t i = 0; i < th->acts.len; i++)
			sum += ECP_VEC_AT(&th->acts, struct act_slot, i).self;
		/* rounding leaves a few ns: give them to the start routine */
		root->self += sat_sub(length, sum);
	}
	root->incl = length;
	if (root->self > root->incl)
		root->self = root->incl;
	return 0;
}

/* Whether the segment's one activity is its start routine's, all of its
 * length and no call: the model leaves it implicit (model.h). */
static bool start_routine_alone(const struct bthread *th, uint64_t length)
{
	if (th->acts.len != 1)
		return false;
	const struct act_slot *s = &ECP_VEC_AT(&th->acts, struct act_slot, 0);
	return s->func == th->start_fn && !s->calls && s->self == length &&
	       s->incl == length;
}

int bld_set_first_activity(struct ecp_builder *b, ecp_id s, uint32_t first)
{
	struct ecp_vec *v = &b->first_activity;
	if (!first && s >= v->len)
		return 0; /* read as 0 already */
	while (v->len <= s) {
		uint32_t *slot = ecp_vec_push(v);
		if (!slot)
			return -1;
	}
	ECP_VEC_AT(v, uint32_t, s) = first;
	return 0;
}

int bld_write_out_activity(struct ecp_builder *b, ecp_id s, ecp_id start_fn)
{
	struct ecp_segment_record *seg =
	    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, s);
	if (seg->n_activity)
		return 0;
	if (b->activities.len >= UINT32_MAX) /* model.h */
		return -1;
	struct ecp_activity *a = ecp_vec_push(&b->activities);
	if (!a || bld_set_first_activity(b, s, (uint32_t)(b->activities.len - 1)) < 0)
		return -1;
	*a = (struct ecp_activity){.function = start_fn,
				   .calls = 0,
				   .self_ns = seg->length,
				   .incl_ns = seg->length};
	seg->n_activity = 1;
	return 0;
}

/* The segment id of the model, with the thread's activities in it. */
static int push_segment(struct ecp_builder *b, struct bthread *th, uint64_t ts,
			uint64_t length, ecp_id lock_release)
{
	struct ecp_segment_record *seg = ecp_vec_push(&b->segments);
	if (!seg)
		return -1;
	seg->thread = th->index;
	seg->lock_acquire = th->seg_lock;
	seg->lock_release = lock_release;
	/* as the builder's lock state reads it (bld_take_lock): any mode the
	 * trace gives but shared is exclusive (the field is one bit) */
	seg->acquire_mode =
	    th->seg_mode == ECP_LOCK_SHARED ? ECP_LOCK_SHARED : ECP_LOCK_EXCLUSIVE;
	seg->length = length;
	seg->delay = th->seg_delay;
	seg->delay_kind = seg->delay ? th->seg_delay_kind : ECP_DELAY_UNKNOWN;
	seg->cpu_start = th->seg_v0 - th->v_start;
	seg->rec_start = sat_sub(th->seg_rec_start, b->t0);
	seg->rec_end = sat_sub(ts, b->t0);
	if (seg->rec_end < seg->rec_start)
		seg->rec_end = seg->rec_start;
	/* past 32 bits: more than memory holds; past 24 in one segment: more
	 * functions at once than a program has (model.h) */
	if (b->activities.len + th->acts.len > UINT32_MAX ||
	    th->acts.len > ECP_SEGMENT_MAX_ACTIVITIES)
		return -1;
	if (bld_set_first_activity(b, (ecp_id)(b->segments.len - 1),
				   (uint32_t)b->activities.len) < 0)
		return -1;
	/* the start routine's alone, all of it: implicit (model.h) */
	seg->n_activity = start_routine_alone(th, length) ? 0 : (uint32_t)th->acts.len;
	for (size_t i = 0; i < seg->n_activity; i++) {
		const struct act_slot *s = &ECP_VEC_AT(&th->acts, struct act_slot, i);
		struct ecp_activity *a = ecp_vec_push(&b->activities);
		if (!a)
			return -1;
		a->function = s->func;
		a->calls = s->calls;
		a->self_ns = s->self;
		a->incl_ns = s->incl;
	}
	bld_acts_reset(th);
	return 0;
}

/* What waited for the segment to exist: the edges into it, child waits,
 * a poll it opened, a timed wait that timed out before it; and the
 * thread's list of segments.  Returns -1 out of memory. */
static int attach_segment(struct ecp_builder *b, struct bthread *th, ecp_id id)
{
	for (size_t i = 0; i < th->pend.len; i++) {
		const struct pend_edge *p = &ECP_VEC_AT(&th->pend, struct pend_edge, i);
		if (bld_add_edge(b, p->from, id, p->kind) < 0)
			return -1;
	}
	th->pend.len = 0;
	if (th->child_waits.len)
		bld_flush_child_waits(b, th, id);
	if (th->poll_pending && th->poll_seg == ECP_NO_ID)
		th->poll_seg = id; /* the segment the poll opened */
	if (th->seg_timeout) {
		struct timeout_seg *t = ecp_vec_push(&th->timeout_segs);
		if (!t)
			return -1;
		t->seg = id;
		t->delay = th->seg_timeout;
		th->seg_timeout = 0;
	}
	uint32_t *slot = ecp_vec_push(&th->segs);
	if (!slot)
		return -1;
	*slot = id;
	if (th->first_seg == ECP_NO_ID)
		th->first_seg = id;
	th->last_seg = id;
	return 0;
}

/* The thread's next segment starts at (ts, v). */
static void open_next_segment(struct bthread *th, uint64_t ts, uint64_t v)
{
	for (size_t i = 0; i < th->frames.len; i++)
		ECP_VEC_AT(&th->frames, struct frame, i).incl_from = v;
	th->f_last = v;
	th->seg_v0 = v;
	th->seg_wall0 = ts;
	th->seg_rec_start = ts;
	th->seg_lock = ECP_NO_ID;
	th->seg_mode = 0;
	th->seg_delay = 0;
	th->seg_delay_most = 0;
	th->seg_delay_kind = ECP_DELAY_UNKNOWN;
	th->delay_open = 0;
}

ecp_id bld_close_segment(struct ecp_builder *b, struct bthread *th, uint64_t ts,
			 uint64_t v, ecp_id lock_release)
{
	/* Function clock at the boundary, in the units the activities use. */
	uint64_t fend = b->opts.clock == ECP_CLOCK_THREAD_CPUTIME
			    ? th->seg_v0 + sat_sub(ts, th->seg_wall0)
			    : v;
	if (fend < th->f_last)
		fend = th->f_last;
	if (bld_advance(th, fend) < 0)
		return ECP_NO_ID;
	uint64_t length = v - th->seg_v0;
	if (close_activities(b, th, fend, length) < 0)
		return ECP_NO_ID;
	ecp_id id = (ecp_id)b->segments.len;
	if (push_segment(b, th, ts, length, lock_release) < 0 ||
	    attach_segment(b, th, id) < 0)
		return ECP_NO_ID;
	open_next_segment(th, ts, v);
	return id;
}

void bld_rescale_activities(struct ecp_builder *b, ecp_id s, uint64_t old,
			    ecp_id start_fn)
{
	const struct ecp_segment_record *seg =
	    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, s);
	uint32_t first = bld_first_activity(b, s);
	uint64_t length = seg->length, self_before = 0, self_after = 0;
	double r = old ? (double)length / (double)old : 0;
	struct ecp_activity *root = NULL;
	for (uint32_t a = 0; a < seg->n_activity; a++) {
		struct ecp_activity *act =
		    &ECP_VEC_AT(&b->activities, struct ecp_activity, first + a);
		bool whole = act->incl_ns == old;
		self_before += act->self_ns;
		act->self_ns = (uint64_t)((double)act->self_ns * r);
		act->incl_ns = whole ? length : (uint64_t)((double)act->incl_ns * r);
		if (act->self_ns > act->incl_ns)
			act->self_ns = act->incl_ns;
		self_after += act->self_ns;
		if (act->function == start_fn && whole)
			root = act;
	}
	if (root && self_before == old && self_after < length)
		root->self_ns += length - self_after;
}

void bld_skip_cpu(struct bthread *th, uint64_t ts, uint64_t v)
{
	if (v < th->seg_v0)
		return;
	th->spin_ns += v - th->seg_v0;
	/* The segment so far is the wait's, all of it skipped: what samples
	 * charged to functions in it goes too (a sample in libomp's spin, or
	 * one taken over a little past the wait's end), or the segment would
	 * hold more function time than CPU time. */
	for (size_t i = 0; i < th->acts.len; i++) {
		struct act_slot *s = &ECP_VEC_AT(&th->acts, struct act_slot, i);
		s->self = 0;
		s->incl = 0;
	}
	for (size_t i = 0; i < th->frames.len; i++)
		ECP_VEC_AT(&th->frames, struct frame, i).incl_from = v;
	th->f_last = v;
	th->seg_v0 = v;
	th->seg_wall0 = ts;
}

int bld_cut_spin(struct ecp_builder *b, struct bthread *th, uint64_t v, uint64_t spun)
{
	/* On the thread-CPU clock the functions are timed in wall time from
	 * the segment's start (close_activities): a cut inside it would
	 * shorten the segment and not its functions.  The spin stays work. */
	if (b->opts.clock != ECP_CLOCK_PERF_SWITCH)
		return 0;
	uint64_t from = v > spun ? v - spun : 0;
	if (from < th->f_last)
		from = th->f_last;
	if (from < th->seg_v0)
		from = th->seg_v0;
	if (v <= from)
		return 0;
	if (bld_advance(th, from) < 0)
		return -1;
	uint64_t cut = v - from;
	th->spin_ns += cut;
	/* as if the segment and every open call had started that much later:
	 * their time so far is what they had at `from` */
	for (size_t i = 0; i < th->frames.len; i++)
		ECP_VEC_AT(&th->frames, struct frame, i).incl_from += cut;
	th->seg_v0 += cut;
	th->f_last = v;
	return 0;
}

void bld_delay_kind(struct bthread *th, uint64_t delay, uint8_t kind)
{
	if (delay > th->seg_delay_most) {
		th->seg_delay_most = delay;
		th->seg_delay_kind = kind;
	}
}

/* The end of a wait opens the accumulating segment: it starts here. */
void bld_open_segment(struct bthread *th, uint64_t ts, ecp_id lock, uint8_t mode,
		      uint64_t delay)
{
	th->seg_rec_start = ts;
	th->seg_lock = lock;
	th->seg_mode = mode;
	th->seg_delay += delay;
}

int bld_begin_wait(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		   int kind, uint64_t obj, uint64_t v)
{
	if (th->wait != W_NONE)
		b->warn[WARN_NESTED_WAIT]++;
	th->wait = kind;
	th->wait_obj = obj;
	th->wait_ts = ev->ts;
	th->wait_cpu = v;
	th->wait_timeout = 0;
	/* a wait for another thread ends what a poll could have been woken
	 * by; a lock taken on the way (the loop's own) does not */
	if (kind != W_LOCK)
		th->poll_pending = false;
	return 0;
}

/* A loop of timed waits (liblzma's main thread waits for its workers
 * with a 300 ms timeout, CPython's GIL with 5 ms) times out as often as
 * the run is long: on one CPU more often than on P.  Kept as fixed delays,
 * the timeouts would add up to the recorded run and the prediction would
 * follow the load during recording.  When the loop ends with a wait on the
 * same object woken by another thread, that wake-up is what the thread
 * waited for: the timeouts before it take no time (the work between them
 * stays), and the woken wait's dependency orders the rest at every P.
 * Timeouts that no wake-up ends stay delays (a thread pacing itself), and
 * the model says how much of them it kept. */
void bld_timed_out(struct ecp_builder *b, struct bthread *th, uint64_t obj,
		   uint64_t delay)
{
	if (obj != th->timeout_obj)
		th->timeout_segs.len = 0;
	th->timeout_obj = obj;
	th->seg_timeout += delay;
	b->timeouts++;
	b->timeouts_ns += delay;
}

void bld_woken_on(struct ecp_builder *b, struct bthread *th, uint64_t obj)
{
	if (obj != th->timeout_obj)
		return;
	for (size_t i = 0; i < th->timeout_segs.len; i++) {
		const struct timeout_seg *t =
		    &ECP_VEC_AT(&th->timeout_segs, struct timeout_seg, i);
		struct ecp_segment_record *seg =
		    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, t->seg);
		uint64_t d = t->delay < seg->delay ? t->delay : seg->delay;
		seg->delay -= d;
		b->timeouts_taken_back++;
		b->timeouts_taken_back_ns += d;
	}
	th->timeout_segs.len = 0;
	th->timeout_obj = 0;
}

/* The delay of a timed wait that timed out: the time it slept.  Switch
 * records do not say when the timer woke the thread, only when it ran
 * again, so a thread that then waited for the CPU would count that wait
 * too: the requested timeout bounds it. */
uint64_t bld_timeout_delay(struct ecp_builder *b, struct bthread *th, uint64_t ts,
			   uint64_t v)
{
	uint64_t d = bld_blocked_time(b, th, th->wait_ts, ts, th->wait_cpu, v);
	if (th->wait_timeout && th->wait_timeout != UINT64_MAX && d > th->wait_timeout)
		d = th->wait_timeout;
	return d;
}

int bld_end_wait(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		 int kind, struct ecp_error *err)
{
	if (th->wait != kind) {
		int rc = bld_inconsistent(
		    b, err, ev, "wait end without begin (thread is %s%s)",
		    th->wait == W_NONE ? "not waiting" : "waiting in ",
		    th->wait == W_NONE ? "" : wait_names[th->wait]);
		if (rc < 0)
			return rc;
		/* repaired: the wait ends here as if it had begun */
	}
	th->wait = W_NONE;
	return ECP_OK;
}

int bld_timeout_warnings(const struct ecp_builder *b, struct ecp_model *m)
{
	uint64_t kept = sat_sub(b->timeouts - b->timeouts_taken_back, b->free_timeouts);
	uint64_t kept_ns = sat_sub(sat_sub(b->timeouts_ns, b->timeouts_taken_back_ns),
				   b->free_timeouts_ns);
	if (b->timeouts_taken_back &&
	    ecp_model_add_warning(
		m,
		"%llu timed waits timed out in loops that a wake-up on the same object "
		"ended (progress loops): their %.3f ms of timeouts are no delay, the "
		"wake-up is what the thread waited for",
		(unsigned long long)b->timeouts_taken_back,
		(double)b->timeouts_taken_back_ns / 1e6) < 0)
		return -1;
	if (kept &&
	    ecp_model_add_warning(
		m,
		"%llu timed waits timed out with no wake-up after them on the same "
		"object: kept as %.3f ms of fixed delays at every P (a thread that "
		"paces itself; if it polls for a state another thread sets, its "
		"real waits shrink on more CPUs and the prediction is too long)",
		(unsigned long long)kept, (double)kept_ns / 1e6) < 0)
		return -1;
	return 0;
}
