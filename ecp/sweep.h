/* ecp_analyze() for many P on one model: the P-independent work (the warp
 * plan, the span weights) is done once.  `ecp scan -P 1-64` and the benchmark
 * use this; ecp_analyze() is a one-shot sweep. */
#ifndef ECP_ECP_SWEEP_H
#define ECP_ECP_SWEEP_H

#include "common/error.h"
#include "ecp/analysis.h"
#include "simulator/dag.h"
#include "simulator/model.h"

struct ecp_sweep;

/* model and dag must outlive the sweep. */
int ecp_sweep_create(const struct ecp_model *model, const struct ecp_dag *dag,
		     struct ecp_sweep **sweep, struct ecp_error *err);
void ecp_sweep_destroy(struct ecp_sweep *sweep);
/* Same result as ecp_analyze(model, dag, processors, out, err). */
int ecp_sweep_analyze(struct ecp_sweep *sweep, unsigned processors,
		      struct ecp_analysis *out, struct ecp_error *err);

#endif
