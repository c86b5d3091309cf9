/* SPDX-License-Identifier: MIT */
/* The model builder's internal state, shared by its files (one per
 * primitive family, see builder.c).  Not part of any interface: the
 * functions are prefixed bld_ and used by the builder only. */
#ifndef ECP_SIMULATOR_BUILDER_INTERNAL_H
#define ECP_SIMULATOR_BUILDER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/vec.h"
#include "simulator/trace/builder.h"
#include "common/hmap.h"
#include "simulator/model/model-internal.h"

enum wait_kind { W_NONE, W_LOCK, W_COND, W_SEM, W_BARRIER, W_JOIN, W_ONCE, W_FUTEX };

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
	WARN_FUTEX_UNWOKEN,
	WARN_CHAN_DROPPED,
	WARN_LOCK_HELD_AT_END,
	WARN_INCONSISTENT,
	WARN_COUNT
};

/* On-CPU intervals of one kernel thread, from the sched trace. */
struct sched_rec {
	uint64_t ts;
	uint8_t out, preempt;
};

struct tid_exit {
	uint64_t tid, ts;
};

/* A thread's stays on the CPU, in blocks of SCHED_BLOCK: a block's first
 * stay's switch-in and prefix sum in 64 bits, each stay's as 32-bit
 * offsets from them -- 8 bytes a stay where two arrays of 64 bits took 16
 * (issue 35: the stays were a tenth of the model build's peak on a
 * sync-heavy trace).  A block whose offsets do not fit (more than 4.29 s
 * from its first stay, or an open start at 0 before the rest) keeps its
 * stays whole in `wide`. */
#define SCHED_BLOCK_BITS 6
#define SCHED_BLOCK      ((size_t)1 << SCHED_BLOCK_BITS)
#define SCHED_NARROW     UINT32_MAX

struct sched_block {
	uint64_t in, cum; /* its first stay's */
	uint32_t wide;    /* where its stays' (in, cum) begin in `wide`, in
			   * stays; SCHED_NARROW: in `off` */
};

struct sched_list {
	uint64_t tid;
	struct ecp_vec recs; /* struct sched_rec, until sealed */
	/* stay i is [sched_in(l, i), sched_out(l, i)); sched_cum(l, i) the
	 * on-CPU time before it, sched_cum(l, n) all of it.  Its end is its
	 * start plus the step of the prefix sums, not kept apart; the last
	 * may be open (open_end) */
	struct sched_block *blocks;
	uint32_t *off; /* 2 a stay: in and cum less its block's first */
	uint64_t *wide;
	uint64_t cum_all;
	bool open_end;
	/* bit i: the switch-out ending stay i left it runnable */
	uint64_t *preempt;
	/* interval i ends at the exit record of a thread that died on the
	 * CPU, its tid given again later (NULL: none did) */
	uint8_t *died;
	size_t n;
	/* the stay the last lookup found (interval_at), unpacked: a
	 * thread's events look up their times in order, mostly in one stay */
	struct {
		size_t i;
		uint64_t in, next_in, cum, out;
	} at;
};

static inline uint64_t sched_in(const struct sched_list *l, size_t i)
{
	const struct sched_block *k = &l->blocks[i >> SCHED_BLOCK_BITS];
	if (k->wide != SCHED_NARROW)
		return l->wide[2 * ((size_t)k->wide + (i & (SCHED_BLOCK - 1)))];
	return k->in + l->off[2 * i];
}

static inline uint64_t sched_cum(const struct sched_list *l, size_t i)
{
	if (i == l->n)
		return l->cum_all;
	const struct sched_block *k = &l->blocks[i >> SCHED_BLOCK_BITS];
	if (k->wide != SCHED_NARROW)
		return l->wide[2 * ((size_t)k->wide + (i & (SCHED_BLOCK - 1))) + 1];
	return k->cum + l->off[2 * i + 1];
}

static inline bool sched_preempted(const struct sched_list *l, size_t i)
{
	return l->preempt[i / 64] >> (i % 64) & 1;
}

/* Where interval i of l ends: UINT64_MAX when it is the last and the
 * thread was still on the CPU at the end. */
static inline uint64_t sched_out(const struct sched_list *l, size_t i)
{
	if (l->open_end && i + 1 == l->n)
		return UINT64_MAX;
	return sched_in(l, i) + (sched_cum(l, i + 1) - sched_cum(l, i));
}

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

struct timeout_seg {
	ecp_id seg;
	uint64_t delay;
};

struct pend_edge {
	ecp_id from;
	uint32_t kind;
};

