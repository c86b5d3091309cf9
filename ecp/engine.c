/* The engine: one warp plan for the ASAP schedule, reused for every P when
 * the model has no delays.
 *
 * With delays and a finite P, each P gets its own plan built on the
 * simulated P-run (ecp/prun.h) in work-clock coordinates W: there every
 * segment's run edge has its CPU length and every delay edge the W-length it
 * had in the unperturbed run, the run is an ASAP schedule of those lengths
 * and T_P = sum dW * F(n) exactly.  The approximation is to keep those delay
 * lengths fixed under the perturbation: a delay passes in real time, so when
 * a shortening changes the processor share (n > P on either side of a moved
 * instant) while a delay is in progress, or moves a delay's start by a
 * real-time amount different from its work-clock amount, the delay really
 * ends at another W.  Otherwise it is exact.  Measured against the oracle in
 * tests/engine (ecp/README.md): about 1-2% of weights differ. */
#include "ecp/engine.h"

#include <stdlib.h>
#include <string.h>

#include "ecp/plan.h"
#include "ecp/prun.h"

struct ecp_engine {
	const struct ecp_dag *dag;
	bool has_delays;
	struct ecp_plan asap;
};

uint32_t ecp_engine_saturation(const struct ecp_engine *engine)
{
	return engine->asap.max_count;
}

static int asap_tight(const struct ecp_dag *dag, uint8_t *pred_tight, uint8_t *in_tight,
		      double *node_time)
{
	for (uint32_t s = 0; s < dag->n_segments; s++) {
		node_time[2 * s] = (double)dag->start[s];
		node_time[2 * s + 1] = (double)dag->end[s];
		ecp_id p = dag->pred[s];
		pred_tight[s] = p != ECP_NO_ID && p < dag->n_segments &&
				dag->end[p] + dag->delay[s] == dag->start[s];
		for (uint32_t e = dag->in_offset[s]; e < dag->in_offset[s + 1]; e++) {
			ecp_id f = dag->in_from[e];
			in_tight[e] = f < dag->n_segments && dag->end[f] == dag->start[s];
		}
		if (dag->end[s] != dag->start[s] + dag->length[s])
			return (int)s + 1;
	}
	return 0;
}

int ecp_engine_create(const struct ecp_dag *dag, struct ecp_engine **engine,
		      struct ecp_error *err)
{
	*engine = NULL;
	if (dag->n_in != dag->in_offset[dag->n_segments])
		return ecp_error_set(err, ECP_ERR,
				     "DAG edge count %u disagrees with its offsets (%u)",
				     dag->n_in, dag->in_offset[dag->n_segments]);
	struct ecp_engine *e = calloc(1, sizeof(*e));
	size_t s1 = dag->n_segments ? dag->n_segments : 1;
	uint8_t *pred_tight = malloc(s1);
	uint8_t *in_tight = malloc(dag->n_in ? dag->n_in : 1);
	double *node_time = malloc(2 * s1 * sizeof(double));
	int rc = 0;
	if (!e || !pred_tight || !in_tight || !node_time) {
		rc =
		    ecp_error_set(err, ECP_ERR_NOMEM,
				  "out of memory (engine, %u segments)", dag->n_segments);
		goto out;
	}
	e->dag = dag;
	for (uint32_t s = 0; s < dag->n_segments; s++)
		if (dag->delay[s] > 0 && dag->pred[s] != ECP_NO_ID)
			e->has_delays = true;
	int bad = asap_tight(dag, pred_tight, in_tight, node_time);
	if (bad) {
		rc = ecp_error_set(
		    err, ECP_ERR,
		    "inconsistent DAG: segment %d ends before start + length", bad - 1);
		goto out;
	}
	struct ecp_plan_input in = {.dag = dag,
				    .node_time = node_time,
				    .pred_tight = pred_tight,
				    .in_tight = in_tight};
	rc = ecp_plan_build(&in, &e->asap, err);
	if (rc < 0)
		ecp_error_prefix(err, "cannot prepare the ECP engine");
out:
	free(pred_tight);
	free(in_tight);
	free(node_time);
	if (rc < 0) {
		free(e);
		return rc;
	}
	*engine = e;
	return 0;
}

void ecp_engine_destroy(struct ecp_engine *engine)
{
	if (!engine)
		return;
	ecp_plan_finish(&engine->asap);
	free(engine);
}

static int run_plan(struct ecp_plan *plan, const struct ecp_dag *dag, unsigned processors,
		    double *weights, double *seg_idle, struct ecp_run_summary *summary,
		    struct ecp_error *err)
{
	if (weights) {
		int rc = ecp_plan_weights(plan, dag, processors, weights, err);
		if (rc < 0)
			return rc;
	}
	long double idle = ecp_plan_idle(plan, processors, seg_idle);
	if (summary) {
		summary->makespan = ecp_plan_makespan(plan, processors);
		summary->idle = idle;
	}
	return 0;
}

int ecp_engine_run(struct ecp_engine *engine, unsigned processors, double *weights,
		   double *seg_idle, struct ecp_run_summary *summary,
		   struct ecp_error *err)
{
	const struct ecp_dag *dag = engine->dag;
	/* From P = the ASAP run's largest running count on, nothing ever
	 * shares a processor: the P-run is the ASAP run (delays or not) and
	 * F(n) = 1 wherever n >= 1, as for unlimited P. */
	if (!engine->has_delays || !processors || processors >= engine->asap.max_count) {
		/* Unlimited processors never share, so the P-run is the ASAP run. */
		int rc = run_plan(&engine->asap, dag, processors, weights, seg_idle,
				  summary, err);
		if (summary)
			summary->exact = true;
		return rc;
	}
	struct ecp_prun run;
	int rc = ecp_prun_simulate(dag, processors, &run, err);
	if (rc < 0)
		return ecp_error_prefix(err, "cannot simulate the run on %u processors",
					processors);
	struct ecp_plan_input in = {.dag = dag,
				    .node_time = run.node_work,
				    .pred_tight = run.pred_tight,
				    .in_tight = run.in_tight};
	struct ecp_plan plan;
	rc = ecp_plan_build(&in, &plan, err);
	if (rc < 0) {
		ecp_prun_finish(&run);
		return ecp_error_prefix(
		    err, "cannot differentiate the run on %u processors", processors);
	}
	rc = run_plan(&plan, dag, processors, weights, seg_idle, summary, err);
	if (summary) {
		/* The simulated makespan is the reference; the plan's warp sum
		 * agrees up to rounding. */
		summary->makespan = run.makespan;
		summary->exact = false;
	}
	ecp_plan_finish(&plan);
	ecp_prun_finish(&run);
	return rc;
}

void ecp_engine_idle_linear(const struct ecp_engine *engine, double *per_p, double *fixed)
{
	ecp_plan_idle_linear(&engine->asap, per_p, fixed);
}

int ecp_weights(const struct ecp_dag *dag, unsigned processors, double *weights,
		struct ecp_error *err)
{
	struct ecp_engine *engine;
	int rc = ecp_engine_create(dag, &engine, err);
	if (rc < 0)
		return rc;
	rc = ecp_engine_run(engine, processors, weights, NULL, NULL, err);
	ecp_engine_destroy(engine);
	return rc;
}
