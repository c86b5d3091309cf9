/* SPDX-License-Identifier: MIT */
/* The execution model: what the program did, recorded on one CPU.
 *
 * Built by the model builder (builder.c, builder-*.c) from the decoded trace,
 * read by the simulator and the ECP engine.  Semantics (DESIGN.md "The model"):
 *
 *  - A *segment* is a thread's execution between two synchronization points;
 *    the start and end of a thread count as such.  Its `length` is the CPU time
 *    the thread really used in it (context switches removed, the agent's own
 *    calibrated cost subtracted).  Zero-length segments are allowed: two
 *    synchronizations back to back (unlock then signal) give one.
 *  - A thread's segments are contiguous in `segments`, in program order.
 *    Between segment i and i+1 of the same thread there is an implicit edge of
 *    length `segments[i+1].delay`: time asleep (sleep, blocking I/O, a timed
 *    wait that timed out) that uses no processor.
 *  - `edges` are the recorded cross-thread causal dependencies, each from the
 *    END of segment `from` to the START of segment `to`, zero length:
 *    create -> child start; thread end -> join return; post -> the wait that
 *    consumed that token; signal/broadcast -> the waits it woke; last barrier
 *    arrival -> every waiter's return; once-initializer end -> waiters;
 *    unlock -> next acquire (kind ECP_EDGE_LOCK: used only with
 *    --lock-order=recorded; by default the simulator re-decides lock
 *    hand-offs from `lock_acquire` / `lock_release`).
 *  - A segment that starts by acquiring a lock names it in `lock_acquire`
 *    (a blocking lock, a condition wait's re-acquire, a successful trylock);
 *    one that ends by releasing a lock names it in `lock_release`.
 *  - Function activity: per segment, per function, the calls entered in the
 *    segment, the exclusive (self) time and the inclusive time (time the
 *    function was on the stack at least once: recursion counted once), with
 *    the call stack re-created across segment boundaries, so a function
 *    entered before the segment still gets its share.  Time with no recorded
 *    function on the stack is charged to the thread's start routine (`main`
 *    for the main thread), so programs built without -finstrument-functions
 *    still get per-thread attribution.  With samples (recorded without
 *    recompiling, issue 18) the time between two samples of a thread goes
 *    to the first one's leaf (self) and to every function on its stack
 *    (inclusive), split at segment boundaries like instrumented time;
 *    instrumented frames stay exact and samples fill in below them.
 *
 * All times are integer nanoseconds.  Indices are ecp_id (uint32_t); counts
 * that can exceed 4 G (activities, calls) are uint64_t. */
#ifndef ECP_SIMULATOR_MODEL_H
#define ECP_SIMULATOR_MODEL_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t ecp_id;
#define ECP_NO_ID UINT32_MAX

/* The suffix of an inlined function's name (simulator/symbols/symbols.h
 * names them): "NAME [inlined]". */
#define ECP_INLINED_MARK " [inlined]"

/* A lock's kind and how a segment acquired it (the agent's lock events). */
enum ecp_lock_kind { ECP_LOCK_MUTEX = 0, ECP_LOCK_SPIN = 1, ECP_LOCK_RWLOCK = 2 };
enum ecp_lock_mode { ECP_LOCK_EXCLUSIVE = 0, ECP_LOCK_SHARED = 1 };

enum ecp_edge_kind {
	ECP_EDGE_CREATE = 0,
	ECP_EDGE_JOIN,
	ECP_EDGE_LOCK, /* recorded unlock -> next acquire of the same lock */
	ECP_EDGE_COND,
	ECP_EDGE_SEM,
	ECP_EDGE_BARRIER,
	ECP_EDGE_ONCE,
	/* the other threads' releases of a lock -> a taking of it never
	 * released (the trace ended first), which holds it from no one at
	 * replay: kept in both lock modes (builder-held.c) */
	ECP_EDGE_LOCK_HELD,
	ECP_EDGE_KIND_COUNT
};

struct ecp_edge {
	ecp_id from; /* its end ... */
	ecp_id to;   /* ... releases this one's start */
	uint32_t kind;
};

/* A segment's own fields: what the builder records of it while it reads
 * the trace (struct ecp_segment_record, 56 bytes) and the model keeps
 * (struct ecp_segment, 64 bytes, where its edges and activities lie added
 * by the build's end).  The builder's segments are most of its peak on a
 * sync-heavy trace (issue 35: 0.4 of them an event), and nothing reads
 * where their edges lie before the edges are sorted, at the end. */
