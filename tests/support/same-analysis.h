/* SPDX-License-Identifier: MIT */
/* Two analyses of the same P the same, bit for bit: for the tests whose
 * two paths must add the same terms in the same order (a sweep's batches
 * against one P at a time, a sweep that frees what it has read against
 * one that keeps it).  Include after <cmocka.h>. */
#ifndef ECP_TESTS_SUPPORT_SAME_ANALYSIS_H
#define ECP_TESTS_SUPPORT_SAME_ANALYSIS_H

#include "ecp/analysis.h"

static inline void assert_same_analysis(const struct ecp_analysis *x,
					const struct ecp_analysis *y)
{
	assert_int_equal(x->processors, y->processors);
	assert_int_equal(x->makespan_ns, y->makespan_ns);
	assert_int_equal(x->idle_ns, y->idle_ns);
	assert_int_equal(x->weights_exact, y->weights_exact);
	assert_int_equal(x->n_functions, y->n_functions);
	for (size_t i = 0; i < x->n_functions; i++) {
		const struct ecp_function_result *a = &x->functions[i],
						 *b = &y->functions[i];
		assert_int_equal(a->function, b->function);
		assert_int_equal(a->calls, b->calls);
		assert_memory_equal(&a->tet_ns, &b->tet_ns, sizeof(double));
		assert_memory_equal(&a->tetid_ns, &b->tetid_ns, sizeof(double));
		assert_memory_equal(&a->idle_ns, &b->idle_ns, sizeof(double));
		assert_memory_equal(&a->work_ns, &b->work_ns, sizeof(double));
		assert_memory_equal(&a->span_ns, &b->span_ns, sizeof(double));
		assert_memory_equal(&a->span_incl_ns, &b->span_incl_ns, sizeof(double));
		assert_int_equal(a->inexact, b->inexact);
	}
}

#endif
