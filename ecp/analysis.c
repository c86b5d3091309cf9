/* SPDX-License-Identifier: MIT */
/* ecp_analyze(): weights at P and at unlimited P, attributed to functions
 * (the paper's Sec. 2.2), with the work/span profiles and idleness.
 *
 * Attribution per segment s of weight w, for each of its activities
 * (function f: calls, self, inclusive):
 *     TET[f]   += w * self        TETID[f] += w * inclusive
 *     calls[f] += calls  if w != 0 (the segment is on the ECP)
 * The model re-creates the call stack across segment boundaries, so a
 * function entered before a segment still has its activity there.  Inclusive
 * time counts a recursive function once (the model's incl_ns is "time with f
 * on the stack at least once"), which is Cilkprof's top-call-site rule.
 * The model carries no call sites, so there is no per-call-site attribution.
 *
 * Idleness: a segment's idle charge at P (ecp/plan.h) is spread over its
 * functions in proportion to their self time.  Where in the segment each
 * function ran is not in the model, so this is an approximation: exact when a
 * segment's running count does not change while it runs. */
#include "ecp/analysis.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ecp/engine.h"
#include "ecp/tie.h"
#include "ecp/hugemem.h"
#include "ecp/parallel.h"
#include "ecp/sweep.h"

static int cmp_result(const void *pa, const void *pb, void *ctx)
{
	const struct ecp_model *model = ctx;
	const struct ecp_function_result *a = pa, *b = pb;
	if (a->tet_ns != b->tet_ns)
		return a->tet_ns > b->tet_ns ? -1 : 1;
	const char *na = model->functions[a->function].name;
	const char *nb = model->functions[b->function].name;
	int c = strcmp(na ? na : "", nb ? nb : "");
	if (c)
		return c;
	return (a->function > b->function) - (a->function < b->function);
}

static int check_inputs(const struct ecp_model *model, const struct ecp_dag *dag,
			struct ecp_error *err)
{
	if (model->n_segments != dag->n_segments)
		return ecp_error_set(err, ECP_ERR_USAGE,
				     "model has %u segments but the DAG %u",
				     model->n_segments, dag->n_segments);
	for (uint32_t s = 0; s < model->n_segments; s++) {
		const struct ecp_segment *seg = &model->segments[s];
		if ((uint64_t)seg->first_activity + seg->n_activity > model->n_activities)
			return ecp_error_set(err, ECP_ERR,
					     "segment %u: activities out of range", s);
		if (seg->thread >= model->n_threads)
			return ecp_error_set(err, ECP_ERR,
					     "segment %u: thread %u out of range", s,
					     seg->thread);
		struct ecp_activity one;
		const struct ecp_activity *act;
		uint32_t n = ecp_segment_activities(model, seg, &one, &act);
		for (uint32_t i = 0; i < n; i++)
			if (act[i].function >= model->n_functions)
				return ecp_error_set(
				    err, ECP_ERR,
				    "segment %u: activity of unknown function %u", s,
				    act[i].function);
	}
	return 0;
}

/* A segment's exclusive time over all its functions: what its per-segment
 * charges (idle, per-P and fixed weights) are spread over. */
static inline uint64_t self_total_of(const struct ecp_activity *act, uint32_t n_act)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < n_act; i++)
		total += act[i].self_ns;
	return total;
}

/* act_first/act_n: the segments' activity ranges copied out of the 64-byte
 * segment records, so that a sweep over P reads 12 bytes per segment.  A
 * segment whose one activity is implicit (model.h) has act_n SWEEP_IMPLICIT
 * | its function and act_first its length: read by activities_of().
 *
 * The k analyses of a batch share one pass: the pass is bound by reading the
 * activities (24 bytes each), not by the additions, so k P cost little more
 * than one.  For each analysis the terms are added in the same order as a
 * pass of its own would add them, so batching never changes a result.
 *
 * Without branches on the weight or the idle charge: whether a segment is on
 * the ECP is data, not a pattern a branch predictor learns, and one
 * misprediction per segment cost more than the additions.  A segment off the
 * ECP and never idle adds w * x = +0.0 and 0.0 * x = +0.0, which leave every
 * sum unchanged (a sum starting at +0.0 is never -0.0), so the results are
 * those of skipping it.  k is a constant at every call (inlined), so the
 * loops over the batch unroll. */
