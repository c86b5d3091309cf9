/* Loading a recorded trace directory into the execution model: the public
 * entry point for every analysis command.
 *
 *     struct ecp_load_options o = ECP_LOAD_OPTIONS_DEFAULT;
 *     struct ecp_model *m;
 *     if (ecp_trace_load("ecp.data", &o, &m, &err) < 0) ...
 *
 * Uses DIR/ecp-model.cache when it is valid for the trace; otherwise reads
 * DIR/ecp-record.meta, the sched trace (DIR/sched, completely, first) and
 * the program's trace (DIR/main) with babeltrace2, resolves function
 * addresses with libelf from the statedump, builds the model and writes the
 * cache.  A trace with discarded events is refused unless allow_loss (then
 * the model carries a warning).  Never exits, never prints except the
 * optional progress line. */
#ifndef ECP_SIMULATOR_TRACE_H
#define ECP_SIMULATOR_TRACE_H

#include <stdbool.h>

#include "common/error.h"
#include "simulator/model.h"

struct ecp_load_options {
	bool allow_loss; /* analyse a lossy trace (with a warning) */
	bool use_cache;  /* read and write DIR/ecp-model.cache */
	bool keep_calls; /* fill model->calls (timelines, folded stacks) */
	bool progress;   /* a progress line on stderr while decoding CTF */
};

#define ECP_LOAD_OPTIONS_DEFAULT                                                         \
	((struct ecp_load_options){.allow_loss = false,                                  \
				   .use_cache = true,                                    \
				   .keep_calls = false,                                  \
				   .progress = false})

int ecp_trace_load(const char *dir, const struct ecp_load_options *opts,
		   struct ecp_model **out, struct ecp_error *err);

#endif
