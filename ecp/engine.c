/* SPDX-License-Identifier: MIT */
/* The engine: one closed-form plan (ecp/plan.h) on the ASAP schedule,
 * reused for every P when the model has no delays.
 *
 * With delays and a finite P below the ASAP run's reach (ecp_engine_saturation),
 * each P simulates its P-run (ecp/prun.h), on units where a thread's segments
 * nothing else observes are merged (ecp/merged-units.h): T_P and the idle charges come
 * from it, and the weights from a reverse pass over it (ecp/adjoint.h), exact for
 * every segment whose shortening keeps the order of the ties after its end;
 * the others are re-simulated with a symbolic eps (ecp/tangent.h), longest
 * first, within a budget of instants, and what the budget does not cover is
 * flagged per segment (ecp_engine_inexact), never silently.
 *
 * Only when the budget cannot pay for one pass does a P get its own plan,
 * built on the P-run in work-clock coordinates W: there every segment's run
 * edge has its CPU length, every delay edge the W-length it had in the
 * unperturbed run, and the run is an ASAP schedule of those lengths.  The
 * closed form holds a delay's W-length fixed under a shortening; a delay
 * passes in real time, so that is true exactly when the shortening leaves the
 * processor share unchanged while the delay is pending.  Every instant whose
 * reach (running count plus starts) is at most P has F = 1 whatever moves
 * there, so a segment whose end comes after the last instant of reach > P
 * inside a pending tight delay cannot disturb any delay: its closed-form
 * weight is exact, and the others are re-simulated or flagged as above. */
#include "ecp/parallel.h"
#include "ecp/engine.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ecp/adjoint.h"
#include "ecp/hugemem.h"
#include "ecp/options.h"
#include "ecp/plan.h"
#include "ecp/prun.h"
#include "ecp/tangent.h"
#include "ecp/merged-units.h"

struct ecp_engine {
	const struct ecp_dag *dag;
	bool has_delays;
	struct ecp_plan asap;
	struct ecp_engine_options
	    opts;                    /* resolved: exact_budget bounds the instants the
				      * reverse pass and the re-simulations process per P */
	struct ecp_engine_flags own; /* of the last ecp_engine_run() */
	uint64_t max_instants;       /* of a P-run's tape */
	uint32_t n_chains;           /* segments without a thread predecessor: threads */
	uint32_t n_weighted;         /* segments of length > 0 */
	/* With delays: the DAG the P-runs, reverse passes and re-simulations
	 * work on (sim), its units merged (ecp/merged-units.h) or the segments
	 * themselves (units.first NULL, sim == dag), and its successors */
	struct ecp_units units;
	const struct ecp_dag *sim;
	struct ecp_prun_units sim_units; /* for the P-runs' idle charges */
	struct ecp_dag_succ succ;
};

/* The segments of length > 0 that sim's unit u stands for. */
static uint32_t weighted(const struct ecp_engine *engine, uint32_t u)
{
	return ecp_units_weighted(&engine->units, engine->dag->length, u);
}

uint32_t ecp_engine_saturation(const struct ecp_engine *engine)
{
	/* Below the largest reach, a shortening can make more than P run at
	 * once somewhere even where the unperturbed run never does; but a
	 * segment never starts before its thread predecessor ends, so however
	 * the lengths change no more run at once than there are threads (the
	 * reach counts a thread's next segment as starting beside the one
	 * whose end releases it). */
	uint32_t reach = engine->asap.max_reach > engine->asap.max_count
			     ? engine->asap.max_reach
			     : engine->asap.max_count;
	return reach < engine->n_chains ? reach : engine->n_chains;
}

uint32_t ecp_engine_simulated_units(const struct ecp_engine *engine)
{
	return engine->has_delays ? engine->sim->n_segments : 0;
}

void ecp_engine_set_exact_budget(struct ecp_engine *engine, uint64_t events)
{
	engine->opts.exact_budget = events;
}

uint32_t ecp_engine_reverse_pass_weights(const struct ecp_engine *engine)
{
	return engine->own.n_reverse;
}

uint32_t ecp_engine_synced_weights(const struct ecp_engine *engine)
{
	return engine->own.n_synced;
}