#define SWEEP_IMPLICIT UINT32_C(0x80000000)

/* Segment s's activities as act_first/act_n give them (above); *one holds
 * an implicit one. */
static inline __attribute__((always_inline)) uint32_t
activities_of(const struct ecp_model *model, const uint64_t *act_first,
	      const uint32_t *act_n, uint32_t s, struct ecp_activity *one,
	      const struct ecp_activity **act)
{
	if (act_n[s] & SWEEP_IMPLICIT) {
		one->function = act_n[s] & ~SWEEP_IMPLICIT;
		one->calls = 0;
		one->self_ns = one->incl_ns = act_first[s];
		*act = one;
		return 1;
	}
	*act = model->activities + act_first[s];
	return act_n[s];
}

static inline __attribute__((always_inline)) void
attribute_k(const struct ecp_model *model, const uint64_t *act_first,
	    const uint32_t *act_n, double *const *w, double *const *seg_idle,
	    struct ecp_function_result *const *fr, const unsigned k)
{
	for (uint32_t s = 0; s < model->n_segments; s++) {
		struct ecp_activity one;
		const struct ecp_activity *act;
		uint32_t n_act = activities_of(model, act_first, act_n, s, &one, &act);
		uint64_t self_total = self_total_of(act, n_act);
		double ws[ECP_SWEEP_BATCH], idle_per_ns[ECP_SWEEP_BATCH];
		uint32_t on_ecp[ECP_SWEEP_BATCH];
#pragma GCC unroll 4
		for (unsigned j = 0; j < k; j++) {
			double idle = seg_idle[j][s];
			ws[j] = w[j][s];
			idle_per_ns[j] =
			    idle != 0.0 && self_total ? idle / (double)self_total : 0.0;
			on_ecp[j] = ws[j] != 0.0;
		}
		for (uint32_t i = 0; i < n_act; i++) {
			ecp_id f = act[i].function;
			double self = (double)act[i].self_ns,
			       incl = (double)act[i].incl_ns;
			uint32_t calls = act[i].calls;
#pragma GCC unroll 4
			for (unsigned j = 0; j < k; j++) {
				struct ecp_function_result *r = &fr[j][f];
				r->tet_ns += ws[j] * self;
				r->tetid_ns += ws[j] * incl;
				r->calls += calls & -on_ecp[j];
				r->idle_ns += idle_per_ns[j] * self;
			}
		}
	}
}

static void attribute(const struct ecp_model *model, const uint64_t *act_first,
		      const uint32_t *act_n, double *const *w, double *const *seg_idle,
		      struct ecp_function_result *const *fr, unsigned k)
{
	_Static_assert(ECP_SWEEP_BATCH == 4, "one case per batch size");
	switch (k) {
	case 1:
		attribute_k(model, act_first, act_n, w, seg_idle, fr, 1);
		break;
	case 2:
		attribute_k(model, act_first, act_n, w, seg_idle, fr, 2);
		break;
	case 3:
		attribute_k(model, act_first, act_n, w, seg_idle, fr, 3);
		break;
	default:
		attribute_k(model, act_first, act_n, w, seg_idle, fr, 4);
		break;
	}
}

/* The P-independent sums, in one pass over the activities: the work (the
 * ordinary profile) and span profiles, and the saturated attribution (span
 * weights, idleness P * per_p - fixed split by self time).  Each sum adds
 * the same terms in the same order as attribute() would, one call each. */
static void attribute_fixed(const struct ecp_model *model, const uint64_t *act_first,
			    const uint32_t *act_n, const double *w_span,
			    const double *per_p, const double *fixed,
			    struct ecp_function_result *profiles,
			    struct ecp_function_result *saturated, double *idle_per_p,
			    double *idle_fixed)
{
	for (uint32_t s = 0; s < model->n_segments; s++) {
		double ws = w_span[s];
		struct ecp_activity one;
		const struct ecp_activity *act;
		uint32_t n_act = activities_of(model, act_first, act_n, s, &one, &act);
		uint64_t self_total = self_total_of(act, n_act);
		double per_p_ns =
		    per_p[s] != 0.0 && self_total ? per_p[s] / (double)self_total : 0.0;
		double fixed_ns =
		    fixed[s] != 0.0 && self_total ? fixed[s] / (double)self_total : 0.0;
		uint32_t on_ecp = ws != 0.0;
		for (uint32_t i = 0; i < n_act; i++) {
			ecp_id f = act[i].function;
			double self = (double)act[i].self_ns,
			       incl = (double)act[i].incl_ns;
			profiles[f].work_ns += self;
			profiles[f].span_ns += ws * self;
			profiles[f].span_incl_ns += ws * incl;
			saturated[f].tet_ns += ws * self;
			saturated[f].tetid_ns += ws * incl;
			saturated[f].calls += act[i].calls & -on_ecp;
			idle_per_p[f] += per_p_ns * self;
			idle_fixed[f] += fixed_ns * self;
		}
	}
}

