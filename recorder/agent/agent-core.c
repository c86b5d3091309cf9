/* SPDX-License-Identifier: MIT */
/* The agent's process-wide part: settings, clocks, per-thread state, the main
 * thread's start and the process exit. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <lttng/ust-thread.h>
#include <lttng/urcu/urcu-ust.h>

#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

struct ecp_settings ecp_settings = {.functions = true};
volatile int ecp_agent_ready;
__thread struct ecp_thread *ecp_self __attribute__((tls_model("initial-exec")));

static double ns_per_tick = 1.0;
static pid_t recorded_pid; /* the process `ecp record` started */
static atomic_uint_fast64_t next_create_id = 1;

ECP_AGENT_FN uint64_t ecp_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

ECP_AGENT_FN uint64_t ecp_tsc_to_ns(uint64_t ticks)
{
	return (uint64_t)((double)ticks * ns_per_tick);
}

ECP_AGENT_FN uint64_t ecp_thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

ECP_AGENT_FN uint64_t ecp_cpu_ns(void)
{
	if (ecp_settings.cputime)
		return ecp_thread_cpu_ns();
	struct ecp_thread *t = ecp_self;
	if (!t)
		return 0;
	uint64_t now = ecp_tsc();
	if (now - t->clock_read_tsc < ecp_settings.clock_read_every_tsc)
		return 0;
	t->clock_read_tsc = now;
	return ecp_thread_cpu_ns();
}

ECP_AGENT_FN uint64_t ecp_next_create_id(void)
{
	return atomic_fetch_add(&next_create_id, 1);
}

/* TSC ticks per ns, measured against CLOCK_MONOTONIC over 500 us: a
 * relative error around 1e-4, which only ever scales call durations (never
 * absolute times) and costs little at start. */
ECP_AGENT_FN static void calibrate_tsc(void)
{
	uint64_t m0 = ecp_mono_ns(), t0 = ecp_tsc(), m1, t1;
	do {
		m1 = ecp_mono_ns();
		t1 = ecp_tsc();
	} while (m1 - m0 < 500000u);
	if (t1 > t0)
		ns_per_tick = (double)(m1 - m0) / (double)(t1 - t0);
}

ECP_AGENT_FN static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;
	int saved = errno, bad; /* runs in the program's process: keep its errno */
	if (!s || !*s)
		return dflt;
	errno = 0;
	v = strtoull(s, &end, 10);
	bad = errno || *end;
	errno = saved;
	return bad ? dflt : v;
}

ECP_AGENT_FN static void read_settings(void)
{
	const char *clock = getenv("ECP_CLOCK");
	uint64_t min_ns = env_u64("ECP_MIN_DURATION_NS", 0);
	ecp_settings.functions = env_u64("ECP_FUNCTIONS", 1) != 0;
	ecp_settings.cputime = clock && strcmp(clock, "thread-cputime") == 0;
	ecp_settings.depth = (uint32_t)env_u64("ECP_DEPTH", 0);
	ecp_settings.min_tsc = (uint64_t)((double)min_ns / ns_per_tick);
	ecp_settings.hook_outlier_tsc =
	    (uint64_t)((double)ECP_HOOK_OUTLIER_NS / ns_per_tick);
	ecp_settings.batch_age_tsc = (uint64_t)((double)ECP_BATCH_AGE_NS / ns_per_tick);
	ecp_settings.clock_read_every_tsc =
	    (uint64_t)((double)ECP_CLOCK_READ_EVERY_NS / ns_per_tick);
}

ECP_AGENT_FN struct ecp_thread *ecp_thread_begin(uint64_t create_id)
{
	/* Populated now, before the thread's first event: its 14 pages would
	 * otherwise fault in while the thread is recorded (the fold table all
	 * at once at its end), 10-40 us of the recorder's cost, more on a
	 * loaded machine, that would count as the program's work. */
	struct ecp_thread *t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (t == MAP_FAILED)
		return NULL; /* this thread goes unrecorded; the program runs on */
	/* LTTng-UST sets a thread up lazily, in its first event: its TLS and
	 * its registration with LTTng's RCU (whose registry grows by mmap now
	 * and then).  Done here, before the thread's first event reads its
	 * clock, that cost is not counted as the program's: it was 100-190 us
	 * of one thread's work in some recordings on a loaded machine. */
	lttng_ust_init_thread();
	lttng_ust_urcu_register_thread();
	t->create_id = create_id;
	t->tid = gettid();
	ecp_self = t;
	return t;
}

