/* SPDX-License-Identifier: MIT */
/* LTTng-UST tracepoint provider `ecp_sched`: the context switches of the
 * recorded program's CPU, written by the `ecp record` driver from perf
 * records after the fact (so `ts` carries the time of the switch; the event's
 * own timestamp is only the time the driver wrote it).  Schema:
 * recorder/EVENTS.md.  Compiled into libecp-sched.so, which the driver loads
 * with dlopen once its private session daemon runs (see sched-emit.c). */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ecp_sched

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "recorder/ecp-sched-tp.h"

#if !defined(ECP_RECORDER_ECP_SCHED_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define ECP_RECORDER_ECP_SCHED_TP_H

#include <stdint.h>

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(ecp_sched, switch,
	LTTNG_UST_TP_ARGS(uint64_t, a_ts, int64_t, a_tid, uint8_t, a_out, uint8_t, a_preempt),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, ts, a_ts)
		lttng_ust_field_integer(int64_t, tid, a_tid)
		lttng_ust_field_integer(uint8_t, out, a_out)
		lttng_ust_field_integer(uint8_t, preempt, a_preempt)))

/* A clock anchor: CLOCK_MONOTONIC and the TSC read at the same instant
 * (the TSC is the midpoint of two reads around the clock's). */
LTTNG_UST_TRACEPOINT_EVENT(ecp_sched, clock,
	LTTNG_UST_TP_ARGS(uint64_t, a_mono, uint64_t, a_tsc),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, mono, a_mono)
		lttng_ust_field_integer(uint64_t, tsc, a_tsc)))

LTTNG_UST_TRACEPOINT_EVENT(ecp_sched, lost,
	LTTNG_UST_TP_ARGS(uint64_t, a_count),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, count, a_count)))

LTTNG_UST_TRACEPOINT_EVENT(ecp_sched, comm,
	LTTNG_UST_TP_ARGS(int64_t, a_tid, int64_t, a_pid, const char *, a_name),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int64_t, tid, a_tid)
		lttng_ust_field_integer(int64_t, pid, a_pid)
		lttng_ust_field_string(name, a_name)))

/* A thread or process made (exit 0) or ended (exit 1), from perf's fork
 * and exit records: `ts` when it happened, `pid` its process. */
LTTNG_UST_TRACEPOINT_EVENT(ecp_sched, task,
	LTTNG_UST_TP_ARGS(int64_t, a_tid, int64_t, a_ppid, int64_t, a_ptid, uint8_t, a_exit,
			  uint64_t, a_ts, int64_t, a_pid),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int64_t, tid, a_tid)
		lttng_ust_field_integer(int64_t, ppid, a_ppid)
		lttng_ust_field_integer(int64_t, ptid, a_ptid)
		lttng_ust_field_integer(uint8_t, exit, a_exit)
		lttng_ust_field_integer(uint64_t, ts, a_ts)
		lttng_ust_field_integer(int64_t, pid, a_pid)))

/* A sample (perf cpu-clock, issue 18): the user registers in DWARF order
 * (none when the kernel gave none), the frame-pointer call chain (user pc
 * first) and the top of the user stack from the stack pointer up (unwound
 * offline by the reader with libdw).  The stack's bytes are a string,
 * `stack_zr`, in COBS with zero runs (common/cobs.h), which babeltrace2
 * reads in bulk; the reader still takes the traces before: `stack` in
 * COBS (issue 35), or a sequence of 64-bit words (before issue 35). */
LTTNG_UST_TRACEPOINT_EVENT(ecp_sched, sample,
	LTTNG_UST_TP_ARGS(uint64_t, a_ts, int64_t, a_tid, const uint64_t *, a_regs,
			  uint32_t, a_nregs, const uint64_t *, a_chain, uint32_t, a_nchain,
			  const char *, a_stack_zr),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, ts, a_ts)
		lttng_ust_field_integer(int64_t, tid, a_tid)
		lttng_ust_field_sequence_hex(uint64_t, regs, a_regs, uint32_t, a_nregs)
		lttng_ust_field_sequence_hex(uint64_t, chain, a_chain, uint32_t, a_nchain)
		lttng_ust_field_string(stack_zr, a_stack_zr)))

/* A file mapping of the program (perf MMAP2): where each object is. */
LTTNG_UST_TRACEPOINT_EVENT(ecp_sched, mmap,
	LTTNG_UST_TP_ARGS(uint64_t, a_start, uint64_t, a_len, uint64_t, a_pgoff,
			  uint32_t, a_prot, const char *, a_path),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, start, a_start)
		lttng_ust_field_integer(uint64_t, len, a_len)
		lttng_ust_field_integer(uint64_t, pgoff, a_pgoff)
		lttng_ust_field_integer(uint32_t, prot, a_prot)
		lttng_ust_field_string(path, a_path)))

/* Samples the kernel dropped (the ring buffer was full). */
LTTNG_UST_TRACEPOINT_EVENT(ecp_sched, sample_lost,
	LTTNG_UST_TP_ARGS(uint64_t, a_count),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, count, a_count)))

#endif /* ECP_RECORDER_ECP_SCHED_TP_H */

#include <lttng/tracepoint-event.h>