/* Marks the functions of every segment whose weight is unverified. */
static void mark_inexact(const struct ecp_model *model, const uint64_t *act_first,
			 const uint32_t *act_n, const uint8_t *inexact,
			 struct ecp_function_result *fr)
{
	for (uint32_t s = 0; s < model->n_segments; s++) {
		if (!inexact[s])
			continue;
		struct ecp_activity one;
		const struct ecp_activity *act;
		uint32_t n = activities_of(model, act_first, act_n, s, &one, &act);
		for (uint32_t i = 0; i < n; i++)
			fr[act[i].function].inexact = true;
	}
}

struct ecp_sweep {
	const struct ecp_model *model;
	const struct ecp_dag *dag;
	struct ecp_engine *engine;
	struct ecp_engine_options opts; /* resolved */
	double *w_span;                 /* weights at unlimited P */
	/* Per analysis of a batch: its idle charges, and its weights when the
	 * caller does not keep them (allocated on first use, reused). */
	double *seg_idle[ECP_SWEEP_BATCH];
	double *w_scratch[ECP_SWEEP_BATCH];
	/* Two analyses of a batch that simulate their P-run go at once, each
	 * with its own flags (ecp_engine_run_flagged): every analysis uses the
	 * first, the second thread the second (allocated on first use). */
	struct ecp_engine_flags flags[2];
	uint64_t paired;                      /* analyses the second thread ran */
	struct ecp_function_result *profiles; /* work and span, per function id */
	uint64_t *act_first;
	uint32_t *act_n;
	/* From P = saturation on (nothing ever shares a processor), the whole
	 * analysis is the span attribution plus idleness linear in P:
	 * idle_ns(f) = P * idle_per_p[f] - idle_fixed[f].  Such P cost
	 * O(functions) and a copy of the weights. */
	uint32_t saturation;
	struct ecp_function_result *saturated; /* span attribution (calls, TET, TETID) */
	double *idle_per_p, *idle_fixed;
};

static int prepare_saturated(struct ecp_sweep *sw, struct ecp_error *err)
{
	const struct ecp_model *model = sw->model;
	size_t n_f = model->n_functions ? model->n_functions : 1;
	size_t s1 = model->n_segments ? model->n_segments : 1;
	sw->saturation = ecp_engine_saturation(sw->engine);
	sw->saturated = calloc(n_f, sizeof(*sw->saturated));
	sw->idle_per_p = calloc(n_f, sizeof(double));
	sw->idle_fixed = calloc(n_f, sizeof(double));
	double *per_p = ecp_huge_malloc(s1 * sizeof(double));
	if (!sw->saturated || !sw->idle_per_p || !sw->idle_fixed || !per_p) {
		free(per_p);
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (saturated profile)");
	}
	/* seg_idle holds the P-independent part while the per-function
	 * coefficients are summed (it is scratch between calls anyway). */
	ecp_engine_idle_linear(sw->engine, per_p, sw->seg_idle[0]);
	attribute_fixed(model, sw->act_first, sw->act_n, sw->w_span, per_p,
			sw->seg_idle[0], sw->profiles, sw->saturated, sw->idle_per_p,
			sw->idle_fixed);
	free(per_p);
	return 0;
}

/* The segments' activity ranges into act_first/act_n (above): the last
 * that a sweep reads of the segment records. */
