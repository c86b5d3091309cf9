/* SPDX-License-Identifier: MIT */
/* `ecp export --format perfetto`: the simulated P-processor run as Chrome
 * trace-event JSON, which ui.perfetto.dev and chrome://tracing open.
 *
 * Layout of the document:
 *   {"displayTimeUnit": "ns",
 *    "otherData": {"generator": "ecp", "processors": P, "trace": ...},
 *    "traceEvents": [
 *      {"ph":"M","name":"process_name", ...}, one "thread_name" and one
 *      "thread_sort_index" metadata event per thread,
 *      {"ph":"X","name":FUNCTION,"cat":"function","ts":µs,"dur":µs,
 *       "pid":..,"tid":..,"args":{"ecp":bool,"weight":w,"depth":d}}  per call,
 *      {"ph":"s",...,"id":k} / {"ph":"f","bp":"e",...,"id":k}  per dependency
 *    ]}
 *
 * Times are microseconds as JSON numbers with the nanoseconds kept as
 * decimals (the format's unit is µs).  Complete events are written per
 * thread in start order, a caller before its callees at the same start, so
 * that viewers nest them without re-sorting.  Each thread is a track (tid =
 * thread index + 1; tid 0 is avoided because some viewers treat it as
 * "no thread").
 *
 * A flow arrow binds to the slice that encloses its timestamp on its thread
 * ("s" to the enclosing slice, "f" with "bp":"e" likewise), so callers give
 * the releasing segment's end and the released segment's start: a thread
 * always has a function on its stack while it runs (its start routine), so
 * a slice is there. */
#ifndef ECP_VIZ_PERFETTO_H
#define ECP_VIZ_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

struct ecp_perfetto_slice {
	uint32_t thread;          /* index into thread_names */
	uint32_t function;        /* index into function_names */
	int64_t start_ns, end_ns; /* on the simulated timeline at P */
	uint32_t depth;           /* call depth, 0 = outermost */
	bool on_ecp;   /* the call ran in at least one segment of nonzero weight */
	double weight; /* the call's ECP weight (TETID / inclusive time) */
	bool sampled;  /* seen on sampled stacks: its ends are known to about
			* half a sample period (ECP_CALL_SAMPLED) */
};

struct ecp_perfetto_flow {
	uint32_t from_thread;
	int64_t from_ns;
	uint32_t to_thread;
	int64_t to_ns;
	const char *kind; /* "create", "join", "lock", ...; NULL -> "dependency" */
};

struct ecp_perfetto_input {
	const char *trace_path;   /* may be NULL */
	const char *process_name; /* may be NULL: "ecp simulation" */
	uint32_t processors;
	size_t thread_count;
	const char *const *thread_names;
	size_t function_count;
	const char *const *function_names;
	size_t slice_count;
	const struct ecp_perfetto_slice *slices; /* any order */
	size_t flow_count;
	const struct ecp_perfetto_flow *flows;
};

int ecp_perfetto_write(FILE *out, const struct ecp_perfetto_input *in,
		       struct ecp_error *err);

#endif
