/* SPDX-License-Identifier: MIT */
/* The part of the OpenMP tools interface (OMPT, OpenMP 5.0 section 4) the
 * agent uses, declared from the specification: the agent is built by any
 * C compiler, and GCC ships no omp-tools.h.  Values and layouts are the
 * specification's (the ABI every OMPT runtime implements); only the agent's
 * agent-ompt*.c files include this.
 *
 * And what those files share: the team the thread is in (a per-thread
 * stack of implicit tasks, agent-ompt.c). */
#ifndef ECP_RECORDER_AGENT_OMPT_H
#define ECP_RECORDER_AGENT_OMPT_H

#include <stdbool.h>
#include <stdint.h>

typedef union {
	uint64_t value;
	void *ptr;
} ompt_data_t;

typedef struct {
	ompt_data_t exit_frame, enter_frame;
	int exit_frame_flags, enter_frame_flags;
} ompt_frame_t;

typedef uint64_t ompt_wait_id_t;
typedef void (*ompt_callback_t)(void);
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *name);
typedef int (*ompt_set_callback_t)(int event, ompt_callback_t callback);

typedef struct {
	int (*initialize)(ompt_function_lookup_t lookup, int initial_device,
			  ompt_data_t *tool_data);
	void (*finalize)(ompt_data_t *tool_data);
	ompt_data_t tool_data;
} ompt_start_tool_result_t;

typedef struct {
	ompt_data_t variable;
	int dependence_type;
} ompt_dependence_t;

enum { /* ompt_callbacks_t */
       OMPT_CB_PARALLEL_BEGIN = 3,
       OMPT_CB_PARALLEL_END = 4,
       OMPT_CB_TASK_CREATE = 5,
       OMPT_CB_TASK_SCHEDULE = 6,
       OMPT_CB_IMPLICIT_TASK = 7,
       OMPT_CB_SYNC_REGION_WAIT = 16,
       OMPT_CB_MUTEX_RELEASED = 17,
       OMPT_CB_DEPENDENCES = 18,
       OMPT_CB_WORK = 20,
       OMPT_CB_SYNC_REGION = 23,
       OMPT_CB_LOCK_INIT = 24,
       OMPT_CB_MUTEX_ACQUIRE = 26,
       OMPT_CB_MUTEX_ACQUIRED = 27,
       OMPT_CB_NEST_LOCK = 28,
       OMPT_CB_CANCEL = 30,
};
enum { OMPT_SET_NEVER = 1 }; /* ompt_set_result_t: at most this, not set */
enum { OMPT_SCOPE_BEGIN = 1, OMPT_SCOPE_END = 2, OMPT_SCOPE_BEGINEND = 3 };
enum { /* ompt_sync_region_t */
       OMPT_SYNC_BARRIER = 1,
       OMPT_SYNC_BARRIER_IMPLICIT = 2,
       OMPT_SYNC_BARRIER_EXPLICIT = 3,
       OMPT_SYNC_BARRIER_IMPLEMENTATION = 4,
       OMPT_SYNC_TASKWAIT = 5,
       OMPT_SYNC_TASKGROUP = 6,
       OMPT_SYNC_REDUCTION = 7,
       OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE = 8,
       OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL = 9,
       OMPT_SYNC_BARRIER_TEAMS = 10,
};
enum { /* ompt_mutex_t */
       OMPT_MUTEX_LOCK = 1,
       OMPT_MUTEX_TEST_LOCK = 2,
       OMPT_MUTEX_NEST_LOCK = 3,
       OMPT_MUTEX_TEST_NEST_LOCK = 4,
       OMPT_MUTEX_CRITICAL = 5,
       OMPT_MUTEX_ATOMIC = 6,
       OMPT_MUTEX_ORDERED = 7,
};
enum { OMPT_WORK_DISTRIBUTE = 6, OMPT_WORK_TASKLOOP = 7 }; /* ompt_work_t */
enum {                                                     /* ompt_task_flag_t */
       OMPT_TASK_INITIAL = 0x1,
       OMPT_TASK_IMPLICIT = 0x2,
       OMPT_TASK_EXPLICIT = 0x4,
       OMPT_TASK_UNDEFERRED = 0x08000000,
};
enum { OMPT_PARALLEL_LEAGUE = 0x40000000 };      /* ompt_parallel_flag_t */
enum { OMPT_DEP_SOURCE = 5, OMPT_DEP_SINK = 6 }; /* ompt_dependence_type_t */

/* The implicit task this thread runs in a recorded team. */
struct ompt_team {
	uint64_t team;       /* the team instance (ecp_omp_new_team); 0: not recorded */
	const void *fork_ra; /* the master's: the region's codeptr_ra */
	unsigned index;      /* omp_get_thread_num() in it */
	unsigned nthreads;   /* its size */
	bool in_loop;        /* between a dynamic loop's first chunk and its end */
	uint32_t loop_seq;   /* dynamic loops this thread entered in the region */
	uint64_t chunk_tsc;  /* TSC of this thread's last omp_chunk */
};

/* The innermost team of this thread, or NULL outside any recorded one. */
struct ompt_team *ecp_ompt_team(void);
/* A wait libomp reports (barrier, lock, ordered): the guard stays raised
 * from its begin to its end, so that the pthread calls and futexes libomp
 * waits with inside are not recorded within the construct's own wait
 * events.  ecp_ompt_hold enters the agent and keeps the guard (NULL when
 * not recorded); ecp_ompt_unhold gives back the thread held, if any, for
 * the end event, after which the caller leaves it. */
struct ecp_thread *ecp_ompt_hold(void);
struct ecp_thread *ecp_ompt_unhold(void);
/* Names a construct not modelled, once (guard not raised). */
void ecp_ompt_unmodelled(const char *name);
/* Registers the callbacks of agent-ompt-sync.c, agent-ompt-task.c. */
void ecp_ompt_register_sync(ompt_set_callback_t set);
void ecp_ompt_register_tasks(ompt_set_callback_t set);
/* taskwait and taskgroup sync regions (`wait`: the sync_region_wait
 * callback), and taskloop constructs' begin and end (agent-ompt-task.c). */
void ecp_ompt_task_sync(int kind, int endpoint, bool wait);
void ecp_ompt_taskloop(int endpoint);

#endif
