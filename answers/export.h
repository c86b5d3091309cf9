/* SPDX-License-Identifier: MIT */
/* ecp export's answer: the simulated run on P processors (answers/simrun.h)
 * for other tools -- Chrome trace-event JSON (Perfetto), ECP-weighted
 * folded stacks, segment CSV. */
#ifndef ECP_ANSWERS_EXPORT_H
#define ECP_ANSWERS_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "answers/simrun.h"
#include "common/error.h"

enum ecp_export_format {
	ECP_EXPORT_PERFETTO = 1,
	ECP_EXPORT_FOLDED,
	ECP_EXPORT_SEGMENTS
};

struct ecp_export_answer {
	const char *trace_dir;
	const struct ecp_model *model;
	const struct ecp_dag *dag;
	const struct ecp_simrun *run;
};

/* What the folded stacks left out, for the caller to say. */
struct ecp_export_notes {
	size_t negative_stacks; /* stacks whose ECP weight is negative in total */
	double negative_ns;
	size_t truncated_calls; /* calls deeper than ECP_FOLDED_MAX_DEPTH frames */
};
#define ECP_FOLDED_MAX_DEPTH 256

/* Returns 0, or -1 with *err set; *notes is filled for the folded stacks
 * and zero otherwise. */
int ecp_export_write(FILE *out, enum ecp_export_format format,
		     const struct ecp_export_answer *ans, struct ecp_export_notes *notes,
		     struct ecp_error *err);
/* The folded stacks (export-folded.c). */
int ecp_export_write_folded(FILE *out, const struct ecp_export_answer *ans,
			    struct ecp_export_notes *notes, struct ecp_error *err);

#endif