static int copy_activity_ranges(struct ecp_sweep *sw, struct ecp_error *err)
{
	const struct ecp_model *model = sw->model;
	size_t s1 = model->n_segments ? model->n_segments : 1;
	if (!(sw->act_first = ecp_huge_malloc(s1 * sizeof(uint64_t))) ||
	    !(sw->act_n = ecp_huge_malloc(s1 * sizeof(uint32_t))))
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (analysis of %u segments)",
				     model->n_segments);
	for (uint32_t s = 0; s < model->n_segments; s++) {
		const struct ecp_segment *seg = &model->segments[s];
		ecp_id start = model->threads[seg->thread].start_function;
		if (seg->n_activity || start == ECP_NO_ID) {
			sw->act_first[s] = seg->first_activity;
			sw->act_n[s] = seg->n_activity;
		} else if (start & SWEEP_IMPLICIT) {
			return ecp_error_set(err, ECP_ERR,
					     "segment %u: its start function %u is past "
					     "the 2^31 functions a sweep holds",
					     s, start);
		} else {
			sw->act_first[s] = seg->length;
			sw->act_n[s] = SWEEP_IMPLICIT | start;
		}
	}
	return 0;
}

int ecp_sweep_prepare(const struct ecp_model *model, const struct ecp_dag *dag,
		      const struct ecp_engine_options *opts, struct ecp_sweep **sweep,
		      struct ecp_error *err)
{
	*sweep = NULL;
	int rc = check_inputs(model, dag, err);
	if (rc < 0)
		return rc;
	struct ecp_sweep *sw = calloc(1, sizeof(*sw));
	if (!sw)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (analysis of %u segments)",
				     dag->n_segments);
	sw->model = model;
	sw->dag = dag;
	ecp_engine_options_resolve(opts, &sw->opts);
	*sweep = sw;
	return 0;
}

int ecp_sweep_start(struct ecp_sweep *sw, struct ecp_dag *consume, struct ecp_error *err)
{
	const struct ecp_dag *dag = sw->dag;
	if (consume && consume != dag)
		return ecp_error_set(err, ECP_ERR_USAGE,
				     "a sweep consumes its own DAG's schedule only");
	/* The engine first: its plan's build is the peak of a sweep, which
	 * the sweep's own per-segment arrays would only raise (issue 35). */
	int rc = consume
		     ? ecp_engine_create_consuming(consume, &sw->opts, &sw->engine, err)
		     : ecp_engine_create(dag, &sw->opts, &sw->engine, err);
	if (rc < 0)
		return rc;
	size_t s1 = dag->n_segments ? dag->n_segments : 1;
	if (!(sw->w_span = ecp_huge_malloc(s1 * sizeof(double))) ||
	    !(sw->seg_idle[0] = ecp_huge_malloc(s1 * sizeof(double))) ||
	    !(sw->flags[0].inexact = ecp_huge_calloc(s1, 1)) ||
	    !(sw->profiles = calloc(sw->model->n_functions ? sw->model->n_functions : 1,
				    sizeof(*sw->profiles))))
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (analysis of %u segments)",
				     dag->n_segments);
	rc = ecp_engine_run(sw->engine, ECP_UNLIMITED, sw->w_span, NULL, NULL, err);
	if (rc < 0)
		return rc;
	/* Copied here unless ecp_sweep_read_segments() did: after the
	 * engine's build, so as not to raise its peak. */
	if (!sw->act_first && (rc = copy_activity_ranges(sw, err)) < 0)
		return rc;
	return prepare_saturated(sw, err);
}

int ecp_sweep_read_segments(struct ecp_sweep *sw, struct ecp_error *err)
{
	return sw->act_first ? 0 : copy_activity_ranges(sw, err);
}

int ecp_sweep_create(const struct ecp_model *model, const struct ecp_dag *dag,
		     const struct ecp_engine_options *opts, struct ecp_sweep **sweep,
		     struct ecp_error *err)
{
	int rc = ecp_sweep_prepare(model, dag, opts, sweep, err);
	if (rc < 0)
		return rc;
	if ((rc = ecp_sweep_start(*sweep, NULL, err)) < 0) {
		ecp_sweep_destroy(*sweep);
		*sweep = NULL;
	}
	return rc;
}

