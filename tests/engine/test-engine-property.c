/* SPDX-License-Identifier: MIT */
/* The engine (ecp_engine_run) against the brute-force oracle on random
 * models.
 *
 * 10,000 random DAGs (ECP_PROPERTY_MODELS overrides), each at P = 1..5 and
 * unlimited (tests/engine/random-dag.h: ties everywhere).  A quarter of the
 * models have delays.  Every weight, T_P and the idleness must agree with the
 * oracle, delays included.  And with no budget for exact re-simulation,
 * every weight the engine does not flag must still be exact. */
#include "tests/engine/check.h"

#include <stdio.h>
#include <string.h>

#include "tests/engine/fixture.h"
#include "tests/engine/random-dag.h"

struct stats {
	unsigned long models, weights, differ;
	double max_diff, sum_diff, sum_abs_oracle;
};

/* Tallent's idleness by brute force on the oracle's run at P (the ASAP
 * timeline warped, or with delays simulated): at every elementary interval,
 * each of the n < P running segments is charged (P - n) / n of it. */
static unsigned long idle_runs_with_delays; /* check_idle() calls on models that sleep */
/* simulated runs whose DAG merged some of a thread's segments (ecp/merged-units.h) */
static unsigned long merged_runs;

static void check_idle(const struct ecp_dag *dag, unsigned p, const double *seg_idle,
		       long double idle, long double makespan, uint64_t seed)
{
	idle_runs_with_delays += dag->total_delay > 0;
	/* Every processor-ns is busy or idle: I_P = P * T_P - T_1. */
	long double expect = (long double)p * makespan - (long double)dag->work;
	if (fabsl(idle - expect) > 1e-6L)
		fail_msg("seed %llu P=%u: idle %.6Lf, P*T_P - T_1 = %.6Lf",
			 (unsigned long long)seed, p, idle, expect);
	long double start[64], end[64], times[130];
	struct ecp_error err = {0};
	if (ecp_oracle_times(dag, p, start, end, &err) < 0)
		fail_msg("seed %llu: oracle: %s", (unsigned long long)seed, err.msg);
	double want[64] = {0};
	uint32_t n_t = 0;
	for (uint32_t s = 0; s < dag->n_segments; s++) {
		times[n_t++] = start[s];
		times[n_t++] = end[s];
	}
	for (uint32_t i = 0; i < n_t; i++) {
		long double lo = times[i], hi = INFINITY;
		for (uint32_t j = 0; j < n_t; j++)
			if (times[j] > lo && times[j] < hi)
				hi = times[j];
		if (hi == INFINITY)
			continue;
		bool seen = false; /* each interval once */
		for (uint32_t j = 0; j < i; j++)
			seen |= times[j] == lo;
		if (seen)
			continue;
		unsigned n = 0;
		for (uint32_t s = 0; s < dag->n_segments; s++)
			n += start[s] <= lo && end[s] >= hi && dag->length[s] > 0;
		if (n == 0 || n >= p)
			continue;
		for (uint32_t s = 0; s < dag->n_segments; s++)
			if (start[s] <= lo && end[s] >= hi && dag->length[s] > 0)
				want[s] += (double)((hi - lo) * (p - n) / n);
	}
	for (uint32_t s = 0; s < dag->n_segments; s++)
		if (fabs(want[s] - seg_idle[s]) > 1e-9 * (1 + fabs(want[s])))
			fail_msg("seed %llu P=%u segment %u: idle %.6f, brute force %.6f",
				 (unsigned long long)seed, p, s, seg_idle[s], want[s]);
}

static void compare(const struct fx *f, unsigned p, bool exact, struct stats *st,
		    uint64_t seed)
{
	const struct ecp_dag *dag = &f->dag;
	double fast[64], slow[64], idle[64];
	assert_true(dag->n_segments <= 64);
	struct ecp_error err = {0};
	struct ecp_engine *engine;
	if (ecp_engine_create(dag, NULL, &engine, &err) < 0)
		fail_msg("seed %llu: %s", (unsigned long long)seed, err.msg);
	struct ecp_run_summary sum;
	if (ecp_engine_run(engine, p, fast, idle, &sum, &err) < 0)
		fail_msg("seed %llu P=%u: %s", (unsigned long long)seed, p, err.msg);
	merged_runs += ecp_engine_simulates(engine, p) &&
		       ecp_engine_simulated_units(engine) < dag->n_segments;
	ecp_engine_destroy(engine);
	long double t_oracle;
	if (ecp_weights_oracle(dag, p, slow, &t_oracle, &err) < 0)
		fail_msg("seed %llu: oracle: %s", (unsigned long long)seed, err.msg);
	if (fabsl(sum.makespan - t_oracle) > 1e-6L)
		fail_msg("seed %llu P=%u: makespan engine %.9Lf oracle %.9Lf",
			 (unsigned long long)seed, p, sum.makespan, t_oracle);
	if (p)
		check_idle(dag, p, idle, sum.idle, t_oracle, seed);
	for (uint32_t s = 0; s < dag->n_segments; s++) {
		double d = fabs(fast[s] - slow[s]);
		st->weights++;
		st->sum_diff += d;
		st->sum_abs_oracle += fabs(slow[s]);
		if (d > 1e-9) {
			if (exact)
				fail_msg(
				    "seed %llu P=%u segment %u: engine %.9f oracle %.9f",
				    (unsigned long long)seed, p, s, fast[s], slow[s]);
			st->differ++;
			if (d > st->max_diff)
				st->max_diff = d;
		}
	}
}

