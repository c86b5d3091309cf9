/* SPDX-License-Identifier: MIT */
/* What `ecp compare` writes (cli/cmd-compare.c computes it with
 * ecp/compare.h): a table for people, JSON and CSV for scripts, in either
 * mode (before/after, or measured at N). */
#ifndef ECP_CLI_COMPARE_OUTPUT_H
#define ECP_CLI_COMPARE_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "cli/session.h"
#include "ecp/compare-spread.h"
#include "ecp/compare.h"

struct ecp_compare_view {
	const struct ecp_compare_result *r;
	/* the sessions and trace directories after any exchange: base is the
	 * single-CPU side in measured mode */
	const struct ecp_cli_session *base, *other;
	const char *base_dir, *other_dir;
	size_t rows; /* functions and threads shown */
	/* several OTHER recordings: their spread (the answer is the median
	 * run's), else NULL */
	const struct ecp_compare_spread *spread;
};

/* Each returns 0 or an exit code (message printed). */
int ecp_cli_compare_write_table(const struct ecp_compare_view *v);
int ecp_cli_compare_write_json(const struct ecp_compare_view *v);
int ecp_cli_compare_write_csv(const struct ecp_compare_view *v);
/* The HTML page (--html FILE): speedup curves, factored speedups at N,
 * per-function ratio bars (the first `rows` functions). */
int ecp_cli_compare_write_html(const struct ecp_compare_view *v, const char *path);

/* "#2 Sorter (4711)": a thread by its place in the order of creation,
 * its name (else its start routine's) and its tid. */
void ecp_cli_compare_thread_label(const struct ecp_model *m, const struct ecp_thread *t,
				  uint32_t index, char *buf, size_t len);

#endif
