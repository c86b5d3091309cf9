/* SPDX-License-Identifier: MIT */
/*
 * A 1-D stencil with barriers: STEPS sweeps over a grid of ROWS rows, each
 * row's new value computed by Row() from its neighbours' old ones; a static
 * `omp for` splits the rows between the team's threads (its implicit
 * barrier ends each sweep), and the master swaps the grids between sweeps
 * behind an explicit barrier.  The first HOT rows cost four times more (a
 * "hot spot"), so the threads' shares differ and the barriers make the fast
 * threads wait for the slowest: the run time is the sum over sweeps of the
 * slowest share, not the mean.
 *
 * Everything it uses is modelled by ecp (fork, join, barriers).
 *
 * Usage: omp_stencil [--scale S] [--check] [--quiet].
 */
#include "example.h"

#include <omp.h>
#include <stdio.h>

#define ST_ROWS  256
#define ST_STEPS 12
#define ST_ITERS 20000ull
#define ST_HOT   80

static uint64_t grid[2][ST_ROWS];

static double row_factor = 1.0; /* ECP_EXAMPLE_FASTER=Row */

static EX_FUNC uint64_t Row(const uint64_t *old, long r, double scale)
{
	uint64_t cost =
	    (uint64_t)((double)ST_ITERS * scale * row_factor) * (r < ST_HOT ? 4 : 1);
	uint64_t v = old[r] ^ (r ? old[r - 1] : 0) ^ (r + 1 < ST_ROWS ? old[r + 1] : 0);
	return ex_burn(v, cost);
}

static EX_FUNC void Swap(int *cur)
{
	*cur = 1 - *cur;
}

static void run(double scale)
{
	int cur = 0;
#pragma omp parallel
	for (int s = 0; s < ST_STEPS; s++) {
#pragma omp for schedule(static)
		for (long r = 0; r < ST_ROWS; r++)
			grid[1 - cur][r] = Row(grid[cur], r, scale);
#pragma omp master
		Swap(&cur);
#pragma omp barrier
	}
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	if (!ex_parse_options(argc, argv, &opts))
		return 2;
	row_factor = ex_work_factor("Row");
	for (long r = 0; r < ST_ROWS; r++)
		grid[0][r] = ex_mix((uint64_t)r);
	run(opts.scale);
	if (opts.check) {
		/* the same sweeps on one thread give the same grid */
		uint64_t par[ST_ROWS];
		int last = ST_STEPS % 2;
		for (long r = 0; r < ST_ROWS; r++) {
			par[r] = grid[last][r];
			grid[0][r] = ex_mix((uint64_t)r);
		}
		for (int s = 0; s < ST_STEPS; s++)
			for (long r = 0; r < ST_ROWS; r++)
				grid[(s + 1) % 2][r] = Row(grid[s % 2], r, opts.scale);
		for (long r = 0; r < ST_ROWS; r++)
			if (par[r] != grid[last][r]) {
				fprintf(stderr, "omp_stencil: row %ld differs\n", r);
				return 1;
			}
	}
	if (!opts.quiet)
		printf("omp_stencil: %d sweeps of %d rows\n", ST_STEPS, ST_ROWS);
	return 0;
}