/* A reading of the thread's own CPU clock at one of its events
 * (builder-clock-scale.c): its time on the thread's CPU line (v), the
 * switch records' CPU time then, the clock; once kept, the ratio of the
 * clock's advance to the records' up to the next reading and where v lies
 * on the clock's line. */
struct clock_knot {
	uint64_t v, sched, clock;
	double ratio, mapped;
};

struct bthread {
	uint64_t tid, handle;
	ecp_id index, parent, start_fn;
	char name[16];
	bool named; /* by the program (thread_name); comm does not override */
	bool exited;
	bool cut_by_exit;   /* a worker the process's exit ended (builder-exit.c) */
	bool omp_pool;      /* joined an OpenMP team: libgomp keeps it until exit */
	bool unseen;        /* only the scheduler saw it (builder-unseen.c) */
	uint32_t proc;      /* 1 + its child process (builder-processes.c), 0 none */
	uint64_t ran_on_ns; /* CPU after its last event until the exit cut it */
	int64_t dealt_ns;   /* work the deals (tasks, a dynamic loop's chunks)
			     * moved onto it (off: < 0) */
	uint64_t spin_ns;   /* CPU time a runtime spun in waits (bld_skip_cpu) */
	size_t next_fork;   /* its next fork to split at (bld_split_forks) */
	bool forks_looked;
	struct ecp_vec child_waits; /* uint32_t pids its last wait joined */
	struct sched_list *sched;
	uint64_t n_events;
	uint64_t n_func_events; /* of n_events, function events */
	uint64_t slow_ns;       /* CPU time of the agent's slow stretches (slow_window) */
	uint64_t quiet_ns;      /* its windows that wrote no event (quiet_windows) */
	uint64_t n_created;     /* threads it made (thread_create_cost_ps each) */
	uint64_t n_samples;     /* perf samples taken on it so far (their cost) */
	struct ecp_vec *cost_ts;      /* its samples' times (ecp_builder_count_sample) */
	size_t cost_first, cost_next; /* the first in its life; the first not counted */
	/* func_entry events just before the current one: the agent writes a
	 * call's entry lazily, in the hook of a later exit or event, so these
	 * were paid for after their own `ts` and after the next exit's */
	uint64_t entry_run;
	uint64_t last_ts; /* last event time (wall) */
	uint64_t v_last;  /* last CPU clock value (monotonic) */
	uint64_t v_start; /* CPU clock at thread start */
	uint64_t f_last;  /* function clock charged up to here */
	uint64_t cpu_ns_last;
	/* The thread's own CPU clock (cpu_ns of thread_start and of
	 * thread_exit/process_exit) and the switch records' CPU time at the same
	 * events: their ratio takes steal out (builder-clock-scale.c). */
	uint64_t clock_first, sched_first, clock_last, sched_last;
	/* their ratio where it scaled the thread's times (0: not scaled) */
	double clock_scale;
	/* the readings between them (struct clock_knot), and the ratio up
	 * to the first kept (builder-clock-scale.c) */
	struct ecp_vec clock_knots;
	double clock_scale_first;
	/* the accumulating segment */
	uint64_t seg_v0, seg_wall0, seg_rec_start;
	ecp_id seg_lock;
	uint8_t seg_mode;
	uint64_t seg_delay;
	uint64_t seg_delay_most; /* the largest delay in it, and its kind */
	uint8_t seg_delay_kind;
	struct ecp_vec pend; /* struct pend_edge */
	ecp_id first_seg, last_seg;
	struct ecp_vec segs; /* temporary ids, uint32_t */
	/* waiting */
	int wait;
	uint64_t wait_obj, wait_ts, wait_cpu;
	uint64_t wait_timeout; /* relative timeout of a timed wait, or 0 */
	uint32_t once_depth;   /* once_begin without once_end yet */
	/* the delay the last delay_end opened the segment with, and the
	 * thread's event count then: a read that follows at once and turns
	 * out to wait for a write of another thread was not a delay */
	uint64_t delay_open, delay_open_event;
	/* The last poll, select or epoll wait that blocked, until the thread
	 * next blocks (builder-channels.c): its delay, when it returned, and
	 * the segment it opened once that is closed (ECP_NO_ID before) */
	bool poll_pending;
	uint64_t poll_delay, poll_end_ts;
	ecp_id poll_seg;
	bool in_delay;
	uint64_t delay_kind; /* delay_begin's kind (EVENTS.md) */
	/* its sleeps (and polls that timed out) while its child processes
	 * had the CPU (bld_child_sleep_warning) */
	uint64_t kid_sleeps, kid_sleep_ns;
	/* A run of timed waits on one object that timed out (a progress
	 * loop, builder-segments.c bld_timed_out): the object, the timeout
	 * delay of the accumulating segment, and the closed segments that
	 * carry one (struct timeout_seg) */
	uint64_t timeout_obj, seg_timeout;
	struct ecp_vec timeout_segs;
	uint64_t delay_timeout; /* requested duration of the delay call, or 0 */
	uint64_t delay_ts, delay_cpu;
	bool cond_woken;
	ecp_id cond_from;
	bool barrier_woken;
	ecp_id barrier_from;
	bool futex_woken;
	ecp_id futex_from;
	/* functions */
	struct ecp_vec frames; /* struct frame */
	struct ecp_hmap depth; /* function -> frames of it on the stack */
	struct ecp_vec acts;   /* struct act_slot of the accumulating segment */
	struct ecp_hmap act_idx;
	/* samples (builder-samples.c): the thread's own, and the state the
	 * last one left (functions, innermost first; empty: the shadow stack) */
	struct samp_list *samp_src;
	struct ecp_vec samp;       /* ecp_id */
	struct ecp_vec samp_since; /* uint64_t: function clock from which each of
				    * samp has been on the sampled stack (its call) */
};

