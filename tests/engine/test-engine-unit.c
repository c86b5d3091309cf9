/* SPDX-License-Identifier: MIT */
/* Engine unit tests: the one-sided behaviour at ties, work/span profiles,
 * idleness, what-if lengths, errors. */
#include "tests/engine/check.h"

#include <string.h>

#include "ecp/analysis.h"
#include "ecp/engine.h"
#include "tests/engine/oracle.h"
#include "ecp/radix.h"
#include "ecp/scratch.h"
#include "ecp/sweep.h"
#include "ecp/merged-units.h"
#include "ecp/whatif.h"
#include "tests/engine/fixture.h"
#include "tests/support/same-analysis.h"

static const struct ecp_function_result *find(const struct ecp_analysis *a, ecp_id fn)
{
	for (size_t i = 0; i < a->n_functions; i++)
		if (a->functions[i].function == fn)
			return &a->functions[i];
	fail_msg("function %u missing from the analysis", fn);
	return NULL;
}

/* Shortening one of two equal branches gains nothing (the other still
 * realises the join); the segments before and after the fork gain 1. */
static void test_tie_equal_branches(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	ecp_id fork = fx_run(&f, 0, 0, 1, 0);
	ecp_id join = fx_run(&f, 0, 0, 1, 0);
	fx_seg(&f, 1, 0, 0);
	ecp_id left = fx_run(&f, 1, 1, 5, 0);
	fx_seg(&f, 2, 0, 0);
	ecp_id right = fx_run(&f, 2, 2, 5, 0);
	fx_edge(&f, fork, left);
	fx_edge(&f, fork, right);
	fx_edge(&f, left, join);
	fx_edge(&f, right, join);
	/* the main thread waits in the join: its join segment depends on both */
	assert_int_equal(fx_build(&f), 0);
	for (unsigned p = 0; p <= 3; p++) {
		double *w = check_weights(&f.dag, p);
		assert_true(fabs(w[fork] - 1.0) < 1e-12);
		assert_true(fabs(w[join] - 1.0) < 1e-12);
		if (p != 1) {
			assert_true(fabs(w[left]) < 1e-12);
			assert_true(fabs(w[right]) < 1e-12);
		} else {
			assert_true(fabs(w[left] - 1.0) < 1e-12);
		}
		free(w);
	}
	fx_free(&f);
}

/* Three equal independent threads on 2 processors: shortening one gains 1/P
 * (only the three-way sharing shrinks, the others still end at the same
 * warped time). */
static void test_oversubscribed_gains_one_over_p(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	for (ecp_id t = 0; t < 3; t++)
		fx_run(&f, t, t, 4, 0);
	assert_int_equal(fx_build(&f), 0);
	double *w = check_weights(&f.dag, 2);
	for (int s = 0; s < 3; s++)
		assert_true(fabs(w[s] - 0.5) < 1e-12);
	free(w);
	w = check_weights(&f.dag, 1);
	for (int s = 0; s < 3; s++)
		assert_true(fabs(w[s] - 1.0) < 1e-12);
	free(w);
	w = check_weights(&f.dag, ECP_UNLIMITED);
	for (int s = 0; s < 3; s++)
		assert_true(fabs(w[s]) < 1e-12); /* three-way tie for the end */
	free(w);
	fx_free(&f);
}

/* A thread that sleeps and then ends with a zero-length segment: the run's
 * last event is that end, so the segment before the sleep weighs 1; the
 * zero-length one weighs 0. */
static void test_trailing_sleep(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	ecp_id a = fx_run(&f, 0, 0, 5, 0);
	ecp_id z = fx_seg(&f, 0, 0, 3);
	fx_run(&f, 1, 1, 2, 0);
	assert_int_equal(fx_build(&f), 0);
	for (unsigned p = 0; p <= 2; p++) {
		double *w = check_weights(&f.dag, p);
		assert_true(fabs(w[a] - 1.0) < 1e-12);
		assert_true(w[z] == 0.0);
		free(w);
	}
	fx_free(&f);
}