void ecp_sweep_destroy(struct ecp_sweep *sweep)
{
	if (!sweep)
		return;
	ecp_engine_destroy(sweep->engine);
	free(sweep->w_span);
	for (unsigned j = 0; j < ECP_SWEEP_BATCH; j++) {
		free(sweep->seg_idle[j]);
		free(sweep->w_scratch[j]);
	}
	for (unsigned j = 0; j < 2; j++) {
		free(sweep->flags[j].inexact);
		ecp_scratch_finish(&sweep->flags[j].scratch);
	}
	free(sweep->profiles);
	free(sweep->act_first);
	free(sweep->act_n);
	free(sweep->saturated);
	free(sweep->idle_per_p);
	free(sweep->idle_fixed);
	free(sweep);
}

struct attribute_job {
	const struct ecp_sweep *sw;
	double *const *w, *const *idle;
	struct ecp_function_result *const *fr;
	unsigned k;
};

static void *attribute_thread(void *arg)
{
	const struct attribute_job *job = arg;
	attribute(job->sw->model, job->sw->act_first, job->sw->act_n, job->w, job->idle,
		  job->fr, job->k);
	return NULL;
}

/* On a large model two threads share a batch: each makes the pass for half
 * of its members (every sum is a member's own, added in the same order
 * either way, so the results do not depend on the threads). */
static void attribute_batch(const struct ecp_sweep *sw, double *const *w,
			    double *const *idle, struct ecp_function_result *const *fr,
			    unsigned k)
{
	unsigned half = k / 2;
	struct attribute_job second = {
	    .sw = sw, .w = w + half, .idle = idle + half, .fr = fr + half, .k = k - half};
	pthread_t thread;
	bool threaded = half > 0 &&
			sw->model->n_segments >= sw->opts.parallel_min_segments &&
			pthread_create(&thread, NULL, attribute_thread, &second) == 0;
	if (!threaded) {
		attribute(sw->model, sw->act_first, sw->act_n, w, idle, fr, k);
		return;
	}
	attribute(sw->model, sw->act_first, sw->act_n, w, idle, fr, half);
	pthread_join(thread, NULL);
}

static bool saturated_at(const struct ecp_sweep *sw, unsigned processors)
{
	return processors && processors >= sw->saturation;
}

/* The engine's part of one analysis: weights into `weights`, T_P, idleness,
 * the profiles; everything but the per-P attribution, which
 * ecp_sweep_analyze_many() does for a batch at once (a saturated P needs
 * none: its analysis is complete here).  fl: the engine's flags for this
 * run (its own array of per-segment flags). */
static int analyze_one(struct ecp_sweep *sw, unsigned processors, double *weights,
		       double *seg_idle, struct ecp_engine_flags *fl,
		       struct ecp_analysis *out, struct ecp_error *err)
{
	const struct ecp_model *model = sw->model;
	const struct ecp_dag *dag = sw->dag;
	size_t n_f1 = model->n_functions ? model->n_functions : 1;
	out->processors = processors;
	out->functions = calloc(n_f1, sizeof(*out->functions));
	if (!out->functions)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (analysis of %u segments)",
				     dag->n_segments);
	struct ecp_run_summary sum;
	bool saturated = saturated_at(sw, processors);
	/* Saturated: the weights are the span weights already at hand, the
	 * idleness is linear in P (prepare_saturated). */
	int rc =
	    ecp_engine_run_flagged(sw->engine, processors, saturated ? NULL : weights,
				   saturated ? NULL : seg_idle, &sum, fl, err);
	if (rc < 0)
		return rc;
	if (saturated && out->weights)
		memcpy(out->weights, sw->w_span, dag->n_segments * sizeof(double));
	out->weights_exact = saturated || sum.exact;
	if (!saturated) {
		out->inexact_segments = fl->n_inexact;
		out->resimulated_segments = fl->n_resimulated;
		out->synced_segments = fl->n_synced;
		out->reverse_pass_segments = fl->n_reverse;
	}
	/* one rounding rule for every printed time (ecp/tie.h) */
	out->makespan_ns = ecp_time_round_ns(sum.makespan);
	out->idle_ns = ecp_time_round_ns(sum.idle);
	out->work_ns = dag->work;
	out->span_ns = dag->span;
	out->speedup =
	    sum.makespan > 0 ? (double)((long double)dag->work / sum.makespan) : 0.0;
	out->n_functions = model->n_functions;
	for (uint32_t f = 0; f < model->n_functions; f++) {
		out->functions[f] = sw->profiles[f];
		out->functions[f].function = f;
		if (saturated) {
			out->functions[f].calls = sw->saturated[f].calls;
			out->functions[f].tet_ns = sw->saturated[f].tet_ns;
			out->functions[f].tetid_ns = sw->saturated[f].tetid_ns;
			out->functions[f].idle_ns =
			    processors * sw->idle_per_p[f] - sw->idle_fixed[f];
		}
	}
	if (out->inexact_segments)
		mark_inexact(model, sw->act_first, sw->act_n, fl->inexact,
			     out->functions);
	return 0;
}

