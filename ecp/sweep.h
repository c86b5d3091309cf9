/* SPDX-License-Identifier: MIT */
/* ecp_analyze() for many P on one model: the P-independent work (the warp
 * plan, the span weights) is done once.  `ecp scan -P 1-64` and the benchmark
 * use this; ecp_analyze() is a one-shot sweep. */
#ifndef ECP_ECP_SWEEP_H
#define ECP_ECP_SWEEP_H

#include "common/error.h"
#include "ecp/options.h"
#include "ecp/analysis.h"
#include "simulator/model/dag.h"
#include "simulator/model/model.h"

struct ecp_sweep;

/* model and dag must outlive the sweep; opts (ecp/options.h; NULL: the
 * defaults) need not. */
int ecp_sweep_create(const struct ecp_model *model, const struct ecp_dag *dag,
		     const struct ecp_engine_options *opts, struct ecp_sweep **sweep,
		     struct ecp_error *err);
void ecp_sweep_destroy(struct ecp_sweep *sweep);

/* ecp_sweep_create() in steps, for a caller that reads the model's segment
 * records no more once the sweep has (`ecp scan`): prepare, then
 * ecp_sweep_read_segments() copies out all that the sweep reads of them
 * (12 of their 64 bytes), after which they may be freed (the model's other
 * tables and n_segments stay), then ecp_sweep_start() builds the engine --
 * whose plan is the peak of a sweep (issue 35) -- and the span weights;
 * with `consume` (the sweep's own DAG), the engine frees the DAG's ASAP
 * schedule once read (ecp_engine_create_consuming).  Without
 * ecp_sweep_read_segments(), ecp_sweep_start() copies them after the
 * engine's build.  On an error from either, destroy the sweep. */
int ecp_sweep_prepare(const struct ecp_model *model, const struct ecp_dag *dag,
		      const struct ecp_engine_options *opts, struct ecp_sweep **sweep,
		      struct ecp_error *err);
int ecp_sweep_read_segments(struct ecp_sweep *sweep, struct ecp_error *err);
int ecp_sweep_start(struct ecp_sweep *sweep, struct ecp_dag *consume,
		    struct ecp_error *err);
/* Same result as ecp_analyze(model, dag, processors, opts, out, err). */
int ecp_sweep_analyze(struct ecp_sweep *sweep, unsigned processors,
		      struct ecp_analysis *out, struct ecp_error *err);

/* Analyses for processors[0..n) into out[0..n), each the same as
 * ecp_sweep_analyze() gives, bit for bit.  Up to ECP_SWEEP_BATCH of them
 * share one pass over the activities, which is what a P costs once its
 * weights are known.  Without keep_weights the analyses have no weights
 * (NULL): they stay in the sweep's scratch, allocated once for the sweep
 * (16 bytes per segment per member of a batch), instead of a fresh array
 * per P.  On error every out[i] is finished (empty). */
#define ECP_SWEEP_BATCH 4
int ecp_sweep_analyze_many(struct ecp_sweep *sweep, const unsigned *processors, size_t n,
			   bool keep_weights, struct ecp_analysis *out,
			   struct ecp_error *err);

/* On a model with delays, the P below saturation simulate their P-run
 * (ecp/engine.h: ecp_engine_simulates); on a large model (see
 * ecp/parallel.h) two of them run at once, in batches of two.  The count of
 * analyses the second thread ran, over the sweep's life (for the tests). */
uint64_t ecp_sweep_paired(const struct ecp_sweep *sweep);

#endif