/* Work/span: TET at P = 1 is the ordinary profile, span is TET at
 * unlimited, makespan at unlimited is the span. */
static void test_work_span_profiles(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	ecp_id m0 = fx_seg(&f, 0, 10, 0);
	fx_act(&f, m0, 0, 1, 4, 10); /* main: 4 self */
	fx_act(&f, m0, 1, 2, 6, 6);  /* helper: 6 self, 2 calls */
	ecp_id m1 = fx_run(&f, 0, 0, 3, 0);
	fx_seg(&f, 1, 0, 0);
	ecp_id w1 = fx_seg(&f, 1, 20, 0);
	fx_act(&f, w1, 2, 1, 15, 20); /* worker */
	fx_act(&f, w1, 1, 3, 5, 5);   /* helper */
	fx_edge(&f, m0, w1);
	fx_edge(&f, w1, m1);
	assert_int_equal(fx_build(&f), 0);
	struct ecp_error err = {0};
	struct ecp_analysis a1, ainf;
	assert_int_equal(ecp_analyze(&f.model, &f.dag, 1, NULL, &a1, &err), 0);
	assert_int_equal(ecp_analyze(&f.model, &f.dag, ECP_UNLIMITED, NULL, &ainf, &err),
			 0);
	for (size_t i = 0; i < a1.n_functions; i++)
		assert_true(fabs(a1.functions[i].tet_ns - a1.functions[i].work_ns) <
			    1e-9);
	assert_true(fabs(find(&a1, 1)->work_ns - 11) < 1e-9);
	assert_int_equal(find(&a1, 1)->calls, 5);
	assert_int_equal(ainf.makespan_ns, f.dag.span);
	assert_int_equal(a1.makespan_ns, f.dag.work);
	assert_true(fabs(a1.speedup - 1.0) < 1e-12);
	for (size_t i = 0; i < ainf.n_functions; i++)
		assert_true(fabs(ainf.functions[i].tet_ns - ainf.functions[i].span_ns) <
			    1e-9);
	/* the span profile is the same whatever P the analysis is for */
	assert_true(fabs(find(&a1, 2)->span_ns - find(&ainf, 2)->span_ns) < 1e-9);
	assert_true(fabs(find(&ainf, 0)->tetid_ns - 13) < 1e-9);
	/* sorted by TET descending */
	for (size_t i = 1; i < ainf.n_functions; i++)
		assert_true(ainf.functions[i - 1].tet_ns >= ainf.functions[i].tet_ns);
	ecp_analysis_finish(&a1);
	ecp_analysis_finish(&ainf);
	fx_free(&f);
}

/* Tallent's idleness: main runs 10, a worker 2; at P = 2, during 2..10 one
 * thread runs, so 8 processor-ns are idle, all charged to main. */
static void test_idleness(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	fx_run(&f, 0, 0, 10, 0);
	fx_run(&f, 1, 1, 2, 0);
	assert_int_equal(fx_build(&f), 0);
	struct ecp_error err = {0};
	struct ecp_analysis a;
	assert_int_equal(ecp_analyze(&f.model, &f.dag, 2, NULL, &a, &err), 0);
	assert_int_equal(a.idle_ns, 8);
	assert_true(fabs(find(&a, 0)->idle_ns - 8) < 1e-9);
	assert_true(fabs(find(&a, 1)->idle_ns) < 1e-9);
	ecp_analysis_finish(&a);
	/* P = 4: 2 idle during 0..2, 3 during 2..10: 4 + 24 = 28; main gets
	 * (4-2)/2*2 + 3*8 = 26, the worker 2. */
	assert_int_equal(ecp_analyze(&f.model, &f.dag, 4, NULL, &a, &err), 0);
	assert_int_equal(a.idle_ns, 28);
	assert_true(fabs(find(&a, 0)->idle_ns - 26) < 1e-9);
	assert_true(fabs(find(&a, 1)->idle_ns - 2) < 1e-9);
	ecp_analysis_finish(&a);
	/* P = 1: never idle */
	assert_int_equal(ecp_analyze(&f.model, &f.dag, 1, NULL, &a, &err), 0);
	assert_int_equal(a.idle_ns, 0);
	ecp_analysis_finish(&a);
	fx_free(&f);
}