ECP_AGENT_FN void ecp_thread_end(struct ecp_thread *t)
{
	if (!t)
		return;
	t->guard++;
	ecp_finish_frames(t);
	ecp_quiet_flush(t);
	ECP_TP(thread_exit, (uint64_t)pthread_self(), ecp_thread_cpu_ns());
	ecp_hook_cost_publish(t); /* the last batch's write */
	ecp_sync_cost_publish(t);
	ecp_self = NULL;
	munmap(t, sizeof(*t));
}

/* Registered with on_exit() just before main runs (see __libc_start_main
 * below): it learns the status even when main returns (glibc then calls
 * exit() internally, which no wrapper sees).  Registered there, it runs
 * after the program's own atexit handlers but before those registered by
 * libraries' constructors, LTTng-UST's teardown included, which would
 * otherwise make the event vanish. */
ECP_AGENT_FN static void at_process_exit(int status, void *arg)
{
	struct ecp_thread *t = ecp_self;
	(void)arg;
	/* Other threads may still be inside instrumented code while exit()
	 * runs the library destructors: LTTng-UST's would unregister the
	 * probes (and dlclose its tracepoint library) under them, a crash seen
	 * under load in the recorder-robust test.  Keep the probes for the rest
	 * of the process's life; the kernel reclaims everything at exit. */
	tracepoint_disable_destructors();
	if (!t || t->guard)
		return;
	t->guard++;
	ecp_flush_frames(t);
	ecp_finish_frames(t);
	ecp_write_thread_clocks(t);
	ecp_quiet_flush(t);
	ECP_TP(process_exit, status, ecp_thread_cpu_ns());
	ecp_hook_cost_publish(t); /* the last batch's write */
	ecp_sync_cost_publish(t);
	{
		const char *calib = getenv("ECP_CALIBRATION_FILE");
		char path[4096];
		if (calib &&
		    snprintf(path, sizeof(path), "%s.hooks", calib) < (int)sizeof(path))
			ecp_hook_cost_write(path);
	}
	/* Other threads may still run while the process ends; the main thread
	 * stops recording here so nothing follows process_exit on it. */
	ecp_self = NULL;
}

/* After fork the child is not recorded: only the forking thread survives
 * in it, and its LTTng-UST buffers are not the parent's. */
ECP_AGENT_FN static void atfork_child(void)
{
	ecp_self = NULL;
	ecp_agent_ready = 0;
}

/* Stand-ins for the hooks in the calibration: what the program's calls
 * into glibc's empty __cyg_profile_func_* cost when it is not recorded. */
ECP_AGENT_FN __attribute__((noinline)) static void empty_hook(void *fn, void *site)
{
	(void)fn;
	(void)site;
	__asm__ volatile("" ::: "memory");
}

typedef void (*hook_fn)(void *, void *);
static hook_fn volatile calib_enter = __cyg_profile_func_enter,
			calib_exit = __cyg_profile_func_exit;
static hook_fn volatile calib_empty = empty_hook;

/* TSC ticks of `n` calls through `enter` and `exit`. */
ECP_AGENT_FN __attribute__((noinline)) static uint64_t
time_calls(hook_fn enter, hook_fn exit, void *fake, int n)
{
	uint64_t t0 = ecp_tsc();
	for (int i = 0; i < n; i++) {
		enter(fake, fake);
		exit(fake, fake);
	}
	return ecp_tsc() - t0;
}

#define CALIBRATION_CALLS  5000
#define CALIBRATION_BURSTS 21
#define CALIBRATION_BURST  500
#define UNTIMED_MAX_NS     100