const uint8_t *ecp_engine_inexact(const struct ecp_engine *engine, uint32_t *n_inexact,
				  uint32_t *n_resimulated)
{
	if (n_inexact)
		*n_inexact = engine->own.n_inexact;
	if (n_resimulated)
		*n_resimulated = engine->own.n_resimulated;
	return engine->own.inexact;
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

/* The threads, as the DAG's chains of thread predecessors: they bound how
 * many segments can ever run at once only if no segment is the predecessor
 * of two (else no bound: UINT32_MAX). */
static int count_chains(const struct ecp_dag *dag, uint32_t *n_chains,
			struct ecp_error *err)
{
	uint32_t S = dag->n_segments;
	uint64_t *has_next = calloc(S / 64 + 1, sizeof(uint64_t));
	if (!has_next)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (engine, %u segments)", S);
	uint32_t n = 0;
	bool linear = true;
	for (uint32_t s = 0; s < S && linear; s++) {
		ecp_id p = dag->pred[s];
		if (p == ECP_NO_ID) {
			n++;
		} else if (p >= S || (has_next[p / 64] >> (p % 64) & 1)) {
			linear = false;
		} else {
			has_next[p / 64] |= (uint64_t)1 << (p % 64);
		}
	}
	free(has_next);
	*n_chains = linear ? n : UINT32_MAX;
	return 0;
}

/* What the P-runs with delays simulate: the units and their successors.
 * It reads only the DAG and writes only these, so it runs beside the ASAP
 * plan's build (on the benchmark 0.4 s of a 2.7 s preparation). */
struct sim_prepare {
	struct ecp_engine *engine;
	struct ecp_error err;
	int rc;
};

static void *sim_prepare(void *arg)
{
	struct sim_prepare *job = arg;
	struct ecp_engine *e = job->engine;
	const struct ecp_dag *dag = e->dag;
	job->rc = ecp_units_init(&e->units, dag, e->n_chains != UINT32_MAX, &job->err);
	if (job->rc < 0)
		return NULL;
	if (e->units.first) {
		e->sim = &e->units.dag;
		e->sim_units = (struct ecp_prun_units){
		    .first = e->units.first, .end = e->units.end, .length = dag->length};
	}
	job->rc = ecp_dag_succ_init(&e->succ, e->sim, &job->err);
	return NULL;
}

/* *node_time: handed to the plan's build, which frees it (and set to NULL)
 * once the DAG is found consistent.  consume: the DAG itself, whose ASAP
 * schedule node_time now holds, or NULL to keep it. */
static int asap_plan(struct ecp_engine *e, struct ecp_dag *consume, uint8_t *pred_tight,
		     uint8_t *in_tight, double **node_time, struct ecp_error *err)
{
	const struct ecp_dag *dag = e->dag;
	int bad = asap_tight(dag, pred_tight, in_tight, *node_time);
	if (bad)
		return ecp_error_set(
		    err, ECP_ERR,
		    "inconsistent DAG: segment %d ends before start + length", bad - 1);
	if (consume)
		ecp_dag_free_schedule(consume);
	struct ecp_plan_input in = {.dag = dag,
				    .node_time = *node_time,
				    .node_time_release = *node_time,
				    .pred_tight = pred_tight,
				    .in_tight = in_tight,
				    .parallel_min_segments =
					e->opts.parallel_min_segments};
	*node_time = NULL;
	int rc = ecp_plan_build(&in, &e->asap, err);
	if (rc < 0)
		ecp_error_prefix(err, "cannot prepare the ECP engine");
	return rc;
}

static int engine_create(const struct ecp_dag *dag, struct ecp_dag *consume,
			 const struct ecp_engine_options *opts,
			 struct ecp_engine **engine, struct ecp_error *err)
{
	*engine = NULL;
	if (dag->n_in != dag->in_offset[dag->n_segments])
		return ecp_error_set(err, ECP_ERR,
				     "DAG edge count %u disagrees with its offsets (%u)",
				     dag->n_in, dag->in_offset[dag->n_segments]);
	struct ecp_engine *e = calloc(1, sizeof(*e));
	size_t s1 = dag->n_segments ? dag->n_segments : 1;
	uint8_t *pred_tight = ecp_huge_malloc(s1);
	uint8_t *in_tight = ecp_huge_malloc(dag->n_in ? dag->n_in : 1);
	double *node_time = ecp_huge_malloc(2 * s1 * sizeof(double));
	int rc = 0;
	if (!e || !pred_tight || !in_tight || !node_time) {
		rc =
		    ecp_error_set(err, ECP_ERR_NOMEM,
				  "out of memory (engine, %u segments)", dag->n_segments);
		goto out;
	}
	e->dag = dag;
	ecp_engine_options_resolve(opts, &e->opts);
	e->own.inexact = ecp_huge_calloc(s1, 1);
	if (!e->own.inexact) {
		rc =
		    ecp_error_set(err, ECP_ERR_NOMEM,
				  "out of memory (engine, %u segments)", dag->n_segments);
		goto out;
	}
	for (uint32_t s = 0; s < dag->n_segments; s++) {
		if (dag->delay[s] > 0 && dag->pred[s] != ECP_NO_ID)
			e->has_delays = true;
		e->n_weighted += dag->length[s] > 0;
	}
	if ((rc = count_chains(dag, &e->n_chains, err)) < 0)
		goto out;
	e->sim = dag;
	/* Both steps run whole whether or not the other fails (they share
	 * nothing); when both fail, the units' error is the one reported. */
	struct sim_prepare job = {.engine = e};
	pthread_t thread;
	bool threaded = e->has_delays &&
			dag->n_segments >= e->opts.parallel_min_segments &&
			pthread_create(&thread, NULL, sim_prepare, &job) == 0;
	if (e->has_delays && !threaded)
		sim_prepare(&job);
	rc = asap_plan(e, consume, pred_tight, in_tight, &node_time, err);
	if (threaded)
		pthread_join(thread, NULL);
	if (job.rc < 0) {
		*err = job.err;
		rc = job.rc;
	}
	if (rc >= 0)
		e->max_instants = ecp_prun_max_instants(e->sim);
out:
	free(pred_tight);
	free(in_tight);
	free(node_time);
	if (rc < 0) {
		if (e) {
			free(e->own.inexact);
			ecp_plan_finish(&e->asap);
			ecp_dag_succ_finish(&e->succ);
			ecp_units_finish(&e->units);
		}
		free(e);
		return rc;
	}
	*engine = e;
	return 0;
}

int ecp_engine_create(const struct ecp_dag *dag, const struct ecp_engine_options *opts,
		      struct ecp_engine **engine, struct ecp_error *err)
{
	return engine_create(dag, NULL, opts, engine, err);
}

int ecp_engine_create_consuming(struct ecp_dag *dag,
				const struct ecp_engine_options *opts,
				struct ecp_engine **engine, struct ecp_error *err)
{
	return engine_create(dag, dag, opts, engine, err);
}

void ecp_engine_destroy(struct ecp_engine *engine)
{
	if (!engine)
		return;
	ecp_plan_finish(&engine->asap);
	ecp_dag_succ_finish(&engine->succ);
	ecp_units_finish(&engine->units);
	free(engine->own.inexact);
	ecp_scratch_finish(&engine->own.scratch);
	free(engine);
}

struct idle_job {
	const struct ecp_plan *plan;
	unsigned processors;
	double *seg_idle;
	long double idle;
	/* then the weights of segments [from, to) */
	double *weights;
	uint32_t from, to;
};

static void *idle_thread(void *arg)
{
	struct idle_job *job = arg;
	job->idle = ecp_plan_idle(job->plan, job->processors, job->seg_idle);
	return NULL;
}

static void *weights_thread(void *arg)
{
	struct idle_job *job = arg;
	ecp_plan_weights_range(job->plan, job->processors, job->weights, job->from,
			       job->to);
	return NULL;
}

static int run_plan(struct ecp_plan *plan, const struct ecp_dag *dag, unsigned processors,
		    double *weights, double *seg_idle, struct ecp_run_summary *summary,
		    uint32_t parallel_min_segments, struct ecp_error *err)
{
	if (weights && dag->n_segments != plan->n_segments)
		return ecp_error_set(err, ECP_ERR_USAGE,
				     "plan built for %u segments, DAG has %u",
				     plan->n_segments, dag->n_segments);
	/* On a large model two threads share the work: the idle charges while
	 * the prefix over the entries is summed, then half of the weights
	 * each.  They read the plan and write disjoint scratch and outputs, so
	 * the results do not depend on the interleaving; without a thread
	 * (small models, pthread_create failing) the same steps run one after
	 * the other. */
	uint32_t S = plan->n_segments;
	struct idle_job job = {.plan = plan,
			       .processors = processors,
			       .seg_idle = seg_idle,
			       .weights = weights,
			       .from = S / 2,
			       .to = S};
	bool parallel = weights && seg_idle && S >= parallel_min_segments;
	pthread_t thread;
	bool threaded = parallel && pthread_create(&thread, NULL, idle_thread, &job) == 0;
	if (weights)
		ecp_plan_prefix(plan, processors);
	if (threaded)
		pthread_join(thread, NULL);
	else
		idle_thread(&job);
	if (weights) {
		threaded =
		    parallel && pthread_create(&thread, NULL, weights_thread, &job) == 0;
		ecp_plan_weights_range(plan, processors, weights, 0,
				       threaded ? S / 2 : S);
		if (threaded)
			pthread_join(thread, NULL);
	}
	long double idle = job.idle;
	if (summary) {
		summary->makespan = ecp_plan_makespan(plan, processors);
		summary->idle = idle;
	}
	return 0;
}

/* The last instant, in W order, at which some pending tight delay could be
 * disturbed: an instant of reach > P inside [the delay's start, its end].
 * NONE when there is none. */
static uint32_t last_disturbing_instant(const struct ecp_dag *dag,
					const struct ecp_prun *run,
					const struct ecp_plan *plan, unsigned processors,
					const uint32_t *start_inst,
					const uint32_t *end_inst,
					uint32_t *prev_sensitive)
{
	uint32_t last = UINT32_MAX;
	for (uint32_t i = 0; i < plan->n_instants; i++)
		prev_sensitive[i] = plan->reach[i] > processors ? i
				    : i                         ? prev_sensitive[i - 1]
								: UINT32_MAX;
	for (uint32_t s = 0; s < dag->n_segments; s++) {
		ecp_id p = dag->pred[s];
		if (p == ECP_NO_ID || !dag->delay[s] || !run->pred_tight[s])
			continue;
		uint32_t a = end_inst[p], b = start_inst[s];
		uint32_t k = prev_sensitive[b];
		if (k != UINT32_MAX && k >= a && (last == UINT32_MAX || k > last))
			last = k;
	}
	return last;
}

static int longer_first(const void *pa, const void *pb, void *ctx)
{
	const uint64_t *length = ctx;
	uint64_t a = length[*(const uint32_t *)pa];
	uint64_t b = length[*(const uint32_t *)pb];
	if (a != b)
		return a > b ? -1 : 1;
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
	return (x > y) - (x < y);
}

/* The reverse pass's weights (ecp/adjoint.h), taken right after the
 * simulation so that the tape's instants are gone before the plan is built
 * (its segment instants and the run's snapshots stay for the
 * re-simulations).  They go straight into the caller's weights: a P-run in
 * flight holds no array of doubles of its own. */
struct reverse_pass {
	double *weights;              /* the caller's, or `saved` */
	double *saved;                /* a copy, when a plan's weights replace them */
	uint8_t *ok;                  /* per segment: weights[s] is the pass's */
	struct ecp_adjoint_sync sync; /* at the snapshots, for the re-simulations */
	uint64_t budget_left;         /* for the re-simulations */
	bool complete;                /* every segment of nonzero length has a weight
				       * from the pass, exact or not */
};

/* The budget pays for the pass first (its instants), then for the
 * re-simulations; frees the tape's instants either way. */
static int reverse_pass_run(const struct ecp_engine *engine, struct ecp_prun *run,
			    unsigned processors, double *weights, struct reverse_pass *rp,
			    struct ecp_error *err)
{
	const struct ecp_dag *dag = engine->sim;
	size_t s1 = dag->n_segments ? dag->n_segments : 1;
	int rc = 0;
	rp->budget_left = engine->opts.exact_budget;
	rp->weights = weights;
	rp->ok = ecp_huge_calloc(s1, 1);
	if (!rp->ok) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (exact weights)");
	} else {
		uint64_t spent = 0;
		rc = ecp_adjoint_weights(dag, &run->tape, &run->snaps, processors,
					 rp->budget_left, &spent, rp->weights, rp->ok,
					 &rp->sync, err);
		rp->budget_left -= spent;
		rp->complete = run->tape.barrier == UINT32_MAX &&
			       spent >= ecp_adjoint_instants(&run->tape);
	}
	ecp_prun_free_tape_instants(run);
	return rc;
}

