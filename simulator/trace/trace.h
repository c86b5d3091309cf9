/* SPDX-License-Identifier: MIT */
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
 * optional progress line.
 *
 * The CTF is decoded in a forked child process that hands the model over
 * through the model cache: babeltrace2 can crash on a damaged stream
 * file, and then the error (ECP_ERR_DECODER_CRASH) names the file instead
 * of ecp dying.  When babeltrace2 refuses a trace without crashing, the
 * message names the damaged file too. */
#ifndef ECP_SIMULATOR_TRACE_H
#define ECP_SIMULATOR_TRACE_H

#include <stdbool.h>

#include "common/error.h"
#include "simulator/model/model.h"

/* Where function time comes from in a recording that has both (issue 18). */
enum ecp_functions_from {
	ECP_FUNCTIONS_FROM_ALL = 0,    /* instrumentation, samples below it */
	ECP_FUNCTIONS_FROM_INSTRUMENT, /* entry/exit only; samples ignored */
	ECP_FUNCTIONS_FROM_SAMPLES,    /* samples only; entry/exit ignored */
};

struct ecp_load_options {
	bool allow_loss; /* analyse a lossy trace (with a warning) */
	bool use_cache;  /* read and write DIR/ecp-model.cache */
	bool keep_calls; /* fill model->calls (timelines, folded stacks) */
	/* a function per (function, call site), named "f <- caller (file:line)";
	 * cached apart (ECP_CACHE_FILE_CALLSITE) */
	bool by_callsite;
	/* not ALL: the model is not cached (a view for checking one source
	 * against the other on the same run) */
	enum ecp_functions_from functions_from;
	/* samples in system libraries (/lib, /usr/lib, the vDSO) are charged
	 * to the program's function that called them, as instrumentation
	 * sees it; not cached either */
	bool own_code;
	bool progress; /* a progress line on stderr while decoding CTF */
	/* Decode the CTF in this process, not in a child (see trace.c): for
	 * the fuzzer, whose coverage a child would not report, and only after
	 * a child has shown that decoding the input does not crash. */
	bool in_process;
	/* Do not decode each file alone to name the damaged one when
	 * babeltrace2 refuses the trace (the fuzzer's second, in-process load
	 * of an input whose first load already did). */
	bool skip_damage_probe;
};

#define ECP_LOAD_OPTIONS_DEFAULT                                                         \
	((struct ecp_load_options){.allow_loss = false,                                  \
				   .use_cache = true,                                    \
				   .keep_calls = false,                                  \
				   .by_callsite = false,                                 \
				   .functions_from = ECP_FUNCTIONS_FROM_ALL,             \
				   .own_code = false,                                    \
				   .progress = false,                                    \
				   .in_process = false,                                  \
				   .skip_damage_probe = false})

int ecp_trace_load(const char *dir, const struct ecp_load_options *opts,
		   struct ecp_model **out, struct ecp_error *err);

#endif
