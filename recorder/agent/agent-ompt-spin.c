/* SPDX-License-Identifier: MIT */
/* LLVM's libomp spinning outside the waits its OMPT tool reports: a
 * thread pushing a task spins on its queue's lock while a thief holds it,
 * yielding now and then (its bootstrap locks back off with sched_yield).
 * On the one recording CPU the thief may have been preempted holding the
 * lock, and the yields do not hand the CPU to it until the spinner's share
 * is used up: a creator was seen spinning whole time slices, milliseconds
 * that the model took for its caller's work (omp_fib's Fib on top at
 * P = 2).  On P cores the holder runs and the spin is a fraction of a
 * microsecond.
 *
 * Yields inside the waits OMPT reports (barriers, taskwait, taskgroup)
 * come with the agent's guard held (agent-ompt.c) and do not reach here:
 * the model skips those waits' CPU time already.  The others are timed as
 * runs: yields of the thread with nothing else between them (no event
 * written, the shadow stack as it was) and at most SPIN_GAP_NS of CPU time
 * apart.  Once a run has spun SPIN_TELL_NS since it was last told, an
 * ecp:omp_spin event says how long it has spun on the thread's clock; the
 * reader cuts that time out of the thread's work, back to no earlier than
 * its last event (simulator/trace/builder-segments.c).  Shorter runs are
 * not told: they cost less than telling them would. */
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

/* libomp's back-off spins a few hundred pauses between two yields. */
#define SPIN_GAP_NS  20000u
#define SPIN_TELL_NS 50000u

ECP_AGENT_FN void ecp_ompt_spun(uint64_t before)
{
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return;
	uint64_t now = ecp_thread_cpu_ns();
	if (!t->spin_start || t->spin_written != t->tp_written || t->spin_top != t->top ||
	    before < t->spin_last || before - t->spin_last > SPIN_GAP_NS) {
		t->spin_start = before;
		t->spin_told = before;
	}
	t->spin_last = now;
	if (now - t->spin_told >= SPIN_TELL_NS) {
		ECP_TP(omp_spin, now - t->spin_start, now);
		t->spin_told = now;
	}
	t->spin_written = t->tp_written;
	t->spin_top = t->top;
	ecp_leave(t);
}
