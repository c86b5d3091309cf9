/* SPDX-License-Identifier: MIT */
/* Clock anchors: (CLOCK_MONOTONIC, TSC) pairs that the driver writes into
 * the sched trace while the program runs (ecp_sched:clock), so that the
 * reader converts the agent's raw TSC function times to CLOCK_MONOTONIC by
 * interpolating between the two anchors around each (this VM's perf mmap
 * page offers no kernel conversion: cap_user_time_zero is 0). */
#ifndef ECP_RECORDER_CLOCK_ANCHOR_H
#define ECP_RECORDER_CLOCK_ANCHOR_H

#include <stdint.h>

#include "recorder/sched-emit.h"

/* Reads one pair: the clock between two TSC reads, the best of a few tries
 * (a try interrupted between its reads brackets the clock loosely). */
void ecp_clock_anchor_read(uint64_t *mono, uint64_t *tsc);
/* Reads a pair and writes it as an ecp_sched:clock event. */
void ecp_clock_anchor_emit(const struct ecp_sched_emitter *em);

#endif
