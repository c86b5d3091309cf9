/* SPDX-License-Identifier: MIT */
/* Internals of the preload agent libecp-record.so (not installed, not used by
 * the driver).
 *
 * Rules every agent file follows (STYLE.md 8):
 * - Every function is no_instrument_function (ECP_AGENT_FN/ECP_AGENT_API),
 *   so the agent never calls its own hooks even if built instrumented.
 * - Nothing here allocates on the hot path: per-thread state is one mmap made
 *   when the thread starts; hooks and wrappers touch only that.
 * - Re-entry: a thread-local guard is raised while the agent emits; any
 *   interposed call made meanwhile (by LTTng-UST, by libc) passes straight to
 *   the real function.  Threads the agent did not start (LTTng-UST's own
 *   listener threads, threads created before the agent was ready) have no
 *   state and are never recorded.
 * - The agent never exits or aborts: on any failure it stops recording the
 *   affected thread and lets the program run. */
#ifndef ECP_RECORDER_AGENT_H
#define ECP_RECORDER_AGENT_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "recorder/agent/func-batch.h"
#include "recorder/agent/tsc.h"

#define ECP_AGENT_API __attribute__((visibility("default"), no_instrument_function))
#define ECP_AGENT_FN  __attribute__((no_instrument_function))

/* Every event the agent writes keeps errno: LTTng-UST's write path (a full
 * sub-buffer in blocking mode waits on a futex; the consumer is woken) may
 * set it, inside a function's exit hook or after a wrapped call, and the
 * program must see only the errno of its own calls.  The thread's pending
 * batch of function records is written first (ecp_batch_before_event), so
 * that each thread's events stay in the order they happened. */
#define ECP_TP(...)                                                                      \
	do {                                                                             \
		int ecp_errno_ = errno;                                                  \
		if (ecp_batch_before_event())                                            \
			lttng_ust_tracepoint(ecp, __VA_ARGS__);                          \
		errno = ecp_errno_;                                                      \
	} while (0)

/* Depth of the shadow stack kept per thread; deeper calls are counted in
 * `overflow` and ignored (their time stays in the deepest recorded frame). */
#define ECP_STACK_MAX 1024
/* Open-addressing table of folded calls per thread; when full, the fullest
 * slot is flushed as a func_folded event (the reader sums them). */
#define ECP_FOLD_SLOTS 1024

enum ecp_frame_flags {
	ECP_FRAME_EMITTED = 1u,    /* func_entry written: func_exit must follow */
	ECP_FRAME_SUPPRESSED = 2u, /* excluded by name or depth: folded, never emitted */
};

struct ecp_frame {
	uint64_t addr;
	uint64_t call_site;
	uint64_t tsc; /* time stamp counter at entry */
	uint32_t flags;
	/* the entry hook's own time in TSC ticks, counted in the cost of the
	 * events when its entry is written (ECP_HOOK_UNTIMED: it was not
	 * timed) */
	uint32_t hook_ticks;
};

struct ecp_fold {
	uint64_t addr;
	uint64_t calls;
	uint64_t total_tsc;
};

