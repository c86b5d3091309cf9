/* SPDX-License-Identifier: MIT */
#include "viz/segments-csv.h"

#include "viz/csv.h"

int ecp_segments_csv_write(FILE *out, const struct ecp_segments_csv *in,
			   struct ecp_error *err)
{
	struct ecp_csv_writer w;
	ecp_csv_init(&w, out);
	static const char *const header[] = {"thread",   "thread_name", "segment",
					     "start_ns", "end_ns",      "length_ns",
					     "weight",   "top_function"};
	for (size_t i = 0; i < sizeof(header) / sizeof(header[0]); i++)
		ecp_csv_string(&w, header[i]);
	ecp_csv_end_row(&w);
	for (size_t i = 0; i < in->count; i++) {
		const struct ecp_segment_row *r = &in->rows[i];
		if (r->thread >= in->thread_count)
			return ecp_error_set(
			    err, ECP_ERR_USAGE,
			    "segment row #%zu: thread %u out of range (%zu threads)", i,
			    r->thread, in->thread_count);
		if (r->top_function != ECP_VIZ_NO_FUNCTION &&
		    r->top_function >= in->function_count)
			return ecp_error_set(err, ECP_ERR_USAGE,
					     "segment row #%zu: function %u out of range",
					     i, r->top_function);
		ecp_csv_uint(&w, r->thread);
		ecp_csv_string(&w, in->thread_names ? in->thread_names[r->thread] : NULL);
		ecp_csv_uint(&w, r->segment);
		ecp_csv_int(&w, r->start_ns);
		ecp_csv_int(&w, r->end_ns);
		ecp_csv_int(&w, r->length_ns);
		ecp_csv_double(&w, r->weight);
		ecp_csv_string(&w, r->top_function == ECP_VIZ_NO_FUNCTION
				       ? NULL
				       : in->function_names[r->top_function]);
		ecp_csv_end_row(&w);
	}
	return ecp_csv_finish(&w, err);
}
