/* SPDX-License-Identifier: MIT */
/* The engine exact at every time scale (issue 31).
 *
 * A run that sleeps and lasts minutes has its events at times near 1e12 ns;
 * a tie bound relative to the clock (1e-12 * t) merged events a nanosecond
 * apart there, and the weights and T_P were those of another DAG.  These
 * tests hold the engine and the oracle to runs shifted by 1e9 .. 1e13 ns:
 *
 *  - reproductions with their exact answers by hand (the audit's models);
 *  - shift invariance on random models with ties and sleeps: a model whose
 *    thread 0 first computes (or sleeps) for `lead` ns while nothing else
 *    runs has the unshifted model's weights and T_P + lead at every P, and the
 *    oracle must agree with the engine on it;
 *  - one rounding rule for printed times (ecp/tie.h): a time k + 1/2 carried
 *    with rounding error prints k + 1, in `report` (ecp_analyze) as in the
 *    exact warp of `whatif` (ecp_replay_run rounds halves up). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ecp/analysis.h"
#include "ecp/engine.h"
#include "tests/engine/oracle.h"
#include "ecp/tie.h"
#include "simulator/replay/replay.h"
#include "tests/engine/random-dag.h"

#define P_MAX    6
#define MAX_SEGS 128

struct run {
	long double makespan;
	bool exact;
	double w[MAX_SEGS];
};

/* The engine's weights and T_P at P (0: unlimited). */
static void engine_at(const struct ecp_dag *dag, unsigned p, struct run *r)
{
	assert_true(dag->n_segments <= MAX_SEGS);
	struct ecp_error err = {0};
	struct ecp_engine *engine;
	if (ecp_engine_create(dag, NULL, &engine, &err) < 0)
		fail_msg("engine: %s", err.msg);
	struct ecp_run_summary sum;
	if (ecp_engine_run(engine, p, r->w, NULL, &sum, &err) < 0)
		fail_msg("engine at P=%u: %s", p, err.msg);
	ecp_engine_destroy(engine);
	r->makespan = sum.makespan;
	r->exact = sum.exact;
}

static void oracle_at(const struct ecp_dag *dag, unsigned p, struct run *r)
{
	assert_true(dag->n_segments <= MAX_SEGS);
	struct ecp_error err = {0};
	if (ecp_weights_oracle(dag, p, r->w, &r->makespan, &err) < 0)
		fail_msg("oracle at P=%u: %s", p, err.msg);
	r->exact = true;
}

/* Times agree when they are one instant; weights are rationals k/P,
 * equal to within double rounding. */
static bool same_weight(double a, double b)
{
	return fabs(a - b) <= 1e-9;
}

/* ---------------------------------------------------------- reproductions */

/* Asserts the engine's and the oracle's T_P (as offset + rest, so that the
 * message shows the small part) and every weight. */
static void expect_run(const struct fx *f, unsigned p, long double offset,
		       long double rest, const double *want)
{
	struct run e, o;
	engine_at(&f->dag, p, &e);
	oracle_at(&f->dag, p, &o);
	const char *who[2] = {"engine", "oracle"};
	const struct run *r[2] = {&e, &o};
	for (int i = 0; i < 2; i++) {
		if (!ecp_same_instant(r[i]->makespan, offset + rest))
			fail_msg("offset %.0Lf P=%u: %s T_P = offset + %.6Lf, exact "
				 "offset + %.6Lf",
				 offset, p, who[i], r[i]->makespan - offset, rest);
		for (uint32_t s = 0; s < f->dag.n_segments; s++)
			if (!same_weight(r[i]->w[s], want[s]))
				fail_msg("offset %.0Lf P=%u segment %u: %s weight %.9f, "
					 "exact %.9f",
					 offset, p, s, who[i], r[i]->w[s], want[s]);
	}
	assert_true(e.exact);
}

/* main: run T0; create A; run 4; join A; sleep 1.  A: run 3.
 * Segments: 0 main's T0, 1 A's 3, 2 main's 4, 3 the join, 4 the sleep. */
static void build_create_join(struct fx *f, uint64_t t0)
{
	fx_init(f);
	ecp_id m0 = fx_run(f, 0, 0, t0, 0);
	ecp_id a0 = fx_run(f, 1, 1, 3, 0);
	fx_edge(f, m0, a0);
	fx_run(f, 0, 0, 4, 0);
	ecp_id join = fx_seg(f, 0, 0, 0);
	fx_edge(f, a0, join);
	fx_seg(f, 0, 0, 1);
	assert_int_equal(fx_build(f), 0);
}

