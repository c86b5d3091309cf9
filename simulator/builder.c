/* The model builder (see builder.h and model.h for the semantics).
 *
 * Segments.  Every thread always has one *accumulating* segment.  A point
 * synchronization (post, signal, unlock, create) closes it and starts the
 * next at the same instant.  A blocking operation is a begin/end pair: the
 * begin closes the segment, the end *opens* the accumulating one (sets its
 * recorded start, the lock it acquires, its delay and its incoming edges).
 * The thread's CPU time between begin and end (the syscall, spinning in the
 * futex) is therefore charged to the segment after the wait, so that the
 * segment lengths of a thread add up to all the CPU time it used.
 *
 * Segment records are created when a segment closes, with a temporary id in
 * closing order; finish() renumbers them so that each thread's segments are
 * contiguous and sorts the edges by target.  An edge into a segment that is
 * still accumulating (or not yet opened) waits in the thread's `pend` list.
 *
 * Function time.  Per thread a shadow stack of frames; the time between two
 * consecutive events of the thread is charged as self time to the frame on
 * top (or to the thread's start routine when the stack is empty).  Inclusive
 * time is charged when the outermost frame of a function leaves and, for the
 * frames still open, at every segment boundary, so recursion counts once and
 * the call stack carries over segment boundaries. */
#include "simulator/builder.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "simulator/hmap.h"
#include "simulator/model-internal.h"

enum wait_kind { W_NONE, W_LOCK, W_COND, W_SEM, W_BARRIER, W_JOIN, W_ONCE };

static const char *const wait_names[] = {
    "none", "lock", "cond_wait", "sem_wait", "barrier_wait", "thread_join", "once"};

/* Counted warnings: repairs and oddities that do not stop the analysis. */
enum warn_kind {
	WARN_EXIT_WITHOUT_ENTRY,
	WARN_ENTRY_WITHOUT_EXIT,
	WARN_FUNC_TS_BACKWARDS,
	WARN_THREAD_NO_EXIT,
	WARN_EVENTS_AFTER_EXIT,
	WARN_NESTED_WAIT,
	WARN_SEM_NO_TOKEN,
	WARN_JOIN_UNKNOWN,
	WARN_LOCK_CONFLICT,
	WARN_UNMATCHED_CREATE,
	WARN_NO_SWITCHES,
	WARN_COND_UNWOKEN,
	WARN_SWITCH_INCONSISTENT,
	WARN_INCONSISTENT,
	WARN_COUNT
};

static const char *const warn_text[WARN_COUNT] = {
    [WARN_EXIT_WITHOUT_ENTRY] = "function exits without an entry were ignored",
    [WARN_ENTRY_WITHOUT_EXIT] =
	"function entries without an exit were closed (at the enclosing exit "
	"or at thread end)",
    [WARN_FUNC_TS_BACKWARDS] = "function timestamps went backwards within a thread "
			       "and were clamped",
    [WARN_THREAD_NO_EXIT] = "threads had no thread_exit and end at their last event",
    [WARN_EVENTS_AFTER_EXIT] = "events of threads after their thread_exit were ignored",
    [WARN_NESTED_WAIT] = "waits began while the thread was already waiting (the first "
			 "was ended there)",
    [WARN_SEM_NO_TOKEN] = "semaphore waits took a token the trace never produced (no "
			  "sem_init or post seen): no dependency recorded",
    [WARN_JOIN_UNKNOWN] = "joins of a thread not seen to exit: no dependency recorded",
    [WARN_LOCK_CONFLICT] = "locks were acquired while the trace says another thread "
			   "held them",
    [WARN_UNMATCHED_CREATE] = "thread_create events had no matching thread_start",
    [WARN_NO_SWITCHES] = "threads had no context-switch record: their times are "
			 "wall-clock",
    [WARN_COND_UNWOKEN] = "condition waits returned without a recorded signal "
			  "(spurious wake-up): no dependency recorded",
    [WARN_SWITCH_INCONSISTENT] = "context-switch records were inconsistent (two ins or "
				 "two outs in a row) and were skipped",
    [WARN_INCONSISTENT] = "inconsistent events were skipped or repaired (the trace lost "
			  "events; --allow-loss)",
};

/* On-CPU intervals of one kernel thread, from the sched trace. */
struct sched_rec {
	uint64_t ts;
	uint8_t out, preempt;
};

struct sched_list {
	struct ecp_vec recs; /* struct sched_rec, until sealed */
	uint64_t *in, *out, *cum;
	uint8_t *preempt; /* the switch-out ending interval i left it runnable */
	size_t n;
	size_t hint;
};

struct frame {
	ecp_id func;
	uint32_t outermost; /* first frame of this function on the stack */
	uint64_t enter;     /* function clock at entry (for calls) */
	uint64_t incl_from; /* inclusive time charged up to here */
};

struct act_slot {
	ecp_id func;
	uint32_t calls;
	uint64_t self, incl;
};

struct pend_edge {
	ecp_id from;
	uint32_t kind;
};

struct bthread {
	uint64_t tid, handle;
	ecp_id index, parent, start_fn;
	char name[16];
	bool named; /* by the program (thread_name); comm does not override */
	bool exited;
	struct sched_list *sched;
	uint64_t n_events;
	uint64_t last_ts; /* last event time (wall) */
	uint64_t v_last;  /* last CPU clock value (monotonic) */
	uint64_t v_start; /* CPU clock at thread start */
	uint64_t f_last;  /* function clock charged up to here */
	uint64_t cpu_ns_last;
	/* The thread's own CPU clock (cpu_ns of thread_start and of
	 * thread_exit/process_exit) and the switch records' CPU time at the same
	 * events: their ratio takes steal out (see scale_to_thread_clocks). */
	uint64_t clock_first, sched_first, clock_last, sched_last;
	/* the accumulating segment */
	uint64_t seg_v0, seg_wall0, seg_rec_start;
	ecp_id seg_lock;
	uint8_t seg_mode;
	uint64_t seg_delay;
	struct ecp_vec pend; /* struct pend_edge */
	ecp_id first_seg, last_seg;
	struct ecp_vec segs; /* temporary ids, uint32_t */
	/* waiting */
	int wait;
	uint64_t wait_obj, wait_ts, wait_cpu;
	uint64_t wait_timeout; /* relative timeout of a timed wait, or 0 */
	bool in_delay;
	uint64_t delay_timeout; /* requested duration of the delay call, or 0 */
	uint64_t delay_ts, delay_cpu;
	bool cond_woken;
	ecp_id cond_from;
	bool barrier_woken;
	ecp_id barrier_from;
	/* functions */
	struct ecp_vec frames; /* struct frame */
	struct ecp_hmap depth; /* function -> frames of it on the stack */
	struct ecp_vec acts;   /* struct act_slot of the accumulating segment */
	struct ecp_hmap act_idx;
};

struct block {
	uint64_t addr;
	uint32_t kind;
	ecp_id holder; /* thread index holding it exclusively */
	uint32_t depth;
	uint32_t readers;
	ecp_id last_release_seg;
	ecp_id last_release_thread;
};

struct bcond {
	struct ecp_vec waiters; /* thread indices, FIFO */
};

struct bsem {
	uint64_t initial;     /* initial tokens not yet consumed */
	struct ecp_vec posts; /* segment ids of posts, FIFO from `head` */
	size_t head;
};

struct bbarrier {
	uint64_t count;          /* 0 when barrier_init was not seen */
	struct ecp_vec arrivals; /* thread indices of the current round */
	struct ecp_vec arrival_segs;
};

struct bonce {
	ecp_id done_seg, done_thread;
};

struct tmp_edge {
	ecp_id from, to;
	uint32_t kind;
};

struct fn {
	uint64_t addr;
	uint64_t folded;
};

struct ecp_builder {
	struct ecp_builder_options opts;
	char *trace_path;
	bool sealed; /* program events started: switch records are final */
	bool any_switch;
	uint64_t t0, last_ts;
	uint64_t ts_tolerance; /* function ts may precede the last event by this */
	uint64_t events, lost;
	struct ecp_vec sched_lists; /* struct sched_list * */
	struct ecp_hmap sched_by_tid;
	struct ecp_vec threads; /* struct bthread * */
	struct ecp_hmap thread_by_tid;
	struct ecp_hmap thread_by_handle;
	struct ecp_hmap create_parent; /* create_id -> parent segment (+1<<32 flag) */
	struct ecp_hmap create_child;  /* create_id -> child thread index */
	struct ecp_vec segments;       /* struct ecp_segment, temporary ids */
	struct ecp_vec edges;          /* struct tmp_edge */
	struct ecp_vec activities;     /* struct ecp_activity */
	struct ecp_vec calls;          /* struct ecp_call */
	struct ecp_vec fns;            /* struct fn */
	struct ecp_hmap fn_by_addr;
	ecp_id main_pseudo_fn;
	struct ecp_vec locks; /* struct block */
	struct ecp_hmap lock_by_addr;
	struct ecp_vec conds; /* struct bcond */
	struct ecp_hmap cond_by_addr;
	struct ecp_vec sems; /* struct bsem */
	struct ecp_hmap sem_by_addr;
	struct ecp_vec barriers; /* struct bbarrier */
	struct ecp_hmap barrier_by_addr;
	struct ecp_vec onces; /* struct bonce */
	struct ecp_hmap once_by_addr;
	uint64_t warn[WARN_COUNT];
	char first_inconsistency[600]; /* the first one, quoted in the warning */
};

