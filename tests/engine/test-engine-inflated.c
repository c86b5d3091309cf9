/* SPDX-License-Identifier: MIT */
/* The inflation-aware prediction (ecp/inflated.h) on realistic random
 * models (tests/support/gen-model.h), through the simulator's
 * ecp_dag_build() and the engine, as `ecp compare` runs it:
 *  - against a recording whose every function did the same work at N, it
 *    is the ideal model at every P (nothing lengthened);
 *  - against a recording whose every segment and function took twice as
 *    long at N, each segment at share f is length (1 + f), and T_P is the
 *    engine's on the DAG rebuilt from exactly those lengths: at P >= N
 *    twice the lengths, in between the linear share (P - 1) / (N - 1). */
#include "tests/engine/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/time-round.h"
#include "ecp/analysis.h"
#include "ecp/handoff.h"
#include "ecp/inflated.h"
#include "simulator/model/dag.h"
#include "tests/support/gen-model.h"

static void doubled(struct ecp_model *m)
{
	for (uint32_t s = 0; s < m->n_segments; s++)
		m->segments[s].length *= 2;
	for (uint64_t a = 0; a < m->n_activities; a++) {
		m->activities[a].self_ns *= 2;
		m->activities[a].incl_ns *= 2;
	}
}

/* T_P on the DAG of base rebuilt with each segment at length (1 + share). */
static uint64_t expected(const struct ecp_model *base, double share, unsigned p)
{
	struct ecp_error err = {0};
	uint64_t *len = malloc((base->n_segments + 1) * sizeof(*len));
	assert_non_null(len);
	for (uint32_t s = 0; s < base->n_segments; s++)
		len[s] =
		    (uint64_t)llround((double)base->segments[s].length * (1.0 + share));
	struct ecp_dag dag;
	if (ecp_dag_build(base, len, ECP_LOCK_ORDER_ARRIVAL, &dag, &err) < 0)
		fail_msg("dag: %s", err.msg);
	struct ecp_analysis a;
	if (ecp_analyze(base, &dag, p, NULL, &a, &err) < 0)
		fail_msg("analyze: %s", err.msg);
	uint64_t t = a.makespan_ns;
	ecp_analysis_finish(&a);
	ecp_dag_finish(&dag);
	free(len);
	return t;
}

static void test_inflated(void **state)
{
	(void)state;
	static const unsigned ps[] = {1, 2, 3, 4, 6, 9};
	unsigned long models = 0, points = 0, lengthened = 0;
	for (uint64_t i = 0; i < 200; i++) {
		struct gen_model_opts opts;
		gen_model_opts_default(&opts);
		opts.delays = i % 3 == 2;
		opts.max_threads = 2 + (uint32_t)(i % 4);
		struct ecp_model *base = NULL, *same = NULL, *twice = NULL;
		struct ecp_error err = {0};
		if (gen_model_create(7000 + i, &opts, &base, &err) < 0 ||
		    gen_model_create(7000 + i, &opts, &same, &err) < 0 ||
		    gen_model_create(7000 + i, &opts, &twice, &err) < 0)
			fail_msg("gen_model %llu: %s", (unsigned long long)i, err.msg);
		doubled(twice);
		uint64_t n = 2 + i % 4;
		same->info.recorded_cpus = twice->info.recorded_cpus = n;
		struct ecp_dag dag;
		if (ecp_dag_build(base, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err) < 0)
			fail_msg("dag %llu: %s", (unsigned long long)i, err.msg);
		struct ecp_inflated r;
		size_t np = sizeof(ps) / sizeof(ps[0]);
		if (ecp_inflated_predict(base, &dag, same, ECP_LOCK_ORDER_ARRIVAL, ps, np,
					 NULL, &r, &err) < 0)
			fail_msg("same %llu: %s", (unsigned long long)i, err.msg);
		assert_int_equal(r.n_points, np);
		assert_true(r.residual_ratio == 1.0);
		for (size_t k = 0; k < np; k++) {
			assert_int_equal(r.points[k].handoff_ns,
					 ecp_round_time_ns(r.points[k].share *
							   (double)r.points[k].handoffs *
							   (double)r.handoff_mean_ns));
			assert_int_equal(r.points[k].inflated_ns,
					 r.points[k].ideal_ns + r.points[k].handoff_ns);
			assert_true(r.points[k].extrapolated == (ps[k] > n));
			points++;
		}
		assert_int_equal(r.work_ns, ecp_model_work(base));
		ecp_inflated_finish(&r);
		if (ecp_inflated_predict(base, &dag, twice, ECP_LOCK_ORDER_ARRIVAL, ps,
					 np, NULL, &r, &err) < 0)
			fail_msg("twice %llu: %s", (unsigned long long)i, err.msg);
		for (size_t k = 0; k < np; k++) {
			double share = ps[k] <= 1 ? 0.0
				       : ps[k] >= n
					   ? 1.0
					   : (double)(ps[k] - 1) / (double)(n - 1);
			assert_true(r.points[k].share == share);
			assert_int_equal(r.points[k].inflated_ns,
					 expected(base, share, ps[k]) +
					     r.points[k].handoff_ns);
			lengthened += r.points[k].inflated_ns > r.points[k].ideal_ns;
			points++;
		}
		assert_int_equal(r.work_ns, 2 * ecp_model_work(base));
		ecp_inflated_finish(&r);
		ecp_dag_finish(&dag);
		gen_model_destroy(base);
		gen_model_destroy(same);
		gen_model_destroy(twice);
		models++;
	}
	print_message("inflated: %lu models, %lu points (%lu lengthened)\n", models,
		      points, lengthened);
	assert_int_equal(models, 200);
	assert_int_equal(points, 200 * 2 * 6);
	assert_true(lengthened > 200 * 4);
}

