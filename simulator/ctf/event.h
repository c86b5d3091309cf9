/* SPDX-License-Identifier: MIT */
/* One decoded trace event, as the model builder consumes it.
 *
 * The CTF reader (reader-ctf.c) turns every `ecp:*` and `ecp_sched:*` event of
 * recorder/EVENTS.md into one of these; unit tests build models by pushing
 * synthetic sequences of them, with no trace involved.  Field use per type is
 * listed beside each type: `a`, `b`, `c` are the payload fields in the order
 * EVENTS.md gives them. */
#ifndef ECP_SIMULATOR_TRACE_EVENT_H
#define ECP_SIMULATOR_TRACE_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "simulator/model/model.h" /* the lock kinds and modes events carry */
#include "simulator/symbols/sample.h"
#include "simulator/ctf/event-catalog.h"

/* One per row of the catalogue (event-catalog.h), in its order. */
enum ecp_event_type {
#define ECP_EVENT_ENUM(id, provider, name, a, b, c) ECP_EV_##id,
	ECP_EVENT_CATALOG(ECP_EVENT_ENUM)
#undef ECP_EVENT_ENUM
	    ECP_EV_COUNT
};

#define ECP_EVF_TRY 0x1u
/* omp_task_create's `flags` payload member, shifted up by 8: the task is
 * undeferred (it ran at once on its creator), made by a taskloop, recorded
 * through OMPT (LLVM's libomp runs it, not libgomp). */
#define ECP_EVF_TASK_UNDEFERRED 0x100u
#define ECP_EVF_TASK_LOOP       0x200u
#define ECP_EVF_TASK_OMPT       0x400u

struct ecp_event {
	uint64_t ts;     /* ns on the trace clock (CLOCK_MONOTONIC) */
	uint64_t cpu_ns; /* thread CPU time, only with clock=thread-cputime; else 0 */
	uint64_t a, b, c;
	uint64_t index; /* position in the trace, for error messages */
	uint32_t tid;   /* kernel thread id (vtid) */
	uint16_t type;  /* enum ecp_event_type */
	uint16_t flags;
	const char
	    *name; /* THREAD_NAME, UNMODELLED only; borrowed, valid during the push */
};

/* A thread or process made or ended (ecp_sched:task, perf's fork and exit
 * records): `pid` its process; for a new process pid == tid and ppid is
 * the parent process, ptid the thread that made it.  ts 0: not recorded
 * (traces before issue 32, which followed no child process). */
struct ecp_task {
	uint64_t ts;
	uint32_t tid, pid, ppid, ptid;
	bool exit;
};

const char *ecp_event_type_name(enum ecp_event_type type);

#endif
