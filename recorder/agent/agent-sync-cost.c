/* SPDX-License-Identifier: MIT */
/* The cost of the events other than function records (locks, waits,
 * futexes, ...), timed in the run by the wrappers that write them.
 *
 * The driver's calibration times events written in a loop of its own; in
 * a program that takes a mutex on every API call (sqlite3's shell: 16 M
 * lock events, 0.5 GB of trace) they cost the program 1.3-1.6x as much, and
 * the reader, subtracting the calibration's figure, left T1 well above the
 * program's CPU time.  Each wrapper now times its own windows (agent.h,
 * ecp_enter_timed), without the call it wraps; what it costs outside them
 * (the call into it, its first and last instructions, half of each TSC
 * read) is measured once at start (ecp_sync_calibrate) and added per
 * window.  The driver writes the average per event in the trace's
 * metadata (other_event_cost_ps, other_event_cost_source=run).  A stretch
 * of a window longer than ECP_HOOK_OUTLIER_NS switched LTTng's sub-buffer,
 * waited for its consumer or was preempted: its wall time is not the
 * thread's CPU time, so the window is left out of the average and the
 * stretch written as a slow_window event, whose CPU time the reader takes
 * from the switch records.  (Left out and not written, they were 20-35 ns
 * an event of a lock-dense program's CPU time: some 1,100 stretches of
 * 2 M windows, 0.6 s of wall time, part of it on the CPU.)
 *
 * A window that wrote no event -- a read or write of a descriptor that
 * is no channel and would not block, after the zero-timeout poll that
 * asks (agent-io.c) -- has no event whose average could carry it: its
 * time is summed per thread and written as a quiet_windows event once it
 * reaches ECP_QUIET_FLUSH_NS, and at the thread's end; the reader takes
 * it out of the thread's clock there.  (Not taken out, ripgrep's 40,000
 * reads of ready files left its T1 13-24% above its CPU time.) */
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static _Atomic uint64_t sync_ticks, sync_events, sync_windows;
/* What a wrapper costs outside its windows, in thousandths of a tick. */
static uint64_t untimed_milliticks;
/* Each thread adds its sums after this many windows (an atomic add per
 * window would cost more than it measures). */
#define SYNC_PUBLISH_EVERY 256u

ECP_AGENT_FN void ecp_sync_cost_publish(struct ecp_thread *t)
{
	if (!t->sync_events)
		return;
	atomic_fetch_add_explicit(&sync_ticks, t->sync_ticks, memory_order_relaxed);
	atomic_fetch_add_explicit(&sync_events, t->sync_events, memory_order_relaxed);
	atomic_fetch_add_explicit(&sync_windows, t->sync_windows, memory_order_relaxed);
	t->sync_ticks = t->sync_events = t->sync_windows = 0;
}

/* Before the agent is ready the main thread has no thread_start yet (the
 * constructor reads files through the I/O wrappers): an event then would
 * precede it, and the time is not the model's anyway. */
ECP_AGENT_FN void ecp_sync_slow(struct ecp_thread *t, uint64_t ticks)
{
	t->win_slow = true;
	if (!t->calibrating && ecp_agent_ready)
		ECP_TP(slow_window, ecp_tsc_to_ns(ticks), ecp_cpu_ns());
}

ECP_AGENT_FN void ecp_quiet_flush(struct ecp_thread *t)
{
	if (!t->quiet_windows)
		return;
	uint64_t ns =
	    ecp_tsc_to_ns(t->quiet_ticks + untimed_milliticks * t->quiet_windows / 1000u);
	uint64_t windows = t->quiet_windows;
	t->quiet_ticks = t->quiet_windows = 0;
	ECP_TP(quiet_windows, ns, windows, ecp_cpu_ns());
}

/* A window that wrote no event (its time kept apart, ecp_quiet_flush). */
ECP_AGENT_FN static void quiet_window(struct ecp_thread *t, uint64_t ticks)
{
	/* ECP_QUIET_FLUSH_NS in ticks, through the outlier threshold's */
	uint64_t flush_ticks =
	    ecp_settings.hook_outlier_tsc * ECP_QUIET_FLUSH_NS / ECP_HOOK_OUTLIER_NS;
	if (!ecp_agent_ready)
		return; /* before main's thread_start (ecp_sync_slow) */
	t->quiet_ticks += ticks;
	t->quiet_windows++;
	if (t->quiet_ticks >= flush_ticks)
		ecp_quiet_flush(t);
}

