/* What-if: segment lengths if some functions were faster.
 *
 * `ecp whatif --faster parse=20%` asks for the run with every segment
 * shortened by 20% of the time parse() itself (exclusive time) took in it.
 * The result feeds ecp_dag_build(model, lengths, ...), so the hand-offs are
 * re-decided for the faster program. */
#ifndef ECP_ECP_WHATIF_H
#define ECP_ECP_WHATIF_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "simulator/model.h"

struct ecp_whatif_change {
	ecp_id function;   /* index into model->functions */
	double faster_pct; /* 0..100: share of the function's self time removed */
};

/* Fills *lengths (malloc'd, model->n_segments entries, caller frees) with
 * length - sum over changed functions of pct/100 * self_ns, rounded to the
 * nearest ns and never below 0.  A function named twice counts its changes
 * cumulatively (capped at 100%). */
int ecp_whatif_lengths(const struct ecp_model *model,
		       const struct ecp_whatif_change *changes, size_t n_changes,
		       uint64_t **lengths, struct ecp_error *err);

#endif
