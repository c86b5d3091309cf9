/* SPDX-License-Identifier: MIT */
/* ecp compare's answer (computed by ecp/compare.h): a table for people,
 * JSON and CSV for scripts, an HTML page, in either mode (before/after, or
 * measured at N). */
#ifndef ECP_ANSWERS_COMPARE_H
#define ECP_ANSWERS_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "answers/format.h"
#include "common/error.h"
#include "ecp/compare-spread.h"
#include "ecp/compare.h"
#include "simulator/model/consistency.h"

/* One recording as the answer shows it. */
struct ecp_compare_side {
	const char *dir;
	const struct ecp_model *model;
	uint64_t work_ns, span_ns; /* of its DAG */
	const struct ecp_consistency *consistency;
};

struct ecp_compare_view {
	const struct ecp_compare_result *r;
	/* after any exchange: base is the single-CPU side in measured mode */
	struct ecp_compare_side base, other;
	size_t rows; /* functions and threads shown */
	/* several OTHER recordings: their spread (the answer is the median
	 * run's), else NULL */
	const struct ecp_compare_spread *spread;
};

/* The table, CSV or JSON.  Returns 0, or -1 with *err set. */
int ecp_compare_write(FILE *out, enum ecp_format format, const struct ecp_compare_view *v,
		      struct ecp_error *err);
int ecp_compare_write_table(FILE *out, const struct ecp_compare_view *v,
			    struct ecp_error *err);
int ecp_compare_write_json(FILE *out, const struct ecp_compare_view *v,
			   struct ecp_error *err);
int ecp_compare_write_csv(FILE *out, const struct ecp_compare_view *v,
			  struct ecp_error *err);
/* The HTML page (--html FILE): speedup curves, factored speedups at N,
 * per-function ratio bars (the first `rows` functions).  Returns 0, or -1
 * with *err set. */
int ecp_compare_write_html(FILE *out, const struct ecp_compare_view *v,
			   struct ecp_error *err);

/* "#2 Sorter (4711)": a thread by its place in the order of creation,
 * its name (else its start routine's) and its tid. */
void ecp_compare_thread_label(const struct ecp_model *m, const struct ecp_thread *t,
			      uint32_t index, char *buf, size_t len);

#endif
