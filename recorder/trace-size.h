/* SPDX-License-Identifier: MIT */
/* The size on disk of a recorded trace directory, for the `ecp record`
 * summary.  Its events and threads come from the model that `ecp record`
 * builds after the run (to check it, and for the cache the first analysis
 * uses): the trace is decoded once, not a second time to be counted
 * (issue 35). */
#ifndef ECP_RECORDER_TRACE_SIZE_H
#define ECP_RECORDER_TRACE_SIZE_H

#include <stdint.h>

uint64_t ecp_trace_bytes(const char *dir);

#endif
