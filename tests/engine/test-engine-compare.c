/* SPDX-License-Identifier: MIT */
/* ecp_compare() (`ecp compare`): the mode each pair of recordings gets, the
 * work inflation accounting exact in integers on random inputs, and both
 * modes on hand-built models (figures worked out below) and on random
 * models against the engine's own analyses. */
#include "tests/engine/check.h"

#include <string.h>

#include "ecp/analysis.h"
#include "ecp/compare-spread.h"
#include "ecp/compare.h"
#include "tests/engine/fixture.h"
#include "tests/engine/random-dag.h"

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A value of a random magnitude in [0, max]: small ones as often as huge. */
static uint64_t draw(uint64_t *s, uint64_t max)
{
	unsigned bits = (unsigned)(splitmix(s) % 64);
	uint64_t v = bits ? splitmix(s) >> (64 - bits) : 0;
	return v <= max ? v : v % (max + 1);
}

static void test_mode_of(void **state)
{
	(void)state;
	struct ecp_error err = {0};
	enum ecp_compare_mode mode;
	bool swapped;
	assert_int_equal(ecp_compare_mode_of(1, 1, &mode, &swapped, &err), 0);
	assert_int_equal(mode, ECP_COMPARE_BEFORE_AFTER);
	assert_false(swapped);
	assert_int_equal(ecp_compare_mode_of(0, 0, &mode, &swapped, &err), 0);
	assert_int_equal(mode, ECP_COMPARE_BEFORE_AFTER);
	assert_int_equal(ecp_compare_mode_of(0, 4, &mode, &swapped, &err), 0);
	assert_int_equal(mode, ECP_COMPARE_MEASURED);
	assert_false(swapped);
	assert_int_equal(ecp_compare_mode_of(4, 1, &mode, &swapped, &err), 0);
	assert_int_equal(mode, ECP_COMPARE_MEASURED);
	assert_true(swapped);
	assert_int_equal(ecp_compare_mode_of(2, 3, &mode, &swapped, &err), ECP_ERR);
	assert_non_null(strstr(err.msg, "BASE on 2, OTHER on 3"));
	assert_int_equal(
	    ecp_compare_mode_of(1, ECP_COMPARE_MAX_CPUS + 1, &mode, &swapped, &err),
	    ECP_ERR);
	assert_non_null(strstr(err.msg, "OTHER was recorded on 4097 CPUs"));
}

/* The paper's Fact 2.1 with the recorder's time: every field as defined,
 * and N T_N = T_1 + F_N + I_N + R_N with no partial sum out of range. */
static void assert_accounting(const struct ecp_inflation_input *in,
			      const struct ecp_inflation *x)
{
	int64_t n = (int64_t)in->cpus, ntn, ntn_hat, sum;
	assert_false(__builtin_mul_overflow(n, (int64_t)in->tn_ns, &ntn));
	assert_false(__builtin_mul_overflow(n, (int64_t)in->tn_predicted_ns, &ntn_hat));
	assert_int_equal(x->t1_ns, (int64_t)in->t1_ns);
	assert_int_equal(x->fn_ns, (int64_t)in->wn_ns - (int64_t)in->t1_ns);
	assert_int_equal(x->rn_known, in->program_cpu_ns != 0);
	assert_int_equal(x->rn_ns, in->program_cpu_ns
				       ? (int64_t)in->program_cpu_ns - (int64_t)in->wn_ns
				       : 0);
	assert_int_equal(x->in_predicted_ns, ntn_hat - (int64_t)in->t1_ns);
	/* T_1 + F_N = W_N; + R_N = the CPU time; + I_N = N T_N */
	assert_false(__builtin_add_overflow(x->t1_ns, x->fn_ns, &sum));
	assert_false(__builtin_add_overflow(sum, x->rn_ns, &sum));
	assert_false(__builtin_add_overflow(sum, x->in_ns, &sum));
	assert_int_equal(sum, ntn);
	/* the gap splits three ways, exactly (F_N + R_N: the CPU time less
	 * T_1, in range) */
	assert_int_equal(x->gap_cpu_ns, ntn - ntn_hat);
	assert_false(__builtin_add_overflow(x->fn_ns, x->rn_ns, &sum));
	assert_false(__builtin_add_overflow(sum, x->unforeseen_idle_ns, &sum));
	assert_int_equal(sum, x->gap_cpu_ns);
}