/* The sweep gives what one-shot analyses give; batches (scan's path, with
 * and without the weights kept) give what one P at a time gives. */
static void test_sweep_matches_analyze(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	ecp_id a = fx_run(&f, 0, 0, 3, 0);
	fx_run(&f, 0, 1, 2, 0);
	for (ecp_id t = 1; t < 4; t++) {
		fx_seg(&f, t, 0, 0);
		ecp_id s = fx_run(&f, t, 2, 2 + t, 0);
		fx_edge(&f, a, s);
	}
	assert_int_equal(fx_build(&f), 0);
	struct ecp_error err = {0};
	struct ecp_sweep *sw;
	assert_int_equal(ecp_sweep_create(&f.model, &f.dag, NULL, &sw, &err), 0);
	for (unsigned p = 0; p <= 5; p++) {
		struct ecp_analysis x, y;
		assert_int_equal(ecp_sweep_analyze(sw, p, &x, &err), 0);
		assert_int_equal(ecp_analyze(&f.model, &f.dag, p, NULL, &y, &err), 0);
		assert_int_equal(x.makespan_ns, y.makespan_ns);
		assert_int_equal(x.n_functions, y.n_functions);
		for (size_t i = 0; i < x.n_functions; i++) {
			assert_int_equal(x.functions[i].function,
					 y.functions[i].function);
			assert_true(x.functions[i].tet_ns == y.functions[i].tet_ns);
		}
		ecp_analysis_finish(&x);
		ecp_analysis_finish(&y);
	}
	/* 0..5 and 1..5 again: batches of 4, 4 and 3. */
	const unsigned ps[] = {0, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5};
	const size_t n = sizeof(ps) / sizeof(ps[0]);
	struct ecp_analysis kept[sizeof(ps) / sizeof(ps[0])],
	    bare[sizeof(ps) / sizeof(ps[0])];
	assert_int_equal(ecp_sweep_analyze_many(sw, ps, n, true, kept, &err), 0);
	assert_int_equal(ecp_sweep_analyze_many(sw, ps, n, false, bare, &err), 0);
	for (size_t i = 0; i < n; i++) {
		struct ecp_analysis one;
		assert_int_equal(ecp_sweep_analyze(sw, ps[i], &one, &err), 0);
		assert_same_analysis(&kept[i], &one);
		assert_same_analysis(&bare[i], &one);
		assert_null(bare[i].weights);
		assert_non_null(kept[i].weights);
		assert_memory_equal(kept[i].weights, one.weights,
				    f.model.n_segments * sizeof(double));
		ecp_analysis_finish(&one);
		ecp_analysis_finish(&kept[i]);
		ecp_analysis_finish(&bare[i]);
	}
	ecp_sweep_destroy(sw);
	fx_free(&f);
}

/* From P = the largest running count on, the sweep takes a shortcut (span
 * attribution, idleness linear in P): it must equal the direct computation
 * of each segment's idle charge spread over its functions by self time. */