/* Re-simulates the weights of todo[] (reordered: longest segments first)
 * from the snapshots of `run` within `budget` instants; flags those it
 * cannot reach, whose weights stay as they are.  With the reverse pass's
 * weights and snapshot adjoints (rp; NULL: none), a re-simulation may end
 * at a snapshot by them (ecp/tangent.h), so they are read throughout: the
 * new weights are written only when all are done. */
static int resimulate(const struct ecp_engine *engine, const struct ecp_prun *run,
		      unsigned processors, uint32_t *todo, uint32_t n_todo,
		      uint64_t budget, const struct reverse_pass *rp, double *weights,
		      struct ecp_engine_flags *fl, struct ecp_error *err)
{
	const struct ecp_dag *dag = engine->sim;
	if (!n_todo)
		return 0;
	qsort_r(todo, n_todo, sizeof(*todo), longer_first, dag->length);
	double *found = malloc((size_t)n_todo * sizeof(double));
	if (!found)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (exact weights)");
	struct ecp_tangent *tangent = NULL;
	int rc = ecp_tangent_create(dag, &engine->succ, processors, run,
				    rp ? rp->weights : NULL, rp ? &rp->sync : NULL,
				    &fl->scratch, &tangent, err);
	if (rc < 0) {
		free(found);
		return rc;
	}
	/* The budget bounds the instants actually re-simulated: a segment
	 * whose re-simulation would go past it is flagged, not guessed. */
	for (uint32_t k = 0; k < n_todo; k++) {
		uint32_t s = todo[k];
		uint64_t spent = ecp_tangent_events(tangent);
		uint64_t synced = ecp_tangent_synced(tangent);
		if (spent < budget &&
		    ecp_tangent_weight(tangent, s, budget - spent, &found[k])) {
			fl->n_resimulated += weighted(engine, s);
			if (ecp_tangent_synced(tangent) > synced)
				fl->n_synced += weighted(engine, s);
		} else {
			found[k] = NAN;
			fl->inexact[s] = 1;
			fl->n_inexact += weighted(engine, s);
		}
	}
	ecp_tangent_destroy(tangent);
	for (uint32_t k = 0; k < n_todo; k++)
		if (!isnan(found[k]))
			weights[todo[k]] = found[k];
	free(found);
	return 0;
}

