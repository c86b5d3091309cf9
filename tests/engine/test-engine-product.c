/* SPDX-License-Identifier: MIT */
/* What users see, held against the brute-force oracle on random models.
 *
 * `ecp report` prints ecp_analyze(), `ecp scan` ecp_sweep_analyze_many() on
 * one sweep for all P (batches sharing an attribution pass, weights not
 * kept; checked again with the weights kept), `ecp whatif` the replay of the
 * DAG rebuilt with the
 * faster lengths.  For every model and every P = 1..8 and unlimited, each of
 * those must equal the oracle (tests/engine/oracle.h, the definition re-simulated with
 * a symbolic eps): every segment weight, every function's calls, TET and
 * TETID, T_P; and weights_exact must be true.  Within 1e-9 relative: weights
 * are rationals, the comparison only absorbs floating-point rounding.
 *
 *  - 10,000 small random DAGs, half with sleeps, lengths in 0..4 so that
 *    ties are everywhere (ECP_PRODUCT_MODELS overrides the count);
 *  - 200 larger ones: 200..259 segments on 16..24 threads, half with sleeps;
 *  - 2,000 tie-free DAGs (lengths 1..1e6, no sleeps) where T_P is
 *    differentiable, so Euler's theorem holds (T_P is homogeneous of degree 1
 *    in the lengths): sum over functions of TET = T_P at every P;
 *  - 2,000 generated programs (locks, condition variables, semaphores,
 *    barriers; half sleep) through the simulator's ecp_dag_build(), with a
 *    what-if (one function 20% faster) replayed at every P.
 * The counts of models and comparisons are asserted, so a generator that
 * produced nothing would fail. */
#include "tests/engine/check.h"

#include <stdio.h>
#include <string.h>

#include "common/parse.h"
#include "ecp/analysis.h"
#include "ecp/options.h"
#include "ecp/parallel.h"
#include "ecp/sweep.h"
#include "ecp/whatif.h"
#include "simulator/model/dag.h"
#include "simulator/replay/replay.h"
#include "tests/engine/random-dag.h"
#include "tests/support/gen-model.h"

#define N_P 9 /* P = 1..8 and unlimited */
static const unsigned g_p[N_P] = {1, 2, 3, 4, 5, 6, 7, 8, ECP_UNLIMITED};

struct counts {
	unsigned long models, analyses, weights, functions, euler, whatifs;
	unsigned long paired;   /* analyses a sweep's second thread ran */
	unsigned long implicit; /* segments whose one activity is implicit */
};

/* Sweeps run two P-runs at once only on models of at least
 * parallel_min_segments segments: engine-product-threaded lowers it to
 * 2, so that every sleeping model below saturation pairs them, and the
 * pairs are checked like the rest; with the default no small model does. */
static void check_pairing(const struct counts *c)
{
	printf("  %lu analyses ran beside another on a sweep's second thread\n",
	       c->paired);
	struct ecp_engine_options in_force;
	ecp_engine_options_resolve(ecp_test_engine_options, &in_force);
	if (in_force.parallel_min_segments <= 2)
		assert_true(c->paired > 0);
	else
		assert_int_equal(c->paired, 0);
}

static bool same(double x, double y)
{
	return fabs(x - y) <= 1e-9 * (fabs(y) > 1.0 ? fabs(y) : 1.0);
}

struct expected {
	double *weight; /* oracle, per segment */
	double *tet, *tetid;
	uint64_t *calls;
	long double makespan;
};

static void expect(const struct ecp_model *m, const struct ecp_dag *dag, unsigned p,
		   struct expected *x, const char *label)
{
	struct ecp_error err = {0};
	if (ecp_weights_oracle(dag, p, x->weight, &x->makespan, &err) < 0)
		fail_msg("%s P=%u: oracle: %s", label, p, err.msg);
	memset(x->tet, 0, m->n_functions * sizeof(double));
	memset(x->tetid, 0, m->n_functions * sizeof(double));
	memset(x->calls, 0, m->n_functions * sizeof(uint64_t));
	for (uint32_t s = 0; s < m->n_segments; s++) {
		const struct ecp_segment *seg = &m->segments[s];
		/* a segment without activities is its start routine's, all
		 * of it (model.h), spelt out here apart from the helper */
		ecp_id start = m->threads[seg->thread].start_function;
		struct ecp_activity implicit = {start, 0, seg->length, seg->length};
		uint32_t n = seg->n_activity ? seg->n_activity : start != ECP_NO_ID;
		for (uint32_t i = 0; i < n; i++) {
			const struct ecp_activity *a =
			    seg->n_activity ? &m->activities[seg->first_activity + i]
					    : &implicit;
			x->tet[a->function] += x->weight[s] * (double)a->self_ns;
			x->tetid[a->function] += x->weight[s] * (double)a->incl_ns;
			/* On the ECP: the oracle's floating-point eps leaves
			 * noise far below any weight k/P. */
			if (fabs(x->weight[s]) > 1e-9)
				x->calls[a->function] += a->calls;
		}
	}
}

