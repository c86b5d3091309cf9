/* SPDX-License-Identifier: MIT */
/* Function entry/exit from -finstrument-functions, with lazy emission.
 *
 * Each entry is pushed on a per-thread shadow stack with its TSC time; no
 * event is written yet.  At exit the call is either
 * - folded: shorter than --min-duration, deeper than --depth or excluded by
 *   name, so it is counted per function (func_folded at thread end) and its
 *   time stays in its caller; or
 * - emitted: its entry (with the entry's TSC) and exit records are
 *   appended to the thread's batch (recorder/agent/func-batch.h), after the pending
 *   entries of its callers; the batch is written as one ecp:func_batch
 *   event when it fills and before any other event of the thread (ECP_TP).
 * A non-function event (lock, wait, thread...) first flushes every pending
 * entry (ecp_flush_frames), so synchronization always lands inside the
 * calls that contain it; such calls are then emitted whatever their length.
 *
 * Invariant: frames [0, flushed) are decided (emitted or suppressed), frames
 * [flushed, top) are pending.  Times are raw TSC values read in the hooks
 * (the reader converts them through the driver's clock anchors); emission
 * order keeps them non-decreasing within a thread: pending entries are
 * written outermost first and each is earlier than anything written later
 * on the thread. */
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

/* The cost of the function events, measured in the run (issue 31): a
 * calibration outside the program's own hot loop misses by 10-20 ns an
 * event, which for a call-dense program recorded with --min-duration 0 is
 * more than its leaf functions' whole time.  Every hook times itself: per
 * event written, the exit hook's time plus the entry hook's time of each
 * call whose entry it wrote.  (Timing one hook in 16 made the timed ones
 * slower than the rest, a mispredicted branch inside their window, and cost
 * 1-2 ns an event too much: 0.24-0.43x of the tiny-calls program's CPU
 * time left.)  Folded calls write nothing and are not counted: their cost
 * stays in their caller's time.  Each thread sums its own and adds them to
 * these totals now and then (an atomic add in every hook would cost more
 * than it measures). */
static _Atomic uint64_t hook_ticks, hook_events;
/* What a call costs outside the hooks' windows (agent-core.c,
 * calibrate_calls), in thousandths of a TSC tick: half of it on each of
 * its two events. */
static uint64_t untimed_milliticks;
#define ECP_HOOK_PUBLISH_EVERY 256u
/* Calls deeper than ECP_STACK_MAX frames, never recorded: counted so that
 * the analysis can say so (250,003 calls of a deep recursion once left
 * 3,069 recorded without a word). */
static _Atomic uint64_t too_deep;

ECP_AGENT_FN void ecp_hook_cost_publish(struct ecp_thread *t)
{
	/* the calibration's own hooks are not the program's (agent-core.c,
	 * calibrate_calls, which clears them) */
	if (t->calibrating || (!t->cost_hooks && !t->cost_ticks))
		return;
	atomic_fetch_add_explicit(&hook_ticks, t->cost_ticks, memory_order_relaxed);
	atomic_fetch_add_explicit(&hook_events, t->cost_events, memory_order_relaxed);
	t->cost_ticks = t->cost_events = t->cost_hooks = 0;
}

ECP_AGENT_FN void ecp_hook_set_untimed(uint64_t milliticks_per_call)
{
	untimed_milliticks = milliticks_per_call;
}

ECP_AGENT_FN void ecp_hook_cost_write(const char *path)
{
	uint64_t ev = atomic_load(&hook_events);
	uint64_t ps = 0;
	char buf[160];
	int fd, len;
	if (!path || !*path)
		return;
	if (ev)
		ps =
		    ecp_tsc_to_ns((uint64_t)(((long double)atomic_load(&hook_ticks) / ev +
					      (long double)untimed_milliticks / 2000) *
					     1000.0L));
	len = snprintf(buf, sizeof(buf),
		       "hook_cost_ps=%llu\nhook_events=%llu\ncalls_too_deep=%llu\n",
		       (unsigned long long)ps, (unsigned long long)ev,
		       (unsigned long long)atomic_load(&too_deep));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, buf, (size_t)len) != len) {
		/* nothing to do: the driver then uses its own calibration */
	}
	ecp_sync_cost_write(fd);
	close(fd);
}