/* ------------------------------------------------------------------ errors */

static int fail_err(struct ecp_builder *b, struct ecp_error *err,
		    const struct ecp_event *ev, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_err(struct ecp_builder *b, struct ecp_error *err,
		    const struct ecp_event *ev, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return ecp_error_set(
	    err, ECP_ERR, "trace=%s event=#%llu (%s) thread=%u: %s",
	    b->trace_path ? b->trace_path : "(events)", (unsigned long long)ev->index,
	    ecp_event_type_name((enum ecp_event_type)ev->type), ev->tid, what);
}

/* An inconsistency in the trace: an error, or with opts.lenient (a lossy
 * trace analysed anyway) a counted warning -- returns 1 and the caller
 * skips or repairs the event as its comment says. */
static int inconsistent(struct ecp_builder *b, struct ecp_error *err,
			const struct ecp_event *ev, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int inconsistent(struct ecp_builder *b, struct ecp_error *err,
			const struct ecp_event *ev, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!b->opts.lenient)
		return fail_err(b, err, ev, "%s", what);
	if (!b->warn[WARN_INCONSISTENT]++)
		snprintf(b->first_inconsistency, sizeof(b->first_inconsistency),
			 "event=#%llu (%s) thread=%u: %s", (unsigned long long)ev->index,
			 ecp_event_type_name((enum ecp_event_type)ev->type), ev->tid,
			 what);
	return 1;
}

static int nomem(struct ecp_error *err)
{
	return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory building the model");
}

/* ------------------------------------------------------------- sched lists */

static int cmp_rec(const void *a, const void *b)
{
	const struct sched_rec *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Turns the switch records of one tid into sorted on-CPU intervals with
 * prefix sums.  A first record that is a switch-out means the thread was on
 * CPU before the records start; a last switch-in means it still was at the
 * end. */
static int seal_list(struct ecp_builder *b, struct sched_list *l)
{
	size_t n = l->recs.len;
	struct sched_rec *r = l->recs.data;
	qsort(r, n, sizeof(*r), cmp_rec);
	size_t cap = n + 1;
	l->in = malloc(cap * sizeof(uint64_t));
	l->out = malloc(cap * sizeof(uint64_t));
	l->cum = malloc(cap * sizeof(uint64_t));
	l->preempt = malloc(cap);
	if (!l->in || !l->out || !l->cum || !l->preempt)
		return -1;
	bool on = false;
	uint64_t start = 0, cum = 0;
	for (size_t i = 0; i < n; i++) {
		if (!r[i].out) {
			if (on) {
				b->warn[WARN_SWITCH_INCONSISTENT]++;
				continue;
			}
			on = true;
			start = r[i].ts;
		} else {
			if (!on && l->n) {
				b->warn[WARN_SWITCH_INCONSISTENT]++;
				continue;
			}
			if (!on)
				start = 0;
			l->in[l->n] = start;
			l->out[l->n] = r[i].ts;
			l->preempt[l->n] = r[i].preempt;
			l->cum[l->n] = cum;
			cum += r[i].ts - start;
			l->n++;
			on = false;
		}
	}
	if (on) {
		l->in[l->n] = start;
		l->out[l->n] = UINT64_MAX;
		l->preempt[l->n] = 0;
		l->cum[l->n] = cum;
		l->n++;
	}
	ecp_vec_finish(&l->recs);
	return 0;
}

/* Index of the last interval starting at or before ts, or SIZE_MAX. */
static size_t interval_at(struct sched_list *l, uint64_t ts)
{
	size_t h = l->hint;
	if (h < l->n && l->in[h] <= ts && (h + 1 == l->n || l->in[h + 1] > ts))
		return h;
	if (h + 1 < l->n && l->in[h + 1] <= ts && (h + 2 == l->n || l->in[h + 2] > ts))
		return l->hint = h + 1;
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->in[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return SIZE_MAX;
	return l->hint = lo - 1;
}

static uint64_t sched_cpu_at(struct sched_list *l, uint64_t ts)
{
	size_t i = interval_at(l, ts);
	if (i == SIZE_MAX)
		return 0;
	uint64_t end = ts < l->out[i] ? ts : l->out[i];
	return l->cum[i] + (end - l->in[i]);
}

/* Time in [from, to) the thread spent off CPU after a switch-out that left
 * it not runnable (it slept); preempted gaps are time-slicing, not delay. */
static uint64_t sched_blocked(struct sched_list *l, uint64_t from, uint64_t to)
{
	uint64_t sum = 0;
	size_t i = interval_at(l, from);
	if (i == SIZE_MAX)
		i = 0;
	for (; i < l->n && l->out[i] < to; i++) {
		if (l->preempt[i])
			continue;
		uint64_t gs = l->out[i];
		uint64_t ge = i + 1 < l->n ? l->in[i + 1] : UINT64_MAX;
		if (gs < from)
			gs = from;
		if (ge > to)
			ge = to;
		if (ge > gs)
			sum += ge - gs;
	}
	return sum;
}

/* ------------------------------------------------------------- registries */

static ecp_id function_of(struct ecp_builder *b, uint64_t addr)
{
	uint64_t *v = ecp_hmap_get(&b->fn_by_addr, addr);
	if (v)
		return (ecp_id)*v;
	struct fn *f = ecp_vec_push(&b->fns);
	if (!f)
		return ECP_NO_ID;
	f->addr = addr;
	ecp_id id = (ecp_id)(b->fns.len - 1);
	if (ecp_hmap_put(&b->fn_by_addr, addr, id) < 0)
		return ECP_NO_ID;
	return id;
}

/* Looks up an object of a registry by address, creating it zeroed. */
static void *object_of(struct ecp_vec *vec, struct ecp_hmap *map, uint64_t addr,
		       bool *created)
{
	uint64_t *v = ecp_hmap_get(map, addr);
	if (created)
		*created = !v;
	if (v)
		return (char *)vec->data + *v * vec->elem_size;
	void *o = ecp_vec_push(vec);
	if (!o || ecp_hmap_put(map, addr, vec->len - 1) < 0)
		return NULL;
	return o;
}

static struct block *lock_of(struct ecp_builder *b, uint64_t addr, uint32_t kind)
{
	bool created;
	struct block *l = object_of(&b->locks, &b->lock_by_addr, addr, &created);
	if (l && created) {
		l->addr = addr;
		l->kind = kind;
		l->holder = ECP_NO_ID;
		l->last_release_seg = ECP_NO_ID;
		l->last_release_thread = ECP_NO_ID;
	}
	return l;
}

static ecp_id lock_id(struct ecp_builder *b, const struct block *l)
{
	return (ecp_id)(l - (const struct block *)b->locks.data);
}

/* ----------------------------------------------------------------- clocks */

static uint64_t sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* The thread's CPU clock at a synchronization event, agent cost removed,
 * kept monotonic. */
static uint64_t cpu_clock(struct ecp_builder *b, struct bthread *th,
			  const struct ecp_event *ev)
{
	uint64_t raw;
	if (b->opts.clock == ECP_CLOCK_THREAD_CPUTIME)
		raw = ev->cpu_ns ? ev->cpu_ns : th->cpu_ns_last;
	else
		raw = th->sched ? sched_cpu_at(th->sched, ev->ts) : ev->ts;
	if (b->opts.clock == ECP_CLOCK_THREAD_CPUTIME && ev->cpu_ns)
		th->cpu_ns_last = ev->cpu_ns;
	uint64_t v = sat_sub(raw, b->opts.event_cost_ns * th->n_events);
	if (v < th->v_last)
		v = th->v_last;
	th->v_last = v;
	return v;
}

/* The function clock at a function event's ts: exact CPU time with switch
 * records; with thread-cputime, wall time since the segment began, scaled
 * to CPU time when the segment closes. */
static uint64_t func_clock(struct ecp_builder *b, struct bthread *th, uint64_t ts)
{
	if (b->opts.clock == ECP_CLOCK_THREAD_CPUTIME)
		return th->seg_v0 + sat_sub(ts, th->seg_wall0);
	uint64_t raw = th->sched ? sched_cpu_at(th->sched, ts) : ts;
	uint64_t v = sat_sub(raw, b->opts.event_cost_ns * th->n_events);
	if (v < th->v_last)
		v = th->v_last;
	th->v_last = v;
	return v;
}

/* ----------------------------------------------------- function activity */

static struct act_slot *act(struct bthread *th, ecp_id func)
{
	uint64_t *v = ecp_hmap_get(&th->act_idx, func);
	if (v)
		return &ECP_VEC_AT(&th->acts, struct act_slot, *v);
	struct act_slot *s = ecp_vec_push(&th->acts);
	if (!s || ecp_hmap_put(&th->act_idx, func, th->acts.len - 1) < 0)
		return NULL;
	s->func = func;
	return s;
}

static ecp_id top_function(struct bthread *th)
{
	if (th->frames.len)
		return ECP_VEC_AT(&th->frames, struct frame, th->frames.len - 1).func;
	return th->start_fn;
}

/* Charges [f_last, t) as self time of whatever is on top. */
static int advance(struct bthread *th, uint64_t t)
{
	if (t <= th->f_last)
		return 0;
	struct act_slot *s = act(th, top_function(th));
	if (!s)
		return -1;
	s->self += t - th->f_last;
	th->f_last = t;
	return 0;
}

static int push_call(struct ecp_builder *b, struct bthread *th, const struct frame *fr,
		     uint32_t depth, uint64_t t, uint32_t flags)
{
	if (!b->opts.keep_calls)
		return 0;
	struct ecp_call *c = ecp_vec_push(&b->calls);
	if (!c)
		return -1;
	c->thread = th->index;
	c->function = fr->func;
	c->depth = depth;
	c->flags = flags;
	c->enter = sat_sub(fr->enter, th->v_start);
	c->exit = sat_sub(t, th->v_start);
	if (c->exit < c->enter)
		c->exit = c->enter;
	return 0;
}

/* Pops the top frame at function clock t. */
static int pop_frame(struct ecp_builder *b, struct bthread *th, uint64_t t,
		     uint32_t flags)
{
	struct frame fr = ECP_VEC_AT(&th->frames, struct frame, th->frames.len - 1);
	th->frames.len--;
	if (fr.outermost) {
		struct act_slot *s = act(th, fr.func);
		if (!s)
			return -1;
		s->incl += t - fr.incl_from;
	}
	uint64_t *d = ecp_hmap_get(&th->depth, fr.func);
	if (d && *d)
		(*d)--;
	return push_call(b, th, &fr, (uint32_t)th->frames.len, t, flags);
}

static int func_entry(struct ecp_builder *b, struct bthread *th, uint64_t t,
		      uint64_t addr)
{
	ecp_id f = function_of(b, addr);
	if (f == ECP_NO_ID || advance(th, t) < 0)
		return -1;
	struct act_slot *s = act(th, f);
	if (!s)
		return -1;
	s->calls++;
	uint64_t *d = ecp_hmap_get(&th->depth, f);
	uint64_t depth = d ? *d : 0;
	if (ecp_hmap_put(&th->depth, f, depth + 1) < 0)
		return -1;
	struct frame *fr = ecp_vec_push(&th->frames);
	if (!fr)
		return -1;
	fr->func = f;
	fr->outermost = depth == 0;
	fr->enter = t;
	fr->incl_from = t;
	return 0;
}

/* An exit (or an unwind) of addr: pops down to the matching frame; frames
 * above it were left without their exit and are closed here. */
static int func_exit(struct ecp_builder *b, struct bthread *th, uint64_t t, uint64_t addr)
{
	if (advance(th, t) < 0)
		return -1;
	uint64_t *fid = ecp_hmap_get(&b->fn_by_addr, addr);
	size_t k = th->frames.len;
	if (fid) {
		while (k > 0 && ECP_VEC_AT(&th->frames, struct frame, k - 1).func != *fid)
			k--;
	} else {
		k = 0;
	}
	if (k == 0) {
		b->warn[WARN_EXIT_WITHOUT_ENTRY]++;
		return 0;
	}
	while (th->frames.len > k) {
		b->warn[WARN_ENTRY_WITHOUT_EXIT]++;
		if (pop_frame(b, th, t, ECP_CALL_REPAIRED) < 0)
			return -1;
	}
	return pop_frame(b, th, t, 0);
}

/* -------------------------------------------------------------- segments */

static int add_edge(struct ecp_builder *b, ecp_id from, ecp_id to, uint32_t kind)
{
	struct tmp_edge *e = ecp_vec_push(&b->edges);
	if (!e)
		return -1;
	e->from = from;
	e->to = to;
	e->kind = kind;
	return 0;
}

/* An edge into the thread's accumulating (or next) segment. */
static int pend_edge(struct bthread *th, ecp_id from, uint32_t kind)
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
static ecp_id close_segment(struct ecp_builder *b, struct bthread *th, uint64_t ts,
			    uint64_t v, ecp_id lock_release)
{
	/* Function clock at the boundary, in the units the activities use. */
	uint64_t fend = b->opts.clock == ECP_CLOCK_THREAD_CPUTIME
			    ? th->seg_v0 + sat_sub(ts, th->seg_wall0)
			    : v;
	if (fend < th->f_last)
		fend = th->f_last;
	if (advance(th, fend) < 0)
		return ECP_NO_ID;
	for (size_t i = 0; i < th->frames.len; i++) {
		struct frame *fr = &ECP_VEC_AT(&th->frames, struct frame, i);
		if (!fr->outermost)
			continue;
		struct act_slot *s = act(th, fr->func);
		if (!s)
			return ECP_NO_ID;
		s->incl += fend - fr->incl_from;
	}
	uint64_t length = v - th->seg_v0;
	struct act_slot *root = act(th, th->start_fn);
	if (!root)
		return ECP_NO_ID;
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
	/* the start routine is on the stack for the whole segment */
	root->incl = length;
	if (root->self > root->incl)
		root->self = root->incl;

	ecp_id id = (ecp_id)b->segments.len;
	struct ecp_segment *seg = ecp_vec_push(&b->segments);
	if (!seg)
		return ECP_NO_ID;
	seg->thread = th->index;
	seg->lock_acquire = th->seg_lock;
	seg->lock_release = lock_release;
	seg->acquire_mode = th->seg_mode;
	seg->length = length;
	seg->delay = th->seg_delay;
	seg->cpu_start = th->seg_v0 - th->v_start;
	seg->rec_start = sat_sub(th->seg_rec_start, b->t0);
	seg->rec_end = sat_sub(ts, b->t0);
	if (seg->rec_end < seg->rec_start)
		seg->rec_end = seg->rec_start;
	seg->first_activity = b->activities.len;
	seg->n_activity = (uint32_t)th->acts.len;
	for (size_t i = 0; i < th->acts.len; i++) {
		const struct act_slot *s = &ECP_VEC_AT(&th->acts, struct act_slot, i);
		struct ecp_activity *a = ecp_vec_push(&b->activities);
		if (!a)
			return ECP_NO_ID;
		a->function = s->func;
		a->calls = s->calls;
		a->self_ns = s->self;
		a->incl_ns = s->incl;
	}
	th->acts.len = 0;
	ecp_hmap_clear(&th->act_idx);
	for (size_t i = 0; i < th->pend.len; i++) {
		const struct pend_edge *p = &ECP_VEC_AT(&th->pend, struct pend_edge, i);
		if (add_edge(b, p->from, id, p->kind) < 0)
			return ECP_NO_ID;
	}
	th->pend.len = 0;
	uint32_t *slot = ecp_vec_push(&th->segs);
	if (!slot)
		return ECP_NO_ID;
	*slot = id;
	if (th->first_seg == ECP_NO_ID)
		th->first_seg = id;
	th->last_seg = id;

	for (size_t i = 0; i < th->frames.len; i++)
		ECP_VEC_AT(&th->frames, struct frame, i).incl_from = v;
	th->f_last = v;
	th->seg_v0 = v;
	th->seg_wall0 = ts;
	th->seg_rec_start = ts;
	th->seg_lock = ECP_NO_ID;
	th->seg_mode = 0;
	th->seg_delay = 0;
	return id;
}

/* The end of a wait opens the accumulating segment: it starts here. */
static void open_segment(struct bthread *th, uint64_t ts, ecp_id lock, uint8_t mode,
			 uint64_t delay)
{
	th->seg_rec_start = ts;
	th->seg_lock = lock;
	th->seg_mode = mode;
	th->seg_delay += delay;
}

/* Off-CPU, not-runnable time of the thread in [from_ts, to_ts]. */
static uint64_t blocked_time(struct ecp_builder *b, struct bthread *th, uint64_t from_ts,
			     uint64_t to_ts, uint64_t from_cpu, uint64_t to_cpu)
{
	if (to_ts <= from_ts)
		return 0;
	if (b->opts.clock == ECP_CLOCK_THREAD_CPUTIME)
		return sat_sub(to_ts - from_ts, sat_sub(to_cpu, from_cpu));
	if (th->sched)
		return sched_blocked(th->sched, from_ts, to_ts);
	/* No switch records: the wall time of the call minus nothing. */
	return to_ts - from_ts;
}

/* ------------------------------------------------------------------ threads */

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
	th->cond_from = th->barrier_from = ECP_NO_ID;
	ecp_vec_init(&th->pend, sizeof(struct pend_edge));
	ecp_vec_init(&th->segs, sizeof(uint32_t));
	ecp_vec_init(&th->frames, sizeof(struct frame));
	ecp_vec_init(&th->acts, sizeof(struct act_slot));
	ecp_hmap_init(&th->depth);
	ecp_hmap_init(&th->act_idx);
	uint64_t *sl = ecp_hmap_get(&b->sched_by_tid, ev->tid);
	if (sl)
		th->sched = ECP_VEC_AT(&b->sched_lists, struct sched_list *, *sl);
	else if (b->any_switch)
		b->warn[WARN_NO_SWITCHES]++;
	if (ecp_hmap_put(&b->thread_by_tid, ev->tid, th->index) < 0)
		return NULL;
	return th;
}

static void thread_free(struct bthread *th)
{
	if (!th)
		return;
	ecp_vec_finish(&th->pend);
	ecp_vec_finish(&th->segs);
	ecp_vec_finish(&th->frames);
	ecp_vec_finish(&th->acts);
	ecp_hmap_finish(&th->depth);
	ecp_hmap_finish(&th->act_idx);
	free(th);
}

static struct bthread *thread_at(struct ecp_builder *b, ecp_id i)
{
	return ECP_VEC_AT(&b->threads, struct bthread *, i);
}

/* Closes every frame still open (entries without exits) at clock t. */
static int unwind_all(struct ecp_builder *b, struct bthread *th, uint64_t t)
{
	if (advance(th, t) < 0)
		return -1;
	while (th->frames.len) {
		b->warn[WARN_ENTRY_WITHOUT_EXIT]++;
		if (pop_frame(b, th, t, ECP_CALL_REPAIRED) < 0)
			return -1;
	}
	return 0;
}

/* --------------------------------------------------------------- creation */

int ecp_builder_create(const struct ecp_builder_options *opts, struct ecp_builder **out,
		       struct ecp_error *err)
{
	struct ecp_builder *b = calloc(1, sizeof(*b));
	if (!b)
		return nomem(err);
	b->opts = *opts;
	if (opts->trace_path && !(b->trace_path = strdup(opts->trace_path))) {
		free(b);
		return nomem(err);
	}
	b->opts.trace_path = b->trace_path;
	b->ts_tolerance = 4 * opts->event_cost_ns > 1000 ? 4 * opts->event_cost_ns : 1000;
	ecp_vec_init(&b->sched_lists, sizeof(struct sched_list *));
	ecp_vec_init(&b->threads, sizeof(struct bthread *));
	ecp_vec_init(&b->segments, sizeof(struct ecp_segment));
	ecp_vec_init(&b->edges, sizeof(struct tmp_edge));
	ecp_vec_init(&b->activities, sizeof(struct ecp_activity));
	ecp_vec_init(&b->calls, sizeof(struct ecp_call));
	ecp_vec_init(&b->fns, sizeof(struct fn));
	ecp_vec_init(&b->locks, sizeof(struct block));
	ecp_vec_init(&b->conds, sizeof(struct bcond));
	ecp_vec_init(&b->sems, sizeof(struct bsem));
	ecp_vec_init(&b->barriers, sizeof(struct bbarrier));
	ecp_vec_init(&b->onces, sizeof(struct bonce));
	ecp_hmap_init(&b->sched_by_tid);
	ecp_hmap_init(&b->thread_by_tid);
	ecp_hmap_init(&b->thread_by_handle);
	ecp_hmap_init(&b->create_parent);
	ecp_hmap_init(&b->create_child);
	ecp_hmap_init(&b->fn_by_addr);
	ecp_hmap_init(&b->lock_by_addr);
	ecp_hmap_init(&b->cond_by_addr);
	ecp_hmap_init(&b->sem_by_addr);
	ecp_hmap_init(&b->barrier_by_addr);
	ecp_hmap_init(&b->once_by_addr);
	b->main_pseudo_fn = ECP_NO_ID;
	*out = b;
	return ECP_OK;
}

void ecp_builder_destroy(struct ecp_builder *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->sched_lists.len; i++) {
		struct sched_list *l =
		    ECP_VEC_AT(&b->sched_lists, struct sched_list *, i);
		ecp_vec_finish(&l->recs);
		free(l->in);
		free(l->out);
		free(l->cum);
		free(l->preempt);
		free(l);
	}
	for (size_t i = 0; i < b->threads.len; i++)
		thread_free(thread_at(b, (ecp_id)i));
	for (size_t i = 0; i < b->conds.len; i++)
		ecp_vec_finish(&ECP_VEC_AT(&b->conds, struct bcond, i).waiters);
	for (size_t i = 0; i < b->sems.len; i++)
		ecp_vec_finish(&ECP_VEC_AT(&b->sems, struct bsem, i).posts);
	for (size_t i = 0; i < b->barriers.len; i++) {
		ecp_vec_finish(&ECP_VEC_AT(&b->barriers, struct bbarrier, i).arrivals);
		ecp_vec_finish(
		    &ECP_VEC_AT(&b->barriers, struct bbarrier, i).arrival_segs);
	}
	ecp_vec_finish(&b->sched_lists);
	ecp_vec_finish(&b->threads);
	ecp_vec_finish(&b->segments);
	ecp_vec_finish(&b->edges);
	ecp_vec_finish(&b->activities);
	ecp_vec_finish(&b->calls);
	ecp_vec_finish(&b->fns);
	ecp_vec_finish(&b->locks);
	ecp_vec_finish(&b->conds);
	ecp_vec_finish(&b->sems);
	ecp_vec_finish(&b->barriers);
	ecp_vec_finish(&b->onces);
	ecp_hmap_finish(&b->sched_by_tid);
	ecp_hmap_finish(&b->thread_by_tid);
	ecp_hmap_finish(&b->thread_by_handle);
	ecp_hmap_finish(&b->create_parent);
	ecp_hmap_finish(&b->create_child);
	ecp_hmap_finish(&b->fn_by_addr);
	ecp_hmap_finish(&b->lock_by_addr);
	ecp_hmap_finish(&b->cond_by_addr);
	ecp_hmap_finish(&b->sem_by_addr);
	ecp_hmap_finish(&b->barrier_by_addr);
	ecp_hmap_finish(&b->once_by_addr);
	free(b->trace_path);
	free(b);
}

int ecp_builder_set_comm(struct ecp_builder *b, uint64_t tid, const char *name)
{
	uint64_t *ti = ecp_hmap_get(&b->thread_by_tid, tid);
	if (!ti || !name)
		return 0;
	struct bthread *th = thread_at(b, (ecp_id)*ti);
	if (!th->named)
		snprintf(th->name, sizeof(th->name), "%s", name);
	return 0;
}

/* ------------------------------------------------------------------ pushes */

static int push_switch(struct ecp_builder *b, const struct ecp_event *ev,
		       struct ecp_error *err)
{
	if (b->sealed) {
		int rc =
		    inconsistent(b, err, ev,
				 "context-switch record after the program's events (the "
				 "sched trace must be pushed first)");
		return rc > 0 ? ECP_OK : rc; /* skipped */
	}
	b->any_switch = true;
	uint64_t *v = ecp_hmap_get(&b->sched_by_tid, ev->tid);
	struct sched_list *l;
	if (v) {
		l = ECP_VEC_AT(&b->sched_lists, struct sched_list *, *v);
	} else {
		l = calloc(1, sizeof(*l));
		struct sched_list **slot = l ? ecp_vec_push(&b->sched_lists) : NULL;
		if (!slot) {
			free(l);
			return nomem(err);
		}
		*slot = l;
		ecp_vec_init(&l->recs, sizeof(struct sched_rec));
		if (ecp_hmap_put(&b->sched_by_tid, ev->tid, b->sched_lists.len - 1) < 0)
			return nomem(err);
	}
	struct sched_rec *r = ecp_vec_push(&l->recs);
	if (!r)
		return nomem(err);
	r->ts = ev->ts;
	r->out = ev->a != 0;
	r->preempt = ev->b != 0;
	return ECP_OK;
}

static int seal(struct ecp_builder *b, struct ecp_error *err)
{
	for (size_t i = 0; i < b->sched_lists.len; i++)
		if (seal_list(b, ECP_VEC_AT(&b->sched_lists, struct sched_list *, i)) < 0)
			return nomem(err);
	b->sealed = true;
	return ECP_OK;
}

/* The start function of a thread_start: the function at `addr`, or for the
 * main thread with `main` unknown (addr 0), a named pseudo-function. */
static ecp_id start_function(struct ecp_builder *b, uint64_t addr)
{
	if (addr)
		return function_of(b, addr);
	if (b->main_pseudo_fn == ECP_NO_ID) {
		struct fn *f = ecp_vec_push(&b->fns);
		if (!f)
			return ECP_NO_ID;
		f->addr = 0;
		b->main_pseudo_fn = (ecp_id)(b->fns.len - 1);
	}
	return b->main_pseudo_fn;
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
	uint64_t v = cpu_clock(b, th, ev);
	while (th->frames.len)
		if (pop_frame(b, th, v > th->f_last ? v : th->f_last, 0) < 0)
			return nomem(err);
	ecp_id fn = start_function(b, ev->b);
	if (fn == ECP_NO_ID)
		return nomem(err);
	th->start_fn = fn;
	th->acts.len = 0;
	ecp_hmap_clear(&th->act_idx);
	th->v_start = th->seg_v0 = th->f_last = v;
	th->seg_wall0 = th->seg_rec_start = th->last_ts = ev->ts;
	th->n_events++;
	if (th->sched && b->opts.clock == ECP_CLOCK_PERF_SWITCH) {
		th->clock_first = ev->cpu_ns;
		th->sched_first = sched_cpu_at(th->sched, ev->ts);
	}
	/* (the old image's handle stays mapped: nothing can join it) */
	th->handle = ev->c;
	if (ecp_hmap_put(&b->thread_by_handle, th->handle, th->index) < 0)
		return nomem(err);
	return ECP_OK;
}

static int ev_thread_start(struct ecp_builder *b, const struct ecp_event *ev,
			   struct ecp_error *err)
{
	uint64_t *ti = ecp_hmap_get(&b->thread_by_tid, ev->tid);
	if (ti && !thread_at(b, (ecp_id)*ti)->exited) {
		if (ev->a == 0)
			return ev_exec(b, thread_at(b, (ecp_id)*ti), ev, err);
		int rc = inconsistent(b, err, ev, "thread_start of a thread already started");
		return rc > 0 ? ECP_OK : rc; /* skipped */
	}
	struct bthread *th = thread_new(b, ev);
	if (!th)
		return nomem(err);
	th->handle = ev->c;
	/* a thread other than main with start_routine 0 gets function 0x0 */
	th->start_fn = ev->a == 0 ? start_function(b, ev->b) : function_of(b, ev->b);
	if (th->start_fn == ECP_NO_ID)
		return nomem(err);
	if (ecp_hmap_put(&b->thread_by_handle, th->handle, th->index) < 0)
		return nomem(err);
	th->last_ts = ev->ts;
	if (th->sched && b->opts.clock == ECP_CLOCK_PERF_SWITCH) {
		th->clock_first = ev->cpu_ns;
		th->sched_first = sched_cpu_at(th->sched, ev->ts);
	}
	uint64_t v = cpu_clock(b, th, ev);
	th->v_start = th->seg_v0 = th->f_last = v;
	th->n_events = 1; /* the thread_start event itself */
	th->seg_wall0 = th->seg_rec_start = ev->ts;
	if (ev->a != 0) {
		uint64_t *p = ecp_hmap_get(&b->create_parent, ev->a);
		if (p && *p != UINT64_MAX) {
			/* parent's segment that ended at pthread_create */
			if (pend_edge(th, (ecp_id)(*p & 0xffffffffu), ECP_EDGE_CREATE) <
			    0)
				return nomem(err);
			th->parent = (ecp_id)(*p >> 32);
			*p = UINT64_MAX; /* matched */
		} else if (ecp_hmap_put(&b->create_child, ev->a, th->index) < 0) {
			return nomem(err);
		}
	}
	return ECP_OK;
}

static int ev_thread_create(struct ecp_builder *b, struct bthread *th,
			    const struct ecp_event *ev, uint64_t v, struct ecp_error *err)
{
	if (!ev->c)
		return ECP_OK; /* pthread_create failed: nothing started */
	ecp_id seg = close_segment(b, th, ev->ts, v, ECP_NO_ID);
	if (seg == ECP_NO_ID)
		return nomem(err);
	uint64_t *ci = ecp_hmap_get(&b->create_child, ev->a);
	if (ci && *ci != UINT64_MAX) {
		/* The child ran before pthread_create returned (one CPU). */
		struct bthread *child = thread_at(b, (ecp_id)*ci);
		child->parent = th->index;
		int rc = child->first_seg != ECP_NO_ID
			     ? add_edge(b, seg, child->first_seg, ECP_EDGE_CREATE)
			     : pend_edge(child, seg, ECP_EDGE_CREATE);
		if (rc < 0)
			return nomem(err);
		*ci = UINT64_MAX; /* matched */
	} else if (ecp_hmap_put(&b->create_parent, ev->a,
				((uint64_t)th->index << 32) | seg) < 0) {
		return nomem(err);
	}
	return ECP_OK;
}

static int begin_wait(struct ecp_builder *b, struct bthread *th,
		      const struct ecp_event *ev, int kind, uint64_t obj, uint64_t v)
{
	if (th->wait != W_NONE)
		b->warn[WARN_NESTED_WAIT]++;
	th->wait = kind;
	th->wait_obj = obj;
	th->wait_ts = ev->ts;
	th->wait_cpu = v;
	th->wait_timeout = 0;
	return 0;
}

/* The delay of a timed wait that timed out: the time it slept.  Switch
 * records do not say when the timer woke the thread, only when it ran
 * again, so a thread that then waited for the CPU would count that wait
 * too: the requested timeout bounds it. */
static uint64_t timeout_delay(struct ecp_builder *b, struct bthread *th, uint64_t ts,
			      uint64_t v)
{
	uint64_t d = blocked_time(b, th, th->wait_ts, ts, th->wait_cpu, v);
	if (th->wait_timeout && th->wait_timeout != UINT64_MAX && d > th->wait_timeout)
		d = th->wait_timeout;
	return d;
}

static int end_wait(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		    int kind, struct ecp_error *err)
{
	if (th->wait != kind) {
		int rc =
		    inconsistent(b, err, ev, "wait end without begin (thread is %s%s)",
				 th->wait == W_NONE ? "not waiting" : "waiting in ",
				 th->wait == W_NONE ? "" : wait_names[th->wait]);
		if (rc < 0)
			return rc;
		/* repaired: the wait ends here as if it had begun */
	}
	th->wait = W_NONE;
	return ECP_OK;
}

/* Marks lock l acquired by th; returns true when this is a recursive
 * re-acquire (no synchronization). */
static bool take_lock(struct ecp_builder *b, struct bthread *th, struct block *l,
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
	if (l->holder != ECP_NO_ID)
		b->warn[WARN_LOCK_CONFLICT]++;
	l->holder = th->index;
	l->depth = 1;
	return false;
}

static int acquired(struct ecp_builder *b, struct bthread *th, struct block *l,
		    uint8_t mode)
{
	if (l->last_release_seg != ECP_NO_ID && l->last_release_thread != th->index)
		return pend_edge(th, l->last_release_seg, ECP_EDGE_LOCK);
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
	return ECP_ERR;
}

static const char *const lock_kind_names[] = {"mutex", "spinlock", "rwlock"};

static const char *lock_kind_name(uint32_t kind)
{
	return kind < 3 ? lock_kind_names[kind] : "lock";
}

static int release(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		   struct block *l, uint64_t v, struct ecp_error *err, ecp_id *seg_out)
{
	bool sync;
	*seg_out = ECP_NO_ID;
	if (give_lock(th, l, &sync) < 0) {
		int rc = inconsistent(b, err, ev,
				      "unlock of a %s that the thread does not hold "
				      "(%s 0x%llx, holder %s)",
				      lock_kind_name(l->kind), lock_kind_name(l->kind),
				      (unsigned long long)l->addr,
				      l->holder == ECP_NO_ID ? "none" : "another thread");
		return rc > 0 ? ECP_OK : rc; /* skipped: no boundary */
	}
	if (!sync)
		return ECP_OK;
	ecp_id seg = close_segment(b, th, ev->ts, v, lock_id(b, l));
	if (seg == ECP_NO_ID)
		return nomem(err);
	l->last_release_seg = seg;
	l->last_release_thread = th->index;
	*seg_out = seg;
	return ECP_OK;
}

static int ev_lock(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		   uint64_t v, struct ecp_error *err)
{
	struct block *l = lock_of(b, ev->a, (uint32_t)ev->b);
	if (!l)
		return nomem(err);
	switch (ev->type) {
	case ECP_EV_LOCK_INIT:
		l->kind = (uint32_t)ev->b;
		return ECP_OK;
	case ECP_EV_LOCK_REQUEST:
		if (close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return nomem(err);
		begin_wait(b, th, ev, W_LOCK, ev->a, v);
		return ECP_OK;
	case ECP_EV_LOCK_ACQUIRED: {
		uint8_t mode = (uint8_t)ev->c;
		bool was_waiting = th->wait == W_LOCK && th->wait_obj == ev->a;
		if (was_waiting)
			th->wait = W_NONE;
		if (take_lock(b, th, l, mode)) {
			if (was_waiting)
				open_segment(th, ev->ts, ECP_NO_ID, 0, 0);
			return ECP_OK;
		}
		/* a trylock (or an acquire without request) is a boundary too */
		if (!was_waiting &&
		    close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return nomem(err);
		open_segment(th, ev->ts, lock_id(b, l), mode, 0);
		if (acquired(b, th, l, mode) < 0)
			return nomem(err);
		return ECP_OK;
	}
	case ECP_EV_LOCK_FAILED:
		if (th->wait == W_LOCK && th->wait_obj == ev->a) {
			th->wait = W_NONE;
			uint64_t d = (int64_t)ev->c == ETIMEDOUT
					 ? blocked_time(b, th, th->wait_ts, ev->ts,
							th->wait_cpu, v)
					 : 0;
			open_segment(th, ev->ts, ECP_NO_ID, 0, d);
		}
		return ECP_OK; /* a failed trylock synchronizes nothing */
	case ECP_EV_LOCK_RELEASE: {
		ecp_id seg;
		return release(b, th, ev, l, v, err, &seg);
	}
	default:
		return ECP_OK;
	}
}

static int ev_cond(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		   uint64_t v, struct ecp_error *err)
{
	struct bcond *c = object_of(&b->conds, &b->cond_by_addr, ev->a, NULL);
	if (!c)
		return nomem(err);
	if (!c->waiters.elem_size)
		ecp_vec_init(&c->waiters, sizeof(ecp_id));
	switch (ev->type) {
	case ECP_EV_COND_WAIT_BEGIN: {
		struct block *l = lock_of(b, ev->b, ECP_LOCK_MUTEX);
		if (!l)
			return nomem(err);
		ecp_id seg;
		int rc = release(b, th, ev, l, v, err, &seg);
		if (rc < 0)
			return rc;
		if (seg == ECP_NO_ID &&
		    close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return nomem(err);
		begin_wait(b, th, ev, W_COND, ev->a, v);
		th->wait_timeout = ev->c;
		th->cond_woken = false;
		th->cond_from = ECP_NO_ID;
		ecp_id *w = ecp_vec_push(&c->waiters);
		if (!w)
			return nomem(err);
		*w = th->index;
		return ECP_OK;
	}
	case ECP_EV_COND_WAIT_END: {
		int rc = end_wait(b, th, ev, W_COND, err);
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
			if (pend_edge(th, th->cond_from, ECP_EDGE_COND) < 0)
				return nomem(err);
		} else if ((int64_t)ev->c == ETIMEDOUT) {
			d = timeout_delay(b, th, ev->ts, v);
		} else {
			b->warn[WARN_COND_UNWOKEN]++;
		}
		struct block *l = lock_of(b, ev->b, ECP_LOCK_MUTEX);
		if (!l)
			return nomem(err);
		take_lock(b, th, l, ECP_LOCK_EXCLUSIVE);
		open_segment(th, ev->ts, lock_id(b, l), ECP_LOCK_EXCLUSIVE, d);
		if (acquired(b, th, l, ECP_LOCK_EXCLUSIVE) < 0)
			return nomem(err);
		return ECP_OK;
	}
	case ECP_EV_COND_SIGNAL:
	case ECP_EV_COND_BROADCAST: {
		ecp_id seg = close_segment(b, th, ev->ts, v, ECP_NO_ID);
		if (seg == ECP_NO_ID)
			return nomem(err);
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

static int ev_sem(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		  uint64_t v, struct ecp_error *err)
{
	bool created;
	struct bsem *s = object_of(&b->sems, &b->sem_by_addr, ev->a, &created);
	if (!s)
		return nomem(err);
	if (created)
		ecp_vec_init(&s->posts, sizeof(ecp_id));
	switch (ev->type) {
	case ECP_EV_SEM_INIT:
		s->initial = ev->b;
		s->posts.len = 0;
		s->head = 0;
		return ECP_OK;
	case ECP_EV_SEM_WAIT_BEGIN:
		if (close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return nomem(err);
		begin_wait(b, th, ev, W_SEM, ev->a, v);
		th->wait_timeout = ev->b;
		return ECP_OK;
	case ECP_EV_SEM_WAIT_END: {
		int rc = end_wait(b, th, ev, W_SEM, err);
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
				if (pend_edge(th, from, ECP_EDGE_SEM) < 0)
					return nomem(err);
				if (s->head == s->posts.len)
					s->head = s->posts.len = 0;
			} else {
				b->warn[WARN_SEM_NO_TOKEN]++;
			}
		} else if ((int64_t)ev->b == ETIMEDOUT) {
			d = timeout_delay(b, th, ev->ts, v);
		}
		open_segment(th, ev->ts, ECP_NO_ID, 0, d);
		return ECP_OK;
	}
	case ECP_EV_SEM_POST: {
		ecp_id seg = close_segment(b, th, ev->ts, v, ECP_NO_ID);
		if (seg == ECP_NO_ID)
			return nomem(err);
		ecp_id *p = ecp_vec_push(&s->posts);
		if (!p)
			return nomem(err);
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

static int ev_barrier(struct ecp_builder *b, struct bthread *th,
		      const struct ecp_event *ev, uint64_t v, struct ecp_error *err)
{
	bool created;
	struct bbarrier *br =
	    object_of(&b->barriers, &b->barrier_by_addr, ev->a, &created);
	if (!br)
		return nomem(err);
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
		ecp_id seg = close_segment(b, th, ev->ts, v, ECP_NO_ID);
		if (seg == ECP_NO_ID)
			return nomem(err);
		begin_wait(b, th, ev, W_BARRIER, ev->a, v);
		th->barrier_woken = false;
		ecp_id *a = ecp_vec_push(&br->arrivals);
		ecp_id *s = ecp_vec_push(&br->arrival_segs);
		if (!a || !s)
			return nomem(err);
		*a = th->index;
		*s = seg;
		if (br->count && br->arrivals.len >= br->count)
			complete_round(b, br);
		return ECP_OK;
	}
	case ECP_EV_BARRIER_WAIT_END: {
		int rc = end_wait(b, th, ev, W_BARRIER, err);
		if (rc < 0)
			return rc;
		/* Without barrier_init the count is unknown: the first thread
		 * to leave proves the round complete. */
		if (!th->barrier_woken && !br->count)
			complete_round(b, br);
		if (th->barrier_woken &&
		    pend_edge(th, th->barrier_from, ECP_EDGE_BARRIER) < 0)
			return nomem(err);
		th->barrier_woken = false;
		open_segment(th, ev->ts, ECP_NO_ID, 0, 0);
		return ECP_OK;
	}
	default:
		return ECP_OK;
	}
}

static int ev_once(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		   uint64_t v, struct ecp_error *err)
{
	bool created;
	struct bonce *o = object_of(&b->onces, &b->once_by_addr, ev->a, &created);
	if (!o)
		return nomem(err);
	if (created)
		o->done_seg = o->done_thread = ECP_NO_ID;
	if (ev->type == ECP_EV_ONCE_BEGIN) {
		if (close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return nomem(err);
		begin_wait(b, th, ev, W_ONCE, ev->a, v);
		return ECP_OK;
	}
	int rc = end_wait(b, th, ev, W_ONCE, err);
	if (rc < 0)
		return rc;
	if (ev->b) {
		/* this thread ran the initializer: its end releases the others */
		ecp_id seg = close_segment(b, th, ev->ts, v, ECP_NO_ID);
		if (seg == ECP_NO_ID)
			return nomem(err);
		o->done_seg = seg;
		o->done_thread = th->index;
	} else if (o->done_thread != ECP_NO_ID && o->done_thread != th->index) {
		if (pend_edge(th, o->done_seg, ECP_EDGE_ONCE) < 0)
			return nomem(err);
	}
	open_segment(th, ev->ts, ECP_NO_ID, 0, 0);
	return ECP_OK;
}

static int ev_join(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		   uint64_t v, struct ecp_error *err)
{
	if (ev->type == ECP_EV_THREAD_JOIN_BEGIN) {
		if (close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
			return nomem(err);
		begin_wait(b, th, ev, W_JOIN, ev->a, v);
		return ECP_OK;
	}
	int rc = end_wait(b, th, ev, W_JOIN, err);
	if (rc < 0)
		return rc;
	if (ev->b) {
		uint64_t *ji = ecp_hmap_get(&b->thread_by_handle, ev->a);
		struct bthread *jt = ji ? thread_at(b, (ecp_id)*ji) : NULL;
		if (jt && jt->exited && jt->last_seg != ECP_NO_ID) {
			if (pend_edge(th, jt->last_seg, ECP_EDGE_JOIN) < 0)
				return nomem(err);
		} else {
			b->warn[WARN_JOIN_UNKNOWN]++;
		}
	}
	open_segment(th, ev->ts, ECP_NO_ID, 0, 0);
	return ECP_OK;
}

static int ev_delay(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		    uint64_t v, struct ecp_error *err)
{
	if (ev->type == ECP_EV_DELAY_BEGIN) {
		th->in_delay = true;
		th->delay_timeout = ev->c;
		th->delay_ts = ev->ts;
		th->delay_cpu = v;
		return ECP_OK;
	}
	if (!th->in_delay) {
		int rc = inconsistent(
		    b, err, ev, "wait end without begin (delay_end without delay_begin)");
		return rc > 0 ? ECP_OK : rc; /* skipped */
	}
	th->in_delay = false;
	uint64_t d = blocked_time(b, th, th->delay_ts, ev->ts, th->delay_cpu, v);
	/* Switch records do not say when the thread was woken: on one CPU it
	 * may wait, runnable, for the CPU after its sleep ended.  That wait is
	 * not the program's delay; the requested duration bounds it. */
	if (th->delay_timeout && d > th->delay_timeout)
		d = th->delay_timeout;
	/* a call that did not block is plain CPU time: no boundary */
	if (!d)
		return ECP_OK;
	if (close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
		return nomem(err);
	open_segment(th, ev->ts, ECP_NO_ID, 0, d);
	return ECP_OK;
}

static bool is_function_event(uint16_t type)
{
	return type <= ECP_EV_FUNC_UNWOUND;
}

int ecp_builder_push(struct ecp_builder *b, const struct ecp_event *in,
		     struct ecp_error *err)
{
	/* a copy, so that a repaired (clamped) time is used everywhere below */
	struct ecp_event copy = *in;
	struct ecp_event *ev = &copy;
	if (ev->type >= ECP_EV_COUNT) {
		int rc = inconsistent(b, err, ev, "unknown event type %u", ev->type);
		return rc > 0 ? ECP_OK : rc;
	}
	if (ev->type == ECP_EV_SCHED_SWITCH)
		return push_switch(b, ev, err);
	if (ev->type == ECP_EV_SCHED_LOST) {
		b->lost += ev->a;
		return ECP_OK;
	}
	if (!b->sealed) {
		int rc = seal(b, err);
		if (rc < 0)
			return rc;
		b->t0 = ev->ts;
	}
	b->events++;
	bool func = is_function_event(ev->type);
	if (!func) {
		if (ev->ts < b->last_ts) {
			int rc = inconsistent(
			    b, err, ev,
			    "timestamps going backwards: %llu ns after %llu ns",
			    (unsigned long long)ev->ts, (unsigned long long)b->last_ts);
			if (rc < 0)
				return rc;
			ev->ts = b->last_ts; /* repaired: clamped */
		}
		b->last_ts = ev->ts;
	}
	if (ev->type == ECP_EV_THREAD_START)
		return ev_thread_start(b, ev, err);

	uint64_t *ti = ecp_hmap_get(&b->thread_by_tid, ev->tid);
	if (!ti) {
		int rc = inconsistent(
		    b, err, ev,
		    "event of a thread before its start (no thread_start for "
		    "tid %u)",
		    ev->tid);
		return rc > 0 ? ECP_OK : rc; /* skipped */
	}
	struct bthread *th = thread_at(b, (ecp_id)*ti);
	if (th->exited) {
		b->warn[WARN_EVENTS_AFTER_EXIT]++;
		return ECP_OK;
	}
	uint64_t ts = ev->ts;
	if (ts < th->last_ts) {
		if (!func) {
			int rc = inconsistent(b, err, ev,
					      "timestamps going backwards in the thread");
			if (rc < 0)
				return rc;
			ev->ts = th->last_ts; /* repaired: clamped */
		}
		/* A synchronization event's timestamp is taken inside its
		 * tracepoint, up to about one event cost after the instant it
		 * describes, so the next function `ts` may precede it by that
		 * much: measurement noise, clamped silently.  More is counted. */
		if (th->last_ts - ts > b->ts_tolerance)
			b->warn[WARN_FUNC_TS_BACKWARDS]++;
		ts = th->last_ts;
	}
	th->last_ts = ts;
	int rc = ECP_OK;
	if (func) {
		uint64_t t = func_clock(b, th, ts);
		switch (ev->type) {
		case ECP_EV_FUNC_ENTRY:
			rc = func_entry(b, th, t, ev->a);
			break;
		case ECP_EV_FUNC_EXIT:
		case ECP_EV_FUNC_UNWOUND:
			rc = func_exit(b, th, t, ev->a);
			break;
		case ECP_EV_FUNC_FOLDED: {
			ecp_id f = function_of(b, ev->a);
			if (f == ECP_NO_ID)
				rc = -1;
			else
				ECP_VEC_AT(&b->fns, struct fn, f).folded += ev->b;
			break;
		}
		default:
			break;
		}
		th->n_events++;
		return rc < 0 ? nomem(err) : ECP_OK;
	}

	if ((ev->type == ECP_EV_THREAD_EXIT || ev->type == ECP_EV_PROCESS_EXIT) &&
	    th->sched && b->opts.clock == ECP_CLOCK_PERF_SWITCH) {
		th->clock_last = ev->cpu_ns;
		th->sched_last = sched_cpu_at(th->sched, ev->ts);
	}
	uint64_t v = cpu_clock(b, th, ev);
	switch (ev->type) {
	case ECP_EV_THREAD_CREATE:
		rc = ev_thread_create(b, th, ev, v, err);
		break;
	case ECP_EV_THREAD_EXIT: {
		uint64_t fend = b->opts.clock == ECP_CLOCK_THREAD_CPUTIME
				    ? th->seg_v0 + sat_sub(ts, th->seg_wall0)
				    : v;
		if (fend < th->f_last)
			fend = th->f_last;
		if (unwind_all(b, th, fend) < 0)
			return nomem(err);
		if (close_segment(b, th, ts, v, ECP_NO_ID) == ECP_NO_ID)
			return nomem(err);
		th->exited = true;
		break;
	}
	case ECP_EV_THREAD_JOIN_BEGIN:
	case ECP_EV_THREAD_JOIN_END:
		rc = ev_join(b, th, ev, v, err);
		break;
	case ECP_EV_THREAD_NAME:
		if (ev->name) {
			snprintf(th->name, sizeof(th->name), "%s", ev->name);
			th->named = true;
		}
		break;
	case ECP_EV_LOCK_INIT:
	case ECP_EV_LOCK_REQUEST:
	case ECP_EV_LOCK_ACQUIRED:
	case ECP_EV_LOCK_FAILED:
	case ECP_EV_LOCK_RELEASE:
		rc = ev_lock(b, th, ev, v, err);
		break;
	case ECP_EV_COND_WAIT_BEGIN:
	case ECP_EV_COND_WAIT_END:
	case ECP_EV_COND_SIGNAL:
	case ECP_EV_COND_BROADCAST:
		rc = ev_cond(b, th, ev, v, err);
		break;
	case ECP_EV_SEM_INIT:
	case ECP_EV_SEM_WAIT_BEGIN:
	case ECP_EV_SEM_WAIT_END:
	case ECP_EV_SEM_POST:
		rc = ev_sem(b, th, ev, v, err);
		break;
	case ECP_EV_BARRIER_INIT:
	case ECP_EV_BARRIER_WAIT_BEGIN:
	case ECP_EV_BARRIER_WAIT_END:
		rc = ev_barrier(b, th, ev, v, err);
		break;
	case ECP_EV_ONCE_BEGIN:
	case ECP_EV_ONCE_END:
		rc = ev_once(b, th, ev, v, err);
		break;
	case ECP_EV_DELAY_BEGIN:
	case ECP_EV_DELAY_END:
		rc = ev_delay(b, th, ev, v, err);
		break;
	default: /* detach, process_exit: no synchronization */
		break;
	}
	th->n_events++;
	return rc;
}

/* ------------------------------------------------------------------ finish */

static int cmp_edge(const void *a, const void *b)
{
	const struct ecp_edge *x = a, *y = b;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

static int finish_threads(struct ecp_builder *b, struct ecp_error *err)
{
	for (size_t i = 0; i < b->threads.len; i++) {
		struct bthread *th = thread_at(b, (ecp_id)i);
		if (th->exited)
			continue;
		/* The main thread ends with the process (no thread_exit); others
		 * still running were killed by exit(). */
		if (th->parent != ECP_NO_ID || i > 0)
			b->warn[WARN_THREAD_NO_EXIT]++;
		struct ecp_event ev = {.ts = th->last_ts,
				       .tid = (uint32_t)th->tid,
				       .cpu_ns = th->cpu_ns_last};
		uint64_t v = cpu_clock(b, th, &ev);
		uint64_t fend = b->opts.clock == ECP_CLOCK_THREAD_CPUTIME
				    ? th->seg_v0 + sat_sub(th->last_ts, th->seg_wall0)
				    : v;
		if (fend < th->f_last)
			fend = th->f_last;
		if (unwind_all(b, th, fend) < 0 ||
		    close_segment(b, th, th->last_ts, v, ECP_NO_ID) == ECP_NO_ID)
			return nomem(err);
		th->exited = true;
	}
	for (size_t i = 0; i < b->create_parent.cap; i++)
		if (b->create_parent.used[i] && b->create_parent.vals[i] != UINT64_MAX)
			b->warn[WARN_UNMATCHED_CREATE]++;
	return ECP_OK;
}

/* Switch records time a thread's stay on the CPU in wall time, which
 * includes what the hypervisor stole from the virtual CPU meanwhile (2-10%
 * of it with both host cores busy, and in bursts: one 30 ms stay of a
 * thread that used 9 ms was seen); the thread's own CPU clock excludes it.
 * Where a thread's first and last events carry its clock, its CPU times
 * (segment lengths and starts, function times, calls) are scaled by clock
 * over switch time between them: steal is spread in proportion to time
 * (where in the thread a burst fell is not known), and each thread's work
 * matches its own clock.  perf's task-clock would not help: it counts the
 * same wall time (perf_clock).  A ratio above 1.05 is not steal (a clock
 * read lost): no scaling.  Returns 0, or -1 when out of memory. */
static int scale_to_thread_clocks(struct ecp_builder *b)
{
	size_t n = b->threads.len;
	double *k = malloc((n ? n : 1) * sizeof(*k));
	bool any = false;
	if (!k)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct bthread *th = thread_at(b, (ecp_id)i);
		uint64_t clock = sat_sub(th->clock_last, th->clock_first);
		uint64_t sched = sat_sub(th->sched_last, th->sched_first);
		k[i] = 1.0;
		if (!th->clock_first || !th->clock_last || !clock || !sched)
			continue;
		double r = (double)clock / (double)sched;
		if (r > 1.05)
			continue;
		k[i] = r;
		any = true;
		for (size_t j = 0; j < th->segs.len; j++) {
			struct ecp_segment *seg = &ECP_VEC_AT(
			    &b->segments, struct ecp_segment, ECP_VEC_AT(&th->segs, uint32_t, j));
			seg->length = (uint64_t)((double)seg->length * r);
			seg->cpu_start = (uint64_t)((double)seg->cpu_start * r);
			for (uint32_t a = 0; a < seg->n_activity; a++) {
				struct ecp_activity *act = &ECP_VEC_AT(
				    &b->activities, struct ecp_activity, seg->first_activity + a);
				act->self_ns = (uint64_t)((double)act->self_ns * r);
				act->incl_ns = (uint64_t)((double)act->incl_ns * r);
			}
		}
	}
	for (size_t i = 0; any && i < b->calls.len; i++) {
		struct ecp_call *c = &ECP_VEC_AT(&b->calls, struct ecp_call, i);
		c->enter = (uint64_t)((double)c->enter * k[c->thread]);
		c->exit = (uint64_t)((double)c->exit * k[c->thread]);
	}
	free(k);
	return 0;
}

int ecp_builder_finish(struct ecp_builder *b, struct ecp_symbols *syms,
		       struct ecp_model **out, struct ecp_error *err)
{
	*out = NULL;
	if (!b->sealed) {
		int rc = seal(b, err);
		if (rc < 0)
			return rc;
	}
	int rc = finish_threads(b, err);
	if (rc < 0)
		return rc;
	if (scale_to_thread_clocks(b) < 0)
		return nomem(err);
	if (b->threads.len == 0)
		return ecp_error_set(err, ECP_ERR,
				     "trace=%s: no thread of the program was "
				     "recorded (no ecp:thread_start event)",
				     b->trace_path ? b->trace_path : "(events)");
	struct ecp_model *m = ecp_model_create();
	if (!m)
		return nomem(err);
	size_t nseg = b->segments.len;
	uint32_t *new_id = malloc((nseg ? nseg : 1) * sizeof(*new_id));
	uint32_t *perm = malloc((nseg ? nseg : 1) * sizeof(*perm));
	m->threads = calloc(b->threads.len, sizeof(*m->threads));
	if (!new_id || !perm || !m->threads) {
		free(perm);
		goto oom;
	}
	m->n_threads = (uint32_t)b->threads.len;
	uint32_t next = 0;
	for (size_t i = 0; i < b->threads.len; i++) {
		struct bthread *th = thread_at(b, (ecp_id)i);
		struct ecp_thread *mt = &m->threads[i];
		mt->tid = th->tid;
		memcpy(mt->name, th->name, sizeof(mt->name));
		mt->name[sizeof(mt->name) - 1] = '\0';
		mt->first_segment = next;
		mt->n_segments = (uint32_t)th->segs.len;
		mt->start_function = th->start_fn;
		mt->parent = th->parent;
		for (size_t k = 0; k < th->segs.len; k++)
			new_id[ECP_VEC_AT(&th->segs, uint32_t, k)] = next++;
		ecp_vec_finish(&th->segs);
	}
	/* Renumber in place (the segments are most of the model: a copy would
	 * double the peak): follow the permutation's cycles, each swap putting
	 * one segment at its final place. */
	struct ecp_segment *segs = b->segments.data;
	if (nseg)
		memcpy(perm, new_id, nseg * sizeof(*perm));
	for (uint32_t i = 0; i < nseg; i++) {
		while (perm[i] != i) {
			uint32_t j = perm[i];
			struct ecp_segment t = segs[j];
			segs[j] = segs[i];
			segs[i] = t;
			perm[i] = perm[j];
			perm[j] = j;
		}
	}
	free(perm);
	m->segments = ecp_vec_steal(&b->segments, NULL);
	m->n_segments = next;

	size_t nedge = b->edges.len;
	m->edges = malloc((nedge ? nedge : 1) * sizeof(*m->edges));
	if (!m->edges)
		goto oom;
	size_t ne = 0;
	for (size_t i = 0; i < nedge; i++) {
		const struct tmp_edge *e = &ECP_VEC_AT(&b->edges, struct tmp_edge, i);
		ecp_id from = new_id[e->from], to = new_id[e->to];
		if (m->segments[from].thread == m->segments[to].thread)
			continue; /* program order already says it */
		m->edges[ne].from = from;
		m->edges[ne].to = to;
		m->edges[ne].kind = e->kind;
		ne++;
	}
	qsort(m->edges, ne, sizeof(*m->edges), cmp_edge);
	/* The same dependency recorded twice (a broadcast and a lock hand-off
	 * from one segment) is one edge per kind. */
	size_t w = 0;
	for (size_t i = 0; i < ne; i++)
		if (!w || cmp_edge(&m->edges[w - 1], &m->edges[i]))
			m->edges[w++] = m->edges[i];
	m->n_edges = (uint32_t)w;
	ecp_vec_finish(&b->edges);
	free(new_id);
	new_id = NULL;
	uint32_t e = 0;
	for (uint32_t s = 0; s < m->n_segments; s++) {
		m->segments[s].first_in = e;
		while (e < m->n_edges && m->edges[e].to == s)
			e++;
		m->segments[s].n_in = e - m->segments[s].first_in;
	}

	m->locks = malloc((b->locks.len ? b->locks.len : 1) * sizeof(*m->locks));
	if (!m->locks)
		goto oom;
	m->n_locks = (uint32_t)b->locks.len;
	for (size_t i = 0; i < b->locks.len; i++) {
		m->locks[i].addr = ECP_VEC_AT(&b->locks, struct block, i).addr;
		m->locks[i].kind = ECP_VEC_AT(&b->locks, struct block, i).kind;
	}

	m->functions = calloc(b->fns.len ? b->fns.len : 1, sizeof(*m->functions));
	if (!m->functions)
		goto oom;
	m->n_functions = (uint32_t)b->fns.len;
	for (size_t i = 0; i < b->fns.len; i++) {
		const struct fn *f = &ECP_VEC_AT(&b->fns, struct fn, i);
		struct ecp_function *mf = &m->functions[i];
		mf->addr = f->addr;
		mf->folded_calls = f->folded;
		if ((ecp_id)i == b->main_pseudo_fn) {
			mf->name = ecp_strings_dup(ecp_model_strings(m), "main");
			mf->object = ecp_strings_dup(ecp_model_strings(m), "");
		} else if (syms) {
			if (ecp_symbols_resolve(syms, f->addr, ecp_model_strings(m),
						&mf->name, &mf->object) < 0)
				goto oom;
		} else {
			mf->name = ecp_strings_printf(ecp_model_strings(m), "0x%llx",
						      (unsigned long long)f->addr);
			mf->object = ecp_strings_dup(ecp_model_strings(m), "");
		}
		if (!mf->name || !mf->object)
			goto oom;
	}
	size_t n;
	m->activities = ecp_vec_steal(&b->activities, &n);
	m->n_activities = n;
	if (b->opts.keep_calls) {
		m->calls = ecp_vec_steal(&b->calls, &n);
		m->n_calls = n;
	}
	m->info.events = b->events;
	m->info.discarded_events = b->lost;
	m->info.event_cost_ns = b->opts.event_cost_ns;
	m->info.clock = ecp_strings_dup(
	    ecp_model_strings(m),
	    b->opts.clock == ECP_CLOCK_THREAD_CPUTIME ? "thread-cputime" : "perf-switch");
	m->info.trace_path =
	    ecp_strings_dup(ecp_model_strings(m), b->trace_path ? b->trace_path : "");
	m->info.program = ecp_strings_dup(ecp_model_strings(m), "");
	if (!m->info.clock || !m->info.trace_path || !m->info.program)
		goto oom;
	if (b->warn[WARN_INCONSISTENT] &&
	    ecp_model_add_warning(m, "first inconsistency: %s", b->first_inconsistency) <
		0)
		goto oom;
	for (int k = 0; k < WARN_COUNT; k++)
		if (b->warn[k] &&
		    ecp_model_add_warning(m, "%llu %s", (unsigned long long)b->warn[k],
					  warn_text[k]) < 0)
			goto oom;
	/* Found by fuzzing (fuzz/README.md, tests/fuzz/crashes/builder): events
	 * that the lenient builder repairs one at a time -- e.g. a second
	 * thread_start of a tid that is still running -- can still add up to a
	 * dependency cycle.  Every consumer trusts the model's structure, so
	 * only a valid model is handed over; otherwise the trace is refused. */
	if (ecp_model_validate(m, err) < 0) {
		ecp_model_destroy(m);
		ecp_error_prefix(err, "trace=%s: inconsistent events",
				 b->trace_path ? b->trace_path : "(events)");
		return err->status < 0 ? err->status : ECP_ERR;
	}
	*out = m;
	return ECP_OK;
oom:
	free(new_id);
	ecp_model_destroy(m);
	return nomem(err);
}
