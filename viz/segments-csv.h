/* SPDX-License-Identifier: MIT */
/* `ecp export --format csv`: the segments of the simulated P-processor run
 * with their ECP weights, one CSV record per segment:
 *
 *   thread,thread_name,segment,start_ns,end_ns,length_ns,weight,top_function
 *
 * start_ns/end_ns are the segment's simulated interval at P (it may last
 * longer than its CPU time when it shares processors), length_ns its CPU
 * time, weight its ECP weight at P, top_function the function that used
 * most of its CPU time (empty if none).  Quoting as in viz/csv.h. */
#ifndef ECP_VIZ_SEGMENTS_CSV_H
#define ECP_VIZ_SEGMENTS_CSV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

#define ECP_VIZ_NO_FUNCTION UINT32_MAX

struct ecp_segment_row {
	uint32_t thread;  /* index into thread_names */
	uint64_t segment; /* the segment's id (index in the model) */
	int64_t start_ns, end_ns;
	int64_t length_ns;
	double weight;
	uint32_t top_function; /* index into function_names or ECP_VIZ_NO_FUNCTION */
};

struct ecp_segments_csv {
	size_t thread_count;
	const char *const *thread_names;
	size_t function_count;
	const char *const *function_names;
	size_t count;
	const struct ecp_segment_row *rows;
};

int ecp_segments_csv_write(FILE *out, const struct ecp_segments_csv *in,
			   struct ecp_error *err);

#endif