/* One analysis (report's or scan's) against the oracle; scan keeps no
 * weights (NULL), the others must have them. */
static void check_analysis(const struct ecp_model *m, const struct ecp_analysis *a,
			   const struct expected *x, const char *label, const char *path,
			   unsigned p, struct counts *c)
{
	bool with_weights = strcmp(path, "scan") != 0;
	if (with_weights != (a->weights != NULL))
		fail_msg("%s P=%u (%s): weights %s", label, p, path,
			 a->weights ? "kept" : "missing");
	if (!a->weights_exact)
		fail_msg("%s P=%u (%s): weights_exact is false", label, p, path);
	if (fabsl((long double)a->makespan_ns - x->makespan) > 0.5L + 1e-6L)
		fail_msg("%s P=%u (%s): T_P %llu, oracle %.6Lf", label, p, path,
			 (unsigned long long)a->makespan_ns, x->makespan);
	for (uint32_t s = 0; with_weights && s < m->n_segments; s++, c->weights++)
		if (!same(a->weights[s], x->weight[s]))
			fail_msg("%s P=%u (%s) segment %u: weight %.12f, oracle %.12f",
				 label, p, path, s, a->weights[s], x->weight[s]);
	if (a->n_functions != m->n_functions)
		fail_msg("%s (%s): %zu function rows for %u functions", label, path,
			 a->n_functions, m->n_functions);
	for (size_t k = 0; k < a->n_functions; k++, c->functions++) {
		const struct ecp_function_result *r = &a->functions[k];
		if (!same(r->tet_ns, x->tet[r->function]) ||
		    !same(r->tetid_ns, x->tetid[r->function]) ||
		    r->calls != x->calls[r->function])
			fail_msg(
			    "%s P=%u (%s) function %u: TET %.9f TETID %.9f calls %llu; "
			    "oracle %.9f %.9f %llu",
			    label, p, path, r->function, r->tet_ns, r->tetid_ns,
			    (unsigned long long)r->calls, x->tet[r->function],
			    x->tetid[r->function],
			    (unsigned long long)x->calls[r->function]);
	}
	c->analyses++;
}

/* Euler: on a tie-free model without sleeps, sum_f TET_f = T_P. */
static void check_euler(const struct ecp_analysis *a, const struct expected *x,
			const char *label, unsigned p, struct counts *c)
{
	double sum = 0.0;
	for (size_t k = 0; k < a->n_functions; k++)
		sum += a->functions[k].tet_ns;
	if (!same(sum, (double)x->makespan))
		fail_msg("%s P=%u: sum of TET %.9f != T_P %.9Lf", label, p, sum,
			 x->makespan);
	c->euler++;
}

