/* SPDX-License-Identifier: MIT */
/*
 * A `parallel for schedule(dynamic)` over iterations of unequal cost: item
 * i costs 1 + (i % 8) units of Item() work, 64 items per unit of scale, on
 * the default team.  On P cores the next free thread takes the next item,
 * which balances the threads; recorded on one CPU, which thread took which
 * item is an artefact of time slices.
 *
 * ecp does not model dynamic schedules yet: `ecp record` and the analysis
 * name the construct and say what it means for the answer.
 *
 * Usage: omp_dynamic [--scale S] [--check] [--quiet].
 */
#include "example.h"

#include <omp.h>
#include <stdio.h>

#define DYN_ITEMS      64
#define DYN_UNIT_ITERS 400000ull

static uint64_t results[4096];

static EX_FUNC uint64_t Item(long i, double factor)
{
	uint64_t units = 1 + (uint64_t)(i % 8);
	return ex_burn((uint64_t)i,
		       (uint64_t)((double)(units * DYN_UNIT_ITERS) * factor));
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	if (!ex_parse_options(argc, argv, &opts))
		return 2;
	long n = (long)ex_scaled(DYN_ITEMS, opts.scale, 8);
	double factor = ex_work_factor("Item");
	if (n > 4096)
		n = 4096;
#pragma omp parallel for schedule(dynamic)
	for (long i = 0; i < n; i++)
		results[i] = Item(i, factor);
	if (opts.check) {
		for (long i = 0; i < n; i++) {
			if (results[i] != Item(i, factor)) {
				fprintf(stderr, "omp_dynamic: item %ld differs\n", i);
				return 1;
			}
		}
	}
	if (!opts.quiet)
		printf("omp_dynamic: %ld items\n", n);
	return 0;
}
