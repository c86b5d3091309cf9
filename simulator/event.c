/* SPDX-License-Identifier: MIT */
#include "simulator/event.h"

static const char *const type_names[ECP_EV_COUNT] = {
    [ECP_EV_FUNC_ENTRY] = "func_entry",
    [ECP_EV_FUNC_EXIT] = "func_exit",
    [ECP_EV_FUNC_FOLDED] = "func_folded",
    [ECP_EV_FUNC_UNWOUND] = "func_unwound",
    [ECP_EV_THREAD_CREATE] = "thread_create",
    [ECP_EV_THREAD_START] = "thread_start",
    [ECP_EV_THREAD_EXIT] = "thread_exit",
    [ECP_EV_THREAD_JOIN_BEGIN] = "thread_join_begin",
    [ECP_EV_THREAD_JOIN_END] = "thread_join_end",
    [ECP_EV_THREAD_DETACH] = "thread_detach",
    [ECP_EV_THREAD_NAME] = "thread_name",
    [ECP_EV_PROCESS_EXIT] = "process_exit",
    [ECP_EV_LOCK_INIT] = "lock_init",
    [ECP_EV_LOCK_REQUEST] = "lock_request",
    [ECP_EV_LOCK_ACQUIRED] = "lock_acquired",
    [ECP_EV_LOCK_FAILED] = "lock_failed",
    [ECP_EV_LOCK_RELEASE] = "lock_release",
    [ECP_EV_COND_WAIT_BEGIN] = "cond_wait_begin",
    [ECP_EV_COND_WAIT_END] = "cond_wait_end",
    [ECP_EV_COND_SIGNAL] = "cond_signal",
    [ECP_EV_COND_BROADCAST] = "cond_broadcast",
    [ECP_EV_SEM_INIT] = "sem_init",
    [ECP_EV_SEM_WAIT_BEGIN] = "sem_wait_begin",
    [ECP_EV_SEM_WAIT_END] = "sem_wait_end",
    [ECP_EV_SEM_POST] = "sem_post",
    [ECP_EV_BARRIER_INIT] = "barrier_init",
    [ECP_EV_BARRIER_WAIT_BEGIN] = "barrier_wait_begin",
    [ECP_EV_BARRIER_WAIT_END] = "barrier_wait_end",
    [ECP_EV_ONCE_BEGIN] = "once_begin",
    [ECP_EV_ONCE_END] = "once_end",
    [ECP_EV_DELAY_BEGIN] = "delay_begin",
    [ECP_EV_DELAY_END] = "delay_end",
    [ECP_EV_SCHED_SWITCH] = "switch",
    [ECP_EV_SCHED_LOST] = "lost",
    [ECP_EV_OMP_CHUNK] = "omp_chunk",
    [ECP_EV_FUTEX_WAIT_BEGIN] = "futex_wait_begin",
    [ECP_EV_FUTEX_WAIT_END] = "futex_wait_end",
    [ECP_EV_FUTEX_WAKE] = "futex_wake",
    [ECP_EV_UNMODELLED] = "unmodelled",
    [ECP_EV_CHAN_OPEN] = "chan_open",
    [ECP_EV_CHAN_WRITE] = "chan_write",
    [ECP_EV_CHAN_READ] = "chan_read",
};

const char *ecp_event_type_name(enum ecp_event_type type)
{
	if ((unsigned)type >= ECP_EV_COUNT || !type_names[type])
		return "unknown";
	return type_names[type];
}