/* At P = 1 both share the processor from T0: A ends at T0 + 6, main's 4 at
 * T0 + 7 (every segment weighs 1: the run is work-bound), the sleep wakes at
 * T0 + 8.  The relative bound merged the ends at T0 + 6 and T0 + 7: T_1
 * = T0 + 6, below the work.  From P = 2 on: T0 + 5, A off the path. */
static void test_create_join(void **state)
{
	(void)state;
	const uint64_t scales[] = {10, 1000000000ull, 1000000000000ull,
				   10000000000000ull};
	for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
		struct fx f;
		build_create_join(&f, scales[i]);
		long double t0 = (long double)scales[i];
		expect_run(&f, 1, t0, 8, (double[]){1, 1, 1, 0, 0});
		for (unsigned p = 2; p <= 3; p++)
			expect_run(&f, p, t0, 5, (double[]){1, 0, 1, 0, 0});
		expect_run(&f, 0, t0, 5, (double[]){1, 0, 1, 0, 0});
		fx_free(&f);
	}
}

/* main: run T0; create A and B; run 4; join A and B; sleep 1.  A, B: run 3.
 * Segments: 0 main's T0, 1 A, 2 B, 3 main's 4, 4 the join, 5 the sleep. */
static void build_two_children(struct fx *f, uint64_t t0)
{
	fx_init(f);
	ecp_id m0 = fx_run(f, 0, 0, t0, 0);
	ecp_id a0 = fx_run(f, 1, 1, 3, 0);
	ecp_id b0 = fx_run(f, 2, 1, 3, 0);
	fx_edge(f, m0, a0);
	fx_edge(f, m0, b0);
	fx_run(f, 0, 0, 4, 0);
	ecp_id join = fx_seg(f, 0, 0, 0);
	fx_edge(f, a0, join);
	fx_edge(f, b0, join);
	fx_seg(f, 0, 0, 1);
	assert_int_equal(fx_build(f), 0);
}

/* P = 2: three share two processors from T0, A and B end together at
 * T0 + 4.5, main's last 1 runs alone to T0 + 5.5, the sleep ends at T0 + 6.5
 * (the span is T0 + 5).  Shortening A by eps ends it 1.5 eps earlier and
 * leaves B eps, which runs beside main at full speed: main ends 0.5 eps
 * earlier.  P = 1: work-bound, T0 + 11, all weigh 1. */
static void test_two_children(void **state)
{
	(void)state;
	const uint64_t scales[] = {10, 1000000000ull, 1000000000000ull,
				   10000000000000ull};
	for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
		struct fx f;
		build_two_children(&f, scales[i]);
		long double t0 = (long double)scales[i];
		expect_run(&f, 1, t0, 11, (double[]){1, 1, 1, 1, 0, 0});
		expect_run(&f, 2, t0, 6.5L, (double[]){1, 0.5, 0.5, 1, 0, 0});
		expect_run(&f, 3, t0, 5, (double[]){1, 0, 0, 1, 0, 0});
		expect_run(&f, 0, t0, 5, (double[]){1, 0, 0, 1, 0, 0});
		fx_free(&f);
	}
}

/* A gap of a third: main runs T0 and creates A, B, C and D; main, A, B, C
 * run 1 each; D sleeps 1, then runs 1.  P = 3: four share three processors
 * (3/4 each), D wakes at T0 + 1 with a quarter left to each of the four,
 * five share three to T0 + 1 + 5/12, D's last 3/4 alone: T0 + 13/6.  The
 * four would have ended at T0 + 4/3, a third after the wake: the relative
 * bound (0.4 ns at 4e11) ended them at the wake, T_3 = T0 + 2.  Shortening
 * one of the four by eps leaves the other three eps, which they run at 3/4
 * beside D: D ends eps/3 earlier. */
static void build_third(struct fx *f, uint64_t t0)
{
	fx_init(f);
	ecp_id m0 = fx_run(f, 0, 0, t0, 0);
	fx_run(f, 0, 0, 1, 0);
	for (ecp_id t = 1; t <= 3; t++)
		fx_edge(f, m0, fx_run(f, t, 1, 1, 0));
	ecp_id d0 = fx_seg(f, 4, 0, 0);
	fx_edge(f, m0, d0);
	fx_run(f, 4, 2, 1, 1);
	assert_int_equal(fx_build(f), 0);
}