ECP_AGENT_FN static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The median of the bursts' untimed thousandths of a tick per call (a
 * whole tick, 0.37 ns here, is 1 ms of a 3 M-call program's 12 ms: the
 * figure is kept finer than what it is measured in), or 0 (nothing taken
 * out) where it is not believable: not positive, over UNTIMED_MAX_NS, or
 * fewer than half the bursts within a fifth of it (the machine's noise,
 * not the hooks). */
ECP_AGENT_FN static uint64_t untimed_estimate(int64_t *v)
{
	int near = 0;
	qsort(v, CALIBRATION_BURSTS, sizeof(v[0]), cmp_i64);
	int64_t med = v[CALIBRATION_BURSTS / 2];
	if (med <= 0 || ecp_tsc_to_ns((uint64_t)med / 1000u) >= UNTIMED_MAX_NS)
		return 0;
	for (int b = 0; b < CALIBRATION_BURSTS; b++)
		near += 5 * (v[b] > med ? v[b] - med : med - v[b]) <= med;
	return 2 * near > CALIBRATION_BURSTS ? (uint64_t)med : 0;
}

/* The agent's own cost per function call that it folds (no event: three TSC
 * reads, the shadow stack, the fold table, the name filter), measured on
 * the main thread's fresh state before anything is recorded, and written
 * to ECP_CALIBRATION_FILE for the driver (metadata key call_cost_ns).
 *
 * Before it, what the hooks cost a call outside their own timed windows
 * (the calls into them, their first and last instructions, the TSC reads
 * themselves), which no window can time (issue 31): the time of a burst
 * through the real hooks, every call written as with --min-duration 0,
 * less a burst through empty stand-ins (what the program pays unrecorded),
 * less the windows the hooks timed.  The calls take the path the program's
 * written calls take, batch records included (a burst through folding
 * hooks said 1-2 ns a call less, which the tiny-calls program kept in its
 * T1), but their records are thrown away and their windows kept out of
 * the program's cost (`calibrating`).  The median of the bursts, taken
 * only when it is plausible. */
ECP_AGENT_FN static void calibrate_calls(struct ecp_thread *t)
{
	const char *path = getenv("ECP_CALIBRATION_FILE");
	void *fake = (void *)(uintptr_t)ecp_tsc_to_ns; /* never instrumented */
	uint64_t saved_min = ecp_settings.min_tsc, ns;
	int64_t untimed[CALIBRATION_BURSTS];
	char buf[96];
	int fd, len;

	if (!path || !*path || !ecp_settings.functions)
		return;
	ecp_settings.min_tsc = 0; /* write every call */
	t->calibrating = true;
	time_calls(calib_enter, calib_exit, fake, CALIBRATION_BURST); /* warm up */
	time_calls(calib_empty, calib_empty, fake, CALIBRATION_BURST);
	for (int b = 0; b < CALIBRATION_BURSTS; b++) {
		uint64_t w0 = t->cost_ticks;
		uint64_t real =
		    time_calls(calib_enter, calib_exit, fake, CALIBRATION_BURST);
		uint64_t windows = t->cost_ticks - w0;
		uint64_t empty =
		    time_calls(calib_empty, calib_empty, fake, CALIBRATION_BURST);
		untimed[b] = ((int64_t)real - (int64_t)empty - (int64_t)windows) * 1000 /
			     CALIBRATION_BURST;
	}
	ecp_batch_reset(&t->batch);
	t->cost_ticks = t->cost_events = t->cost_hooks = 0;
	t->emitted = 0;
	t->calibrating = false;
	/* a folded call as the program's are */
	ecp_settings.min_tsc = UINT64_MAX;
	ns = ecp_tsc_to_ns(time_calls(calib_enter, calib_exit, fake, CALIBRATION_CALLS)) /
	     CALIBRATION_CALLS;
	ecp_settings.min_tsc = saved_min;
	memset(t->fold, 0, sizeof(t->fold));
	t->top = t->flushed = 0;
	uint64_t untimed_milliticks = untimed_estimate(untimed);
	ecp_hook_set_untimed(untimed_milliticks);
	len = snprintf(buf, sizeof(buf), "call_cost_ns=%llu\ncall_untimed_ps=%llu\n",
		       (unsigned long long)ns,
		       (unsigned long long)ecp_tsc_to_ns(untimed_milliticks));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, buf, (size_t)len) != len) {
		/* nothing to do: the driver then reports no call cost */
	}
	close(fd);
}

