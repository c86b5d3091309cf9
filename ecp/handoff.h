/* SPDX-License-Identifier: MIT */
/* Hand-offs between threads, as a recording saw them: a thread waiting
 * (its previous segment ended before the release that let it go) resumes
 * some time after that release -- at once on one CPU when the releasing
 * thread blocks, after a wake-up on another CPU when both run.  The ideal
 * model takes that time as 0; on N CPUs (`ecp record --cpus`) it is idle
 * the model did not foresee, and `ecp compare` says how much of that idle
 * it explains. */
#ifndef ECP_ECP_HANDOFF_H
#define ECP_ECP_HANDOFF_H

#include <stdbool.h>
#include <stdint.h>

#include "simulator/model/model.h"

struct ecp_handoffs {
	uint64_t count;    /* waits released by another thread's segment */
	uint64_t total_ns; /* from each release to the waiter's start */
	uint64_t median_ns;
};

/* Measures m's hand-offs from the recorded times of its segments (rec_start,
 * rec_end): for each segment with incoming edges, the latest release among
 * them, when its thread was already waiting then.  Returns 0, or -1 when
 * out of memory. */
int ecp_handoffs_measure(const struct ecp_model *m, struct ecp_handoffs *out);

#endif