struct ecp_thread {
	int guard;         /* >0 while the agent itself runs on this thread */
	uint32_t top;      /* frames on the shadow stack */
	uint32_t flushed;  /* frames [0, flushed) are emitted or suppressed */
	uint32_t overflow; /* calls deeper than ECP_STACK_MAX */
	int tid;           /* kernel tid, cached: gettid() is a syscall */
	uint64_t create_id;
	void (*once_fn)(void); /* the init routine pthread_once is running */
	bool once_ran;         /* it ran on this thread (once_end's `ran`) */
	uint32_t n_fold;       /* fold slots ever taken: none, no flush at the end */
	/* the exit hooks' own time (with their entries'), the events they
	 * wrote and the hooks, not yet added to the process's totals
	 * (agent-func.c) */
	uint64_t cost_ticks, cost_events, cost_hooks;
	/* the calls are the calibration's (agent-core.c, calibrate_calls):
	 * their records are thrown away and their cost kept apart */
	bool calibrating;
	uint64_t emitted; /* function events written */
	/* the start routine returned or called pthread_exit: a thread whose
	 * cleanup runs without either was cancelled (agent-thread.c) */
	bool left;
	/* function records not yet written (issue 35): one ecp:func_batch
	 * event when full, and before any other event of the thread */
	struct ecp_batch batch;
	uint64_t batch_first_tsc; /* its first record's time */
	uint64_t clock_read_tsc;  /* its last event that carried its CPU clock */
	/* The wrappers' own cost, timed in the run (agent-sync-cost.c): the
	 * events written by ECP_TP on this thread, the ticks batch flushes
	 * outside a hook timed themselves (function records' cost, not the
	 * wrapper's), the open window, and the sums not yet published */
	uint64_t tp_written, flush_ticks;
	uint64_t win_start, win_ticks, win_ev0, win_flush0;
	bool win_slow; /* a stretch of the window was slow (ecp_sync_slow) */
	uint64_t sync_ticks, sync_events, sync_windows;
	uint64_t sync_calib_ticks; /* the calibration's windows */
	/* windows that wrote no event (a read of a ready descriptor asks the
	 * kernel whether it would block): their time, not yet written in a
	 * quiet_windows event (agent-sync-cost.c) */
	uint64_t quiet_ticks, quiet_windows;
	/* libomp's yields outside the waits OMPT reports, a lock's back-off
	 * (agent-ompt-spin.c): the run's first yield and the last one's
	 * return on the thread's CPU clock, when it was last told, and the
	 * events written and the stack's depth then (either moving ends it) */
	uint64_t spin_start, spin_last, spin_told, spin_written;
	uint32_t spin_top;
	char batch_cobs[ECP_BATCH_COBS_MAX];
	struct ecp_frame stack[ECP_STACK_MAX];
	struct ecp_fold fold[ECP_FOLD_SLOTS];
};

/* Settings read once from ECP_* variables (recorder/README.md). */
struct ecp_settings {
	bool functions;       /* ECP_FUNCTIONS (default 1) */
	bool cputime;         /* ECP_CLOCK=thread-cputime: sync events carry cpu_ns */
	bool record_children; /* ECP_FOLLOW_FORK=1: keep recording after fork */
	uint32_t depth;       /* ECP_DEPTH, 0 = unlimited */
	uint64_t min_tsc;     /* ECP_MIN_DURATION_NS converted to TSC ticks */
	uint64_t hook_outlier_tsc;     /* ECP_HOOK_OUTLIER_NS in TSC ticks */
	uint64_t batch_age_tsc;        /* ECP_BATCH_AGE_NS in TSC ticks */
	uint64_t clock_read_every_tsc; /* ECP_CLOCK_READ_EVERY_NS in TSC ticks */
};

extern struct ecp_settings ecp_settings;
extern volatile int ecp_agent_ready;
extern __thread struct ecp_thread *ecp_self __attribute__((tls_model("initial-exec")));

/* Time: the TSC times the shadow stack cheaply (11 ns, vs 28 ns for
 * CLOCK_MONOTONIC), and function events carry the raw TSC: the reader
 * converts it through the driver's (CLOCK_MONOTONIC, TSC) anchors, so no
 * ratio calibrated in the agent ever scales a time.  ecp_tsc_to_ns (a rough
 * ratio, measured at start) only converts thresholds and the agent's own
 * cost per call, which need no precision. */
uint64_t ecp_mono_ns(void);
uint64_t ecp_tsc_to_ns(uint64_t ticks);

/* Thread state: created for the main thread by the constructor and for
 * each thread started through the pthread_create wrapper. */
struct ecp_thread *ecp_thread_begin(uint64_t create_id);
void ecp_thread_end(struct ecp_thread *t);
uint64_t ecp_next_create_id(void);

/* Whether this is the process `ecp record` started (agent-core.c): not a
 * fork copy, a vfork child or a child that exec'd with the agent. */
bool ecp_in_recorded_process(void);
/* Writes the calling thread's batch before the process image ends. */
void ecp_flush_before_end(void);
/* Resolves the exec functions' real ones before the program can fork
 * (agent-exec.c): after fork, dlsym may wait on a lock another thread
 * held. */
void ecp_exec_resolve(void);

/* Before any non-function event: write the pending lazy function entries
 * so the event lands inside the calls that contain it. */
void ecp_flush_frames(struct ecp_thread *t);
/* Writes the thread's batch of function records as one ecp:func_batch
 * event (agent-func.c).  `in_window`: the caller's own timed window counts
 * its cost (an exit hook); otherwise the flush times itself and adds its
 * time to the function records' cost. */