#define ECP_SEGMENT_RECORD_FIELDS                                                        \
	ecp_id thread;                                                                   \
	ecp_id lock_acquire; /* lock taken at the start, or ECP_NO_ID */                 \
	ecp_id lock_release; /* lock released at the end, or ECP_NO_ID */                \
	/* enum ecp_lock_mode (shared for rwlock readers) */                             \
	uint32_t acquire_mode : 1;                                                       \
	/* what the largest part of `delay` waited in (enum ecp_delay_kind),             \
	 * when delay > 0 */                                                             \
	uint32_t delay_kind : 7;                                                         \
	/* activities[first_activity .. +n_activity): at most                            \
	 * ECP_SEGMENT_MAX_ACTIVITIES (the builder refuses more); 32 bits, as            \
	 * segment and edge ids (4 G activities would be 96 GB) -- add them in           \
	 * 64 bits.  n_activity 0: the one implicit activity of                          \
	 * ecp_segment_activities(). */                                                  \
	uint32_t n_activity : 24;                                                        \
	uint64_t length;    /* CPU ns */                                                 \
	uint64_t delay;     /* ns asleep since the previous segment */                   \
	uint64_t cpu_start; /* thread CPU time consumed before this segment */           \
	uint64_t rec_start; /* recorded start, ns from the trace's first event */        \
	uint64_t rec_end;   /* recorded end, ns from the trace's first event */

struct ecp_segment_record {
	ECP_SEGMENT_RECORD_FIELDS
};

/* What a segment's neighbours give is not kept: its incoming edges end
 * where the next segment's begin (ecp_segment_n_in). */
struct ecp_segment {
	union {
		struct {
			ECP_SEGMENT_RECORD_FIELDS
		};
		struct ecp_segment_record record; /* the same fields, whole */
	};
	uint32_t first_in; /* its incoming edges: edges[first_in .. +n_in), n_in
			    * from the next segment's (ecp_segment_n_in) */
	uint32_t first_activity;
};

static_assert(sizeof(struct ecp_segment_record) == 56 &&
		  sizeof(struct ecp_segment) == 64 &&
		  offsetof(struct ecp_segment, first_in) ==
		      sizeof(struct ecp_segment_record),
	      "a segment record is the model's segment without its indexes");

#define ECP_SEGMENT_MAX_ACTIVITIES ((UINT32_C(1) << 24) - 1)

/* What a delay waited in: the recorder's delay_begin kinds (recorder/
 * EVENTS.md) plus one, and the waits the builder keeps as delays. */
enum ecp_delay_kind {
	ECP_DELAY_UNKNOWN = 0,
	ECP_DELAY_CALL_FIRST = 1, /* + delay_begin's kind: nanosleep, read... */
	ECP_DELAY_CALL_LAST = 63,
	ECP_DELAY_TIMED_OUT = 64, /* a timed wait that timed out, nothing woke */
	ECP_DELAY_CHILD = 65,     /* a child process's exec'd program */
	ECP_DELAY_KINDS = 66,
};

/* "nanosleep", "read", "a timed wait that timed out"... */
const char *ecp_delay_kind_name(unsigned kind);

struct ecp_thread {
	uint64_t tid;         /* kernel tid */
	char name[16];        /* pthread_setname_np / comm, may be empty */
	ecp_id first_segment; /* segments[first_segment .. +n_segments) */
	uint32_t n_segments;
	ecp_id start_function; /* start routine (main for the main thread) */
	ecp_id parent;         /* creating thread, ECP_NO_ID for the main thread */
	/* What the consistency check (consistency.h) holds its work to: the
	 * thread's own CPU clock (CLOCK_THREAD_CPUTIME_ID) from its first to
	 * its last event, the recorder's cost included (0: unknown -- clock
	 * thread-cputime, no switch records, or no thread_exit), and the
	 * recorder's cost taken out of its times (events and samples; and
	 * what an OpenMP runtime spun in task waits, builder-tasks.c). */
	uint64_t own_clock_ns;
	uint64_t overhead_ns;
};

struct ecp_lock {
	uint64_t addr;
	uint32_t kind; /* enum ecp_lock_kind */
};

struct ecp_function {
	const char *name;      /* demangled symbol, or "object+0xOFFSET" */
	const char *object;    /* path of the ELF object, may be "" */
	uint64_t addr;         /* runtime address as recorded */
	uint64_t call_site;    /* with --by callsite: the return address in the caller */
	uint64_t folded_calls; /* calls folded by the recorder's filters */
	/* Samples that found this function at the top of the (sampled part of
	 * the) stack: its self time is known to about 1/sqrt(samples).  0 for
	 * a function timed only by instrumentation. */
	uint64_t samples;
};

struct ecp_activity {
	ecp_id function;
	uint32_t calls;   /* entries of the function inside the segment */
	uint64_t self_ns; /* exclusive time within the segment */
	uint64_t incl_ns; /* time within the segment with the function on the stack */
};