static void test_third(void **state)
{
	(void)state;
	const uint64_t scales[] = {10, 400000000000ull, 1000000000000ull,
				   10000000000000ull};
	const double third = 1.0 / 3.0;
	for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
		struct fx f;
		build_third(&f, scales[i]);
		long double t0 = (long double)scales[i];
		expect_run(&f, 3, t0, 13.0L / 6.0L,
			   (double[]){1, third, third, third, third, 0, 1});
		expect_run(&f, 5, t0, 2, (double[]){1, 0, 0, 0, 0, 0, 1});
		expect_run(&f, 0, t0, 2, (double[]){1, 0, 0, 0, 0, 0, 1});
		fx_free(&f);
	}
}

/* ------------------------------------------------------- shift invariance */

/* *f: `base` after a lead on thread 0 while nothing else runs: `lead` ns of
 * work (one segment), or 1 ns of work and a sleep of `lead` ns (a segment
 * of length 0 after it).  Every base segment that waited for nothing waits
 * for the lead; base segment s is segment s + *n_lead.  Returns the shift. */
static uint64_t build_shifted(struct fx *f, const struct fx *base, uint64_t lead,
			      bool asleep, uint32_t *n_lead)
{
	fx_init(f);
	ecp_id last = fx_run(f, 0, 0, asleep ? 1 : lead, 0);
	if (asleep)
		last = fx_seg(f, 0, 0, lead);
	*n_lead = last + 1;
	bool *waits = calloc(base->n_seg + 1, sizeof(bool));
	assert_non_null(waits);
	for (uint32_t e = 0; e < base->n_edge; e++)
		waits[base->edge_to[e]] = true;
	for (uint32_t s = 0; s < base->n_seg; s++) {
		ecp_id t = base->thread[s];
		ecp_id x = fx_seg(f, t, base->length[s], base->delay[s]);
		for (uint32_t a = 0; a < base->n_act[s]; a++) {
			const struct fx_act *c = &base->act[s][a];
			fx_act(f, x, c->function, c->calls, c->self_ns, c->incl_ns);
		}
		if (t != 0 && base->pred[s] == ECP_NO_ID && !waits[s])
			fx_edge(f, last, x);
	}
	for (uint32_t e = 0; e < base->n_edge; e++)
		fx_edge(f, base->edge_from[e] + *n_lead, base->edge_to[e] + *n_lead);
	free(waits);
	assert_int_equal(fx_build(f), 0);
	return asleep ? 1 + lead : lead;
}

struct shift_stats {
	unsigned long models, runs, weights, ties;
};

/* The shifted model against the base (weights equal, T_P moved by the
 * shift) and against the oracle, at P = 1..P_MAX and unlimited. */
static void check_shifted(const struct fx *base, uint64_t lead, bool asleep,
			  struct shift_stats *st, uint64_t seed)
{
	struct fx f;
	uint32_t n_lead;
	long double shift = (long double)build_shifted(&f, base, lead, asleep, &n_lead);
	uint32_t S = base->dag.n_segments;
	for (unsigned p = 0; p <= P_MAX; p++) {
		struct run b, e, o;
		engine_at(&base->dag, p, &b);
		engine_at(&f.dag, p, &e);
		oracle_at(&f.dag, p, &o);
		if (!e.exact)
			fail_msg("seed %llu lead %llu P=%u: weights not exact",
				 (unsigned long long)seed, (unsigned long long)lead, p);
		if (!ecp_same_instant(e.makespan, b.makespan + shift) ||
		    !ecp_same_instant(o.makespan, b.makespan + shift))
			fail_msg("seed %llu lead %llu%s P=%u: T_P - shift: engine %.6Lf, "
				 "oracle %.6Lf, unshifted %.6Lf",
				 (unsigned long long)seed, (unsigned long long)lead,
				 asleep ? " asleep" : "", p, e.makespan - shift,
				 o.makespan - shift, b.makespan);
		/* the lead's work shifts everything after it: weight 1 */
		if (!same_weight(e.w[0], 1) || !same_weight(o.w[0], 1))
			fail_msg(
			    "seed %llu lead %llu P=%u: lead weighs %.9f (oracle %.9f)",
			    (unsigned long long)seed, (unsigned long long)lead, p, e.w[0],
			    o.w[0]);
		for (uint32_t s = 0; s < S; s++) {
			double we = e.w[s + n_lead], wo = o.w[s + n_lead];
			if (!same_weight(we, b.w[s]) || !same_weight(wo, b.w[s]))
				fail_msg(
				    "seed %llu lead %llu%s P=%u segment %u: engine %.9f, "
				    "oracle %.9f, unshifted %.9f",
				    (unsigned long long)seed, (unsigned long long)lead,
				    asleep ? " asleep" : "", p, s, we, wo, b.w[s]);
			st->weights++;
		}
		st->runs++;
	}
	/* ties: two base segments of one length (the tiny length set) */
	for (uint32_t s = 1; s < S; s++)
		if (base->length[s] && base->length[s] == base->length[s - 1]) {
			st->ties++;
			break;
		}
	st->models++;
	fx_free(&f);
}

