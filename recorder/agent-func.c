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
#include "recorder/agent.h"
#include "recorder/ecp-tp.h"

/* Write pending entries [flushed, upto) that are not suppressed. */
ECP_AGENT_FN static void flush_upto(struct ecp_thread *t, uint32_t upto)
{
	for (uint32_t i = t->flushed; i < upto; i++) {
		struct ecp_frame *f = &t->stack[i];
		if (f->flags & ECP_FRAME_SUPPRESSED)
			continue;
		ECP_TP(func_entry, f->addr, f->call_site, f->tsc);
		f->flags |= ECP_FRAME_EMITTED;
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
	uint64_t now = ecp_tsc();
	if (!t || t->guard || !ecp_settings.functions)
		return;
	if (t->top >= ECP_STACK_MAX) {
		t->overflow++;
		return;
	}
	t->guard++;
	struct ecp_frame *f = &t->stack[t->top];
	f->addr = (uint64_t)(uintptr_t)fn;
	f->call_site = (uint64_t)(uintptr_t)call_site;
	f->tsc = now;
	f->flags = 0;
	if ((ecp_settings.depth && t->top >= ecp_settings.depth) ||
	    ecp_filter_excludes(f->addr))
		f->flags = ECP_FRAME_SUPPRESSED;
	t->top++;
	t->guard--;
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
	uint64_t ticks = now - f->tsc;
	if (f->flags & ECP_FRAME_EMITTED) {
		ECP_TP(func_exit, addr, now);
	} else if (!(f->flags & ECP_FRAME_SUPPRESSED) && ticks >= ecp_settings.min_tsc) {
		flush_upto(t, i + 1);
		ECP_TP(func_exit, addr, now);
	} else {
		fold_add(t, addr, ticks);
	}
	t->top = i;
	if (t->flushed > i)
		t->flushed = i;
	t->guard--;
}

ECP_AGENT_FN void ecp_finish_frames(struct ecp_thread *t)
{
	unwind_to(t, 0, ecp_tsc());
	t->overflow = 0;
	for (uint32_t i = 0; i < ECP_FOLD_SLOTS; i++)
		fold_flush_slot(&t->fold[i]);
}
