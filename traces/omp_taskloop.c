/* SPDX-License-Identifier: MIT */
/*
 * A taskloop over items of unequal cost (issue 37): item i costs
 * 1 + (i % 8) units of Item() work, 64 items per unit of scale, split into
 * tasks of 4 items (grainsize) that the default team runs; the thread that
 * makes them (single) waits for them in the taskloop's taskgroup and runs
 * some itself.  Recorded on one CPU, which thread ran which task is an
 * artefact of time slices: ecp deals the tasks out again as P cores would.
 *
 * Usage: omp_taskloop [--scale S] [--check] [--quiet].
 */
#include "example.h"

#include <omp.h>
#include <stdio.h>

#define TL_ITEMS      64
#define TL_UNIT_ITERS 300000ull

static uint64_t results[4096];

static EX_FUNC uint64_t Item(long i, double factor)
{
	uint64_t units = 1 + (uint64_t)(i % 8);
	return ex_burn((uint64_t)i, (uint64_t)((double)(units * TL_UNIT_ITERS) * factor));
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	if (!ex_parse_options(argc, argv, &opts))
		return 2;
	long n = (long)ex_scaled(TL_ITEMS, opts.scale, 8);
	double factor = ex_work_factor("Item");
	if (n > 4096)
		n = 4096;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(4)
	for (long i = 0; i < n; i++)
		results[i] = Item(i, factor);
	if (opts.check) {
		for (long i = 0; i < n; i++) {
			if (results[i] != Item(i, factor)) {
				fprintf(stderr, "omp_taskloop: item %ld differs\n", i);
				return 1;
			}
		}
	}
	if (!opts.quiet)
		printf("omp_taskloop: %ld items\n", n);
	return 0;
}
