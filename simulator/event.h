/* SPDX-License-Identifier: MIT */
/* One decoded trace event, as the model builder consumes it.
 *
 * The CTF reader (reader-ctf.c) turns every `ecp:*` and `ecp_sched:*` event of
 * recorder/EVENTS.md into one of these; unit tests build models by pushing
 * synthetic sequences of them, with no trace involved.  Field use per type is
 * listed beside each type: `a`, `b`, `c` are the payload fields in the order
 * EVENTS.md gives them. */
#ifndef ECP_SIMULATOR_EVENT_H
#define ECP_SIMULATOR_EVENT_H

#include <stdbool.h>
#include <stdint.h>

enum ecp_event_type {
	ECP_EV_FUNC_ENTRY,        /* a=addr b=call_site (ts = payload ts) */
	ECP_EV_FUNC_EXIT,         /* a=addr */
	ECP_EV_FUNC_FOLDED,       /* a=addr b=calls c=total_ns */
	ECP_EV_FUNC_UNWOUND,      /* a=addr */
	ECP_EV_THREAD_CREATE,     /* a=create_id b=start_routine c=ok */
	ECP_EV_THREAD_START,      /* a=create_id b=start_routine c=handle */
	ECP_EV_THREAD_EXIT,       /* a=handle */
	ECP_EV_THREAD_JOIN_BEGIN, /* a=handle */
	ECP_EV_THREAD_JOIN_END,   /* a=handle b=ok */
	ECP_EV_THREAD_DETACH,     /* a=handle */
	ECP_EV_THREAD_NAME,       /* name in ecp_event.name */
	ECP_EV_PROCESS_EXIT,      /* a=status */
	ECP_EV_LOCK_INIT,         /* a=obj b=kind c=type */
	ECP_EV_LOCK_REQUEST,      /* a=obj b=kind c=mode */
	ECP_EV_LOCK_ACQUIRED,     /* a=obj b=kind c=mode, flags&ECP_EVF_TRY */
	ECP_EV_LOCK_FAILED,  /* a=obj b=kind c=err (errno: ETIMEDOUT for a timedlock) */
	ECP_EV_LOCK_RELEASE, /* a=obj b=kind */
	ECP_EV_COND_WAIT_BEGIN,    /* a=cond b=mutex c=timeout_ns */
	ECP_EV_COND_WAIT_END,      /* a=cond b=mutex c=err */
	ECP_EV_COND_SIGNAL,        /* a=cond */
	ECP_EV_COND_BROADCAST,     /* a=cond */
	ECP_EV_SEM_INIT,           /* a=obj b=value */
	ECP_EV_SEM_WAIT_BEGIN,     /* a=obj b=timeout_ns (UINT64_MAX = trywait) */
	ECP_EV_SEM_WAIT_END,       /* a=obj b=err */
	ECP_EV_SEM_POST,           /* a=obj */
	ECP_EV_BARRIER_INIT,       /* a=obj b=count */
	ECP_EV_BARRIER_WAIT_BEGIN, /* a=obj */
	ECP_EV_BARRIER_WAIT_END,   /* a=obj b=serial */
	ECP_EV_ONCE_BEGIN,         /* a=obj */
	ECP_EV_ONCE_END,           /* a=obj b=ran */
	ECP_EV_DELAY_BEGIN,        /* a=kind b=fd c=timeout_ns (0 = unbounded) */
	ECP_EV_DELAY_END,          /* a=kind b=ret */
	ECP_EV_SCHED_SWITCH, /* tid = switching thread, a=out b=preempt (ts = payload ts)
			      */
	ECP_EV_SCHED_LOST,   /* a=count */
	ECP_EV_FUTEX_WAIT_BEGIN, /* a=addr b=timeout_ns (0 = unbounded) */
	ECP_EV_FUTEX_WAIT_END,   /* a=addr b=err (0, EAGAIN, ETIMEDOUT, EINTR) */
	ECP_EV_FUTEX_WAKE,       /* a=addr b=count */
	ECP_EV_UNMODELLED,       /* name in ecp_event.name */
	ECP_EV_CHAN_OPEN,        /* a=chan b=peer c=initial units */
	ECP_EV_CHAN_WRITE,       /* a=chan b=units (int64: < 0 corrects a short write) */
	ECP_EV_CHAN_READ,        /* a=chan b=units */
	ECP_EV_OMP_CHUNK,        /* a=loop b=done (builder-omp.c) */
	ECP_EV_COUNT
};

enum ecp_lock_kind { ECP_LOCK_MUTEX = 0, ECP_LOCK_SPIN = 1, ECP_LOCK_RWLOCK = 2 };
enum ecp_lock_mode { ECP_LOCK_EXCLUSIVE = 0, ECP_LOCK_SHARED = 1 };

#define ECP_EVF_TRY 0x1u

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

/* One perf sample (ecp_sched:sample, issue 18), as the reader decoded it;
 * the arrays are borrowed, valid during the callback.  regs are the user
 * registers in x86_64 DWARF order (n_regs 0 when the kernel gave none),
 * chain the frame-pointer call chain (user pc first), stack the words of
 * the user stack from regs[7] (the stack pointer) up. */
struct ecp_sample {
	uint64_t ts;
	uint64_t index; /* position in the trace, for error messages */
	uint32_t tid;
	uint32_t n_regs, n_chain, n_stack;
	const uint64_t *regs, *chain, *stack;
};

/* Bounds the reader enforces (a larger array is a damaged trace). */
#define ECP_SAMPLE_MAX_REGS  32u
#define ECP_SAMPLE_MAX_CHAIN 512u
#define ECP_SAMPLE_MAX_STACK 8192u /* words: 64 KiB */

const char *ecp_event_type_name(enum ecp_event_type type);

#endif
