/* SPDX-License-Identifier: MIT */
/* Builder: delays -- sleeps and blocking I/O that no thread of the program
 * ends: the time blocked is the segment's delay. */
#include "simulator/trace/builder-internal.h"

/* delay_begin kinds (recorder/EVENTS.md) that wait for any of several
 * descriptors: poll, select, epoll_wait, ppoll, pselect, epoll_pwait */
#define DELAY_WAIT_CHILD 25 /* wait, waitpid, waitid, system, pclose */

static bool is_poll(uint64_t kind)
{
	return kind == 4 || kind == 5 || kind == 6 || kind == 14 || kind == 15 ||
	       kind == 16;
}

/* A blocking call that a child process's output may have ended: not a
 * sleep (its duration was asked for), a wait for children (a join), a poll
 * that timed out (nothing came) or a signal wait. */
static bool may_wait_for_child(uint64_t kind, const struct ecp_event *end)
{
	switch (kind) {
	case 0:  /* nanosleep */
	case 1:  /* clock_nanosleep */
	case 2:  /* usleep */
	case 3:  /* sleep */
	case 13: /* thrd_sleep */
	case DELAY_WAIT_CHILD:
	case 26: /* sigwait */
		return false;
	default:
		return !is_poll(kind) || end->b != 0;
	}
}

int bld_ev_delay(struct ecp_builder *b, struct bthread *th, const struct ecp_event *ev,
		 uint64_t v, struct ecp_error *err)
{
	if (ev->type == ECP_EV_DELAY_BEGIN) {
		th->in_delay = true;
		th->delay_kind = ev->a;
		th->delay_timeout = ev->c;
		th->delay_ts = ev->ts;
		th->delay_cpu = v;
		return ECP_OK;
	}
	if (!th->in_delay) {
		int rc = bld_inconsistent(
		    b, err, ev, "wait end without begin (delay_end without delay_begin)");
		return rc > 0 ? ECP_OK : rc; /* skipped */
	}
	th->in_delay = false;
	uint64_t d = bld_blocked_time(b, th, th->delay_ts, ev->ts, th->delay_cpu, v);
	/* Switch records do not say when the thread was woken: on one CPU it
	 * may wait, runnable, for the CPU after its sleep ended.  That wait is
	 * not the program's delay; the requested duration bounds it. */
	if (th->delay_timeout && d > th->delay_timeout)
		d = th->delay_timeout;
	/* a wait for child processes that exited meanwhile (or before) is a
	 * join of them, not a delay (builder-processes.c) */
	int kids = th->delay_kind == DELAY_WAIT_CHILD && b->procs.len
		       ? bld_child_wait(b, th, ev->ts, false)
		       : 0;
	/* and so is a poll that a child's exit ended: interrupted by a signal
	 * (-1; a poll fails at once for anything else) while a child exited,
	 * the SIGCHLD a loop like GNU make's waits for before it reaps with
	 * waitpid(WNOHANG) (not recorded: it never blocks) */
	if (is_poll(th->delay_kind) && (int64_t)ev->b < 0 && b->procs.len &&
	    bld_child_ended_poll(b, th->delay_ts, ev->ts))
		kids = bld_child_wait(b, th, ev->ts, false);
	/* the part of it in which a child process was held while LTTng-UST
	 * registered in it is the recorder's (builder-registration.c) */
	if (d && !kids && b->reg_marks.len && may_wait_for_child(th->delay_kind, ev)) {
		if (bld_registration_update(b) < 0)
			return bld_nomem(err);
		uint64_t r = bld_registration_in(b, th->delay_ts, ev->ts);
		if (r > d)
			r = d;
		if (r) {
			d -= r;
			b->reg_taken++;
			b->reg_taken_ns += r;
		}
	}
	/* the part of a read's or poll's blocked time that the program's
	 * children had the CPU is waiting for them (builder-child-cpu.c) */
	if (d && !kids && b->n_kid && may_wait_for_child(th->delay_kind, ev)) {
		uint64_t k = bld_child_cpu_in(b, th->delay_ts, ev->ts);
		/* a child had the CPU last before the wake and blocked (wrote
		 * and waited for more, filled the pipe, exited): it handed
		 * off, and the whole wait was for it -- on a shared CPU what
		 * else ran meanwhile is no delay of the program's either */
		if (k && th->sched &&
		    bld_child_handed_off(b, bld_sched_in_at(th->sched, ev->ts)))
			k = d;
		if (k > d)
			k = d;
		if (k) {
			d -= k;
			b->kid_waits++;
			b->kid_waits_ns += k;
		}
	}
	/* a sleep, or a poll that timed out, while children ran may be a loop
	 * that polls them (not a wait for them, kind 25, or a sigwait, 26) */
	if (d && !kids && !may_wait_for_child(th->delay_kind, ev) &&
	    th->delay_kind != DELAY_WAIT_CHILD && th->delay_kind != 26)
		bld_child_sleep(b, th, ev->ts, d);
	/* a call that did not block is plain CPU time: no boundary */
	if (!d && !kids)
		return ECP_OK;
	if (bld_close_segment(b, th, ev->ts, v, ECP_NO_ID) == ECP_NO_ID)
		return bld_nomem(err);
	if (kids) {
		if (bld_child_wait(b, th, ev->ts, true) < 0)
			return bld_nomem(err);
		bld_open_segment(th, ev->ts, ECP_NO_ID, 0, 0);
		th->poll_pending = false;
		return ECP_OK;
	}
	bld_open_segment(th, ev->ts, ECP_NO_ID, 0, d);
	bld_delay_kind(th, d,
		       th->delay_kind < ECP_DELAY_CALL_LAST - ECP_DELAY_CALL_FIRST
			   ? (uint8_t)(ECP_DELAY_CALL_FIRST + th->delay_kind)
			   : ECP_DELAY_UNKNOWN);
	th->delay_open = d;
	th->delay_open_event = th->n_events;
	/* a call that blocked ends what the last poll could be woken by (one
	 * that did not block, as a look at an empty non-blocking pipe, has
	 * returned above) */
	th->poll_pending = false;
	if (is_poll(th->delay_kind)) {
		th->poll_pending = true;
		th->poll_delay = d;
		th->poll_end_ts = ev->ts;
		th->poll_seg = ECP_NO_ID;
	}
	return ECP_OK;
}