#define SHIFT_MODELS 1000

static void test_shift_invariance(void **state)
{
	(void)state;
	const uint64_t leads[] = {1000000000ull, 10000000000ull, 100000000000ull,
				  1000000000000ull, 10000000000000ull};
	const size_t n_leads = sizeof(leads) / sizeof(leads[0]);
	struct shift_stats st[sizeof(leads) / sizeof(leads[0])] = {{0}};
	unsigned long n_models = SHIFT_MODELS;
	for (unsigned long i = 0; i < n_models; i++) {
		uint64_t seed = 0xd1b54a32d192ed03ULL * (i + 1);
		uint64_t rng = seed;
		/* every fourth model wider: 8..12 threads, 40..79 segments */
		bool wide = i % 4 == 3;
		struct random_dag_opts o = {.min_threads = wide ? 8 : 1,
					    .max_threads = wide ? 12 : 5,
					    .min_segments = wide ? 40 : 2,
					    .spread = wide ? 40 : 20,
					    .delays = true,
					    .bursts = i % 2 == 1};
		struct fx base;
		random_dag(&base, &rng, &o);
		for (size_t k = 0; k < n_leads; k++) {
			/* a long first segment, and a long first sleep */
			check_shifted(&base, leads[k], false, &st[k], seed);
			check_shifted(&base, leads[k] + i % 7, true, &st[k], seed);
		}
		fx_free(&base);
	}
	for (size_t k = 0; k < n_leads; k++) {
		printf("shift %.0e ns: %lu models (%lu with ties), %lu runs at P = 1..%d "
		       "and unlimited, %lu weights equal to the unshifted engine's and "
		       "to the oracle, 0 mismatches\n",
		       (double)leads[k], st[k].models, st[k].ties, st[k].runs, P_MAX,
		       st[k].weights);
		assert_int_equal(st[k].models, 2 * n_models);
		assert_int_equal(st[k].runs, 2 * n_models * (P_MAX + 1));
		assert_true(st[k].ties * 4 >= st[k].models); /* ties are common */
		assert_true(st[k].weights >= st[k].runs * 2);
	}
}

/* --------------------------------------------------------------- rounding */

static void test_round_rule(void **state)
{
	(void)state;
	assert_true(ecp_time_round_ns(0.0L) == 0);
	assert_true(ecp_time_round_ns(-1e-9L) == 0);
	assert_true(ecp_time_round_ns(7.0L) == 7);
	assert_true(ecp_time_round_ns(7.0L - 1e-9L) == 7);
	assert_true(ecp_time_round_ns(2.4L) == 2);
	assert_true(ecp_time_round_ns(2.5L) == 3);
	assert_true(ecp_time_round_ns(2.5L - 1e-15L) == 3); /* a half, rounded */
	assert_true(ecp_time_round_ns(2.5L - 1e-9L) == 2);  /* not a half */
	assert_true(ecp_time_round_ns(2.6L) == 3);
	long double big = 1e12L;
	assert_true(ecp_time_round_ns(big + 0.5L) == 1000000000001ull);
	assert_true(ecp_time_round_ns(big + 0.5L - 1e-7L) == 1000000000001ull);
	assert_true(ecp_time_round_ns(big + 0.25L) == 1000000000000ull);
	assert_true(ecp_time_round_ns(1e13L + 0.5L) == 10000000000001ull);
	/* the bound: the rounding allowance, 512 ulps: under 1e-4 ns at
	 * 1e12 ns (the relative 1e-12 was 1 ns there) */
	assert_true(ecp_tie_bound(0.0L) == ECP_TIE_NS);
	assert_true(ecp_tie_bound(1e12L) < 1e-4L);
	assert_true(ecp_tie_bound(1e13L) < 1e-3L);
	assert_true(ecp_tie_bound(1e13L) > 256 * 1e13L * 0x1p-63L);
	assert_true(ecp_same_instant(1e12L, 1e12L + 1e-5L));
	assert_true(!ecp_same_instant(1e12L, 1e12L + 1e-4L));
	assert_true(!ecp_same_instant(1e13L, 1e13L + 1e-3L));
	assert_true(!ecp_same_instant(20.0L, 20.0L + 1e-6L));
}