struct block {
	uint64_t addr;
	uint32_t kind;
	ecp_id holder; /* thread index holding it exclusively */
	/* the holder another thread's taking displaced (WARN_LOCK_CONFLICT):
	 * its release, when it comes, is still a release (builder-locks.c) */
	ecp_id displaced;
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

struct bfutex {
	struct ecp_vec waiters; /* thread indices, FIFO */
	ecp_id last_wake_seg, last_wake_thread;
};

/* A channel (pipe, socketpair end, eventfd): units written and not yet
 * read, FIFO. */
struct chunk {
	ecp_id seg, thread;
	uint64_t units;
};

struct bchan {
	uint64_t peer;    /* socketpair: what is written here is read there */
	uint64_t initial; /* eventfd's initial counter: units nobody wrote */
	struct ecp_vec q; /* struct chunk */
	size_t head;
};

struct bonce {
	ecp_id done_seg, done_thread;
};

/* A thread's samples waiting to be applied, in time order. */
struct samp_list {
	struct ecp_vec recs; /* struct samp_rec (builder-samples.c) */
	size_t next;         /* the first not applied yet */
	uint64_t prev_cpu;   /* CPU time of the last one applied (0: none yet) */
};

struct fn {
	uint64_t addr;
	uint64_t site; /* call site, with by_callsite only (else 0) */
	uint64_t folded;
	uint64_t samples; /* as leaf of the sampled part of the stack */
};

#define CUT_NAMED 4
/* "1, 2, 3" from the first of `n` tids (CUT_NAMED at most), for a warning
 * that names threads, into `out` (CUT_NAMED * 24 bytes). */
void bld_name_tids(char *out, const uint64_t *tids, uint64_t n);

/* A process the program or a descendant made (builder-processes.c). */
struct bproc {
	uint32_t pid, ppid;
	uint64_t creator;          /* the thread that made it */
	uint64_t fork_ts, exit_ts; /* exit_ts: its last thread's exit, 0 unseen */
	ecp_id fork_seg;           /* the creator's segment ending at the fork */
	uint32_t n_threads;        /* of the model */
	bool joined;               /* a wait of the program depends on it ... */
	ecp_id join_seg;           /* ... the segment that wait opened */
	bool has_children;         /* it made processes of its own */
};

struct fork_point {
	uint64_t creator, ts;
	uint32_t proc;
};

struct tid_comm {
	uint64_t tid;
	char name[16];
};

/* The last few lookups of a map keyed by tid, by the tid's low bits: a
 * thread's events and switch records come in runs, and a hash lookup per
 * event was 1.3% of a sync-heavy trace's model build (issue 35).  A tag
 * of 0 is an empty slot (a valid tag has bit 32 set). */
#define TID_CACHE_SLOTS 8
struct tid_cache {
	uint64_t tag[TID_CACHE_SLOTS];
	uint64_t val[TID_CACHE_SLOTS];
};

static inline bool tid_cache_get(const struct tid_cache *c, uint32_t tid, uint64_t *val)
{
	unsigned i = tid % TID_CACHE_SLOTS;
	if (c->tag[i] != ((uint64_t)1 << 32 | tid))
		return false;
	*val = c->val[i];
	return true;
}

/* Also after the map's value for tid changed. */
static inline void tid_cache_set(struct tid_cache *c, uint32_t tid, uint64_t val)
{
	unsigned i = tid % TID_CACHE_SLOTS;
	c->tag[i] = (uint64_t)1 << 32 | tid;
	c->val[i] = val;
}

/* tid's value in map, through its cache c: false when map has none. */
static inline bool tid_cache_lookup(struct tid_cache *c, const struct ecp_hmap *map,
				    uint32_t tid, uint64_t *val)
{
	if (tid_cache_get(c, tid, val))
		return true;
	const uint64_t *v = ecp_hmap_get(map, tid);
	if (!v)
		return false;
	*val = *v;
	tid_cache_set(c, tid, *v);
	return true;
}

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
	struct tid_cache sched_cache; /* of sched_by_tid */
	/* every thread's exit record (struct tid_exit), sorted by tid and
	 * time when the switch records are sealed: a tid the kernel gave
	 * again to a later thread has one per thread that had it */
	struct ecp_vec thread_exits;
	struct ecp_vec samp_lists; /* struct samp_list * */
	/* every sample's time per tid (their cost), ecp_builder_count_sample */
	struct ecp_vec cost_lists; /* struct ecp_vec * of uint64_t, in time order */
	struct ecp_hmap cost_by_tid;
	struct ecp_hmap samp_by_tid;
	struct ecp_vec samp_frames; /* every sample's frames (builder-samples.c) */
	struct ecp_vec samp_next;   /* scratch: the state a sample makes (ecp_id) */
	uint64_t samples_pushed, samples_applied;
	struct ecp_vec threads; /* struct bthread * */
	struct ecp_hmap thread_by_tid;
	struct tid_cache thread_cache; /* of thread_by_tid */
	struct ecp_hmap thread_by_handle;
	struct ecp_hmap create_parent; /* create_id -> parent segment (+1<<32 flag) */
	struct ecp_hmap create_child;  /* create_id -> child thread index */
	struct ecp_vec segments;       /* struct ecp_segment_record, temporary ids */
	/* uint32_t: segment s's first activity, once one is not 0; empty
	 * until then (bld_first_activity): a trace recorded without
	 * functions never has one, and 4 bytes a segment is 7% of the
	 * builder's peak on a sync-heavy trace (issue 35) */
	struct ecp_vec first_activity;
	struct ecp_vec edges;      /* struct ecp_edge, temporary ids */
	struct ecp_vec activities; /* struct ecp_activity */
	struct ecp_vec calls;      /* struct ecp_call */
	struct ecp_vec fns;        /* struct fn */
	struct ecp_hmap fn_by_addr;
	struct ecp_hmap fn_by_site; /* mixed (addr, site) key -> fn, probed */
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
	struct ecp_vec futexes; /* struct bfutex */
	struct ecp_hmap futex_by_addr;
	struct ecp_vec chans; /* struct bchan */
	struct ecp_hmap chan_by_id;
	struct ecp_vec unmodelled; /* char[48]: names of calls ecp does not model */
	uint64_t warn[WARN_COUNT];
	char first_inconsistency[600]; /* the first one, quoted in the warning */
	struct bld_omp *omp;           /* OpenMP dynamic loops (builder-omp.c), or NULL */
	struct ecp_task_graph *tasks;  /* OpenMP tasks (builder-tasks.c), or NULL */
	/* threads the process's exit cut (builder-finish.c): blocked in a
	 * recorded wait, or still running (their CPU after their last event,
	 * and the first tids, for the warning that names them) */
	bool process_exited; /* the agent's process_exit was seen */
	/* threads only the scheduler saw (builder-unseen.c): the comm of
	 * every tid that is no agent thread, and those made model threads */
	struct ecp_vec comms; /* struct tid_comm, one per tid */
	struct ecp_hmap comm_by_tid;
	/* the CPU clocks main read at the exit (ecp:thread_clock) of the
	 * tids that are no thread of the model (LTTng-UST's listener
	 * threads), and when: their CPU time without the steal their stays
	 * hold, up to then */
	struct ecp_hmap exit_clock_by_tid, exit_clock_ts_by_tid;
	ecp_id unseen_pseudo_fn;
	uint64_t unseen, unseen_ns, unseen_tids[CUT_NAMED];
	/* child processes (builder-processes.c) */
	struct ecp_vec procs; /* struct bproc */
	struct ecp_hmap proc_by_pid, pid_of_tid;
	struct ecp_hmap exit_by_tid; /* a thread's exit record's time */
	struct fork_point *forks;    /* by creator, then time */
	size_t n_forks;
	uint64_t child_procs, child_threads, child_cpu_ns;
	/* the children's time on the CPU (builder-child-cpu.c): (in, out)
	 * pairs by in, prefix sums; the delays it took back */
	uint64_t *kid_iv, *kid_cum;
	size_t n_kid;
	struct stay *stays; /* every thread's stays, by in */
	uint64_t *stay_cum;
	size_t n_stays;
	uint64_t kid_waits, kid_waits_ns;
	/* LTTng-UST registering in child processes (builder-registration.c):
	 * the listeners' statedump ends, (from, to) windows merged, by from;
	 * the delays it took back */
	struct ecp_vec reg_marks; /* struct reg_mark */
	size_t reg_seen;
	uint64_t *reg_iv;
	size_t n_reg;
	uint64_t reg_taken, reg_taken_ns;
	uint64_t cut_blocked, cut_running, cut_running_ns;
	uint64_t cut_tids[CUT_NAMED];
	/* timed waits that timed out: all, and those a later wake-up on the
	 * same object showed to be a progress loop (their delays taken back) */
	uint64_t timeouts, timeouts_ns, timeouts_taken_back, timeouts_taken_back_ns;
	/* threads nothing waited for that paced themselves until the exit cut
	 * them: their waits taken out (builder-exit.c), the timed-out ones of
	 * them counted apart for the warning on timeouts kept */
	uint64_t free_paced, free_paced_ns, free_paced_tids[CUT_NAMED];
	uint64_t free_timeouts, free_timeouts_ns;
};

