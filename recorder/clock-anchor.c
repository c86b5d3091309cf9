/* SPDX-License-Identifier: MIT */
#include "recorder/clock-anchor.h"

#include <time.h>

#include "recorder/agent/tsc.h"

#define TRIES 5

void ecp_clock_anchor_read(uint64_t *mono, uint64_t *tsc)
{
	uint64_t best_width = UINT64_MAX;
	for (int i = 0; i < TRIES; i++) {
		struct timespec ts;
		uint64_t t0 = ecp_tsc();
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t t1 = ecp_tsc();
		if (t1 - t0 < best_width) {
			best_width = t1 - t0;
			*mono = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
			*tsc = t0 + (t1 - t0) / 2;
		}
	}
}

void ecp_clock_anchor_emit(const struct ecp_sched_emitter *em)
{
	uint64_t mono, tsc;
	ecp_clock_anchor_read(&mono, &tsc);
	em->emit_clock(mono, tsc);
}