/* The weights when the reverse pass gave every segment one (already in the
 * caller's array, rp->weights): its exact ones, re-simulations for the
 * segments that would reorder a tie, and for those the budget leaves the
 * pass's own (the adjacent linear piece's), flagged. */
static int take_pass(const struct ecp_engine *engine, const struct ecp_prun *run,
		     unsigned processors, const struct reverse_pass *rp,
		     struct ecp_engine_flags *fl, struct ecp_error *err)
{
	const struct ecp_dag *dag = engine->sim;
	double *weights = rp->weights;
	uint32_t S = dag->n_segments, n_todo = 0;
	for (uint32_t s = 0; s < S; s++) {
		if (dag->length[s])
			n_todo += !rp->ok[s];
		else /* a segment that takes no time cannot be shortened */
			weights[s] = 0.0;
	}
	/* the pass's are all but those re-simulated (counted per unit only
	 * there: a pass over every unit's segments costs as much as the
	 * pass's own bookkeeping) */
	fl->n_reverse += engine->n_weighted;
	if (!n_todo)
		return 0;
	uint32_t *todo = malloc((size_t)n_todo * sizeof(uint32_t));
	if (!todo)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (exact weights)");
	n_todo = 0;
	for (uint32_t s = 0; s < S; s++)
		if (dag->length[s] && !rp->ok[s]) {
			todo[n_todo++] = s;
			fl->n_reverse -= weighted(engine, s);
		}
	int rc = resimulate(engine, run, processors, todo, n_todo, rp->budget_left, rp,
			    weights, fl, err);
	free(todo);
	return rc;
}