/* T_2 = T0 + 9/2 through thirds: main and two children run 3 each from T0
 * on two processors (2/3 each); two sleepers wake at T0 + 1 and T0 + 2 into
 * segments of length 0, and at each wake the work clock advances by 2/3
 * with rounding error: T_2 is carried as T0 + 9/2 - 6e-8 at T0 = 1e12, which
 * + 0.5 and truncation printed as T0 + 4.  report prints T0 + 5, as the exact
 * warp of the same run without the sleepers (ecp_replay_run, halves up: what
 * whatif prints) does.  Each thread's segments in a row, as replay needs. */
static void build_half(struct fx *f, uint64_t t0, bool sleepers)
{
	fx_init(f);
	ecp_id m0 = fx_run(f, 0, 0, t0, 0);
	fx_run(f, 0, 0, 3, 0);
	for (ecp_id t = 1; t <= 2; t++)
		fx_edge(f, m0, fx_run(f, t, 1, 3, 0));
	for (ecp_id t = 3; sleepers && t <= 4; t++) {
		fx_edge(f, m0, fx_seg(f, t, 0, 0));
		fx_seg(f, t, 0, t - 2);
	}
	assert_int_equal(fx_build(f), 0);
}

static void test_report_rounds_halves_up(void **state)
{
	(void)state;
	unsigned long checked = 0, below = 0;
	for (uint64_t t0 = 1000000000000ull; t0 < 1000000000000ull + 64; t0++) {
		struct fx f;
		build_half(&f, t0, true);
		struct ecp_analysis a;
		struct ecp_error err = {0};
		if (ecp_analyze(&f.model, &f.dag, 2, NULL, &a, &err) < 0)
			fail_msg("analyze: %s", err.msg);
		struct run e;
		engine_at(&f.dag, 2, &e);
		if (!ecp_same_instant(e.makespan, (long double)t0 + 4.5L))
			fail_msg("T0 %llu: T_2 = T0 + %.9Lf, exact T0 + 4.5",
				 (unsigned long long)t0, e.makespan - (long double)t0);
		below += e.makespan < (long double)t0 + 4.5L;
		if (a.makespan_ns != t0 + 5)
			fail_msg(
			    "T0 %llu: report prints T0 + %lld for T0 + 9/2 (carried as "
			    "T0 + %.12Lf)",
			    (unsigned long long)t0, (long long)(a.makespan_ns - t0),
			    e.makespan - (long double)t0);
		ecp_analysis_finish(&a);
		fx_free(&f);
		struct fx g;
		build_half(&g, t0, false);
		struct ecp_replay r = {0};
		if (ecp_replay_run(&g.dag, 2, 0, &r, &err) < 0)
			fail_msg("replay: %s", err.msg);
		if (r.makespan != t0 + 5)
			fail_msg("T0 %llu: the exact warp prints T0 + %lld for T0 + 9/2",
				 (unsigned long long)t0, (long long)(r.makespan - t0));
		ecp_replay_finish(&r);
		fx_free(&g);
		checked++;
	}
	printf("rounding: %lu runs of T0 + 9/2 print T0 + 5 in report and in the "
	       "exact warp (%lu carried below the half)\n",
	       checked, below);
	assert_int_equal(checked, 64);
	assert_true(below > 0); /* the case the rule is for */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_rule),
	    cmocka_unit_test(test_create_join),
	    cmocka_unit_test(test_two_children),
	    cmocka_unit_test(test_third),
	    cmocka_unit_test(test_report_rounds_halves_up),
	    cmocka_unit_test(test_shift_invariance),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