/* A single call on a thread's CPU-time line (for timelines and folded stacks). */
struct ecp_call {
	ecp_id thread;
	ecp_id function;
	uint32_t depth; /* 0 = outermost recorded frame */
	uint32_t flags; /* ECP_CALL_REPAIRED: exit synthesised by the builder */
	uint64_t enter; /* thread CPU time at entry */
	uint64_t exit;  /* thread CPU time at exit */
};
#define ECP_CALL_REPAIRED 0x1u
/* A function seen on sampled stacks (issue 18): the call spans the samples
 * that saw it, from half-way before the first to half-way after the last
 * (the builder's take-over points), so its ends are known to about half a
 * sample period; consecutive calls of the function on a thread are one. */
#define ECP_CALL_SAMPLED 0x2u

/* A task-creating call site (OpenMP tasks, issue 37): Cilkprof's work and
 * span per spawn site, on the recorded task graph.  A task's subtree is its
 * body and its descendants' bodies; its span is the longest chain through
 * them on unlimited processors (a child starts when made and its depend
 * predecessors are done; a taskwait waits for the children made before it,
 * a taskgroup's end for its tasks).  The site's work and span add up the
 * subtrees of its outermost tasks only (those with no ancestor made at the
 * same site): a recursion is counted once. */
struct ecp_spawn_site {
	uint64_t site;   /* the return address of the creating call */
	ecp_id function; /* the function that made its tasks (names the site) */
	uint32_t pad;
	uint64_t tasks;   /* tasks made there */
	uint64_t work_ns; /* its outermost tasks' subtrees' work */
	uint64_t span_ns; /* the sum of their spans */
};

struct ecp_model_info {
	char *trace_path;
	char *program;             /* recorded command line */
	char *clock;               /* "perf-switch" or "thread-cputime" */
	uint64_t events;           /* events read */
	uint64_t discarded_events; /* by LTTng (its buffers were full) */
	uint64_t switches_lost;    /* context-switch records perf dropped */
	uint64_t as_cpus;          /* the CPUs the program was shown (0: unknown) */
	/* the CPUs the program ran on while recorded: 1 (pinned to one, the
	 * model's ideal), or N with `ecp record --cpus` (its durations are
	 * what they cost running beside each other; its wall time is a
	 * measured T_N) */
	uint64_t recorded_cpus;
	bool cpu_count_read;     /* the program asked how many CPUs it has */
	uint64_t event_cost_ns;  /* the recorder's cost per event, rounded */
	uint64_t event_cost_ps;  /* the same to the picosecond (what is subtracted) */
	uint64_t sample_cost_ns; /* the kernel's cost per perf sample (subtracted) */
	uint64_t program_cpu_ns; /* the kernel's CPU time of the whole recorded
				    program, recorder's cost included (0: unknown) */
	/* the recorder's cost taken out, all threads, with the CPU time an
	 * OpenMP runtime spun looking for tasks in its waits (not work) */
	uint64_t overhead_ns;
	/* CPU time, and count, of the tids the scheduler saw run in the
	 * program's process that are no thread of the model (threads the
	 * agent did not see, LTTng-UST's listener threads): in program_cpu_ns,
	 * not in the work */
	uint64_t outside_cpu_ns;
	uint32_t outside_threads;
	/* CPU time the model's threads used before their first and after
	 * their last event (thread set-up and tear-down; for main the exec,
	 * the loader and the recorder's start): no segment holds it */
	uint64_t untracked_cpu_ns;
	/* of outside_cpu_ns and untracked_cpu_ns, the stays on the CPU whose
	 * start or end no record of the tid gave (its first switch-in, or its
	 * last switch-out at exit): closed by another tid's record, they are
	 * upper bounds (an untraced process may have run meanwhile) */
	uint64_t guessed_cpu_ns;
	/* what the hypervisor took from the program's CPUs while it ran, at
	 * most (steal time; 0: none seen or not recorded).  The switch records
	 * count it as the stays' time, the CPU clocks do not: the model's
	 * threads are scaled to their own clocks (builder-clock-scale.c), but
	 * outside_cpu_ns and untracked_cpu_ns may hold up to this much of it */
	uint64_t steal_ns;
	/* what other processes (and interrupts) took of the program's CPUs
	 * while it ran, and what that figure may be off by (0: none, or not
	 * recorded).  A thread whose delay (a sleep, I/O, a timeout) ended
	 * while another process held its CPU waited for it, and its switch
	 * records hold that wait as part of the delay */
	uint64_t other_cpu_ns, other_cpu_resolution_ns;
	/* CPU time of the work whose dependencies were not seen (issue 32):
	 * threads only the scheduler saw, child processes' threads, and what
	 * threads did after their last event until the exit cut them.  Held
	 * as independent work: T_P is a lower bound where it matters. */
	uint64_t unknown_deps_ns;
	uint64_t recorded_wall_ns;
	bool functions_recorded;
	uint64_t samples;      /* perf samples that split segments among functions */
	uint64_t samples_lost; /* samples perf dropped */
	/* the rate sampled at and the kernel's stops of the sampler
	 * (recorder/perf-throttle.h); 0: not sampled, or none */
	uint64_t sample_hz, samples_throttled;
	/* OpenMP tasks (issue 37): dealt again to the threads at replay, kept
	 * where and in the order the recording ran them, and the draws of the
	 * deal's tie check (task-deal.c; 0 with tasks dealt: the deal was too
	 * long to check) */
	uint64_t tasks_dealt, tasks_kept;
	uint32_t tie_draws;
};