static void test_saturated_shortcut(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	ecp_id a = fx_seg(&f, 0, 12, 0);
	fx_act(&f, a, 0, 1, 9, 12);
	fx_act(&f, a, 1, 2, 3, 3);
	fx_run(&f, 0, 1, 4, 2);
	for (ecp_id t = 1; t < 4; t++) {
		fx_seg(&f, t, 0, 0);
		ecp_id s = fx_seg(&f, t, 3 * t + 1, 0);
		fx_act(&f, s, 2, 1, 2 * t, 3 * t + 1);
		fx_act(&f, s, 1, 1, t + 1, t + 1);
		fx_edge(&f, a, s);
		fx_run(&f, t, 3, t, 1);
	}
	assert_int_equal(fx_build(&f), 0);
	struct ecp_error err = {0};
	struct ecp_sweep *sw;
	struct ecp_engine *engine;
	assert_int_equal(ecp_sweep_create(&f.model, &f.dag, NULL, &sw, &err), 0);
	assert_int_equal(ecp_engine_create(&f.dag, NULL, &engine, &err), 0);
	unsigned sat = ecp_engine_saturation(engine);
	assert_true(sat >= 3);
	double seg_idle[32], w[32];
	for (unsigned p = sat; p <= sat + 3; p++) {
		struct ecp_analysis an;
		assert_int_equal(ecp_sweep_analyze(sw, p, &an, &err), 0);
		struct ecp_run_summary sum;
		assert_int_equal(ecp_engine_run(engine, p, w, seg_idle, &sum, &err), 0);
		double want[8] = {0}, tet[8] = {0};
		for (uint32_t s = 0; s < f.model.n_segments; s++) {
			const struct ecp_segment *seg = &f.model.segments[s];
			struct ecp_activity one;
			const struct ecp_activity *acts;
			uint32_t n = ecp_segment_activities(&f.model, seg, &one, &acts);
			double self = 0;
			for (uint32_t i = 0; i < n; i++)
				self += acts[i].self_ns;
			for (uint32_t i = 0; i < n; i++) {
				const struct ecp_activity *act = &acts[i];
				if (self > 0)
					want[act->function] +=
					    seg_idle[s] * act->self_ns / self;
				tet[act->function] += w[s] * act->self_ns;
			}
			assert_true(w[s] == an.weights[s]);
		}
		assert_true(fabsl(sum.idle - (long double)an.idle_ns) < 1.0L);
		for (size_t i = 0; i < an.n_functions; i++) {
			ecp_id fn = an.functions[i].function;
			assert_true(fabs(an.functions[i].idle_ns - want[fn]) < 1e-9);
			assert_true(fabs(an.functions[i].tet_ns - tet[fn]) < 1e-9);
		}
		ecp_analysis_finish(&an);
	}
	ecp_engine_destroy(engine);
	ecp_sweep_destroy(sw);
	fx_free(&f);
}

/* The reach counts a thread's next segment as starting beside the one whose
 * end releases it, so it can exceed the threads; yet no shortening ever runs
 * more segments at once than there are threads, so saturation is at most
 * their count, and there the shortcut's weights are the oracle's.  Thread 0:
 * a then b, released by a's end while c runs (reach 3); thread 1: c, then
 * d after a sleep (the model simulates its P-runs below saturation). */
static void test_saturation_at_most_threads(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	fx_run(&f, 0, 0, 1, 0);
	fx_run(&f, 0, 1, 1, 0);
	fx_run(&f, 1, 2, 2, 0);
	fx_run(&f, 1, 3, 1, 1);
	assert_int_equal(fx_build(&f), 0);
	struct ecp_error err = {0};
	struct ecp_engine *engine;
	assert_int_equal(ecp_engine_create(&f.dag, NULL, &engine, &err), 0);
	assert_int_equal(ecp_engine_saturation(engine), 2);
	assert_true(ecp_engine_simulates(engine, 1));
	assert_false(ecp_engine_simulates(engine, 2));
	ecp_engine_destroy(engine);
	for (unsigned p = 1; p <= 3; p++) {
		struct ecp_analysis an;
		assert_int_equal(ecp_analyze(&f.model, &f.dag, p, NULL, &an, &err), 0);
		double want[4];
		long double makespan;
		assert_int_equal(ecp_weights_oracle(&f.dag, p, want, &makespan, &err), 0);
		assert_true(an.weights_exact);
		assert_true(an.makespan_ns == (uint64_t)(makespan + 0.5L));
		for (uint32_t s = 0; s < f.dag.n_segments; s++)
			assert_true(fabs(an.weights[s] - want[s]) < 1e-9);
		ecp_analysis_finish(&an);
	}
	fx_free(&f);
}