ECP_AGENT_FN void ecp_batch_flush(struct ecp_thread *t, bool in_window)
{
	if (!t->batch.used)
		return;
	int saved = errno;
	uint64_t start = in_window ? 0 : ecp_tsc();
	t->guard++;
	ecp_batch_cobs(&t->batch, t->batch_cobs);
	lttng_ust_tracepoint(ecp, func_batch, t->batch.n, t->batch_cobs);
	ecp_batch_reset(&t->batch);
	t->guard--;
	if (!in_window) {
		/* the records' cost, written outside any hook's window */
		uint64_t took = ecp_tsc() - start;
		if (took < ecp_settings.hook_outlier_tsc)
			t->cost_ticks += took;
		t->flush_ticks += took; /* not a wrapper's cost (agent.h) */
	}
	errno = saved;
}

/* A function record into the thread's batch, written out (inside the
 * exit hook's timed window) when full or once its first record is
 * ECP_BATCH_AGE_NS old: a thread that makes few calls would otherwise keep
 * them unwritten for as long as it runs, and a thread still running when
 * the process ends without its exit path (another thread's exit, a killing
 * signal) would take them all with it.  Records are in time order within a
 * thread, so the age is the newest record's time less the first's. */
ECP_AGENT_FN static inline void put_record(struct ecp_thread *t, unsigned kind,
					   uint64_t tsc, uint64_t addr, uint64_t site)
{
	if (!t->batch.used)
		t->batch_first_tsc = tsc;
	if (ecp_batch_put(&t->batch, kind, tsc, addr, site) ||
	    tsc - t->batch_first_tsc >= ecp_settings.batch_age_tsc) {
		if (t->calibrating) /* the calibration's calls: not written */
			ecp_batch_reset(&t->batch);
		else
			ecp_batch_flush(t, true);
	}
}

/* Write pending entries [flushed, upto) that are not suppressed; returns
 * the sum of their entry hooks' times and counts in *timed those that had
 * one. */
ECP_AGENT_FN static uint64_t flush_upto(struct ecp_thread *t, uint32_t upto,
					uint64_t *timed)
{
	uint64_t ticks = 0;
	for (uint32_t i = t->flushed; i < upto; i++) {
		struct ecp_frame *f = &t->stack[i];
		if (f->flags & ECP_FRAME_SUPPRESSED)
			continue;
		put_record(t, ECP_BATCH_ENTRY, f->tsc, f->addr, f->call_site);
		f->flags |= ECP_FRAME_EMITTED;
		t->emitted++;
		if (f->hook_ticks != ECP_HOOK_UNTIMED) {
			ticks += f->hook_ticks;
			++*timed;
		}
	}
	if (upto > t->flushed)
		t->flushed = upto;
	return ticks;
}

ECP_AGENT_FN void ecp_flush_frames(struct ecp_thread *t)
{
	uint64_t timed = 0;
	if (t->flushed < t->top)
		flush_upto(t, t->top, &timed);
}

ECP_AGENT_FN static void fold_flush_slot(struct ecp_fold *s)
{
	if (s->calls)
		ECP_TP(func_folded, s->addr, s->calls, s->total_tsc);
	s->calls = 0;
	s->total_tsc = 0;
}

/* Count a folded call.  Linear probing from a hash of the address; a full
 * table writes out the home slot's count and reuses it (the reader sums
 * func_folded events of one function). */
ECP_AGENT_FN static void fold_add(struct ecp_thread *t, uint64_t addr, uint64_t ticks)
{
	uint32_t h = (uint32_t)((addr >> 4) * 2654435761u) & (ECP_FOLD_SLOTS - 1);
	for (uint32_t n = 0; n < 8; n++) {
		struct ecp_fold *s = &t->fold[(h + n) & (ECP_FOLD_SLOTS - 1)];
		if (s->addr == addr) {
			s->calls++;
			s->total_tsc += ticks;
			return;
		}
		if (s->addr == 0) {
			s->addr = addr;
			s->calls = 1;
			s->total_tsc = ticks;
			t->n_fold++;
			return;
		}
	}
	struct ecp_fold *s = &t->fold[h];
	fold_flush_slot(s);
	s->addr = addr;
	s->calls = 1;
	s->total_tsc = ticks;
}