static void test_identity_random(void **state)
{
	(void)state;
	uint64_t seed = 20261201;
	unsigned exact = 0, refused = 0;
	struct ecp_error err = {0};
	for (unsigned i = 0; i < 200000; i++) {
		struct ecp_inflation_input in;
		in.cpus = 1 + splitmix(&seed) % ECP_COMPARE_MAX_CPUS;
		in.t1_ns = draw(&seed, INT64_MAX);
		in.tn_ns = draw(&seed, INT64_MAX / in.cpus);
		in.tn_predicted_ns = draw(&seed, INT64_MAX / in.cpus);
		in.wn_ns = draw(&seed, INT64_MAX);
		in.program_cpu_ns = splitmix(&seed) % 8 ? draw(&seed, INT64_MAX) : 0;
		struct ecp_inflation x;
		int rc = ecp_inflation_account(&in, &x, &err);
		int64_t in_ns;
		int64_t ntn = (int64_t)in.cpus * (int64_t)in.tn_ns;
		int64_t rn = in.program_cpu_ns
				 ? (int64_t)in.program_cpu_ns - (int64_t)in.wn_ns
				 : 0;
		bool fits = !__builtin_sub_overflow(ntn - (int64_t)in.wn_ns, rn, &in_ns);
		int64_t unforeseen;
		fits = fits &&
		       !__builtin_sub_overflow(in_ns,
					       (int64_t)(in.cpus * in.tn_predicted_ns) -
						   (int64_t)in.t1_ns,
					       &unforeseen);
		if (!fits) {
			/* I_N itself out of range: refused, never wrapped */
			assert_int_equal(rc, ECP_ERR);
			refused++;
			continue;
		}
		assert_int_equal(rc, 0);
		assert_accounting(&in, &x);
		exact++;
	}
	assert_int_equal(exact + refused, 200000);
	/* the draws put most cases in range: the identity ran on them */
	assert_true(exact > 190000);
	/* N T_N beyond int64: refused with a message */
	unsigned overflowed = 0;
	for (unsigned i = 0; i < 1000; i++) {
		struct ecp_inflation_input in = {0};
		in.cpus = 2 + splitmix(&seed) % (ECP_COMPARE_MAX_CPUS - 1);
		in.tn_ns = INT64_MAX / in.cpus + 1 + splitmix(&seed) % 1000;
		struct ecp_inflation x;
		assert_int_equal(ecp_inflation_account(&in, &x, &err), ECP_ERR);
		assert_non_null(strstr(err.msg, "N x T_N"));
		overflowed++;
	}
	assert_int_equal(overflowed, 1000);
}

static void test_inflation_by_hand(void **state)
{
	(void)state;
	struct ecp_error err = {0};
	struct ecp_inflation x;
	struct ecp_inflation_input in = {.cpus = 2,
					 .t1_ns = 100,
					 .tn_ns = 70,
					 .tn_predicted_ns = 50,
					 .wn_ns = 110,
					 .program_cpu_ns = 120};
	assert_int_equal(ecp_inflation_account(&in, &x, &err), 0);
	assert_int_equal(x.fn_ns, 10);
	assert_int_equal(x.rn_ns, 10);
	assert_int_equal(x.in_ns, 20);
	assert_int_equal(x.in_predicted_ns, 0);
	assert_int_equal(x.unforeseen_idle_ns, 20);
	assert_int_equal(x.gap_cpu_ns, 40);
	assert_true(x.speedup_linear == 2.0 && x.speedup_maximal == 2.0);
	assert_true(fabs(x.speedup_idle - 200.0 / 120.0) < 1e-12);
	assert_true(fabs(x.speedup_inflation - 200.0 / (140.0 - 20.0)) < 1e-12);
	assert_true(fabs(x.speedup_actual - 100.0 / 70.0) < 1e-12);
	assert_true(fabs(x.speedup_predicted - 2.0) < 1e-12);
	/* no program CPU time: R_N unknown, 0, and the idle holds it */
	in.program_cpu_ns = 0;
	assert_int_equal(ecp_inflation_account(&in, &x, &err), 0);
	assert_false(x.rn_known);
	assert_int_equal(x.rn_ns, 0);
	assert_int_equal(x.in_ns, 30);
	/* a program that used less than its segments (noise): R_N < 0 */
	in.program_cpu_ns = 105;
	assert_int_equal(ecp_inflation_account(&in, &x, &err), 0);
	assert_int_equal(x.rn_ns, -5);
	assert_int_equal(x.in_ns, 35);
	in.cpus = 0;
	assert_int_equal(ecp_inflation_account(&in, &x, &err), ECP_ERR_USAGE);
}