void ecp_batch_flush(struct ecp_thread *t, bool in_window);
/* Before any other event of the calling thread (ECP_TP): its batch, and
 * the count of its events.  False: the event is the calibration's
 * (agent-sync-cost.c), not written. */
static inline __attribute__((always_inline, no_instrument_function)) bool
ecp_batch_before_event(void)
{
	struct ecp_thread *t = ecp_self;
	if (!t)
		return true;
	if (t->calibrating)
		return false;
	t->tp_written++;
	if (t->batch.used)
		ecp_batch_flush(t, false);
	return true;
}
/* At thread end: unwound frames and folded counts. */
void ecp_finish_frames(struct ecp_thread *t);
/* cpu_ns field value: with thread-cputime, the thread's CPU clock at every
 * event; with perf-switch, at an event at least ECP_CLOCK_READ_EVERY_NS
 * after the thread's last reading, else 0.  The reader scales the switch
 * records' time between two readings by the clock's (steal out of it,
 * builder-clock-scale.c): a burst of steal is put where it fell, not spread
 * over the whole thread. */
uint64_t ecp_cpu_ns(void);
/* The thread's CLOCK_THREAD_CPUTIME_ID whatever the clock: thread_start,
 * thread_exit and process_exit always carry it (one read of ~630 ns at each
 * end of a thread), so that the reader can take out of the switch records
 * the time the hypervisor stole while the thread was on the CPU. */
uint64_t ecp_thread_cpu_ns(void);

/* Relative timeout of an absolute deadline on `clk` (0 for no deadline,
 * at least 1 for a deadline already passed). */
uint64_t ecp_relative_ns(clockid_t clk, const struct timespec *abstime);
/* Names a call ecp does not model (or only in part): an `unmodelled`
 * event, once per process and name.  Call inside the agent (guard raised). */
void ecp_unmodelled(const char *name);
/* A line for `ecp record` (its ECP_UNMODELLED_FILE): a call's name, or a
 * fact about the run starting with '#' ("#cpu-count": the program asked
 * how many CPUs it has). */
void ecp_tell_driver(const char *line);
/* Runs t->once_fn and sets t->once_ran (pthread_once, call_once). */
void ecp_once_trampoline(void);
/* The end of a thread started through a wrapper (pthread_cleanup handler). */
void ecp_thread_cleanup(void *unused);

/* An entry hook whose time is not known (an outlier, below). */
#define ECP_HOOK_UNTIMED UINT32_MAX
/* A timed hook that took longer did not run all along: it waited for
 * LTTng's consumer on a full sub-buffer (blocking mode) or was preempted.
 * The TSC counts that wall time, which is not the program's CPU time, so
 * such a hook is left out of the average (a sub-buffer switch that really
 * runs takes a few microseconds). */
#define ECP_HOOK_OUTLIER_NS 20000u
/* The oldest a thread's batch of function records gets before it is
 * written (agent-func.c, put_record): what a thread cut at the process's
 * end can lose.  A call-dense thread fills its 4 KiB long before (in about
 * 0.1 ms), so this costs at most a few hundred writes a second a thread. */
#define ECP_BATCH_AGE_NS 5000000u
/* How often (wall time, at most) a synchronization event carries the
 * thread's CPU clock with perf-switch: a read costs ~260 ns (a system call;
 * 630 ns seen loaded), so at most 0.3% of a thread's time, and steal is
 * then placed to within the events of 100 us (a 2 ms burst in one of a
 * Reader's 3 ms calls, spread over its whole thread, made it the billing
 * example's critical path once in 28 recordings). */
#define ECP_CLOCK_READ_EVERY_NS 100000u
/* Writes the hooks' measured cost per event to `path` (at process exit). */
void ecp_hook_cost_write(const char *path);
/* Adds the thread's hook times not yet counted to the process's totals. */
void ecp_hook_cost_publish(struct ecp_thread *t);
/* What the hooks cost a call beyond their own timed windows, in TSC ticks,
 * measured at start (agent-core.c): added to the cost of the events. */
void ecp_hook_set_untimed(uint64_t milliticks_per_call);