/* Every segment and function 5% longer at N: exact (instrumented) times
 * and times of a million samples count as inflation; times of 100 samples
 * (ratio known to sqrt(2/100) = 14%) are sampling noise, taken as x1, so
 * only the time outside functions (x r0) lengthens the model. */
static void scaled(struct ecp_model *m, double by, uint64_t samples)
{
	for (uint32_t s = 0; s < m->n_segments; s++)
		m->segments[s].length =
		    (uint64_t)llround((double)m->segments[s].length * by);
	for (uint64_t a = 0; a < m->n_activities; a++) {
		m->activities[a].self_ns =
		    (uint64_t)llround((double)m->activities[a].self_ns * by);
		m->activities[a].incl_ns =
		    (uint64_t)llround((double)m->activities[a].incl_ns * by);
	}
	for (ecp_id f = 0; f < m->n_functions; f++)
		m->functions[f].samples = samples;
}

/* Work of the functions named like f in m. */
static uint64_t work_named(const struct ecp_model *m, const char *name)
{
	uint64_t w = 0;
	for (uint32_t s = 0; s < m->n_segments; s++) {
		struct ecp_activity one;
		const struct ecp_activity *act;
		uint32_t k = ecp_segment_activities(m, &m->segments[s], &one, &act);
		for (uint32_t i = 0; i < k; i++) {
			const char *n = m->functions[act[i].function].name;
			w += !strcmp(n ? n : "", name) ? act[i].self_ns : 0;
		}
	}
	return w;
}

/* Names with work on both sides whose work changed, counted once. */
static uint64_t names_changed(const struct ecp_model *base, const struct ecp_model *other)
{
	uint64_t n = 0;
	for (ecp_id f = 0; f < base->n_functions; f++) {
		const char *name = base->functions[f].name ? base->functions[f].name : "";
		bool first = true;
		for (ecp_id g = 0; g < f && first; g++)
			first =
			    strcmp(base->functions[g].name ? base->functions[g].name : "",
				   name) != 0;
		uint64_t w1 = work_named(base, name), wn = work_named(other, name);
		n += first && w1 && wn && w1 != wn;
	}
	return n;
}

