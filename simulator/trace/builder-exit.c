/* SPDX-License-Identifier: MIT */
/* Builder: the threads the process's exit finds -- without a thread_exit,
 * blocked in a wait or still running (issue 32) -- closed and named. */
#include "simulator/trace/builder-internal.h"

#include <stdio.h>
#include <stdlib.h>

/* A thread other than main that the process's exit found without a
 * thread_exit.  Blocked in a recorded wait (a pool worker waiting for work
 * that never comes, a sigwait thread nobody woke), it ends where that wait
 * began: the wait is no part of the run, which ends when the process exits.
 * Otherwise it was computing, or blocked where the agent does not look,
 * until exit_group killed it: the switch records say how long it ran after
 * its last event (a thread that never synchronises again, a runtime's own
 * threads), so it ends at its last switch-out and keeps that work, and the
 * samples taken meanwhile place it among functions.  Counted either way,
 * for the warning that names the threads cut.  Returns 0, -1 when out of
 * memory. */
static int bld_thread_ran_on(struct ecp_builder *b, struct bthread *th)
{
	bool blocked = th->wait != W_NONE || th->in_delay;
	if (blocked) {
		b->cut_blocked++;
		return 0;
	}
	uint64_t end = th->last_ts;
	struct sched_list *l = th->sched;
	if (l && l->n && b->opts.clock == ECP_CLOCK_PERF_SWITCH) {
		uint64_t out = sched_out(l, l->n - 1);
		/* still on the CPU when the records end: its last switch-in is
		 * all that is known -- but for a child process's thread, whose
		 * last switch-out the kernel never records (perf lets go of a
		 * task before its last switch), its exit record ends the stay:
		 * a gcc -flto link's ltrans process ran its last 353 ms in one
		 * stay, which fell out of the model (T1 411 ms of 868) */
		uint64_t exit_ts = bld_child_exit_of(b, th);
		end = out != UINT64_MAX                 ? out
		      : exit_ts > sched_in(l, l->n - 1) ? exit_ts
							: sched_in(l, l->n - 1);
	}
	if (end <= th->last_ts) {
		b->warn[WARN_THREAD_NO_EXIT]++;
		return 0;
	}
	/* a thread only the scheduler saw is named as such (builder-unseen.c) */
	if (!th->unseen) {
		uint64_t before = bld_sched_cpu_at(l, th->last_ts);
		th->ran_on_ns = sat_sub(bld_sched_cpu_at(l, end), before);
		b->cut_running++;
		b->cut_running_ns += th->ran_on_ns;
		if (b->cut_running <= CUT_NAMED)
			b->cut_tids[b->cut_running - 1] = th->tid;
	}
	th->last_ts = end;
	if (th->samp_src && bld_apply_samples(b, th, end, false) < 0)
		return -1;
	bld_count_samples(th, end);
	return 0;
}

int bld_finish_threads(struct ecp_builder *b, struct ecp_error *err)
{
	for (size_t i = 0; i < b->threads.len; i++) {
		struct bthread *th = thread_at(b, (ecp_id)i);
		if (th->exited)
			continue;
		/* The main thread ends with the process (no thread_exit); others
		 * still running were killed by exit(), as libgomp's pool threads
		 * always are (not worth a warning). */
		/* main too when the process left without the agent's
		 * process_exit: exit_group called directly (Go), a fatal
		 * signal */
		bool worker = (th->parent != ECP_NO_ID || i > 0 || !b->process_exited) &&
			      !th->omp_pool;
		th->cut_by_exit = worker;
		if ((worker && bld_thread_ran_on(b, th) < 0) ||
		    bld_split_forks(b, th, th->last_ts) < 0)
			return bld_nomem(err);
		struct ecp_event ev = {.ts = th->last_ts,
				       .tid = (uint32_t)th->tid,
				       .cpu_ns = th->cpu_ns_last};
		uint64_t v = bld_cpu_clock(b, th, &ev);
		uint64_t fend = b->opts.clock == ECP_CLOCK_THREAD_CPUTIME
				    ? th->seg_v0 + sat_sub(th->last_ts, th->seg_wall0)
				    : v;
		if (fend < th->f_last)
			fend = th->f_last;
		if (bld_unwind_all(b, th, fend) < 0 ||
		    bld_close_segment(b, th, th->last_ts, v, ECP_NO_ID) == ECP_NO_ID)
			return bld_nomem(err);
		th->exited = true;
	}
	return ECP_OK;
}

/* What a thread that the exit cut did after anything another thread
 * waited for -- a dependency leaving one of its segments; lock hand-offs,
 * which the simulator decides anew, are none -- was pacing itself: the
 * JVM's service threads, a logger, a progress ticker, each waiting a fixed
 * time between bits of work.  In the run those waits ended when the
 * process did, whenever that was; kept as delays, they would hold the
 * simulated run open until they had all passed (a Java parallel stream:
 * 750 ms of the monitor-deflation thread's timed waits, after its last
 * signal, made T_2 772 ms where the program takes 470 ms on two CPUs).
 * Those waits are taken out; the work between them is kept, and the
 * warning names the threads.  Returns 0, or -1 when out of memory. */