/* The members of a batch, run by up to two threads: those that simulate
 * their P-run (ecp_engine_simulates) are queued, and thread t runs the
 * queued members t, t + 2, ... with its own flags (a fixed share, so that
 * every pair is run side by side, not only those the timing happens to
 * pair).  The others run first, one after the other: they share the
 * engine's plan. */
struct batch_runs {
	struct ecp_sweep *sw;
	const unsigned *processors; /* per member */
	double *const *w, *const *idle;
	struct ecp_analysis *const *out;
	unsigned queue[ECP_SWEEP_BATCH], n_queue;
	unsigned threads;  /* 1 or 2 */
	unsigned taken[2]; /* members each thread ran */
	int rc[ECP_SWEEP_BATCH];
	struct ecp_error err[ECP_SWEEP_BATCH];
};

static void batch_member(struct batch_runs *b, unsigned j, struct ecp_engine_flags *fl)
{
	b->rc[j] = analyze_one(b->sw, b->processors[j], b->w[j], b->idle[j], fl,
			       b->out[j], &b->err[j]);
}

static void batch_take(struct batch_runs *b, unsigned t)
{
	for (unsigned q = t; q < b->n_queue; q += b->threads) {
		batch_member(b, b->queue[q], &b->sw->flags[t]);
		b->taken[t]++;
	}
}

static void *batch_thread(void *arg)
{
	batch_take(arg, 1);
	return NULL;
}

/* Two P-runs go at once only on models large enough to gain by it
 * (ecp/parallel.h). */
static bool pairs_runs(const struct ecp_sweep *sw)
{
	return sw->dag->n_segments >= sw->opts.parallel_min_segments;
}

static bool second_flags_ready(struct ecp_sweep *sw)
{
	if (!sw->flags[1].inexact)
		sw->flags[1].inexact =
		    ecp_huge_calloc(sw->dag->n_segments ? sw->dag->n_segments : 1, 1);
	return sw->flags[1].inexact != NULL;
}

/* Runs members [0, k); returns the first failing member's rc with its error
 * in `err` (and its index in *failed), else 0.  The results do not depend on
 * which thread ran a member: each reads the engine and writes only its own
 * outputs. */
static int batch_run(struct batch_runs *b, unsigned k, unsigned *failed,
		     struct ecp_error *err)
{
	struct ecp_sweep *sw = b->sw;
	for (unsigned j = 0; j < k; j++) {
		if (ecp_engine_simulates(sw->engine, b->processors[j]))
			b->queue[b->n_queue++] = j;
		else
			batch_member(b, j, &sw->flags[0]);
	}
	bool parallel = b->n_queue > 1 && pairs_runs(sw) && second_flags_ready(sw);
	pthread_t thread;
	b->threads = 2;
	bool threaded = parallel && pthread_create(&thread, NULL, batch_thread, b) == 0;
	if (!threaded)
		b->threads = 1;
	batch_take(b, 0);
	if (threaded)
		pthread_join(thread, NULL);
	sw->paired += b->taken[1];
	for (unsigned j = 0; j < k; j++)
		if (b->rc[j] < 0) {
			*err = b->err[j];
			*failed = j;
			return b->rc[j];
		}
	return 0;
}

static void sort_functions(const struct ecp_model *model, struct ecp_analysis *a)
{
	qsort_r(a->functions, a->n_functions, sizeof(*a->functions), cmp_result,
		(void *)model);
}