static void test_sampling_noise(void **state)
{
	(void)state;
	static const unsigned ps[] = {1, 2, 4};
	const size_t np = sizeof(ps) / sizeof(ps[0]);
	unsigned long models = 0, noise_cases = 0;
	for (uint64_t i = 0; i < 100; i++) {
		struct gen_model_opts opts;
		gen_model_opts_default(&opts);
		opts.max_threads = 2 + (uint32_t)(i % 3);
		opts.unit_ns = 1000; /* long enough for 5% to show */
		struct ecp_model *base = NULL, *other = NULL;
		struct ecp_error err = {0};
		if (gen_model_create(9100 + i, &opts, &base, &err) < 0 ||
		    gen_model_create(9100 + i, &opts, &other, &err) < 0)
			fail_msg("gen_model %llu: %s", (unsigned long long)i, err.msg);
		scaled(other, 1.05, 0);
		other->info.recorded_cpus = 2;
		struct ecp_dag dag;
		if (ecp_dag_build(base, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err) < 0)
			fail_msg("dag %llu: %s", (unsigned long long)i, err.msg);
		uint64_t work_at[3];
		const uint64_t samples[3] = {0, 1000000, 100};
		for (int c = 0; c < 3; c++) {
			for (ecp_id f = 0; f < base->n_functions; f++)
				base->functions[f].samples = other->functions[f].samples =
				    samples[c];
			struct ecp_inflated r;
			if (ecp_inflated_predict(base, &dag, other,
						 ECP_LOCK_ORDER_ARRIVAL, ps, np, NULL, &r,
						 &err) < 0)
				fail_msg("predict %llu: %s", (unsigned long long)i,
					 err.msg);
			work_at[c] = r.work_ns;
			if (c < 2) {
				assert_int_equal(r.noise_functions, 0);
				assert_int_equal(r.noise_ns, 0);
			} else {
				/* only the time outside functions is lengthened */
				double *ones =
				    malloc((base->n_functions + 1) * sizeof(*ones));
				uint64_t *len = NULL, sum = 0;
				assert_non_null(ones);
				for (ecp_id f = 0; f < base->n_functions; f++)
					ones[f] = 1.0;
				assert_int_equal(ecp_inflated_lengths(base, ones,
								      r.residual_ratio,
								      1.0, &len, &err),
						 0);
				for (uint32_t s = 0; s < base->n_segments; s++)
					sum += len[s];
				assert_int_equal(r.work_ns, sum);
				assert_int_equal(r.noise_functions,
						 names_changed(base, other));
				assert_true(r.noise_ns > 0);
				noise_cases += r.noise_functions > 0;
				free(len);
				free(ones);
			}
			ecp_inflated_finish(&r);
		}
		/* a million samples measure 5% as well as exact times do */
		assert_int_equal(work_at[1], work_at[0]);
		assert_true(work_at[2] < work_at[0]);
		ecp_dag_finish(&dag);
		gen_model_destroy(base);
		gen_model_destroy(other);
		models++;
	}
	print_message("sampling noise: %lu models, %lu with noise taken out\n", models,
		      noise_cases);
	assert_int_equal(models, 100);
	assert_int_equal(noise_cases, 100);
}

/* Two threads: B waits from 2 to A's release at 10 and resumes at 15 (a
 * hand-off of 5); B's segment released at 30 by A after B had ended at 25
 * is waiting too (3); an edge whose release came before the waiter ended
 * is none, nor is a thread's first segment (its creation). */
static void test_handoffs(void **state)
{
	(void)state;
	struct ecp_thread th[2] = {
	    {.first_segment = 0, .n_segments = 2, .parent = ECP_NO_ID},
	    {.first_segment = 2, .n_segments = 4, .parent = 0}};
	struct ecp_segment seg[6] = {
	    {.thread = 0, .rec_start = 0, .rec_end = 10},
	    {.thread = 0, .rec_start = 12, .rec_end = 30},
	    {.thread = 1, .rec_start = 1, .rec_end = 2, .first_in = 0},
	    {.thread = 1, .rec_start = 15, .rec_end = 25, .first_in = 1},
	    {.thread = 1, .rec_start = 33, .rec_end = 40, .first_in = 2},
	    {.thread = 1, .rec_start = 41, .rec_end = 50, .first_in = 3}};
	struct ecp_edge edges[4] = {{.from = 0, .to = 2},
				    {.from = 0, .to = 3},
				    {.from = 1, .to = 4},
				    {.from = 0, .to = 5}};
	struct ecp_model m = {.threads = th,
			      .n_threads = 2,
			      .segments = seg,
			      .n_segments = 6,
			      .edges = edges,
			      .n_edges = 4};
	struct ecp_handoffs h;
	assert_int_equal(ecp_handoffs_measure(&m, &h), 0);
	assert_int_equal(h.count, 2);
	assert_int_equal(h.total_ns, 5 + 3);
	assert_int_equal(h.median_ns, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_inflated),
					   cmocka_unit_test(test_sampling_noise),
					   cmocka_unit_test(test_handoffs)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