static void test_random_models(void **state)
{
	(void)state;
	unsigned long n_models = 10000;
	const char *env = getenv("ECP_PROPERTY_MODELS");
	if (env)
		n_models = strtoul(env, NULL, 10);
	struct stats exact = {0}, approx = {0}, delay_unlimited = {0};
	for (unsigned long i = 0; i < n_models; i++) {
		uint64_t seed = 0x9e3779b97f4a7c15ULL * (i + 1);
		uint64_t rng = seed;
		bool delays = i % 4 == 3;
		struct random_dag_opts o = {.max_threads = 5,
					    .min_segments = 2,
					    .spread = 24,
					    .delays = delays,
					    .bursts = delays};
		struct fx f;
		random_dag(&f, &rng, &o);
		for (unsigned p = 0; p <= 5; p++) {
			if (!delays)
				compare(&f, p, true, &exact, seed);
			else if (p == 0)
				compare(&f, p, true, &delay_unlimited, seed);
			else
				compare(&f, p, true, &approx, seed);
		}
		(delays ? &approx : &exact)->models++;
		fx_free(&f);
	}
	printf("no delays: %lu models, %lu weights equal to the oracle\n", exact.models,
	       exact.weights);
	printf("delays: %lu models, %lu weights at unlimited P and %lu at P = 1..5 equal "
	       "to the oracle, idle charges of %lu runs equal to the brute force's (%lu "
	       "simulated with some of a thread's segments merged)\n",
	       approx.models, delay_unlimited.weights, approx.weights,
	       idle_runs_with_delays, merged_runs);
	assert_int_equal(exact.models + approx.models, n_models);
	assert_true(approx.models * 5 >= n_models); /* a quarter have delays */
	assert_true(idle_runs_with_delays >= 5 * approx.models / 2);
	/* the merged path is not a corner of the test */
	assert_true(merged_runs >= approx.models);
}

/* With no budget for re-simulation, the engine keeps the closed form where
 * it cannot vouch for it and flags those segments: every weight left
 * unflagged must still be the oracle's (the flag is honest), and the flags
 * must not be everything (the detection is worth having). */
struct budget0 {
	unsigned long models, flagged, unflagged, wrong_flagged, reverse, resimulated,
	    synced, weights;
};

enum budget_mode {
	BUDGET_NONE,      /* 0: closed form or flagged */
	BUDGET_PASS_WIDE, /* lengths 1..1e6: the first reverse pass (at most one
			   * instant per event) and next to no re-simulation */
	BUDGET_PASS_TIES, /* lengths 0..4: every tie's pass as well (at most one
			   * per event, each over at most every instant) */
};

