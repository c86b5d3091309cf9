/* SPDX-License-Identifier: MIT */
/* ECP-weighted folded stacks, for flamegraph.pl and speedscope.
 *
 * One line per distinct call stack, outermost frame first, frames joined by
 * ';', then a space and the value: "main;solve;dot 123456".  The value is the
 * stack's exclusive time weighted by the ECP weights of the segments it ran
 * in, summed over identical stacks and rounded to whole nanoseconds — so the
 * flame graph's widths are each frame's TETID and the leaves' TET at P.
 *
 * Lines are sorted (byte order), as flamegraph.pl's own stackcollapse tools
 * produce, which makes the output deterministic and diffable.  Stacks whose
 * rounded total is zero are skipped.  Negative totals (segments that weigh
 * less than zero, Fig. 8 of the paper) cannot be drawn as widths: they are
 * skipped too and counted in the result so the caller can say so.
 *
 * Frame names are sanitised so the format stays parseable: ';' (the frame
 * separator) becomes ':', and control characters (a newline would end the
 * record) become '?'.  Spaces are kept: readers split on the last space. */
#ifndef ECP_VIZ_FOLDED_H
#define ECP_VIZ_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

struct ecp_folded_stack {
	const char *const *frames; /* outermost first */
	size_t depth;              /* > 0 */
	double weighted_ns;
};

struct ecp_folded_result {
	size_t lines;       /* written */
	size_t negative;    /* distinct stacks skipped for a negative total */
	double negative_ns; /* their sum */
};

int ecp_folded_write(FILE *out, const struct ecp_folded_stack *stacks, size_t count,
		     struct ecp_folded_result *result, struct ecp_error *err);

#endif