/* Called by the constructor in ecp-tp.c, after the probes are registered. */
ECP_AGENT_FN void ecp_agent_init(void);
ECP_AGENT_FN void ecp_agent_init(void)
{
	struct ecp_thread *t;
	/* Only the process `ecp record` started is recorded: not a child the
	 * program forked and exec'd (it inherits LD_PRELOAD).  An exec in the
	 * recorded process itself keeps its pid and goes on being recorded. */
	if (env_u64("ECP_PID", 0) != (uint64_t)getpid())
		return;
	recorded_pid = getpid();
	calibrate_tsc();
	read_settings();
	ecp_filter_load(); /* also finds main for thread_start */
	pthread_atfork(NULL, NULL, atfork_child);
	ecp_exec_resolve();
	t = ecp_thread_begin(0);
	if (!t)
		return;
	calibrate_calls(t);
	if (getenv("ECP_CALIBRATION_FILE"))
		ecp_sync_calibrate(t);
	ecp_agent_ready = 1;
	t->guard++;
	ECP_TP(thread_start, 0, ecp_main_addr, (uint64_t)pthread_self(),
	       ecp_thread_cpu_ns());
	t->guard--;
}

typedef int (*main_fn)(int, char **, char **);
static main_fn real_main;

ECP_AGENT_FN static int wrapped_main(int argc, char **argv, char **envp)
{
	if (ecp_agent_ready)
		on_exit(at_process_exit, NULL);
	return real_main(argc, argv, envp);
}

/* glibc's program start, interposed only to run wrapped_main in place of
 * main; everything else is passed on unchanged. */
ECP_AGENT_API int __libc_start_main(main_fn main, int argc, char **argv,
				    void (*init)(void), void (*fini)(void),
				    void (*rtld_fini)(void), void *stack_end);
ECP_AGENT_API int __libc_start_main(main_fn main, int argc, char **argv,
				    void (*init)(void), void (*fini)(void),
				    void (*rtld_fini)(void), void *stack_end)
{
	__typeof__(&__libc_start_main) real = ECP_REAL(__libc_start_main);
	real_main = main;
	return real(wrapped_main, argc, argv, init, fini, rtld_fini, stack_end);
}

/* Where the process image ends with no handler run (_exit, _Exit, a
 * successful exec: agent-exec.c), the calling thread's batch of function
 * records is written first; other threads' pending records end with them,
 * as their open frames do (at most one batch each: ECP_BATCH_AGE_NS of
 * calls).  Not in a vfork child, which shares the parent's memory (and this
 * thread's state) but would write the batch as another process's. */
ECP_AGENT_FN void ecp_flush_before_end(void)
{
	struct ecp_thread *t = ecp_self;
	if (t && !t->guard && ecp_in_recorded_process())
		ecp_batch_flush(t, false); /* keeps errno; nothing when empty */
}

/* getpid, not a cached pid: a fork copy and a vfork child have the
 * recorded process's memory but are other processes. */
ECP_AGENT_FN bool ecp_in_recorded_process(void)
{
	return recorded_pid != 0 && getpid() == recorded_pid;
}

ECP_AGENT_API void _exit(int status)
{
	__typeof__(&_exit) real = ECP_REAL(_exit);
	ecp_flush_before_end();
	real(status);
	__builtin_unreachable();
}

ECP_AGENT_API void _Exit(int status)
{
	__typeof__(&_Exit) real = ECP_REAL(_Exit);
	ecp_flush_before_end();
	real(status);
	__builtin_unreachable();
}