/* ---- hand-built recordings ---- */

/* main forks parse and solve on threads 1 and 2 and joins them: segments
 * thread by thread, as models number them.  `tail` names main's last
 * segment's function (1 ns). */
struct program {
	uint64_t main_ns, parse_ns, solve_ns, extra_ns;
	const char *tail;
};

static void build(struct fx *f, const struct program *p)
{
	fx_init(f);
	fx_name(f, 0, "main");
	fx_name(f, 1, "parse");
	fx_name(f, 2, "solve");
	fx_name(f, 3, "extra");
	fx_name(f, 4, p->tail);
	ecp_id fork = fx_run(f, 0, 0, p->main_ns, 0);
	ecp_id join = fx_run(f, 0, 4, 1, 0);
	ecp_id parse = fx_run(f, 1, 1, p->parse_ns, 0);
	ecp_id solve = fx_seg(f, 2, p->solve_ns + p->extra_ns, 0);
	fx_act(f, solve, 2, 1, p->solve_ns, p->solve_ns + p->extra_ns);
	if (p->extra_ns)
		fx_act(f, solve, 3, 1, p->extra_ns, p->extra_ns);
	fx_edge(f, fork, parse);
	fx_edge(f, fork, solve);
	fx_edge(f, parse, join);
	fx_edge(f, solve, join);
	assert_int_equal(fx_build(f), 0);
	/* named threads in place of the fixture's bare ones */
	free(f->model.threads);
	struct ecp_thread *t = calloc(3, sizeof(*t));
	assert_non_null(t);
	static const char *const names[] = {"app", "parser", "solver"};
	for (uint32_t i = 0; i < 3; i++) {
		t[i].tid = 100 + i;
		strcpy(t[i].name, names[i]);
		t[i].first_segment = i ? i + 1 : 0;
		t[i].n_segments = i ? 1 : 2;
		t[i].start_function = i;
	}
	f->model.threads = t;
	f->model.n_threads = 3;
	f->model.info.program = (char *)"app --in x";
	f->model.info.recorded_cpus = 1;
}

static const struct ecp_compare_function *row(const struct ecp_compare_result *r,
					      const char *name)
{
	for (size_t i = 0; i < r->n_functions; i++)
		if (!strcmp(r->functions[i].name, name))
			return &r->functions[i];
	return NULL;
}

static int compare(const struct fx *base, const struct fx *other, const unsigned *ps,
		   size_t n, struct ecp_compare_result *r, struct ecp_error *err)
{
	/* the fixtures' segments are no thread's: no DAG rebuilt from them
	 * (tests/engine/test-engine-inflated.c has the second model) */
	struct ecp_compare_input in = {.base = &base->model,
				       .other = &other->model,
				       .base_dag = &base->dag,
				       .other_dag = &other->dag,
				       .processors = ps,
				       .n_processors = n,
				       .lock_policy = ECP_LOCK_ORDER_ARRIVAL,
				       .inflation_aware = false};
	return ecp_compare(&in, r, err);
}

/* BASE: main 2 + gone 1, parse 10, solve 20 (T_1 33, T_2 23).  OTHER:
 * main 3, parse 6, solve 16 + extra 4 (T_1 29, T_2 23). */