int bld_free_paced_threads(struct ecp_builder *b)
{
	size_t n = b->threads.len, cut = 0, nseg = b->segments.len;
	for (size_t i = 0; i < n; i++)
		cut += thread_at(b, (ecp_id)i)->cut_by_exit;
	if (!cut)
		return 0;
	/* one bit per segment: another thread waited for its end */
	uint64_t *waited_for = calloc(nseg / 64 + 1, sizeof(*waited_for));
	if (!waited_for)
		return -1;
	const struct ecp_segment_record *segs = b->segments.data;
	for (size_t e = 0; e < b->edges.len; e++) {
		const struct ecp_edge *ed = &ECP_VEC_AT(&b->edges, struct ecp_edge, e);
		if (ed->kind != ECP_EDGE_LOCK && ed->kind != ECP_EDGE_LOCK_HELD &&
		    segs[ed->from].thread != segs[ed->to].thread)
			waited_for[ed->from / 64] |= 1ull << (ed->from % 64);
	}
	for (size_t i = 0; i < n; i++) {
		struct bthread *th = thread_at(b, (ecp_id)i);
		if (!th->cut_by_exit)
			continue;
		uint64_t freed = 0;
		for (size_t k = th->segs.len; k-- > 0;) {
			ecp_id id = ECP_VEC_AT(&th->segs, uint32_t, k);
			struct ecp_segment_record *s =
			    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, id);
			/* its delay comes before its end, which was waited for */
			if (waited_for[id / 64] >> (id % 64) & 1)
				break;
			if (!s->delay)
				continue;
			if (s->delay_kind == ECP_DELAY_TIMED_OUT) {
				b->free_timeouts++;
				b->free_timeouts_ns += s->delay;
			}
			freed += s->delay;
			s->delay = 0;
			s->delay_kind = ECP_DELAY_UNKNOWN;
		}
		if (!freed)
			continue;
		if (b->free_paced < CUT_NAMED)
			b->free_paced_tids[b->free_paced] = th->tid;
		b->free_paced++;
		b->free_paced_ns += freed;
	}
	free(waited_for);
	return 0;
}

void bld_count_unmatched_creates(struct ecp_builder *b)
{
	for (size_t i = 0; i < b->create_parent.cap; i++)
		if (b->create_parent.used[i] && b->create_parent.vals[i] != UINT64_MAX)
			b->warn[WARN_UNMATCHED_CREATE]++;
}

void bld_name_tids(char *out, const uint64_t *tids, uint64_t n)
{
	size_t len = 0;
	out[0] = '\0';
	for (uint64_t i = 0; i < n && i < CUT_NAMED; i++)
		len += (size_t)snprintf(out + len, CUT_NAMED * 24 - len, "%s%llu",
					i ? ", " : "", (unsigned long long)tids[i]);
}

/* Threads the process's exit cut, by name: a prediction that leaves out a
 * thread's wait at exit, or keeps work that was cut short, says so. */
int bld_exit_warnings(const struct ecp_builder *b, struct ecp_model *m)
{
	char tids[CUT_NAMED * 24];
	if (b->cut_running) {
		bld_name_tids(tids, b->cut_tids, b->cut_running);
		if (ecp_model_add_warning(
			m,
			"%llu threads were still running when the process exited (tid "
			"%s%s): they end at their last switch-out, with the %.3f ms of "
			"CPU they used after their last event; on more CPUs they might "
			"have done more before the exit",
			(unsigned long long)b->cut_running, tids,
			b->cut_running > CUT_NAMED ? ", ..." : "",
			(double)b->cut_running_ns / 1e6) < 0)
			return -1;
	}
	if (b->free_paced) {
		bld_name_tids(tids, b->free_paced_tids, b->free_paced);
		if (ecp_model_add_warning(
			m,
			"%llu threads paced themselves, after anything another thread "
			"waited for, until the process exited (tid %s%s): those %.3f ms "
			"of waits, which ended with the process, are no delay at any P "
			"(the work between them is kept)",
			(unsigned long long)b->free_paced, tids,
			b->free_paced > CUT_NAMED ? ", ..." : "",
			(double)b->free_paced_ns / 1e6) < 0)
			return -1;
	}
	if (b->cut_blocked &&
	    ecp_model_add_warning(m,
				  "%llu threads were blocked in a wait when the process "
				  "exited: the wait is no part of the run",
				  (unsigned long long)b->cut_blocked) < 0)
		return -1;
	return 0;
}
