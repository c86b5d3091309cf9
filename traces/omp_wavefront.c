/* SPDX-License-Identifier: MIT */
/*
 * A wavefront of dependent tasks (issue 37): an N x N grid of blocks, one
 * task per block, each depending on the block above and the block to its
 * left through depend(in: ...) and writing its own (depend(inout: ...)).
 * Block(i, j) costs 1 + (i * j) % 3 units.  One thread of the default team
 * makes the tasks in row order (single); the anti-diagonals can run in
 * parallel.  Recorded on one CPU, the order the tasks ran in is an
 * artefact: ecp deals them out again as P cores would, the dependences as
 * edges.
 *
 * Usage: omp_wavefront [--scale S] [--check] [--quiet].
 */
#include "example.h"

#include <omp.h>
#include <stdio.h>

#define WF_N          8
#define WF_MAX        32
#define WF_UNIT_ITERS 300000ull

static uint64_t cell[WF_MAX + 1][WF_MAX + 1];
static double block_factor;

static EX_FUNC uint64_t Block(int i, int j, uint64_t up, uint64_t left)
{
	uint64_t units = 1 + (uint64_t)((i * j) % 3);
	ex_sink(ex_burn(up ^ left,
			(uint64_t)((double)(units * WF_UNIT_ITERS) * block_factor)));
	return up * 31 + left * 17 + (uint64_t)(i + j) + 1;
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	if (!ex_parse_options(argc, argv, &opts))
		return 2;
	int n = (int)ex_scaled(WF_N, opts.scale, 3);
	if (n > WF_MAX)
		n = WF_MAX;
	block_factor = ex_work_factor("Block");
	/* blocks 1..n: row 0 and column 0 stay 0, the edges' inputs */
#pragma omp parallel
#pragma omp single
	for (int i = 1; i <= n; i++)
		for (int j = 1; j <= n; j++) {
#pragma omp task firstprivate(i, j) depend(in                                            \
					   : cell[i - 1][j], cell[i][j - 1])             \
    depend(inout                                                                         \
	   : cell[i][j])
			cell[i][j] = Block(i, j, cell[i - 1][j], cell[i][j - 1]);
		}
	if (opts.check) {
		static uint64_t want[WF_MAX + 1][WF_MAX + 1];
		for (int i = 1; i <= n; i++)
			for (int j = 1; j <= n; j++) {
				want[i][j] = want[i - 1][j] * 31 + want[i][j - 1] * 17 +
					     (uint64_t)(i + j) + 1;
				if (want[i][j] != cell[i][j]) {
					fprintf(stderr,
						"omp_wavefront: block %d,%d differs\n", i,
						j);
					return 1;
				}
			}
	}
	if (!opts.quiet)
		printf("omp_wavefront: %d x %d blocks\n", n, n);
	return 0;
}