int ecp_sweep_analyze_many(struct ecp_sweep *sw, const unsigned *processors, size_t n,
			   bool keep_weights, struct ecp_analysis *out,
			   struct ecp_error *err)
{
	memset(out, 0, n * sizeof(*out));
	const struct ecp_model *model = sw->model;
	size_t s1 = sw->dag->n_segments ? sw->dag->n_segments : 1;
	int rc = 0;
	size_t i = 0;
	while (i < n) {
		/* A batch: up to ECP_SWEEP_BATCH analyses that need a pass;
		 * saturated P are complete at once. */
		unsigned ps[ECP_SWEEP_BATCH];
		double *w[ECP_SWEEP_BATCH], *idle[ECP_SWEEP_BATCH];
		struct ecp_analysis *as[ECP_SWEEP_BATCH];
		struct ecp_function_result *fr[ECP_SWEEP_BATCH];
		unsigned k = 0, cap = ECP_SWEEP_BATCH;
		for (; i < n && k < cap; i++) {
			struct ecp_analysis *a = &out[i];
			if (saturated_at(sw, processors[i])) {
				if (keep_weights &&
				    !(a->weights = ecp_huge_malloc(s1 * sizeof(double))))
					goto nomem;
				rc = analyze_one(sw, processors[i], a->weights, NULL,
						 &sw->flags[0], a, err);
				if (rc < 0) {
					ecp_error_prefix(err,
							 "ECP analysis at P=%u failed",
							 processors[i]);
					goto fail;
				}
				sort_functions(model, a);
				continue;
			}
			if (keep_weights &&
			    !(a->weights = ecp_huge_malloc(s1 * sizeof(double))))
				goto nomem;
			if (!sw->seg_idle[k] &&
			    !(sw->seg_idle[k] = ecp_huge_malloc(s1 * sizeof(double))))
				goto nomem;
			if (!keep_weights && !sw->w_scratch[k] &&
			    !(sw->w_scratch[k] = ecp_huge_malloc(s1 * sizeof(double))))
				goto nomem;
			/* Where P-runs go two at a time (batch_run), a batch that
			 * starts with one holds two members, so that the scratch
			 * of the two it no longer holds (16 bytes per segment
			 * each) pays for the second run in flight: with four, the
			 * benchmark's engine took 74 bytes per event, with two 55. */
			if (!k && pairs_runs(sw) &&
			    ecp_engine_simulates(sw->engine, processors[i]))
				cap = 2;
			w[k] = keep_weights ? a->weights : sw->w_scratch[k];
			idle[k] = sw->seg_idle[k];
			ps[k] = processors[i];
			as[k++] = a;
		}
		if (!k)
			continue;
		struct batch_runs b = {
		    .sw = sw, .processors = ps, .w = w, .idle = idle, .out = as};
		unsigned failed = 0;
		rc = batch_run(&b, k, &failed, err);
		if (rc < 0) {
			ecp_error_prefix(err, "ECP analysis at P=%u failed", ps[failed]);
			goto fail;
		}
		for (unsigned j = 0; j < k; j++)
			fr[j] = as[j]->functions;
		attribute_batch(sw, w, idle, fr, k);
		for (unsigned j = 0; j < k; j++)
			sort_functions(model, as[j]);
	}
	return 0;
nomem:
	rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (analysis of %u segments)",
			   sw->dag->n_segments);
fail:
	for (size_t j = 0; j < n; j++)
		ecp_analysis_finish(&out[j]);
	return rc;
}

uint64_t ecp_sweep_paired(const struct ecp_sweep *sw)
{
	return sw->paired;
}

int ecp_sweep_analyze(struct ecp_sweep *sw, unsigned processors, struct ecp_analysis *out,
		      struct ecp_error *err)
{
	return ecp_sweep_analyze_many(sw, &processors, 1, true, out, err);
}

int ecp_analyze(const struct ecp_model *model, const struct ecp_dag *dag,
		unsigned processors, const struct ecp_engine_options *opts,
		struct ecp_analysis *out, struct ecp_error *err)
{
	memset(out, 0, sizeof(*out));
	struct ecp_sweep *sw;
	int rc = ecp_sweep_create(model, dag, opts, &sw, err);
	if (rc < 0)
		return ecp_error_prefix(err, "ECP analysis at P=%u failed", processors);
	rc = ecp_sweep_analyze(sw, processors, out, err);
	ecp_sweep_destroy(sw);
	return rc;
}

void ecp_analysis_finish(struct ecp_analysis *analysis)
{
	if (!analysis)
		return;
	free(analysis->weights);
	free(analysis->functions);
	analysis->weights = NULL;
	analysis->functions = NULL;
	analysis->n_functions = 0;
}