/* A thread's next segment joins the unit of the one before only when
 * nothing else can see the boundary: no delay, no edge into the next, no
 * edge out of the first, no second thread successor. */
/* A thread's scratch gives a block back only for its exact size, zeroes it
 * when asked, and frees what a whole run left untaken. */
static void test_scratch_reuse(void **state)
{
	(void)state;
	struct ecp_scratch sc = {0};
	ecp_scratch_next_run(&sc); /* run 1 */
	uint32_t *a = ecp_scratch_take(&sc, 1000 * sizeof(uint32_t));
	uint8_t *b = ecp_scratch_take(&sc, 64);
	assert_non_null(a);
	assert_non_null(b);
	for (unsigned i = 0; i < 1000; i++)
		a[i] = i + 1;
	ecp_scratch_give(&sc, a, 1000 * sizeof(uint32_t));
	ecp_scratch_give(&sc, b, 64);
	assert_int_equal(sc.n, 2);
	ecp_scratch_next_run(&sc); /* run 2: both kept from run 1 */
	assert_int_equal(sc.n, 2);
	/* another size is a new block */
	uint32_t *c = ecp_scratch_take(&sc, 999 * sizeof(uint32_t));
	assert_non_null(c);
	assert_ptr_not_equal(c, a);
	assert_int_equal(sc.n, 2);
	/* the same size is the kept block, zeroed when asked */
	uint32_t *z = ecp_scratch_take_zeroed(&sc, 1000, sizeof(uint32_t));
	assert_ptr_equal(z, a);
	for (unsigned i = 0; i < 1000; i++)
		assert_int_equal(z[i], 0);
	assert_int_equal(sc.n, 1);
	ecp_scratch_give(&sc, z, 1000 * sizeof(uint32_t));
	ecp_scratch_give(&sc, NULL, 8); /* nothing */
	free(c);
	assert_int_equal(sc.n, 2);
	/* run 3: b, untaken through run 2, is freed; a, given in run 2, stays */
	ecp_scratch_next_run(&sc);
	assert_int_equal(sc.n, 1);
	assert_ptr_equal(sc.kept[0].p, a);
	/* full: what does not fit is freed at once */
	void *more[ECP_SCRATCH_KEPT];
	for (unsigned i = 0; i < ECP_SCRATCH_KEPT; i++) {
		more[i] = ecp_scratch_take(&sc, 32);
		assert_non_null(more[i]);
	}
	for (unsigned i = 0; i < ECP_SCRATCH_KEPT; i++)
		ecp_scratch_give(&sc, more[i], 32);
	assert_int_equal(sc.n, ECP_SCRATCH_KEPT);
	/* without a scratch every take is new and every give frees */
	void *p = ecp_scratch_take_zeroed(NULL, 4, 4);
	assert_non_null(p);
	assert_int_equal(((uint32_t *)p)[3], 0);
	ecp_scratch_give(NULL, p, 16);
	assert_null(ecp_scratch_take_zeroed(&sc, SIZE_MAX / 2, 4)); /* overflow */
	ecp_scratch_finish(&sc);
	assert_int_equal(sc.n, 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* ecp_radix_sort_bits on one thread and on two, at every size: sorted by
 * the key bits, stable (the payload bits below
 * them are the input position, so a stable sort leaves the whole words in
 * increasing order), whatever the digits' split. */
static void test_radix_sort_bits(void **state)
{
	(void)state;
	const size_t sizes[] = {2, 3, 1000, 140000};
	unsigned cases = 0;
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	for (size_t c = 0; c < sizeof(sizes) / sizeof(*sizes); c++) {
		size_t n = sizes[c];
		for (unsigned run = 0; run < 8; run++) {
			unsigned key_bits = 1 + 13 * (run / 2);
			bool two_threads = run % 2;
			uint64_t *keys = malloc(n * sizeof(*keys));
			uint64_t *want = malloc(n * sizeof(*want));
			assert_non_null(keys);
			assert_non_null(want);
			for (size_t i = 0; i < n; i++) {
				rng =
				    rng * 6364136223846793005ull + 1442695040888963407ull;
				/* few distinct keys: many ties for stability */
				uint64_t key =
				    (rng >> 33) % (key_bits < 20 ? 7 : 1000003) &
				    (((uint64_t)1 << key_bits) - 1);
				keys[i] = want[i] = key << 20 | i;
			}
			qsort(want, n, sizeof(*want), cmp_u64);
			assert_int_equal(
			    ecp_radix_sort_bits(keys, n, 20, 20 + key_bits, two_threads),
			    0);
			assert_memory_equal(keys, want, n * sizeof(*keys));
			free(keys);
			free(want);
			cases++;
		}
	}
	assert_int_equal(cases, 32);
}

static void test_units_merge(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	fx_seg(&f, 0, 2, 0); /* 0 */
	fx_seg(&f, 0, 1, 0); /* 1: joins 0 */
	fx_seg(&f, 0, 0, 0); /* 2: 1 is waited for (by 6) */
	fx_seg(&f, 0, 3, 1); /* 3: after a delay */
	fx_seg(&f, 0, 2, 0); /* 4: joins 3 */
	fx_seg(&f, 1, 4, 0); /* 5 */
	fx_seg(&f, 1, 1, 0); /* 6: waits for 1 */
	fx_seg(&f, 1, 2, 0); /* 7: joins 6 */
	fx_edge(&f, 1, 6);
	for (uint32_t s = 0; s < 8; s++)
		fx_act(&f, s, 0, 1, f.length[s], f.length[s]);
	assert_int_equal(fx_build(&f), 0);
	struct ecp_error err = {0};
	struct ecp_units u;
	assert_int_equal(ecp_units_init(&u, &f.dag, true, &err), 0);
	assert_non_null(u.first);
	assert_int_equal(u.dag.n_segments, 5);
	/* the units in a topological order: every input numbered lower */
	uint32_t unit_at[8]; /* unit by its first segment */
	for (uint32_t s = 0; s < 8; s++)
		unit_at[s] = UINT32_MAX;
	for (uint32_t k = 0; k < 5; k++) {
		assert_true(u.first[k] < 8);
		unit_at[u.first[k]] = k;
		assert_true(u.dag.pred[k] == ECP_NO_ID || u.dag.pred[k] < k);
		for (uint32_t e = u.dag.in_offset[k]; e < u.dag.in_offset[k + 1]; e++)
			assert_true(u.dag.in_from[e] < k);
		assert_int_equal(u.dag.topo[k], k);
	}
	static const uint32_t first[] = {0, 2, 3, 5, 6}, end[] = {2, 3, 5, 6, 8};
	static const uint64_t length[] = {3, 0, 5, 4, 3}, delay[] = {0, 0, 1, 0, 0};
	static const uint32_t pred_first[] = {UINT32_MAX, 0, 2, UINT32_MAX, 5};
	uint32_t id[5];
	for (uint32_t j = 0; j < 5; j++) {
		uint32_t k = id[j] = unit_at[first[j]];
		assert_true(k < 5);
		assert_int_equal(u.end[k], end[j]);
		assert_int_equal(u.dag.length[k], length[j]);
		assert_int_equal(u.dag.delay[k], delay[j]);
		if (pred_first[j] == UINT32_MAX)
			assert_int_equal(u.dag.pred[k], ECP_NO_ID);
		else
			assert_int_equal(u.dag.pred[k], unit_at[pred_first[j]]);
	}
	assert_int_equal(u.dag.n_in, 1);
	/* 1 -> 6 is unit {0, 1} -> unit {6, 7} */
	assert_int_equal(u.dag.in_offset[id[4] + 1] - u.dag.in_offset[id[4]], 1);
	assert_int_equal(u.dag.in_from[u.dag.in_offset[id[4]]], id[0]);
	assert_int_equal(ecp_units_weighted(&u, f.dag.length, id[1]), 0);
	assert_int_equal(ecp_units_weighted(&u, f.dag.length, id[2]), 2);
	/* the units with a segment of length 0: only id[1] ({2}) */
	for (uint32_t j = 0; j < 5; j++)
		assert_int_equal(u.has_empty[id[j] / 64] >> (id[j] % 64) & 1, j == 1);
	/* per-unit results spread to their segments; length 0 keeps 0 */
	static const double unit_w[] = {0.5, 0.25, 1, 0.75, 2};
	static const uint8_t unit_fl[] = {1, 0, 0, 1, 0};
	double w[8] = {0};
	uint8_t fl[8] = {0};
	for (uint32_t j = 0; j < 5; j++) {
		w[id[j]] = unit_w[j];
		fl[id[j]] = unit_fl[j];
	}
	assert_int_equal(ecp_units_expand(&u, f.dag.length, w, fl), 0);
	static const double want_w[] = {0.5, 0.5, 0, 1, 1, 0.75, 2, 2};
	static const uint8_t want_fl[] = {1, 1, 0, 0, 0, 1, 0, 0};
	for (uint32_t s = 0; s < 8; s++) {
		assert_true(w[s] == want_w[s]);
		assert_int_equal(fl[s], want_fl[s]);
	}
	ecp_units_finish(&u);
	/* a segment with two thread successors: nothing merges */
	assert_int_equal(ecp_units_init(&u, &f.dag, false, &err), 0);
	assert_null(u.first);
	fx_free(&f);
}

/* A unit's idle charge is split where its segments hand over, also when
 * that is between two events.  P = 2, three threads: a (3) then b (1) on
 * one, merged; c (1), then d (1) after a delay of 5; e (2).  Three run at
 * rate 2/3 until c ends (t = 1.5), two until e ends (t = 2.5), then a runs
 * alone (charged 1 per ns) until its end at t = 3.5, b until t = 4.5;
 * nothing runs until d, alone from 6.5 to 7.5. */
static void test_units_idle_split(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	fx_run(&f, 0, 0, 3, 0);
	fx_run(&f, 0, 1, 1, 0);
	fx_run(&f, 1, 2, 1, 0);
	fx_run(&f, 1, 3, 1, 5);
	fx_run(&f, 2, 4, 2, 0);
	assert_int_equal(fx_build(&f), 0);
	struct ecp_error err = {0};
	struct ecp_engine *engine;
	assert_int_equal(ecp_engine_create(&f.dag, NULL, &engine, &err), 0);
	assert_int_equal(ecp_engine_simulated_units(engine), 4);
	assert_true(ecp_engine_simulates(engine, 2));
	double w[5], idle[5], want[5];
	struct ecp_run_summary sum;
	assert_int_equal(ecp_engine_run(engine, 2, w, idle, &sum, &err), 0);
	static const double want_idle[] = {1, 1, 0, 1, 0};
	for (uint32_t s = 0; s < 5; s++)
		assert_true(fabs(idle[s] - want_idle[s]) < 1e-12);
	assert_true(fabsl(sum.makespan - 7.5L) < 1e-12L);
	assert_true(fabsl(sum.idle - 7.0L) < 1e-12L); /* 2 * 7.5 - 8 */
	long double makespan;
	assert_int_equal(ecp_weights_oracle(&f.dag, 2, want, &makespan, &err), 0);
	assert_true(sum.exact);
	for (uint32_t s = 0; s < 5; s++)
		assert_true(fabs(w[s] - want[s]) < 1e-9);
	assert_true(w[0] == w[1]);
	ecp_engine_destroy(engine);
	fx_free(&f);
}

static void test_whatif_lengths(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	ecp_id s = fx_seg(&f, 0, 100, 0);
	fx_act(&f, s, 0, 1, 60, 100);
	fx_act(&f, s, 1, 1, 40, 40);
	fx_run(&f, 1, 1, 10, 0);
	assert_int_equal(fx_build(&f), 0);
	struct ecp_whatif_change ch[] = {{.function = 1, .faster_pct = 25.0}};
	uint64_t *len;
	struct ecp_error err = {0};
	assert_int_equal(ecp_whatif_lengths(&f.model, ch, 1, &len, &err), 0);
	assert_int_equal(len[0], 90);
	assert_int_equal(len[1], 8); /* 10 - 2.5 rounds to 8 (half away from 0) */
	free(len);
	struct ecp_whatif_change bad[] = {{.function = 7, .faster_pct = 10.0}};
	assert_true(ecp_whatif_lengths(&f.model, bad, 1, &len, &err) < 0);
	assert_non_null(strstr(err.msg, "function 7"));
	fx_free(&f);
}

/* A DAG whose times do not follow its edges is refused with a message. */
static void test_inconsistent_dag(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	ecp_id a = fx_run(&f, 0, 0, 3, 0);
	ecp_id b = fx_run(&f, 1, 0, 3, 0);
	fx_edge(&f, a, b);
	assert_int_equal(fx_build(&f), 0);
	f.dag.start[b] = 5; /* should be 3 */
	f.dag.end[b] = 8;
	struct ecp_error err = {0};
	struct ecp_engine *e;
	assert_true(ecp_engine_create(&f.dag, NULL, &e, &err) < 0);
	assert_non_null(strstr(err.msg, "segment 1"));
	struct ecp_analysis an;
	f.model.n_segments = 1;
	assert_true(ecp_analyze(&f.model, &f.dag, 2, NULL, &an, &err) < 0);
	assert_null(an.weights);
	fx_free(&f);
}

/* Degenerate models: no segment at all, and one zero-length segment. */
static void test_degenerate(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f);
	assert_int_equal(fx_build(&f), 0);
	struct ecp_error err = {0};
	struct ecp_analysis a;
	assert_int_equal(ecp_analyze(&f.model, &f.dag, 4, NULL, &a, &err), 0);
	assert_int_equal(a.makespan_ns, 0);
	assert_int_equal(a.n_functions, 0);
	ecp_analysis_finish(&a);
	fx_free(&f);
	fx_init(&f);
	fx_seg(&f, 0, 0, 0);
	assert_int_equal(fx_build(&f), 0);
	for (unsigned p = 0; p < 3; p++) {
		double *w = check_weights(&f.dag, p);
		assert_true(w[0] == 0.0);
		free(w);
	}
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tie_equal_branches),
	    cmocka_unit_test(test_oversubscribed_gains_one_over_p),
	    cmocka_unit_test(test_trailing_sleep),
	    cmocka_unit_test(test_work_span_profiles),
	    cmocka_unit_test(test_idleness),
	    cmocka_unit_test(test_sweep_matches_analyze),
	    cmocka_unit_test(test_saturated_shortcut),
	    cmocka_unit_test(test_saturation_at_most_threads),
	    cmocka_unit_test(test_units_merge),
	    cmocka_unit_test(test_radix_sort_bits),
	    cmocka_unit_test(test_scratch_reuse),
	    cmocka_unit_test(test_units_idle_split),
	    cmocka_unit_test(test_whatif_lengths),
	    cmocka_unit_test(test_inconsistent_dag),
	    cmocka_unit_test(test_degenerate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
