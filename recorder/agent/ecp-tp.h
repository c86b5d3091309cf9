/* SPDX-License-Identifier: MIT */
/* LTTng-UST tracepoint provider `ecp`: the events the agent (libecp-record.so)
 * writes inside the recorded program.  The schema is recorder/EVENTS.md; keep
 * both in step (field names, order and meaning).
 *
 * Integer widths: addresses, identifiers, counts and times are 64-bit;
 * flags and small enumerations (kind, mode, try, ok, serial, ran) are 8-bit;
 * errno values, fds and exit statuses are signed 32-bit; delay_end's `ret`
 * (a syscall result, e.g. bytes read) is signed 64-bit.  Every
 * non-function event ends with `cpu_ns`: the thread's CLOCK_THREAD_CPUTIME_ID
 * when the trace's clock is thread-cputime, else 0.
 *
 * Event argument names are prefixed `a_` so that none of them
 * collides with a macro or keyword (`try`, `type`). */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ecp

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "recorder/agent/ecp-tp.h"

#if !defined(ECP_RECORDER_ECP_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define ECP_RECORDER_ECP_TP_H

#include <stdint.h>

#include <lttng/tracepoint.h>

/* Function times are raw TSC values (`tsc`, `total_tsc`), converted by the
 * reader through the `ecp_sched:clock` anchors. */
LTTNG_UST_TRACEPOINT_EVENT(ecp, func_entry,
	LTTNG_UST_TP_ARGS(uint64_t, a_addr,
		uint64_t, a_call_site,
		uint64_t, a_tsc),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, addr, a_addr)
		lttng_ust_field_integer_hex(uint64_t, call_site, a_call_site)
		lttng_ust_field_integer(uint64_t, tsc, a_tsc)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, func_exit,
	LTTNG_UST_TP_ARGS(uint64_t, a_addr,
		uint64_t, a_tsc),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, addr, a_addr)
		lttng_ust_field_integer(uint64_t, tsc, a_tsc)))

/* Function records in batches (issue 35, recorder/agent/func-batch.h): `n`
 * records, their bytes COBS-encoded (common/cobs.h) as one string. */
