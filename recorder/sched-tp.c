/* SPDX-License-Identifier: MIT */
/* libecp-sched.so: the `ecp_sched` probes and the plain functions the driver
 * calls through dlsym to write them (sched-emit.h), so that the driver itself
 * never includes the tracepoint machinery. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "recorder/ecp-sched-tp.h"

#include <stdlib.h>

#include "common/cobs.h"
#include "recorder/sched-emit.h"

ECP_SCHED_API void ecp_sched_emit_switch(uint64_t ts, int64_t tid, int out, int preempt)
{
	lttng_ust_tracepoint(ecp_sched, switch, ts, tid, (uint8_t)out, (uint8_t)preempt);
}

ECP_SCHED_API void ecp_sched_emit_lost(uint64_t count)
{
	lttng_ust_tracepoint(ecp_sched, lost, count);
}

ECP_SCHED_API void ecp_sched_emit_comm(int64_t tid, int64_t pid, const char *name)
{
	lttng_ust_tracepoint(ecp_sched, comm, tid, pid, name);
}

ECP_SCHED_API void ecp_sched_emit_task(int64_t tid, int64_t ppid, int64_t ptid, int exit,
				       uint64_t ts, int64_t pid)
{
	lttng_ust_tracepoint(ecp_sched, task, tid, ppid, ptid, (uint8_t)exit, ts, pid);
}

ECP_SCHED_API void ecp_sched_emit_clock(uint64_t mono, uint64_t tsc)
{
	lttng_ust_tracepoint(ecp_sched, clock, mono, tsc);
}

ECP_SCHED_API void ecp_sched_emit_sample(uint64_t ts, int64_t tid, const uint64_t *regs,
					 uint32_t n_regs, const uint64_t *chain,
					 uint32_t n_chain, const void *stack,
					 uint32_t n_stack)
{
	/* one allocation a sample, small beside the copy of up to 64 KiB */
	size_t bytes = (size_t)n_stack * 8;
	char *zr = malloc(ecp_cobs_zr_max(bytes));
	if (zr)
		ecp_cobs_zr_encode(stack, bytes, zr);
	/* without memory the sample keeps its call chain, not its stack */
	lttng_ust_tracepoint(ecp_sched, sample, ts, tid, regs, n_regs, chain, n_chain,
			     zr ? zr : "");
	free(zr);
}

ECP_SCHED_API void ecp_sched_emit_mmap(uint64_t start, uint64_t len, uint64_t pgoff,
				       uint32_t prot, const char *path)
{
	lttng_ust_tracepoint(ecp_sched, mmap, start, len, pgoff, prot, path);
}

ECP_SCHED_API void ecp_sched_emit_sample_lost(uint64_t count)
{
	lttng_ust_tracepoint(ecp_sched, sample_lost, count);
}