ECP_AGENT_FN void ecp_sync_window(struct ecp_thread *t, uint64_t ticks)
{
	if (ticks >= ecp_settings.hook_outlier_tsc)
		ecp_sync_slow(t, ticks);
	else
		ticks += t->win_ticks;
	if (t->calibrating) {
		t->sync_calib_ticks += ticks;
		return;
	}
	uint64_t events = t->tp_written - t->win_ev0;
	/* a batch of function records written in the window timed itself
	 * and counts as the function records' cost */
	uint64_t flushed = t->flush_ticks - t->win_flush0;
	if (t->win_slow)
		return; /* its slow stretch written; the rest is too little to matter */
	if (!events) {
		quiet_window(t, ticks > flushed ? ticks - flushed : 0);
		return;
	}
	t->sync_ticks += ticks > flushed ? ticks - flushed : 0;
	t->sync_events += events;
	if (++t->sync_windows == SYNC_PUBLISH_EVERY)
		ecp_sync_cost_publish(t);
}

ECP_AGENT_FN void ecp_sync_cost_write(int fd)
{
	uint64_t ev = atomic_load(&sync_events);
	uint64_t ps = 0;
	char buf[128];
	int len;
	if (ev)
		ps = ecp_tsc_to_ns(
		    (uint64_t)(((long double)atomic_load(&sync_ticks) +
				(long double)untimed_milliticks / 1000.0L *
				    (long double)atomic_load(&sync_windows)) /
			       ev * 1000.0L));
	len = snprintf(buf, sizeof(buf),
		       "sync_cost_ps=%llu\nsync_events=%llu\nsync_untimed_ps=%llu\n",
		       (unsigned long long)ps, (unsigned long long)ev,
		       (unsigned long long)ecp_tsc_to_ns(untimed_milliticks));
	if (write(fd, buf, (size_t)len) != len) {
		/* nothing to do: the driver then keeps its calibration */
	}
}

/* The calibration: pairs of lock and unlock of a mutex of its own, through
 * the wrappers (their events not written: `calibrating`) and straight to
 * glibc (what the program pays unrecorded); the difference less the
 * wrappers' windows is what no window times.  Called through pointers, as
 * the program calls them through its PLT. */
typedef int (*mutex_fn)(pthread_mutex_t *);
static mutex_fn volatile calib_lock = pthread_mutex_lock,
			 calib_unlock = pthread_mutex_unlock;
static pthread_mutex_t calib_mutex = PTHREAD_MUTEX_INITIALIZER;

#define SYNC_BURSTS         21
#define SYNC_BURST          300
#define SYNC_UNTIMED_MAX_NS 100

ECP_AGENT_FN __attribute__((noinline)) static uint64_t time_pairs(mutex_fn lock,
								  mutex_fn unlock, int n)
{
	uint64_t t0 = ecp_tsc();
	for (int i = 0; i < n; i++) {
		lock(&calib_mutex);
		unlock(&calib_mutex);
	}
	return ecp_tsc() - t0;
}

ECP_AGENT_FN static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

ECP_AGENT_FN void ecp_sync_calibrate(struct ecp_thread *t)
{
	mutex_fn real_lock = ECP_REAL(pthread_mutex_lock);
	mutex_fn real_unlock = ECP_REAL(pthread_mutex_unlock);
	int64_t v[SYNC_BURSTS];
	int near = 0;
	t->calibrating = true;
	time_pairs(calib_lock, calib_unlock, SYNC_BURST); /* warm up */
	time_pairs(real_lock, real_unlock, SYNC_BURST);
	for (int b = 0; b < SYNC_BURSTS; b++) {
		uint64_t w0 = t->sync_calib_ticks;
		uint64_t wrapped = time_pairs(calib_lock, calib_unlock, SYNC_BURST);
		uint64_t windows = t->sync_calib_ticks - w0;
		uint64_t plain = time_pairs(real_lock, real_unlock, SYNC_BURST);
		v[b] = ((int64_t)wrapped - (int64_t)plain - (int64_t)windows) * 1000 /
		       (2 * SYNC_BURST);
	}
	t->calibrating = false;
	t->sync_calib_ticks = 0;
	/* the median, when plausible: positive, under SYNC_UNTIMED_MAX_NS,
	 * and half the bursts within a fifth of it (else the machine's noise) */
	qsort(v, SYNC_BURSTS, sizeof(v[0]), cmp_i64);
	int64_t med = v[SYNC_BURSTS / 2];
	if (med <= 0 || ecp_tsc_to_ns((uint64_t)med / 1000u) >= SYNC_UNTIMED_MAX_NS)
		return;
	for (int b = 0; b < SYNC_BURSTS; b++)
		near += 5 * (v[b] > med ? v[b] - med : med - v[b]) <= med;
	if (2 * near > SYNC_BURSTS)
		untimed_milliticks = (uint64_t)med;
}