static void test_before_after(void **state)
{
	(void)state;
	struct fx a, b;
	build(&a, &(struct program){2, 10, 20, 0, "gone"});
	build(&b, &(struct program){2, 6, 16, 4, "main"});
	const unsigned ps[] = {1, 2};
	struct ecp_compare_result r;
	struct ecp_error err = {0};
	assert_int_equal(compare(&a, &b, ps, 2, &r, &err), 0);
	assert_int_equal(r.mode, ECP_COMPARE_BEFORE_AFTER);
	assert_false(r.swapped);
	assert_true(r.same_program);
	assert_int_equal(r.n_points, 2);
	assert_int_equal(r.points[0].makespan_base_ns, 33);
	assert_int_equal(r.points[0].makespan_other_ns, 29);
	assert_int_equal(r.points[0].diff_ns, -4);
	assert_int_equal(r.points[1].makespan_base_ns, 23);
	assert_int_equal(r.points[1].makespan_other_ns, 23);
	/* by |difference|, then the larger function */
	static const char *const order[] = {"solve", "parse", "extra", "main", "gone"};
	assert_int_equal(r.n_functions, 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(r.functions[i].name, order[i]);
	const struct ecp_compare_function *f = row(&r, "solve");
	assert_int_equal(f->diff_ns, -4);
	assert_true(fabs(f->ratio - 0.8) < 1e-12);
	assert_true(f->in_base && f->in_other);
	f = row(&r, "extra");
	assert_false(f->in_base);
	assert_true(f->in_other && isnan(f->ratio));
	f = row(&r, "gone");
	assert_true(f->in_base && !f->in_other);
	assert_true(f->ratio == 0.0);
	assert_true(row(&r, "main")->ratio == 1.5);
	/* TET at P = 1 is the work; at P = 2 parse is off the critical path */
	for (size_t i = 0; i < r.n_functions; i++) {
		f = &r.functions[i];
		assert_true(f->tet_base_ns[0] == (double)f->work_base_ns);
		assert_true(f->tet_other_ns[0] == (double)f->work_other_ns);
	}
	assert_true(row(&r, "parse")->tet_base_ns[1] == 0.0);
	assert_true(row(&r, "solve")->tet_base_ns[1] == 20.0);
	assert_true(row(&r, "solve")->tet_other_ns[1] == 16.0);
	assert_true(row(&r, "extra")->tet_other_ns[1] == 4.0);
	assert_true(row(&r, "gone")->tet_base_ns[1] == 1.0);
	ecp_compare_finish(&r);
	/* P = 0 is unlimited to the engine, never a P asked for here */
	const unsigned zero[] = {0};
	assert_int_equal(compare(&a, &b, zero, 1, &r, &err), ECP_ERR_USAGE);
	assert_int_equal(compare(&a, &b, ps, 0, &r, &err), ECP_ERR_USAGE);
	b.model.info.program = (char *)"other";
	assert_int_equal(compare(&a, &b, ps, 2, &r, &err), 0);
	assert_false(r.same_program);
	ecp_compare_finish(&r);
	fx_free(&a);
	fx_free(&b);
}

/* OTHER on 2 CPUs: parse took 15 there (x1.5); wall 30, CPU time 40.
 * W = 38, T_1 = 33, T^_2 = 23: F = 5, R = 2, I = 60 - 38 - 2 = 20,
 * I^ = 46 - 33 = 13; the gap 14 = 5 + 7 + 2. */
static void check_measured(const struct ecp_compare_result *r)
{
	assert_int_equal(r->mode, ECP_COMPARE_MEASURED);
	const struct ecp_inflation *x = &r->inflation;
	assert_int_equal(x->cpus, 2);
	assert_int_equal(x->t1_ns, 33);
	assert_int_equal(x->tn_ns, 30);
	assert_int_equal(x->tn_predicted_ns, 23);
	assert_int_equal(x->wn_ns, 38);
	assert_int_equal(x->rn_ns, 2);
	assert_int_equal(x->fn_ns, 5);
	assert_int_equal(x->in_ns, 20);
	assert_int_equal(x->in_predicted_ns, 13);
	assert_int_equal(x->gap_cpu_ns, 14);
	assert_int_equal(x->unforeseen_idle_ns, 7);
	assert_true(fabs(x->speedup_idle - 66.0 / 53.0) < 1e-12);
	assert_true(fabs(x->speedup_inflation - 66.0 / 40.0) < 1e-12);
	assert_true(fabs(x->speedup_actual - 1.1) < 1e-12);
	assert_true(fabs(x->speedup_predicted - 33.0 / 23.0) < 1e-12);
	static const char *const order[] = {"parse", "solve", "main", "gone"};
	assert_int_equal(r->n_functions, 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(r->functions[i].name, order[i]);
	assert_int_equal(r->functions[0].diff_ns, 5);
	assert_true(r->functions[0].ratio == 1.5);
	assert_null(r->functions[0].tet_base_ns);
	for (size_t i = 1; i < 4; i++)
		assert_true(r->functions[i].ratio == 1.0);
	/* threads by index: the parser inflated, the others in creation order */
	assert_int_equal(r->n_threads, 3);
	assert_int_equal(r->threads[0].index, 1);
	assert_int_equal(r->threads[0].diff_ns, 5);
	assert_true(r->threads[0].ratio == 1.5);
	assert_string_equal(r->threads[0].base->name, "parser");
	assert_int_equal(r->threads[1].index, 0);
	assert_int_equal(r->threads[1].work_base_ns, 3);
	assert_int_equal(r->threads[2].index, 2);
	assert_int_equal(r->threads[2].work_other_ns, 20);
}

static void test_measured(void **state)
{
	(void)state;
	struct fx a, b;
	build(&a, &(struct program){2, 10, 20, 0, "gone"});
	build(&b, &(struct program){2, 15, 20, 0, "gone"});
	b.model.info.recorded_cpus = 2;
	b.model.info.recorded_wall_ns = 30;
	b.model.info.program_cpu_ns = 40;
	const unsigned ps[] = {1, 2, 3};
	struct ecp_compare_result r;
	struct ecp_error err = {0};
	assert_int_equal(compare(&a, &b, ps, 3, &r, &err), 0);
	assert_false(r.swapped);
	assert_ptr_equal(r.base, &a.model);
	check_measured(&r);
	ecp_compare_finish(&r);
	/* given the other way round: exchanged, the same answer */
	assert_int_equal(compare(&b, &a, ps, 3, &r, &err), 0);
	assert_true(r.swapped);
	assert_ptr_equal(r.base, &a.model);
	assert_ptr_equal(r.other, &b.model);
	check_measured(&r);
	ecp_compare_finish(&r);
	/* a run on N CPUs whose wall time was not kept cannot be measured */
	b.model.info.recorded_wall_ns = 0;
	b.model.info.trace_path = (char *)"four.data";
	assert_int_equal(compare(&a, &b, ps, 3, &r, &err), ECP_ERR);
	assert_non_null(strstr(err.msg, "four.data"));
	/* both on several CPUs: no baseline */
	a.model.info.recorded_cpus = 4;
	assert_int_equal(compare(&a, &b, ps, 3, &r, &err), ECP_ERR);
	fx_free(&a);
	fx_free(&b);
}

/* On N CPUs the model numbers threads as they started: here the solver
 * before the parser.  Matched by creation (the parent's create at 10 ns
 * for the parser, 20 ns for the solver), the parser meets the parser. */
static struct ecp_edge created_edges[2] = {{0, 2, ECP_EDGE_CREATE},
					   {1, 3, ECP_EDGE_CREATE}};

static void record_creates(struct fx *f)
{
	f->model.edges = created_edges;
	f->model.n_edges = 2;
	f->model.segments[0].rec_end = 10;
	f->model.segments[1].rec_end = 20;
	f->model.segments[1].first_in = 0;
	f->model.segments[2].first_in = 0;
	f->model.segments[3].first_in = 1;
}

static void test_threads_by_creation(void **state)
{
	(void)state;
	struct fx a, b;
	build(&a, &(struct program){2, 10, 20, 0, "gone"});
	build(&b, &(struct program){2, 15, 20, 0, "gone"});
	record_creates(&a);
	record_creates(&b);
	struct ecp_thread t = b.model.threads[1];
	b.model.threads[1] = b.model.threads[2];
	b.model.threads[2] = t;
	b.model.info.recorded_cpus = 2;
	b.model.info.recorded_wall_ns = 30;
	struct ecp_compare_result r;
	struct ecp_error err = {0};
	assert_int_equal(compare(&a, &b, NULL, 0, &r, &err), 0);
	assert_int_equal(r.n_threads, 3);
	for (size_t i = 0; i < 3; i++) {
		const struct ecp_compare_thread *x = &r.threads[i];
		assert_string_equal(x->base->name, x->other->name);
		assert_int_equal(x->diff_ns, x->index == 1 ? 5 : 0);
	}
	assert_int_equal(r.threads[0].index, 1);
	ecp_compare_finish(&r);
	a.model.edges = b.model.edges = NULL;
	fx_free(&a);
	fx_free(&b);
}

/* ---- random recordings ---- */

static void scale_model(struct fx *f, uint64_t k)
{
	for (uint32_t s = 0; s < f->model.n_segments; s++)
		f->model.segments[s].length *= k;
	for (uint64_t i = 0; i < f->model.n_activities; i++) {
		f->model.activities[i].self_ns *= k;
		f->model.activities[i].incl_ns *= k;
	}
}

/* Each row's TET at each P against the engine's own analysis. */
static void assert_tet_is_engines(const struct fx *f, const struct ecp_compare_result *r,
				  const unsigned *ps, size_t n, bool other)
{
	struct ecp_error err = {0};
	for (size_t i = 0; i < n; i++) {
		struct ecp_analysis a;
		assert_int_equal(ecp_analyze(&f->model, &f->dag, ps[i], NULL, &a, &err),
				 0);
		assert_int_equal(other ? r->points[i].makespan_other_ns
				       : r->points[i].makespan_base_ns,
				 a.makespan_ns);
		for (size_t k = 0; k < a.n_functions; k++) {
			const struct ecp_compare_function *x =
			    row(r, f->model.functions[a.functions[k].function].name);
			if (!x) /* no work on either side */
				continue;
			double tet = other ? x->tet_other_ns[i] : x->tet_base_ns[i];
			assert_true(tet == a.functions[k].tet_ns);
		}
		ecp_analysis_finish(&a);
	}
}

static void random_before_after(struct fx *a, struct fx *b)
{
	const unsigned ps[] = {1, 2, 3, 5};
	struct ecp_compare_result r;
	struct ecp_error err = {0};
	assert_int_equal(compare(a, b, ps, 4, &r, &err), 0);
	assert_int_equal(r.mode, ECP_COMPARE_BEFORE_AFTER);
	for (size_t i = 0; i < r.n_points; i++)
		assert_int_equal(r.points[i].diff_ns, 0);
	for (size_t k = 0; k < r.n_functions; k++) {
		assert_int_equal(r.functions[k].diff_ns, 0);
		assert_true(r.functions[k].ratio == 1.0);
		for (size_t i = 0; i < r.n_points; i++)
			assert_true(r.functions[k].tet_base_ns[i] ==
				    r.functions[k].tet_other_ns[i]);
	}
	assert_tet_is_engines(a, &r, ps, 4, false);
	assert_tet_is_engines(b, &r, ps, 4, true);
	ecp_compare_finish(&r);
}

/* OTHER: BASE's recording with every length doubled, measured on N. */
static void random_measured(struct fx *a, struct fx *b, uint64_t *seed)
{
	scale_model(b, 2);
	struct ecp_model_info *info = &b->model.info;
	info->recorded_cpus = 2 + splitmix(seed) % 7;
	info->recorded_wall_ns = 1 + splitmix(seed) % 100000000;
	info->program_cpu_ns = splitmix(seed) % 3 ? splitmix(seed) % 100000000 : 0;
	const unsigned ps[] = {1};
	struct ecp_compare_result r;
	struct ecp_error err = {0};
	bool swap = splitmix(seed) % 2;
	assert_int_equal(
	    swap ? compare(b, a, ps, 1, &r, &err) : compare(a, b, ps, 1, &r, &err), 0);
	assert_int_equal(r.swapped, swap);
	struct ecp_analysis one, at_n;
	assert_int_equal(ecp_analyze(&a->model, &a->dag, 1, NULL, &one, &err), 0);
	assert_int_equal(ecp_analyze(&a->model, &a->dag, (unsigned)info->recorded_cpus,
				     NULL, &at_n, &err),
			 0);
	struct ecp_inflation_input in = {
	    info->recorded_cpus,           one.makespan_ns,
	    info->recorded_wall_ns,        at_n.makespan_ns,
	    2 * ecp_model_work(&a->model), info->program_cpu_ns};
	assert_accounting(&in, &r.inflation);
	for (size_t k = 0; k < r.n_functions; k++)
		assert_true(r.functions[k].ratio == 2.0);
	ecp_analysis_finish(&one);
	ecp_analysis_finish(&at_n);
	ecp_compare_finish(&r);
}

static void test_random_models(void **state)
{
	(void)state;
	unsigned ran = 0;
	for (uint64_t m = 0; m < 300; m++) {
		struct random_dag_opts o = {.max_threads = 6,
					    .min_segments = 4,
					    .spread = 30,
					    .delays = m % 3 == 0,
					    .wide_lengths = true,
					    .functions = 5};
		struct fx a, b;
		uint64_t sa = 1000 + m, sb = 1000 + m, seed = m + 1;
		random_dag(&a, &sa, &o);
		random_dag(&b, &sb, &o);
		random_before_after(&a, &b);
		random_measured(&a, &b, &seed);
		fx_free(&a);
		fx_free(&b);
		ran++;
	}
	assert_int_equal(ran, 300);
}

/* Three runs on N = 2 with T_N 30, 10, 20: the median (20) is shown; each
 * function's range covers every run that has it (g only in two); a run on
 * another N, or a before/after one, is refused naming it. */
static void test_spread(void **state)
{
	(void)state;
	struct ecp_compare_function f[3][2] = {
	    {{.name = "f", .ratio = 1.5}, {.name = "g", .ratio = 2.0}},
	    {{.name = "f", .ratio = 1.1}, {.name = "h", .ratio = 9.0}},
	    {{.name = "g", .ratio = 3.0}, {.name = "f", .ratio = 1.3}}};
	struct ecp_compare_thread t[3][1] = {{{.index = 0, .ratio = 1.0}},
					     {{.index = 0, .ratio = 1.2}},
					     {{.index = 0, .ratio = 0.9}}};
	struct ecp_compare_result r[3];
	const int64_t tn[3] = {30, 10, 20};
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 3; i++) {
		r[i].mode = ECP_COMPARE_MEASURED;
		r[i].inflation.cpus = 2;
		r[i].inflation.tn_ns = tn[i];
		r[i].functions = f[i];
		r[i].n_functions = 2;
		r[i].threads = t[i];
		r[i].n_threads = 1;
	}
	struct ecp_compare_spread sp;
	struct ecp_error err = {0};
	assert_int_equal(ecp_compare_spread_of(r, 3, &sp, &err), 0);
	assert_int_equal(sp.runs, 3);
	assert_int_equal(sp.median, 2);
	assert_int_equal(sp.tn_min_ns, 10);
	assert_int_equal(sp.tn_max_ns, 30);
	/* the median run's rows: g, then f */
	assert_true(sp.fn_min[0] == 2.0 && sp.fn_max[0] == 3.0);
	assert_true(sp.fn_min[1] == 1.1 && sp.fn_max[1] == 1.5);
	assert_true(sp.th_min[0] == 0.9 && sp.th_max[0] == 1.2);
	ecp_compare_spread_finish(&sp);
	r[1].inflation.cpus = 4;
	assert_int_equal(ecp_compare_spread_of(r, 3, &sp, &err), ECP_ERR);
	assert_non_null(strstr(err.msg, "OTHER #2"));
	assert_non_null(strstr(err.msg, "another count of CPUs"));
	r[1].inflation.cpus = 2;
	r[0].mode = ECP_COMPARE_BEFORE_AFTER;
	assert_int_equal(ecp_compare_spread_of(r, 3, &sp, &err), ECP_ERR);
	assert_non_null(strstr(err.msg, "OTHER #1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mode_of),
	    cmocka_unit_test(test_identity_random),
	    cmocka_unit_test(test_inflation_by_hand),
	    cmocka_unit_test(test_before_after),
	    cmocka_unit_test(test_measured),
	    cmocka_unit_test(test_threads_by_creation),
	    cmocka_unit_test(test_random_models),
	    cmocka_unit_test(test_spread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
