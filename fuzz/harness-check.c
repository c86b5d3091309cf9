/* SPDX-License-Identifier: MIT */
/* The checks every model handed over by the library must survive. */
#include "fuzz/harness.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/error.h"
#include "ecp/analysis.h"
#include "simulator/model/dag.h"

void ecp_fuzz_note(const char *what, const struct ecp_error *err)
{
	static int verbose = -1;
	if (verbose < 0)
		verbose = getenv("ECP_FUZZ_VERBOSE") != NULL;
	if (verbose)
		fprintf(stderr, "%s: %s\n", what, err ? err->msg : "ok");
}

void ecp_fuzz_check_model(const struct ecp_model *m, const char *what)
{
	struct ecp_error err = {0};
	/* The consumers trust a model's structure (indices, order, acyclicity)
	 * without re-checking it: one the library hands over invalid is a bug
	 * even if nothing crashes on it yet. */
	if (ecp_model_validate(m, &err) < 0) {
		fprintf(stderr, "fuzz: the %s handed over an invalid model: %s\n", what,
			err.msg);
		abort();
	}
	static const enum ecp_lock_policy policies[] = {ECP_LOCK_ORDER_ARRIVAL,
							ECP_LOCK_ORDER_RECORDED};
	static const unsigned procs[] = {1, 2, ECP_UNLIMITED};
	for (size_t p = 0; p < 2; p++) {
		struct ecp_dag dag;
		if (ecp_dag_build(m, NULL, policies[p], &dag, &err) < 0) {
			/* e.g. a recorded order that deadlocks: an answer */
			ecp_fuzz_note("dag", &err);
			continue;
		}
		for (size_t k = 0; k < 3; k++) {
			struct ecp_analysis a;
			if (ecp_analyze(m, &dag, procs[k], NULL, &a, &err) == 0) {
				ecp_fuzz_note("analysis", NULL);
				ecp_analysis_finish(&a);
			} else {
				ecp_fuzz_note("analysis", &err);
			}
		}
		ecp_dag_finish(&dag);
	}
}