ECP_AGENT_API void __cyg_profile_func_enter(void *fn, void *call_site)
{
	struct ecp_thread *t = ecp_self;
	if (!t || t->guard || !ecp_settings.functions)
		return;
	uint64_t start = ecp_tsc();
	if (t->top >= ECP_STACK_MAX) {
		t->overflow++;
		atomic_fetch_add_explicit(&too_deep, 1, memory_order_relaxed);
		return;
	}
	t->guard++;
	struct ecp_frame *f = &t->stack[t->top];
	f->addr = (uint64_t)(uintptr_t)fn;
	f->call_site = (uint64_t)(uintptr_t)call_site;
	f->flags = 0;
	if ((ecp_settings.depth && t->top >= ecp_settings.depth) ||
	    ecp_filter_excludes(f->addr))
		f->flags = ECP_FRAME_SUPPRESSED;
	t->top++;
	t->guard--;
	/* the call starts when the hook is done: its own cost is not the
	 * function's (the reader takes it out of the caller, as part of the
	 * cost of the events) */
	f->tsc = ecp_tsc();
	f->hook_ticks = f->tsc - start < ecp_settings.hook_outlier_tsc
			    ? (uint32_t)(f->tsc - start)
			    : ECP_HOOK_UNTIMED;
}

/* Pop frames above `keep` that never got an exit (longjmp, cancellation,
 * exit): emitted ones become func_unwound, innermost first; the others are
 * counted as folded, so that every call is accounted for.  `now` is the
 * time of the exit that found them (so that they end before it). */
ECP_AGENT_FN static void unwind_to(struct ecp_thread *t, uint32_t keep, uint64_t now)
{
	while (t->top > keep) {
		struct ecp_frame *f = &t->stack[--t->top];
		if (!(f->flags & ECP_FRAME_EMITTED))
			fold_add(t, f->addr, now > f->tsc ? now - f->tsc : 0);
		else
			put_record(t, ECP_BATCH_UNWOUND, now, f->addr, 0);
	}
	if (t->flushed > t->top)
		t->flushed = t->top;
}

ECP_AGENT_API void __cyg_profile_func_exit(void *fn, void *call_site)
{
	struct ecp_thread *t = ecp_self;
	uint64_t now = ecp_tsc();
	uint64_t addr = (uint64_t)(uintptr_t)fn;
	(void)call_site;
	if (!t || t->guard || !ecp_settings.functions)
		return;
	if (t->overflow) {
		t->overflow--;
		return;
	}
	if (!t->top)
		return;
	t->guard++;
	uint32_t i = t->top - 1;
	if (t->stack[i].addr != addr) {
		/* Frames were left by longjmp: find the one exiting. */
		while (i > 0 && t->stack[i].addr != addr)
			i--;
		if (t->stack[i].addr != addr) {
			t->guard--;
			return; /* an exit we never saw enter: ignore it */
		}
		unwind_to(t, i + 1, now);
	}
	struct ecp_frame *f = &t->stack[i];
	uint64_t ticks = now > f->tsc ? now - f->tsc : 0;
	uint64_t emitted = t->emitted, entry_ticks = 0, entries = 0;
	if (f->flags & ECP_FRAME_EMITTED) {
		put_record(t, ECP_BATCH_EXIT, now, addr, 0);
		t->emitted++;
	} else if (!(f->flags & ECP_FRAME_SUPPRESSED) && ticks >= ecp_settings.min_tsc) {
		entry_ticks = flush_upto(t, i + 1, &entries);
		put_record(t, ECP_BATCH_EXIT, now, addr, 0);
		t->emitted++;
	} else {
		fold_add(t, addr, ticks);
	}
	t->top = i;
	if (t->flushed > i)
		t->flushed = i;
	if (t->emitted > emitted) {
		uint64_t took = ecp_tsc() - now;
		if (took < ecp_settings.hook_outlier_tsc) {
			/* the exit and the entries that had their own time */
			t->cost_ticks += took + entry_ticks;
			t->cost_events += 1 + entries;
			if (++t->cost_hooks == ECP_HOOK_PUBLISH_EVERY)
				ecp_hook_cost_publish(t);
		}
	}
	t->guard--;
}

ECP_AGENT_FN void ecp_finish_frames(struct ecp_thread *t)
{
	ecp_hook_cost_publish(t);
	unwind_to(t, 0, ecp_tsc());
	t->overflow = 0;
	/* A thread that folded no call skips the table: 24 KiB read and
	 * written at every thread's end, before its last event, counted as
	 * the program's work (20,000 short threads: 11% of their CPU time) */
	for (uint32_t i = 0; t->n_fold && i < ECP_FOLD_SLOTS; i++)
		fold_flush_slot(&t->fold[i]);
}
