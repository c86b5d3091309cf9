/* SPDX-License-Identifier: MIT */
/* Function entry/exit from -finstrument-functions, with lazy emission.
 *
 * Each entry is pushed on a per-thread shadow stack with its TSC time; no
 * event is written yet.  At exit the call is either
 * - folded: shorter than --min-duration, deeper than --depth or excluded by
 *   name, so it is counted per function (func_folded at thread end) and its
 *   time stays in its caller; or
 * - emitted: its func_entry (with the entry's `ts`) and func_exit are
 *   written, after the pending entries of its callers.
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
 * more than its leaf functions' whole time.  Every ECP_HOOK_MEASURE_EVERY-th
 * entry hook times itself, and so does every such exit hook that writes
 * events: per event written, the exit hook's time plus the average entry
 * hook of each call whose entry it wrote.  Folded calls write nothing and
 * are not counted: their cost stays in their caller's time. */
static _Atomic uint64_t entry_ticks, entry_hooks, exit_ticks, exit_events, exit_entries;
/* Calls deeper than ECP_STACK_MAX frames, never recorded: counted so that
 * the analysis can say so (250,003 calls of a deep recursion once left
 * 3,069 recorded without a word). */
static _Atomic uint64_t too_deep;

ECP_AGENT_FN void ecp_hook_cost_write(const char *path)
{
	uint64_t en = atomic_load(&entry_hooks), ev = atomic_load(&exit_events);
	uint64_t ps = 0;
	char buf[160];
	int fd, len;
	if (!path || !*path)
		return;
	if (en && ev) {
		long double per_entry = (long double)atomic_load(&entry_ticks) / en;
		long double ticks = (long double)atomic_load(&exit_ticks) +
				    per_entry * (long double)atomic_load(&exit_entries);
		ps = ecp_tsc_to_ns((uint64_t)(ticks * 1000.0L / ev));
	}
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
	close(fd);
}

/* Write pending entries [flushed, upto) that are not suppressed. */
ECP_AGENT_FN static void flush_upto(struct ecp_thread *t, uint32_t upto)
{
	for (uint32_t i = t->flushed; i < upto; i++) {
		struct ecp_frame *f = &t->stack[i];
		if (f->flags & ECP_FRAME_SUPPRESSED)
			continue;
		ECP_TP(func_entry, f->addr, f->call_site, f->tsc);
		f->flags |= ECP_FRAME_EMITTED;
		t->emitted++;
	}
	if (upto > t->flushed)
		t->flushed = upto;
}

ECP_AGENT_FN void ecp_flush_frames(struct ecp_thread *t)
{
	if (t->flushed < t->top)
		flush_upto(t, t->top);
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
	uint64_t start = 0;
	if (!t || t->guard || !ecp_settings.functions)
		return;
	bool measure = ++t->entry_seq % ECP_HOOK_MEASURE_EVERY == 0;
	if (measure)
		start = ecp_tsc();
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
	if (measure && f->tsc - start < ecp_settings.hook_outlier_tsc) {
		atomic_fetch_add_explicit(&entry_ticks, f->tsc - start,
					  memory_order_relaxed);
		atomic_fetch_add_explicit(&entry_hooks, 1, memory_order_relaxed);
	}
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
			ECP_TP(func_unwound, f->addr, now);
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
	uint64_t emitted = t->emitted;
	bool measure = ++t->exit_seq % ECP_HOOK_MEASURE_EVERY == 0;
	if (f->flags & ECP_FRAME_EMITTED) {
		ECP_TP(func_exit, addr, now);
		t->emitted++;
	} else if (!(f->flags & ECP_FRAME_SUPPRESSED) && ticks >= ecp_settings.min_tsc) {
		flush_upto(t, i + 1);
		ECP_TP(func_exit, addr, now);
		t->emitted++;
	} else {
		fold_add(t, addr, ticks);
	}
	t->top = i;
	if (t->flushed > i)
		t->flushed = i;
	t->guard--;
	uint64_t took = measure && t->emitted > emitted ? ecp_tsc() - now : UINT64_MAX;
	if (took < ecp_settings.hook_outlier_tsc) {
		atomic_fetch_add_explicit(&exit_ticks, took, memory_order_relaxed);
		atomic_fetch_add_explicit(&exit_events, t->emitted - emitted,
					  memory_order_relaxed);
		atomic_fetch_add_explicit(&exit_entries, t->emitted - emitted - 1,
					  memory_order_relaxed);
	}
}

ECP_AGENT_FN void ecp_finish_frames(struct ecp_thread *t)
{
	unwind_to(t, 0, ecp_tsc());
	t->overflow = 0;
	for (uint32_t i = 0; i < ECP_FOLD_SLOTS; i++)
		fold_flush_slot(&t->fold[i]);
}