ECP_AGENT_API void __cyg_profile_func_enter(void *fn, void *call_site);
ECP_AGENT_API void __cyg_profile_func_exit(void *fn, void *call_site);

/* Function-name filters (agent-filter.c), loaded by the constructor. */
int ecp_filter_load(void);
extern uint64_t ecp_main_addr; /* address of main, 0 if unknown */
bool ecp_filter_excludes(uint64_t addr);

/* Enter the agent on this thread: NULL when the thread is not recorded or
 * the agent is already running on it (then call straight through). */
static inline __attribute__((always_inline)) struct ecp_thread *ecp_enter(void)
{
	struct ecp_thread *t = ecp_self;
	if (!t || t->guard)
		return 0;
	t->guard++;
	ecp_flush_frames(t);
	return t;
}
static inline __attribute__((always_inline)) void ecp_leave(struct ecp_thread *t)
{
	t->guard--;
}

/* The cost of the events other than function records, timed in the run
 * like the function hooks' (agent-sync-cost.c): a wrapper that writes
 * events enters with ecp_enter_timed, runs the call it wraps through
 * ECP_UNTIMED (its time is the program's, not the recorder's) and leaves
 * with ecp_leave_timed.  Two TSC reads a wrapper whose call comes last
 * (ECP_UNTIMED_LAST), four otherwise; no syscall, no errno change.  The window opens
 * before the pending function entries are flushed: the entries go to the batch (records
 * whose cost is the function hooks'), a batch write is timed apart and left out. */
static inline __attribute__((always_inline)) struct ecp_thread *
ecp_enter_quiet_at(uint64_t t0)
{
	struct ecp_thread *t = ecp_self;
	if (!t || t->guard)
		return 0;
	t->guard++;
	t->win_ticks = 0;
	t->win_slow = false;
	t->win_ev0 = t->tp_written;
	t->win_flush0 = t->flush_ticks;
	t->win_start = t0;
	return t;
}
static inline __attribute__((always_inline)) struct ecp_thread *
ecp_enter_timed_at(uint64_t t0)
{
	struct ecp_thread *t = ecp_enter_quiet_at(t0);
	if (t)
		ecp_flush_frames(t);
	return t;
}
static inline __attribute__((always_inline)) struct ecp_thread *ecp_enter_timed(void)
{
	return ecp_enter_timed_at(ecp_tsc());
}
/* ecp_enter_quiet_at opens the window without writing the pending
 * function entries: a wrapper that may write no event (a read of a ready
 * descriptor, agent-io.c) calls ecp_flush_frames only once it knows it
 * writes one, so that its calls are not written for it.  A window that
 * wrote no event has no event to carry its cost in the average: its time
 * is summed apart and written now and then as a quiet_windows event
 * (ecp_sync_window), which the reader takes out of the thread's clock. */
/* A wrapper that enters before its real call opens its window at its
 * first instruction (ECP_WINDOW_OPEN), so that looking up the real
 * function and asking whether the caller is libomp's own, in the
 * program's cold caches, are timed too (sqlite3: 31-44 ns an event outside
 * the windows opened later); a call not recorded pays one TSC read. */
#define ECP_WINDOW_OPEN const uint64_t ecp_t0_ = ecp_tsc()
/* Closes the window, its last stretch `ticks` long, and adds it to the
 * thread's sums (agent-sync-cost.c). */
void ecp_sync_window(struct ecp_thread *t, uint64_t ticks);
/* A stretch of the window that took longer than an event can (waited or
 * preempted): written as a slow_window event, the window left out of the
 * average. */
void ecp_sync_slow(struct ecp_thread *t, uint64_t ticks);
static inline __attribute__((always_inline)) void ecp_sync_stretch(struct ecp_thread *t)
{
	uint64_t s = ecp_tsc() - t->win_start;
	if (__builtin_expect(s >= ecp_settings.hook_outlier_tsc, 0))
		ecp_sync_slow(t, s);
	else
		t->win_ticks += s;
}
static inline __attribute__((always_inline)) void ecp_leave_timed(struct ecp_thread *t)
{
	ecp_sync_window(t, ecp_tsc() - t->win_start);
	t->guard--;
}
/* The wrapped call itself, out of the window. */
#define ECP_UNTIMED(t, call)                                                             \
	__extension__({                                                                  \
		ecp_sync_stretch(t);                                                     \
		__auto_type r_untimed_ = (call);                                         \
		(t)->win_start = ecp_tsc();                                              \
		r_untimed_;                                                              \
	})