static void run_budget0(unsigned long n_models, enum budget_mode mode, struct budget0 *c)
{
	bool wide = mode == BUDGET_PASS_WIDE;
	memset(c, 0, sizeof(*c));
	for (unsigned long i = 0; i < n_models; i++) {
		uint64_t seed = 0x2545f4914f6cdd1dULL * (i + 1) + mode, rng = seed;
		struct random_dag_opts o = {.max_threads = 6,
					    .min_segments = 2,
					    .spread = 30,
					    .delays = true,
					    .wide_lengths = wide};
		struct fx f;
		random_dag(&f, &rng, &o);
		const struct ecp_dag *dag = &f.dag;
		double fast[64], slow[64];
		assert_true(dag->n_segments <= 64);
		struct ecp_error err = {0};
		struct ecp_engine *engine;
		if (ecp_engine_create(dag, NULL, &engine, &err) < 0)
			fail_msg("seed %llu: %s", (unsigned long long)seed, err.msg);
		uint64_t instants = 2 * (uint64_t)dag->n_segments + 1;
		ecp_engine_set_exact_budget(engine, mode == BUDGET_NONE ? 0
						    : mode == BUDGET_PASS_WIDE
							? instants
							: instants * instants);
		for (unsigned p = 1; p <= 5; p++) {
			struct ecp_run_summary sum;
			if (ecp_engine_run(engine, p, fast, NULL, &sum, &err) < 0 ||
			    ecp_weights_oracle(dag, p, slow, NULL, &err) < 0)
				fail_msg("seed %llu P=%u: %s", (unsigned long long)seed,
					 p, err.msg);
			uint32_t n_inexact = 0, n_resimulated = 0;
			const uint8_t *inexact =
			    ecp_engine_inexact(engine, &n_inexact, &n_resimulated);
			assert_int_equal(sum.exact, n_inexact == 0);
			c->resimulated += n_resimulated;
			c->synced += ecp_engine_synced_weights(engine);
			c->reverse += ecp_engine_reverse_pass_weights(engine);
			for (uint32_t s = 0; s < dag->n_segments; s++, c->weights++) {
				/* relative: wide lengths make large weights rare
				 * but possible */
				double tol =
				    1e-9 * (fabs(slow[s]) > 1 ? fabs(slow[s]) : 1);
				bool right = fabs(fast[s] - slow[s]) <= tol;
				if (inexact[s]) {
					c->flagged++;
					c->wrong_flagged += !right;
				} else {
					c->unflagged++;
					if (!right)
						fail_msg(
						    "seed %llu P=%u segment %u: engine "
						    "%.9f, oracle %.9f, not flagged",
						    (unsigned long long)seed, p, s,
						    fast[s], slow[s]);
				}
			}
		}
		ecp_engine_destroy(engine);
		fx_free(&f);
		c->models++;
	}
}

static void test_flags_are_honest(void **state)
{
	(void)state;
	struct budget0 c;
	run_budget0(4000, BUDGET_NONE, &c);
	printf(
	    "budget 0: %lu weights unflagged, all equal to the oracle; %lu flagged, of "
	    "which %lu really differ\n",
	    c.unflagged, c.flagged, c.wrong_flagged);
	assert_int_equal(c.models, 4000);
	assert_int_equal(c.reverse + c.resimulated, 0);
	assert_true(c.unflagged > 0 && c.wrong_flagged > 0);
}

/* Lengths without ties (1..1e6) and sleeps: the P-run has no tie after
 * most segments, and the reverse pass over it (ecp/adjoint.h) gives their
 * weights where the closed form cannot.  With a budget that pays for the
 * pass and for next to no re-simulation, every weight left unflagged must
 * be the oracle's; at least 10% of all weights come from the pass, more
 * than the re-simulations give, and at most 2% stay flagged (where the run
 * ties). */
static void test_reverse_pass(void **state)
{
	(void)state;
	struct budget0 c;
	run_budget0(4000, BUDGET_PASS_WIDE, &c);
	printf(
	    "tie-free with sleeps, budget for the pass: %lu weights, %lu unflagged and "
	    "equal to the oracle (%lu from the reverse pass, %lu re-simulated), %lu "
	    "flagged (%lu really differ)\n",
	    c.weights, c.unflagged, c.reverse, c.resimulated, c.flagged, c.wrong_flagged);
	assert_int_equal(c.models, 4000);
	assert_true(c.reverse * 10 >= c.weights);
	assert_true(c.reverse > 4 * c.resimulated);
	assert_true(c.flagged * 50 <= c.weights);
}

/* Lengths 0..4 and sleeps: ties everywhere.  Each tie's pass (ecp/adjoint.h)
 * sorts out the segments whose shortening would reorder it; every other
 * weight from the pass must be the oracle's.  The budget pays for every pass
 * and re-simulates the rest, so nothing stays flagged; the pass must give
 * more weights than the re-simulations. */
static void test_reverse_pass_ties(void **state)
{
	(void)state;
	struct budget0 c;
	run_budget0(4000, BUDGET_PASS_TIES, &c);
	printf(
	    "ties and sleeps, budget for every tie's pass: %lu weights, %lu unflagged "
	    "and equal to the oracle (%lu from the reverse pass, %lu re-simulated, %lu "
	    "of those ended at a snapshot by the pass's adjoints), %lu flagged\n",
	    c.weights, c.unflagged, c.reverse, c.resimulated, c.synced, c.flagged);
	assert_int_equal(c.models, 4000);
	assert_int_equal(c.flagged, 0);
	assert_true(c.reverse > c.resimulated);
	/* the early end is exercised, and not everywhere (a tie's reach or a
	 * state off the tape's stops it) */
	assert_true(c.synced * 10 >= c.resimulated && c.synced < c.resimulated);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_models),
	    cmocka_unit_test(test_flags_are_honest),
	    cmocka_unit_test(test_reverse_pass),
	    cmocka_unit_test(test_reverse_pass_ties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