LTTNG_UST_TRACEPOINT_EVENT(ecp, func_batch,
	LTTNG_UST_TP_ARGS(uint32_t, a_n,
		const char *, a_records),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, n, a_n)
		lttng_ust_field_string(records, a_records)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, func_folded,
	LTTNG_UST_TP_ARGS(uint64_t, a_addr,
		uint64_t, a_calls,
		uint64_t, a_total_tsc),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, addr, a_addr)
		lttng_ust_field_integer(uint64_t, calls, a_calls)
		lttng_ust_field_integer(uint64_t, total_tsc, a_total_tsc)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, func_unwound,
	LTTNG_UST_TP_ARGS(uint64_t, a_addr,
		uint64_t, a_tsc),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, addr, a_addr)
		lttng_ust_field_integer(uint64_t, tsc, a_tsc)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, thread_create,
	LTTNG_UST_TP_ARGS(uint64_t, a_create_id,
		uint64_t, a_start_routine,
		uint8_t, a_ok,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, create_id, a_create_id)
		lttng_ust_field_integer_hex(uint64_t, start_routine, a_start_routine)
		lttng_ust_field_integer(uint8_t, ok, a_ok)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, thread_start,
	LTTNG_UST_TP_ARGS(uint64_t, a_create_id,
		uint64_t, a_start_routine,
		uint64_t, a_handle,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, create_id, a_create_id)
		lttng_ust_field_integer_hex(uint64_t, start_routine, a_start_routine)
		lttng_ust_field_integer_hex(uint64_t, handle, a_handle)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, thread_exit,
	LTTNG_UST_TP_ARGS(uint64_t, a_handle,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, handle, a_handle)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, thread_join_begin,
	LTTNG_UST_TP_ARGS(uint64_t, a_handle,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, handle, a_handle)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, thread_join_end,
	LTTNG_UST_TP_ARGS(uint64_t, a_handle,
		uint8_t, a_ok,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, handle, a_handle)
		lttng_ust_field_integer(uint8_t, ok, a_ok)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, thread_detach,
	LTTNG_UST_TP_ARGS(uint64_t, a_handle,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, handle, a_handle)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, thread_name,
	LTTNG_UST_TP_ARGS(const char *, a_name,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(name, a_name)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, process_exit,
	LTTNG_UST_TP_ARGS(int32_t, a_status,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int32_t, status, a_status)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, lock_init,
	LTTNG_UST_TP_ARGS(uint64_t, a_obj,
		uint8_t, a_kind,
		uint8_t, a_type,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, obj, a_obj)
		lttng_ust_field_integer(uint8_t, kind, a_kind)
		lttng_ust_field_integer(uint8_t, type, a_type)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, lock_request,
	LTTNG_UST_TP_ARGS(uint64_t, a_obj,
		uint8_t, a_kind,
		uint8_t, a_mode,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, obj, a_obj)
		lttng_ust_field_integer(uint8_t, kind, a_kind)
		lttng_ust_field_integer(uint8_t, mode, a_mode)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, lock_acquired,
	LTTNG_UST_TP_ARGS(uint64_t, a_obj,
		uint8_t, a_kind,
		uint8_t, a_mode,
		uint8_t, a_try,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, obj, a_obj)
		lttng_ust_field_integer(uint8_t, kind, a_kind)
		lttng_ust_field_integer(uint8_t, mode, a_mode)
		lttng_ust_field_integer(uint8_t, try, a_try)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, lock_failed,
	LTTNG_UST_TP_ARGS(uint64_t, a_obj,
		uint8_t, a_kind,
		uint8_t, a_mode,
		int32_t, a_err,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, obj, a_obj)
		lttng_ust_field_integer(uint8_t, kind, a_kind)
		lttng_ust_field_integer(uint8_t, mode, a_mode)
		lttng_ust_field_integer(int32_t, err, a_err)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, lock_release,
	LTTNG_UST_TP_ARGS(uint64_t, a_obj,
		uint8_t, a_kind,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, obj, a_obj)
		lttng_ust_field_integer(uint8_t, kind, a_kind)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, cond_wait_begin,
	LTTNG_UST_TP_ARGS(uint64_t, a_cond,
		uint64_t, a_mutex,
		uint64_t, a_timeout_ns,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, cond, a_cond)
		lttng_ust_field_integer_hex(uint64_t, mutex, a_mutex)
		lttng_ust_field_integer(uint64_t, timeout_ns, a_timeout_ns)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, cond_wait_end,
	LTTNG_UST_TP_ARGS(uint64_t, a_cond,
		uint64_t, a_mutex,
		int32_t, a_err,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, cond, a_cond)
		lttng_ust_field_integer_hex(uint64_t, mutex, a_mutex)
		lttng_ust_field_integer(int32_t, err, a_err)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, cond_signal,
	LTTNG_UST_TP_ARGS(uint64_t, a_cond,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, cond, a_cond)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, cond_broadcast,
	LTTNG_UST_TP_ARGS(uint64_t, a_cond,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, cond, a_cond)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, sem_init,
	LTTNG_UST_TP_ARGS(uint64_t, a_obj,
		uint64_t, a_value,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, obj, a_obj)
		lttng_ust_field_integer(uint64_t, value, a_value)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, sem_wait_begin,
	LTTNG_UST_TP_ARGS(uint64_t, a_obj,
		uint64_t, a_timeout_ns,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, obj, a_obj)
		lttng_ust_field_integer(uint64_t, timeout_ns, a_timeout_ns)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, sem_wait_end,
	LTTNG_UST_TP_ARGS(uint64_t, a_obj,
		int32_t, a_err,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, obj, a_obj)
		lttng_ust_field_integer(int32_t, err, a_err)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, sem_post,
	LTTNG_UST_TP_ARGS(uint64_t, a_obj,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, obj, a_obj)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, barrier_init,
	LTTNG_UST_TP_ARGS(uint64_t, a_obj,
		uint64_t, a_count,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, obj, a_obj)
		lttng_ust_field_integer(uint64_t, count, a_count)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, barrier_wait_begin,
	LTTNG_UST_TP_ARGS(uint64_t, a_obj,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, obj, a_obj)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, barrier_wait_end,
	LTTNG_UST_TP_ARGS(uint64_t, a_obj,
		uint8_t, a_serial,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, obj, a_obj)
		lttng_ust_field_integer(uint8_t, serial, a_serial)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, once_begin,
	LTTNG_UST_TP_ARGS(uint64_t, a_obj,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, obj, a_obj)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, once_end,
	LTTNG_UST_TP_ARGS(uint64_t, a_obj,
		uint8_t, a_ran,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, obj, a_obj)
		lttng_ust_field_integer(uint8_t, ran, a_ran)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, delay_begin,
	LTTNG_UST_TP_ARGS(uint8_t, a_kind,
		int32_t, a_fd,
		uint64_t, a_timeout_ns,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint8_t, kind, a_kind)
		lttng_ust_field_integer(int32_t, fd, a_fd)
		lttng_ust_field_integer(uint64_t, timeout_ns, a_timeout_ns)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, delay_end,
	LTTNG_UST_TP_ARGS(uint8_t, a_kind,
		int64_t, a_ret,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint8_t, kind, a_kind)
		lttng_ust_field_integer(int64_t, ret, a_ret)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

/* A chunk of a dynamic or guided OpenMP loop (agent-omp.c): `done` 0 when
 * the thread was handed the next chunk (its work runs until the thread's
 * next omp_chunk), 1 when the loop had no more for it. */
LTTNG_UST_TRACEPOINT_EVENT(ecp, omp_chunk,
	LTTNG_UST_TP_ARGS(uint64_t, a_loop,
		uint8_t, a_done,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, loop, a_loop)
		lttng_ust_field_integer(uint8_t, done, a_done)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

/* OpenMP tasks (agent-omp-task.c for libgomp, agent-ompt-task.c for LLVM's
 * libomp through OMPT).
 * omp_task_create on the creating thread when a task is made: `task` a
 * process-unique id > 0, `parent` the task the creator was running (0: its
 * implicit task), `site` the return address of the creating call, `flags`
 * bit 0 undeferred/included, bit 1 made by a taskloop. */
LTTNG_UST_TRACEPOINT_EVENT(ecp, omp_task_create,
	LTTNG_UST_TP_ARGS(uint64_t, a_task,
		uint64_t, a_parent,
		uint64_t, a_site,
		uint8_t, a_flags,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, task, a_task)
		lttng_ust_field_integer(uint64_t, parent, a_parent)
		lttng_ust_field_integer_hex(uint64_t, site, a_site)
		lttng_ust_field_integer(uint8_t, flags, a_flags)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

/* One per depend item, right after its task's omp_task_create: kind 1 in,
 * 2 out or inout, 3 mutexinoutset (or inoutset). */
LTTNG_UST_TRACEPOINT_EVENT(ecp, omp_task_dep,
	LTTNG_UST_TP_ARGS(uint64_t, a_task,
		uint64_t, a_addr,
		uint8_t, a_kind,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, task, a_task)
		lttng_ust_field_integer_hex(uint64_t, addr, a_addr)
		lttng_ust_field_integer(uint8_t, kind, a_kind)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

/* Around a task's body, on the thread that runs it. */
LTTNG_UST_TRACEPOINT_EVENT(ecp, omp_task_begin,
	LTTNG_UST_TP_ARGS(uint64_t, a_task,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, task, a_task)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, omp_task_end,
	LTTNG_UST_TP_ARGS(uint64_t, a_task,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, task, a_task)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

/* taskwait: phase 0 begins, 1 ends (the current task's children done). */
LTTNG_UST_TRACEPOINT_EVENT(ecp, omp_taskwait,
	LTTNG_UST_TP_ARGS(uint8_t, a_phase,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint8_t, phase, a_phase)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

/* LLVM's libomp yielded outside the waits OMPT reports (a lock's
 * back-off): the CPU time the run of yields has spun so far, up to this
 * event (agent-ompt-spin.c). */
LTTNG_UST_TRACEPOINT_EVENT(ecp, omp_spin,
	LTTNG_UST_TP_ARGS(uint64_t, a_spun_ns,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, spun_ns, a_spun_ns)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

/* taskgroup: phase 0 starts it, 1 its end's wait begins, 2 that wait ends
 * (every descendant task made in the group done). */
LTTNG_UST_TRACEPOINT_EVENT(ecp, omp_taskgroup,
	LTTNG_UST_TP_ARGS(uint8_t, a_phase,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint8_t, phase, a_phase)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

/* Futexes reached through syscall(SYS_futex, ...): libstdc++'s C++20
 * atomic wait/notify, std::latch, std::barrier, std::counting_semaphore. */
LTTNG_UST_TRACEPOINT_EVENT(ecp, futex_wait_begin,
	LTTNG_UST_TP_ARGS(uint64_t, a_addr,
		uint64_t, a_timeout_ns,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, addr, a_addr)
		lttng_ust_field_integer(uint64_t, timeout_ns, a_timeout_ns)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, futex_wait_end,
	LTTNG_UST_TP_ARGS(uint64_t, a_addr,
		int32_t, a_err,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, addr, a_addr)
		lttng_ust_field_integer(int32_t, err, a_err)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, futex_wake,
	LTTNG_UST_TP_ARGS(uint64_t, a_addr,
		uint64_t, a_count,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, addr, a_addr)
		lttng_ust_field_integer(uint64_t, count, a_count)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

/* Channels between the program's threads: pipes, socketpairs, eventfds
 * (agent-io.c).  Units are bytes, or an eventfd's counter values. */
LTTNG_UST_TRACEPOINT_EVENT(ecp, chan_open,
	LTTNG_UST_TP_ARGS(uint64_t, a_chan,
		uint64_t, a_peer,
		uint64_t, a_initial,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, chan, a_chan)
		lttng_ust_field_integer_hex(uint64_t, peer, a_peer)
		lttng_ust_field_integer(uint64_t, initial, a_initial)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, chan_write,
	LTTNG_UST_TP_ARGS(uint64_t, a_chan,
		int64_t, a_units,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, chan, a_chan)
		lttng_ust_field_integer(int64_t, units, a_units)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

LTTNG_UST_TRACEPOINT_EVENT(ecp, chan_read,
	LTTNG_UST_TP_ARGS(uint64_t, a_chan,
		int64_t, a_units,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, chan, a_chan)
		lttng_ust_field_integer(int64_t, units, a_units)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

/* A call the recorder sees but ecp does not model (or models only in
 * part), written once per process and name; `ecp record` and the model's
 * warnings name it. */
LTTNG_UST_TRACEPOINT_EVENT(ecp, unmodelled,
	LTTNG_UST_TP_ARGS(const char *, a_name,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(name, a_name)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

/* A stretch of a wrapper's own time longer than ECP_HOOK_OUTLIER_NS (a
 * sub-buffer switch, a wait for the consumer, a preemption), just ended:
 * left out of the average cost per event (agent-sync-cost.c); the reader
 * takes out the CPU time the thread had in it, from the switch records. */
LTTNG_UST_TRACEPOINT_EVENT(ecp, slow_window,
	LTTNG_UST_TP_ARGS(uint64_t, a_wall_ns,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, wall_ns, a_wall_ns)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

/* The wrappers' own time in windows that wrote no event (a read of a
 * ready descriptor: the poll that asked whether it would block), since the
 * thread's last quiet_windows event (agent-sync-cost.c): the reader takes
 * it out of the thread's clock. */
LTTNG_UST_TRACEPOINT_EVENT(ecp, quiet_windows,
	LTTNG_UST_TP_ARGS(uint64_t, a_cost_ns,
		uint64_t, a_windows,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, cost_ns, a_cost_ns)
		lttng_ust_field_integer(uint64_t, windows, a_windows)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

/* At the process's exit, on its main thread: the CPU clock of another
 * thread still alive (agent-clocks.c), its last clock reading where it
 * writes no thread_exit. */
LTTNG_UST_TRACEPOINT_EVENT(ecp, thread_clock,
	LTTNG_UST_TP_ARGS(uint64_t, a_tid,
		uint64_t, a_clock_ns,
		uint64_t, a_cpu_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, tid, a_tid)
		lttng_ust_field_integer(uint64_t, clock_ns, a_clock_ns)
		lttng_ust_field_integer(uint64_t, cpu_ns, a_cpu_ns)))

#endif /* ECP_RECORDER_ECP_TP_H */

#include <lttng/tracepoint-event.h>