static void check_model(const struct ecp_model *m, const struct ecp_dag *dag,
			const char *label, bool euler, struct counts *c)
{
	struct expected x;
	size_t s1 = m->n_segments ? m->n_segments : 1,
	       f1 = m->n_functions ? m->n_functions : 1;
	x.weight = calloc(s1, sizeof(double));
	x.tet = calloc(f1, sizeof(double));
	x.tetid = calloc(f1, sizeof(double));
	x.calls = calloc(f1, sizeof(uint64_t));
	assert_non_null(x.weight);
	struct ecp_error err = {0};
	struct ecp_sweep *sweep;
	if (ecp_sweep_create(m, dag, ecp_test_engine_options, &sweep, &err) < 0)
		fail_msg("%s: sweep: %s", label, err.msg);
	struct ecp_analysis scan[N_P], kept[N_P];
	if (ecp_sweep_analyze_many(sweep, g_p, N_P, false, scan, &err) < 0 ||
	    ecp_sweep_analyze_many(sweep, g_p, N_P, true, kept, &err) < 0)
		fail_msg("%s: sweep: %s", label, err.msg);
	for (unsigned i = 0; i < N_P; i++) {
		unsigned p = g_p[i];
		expect(m, dag, p, &x, label);
		struct ecp_analysis a;
		if (ecp_analyze(m, dag, p, ecp_test_engine_options, &a, &err) < 0)
			fail_msg("%s P=%u: analyze: %s", label, p, err.msg);
		check_analysis(m, &a, &x, label, "report", p, c);
		check_analysis(m, &scan[i], &x, label, "scan", p, c);
		check_analysis(m, &kept[i], &x, label, "sweep with weights", p, c);
		if (euler)
			check_euler(&a, &x, label, p, c);
		ecp_analysis_finish(&a);
		ecp_analysis_finish(&scan[i]);
		ecp_analysis_finish(&kept[i]);
	}
	c->paired += ecp_sweep_paired(sweep);
	for (uint32_t s = 0; s < m->n_segments; s++)
		c->implicit +=
		    !m->segments[s].n_activity &&
		    m->threads[m->segments[s].thread].start_function != ECP_NO_ID;
	ecp_sweep_destroy(sweep);
	free(x.weight);
	free(x.tet);
	free(x.tetid);
	free(x.calls);
	c->models++;
}

static void run_random(const char *what, unsigned long n,
		       const struct random_dag_opts *base, bool alternate_delays,
		       bool euler, uint64_t salt, struct counts *c)
{
	for (unsigned long i = 0; i < n; i++) {
		uint64_t seed = 0x9e3779b97f4a7c15ULL * (i + 1) ^ salt;
		uint64_t st = seed ? seed : 1;
		struct random_dag_opts o = *base;
		if (alternate_delays)
			o.delays = i % 2 == 1;
		struct fx f;
		random_dag(&f, &st, &o);
		char label[96];
		snprintf(label, sizeof(label), "%s model %lu (seed %llu)", what, i,
			 (unsigned long long)seed);
		check_model(&f.model, &f.dag, label, euler, c);
		fx_free(&f);
	}
}

static unsigned long count_from_env(const char *name, unsigned long dflt)
{
	const char *env = getenv(name);
	return env ? strtoul(env, NULL, 10) : dflt;
}

static void test_small_ties(void **state)
{
	(void)state;
	unsigned long n = count_from_env("ECP_PRODUCT_MODELS", 10000);
	struct counts c = {0};
	struct random_dag_opts o = {.max_threads = 5, .min_segments = 2, .spread = 24};
	run_random("small", n, &o, true, false, 0, &c);
	printf("small models with ties: %lu models (half with sleeps), %lu analyses, "
	       "%lu weights and %lu function rows equal to the oracle; %lu segments "
	       "their start routine's alone (model.h)\n",
	       c.models, c.analyses, c.weights, c.functions, c.implicit);
	assert_int_equal(c.models, n);
	assert_true(c.implicit >= n);
	assert_int_equal(c.analyses, 3 * N_P * n);
	check_pairing(&c);
}

static void test_large(void **state)
{
	(void)state;
	unsigned long n = count_from_env("ECP_PRODUCT_LARGE_MODELS", 200);
	struct counts c = {0};
	struct random_dag_opts o = {.min_threads = 16,
				    .max_threads = 24,
				    .min_segments = 200,
				    .spread = 60,
				    .functions = 12};
	run_random("large", n, &o, true, false, 0x5bd1e995, &c);
	printf(
	    "large models (200..259 segments, 16..24 threads): %lu models, %lu analyses, "
	    "%lu weights equal to the oracle\n",
	    c.models, c.analyses, c.weights);
	assert_int_equal(c.models, n);
	assert_int_equal(c.analyses, 3 * N_P * n);
	assert_true(c.weights >= 2 * N_P * 200 * n);
	check_pairing(&c);
}

static void test_euler(void **state)
{
	(void)state;
	unsigned long n = count_from_env("ECP_PRODUCT_EULER_MODELS", 2000);
	struct counts c = {0};
	struct random_dag_opts o = {
	    .max_threads = 6, .min_segments = 2, .spread = 30, .wide_lengths = true};
	run_random("tie-free", n, &o, false, true, 0xc2b2ae35, &c);
	printf("tie-free models: %lu models, sum of TET = T_P checked %lu times\n",
	       c.models, c.euler);
	assert_int_equal(c.euler, N_P * n);
}

