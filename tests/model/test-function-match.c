/* SPDX-License-Identifier: MIT */
/* Unit tests of how `ecp whatif --faster NAME` finds functions
 * (simulator/model/function-match.h): exact, glob, without the parameter list,
 * a part of one name; ambiguity is an answer of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "simulator/model/function-match.h"

static const char *const names[] = {
    "main",
    "ns::Lexer::parse(char const*) const",
    "parse_args(int, char**)",
    "(anonymous namespace)::worker(Queue&, int)",
    "std::vector<int, std::allocator<int> >::push_back(int const&)",
    "std::sort<int*>(int*, int*)",
    "compute <- main (a.c:10)",
    "compute <- run (a.c:20)",
    "ns::(anonymous namespace)::helper",
    "stage",
    "stage [inlined]",
    "ns::score(int) [inlined]",
};
#define N_NAMES (sizeof(names) / sizeof(names[0]))

static struct ecp_function functions[N_NAMES];
static struct ecp_model model;

static void expect(const char *pattern, enum ecp_match_kind kind, size_t n)
{
	struct ecp_function_match fm;
	assert_int_equal(ecp_match_functions(&model, pattern, &fm), 0);
	if (fm.kind != kind || fm.n != n)
		fail_msg("'%s': kind %d with %zu functions, want kind %d with %zu",
			 pattern, (int)fm.kind, fm.n, (int)kind, n);
	ecp_function_match_free(&fm);
}

static void test_base_len(void **state)
{
	(void)state;
	assert_int_equal(ecp_function_base_len("ns::f<int>(int) const"), 10);
	assert_int_equal(ecp_function_base_len("(anonymous namespace)::w(Q&, int)"), 24);
	assert_int_equal(ecp_function_base_len("ns::(anonymous namespace)::helper"), 33);
	assert_int_equal(ecp_function_base_len("compute <- main (a.c:10)"), 7);
	assert_int_equal(ecp_function_base_len("plain"), 5);
	assert_int_equal(ecp_function_base_len("g(h(int))"), 1);
	assert_int_equal(ecp_function_base_len("stage [inlined]"), 5);
	assert_int_equal(ecp_function_base_len("ns::score(int) [inlined]"), 9);
}

static void test_matching(void **state)
{
	(void)state;
	expect("main", ECP_MATCH_EXACT, 1);
	expect("parse", ECP_MATCH_BASE, 1);
	expect("Lexer::parse", ECP_MATCH_BASE, 1);
	expect("worker", ECP_MATCH_BASE, 1);
	expect("helper", ECP_MATCH_BASE, 1);
	expect("std::*", ECP_MATCH_GLOB, 2);
	expect("*::push_back", ECP_MATCH_GLOB, 1);
	expect("push_b", ECP_MATCH_PART, 1);
	/* the call sites of one function are one name */
	expect("compute", ECP_MATCH_BASE, 2);
	/* parse and parse_args: which one is not guessed */
	expect("pars", ECP_MATCH_AMBIGUOUS, 2);
	expect("nothing", ECP_MATCH_NONE, 0);
	/* a glob that matches nothing is not looked up literally */
	expect("zz*", ECP_MATCH_NONE, 0);
	/* "arse" is not a qualified part of "parse": a part of one name */
	expect("arse_", ECP_MATCH_PART, 1);
	/* a function and its inlined copies are one function */
	expect("stage", ECP_MATCH_EXACT, 2);
	expect("score", ECP_MATCH_BASE, 1);
	expect("ns::score(int)", ECP_MATCH_EXACT, 1);
}

int main(void)
{
	for (size_t i = 0; i < N_NAMES; i++)
		functions[i].name = names[i];
	model.functions = functions;
	model.n_functions = N_NAMES;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_base_len),
	    cmocka_unit_test(test_matching),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