struct ecp_model {
	struct ecp_thread *threads;
	uint32_t n_threads;
	struct ecp_segment *segments;
	uint32_t n_segments;
	struct ecp_edge *edges; /* sorted by `to` */
	uint32_t n_edges;
	struct ecp_lock *locks;
	uint32_t n_locks;
	struct ecp_function *functions;
	uint32_t n_functions;
	struct ecp_activity *activities;
	uint64_t n_activities;
	struct ecp_call *calls; /* may be NULL when not kept */
	uint64_t n_calls;
	struct ecp_spawn_site *spawn_sites; /* by site address; NULL: no task */
	uint32_t n_spawn_sites;
	struct ecp_model_info info;
	char **warnings; /* counted, human-readable repairs and oddities */
	size_t n_warnings;
	void *strings; /* owner of every string above (arena), private */
};

void ecp_model_destroy(struct ecp_model *model);

/* Where segment s's incoming edges end: where the next one's begin (the
 * edges are sorted by target, ecp_model_validate()), or at the last edge. */
static inline uint32_t ecp_segment_in_end(const struct ecp_model *m, ecp_id s)
{
	return s + 1 < m->n_segments ? m->segments[s + 1].first_in : m->n_edges;
}

/* Sets each segment's first_in from the edges, sorted by target: the
 * index of its first incoming edge, or of the next segment's. */
void ecp_model_index_edges(struct ecp_model *m);

/* How many incoming edges segment s has. */
static inline uint32_t ecp_segment_n_in(const struct ecp_model *m, ecp_id s)
{
	return ecp_segment_in_end(m, s) - m->segments[s].first_in;
}

/* Frees the segment records and the edges between them (segments and
 * edges NULL, their counts kept: the DAG and an analysis hold their own
 * copies of what they read, indexed by segment id), for a command that
 * has read them for the last time and whose peak is still ahead
 * (`ecp scan`, answers/sweep.h). */
void ecp_model_free_segments(struct ecp_model *model);

/* Appends a human-readable warning: the builder's, or an analysis's about
 * its answer (cli/session.c), so that every output shows what stderr
 * does; returns 0 or -1 when memory ran out. */
int ecp_model_add_warning(struct ecp_model *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A segment whose whole length is its thread's start routine's own (no
 * call in it, no other function on the stack: every segment of a program
 * recorded without functions, most of a sync-heavy one's) holds no
 * activity of its own (n_activity 0; issue 35: 24 bytes a segment); this
 * gives it: {start_function, 0 calls, self = incl = length} (none when
 * the thread has no start function, ECP_NO_ID).  Every consumer reads a
 * segment's activities through here.  Returns how many (*acts points into
 * the model or at *implicit). */
static inline uint32_t ecp_segment_activities(const struct ecp_model *model,
					      const struct ecp_segment *seg,
					      struct ecp_activity *implicit,
					      const struct ecp_activity **acts)
{
	if (seg->n_activity) {
		*acts = model->activities + seg->first_activity;
		return seg->n_activity;
	}
	implicit->function = model->threads[seg->thread].start_function;
	implicit->calls = 0;
	implicit->self_ns = implicit->incl_ns = seg->length;
	*acts = implicit;
	/* none on a thread of no function (a test's model) */
	return implicit->function != ECP_NO_ID;
}

/* Sum of segment lengths: T_1, the predicted single-CPU run time. */
uint64_t ecp_model_work(const struct ecp_model *model);
/* The same for thread t alone: its segments' lengths. */
uint64_t ecp_model_thread_work(const struct ecp_model *model, uint32_t t);

/* Looks a function up by exact name; ECP_NO_ID if absent. */
ecp_id ecp_model_find_function(const struct ecp_model *model, const char *name);

/* Checks the structural invariants every consumer relies on (indices in
 * range, threads' segments contiguous, edges sorted by target and acyclic with
 * thread order, activities inside their segment).  Used by tests and after
 * loading a cache; returns 0 or fills err. */
struct ecp_error;
int ecp_model_validate(const struct ecp_model *model, struct ecp_error *err);

#endif