/* whatif: the DAG rebuilt with one function 20% faster, replayed for every P
 * at once as `ecp whatif` does, against the oracle's T_P on that DAG. */
static void check_whatif(const struct ecp_model *m, const char *label, struct counts *c)
{
	struct ecp_error err = {0};
	struct ecp_whatif_change change = {.function = 0, .faster_pct = 20.0};
	uint64_t *lengths = NULL;
	if (ecp_whatif_lengths(m, &change, 1, &lengths, &err) < 0)
		fail_msg("%s: whatif lengths: %s", label, err.msg);
	struct ecp_dag faster;
	if (ecp_dag_build(m, lengths, ECP_LOCK_ORDER_ARRIVAL, &faster, &err) < 0)
		fail_msg("%s: whatif DAG: %s", label, err.msg);
	struct ecp_replay out[N_P];
	if (ecp_replay_sweep(&faster, g_p, N_P, 0, out, &err) < 0)
		fail_msg("%s: whatif replay: %s", label, err.msg);
	double *w = calloc(faster.n_segments + 1, sizeof(double));
	for (unsigned i = 0; i < N_P; i++) {
		long double t;
		if (ecp_weights_oracle(&faster, g_p[i], w, &t, &err) < 0)
			fail_msg("%s: oracle: %s", label, err.msg);
		if (fabsl((long double)out[i].makespan - t) > 0.5L + 1e-6L)
			fail_msg("%s P=%u: whatif T_P %llu, oracle %.6Lf", label, g_p[i],
				 (unsigned long long)out[i].makespan, t);
		ecp_replay_finish(&out[i]);
		c->whatifs++;
	}
	free(w);
	ecp_dag_finish(&faster);
	free(lengths);
}

static void test_programs(void **state)
{
	(void)state;
	unsigned long n = count_from_env("ECP_PRODUCT_PROGRAMS", 2000);
	struct counts c = {0};
	unsigned long with_sleeps = 0;
	for (unsigned long i = 0; i < n; i++) {
		struct gen_model_opts opts;
		gen_model_opts_default(&opts);
		opts.delays = i % 2 == 1;
		opts.max_threads = 2 + (uint32_t)(i % 5);
		struct ecp_model *m = NULL;
		struct ecp_error err = {0};
		if (gen_model_create(7000 + i, &opts, &m, &err) < 0)
			fail_msg("program %lu: %s", i, err.msg);
		struct ecp_dag dag;
		if (ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err) < 0)
			fail_msg("program %lu: DAG: %s", i, err.msg);
		with_sleeps += dag.total_delay > 0;
		char label[64];
		snprintf(label, sizeof(label), "program %lu (seed %lu)", i, 7000 + i);
		check_model(m, &dag, label, false, &c);
		if (m->n_functions)
			check_whatif(m, label, &c);
		ecp_dag_finish(&dag);
		gen_model_destroy(m);
	}
	printf("generated programs: %lu (%lu sleep), %lu analyses, %lu weights equal to "
	       "the oracle, %lu what-if T_P equal to the oracle's\n",
	       c.models, with_sleeps, c.analyses, c.weights, c.whatifs);
	assert_int_equal(c.models, n);
	assert_true(with_sleeps * 4 >= n); /* the sleeping half really sleeps */
	assert_int_equal(c.whatifs, N_P * n);
}

/* engine-product-threaded (meson.build) gives the engine's tuning knobs
 * in the environment; the engine reads none, the test hands them over. */
static void engine_options_from_env(void)
{
	static struct ecp_engine_options opts;
	uint64_t n;
	if (ecp_env_knob_u64("ECP_PARALLEL_MIN_SEGMENTS", 1, UINT32_MAX, &n))
		opts.parallel_min_segments = (uint32_t)n;
	if (ecp_env_knob_u64("ECP_SNAPSHOT_ITEMS", 1, SIZE_MAX, &n))
		opts.snapshot_items = (size_t)n;
	if (ecp_env_knob_u64("ECP_UNIT_INSTANTS", 2, SIZE_MAX / 64, &n))
		opts.unit_instants = (size_t)n;
	ecp_test_engine_options = &opts;
}

int main(void)
{
	engine_options_from_env();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_small_ties),
	    cmocka_unit_test(test_large),
	    cmocka_unit_test(test_euler),
	    cmocka_unit_test(test_programs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