/* Replaces the closed-form weights the plan cannot vouch for by exact ones:
 * from the reverse pass where the segment keeps every tie's order,
 * else re-simulated from `run`'s snapshots (as many as the budget allows,
 * longest segments first); flags the rest.  `planned` is the run the plan
 * was built on (the same run, simulated with the plan's input). */
static int make_exact(const struct ecp_engine *engine, const struct ecp_prun *run,
		      const struct ecp_prun *planned, const struct ecp_plan *plan,
		      unsigned processors, const struct reverse_pass *rp, double *weights,
		      struct ecp_engine_flags *fl, struct ecp_error *err)
{
	const struct ecp_dag *dag = engine->sim;
	uint32_t S = dag->n_segments;
	size_t s1 = S ? S : 1;
	uint32_t *start_inst = malloc(s1 * sizeof(uint32_t));
	uint32_t *end_inst = malloc(s1 * sizeof(uint32_t));
	uint32_t *prev =
	    malloc((plan->n_instants ? plan->n_instants : 1) * sizeof(uint32_t));
	uint32_t *todo = NULL;
	int rc = 0;
	if (!start_inst || !end_inst || !prev) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (exact weights)");
		goto out;
	}
	ecp_plan_segment_instants(plan, start_inst, end_inst);
	uint32_t last = last_disturbing_instant(dag, planned, plan, processors,
						start_inst, end_inst, prev);
	if (last == UINT32_MAX)
		goto out;
	/* the reverse pass's weights where the plan cannot vouch for its own */
	uint64_t budget = rp->budget_left;
	uint32_t n_todo = 0;
	for (uint32_t s = 0; s < S; s++) {
		if (dag->length[s] == 0 || end_inst[s] > last)
			continue;
		if (rp->ok[s]) {
			weights[s] = rp->weights[s];
			fl->n_reverse += weighted(engine, s);
		} else {
			n_todo++;
		}
	}
	if (!n_todo)
		goto out;
	todo = malloc((size_t)n_todo * sizeof(uint32_t));
	if (!todo) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (exact weights)");
		goto out;
	}
	n_todo = 0;
	for (uint32_t s = 0; s < S; s++)
		if (dag->length[s] > 0 && end_inst[s] <= last && !rp->ok[s])
			todo[n_todo++] = s;
	rc = resimulate(engine, run, processors, todo, n_todo, budget, NULL, weights, fl,
			err);