/* The wrapped call last: the window closes before it (two TSC reads fewer);
 * the wrapper then leaves with ecp_leave. */
#define ECP_UNTIMED_LAST(t, call)                                                        \
	__extension__({                                                                  \
		ecp_sync_window((t), ecp_tsc() - (t)->win_start);                        \
		(call);                                                                  \
	})
/* Writes the time of the thread's windows that wrote no event, not yet
 * written (at thread and process end, and when it reaches
 * ECP_QUIET_FLUSH_NS).  Call inside the agent (guard raised). */
void ecp_quiet_flush(struct ecp_thread *t);
/* At the process's exit, on its main thread: a thread_clock event for each
 * other thread still alive, its own CPU clock (agent-clocks.c).  Call
 * inside the agent (guard raised), before ecp_quiet_flush. */
void ecp_write_thread_clocks(struct ecp_thread *t);
/* The most time of windows without an event a thread keeps unwritten: the
 * reader takes it out at the quiet_windows event, so a clock reading
 * between is at most this far above the program's (each event written to
 * carry it costs about 0.5% of it). */
#define ECP_QUIET_FLUSH_NS 40000u
/* Adds the thread's sums to the process's (at thread end and now and then). */
void ecp_sync_cost_publish(struct ecp_thread *t);
/* Appends the measured cost per event to the hooks file (at process exit). */
void ecp_sync_cost_write(int fd);
/* Measures what a wrapper costs outside its windows (at start). */
void ecp_sync_calibrate(struct ecp_thread *t);

/* OpenMP (agent-omp.c: GCC's libgomp; agent-ompt*.c, agent-kmpc.c: LLVM's
 * libomp through OMPT): each construct is written on objects of its own,
 * never a real address.  Bits 2..: the team instance (0: process-wide
 * locks); bits 0-1: which object of it. */
#define OMP_OBJ_BASE        0xecb0000000000000ull
#define OMP_OBJ(team, kind) (OMP_OBJ_BASE | ((uint64_t)(team) << 2) | (uint64_t)(kind))
enum { OBJ_FORK, OBJ_JOIN, OBJ_BARRIER, OBJ_ORDERED };
/* A new team instance, numbered from 1 for the whole process. */
uint64_t ecp_omp_new_team(void);
/* Set once LLVM's libomp started the agent's OMPT tool (agent-ompt.c):
 * the GOMP_* compatibility entry points and omp_*_lock functions libomp
 * also exports then pass straight through, so that nothing is recorded
 * twice. */
extern int ecp_ompt_active;
/* Whether LLVM's libomp is the process's OpenMP runtime (agent-ompt.c). */
bool ecp_omp_is_libomp(void);
/* Whether `caller` is in libomp while its OMPT tool runs (or may yet). */
bool ecp_ompt_runtime_call(const void *caller);
/* Whether `caller` is in libomp and its OMPT tool runs: libomp's own
 * mutexes and condition variables (its threads sleeping and being woken)
 * are then not recorded, the constructs they serve are (agent-ompt.c). */
bool ecp_ompt_own_call(const void *caller);
/* libomp yielded outside the waits its tool reports; `before` is the
 * thread's CPU clock at the call (agent-ompt-spin.c). */
void ecp_ompt_spun(uint64_t before);

/* The real functions (agent-real.c), resolved by the constructor or on first
 * use when a wrapper runs before it (during other libraries' constructors). */
typedef void (*ecp_fn)(void);
ecp_fn ecp_real(const char *name, const char *version);
#define ECP_REAL(fn) ECP_REAL_V(fn, 0)
#define ECP_REAL_V(fn, ver)                                                              \
	__extension__({                                                                  \
		static __typeof__(&fn) real_##fn;                                        \
		__typeof__(&fn) r_ = __atomic_load_n(&real_##fn, __ATOMIC_RELAXED);      \
		if (!r_) {                                                               \
			r_ = (__typeof__(&fn))ecp_real(#fn, ver);                        \
			__atomic_store_n(&real_##fn, r_, __ATOMIC_RELAXED);              \
		}                                                                        \
		r_;                                                                      \
	})

#endif
