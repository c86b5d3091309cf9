/* Counts of a recorded trace directory for the `ecp record` summary, read
 * back with babeltrace2 (the same library the reader uses): events,
 * threads (ecp:thread_start events), discarded events (from the trace's
 * discarded-events messages) and bytes on disk. */
#ifndef ECP_RECORDER_TRACE_COUNT_H
#define ECP_RECORDER_TRACE_COUNT_H

#include <stdint.h>

#include "common/error.h"

struct ecp_trace_count {
	uint64_t events;       /* all events, both traces */
	uint64_t sched_events; /* of them, in the scheduling trace (sched/) */
	uint64_t threads;
	uint64_t discarded;
	uint64_t bytes;
};

int ecp_trace_count(const char *dir, struct ecp_trace_count *c, struct ecp_error *err);

#endif