out:
	free(todo);
	free(start_inst);
	free(end_inst);
	free(prev);
	return rc;
}

/* The closed form on the P-run's work clock, for when the reverse pass
 * could not give every segment a weight (a budget below one pass, or a step
 * the tape does not describe): a plan of this P's own, its weights where
 * they are exact, the pass's or re-simulated ones elsewhere. */
static int plan_weights(const struct ecp_engine *engine, const struct ecp_prun *run,
			unsigned processors, struct reverse_pass *rp, double *weights,
			struct ecp_engine_flags *fl, struct ecp_error *err)
{
	const struct ecp_dag *dag = engine->sim;
	size_t s1 = dag->n_segments ? dag->n_segments : 1;
	/* the run the plan is built on: this one, or the same simulated
	 * again with the plan's input */
	struct ecp_prun again = {0};
	const struct ecp_prun *planned = run;
	int rc = 0;
	if (!run->node_work) {
		rc = ecp_prun_simulate(dag, &engine->succ, processors,
				       ECP_PRUN_PLAN_INPUT, NULL, NULL, &fl->scratch,
				       &engine->opts, &again, err);
		if (rc < 0)
			return ecp_error_prefix(
			    err, "cannot simulate the run on %u processors", processors);
		planned = &again;
	}
	/* the plan's weights overwrite the pass's, which make_exact reads */
	if (!(rp->saved = malloc(s1 * sizeof(double)))) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (exact weights)");
		goto out;
	}
	memcpy(rp->saved, weights, dag->n_segments * sizeof(double));
	rp->weights = rp->saved;
	struct ecp_plan_input in = {.dag = dag,
				    .node_time = planned->node_work,
				    .pred_tight = planned->pred_tight,
				    .in_tight = planned->in_tight,
				    .parallel_min_segments =
					engine->opts.parallel_min_segments};
	struct ecp_plan plan;
	rc = ecp_plan_build(&in, &plan, err);
	if (rc < 0) {
		ecp_error_prefix(err, "cannot differentiate the run on %u processors",
				 processors);
		goto out;
	}
	rc = run_plan(&plan, dag, processors, weights, NULL, NULL,
		      engine->opts.parallel_min_segments, err);
	if (rc >= 0)
		rc = make_exact(engine, run, planned, &plan, processors, rp, weights, fl,
				err);
	ecp_plan_finish(&plan);
