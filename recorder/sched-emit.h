/* SPDX-License-Identifier: MIT */
/* The functions libecp-sched.so exports for the driver (looked up with
 * dlsym after dlopen; see session.c).  Each writes one `ecp_sched` event. */
#ifndef ECP_RECORDER_SCHED_EMIT_H
#define ECP_RECORDER_SCHED_EMIT_H

#include <stdint.h>

#define ECP_SCHED_API __attribute__((visibility("default")))

#define ECP_SCHED_LIBRARY "libecp-sched.so"

ECP_SCHED_API void ecp_sched_emit_switch(uint64_t ts, int64_t tid, int out, int preempt);
ECP_SCHED_API void ecp_sched_emit_lost(uint64_t count);
ECP_SCHED_API void ecp_sched_emit_comm(int64_t tid, int64_t pid, const char *name);
ECP_SCHED_API void ecp_sched_emit_task(int64_t tid, int64_t ppid, int64_t ptid, int exit,
				       uint64_t ts, int64_t pid);
ECP_SCHED_API void ecp_sched_emit_clock(uint64_t mono, uint64_t tsc);
/* `stack`: n_stack 64-bit words, 8-byte aligned (a perf record's). */
ECP_SCHED_API void ecp_sched_emit_sample(uint64_t ts, int64_t tid, const uint64_t *regs,
					 uint32_t n_regs, const uint64_t *chain,
					 uint32_t n_chain, const void *stack,
					 uint32_t n_stack);
ECP_SCHED_API void ecp_sched_emit_mmap(uint64_t start, uint64_t len, uint64_t pgoff,
				       uint32_t prot, const char *path);
ECP_SCHED_API void ecp_sched_emit_sample_lost(uint64_t count);

struct ecp_sched_emitter {
	void *handle;
	__typeof__(&ecp_sched_emit_switch) emit_switch;
	__typeof__(&ecp_sched_emit_lost) emit_lost;
	__typeof__(&ecp_sched_emit_comm) emit_comm;
	__typeof__(&ecp_sched_emit_task) emit_task;
	__typeof__(&ecp_sched_emit_clock) emit_clock;
	__typeof__(&ecp_sched_emit_sample) emit_sample;
	__typeof__(&ecp_sched_emit_mmap) emit_mmap;
	__typeof__(&ecp_sched_emit_sample_lost) emit_sample_lost;
};

#endif
