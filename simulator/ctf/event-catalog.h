/* SPDX-License-Identifier: MIT */
/* The trace's events, one row each: the enum of event.h, the names of
 * event.c and the reader's table of payload fields (reader-ctf.c) come
 * from here.  X(ID, provider, name, a, b, c): the CTF event `provider:name`
 * (recorder/agent/ecp-tp.h and ecp-sched-tp.h define it; recorder/EVENTS.md
 * documents it) decodes into ECP_EV_<ID> with fields a, b, c of struct
 * ecp_event taken from the payload members named (NULL: none); the
 * comment on each row says what they hold.  `ecp_sched` events are read by
 * name in reader-ctf.c (their payload has its own timestamp). */
#ifndef ECP_SIMULATOR_EVENT_CATALOG_H
#define ECP_SIMULATOR_EVENT_CATALOG_H

/* clang-format off */
#define ECP_EVENT_CATALOG(X)                                                              \
	X(FUNC_ENTRY, ecp, "func_entry", "addr", "call_site", NULL) /* ts: payload ts */   \
	X(FUNC_EXIT, ecp, "func_exit", "addr", NULL, NULL)                                \
	X(FUNC_FOLDED, ecp, "func_folded", "addr", "calls", "total_ns")                   \
	X(FUNC_UNWOUND, ecp, "func_unwound", "addr", NULL, NULL)                          \
	X(THREAD_CREATE, ecp, "thread_create", "create_id", "start_routine", "ok")        \
	X(THREAD_START, ecp, "thread_start", "create_id", "start_routine", "handle")      \
	X(THREAD_EXIT, ecp, "thread_exit", "handle", NULL, NULL)                          \
	X(THREAD_JOIN_BEGIN, ecp, "thread_join_begin", "handle", NULL, NULL)              \
	X(THREAD_JOIN_END, ecp, "thread_join_end", "handle", "ok", NULL)                  \
	X(THREAD_DETACH, ecp, "thread_detach", "handle", NULL, NULL)                      \
	X(THREAD_NAME, ecp, "thread_name", NULL, NULL, NULL) /* name: ecp_event.name */   \
	X(PROCESS_EXIT, ecp, "process_exit", "status", NULL, NULL)                        \
	X(LOCK_INIT, ecp, "lock_init", "obj", "kind", "type")                             \
	X(LOCK_REQUEST, ecp, "lock_request", "obj", "kind", "mode")                       \
	X(LOCK_ACQUIRED, ecp, "lock_acquired", "obj", "kind", "mode") /* ECP_EVF_TRY */   \
	X(LOCK_FAILED, ecp, "lock_failed", "obj", "kind", "err") /* ETIMEDOUT: timed */   \
	X(LOCK_RELEASE, ecp, "lock_release", "obj", "kind", NULL)                         \
	X(COND_WAIT_BEGIN, ecp, "cond_wait_begin", "cond", "mutex", "timeout_ns")         \
	X(COND_WAIT_END, ecp, "cond_wait_end", "cond", "mutex", "err")                    \
	X(COND_SIGNAL, ecp, "cond_signal", "cond", NULL, NULL)                            \
	X(COND_BROADCAST, ecp, "cond_broadcast", "cond", NULL, NULL)                      \
	X(SEM_INIT, ecp, "sem_init", "obj", "value", NULL)                                \
	X(SEM_WAIT_BEGIN, ecp, "sem_wait_begin", "obj", "timeout_ns", NULL) /* max: try */ \
	X(SEM_WAIT_END, ecp, "sem_wait_end", "obj", "err", NULL)                          \
	X(SEM_POST, ecp, "sem_post", "obj", NULL, NULL)                                   \
	X(BARRIER_INIT, ecp, "barrier_init", "obj", "count", NULL)                        \
	X(BARRIER_WAIT_BEGIN, ecp, "barrier_wait_begin", "obj", NULL, NULL)               \
	X(BARRIER_WAIT_END, ecp, "barrier_wait_end", "obj", "serial", NULL)               \
	X(ONCE_BEGIN, ecp, "once_begin", "obj", NULL, NULL)                               \
	X(ONCE_END, ecp, "once_end", "obj", "ran", NULL)                                  \
	X(DELAY_BEGIN, ecp, "delay_begin", "kind", "fd", "timeout_ns") /* 0: unbounded */ \
	X(DELAY_END, ecp, "delay_end", "kind", "ret", NULL)                               \
	X(SCHED_SWITCH, ecp_sched, "switch", "out", "preempt", NULL) /* tid switching */  \
	X(SCHED_LOST, ecp_sched, "lost", "count", NULL, NULL)                             \
	X(FUTEX_WAIT_BEGIN, ecp, "futex_wait_begin", "addr", "timeout_ns", NULL)          \
	X(FUTEX_WAIT_END, ecp, "futex_wait_end", "addr", "err", NULL)                     \
	X(FUTEX_WAKE, ecp, "futex_wake", "addr", "count", NULL)                           \
	X(UNMODELLED, ecp, "unmodelled", NULL, NULL, NULL) /* name: ecp_event.name */     \
	X(CHAN_OPEN, ecp, "chan_open", "chan", "peer", "initial")                         \
	X(CHAN_WRITE, ecp, "chan_write", "chan", "units", NULL) /* < 0: a short write */  \
	X(CHAN_READ, ecp, "chan_read", "chan", "units", NULL)                             \
	X(OMP_CHUNK, ecp, "omp_chunk", "loop", "done", NULL) /* builder-omp.c */          \
	X(OMP_TASK_CREATE, ecp, "omp_task_create", "task", "parent", "site") /* flags */   \
	X(OMP_TASK_DEP, ecp, "omp_task_dep", "task", "addr", "kind")                      \
	X(OMP_TASK_BEGIN, ecp, "omp_task_begin", "task", NULL, NULL)                      \
	X(OMP_TASK_END, ecp, "omp_task_end", "task", NULL, NULL)                          \
	X(OMP_TASKWAIT, ecp, "omp_taskwait", "phase", NULL, NULL)                         \
	X(OMP_TASKGROUP, ecp, "omp_taskgroup", "phase", NULL, NULL) /* builder-tasks.c */ \
	X(OMP_SPIN, ecp, "omp_spin", "spun_ns", NULL, NULL) /* builder-segments.c */      \
	X(SLOW_WINDOW, ecp, "slow_window", "wall_ns", NULL, NULL) /* builder-clock.c */   \
	X(QUIET_WINDOWS, ecp, "quiet_windows", "cost_ns", "windows", NULL)               \
	X(THREAD_CLOCK, ecp, "thread_clock", "tid", "clock_ns", NULL) /* builder.c */
/* clang-format on */

#endif