out:
	ecp_prun_finish(&again);
	return rc;
}

bool ecp_engine_simulates(const struct ecp_engine *engine, unsigned processors)
{
	/* Without delays every P is a warp of the ASAP run.  Unlimited
	 * processors never share, and from the largest reach on no shortening
	 * can make anything share: the P-run is the ASAP run and F = 1
	 * everywhere a perturbation can reach, delays or not. */
	return engine->has_delays && processors &&
	       processors < ecp_engine_saturation(engine);
}

int ecp_engine_run_flagged(struct ecp_engine *engine, unsigned processors,
			   double *weights, double *seg_idle,
			   struct ecp_run_summary *summary, struct ecp_engine_flags *fl,
			   struct ecp_error *err)
{
	const struct ecp_dag *dag = engine->dag;
	memset(fl->inexact, 0, dag->n_segments);
	fl->n_inexact = fl->n_resimulated = fl->n_synced = fl->n_reverse = 0;
	if (!ecp_engine_simulates(engine, processors)) {
		/* writes the shared plan's scratch: one such run at a time */
		int rc = run_plan(&engine->asap, dag, processors, weights, seg_idle,
				  summary, engine->opts.parallel_min_segments, err);
		if (summary)
			summary->exact = true;
		return rc;
	}
	/* The simulation gives T_P and the idle charges; the reverse pass
	 * over it the weights.  The closed form on the run's work clock
	 * (a plan per P, the larger cost in time and memory) is built only
	 * when the pass could not give every segment a weight: a budget below
	 * one pass (then the simulation keeps the plan's input at once), or
	 * a step the tape does not describe (then it runs again for it). */
	ecp_scratch_next_run(&fl->scratch);
	unsigned what = 0;
	if (weights)
		what = ECP_PRUN_TAPE | ECP_PRUN_SNAPSHOTS |
		       (engine->opts.exact_budget < engine->max_instants
			    ? ECP_PRUN_PLAN_INPUT
			    : 0);
	struct ecp_prun run;
	int rc = ecp_prun_simulate(engine->sim, &engine->succ, processors, what, seg_idle,
				   engine->units.first ? &engine->sim_units : NULL,
				   &fl->scratch, &engine->opts, &run, err);
	if (rc < 0)
		return ecp_error_prefix(err, "cannot simulate the run on %u processors",
					processors);
	struct reverse_pass rp = {0};
	if (weights &&
	    (rc = reverse_pass_run(engine, &run, processors, weights, &rp, err)) >= 0) {
		if (rp.complete)
			rc = take_pass(engine, &run, processors, &rp, fl, err);
		else
			rc =
			    plan_weights(engine, &run, processors, &rp, weights, fl, err);
	}
	ecp_adjoint_sync_finish(&rp.sync);
	free(rp.saved);
	free(rp.ok);
	if (rc >= 0 && engine->units.first &&
	    ecp_units_expand(&engine->units, dag->length, weights,
			     fl->n_inexact ? fl->inexact : NULL) < 0)
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (exact weights)");
	if (rc >= 0 && summary) {
		summary->makespan = run.makespan;
		summary->idle = run.idle;
		summary->exact = fl->n_inexact == 0;
	}
	ecp_prun_finish(&run);
	return rc;
}

int ecp_engine_run(struct ecp_engine *engine, unsigned processors, double *weights,
		   double *seg_idle, struct ecp_run_summary *summary,
		   struct ecp_error *err)
{
	return ecp_engine_run_flagged(engine, processors, weights, seg_idle, summary,
				      &engine->own, err);
}

void ecp_engine_idle_linear(const struct ecp_engine *engine, double *per_p, double *fixed)
{
	ecp_plan_idle_linear(&engine->asap, per_p, fixed);
}
