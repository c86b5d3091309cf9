/* SPDX-License-Identifier: MIT */
/* The run-to-run spread of several recordings on N CPUs (`ecp compare BASE
 * OTHER OTHER...`): each compared with the same one-CPU BASE, the answer
 * shown is the run whose measured T_N is the median, and beside each of its
 * functions and threads the lowest and highest inflation over all the runs
 * -- how far one recording's inflation can be trusted. */
#ifndef ECP_ECP_COMPARE_SPREAD_H
#define ECP_ECP_COMPARE_SPREAD_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "ecp/compare.h"

struct ecp_compare_spread {
	size_t runs;
	size_t median; /* the run shown */
	int64_t tn_min_ns, tn_max_ns;
	/* per row of the median run's functions and threads, in their order;
	 * NaN where no run had a ratio */
	double *fn_min, *fn_max;
	double *th_min, *th_max;
};

/* From the n results of ecp_compare (each measured at the same N, none
 * exchanged): ECP_ERR naming the run when one is not. */
int ecp_compare_spread_of(const struct ecp_compare_result *runs, size_t n,
			  struct ecp_compare_spread *out, struct ecp_error *err);
void ecp_compare_spread_finish(struct ecp_compare_spread *s);

#endif
