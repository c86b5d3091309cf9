/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the example programs in traces/: command-line scale,
 * the ECP_EXAMPLE_FASTER knob, and a unit of CPU work the compiler cannot
 * remove.
 *
 * Everything here is `no_instrument_function` (and the work helpers are
 * always inlined), so that with -finstrument-functions the CPU time spent in
 * these helpers is charged to the example function that called them (a(),
 * Sorter(), RecursiveQuickSort(), ...) and the helpers never appear as
 * functions of their own in a trace.
 */
#ifndef ECP_TRACES_EXAMPLE_H
#define ECP_TRACES_EXAMPLE_H

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* artificial: a debugger (and sampling, which shows what the compiler
 * inlined) treats the helper as part of the function it is inlined into */
#define EX_HELPER                                                                        \
	static inline __attribute__((always_inline, artificial, no_instrument_function))
#define EX_NOINSTR __attribute__((no_instrument_function))
/* The named functions of the paper's figures: kept as real calls under their
 * own names (no inlining, no ".constprop"/".isra" clones) so that the trace
 * shows a(), Sorter(), f() exactly as the figures do. */
#if defined(__clang__)
#define EX_FUNC __attribute__((noinline)) /* clang makes no such clones */
#else
#define EX_FUNC __attribute__((noinline, noclone))
#endif

/*
 * Nominal cost of one "time unit" of the worked figures (Fig. 1, 4, 20) in
 * iterations of ex_burn().  About 47 ms on the 2-vCPU development machine
 * (1.9 ns per step); it is a fixed count, not a calibration, so that the work
 * is the same on every run and every machine (only its duration varies).
 */
#define EX_ITERS_PER_UNIT 25000000ull

/* Nominal duration of one time unit on the development machine, used where
 * an example sleeps "one unit" (the watchdog of Fig. 20). */
#define EX_NOMINAL_NS_PER_UNIT 47000000ull

/* Options every example understands. */
struct ex_options {
	double scale; /* --scale S: multiply the problem size / work by S (default 1) */
	bool check;   /* --check: verify the result after the run (not timed work) */
	bool quiet;   /* --quiet: print nothing on success */
};

/*
 * Parse --scale S, --check, --quiet.  Prints a usage message naming the bad
 * argument and returns false on error.
 */
EX_NOINSTR bool ex_parse_options(int argc, char **argv, struct ex_options *opts);

/*
 * Work factor for the function NAME from ECP_EXAMPLE_FASTER: 1.0 unless NAME is
 * listed there.  The variable holds a comma-separated list of NAME or NAME=PCT
 * entries (PCT defaults to 20): ECP_EXAMPLE_FASTER=Sorter makes Sorter() do
 * 80% of its work, ECP_EXAMPLE_FASTER=f=10,g gives f 0.9 and g 0.8.  This is
 * the paper's "optimized by approximately 20%" experiment (Sec. 4) as a
 * runtime knob, so one binary serves both the baseline and every variant.
 */
EX_NOINSTR double ex_work_factor(const char *name);

/* Iterations of ex_burn() for WORK units of nominal work times FACTOR. */
EX_NOINSTR uint64_t ex_iters(double units, double factor);

/*
 * A dependent chain of multiply/xor-shift steps: each step needs the previous
 * result, so the loop costs ITERS steps of latency and cannot be vectorised or
 * folded.  Callers feed the result into ex_sink() (or into their own result) so
 * that it is not dead code.
 */
EX_HELPER uint64_t ex_burn(uint64_t x, uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++) {
		x ^= x >> 29;
		x *= 0xbf58476d1ce4e5b9ull;
		x += i;
	}
	return x;
}

/* Keep a computed value alive: one volatile store. */
extern volatile uint64_t ex_sink_value;
EX_HELPER void ex_sink(uint64_t x)
{
	ex_sink_value ^= x;
}

/* splitmix64: a counter-based generator, so every thread can produce any
 * element of a deterministic input without shared state. */
EX_HELPER uint64_t ex_mix(uint64_t i)
{
	uint64_t z = i + 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Do UNITS time units of the figures' work, times FACTOR (ECP_EXAMPLE_FASTER). */
EX_HELPER void ex_work_units(double units, double factor)
{
	ex_sink(ex_burn((uint64_t)(units * 1000.0), ex_iters(units, factor)));
}

/* pthread/semaphore calls that cannot fail in a correct example: on failure
 * they print what failed and exit(1) (these are programs, not library code).
 * ex_check takes a pthread status, ex_check_errno a -1/errno return. */
EX_NOINSTR void ex_check(int status, const char *what);
EX_NOINSTR void ex_check_errno(int ret, const char *what);
/* sem_wait, retried when a signal interrupts it. */
EX_NOINSTR void ex_sem_wait(sem_t *sem);
EX_NOINSTR void ex_sem_post(sem_t *sem);

/* Number of threads/items for a scaled size, never below MIN. */
EX_NOINSTR size_t ex_scaled(size_t base, double scale, size_t min);

#endif
