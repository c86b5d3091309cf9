/* SPDX-License-Identifier: MIT */
/*
 * Recursive task Fibonacci (issue 37), the task-parallel program of
 * Cilkprof's examples: Fib(n) makes a task for Fib(n-1) and one for
 * Fib(n-2) and waits for both (taskwait); below the cut-off Fib() calls
 * Leaf(), which does the work of its subtree in one piece.  One thread of
 * the default team starts it (single); the others take the tasks as they
 * are made.  On one CPU which thread ran which task is an artefact of time
 * slices: ecp deals the tasks out again as P cores would.
 *
 * Usage: omp_fib [--scale S] [--check] [--quiet].
 */
#include "example.h"

#include <omp.h>
#include <stdio.h>

#define FIB_N      22
#define FIB_CUTOFF 12
#define LEAF_ITERS 400ull

static double leaf_factor;

EX_NOINSTR static long fib_serial(int n)
{
	return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

/* The subtree below the cut-off: its value, and work in proportion to its
 * calls. */
static EX_FUNC long Leaf(int n)
{
	long v = fib_serial(n);
	ex_sink(ex_burn((uint64_t)n,
			(uint64_t)((double)(LEAF_ITERS * (uint64_t)v) * leaf_factor)));
	return v;
}

static EX_FUNC long Fib(int n)
{
	long a, b;
	if (n < FIB_CUTOFF)
		return Leaf(n);
#pragma omp task shared(a) firstprivate(n)
	a = Fib(n - 1);
#pragma omp task shared(b) firstprivate(n)
	b = Fib(n - 2);
#pragma omp taskwait
	return a + b;
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	if (!ex_parse_options(argc, argv, &opts))
		return 2;
	int n = FIB_N + (opts.scale < 1 ? -(int)(1.0 / opts.scale > 8 ? 4 : 2) : 0);
	long f = 0;
	/* below 1 the tree shrinks; above, each leaf does more (the run is
	 * then long enough to measure against its start-up, bench/validate) */
	leaf_factor = ex_work_factor("Leaf") * (opts.scale > 1 ? opts.scale : 1.0);
#pragma omp parallel
#pragma omp single
	f = Fib(n);
	if (opts.check && f != fib_serial(n)) {
		fprintf(stderr, "omp_fib: Fib(%d) = %ld, want %ld\n", n, f,
			fib_serial(n));
		return 1;
	}
	if (!opts.quiet)
		printf("omp_fib: Fib(%d) = %ld\n", n, f);
	return 0;
}