static inline uint64_t sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static inline struct bthread *thread_at(struct ecp_builder *b, ecp_id i)
{
	return ECP_VEC_AT(&b->threads, struct bthread *, i);
}

/* builder.c: errors (trace path, event index, thread, what is wrong) and
 * registries of objects by address */
int bld_fail_err(struct ecp_builder *b, struct ecp_error *err, const struct ecp_event *ev,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* An inconsistency in the trace: an error, or with opts.lenient (a lossy
 * trace analysed anyway) a counted warning -- returns 1 and the caller
 * skips or repairs the event as its comment says. */
int bld_inconsistent(struct ecp_builder *b, struct ecp_error *err,
		     const struct ecp_event *ev, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int bld_nomem(struct ecp_error *err);
void *bld_object_of(struct ecp_vec *vec, struct ecp_hmap *map, uint64_t addr,
		    bool *created);

/* builder-clock.c: switch records and the threads' CPU clocks */
int bld_push_switch(struct ecp_builder *b, const struct ecp_event *ev,
		    struct ecp_error *err);
int bld_seal(struct ecp_builder *b, struct ecp_error *err);
/* Index of the first of l's stays that starts after ts (l->n: none). */
size_t bld_sched_first_after(const struct sched_list *l, uint64_t ts);
/* That stay's switch-in, or `none`. */
uint64_t bld_sched_in_after(const struct sched_list *l, uint64_t ts, uint64_t none);
/* Frees the switch records (the threads' clocks): once the model's
 * consistency figures are taken, nothing reads them. */
void bld_sched_free(struct ecp_builder *b);
uint64_t bld_sched_cpu_at(struct sched_list *l, uint64_t ts);
/* When the thread's stay on the CPU at ts began (0: none yet). */
uint64_t bld_sched_in_at(struct sched_list *l, uint64_t ts);
uint64_t bld_cpu_clock(struct ecp_builder *b, struct bthread *th,
		       const struct ecp_event *ev);
uint64_t bld_func_clock(struct ecp_builder *b, struct bthread *th, uint64_t ts);
/* What the recorder has cost the thread so far (its events, the samples
 * taken on it), taken out of every clock reading of the thread. */
uint64_t bld_overhead_ns(const struct ecp_builder *b, const struct bthread *th);
/* A reading of the thread's own CPU clock at an event between its first
 * and last (perf-switch only), and the scaling of every thread's times to
 * its clock at the end (builder-clock-scale.c). */
void bld_clock_reading(struct ecp_builder *b, struct bthread *th, uint64_t ts,
		       uint64_t clock_ns);
void bld_scale_to_thread_clocks(struct ecp_builder *b);
/* The length of [start, start + ns) of the thread's CPU line (a segment's
 * or a chunk's, the recorder's cost out) on its own clock's line, as
 * bld_scale_to_thread_clocks maps its segments; ns where the thread is not
 * scaled.  After that scaling only. */
uint64_t bld_scaled_length(const struct bthread *th, uint64_t start, uint64_t ns);
/* A scaled thread's ratio over its last span between clock readings (its
 * stays after its last event lie there or just after). */
double bld_clock_ratio_last(const struct bthread *th);
/* An ecp:slow_window: the CPU time in it goes into the thread's overhead. */
void bld_slow_window(struct ecp_builder *b, struct bthread *th,
		     const struct ecp_event *ev);
/* The samples taken on the thread up to `ts` (inclusive with `upto`) or
 * strictly before it, counted from its start; n_samples follows `ts`. */
uint64_t bld_samples_before(struct bthread *th, uint64_t ts, bool inclusive);
void bld_count_samples(struct bthread *th, uint64_t ts);
uint64_t bld_blocked_time(struct ecp_builder *b, struct bthread *th, uint64_t from_ts,
			  uint64_t to_ts, uint64_t from_cpu, uint64_t to_cpu);

/* builder-functions.c: function time */
ecp_id bld_function_of(struct ecp_builder *b, uint64_t addr);
/* The function at addr called from `site` (by_callsite; else, or site 0,
 * the same as bld_function_of). */
ecp_id bld_function_at(struct ecp_builder *b, uint64_t addr, uint64_t site);
ecp_id bld_start_function(struct ecp_builder *b, uint64_t addr);
struct act_slot *bld_act(struct bthread *th, ecp_id func);
/* The segment's functions emptied, for the next segment or a new image. */
void bld_acts_reset(struct bthread *th);
int bld_advance(struct bthread *th, uint64_t t);
/* builder-samples.c */
void bld_samples_attach(struct ecp_builder *b, struct bthread *th, uint64_t start_ts);
int bld_apply_samples(struct ecp_builder *b, struct bthread *th, uint64_t ts,
		      bool func_event);
int bld_charge_sampled(struct bthread *th, uint64_t d);
void bld_samples_free(struct ecp_builder *b);
int bld_pop_frame(struct ecp_builder *b, struct bthread *th, uint64_t t, uint32_t flags);
int bld_func_entry(struct ecp_builder *b, struct bthread *th, uint64_t t, uint64_t addr,
		   uint64_t site);
int bld_func_exit(struct ecp_builder *b, struct bthread *th, uint64_t t, uint64_t addr);
int bld_unwind_all(struct ecp_builder *b, struct bthread *th, uint64_t t);
/* A call of func at depth over [enter, exit) of the function clock, into the
 * model's calls when they are kept. */
int bld_push_call(struct ecp_builder *b, const struct bthread *th, ecp_id func,
		  uint32_t depth, uint64_t enter, uint64_t exit, uint32_t flags);
/* Ends the sampled state at function clock t (its calls end there): an
 * instrumented frame changed, or the thread ended. */
int bld_samples_close(struct ecp_builder *b, struct bthread *th, uint64_t t);

/* builder-segments.c: segment boundaries, edges, the begin/end of waits */
int bld_add_edge(struct ecp_builder *b, ecp_id from, ecp_id to, uint32_t kind);
int bld_pend_edge(struct bthread *th, ecp_id from, uint32_t kind);
ecp_id bld_close_segment(struct ecp_builder *b, struct bthread *th, uint64_t ts,
			 uint64_t v, ecp_id lock_release);
/* Segment seg's implicit activity (n_activity 0: all of it its thread's
 * start routine's, model.h) written out as start_fn's, before its thread
 * changes start routine (an exec) or it changes thread (the task deal).
 * Returns -1 out of memory. */
int bld_write_out_activity(struct ecp_builder *b, ecp_id seg, ecp_id start_fn);
/* Seg's function times scaled from its length `old` to its length now
 * (the steal taken out, an OpenMP chunk dealt again).  Each is truncated;
 * where the self times filled the old length, the ns lost go to the start
 * routine's activity, as close_activities gives them, so that they still
 * fill it. */
void bld_rescale_activities(struct ecp_builder *b, ecp_id seg, uint64_t old,
			    ecp_id start_fn);
/* Where segment s's activities begin in b->activities. */
static inline uint32_t bld_first_activity(const struct ecp_builder *b, ecp_id s)
{
	return s < b->first_activity.len ? ECP_VEC_AT(&b->first_activity, uint32_t, s)
					 : 0;
}
/* Sets it; -1 out of memory. */
int bld_set_first_activity(struct ecp_builder *b, ecp_id s, uint32_t first);
/* The CPU time the thread used since its segment's start (or the last such
 * call) was a runtime spinning in a wait, not work: the segment and its
 * functions' time go on from here (v: the thread's CPU clock now). */
void bld_skip_cpu(struct bthread *th, uint64_t ts, uint64_t v);
/* LLVM's libomp spun `spun` ns outside the waits OMPT reports, up to v
 * (ecp:omp_spin, recorder/agent/agent-ompt-spin.c): that time, back to no
 * earlier than the thread's last event, is cut out of the accumulating
 * segment and its open calls, and counted as the runtime's spin.  Returns
 * -1 out of memory. */
int bld_cut_spin(struct ecp_builder *b, struct bthread *th, uint64_t v, uint64_t spun);
void bld_open_segment(struct bthread *th, uint64_t ts, ecp_id lock, uint8_t mode,
		      uint64_t delay);
/* Says what the delay just given to bld_open_segment waited in (enum
 * ecp_delay_kind): the segment keeps the kind of its largest delay. */
void bld_delay_kind(struct bthread *th, uint64_t delay, uint8_t kind);
int bld_begin_wait(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		   int kind, uint64_t obj, uint64_t v);
/* A timed wait on `obj` timed out after `delay` (the segment opening now
 * carries it); a wait on the same object then woken by another thread: the
 * run of timeouts before it was a progress loop, its delays taken back. */
void bld_timed_out(struct ecp_builder *b, struct bthread *th, uint64_t obj,
		   uint64_t delay);
void bld_woken_on(struct ecp_builder *b, struct bthread *th, uint64_t obj);
uint64_t bld_timeout_delay(struct ecp_builder *b, struct bthread *th, uint64_t ts,
			   uint64_t v);
int bld_end_wait(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		 int kind, struct ecp_error *err);

/* builder-threads.c */
void bld_thread_free(struct bthread *th);
int bld_ev_thread_start(struct ecp_builder *b, const struct ecp_event *ev,
			struct ecp_error *err);
int bld_ev_thread_create(struct ecp_builder *b, struct bthread *th,
			 const struct ecp_event *ev, uint64_t v, struct ecp_error *err);
int bld_ev_join(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		uint64_t v, struct ecp_error *err);

/* builder-locks.c */
struct block *bld_lock_of(struct ecp_builder *b, uint64_t addr, uint32_t kind);
ecp_id bld_lock_id(struct ecp_builder *b, const struct block *l);
bool bld_take_lock(struct ecp_builder *b, struct bthread *th, struct block *l,
		   uint8_t mode);
int bld_acquired(struct ecp_builder *b, struct bthread *th, struct block *l,
		 uint8_t mode);
int bld_release(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		struct block *l, uint64_t v, struct ecp_error *err, ecp_id *seg_out);
int bld_ev_lock(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		uint64_t v, struct ecp_error *err);

/* builder-waits.c */
int bld_ev_cond(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		uint64_t v, struct ecp_error *err);
int bld_ev_sem(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
	       uint64_t v, struct ecp_error *err);
int bld_ev_barrier(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		   uint64_t v, struct ecp_error *err);
int bld_ev_once(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		uint64_t v, struct ecp_error *err);
int bld_ev_futex(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		 uint64_t v, struct ecp_error *err);

/* builder-channels.c */
int bld_ev_chan(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		uint64_t v, struct ecp_error *err);

/* builder-delays.c */
int bld_ev_delay(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		 uint64_t v, struct ecp_error *err);

/* builder-omp.c: OpenMP dynamic loops, dealt out again at finish */
struct bld_omp;
int bld_ev_omp_chunk(struct ecp_builder *b, struct bthread *th,
		     const struct ecp_event *ev, uint64_t v, struct ecp_error *err);
int bld_omp_finish(struct ecp_builder *b);
/* An object of the agent's OpenMP constructs (recorder/EVENTS.md). */
static inline bool bld_omp_object(uint64_t obj)
{
	return (obj >> 48) == 0xecb0;
}
void bld_omp_free(struct bld_omp *o);

/* builder-tasks*.c: OpenMP tasks, dealt out again at finish */
struct ecp_task_graph;
int bld_ev_task(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		uint64_t v, struct ecp_error *err);
/* A team's fork, barrier or join on the agent's OpenMP objects, after its
 * builder file handled it: where the thread's task epochs begin and end. */
int bld_tasks_team_sync(struct ecp_builder *b, struct bthread *th,
			const struct ecp_event *ev, struct ecp_error *err);
int bld_tasks_finish(struct ecp_builder *b);
/* Takings of locks never released by the trace's end hold them from no one
 * at replay (builder-held.c).  Returns 0, or -1 when out of memory. */
int bld_locks_held_at_end(struct ecp_builder *b);
/* The waits of threads that nothing waited for and that the exit cut
 * (builder-exit.c).  Returns 0, or -1 when out of memory. */
int bld_free_paced_threads(struct ecp_builder *b);
/* The work and span per spawn site into the model (it takes them). */
int bld_tasks_take_sites(struct ecp_builder *b, struct ecp_model *m);
/* What the deal did, if there were tasks: its counts in the model's info
 * and its warnings. */
int bld_tasks_tell(const struct ecp_builder *b, struct ecp_model *m);
void bld_tasks_free(struct ecp_task_graph *t);

/* builder-finish.c: the text of each counted warning */
extern const char *const bld_warn_text[WARN_COUNT];

/* builder-exit.c: the threads the exit finds (run twice: the agent's
 * threads, then those only the scheduler saw) */
int bld_finish_threads(struct ecp_builder *b, struct ecp_error *err);
void bld_count_unmatched_creates(struct ecp_builder *b);
int bld_exit_warnings(const struct ecp_builder *b, struct ecp_model *m);
/* builder-segments.c: the progress loops' timeouts, taken back and kept */
int bld_timeout_warnings(const struct ecp_builder *b, struct ecp_model *m);
/* builder-consistency.c: the figures the consistency check needs */
int bld_note_consistency(struct ecp_builder *b, struct ecp_model *m);

/* builder-processes.c: child processes */
int bld_processes_seal(struct ecp_builder *b);
/* Ends th's segment at each fork it made up to `upto`. */
int bld_split_forks(struct ecp_builder *b, struct bthread *th, uint64_t upto);
/* The program's unjoined children that exited by end_ts: counted, and with
 * `mark` joined by th's next segment.  Returns their number, -1 no memory. */
int bld_child_wait(struct ecp_builder *b, struct bthread *th, uint64_t end_ts, bool mark);
/* builder-child-cpu.c: the children's CPU time in [from, to) */
/* The first exit record of tid in (after, upto], or 0 (sealed lists). */
uint64_t bld_exit_between(const struct ecp_builder *b, uint64_t tid, uint64_t after,
			  uint64_t upto);
int bld_child_cpu_seal(struct ecp_builder *b);
/* The child registration windows from the statedump ends noted so far
 * (after the seal); then the recorder's time in [from, to): the windows'
 * part of it that no child had the CPU.  A warning saying how much. */
int bld_registration_update(struct ecp_builder *b);
uint64_t bld_registration_in(const struct ecp_builder *b, uint64_t from, uint64_t to);
/* The same, of process pid's own windows only. */
uint64_t bld_registration_of(const struct ecp_builder *b, uint64_t pid, uint64_t from,
			     uint64_t to);
int bld_registration_warning(const struct ecp_builder *b, struct ecp_model *m);
uint64_t bld_child_cpu_in(const struct ecp_builder *b, uint64_t from, uint64_t to);
int bld_child_cpu_warning(const struct ecp_builder *b, struct ecp_model *m);
/* A sleep of th's that ended at `end`, delay d: counted when the program's
 * children had the CPU meanwhile (bld_child_cpu_warning names them). */
void bld_child_sleep(const struct ecp_builder *b, struct bthread *th, uint64_t end,
		     uint64_t d);
/* Whether the program's thread on the CPU just before `wake` (a switch-in)
 * was a child's, and it left the CPU blocked: it handed off (wrote and
 * waited for more, filled the pipe, exited). */
bool bld_child_handed_off(const struct ecp_builder *b, uint64_t wake);
/* A child's blocked time in [from, to] less what the program's other
 * threads ran in it, and none of a gap that one of them ended by running
 * last and blocking, unless that was its `parent` (the thread that made
 * it) blocking until it ended: what the child waited for outside the
 * program. */
uint64_t bld_child_own_delay(const struct ecp_builder *b, const struct sched_list *l,
			     uint64_t parent, uint64_t from, uint64_t to);
/* When a child process's thread exited (its perf exit record), 0 unseen. */
uint64_t bld_child_exit_of(const struct ecp_builder *b, const struct bthread *th);
/* Whether a child of the program not yet waited for exited in (from, to]:
 * a signal that interrupted a poll then was its SIGCHLD. */
bool bld_child_ended_poll(const struct ecp_builder *b, uint64_t from, uint64_t to);
void bld_flush_child_waits(struct ecp_builder *b, struct bthread *th, ecp_id seg);
int bld_place_child_thread(struct ecp_builder *b, struct bthread *th);
int bld_join_children(struct ecp_builder *b);
/* A one-thread leaf child's blocked time is its delay (before closing). */
int bld_child_delays(struct ecp_builder *b);
int bld_child_warning(const struct ecp_builder *b, struct ecp_model *m, uint64_t cpu_ns);

/* builder-unseen.c: threads only the scheduler saw */
int bld_note_comm(struct ecp_builder *b, uint64_t tid, const char *name);
/* The scheduler's name of a tid that is no agent thread (its last), or NULL:
 * a child process has one when it exec'd (perf writes none at a fork). */
const char *bld_comm_of(const struct ecp_builder *b, uint64_t tid);
/* LTTng-UST's own listener threads ("<comm>-ust"), in the program's and
 * its children's processes: the recorder's, no thread of the program. */
bool bld_is_recorder_thread(const char *comm);
int bld_add_unseen_threads(struct ecp_builder *b, struct ecp_error *err);
ecp_id bld_unseen_function(struct ecp_builder *b);
int bld_unseen_warning(const struct ecp_builder *b, struct ecp_model *m);

#endif
