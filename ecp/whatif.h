/* SPDX-License-Identifier: MIT */
/* What-if: segment lengths if some functions were faster.
 *
 * `ecp whatif --faster parse=20%` asks for the run with every segment
 * shortened by 20% of the time parse() took in it.  By default that is its
 * inclusive time (parse() with everything it calls: "a 20% faster parse()"
 * is what a user means); ECP_WHATIF_EXCLUSIVE (`--self`) shortens only the
 * time parse() itself executes.  The result feeds ecp_dag_build(model,
 * lengths, ...), so the hand-offs are re-decided for the faster program. */
#ifndef ECP_ECP_WHATIF_H
#define ECP_ECP_WHATIF_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "simulator/model/model.h"

enum ecp_whatif_scope {
	ECP_WHATIF_INCLUSIVE = 0, /* the function with its callees (activity incl_ns) */
	ECP_WHATIF_EXCLUSIVE,     /* the function's own time only (activity self_ns) */
};

struct ecp_whatif_change {
	ecp_id function;   /* index into model->functions */
	double faster_pct; /* 0..100: share of the function's time removed */
	enum ecp_whatif_scope scope;
};

/* "inclusive" or "exclusive", as the JSON output names the scope. */
const char *ecp_whatif_scope_name(enum ecp_whatif_scope scope);

/* Fills *lengths (malloc'd, model->n_segments entries, caller frees) with
 * length - sum over changed functions of pct/100 * (incl_ns or self_ns),
 * rounded to the nearest ns and never below 0.  incl_ns counts the time
 * with the function on the stack at least once, so a recursive function's
 * time is shortened once, not once per frame.  A function named twice with
 * the same scope counts its changes cumulatively (capped at 100%).  When
 * one changed function calls another, the callee's time is in both
 * inclusive times and is shortened by both: the cuts add up (the segment
 * never goes below 0). */
int ecp_whatif_lengths(const struct ecp_model *model,
		       const struct ecp_whatif_change *changes, size_t n_changes,
		       uint64_t **lengths, struct ecp_error *err);

#endif
