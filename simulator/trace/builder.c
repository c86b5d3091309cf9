/* SPDX-License-Identifier: MIT */
/* The model builder (see builder.h and model.h for the semantics): the
 * push API, its dispatch by event type, errors and registries.  One file
 * per primitive family: builder-threads.c, builder-locks.c,
 * builder-waits.c, builder-delays.c, builder-functions.c; the clocks,
 * segments and finish in builder-clock.c, builder-segments.c,
 * builder-finish.c (builder-internal.h: their shared state). */
#include "simulator/trace/builder-internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ errors */

int bld_fail_err(struct ecp_builder *b, struct ecp_error *err, const struct ecp_event *ev,
		 const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return ecp_error_set(
	    err, ECP_ERR, "trace=%s event=#%llu (%s) thread=%u: %s",
	    b->trace_path ? b->trace_path : "(events)", (unsigned long long)ev->index,
	    ecp_event_type_name((enum ecp_event_type)ev->type), ev->tid, what);
}

/* (see builder-internal.h) */
int bld_inconsistent(struct ecp_builder *b, struct ecp_error *err,
		     const struct ecp_event *ev, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!b->opts.lenient)
		return bld_fail_err(b, err, ev, "%s", what);
	if (!b->warn[WARN_INCONSISTENT]++)
		snprintf(b->first_inconsistency, sizeof(b->first_inconsistency),
			 "event=#%llu (%s) thread=%u: %s", (unsigned long long)ev->index,
			 ecp_event_type_name((enum ecp_event_type)ev->type), ev->tid,
			 what);
	return 1;
}

int bld_nomem(struct ecp_error *err)
{
	return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory building the model");
}

/* ------------------------------------------------------------- registries */

/* Looks up an object of a registry by address, creating it zeroed. */
void *bld_object_of(struct ecp_vec *vec, struct ecp_hmap *map, uint64_t addr,
		    bool *created)
{
	uint64_t *v = ecp_hmap_get(map, addr);
	if (created)
		*created = !v;
	if (v)
		return (char *)vec->data + *v * vec->elem_size;
	void *o = ecp_vec_push(vec);
	if (!o || ecp_hmap_put(map, addr, vec->len - 1) < 0)
		return NULL;
	return o;
}

/* --------------------------------------------------------------- creation */

int ecp_builder_create(const struct ecp_builder_options *opts, struct ecp_builder **out,
		       struct ecp_error *err)
{
	struct ecp_builder *b = calloc(1, sizeof(*b));
	if (!b)
		return bld_nomem(err);
	b->opts = *opts;
	if (opts->trace_path && !(b->trace_path = strdup(opts->trace_path))) {
		free(b);
		return bld_nomem(err);
	}
	b->opts.trace_path = b->trace_path;
	b->ts_tolerance = 4 * opts->event_cost_ps / 1000u > 1000
			      ? 4 * opts->event_cost_ps / 1000u
			      : 1000;
	ecp_vec_init(&b->sched_lists, sizeof(struct sched_list *));
	ecp_vec_init(&b->thread_exits, sizeof(struct tid_exit));
	ecp_vec_init(&b->reg_marks, 2 * sizeof(uint64_t));
	ecp_vec_init(&b->samp_lists, sizeof(struct samp_list *));
	ecp_vec_init(&b->samp_frames, 2 * sizeof(uint64_t));
	ecp_vec_init(&b->samp_next, sizeof(ecp_id));
	ecp_hmap_init(&b->samp_by_tid);
	ecp_vec_init(&b->cost_lists, sizeof(struct ecp_vec *));
	ecp_hmap_init(&b->cost_by_tid);
	ecp_vec_init(&b->threads, sizeof(struct bthread *));
	ecp_vec_init(&b->segments, sizeof(struct ecp_segment_record));
	ecp_vec_init(&b->first_activity, sizeof(uint32_t));
	ecp_vec_init(&b->edges, sizeof(struct ecp_edge));
	ecp_vec_init(&b->activities, sizeof(struct ecp_activity));
	ecp_vec_init(&b->calls, sizeof(struct ecp_call));
	ecp_vec_init(&b->fns, sizeof(struct fn));
	ecp_vec_init(&b->locks, sizeof(struct block));
	ecp_vec_init(&b->conds, sizeof(struct bcond));
	ecp_vec_init(&b->sems, sizeof(struct bsem));
	ecp_vec_init(&b->barriers, sizeof(struct bbarrier));
	ecp_vec_init(&b->onces, sizeof(struct bonce));
	ecp_vec_init(&b->futexes, sizeof(struct bfutex));
	ecp_vec_init(&b->unmodelled, 48);
	ecp_vec_init(&b->chans, sizeof(struct bchan));
	ecp_hmap_init(&b->chan_by_id);
	ecp_hmap_init(&b->sched_by_tid);
	ecp_hmap_init(&b->thread_by_tid);
	ecp_hmap_init(&b->thread_by_handle);
	ecp_hmap_init(&b->create_parent);
	ecp_hmap_init(&b->create_child);
	ecp_hmap_init(&b->fn_by_addr);
	ecp_hmap_init(&b->fn_by_site);
	ecp_hmap_init(&b->lock_by_addr);
	ecp_hmap_init(&b->cond_by_addr);
	ecp_hmap_init(&b->sem_by_addr);
	ecp_hmap_init(&b->barrier_by_addr);
	ecp_hmap_init(&b->once_by_addr);
	ecp_hmap_init(&b->futex_by_addr);
	b->main_pseudo_fn = ECP_NO_ID;
	b->unseen_pseudo_fn = ECP_NO_ID;
	ecp_vec_init(&b->comms, sizeof(struct tid_comm));
	ecp_hmap_init(&b->comm_by_tid);
	ecp_hmap_init(&b->exit_clock_by_tid);
	ecp_hmap_init(&b->exit_clock_ts_by_tid);
	ecp_vec_init(&b->procs, sizeof(struct bproc));
	ecp_hmap_init(&b->proc_by_pid);
	ecp_hmap_init(&b->pid_of_tid);
	ecp_hmap_init(&b->exit_by_tid);
	*out = b;
	return ECP_OK;
}

void ecp_builder_destroy(struct ecp_builder *b)
{
	if (!b)
		return;
	bld_sched_free(b);
	for (size_t i = 0; i < b->threads.len; i++)
		bld_thread_free(thread_at(b, (ecp_id)i));
	for (size_t i = 0; i < b->conds.len; i++)
		ecp_vec_finish(&ECP_VEC_AT(&b->conds, struct bcond, i).waiters);
	for (size_t i = 0; i < b->sems.len; i++)
		ecp_vec_finish(&ECP_VEC_AT(&b->sems, struct bsem, i).posts);
	for (size_t i = 0; i < b->barriers.len; i++) {
		ecp_vec_finish(&ECP_VEC_AT(&b->barriers, struct bbarrier, i).arrivals);
		ecp_vec_finish(
		    &ECP_VEC_AT(&b->barriers, struct bbarrier, i).arrival_segs);
	}
	bld_samples_free(b);
	ecp_vec_finish(&b->threads);
	ecp_vec_finish(&b->segments);
	ecp_vec_finish(&b->first_activity);
	ecp_vec_finish(&b->edges);
	ecp_vec_finish(&b->activities);
	ecp_vec_finish(&b->calls);
	ecp_vec_finish(&b->fns);
	ecp_vec_finish(&b->locks);
	ecp_vec_finish(&b->conds);
	ecp_vec_finish(&b->sems);
	ecp_vec_finish(&b->barriers);
	ecp_vec_finish(&b->onces);
	for (size_t i = 0; i < b->futexes.len; i++)
		ecp_vec_finish(&ECP_VEC_AT(&b->futexes, struct bfutex, i).waiters);
	ecp_vec_finish(&b->futexes);
	ecp_vec_finish(&b->unmodelled);
	for (size_t i = 0; i < b->chans.len; i++)
		ecp_vec_finish(&ECP_VEC_AT(&b->chans, struct bchan, i).q);
	ecp_vec_finish(&b->chans);
	ecp_hmap_finish(&b->chan_by_id);
	ecp_hmap_finish(&b->thread_by_tid);
	ecp_hmap_finish(&b->thread_by_handle);
	ecp_hmap_finish(&b->create_parent);
	ecp_hmap_finish(&b->create_child);
	ecp_hmap_finish(&b->fn_by_addr);
	ecp_hmap_finish(&b->fn_by_site);
	ecp_hmap_finish(&b->lock_by_addr);
	ecp_hmap_finish(&b->cond_by_addr);
	ecp_hmap_finish(&b->sem_by_addr);
	ecp_hmap_finish(&b->barrier_by_addr);
	ecp_hmap_finish(&b->once_by_addr);
	bld_omp_free(b->omp);
	bld_tasks_free(b->tasks);
	ecp_hmap_finish(&b->futex_by_addr);
	ecp_vec_finish(&b->comms);
	ecp_hmap_finish(&b->comm_by_tid);
	ecp_hmap_finish(&b->exit_clock_by_tid);
	ecp_hmap_finish(&b->exit_clock_ts_by_tid);
	ecp_vec_finish(&b->procs);
	ecp_hmap_finish(&b->proc_by_pid);
	ecp_hmap_finish(&b->pid_of_tid);
	ecp_hmap_finish(&b->exit_by_tid);
	free(b->forks);
	free(b->kid_iv);
	free(b->reg_iv);
	ecp_vec_finish(&b->reg_marks);
	free(b->kid_cum);
	free(b->stays);
	free(b->stay_cum);
	free(b->trace_path);
	free(b);
}

int ecp_builder_note_comm(struct ecp_builder *b, uint64_t tid, const char *name)
{
	return name ? bld_note_comm(b, tid, name) : 0;
}

int ecp_builder_set_comm(struct ecp_builder *b, uint64_t tid, const char *name)
{
	uint64_t *ti = ecp_hmap_get(&b->thread_by_tid, tid);
	if (!name)
		return 0;
	if (!ti)
		return bld_note_comm(b, tid, name);
	struct bthread *th = thread_at(b, (ecp_id)*ti);
	if (!th->named)
		snprintf(th->name, sizeof(th->name), "%s", name);
	return 0;
}

/* ------------------------------------------------------------------ pushes */

/* A call the recorder saw but ecp does not model: its name, once, for the
 * model's warnings (the agent writes each name once per process). */
static int unmodelled(struct ecp_builder *b, const char *name)
{
	if (!name || !*name)
		return 0;
	for (size_t i = 0; i < b->unmodelled.len; i++)
		if (!strncmp((char *)b->unmodelled.data + i * 48, name, 47))
			return 0;
	char *slot = ecp_vec_push(&b->unmodelled);
	if (!slot)
		return -1;
	snprintf(slot, 48, "%s", name);
	return 0;
}

static bool is_function_event(uint16_t type)
{
	return type <= ECP_EV_FUNC_UNWOUND;
}

/* A function entry, exit or folded count on the thread's function clock. */
static int push_function_event(struct ecp_builder *b, struct bthread *th,
			       const struct ecp_event *ev, uint64_t ts,
			       struct ecp_error *err)
{
	int rc = ECP_OK;
	uint64_t t = bld_func_clock(b, th, ts);
	/* the entries a hook flushes come before its own event */
	th->entry_run = ev->type == ECP_EV_FUNC_ENTRY ? th->entry_run + 1 : 0;
	switch (ev->type) {
	case ECP_EV_FUNC_ENTRY:
		rc = bld_func_entry(b, th, t, ev->a, ev->b);
		break;
	case ECP_EV_FUNC_EXIT:
	case ECP_EV_FUNC_UNWOUND:
		rc = bld_func_exit(b, th, t, ev->a);
		break;
	case ECP_EV_FUNC_FOLDED: {
		ecp_id f = bld_function_of(b, ev->a);
		if (f == ECP_NO_ID)
			rc = -1;
		else
			ECP_VEC_AT(&b->fns, struct fn, f).folded += ev->b;
		break;
	}
	default:
		break;
	}
	th->n_events++;
	th->n_func_events++;
	return rc < 0 ? bld_nomem(err) : ECP_OK;
}

/* An OpenMP team's fork, barrier or join (recorder/agent/agent-omp.c):
 * where task epochs begin and end (builder-tasks.c); or a thread created,
 * which splits a segment but orders nothing inside an epoch. */
static bool is_team_sync(const struct ecp_event *ev)
{
	switch (ev->type) {
	case ECP_EV_THREAD_CREATE:
		return true; /* libgomp starts its pool inside the first region */
	case ECP_EV_ONCE_END:
	case ECP_EV_BARRIER_WAIT_BEGIN:
	case ECP_EV_BARRIER_WAIT_END:
	case ECP_EV_SEM_POST:
	case ECP_EV_SEM_WAIT_END:
		return bld_omp_object(ev->a);
	default:
		return false;
	}
}

/* Another thread's CPU clock, read by main at the process's exit
 * (ecp:thread_clock): the last clock reading of a thread the exit ends,
 * which wrote no thread_exit, so that its times are scaled to its own
 * clock too (builder-clock-scale.c). */
static int bld_thread_clock(struct ecp_builder *b, const struct ecp_event *ev)
{
	if (b->opts.clock != ECP_CLOCK_PERF_SWITCH)
		return ECP_OK;
	const uint64_t *i = ecp_hmap_get(&b->thread_by_tid, ev->a);
	/* no thread of the model: its CPU time (builder-consistency.c) */
	if (!i)
		return ecp_hmap_put(&b->exit_clock_by_tid, ev->a, ev->b) < 0 ||
			       ecp_hmap_put(&b->exit_clock_ts_by_tid, ev->a, ev->ts) < 0
			   ? -1
			   : ECP_OK;
	struct bthread *th = thread_at(b, (ecp_id)*i);
	if (th->exited || th->clock_last || !th->sched)
		return ECP_OK;
	th->clock_last = ev->b;
	th->sched_last = bld_sched_cpu_at(th->sched, ev->ts);
	return ECP_OK;
}

/* A synchronization event (or thread life, delay, channel...) on the
 * thread's CPU clock, handed to its family's file (builder-*.c). */
static int push_sync_event(struct ecp_builder *b, struct bthread *th,
			   const struct ecp_event *ev, uint64_t ts, struct ecp_error *err)
{
	int rc = ECP_OK;
	/* Another thread's clock, read by this one at the process's exit
	 * (agent-clocks.c): no reading of this thread's own clock, and no
	 * cost of its own -- the agent times the block that writes them whole
	 * and writes that after them (quiet_windows, or slow_window when the
	 * block was preempted).  Read as this thread's clock, they advanced it
	 * past that cost, and the cost was then clamped away: main 20-60 us
	 * above its own clock alone, 0.2-0.5 ms beside a busy loop (a CI run's
	 * model-e2e-info). */
	if (ev->type == ECP_EV_THREAD_CLOCK)
		return bld_thread_clock(b, ev) < 0 ? bld_nomem(err) : ECP_OK;
	if ((ev->type == ECP_EV_THREAD_EXIT || ev->type == ECP_EV_PROCESS_EXIT) &&
	    th->sched && b->opts.clock == ECP_CLOCK_PERF_SWITCH) {
		th->clock_last = ev->cpu_ns;
		th->sched_last = bld_sched_cpu_at(th->sched, ev->ts);
	} else if (ev->type != ECP_EV_THREAD_START) {
		bld_clock_reading(b, th, ev->ts, ev->cpu_ns);
	}
	/* its time is read inside its tracepoint, after the entries its hook
	 * flushed were written */
	th->entry_run = 0;
	if (b->n_forks && bld_split_forks(b, th, ev->ts) < 0)
		return bld_nomem(err);
	if (ev->type == ECP_EV_SLOW_WINDOW)
		bld_slow_window(b, th, ev); /* before its own clock reading */
	if (ev->type == ECP_EV_QUIET_WINDOWS)
		th->quiet_ns += ev->a; /* the wrappers' time that no event carried */
	if (ev->type == ECP_EV_THREAD_CREATE && ev->c)
		th->n_created++; /* inside pthread_create, before its event */
	uint64_t v = bld_cpu_clock(b, th, ev);
	switch (ev->type) {
	case ECP_EV_THREAD_CREATE:
		rc = bld_ev_thread_create(b, th, ev, v, err);
		break;
	case ECP_EV_THREAD_EXIT: {
		uint64_t fend = b->opts.clock == ECP_CLOCK_THREAD_CPUTIME
				    ? th->seg_v0 + sat_sub(ts, th->seg_wall0)
				    : v;
		if (fend < th->f_last)
			fend = th->f_last;
		if (bld_unwind_all(b, th, fend) < 0)
			return bld_nomem(err);
		if (bld_close_segment(b, th, ts, v, ECP_NO_ID) == ECP_NO_ID)
			return bld_nomem(err);
		th->exited = true;
		break;
	}
	case ECP_EV_THREAD_JOIN_BEGIN:
	case ECP_EV_THREAD_JOIN_END:
		rc = bld_ev_join(b, th, ev, v, err);
		break;
	case ECP_EV_THREAD_NAME:
		if (ev->name) {
			snprintf(th->name, sizeof(th->name), "%s", ev->name);
			th->named = true;
		}
		break;
	case ECP_EV_LOCK_INIT:
	case ECP_EV_LOCK_REQUEST:
	case ECP_EV_LOCK_ACQUIRED:
	case ECP_EV_LOCK_FAILED:
	case ECP_EV_LOCK_RELEASE:
		rc = bld_ev_lock(b, th, ev, v, err);
		break;
	case ECP_EV_COND_WAIT_BEGIN:
	case ECP_EV_COND_WAIT_END:
	case ECP_EV_COND_SIGNAL:
	case ECP_EV_COND_BROADCAST:
		rc = bld_ev_cond(b, th, ev, v, err);
		break;
	case ECP_EV_SEM_INIT:
	case ECP_EV_SEM_WAIT_BEGIN:
	case ECP_EV_SEM_WAIT_END:
	case ECP_EV_SEM_POST:
		rc = bld_ev_sem(b, th, ev, v, err);
		break;
	case ECP_EV_BARRIER_INIT:
	case ECP_EV_BARRIER_WAIT_BEGIN:
	case ECP_EV_BARRIER_WAIT_END:
		rc = bld_ev_barrier(b, th, ev, v, err);
		break;
	case ECP_EV_ONCE_BEGIN:
	case ECP_EV_ONCE_END:
		/* a team member entering a region (an OpenMP fork) */
		if (ev->type == ECP_EV_ONCE_END && !ev->b && bld_omp_object(ev->a))
			th->omp_pool = true;
		rc = bld_ev_once(b, th, ev, v, err);
		break;
	case ECP_EV_DELAY_BEGIN:
	case ECP_EV_DELAY_END:
		rc = bld_ev_delay(b, th, ev, v, err);
		break;
	case ECP_EV_OMP_CHUNK:
		rc = bld_ev_omp_chunk(b, th, ev, v, err);
		break;
	case ECP_EV_OMP_TASK_CREATE:
	case ECP_EV_OMP_TASK_DEP:
	case ECP_EV_OMP_TASK_BEGIN:
	case ECP_EV_OMP_TASK_END:
	case ECP_EV_OMP_TASKWAIT:
	case ECP_EV_OMP_TASKGROUP:
		rc = bld_ev_task(b, th, ev, v, err);
		break;
	case ECP_EV_OMP_SPIN:
		rc = bld_cut_spin(b, th, v, ev->a) < 0 ? bld_nomem(err) : ECP_OK;
		break;
	case ECP_EV_FUTEX_WAIT_BEGIN:
	case ECP_EV_FUTEX_WAIT_END:
	case ECP_EV_FUTEX_WAKE:
		rc = bld_ev_futex(b, th, ev, v, err);
		break;
	case ECP_EV_CHAN_OPEN:
	case ECP_EV_CHAN_WRITE:
	case ECP_EV_CHAN_READ:
		rc = bld_ev_chan(b, th, ev, v, err);
		break;
	case ECP_EV_UNMODELLED:
		rc = unmodelled(b, ev->name) < 0 ? bld_nomem(err) : ECP_OK;
		break;
	case ECP_EV_PROCESS_EXIT:
		b->process_exited = true;
		break;
	default: /* detach: no synchronization */
		break;
	}
	if (rc == ECP_OK && is_team_sync(ev))
		rc = bld_tasks_team_sync(b, th, ev, err);
	th->n_events++;
	return rc;
}

int ecp_builder_push(struct ecp_builder *b, const struct ecp_event *in,
		     struct ecp_error *err)
{
	/* a copy, so that a repaired (clamped) time is used everywhere below */
	struct ecp_event copy = *in;
	struct ecp_event *ev = &copy;
	if (ev->type >= ECP_EV_COUNT) {
		int rc = bld_inconsistent(b, err, ev, "unknown event type %u", ev->type);
		return rc > 0 ? ECP_OK : rc;
	}
	if (ev->type == ECP_EV_SCHED_SWITCH)
		return bld_push_switch(b, ev, err);
	if (ev->type == ECP_EV_SCHED_LOST) {
		b->lost += ev->a;
		return ECP_OK;
	}
	if (!b->sealed) {
		int rc = bld_seal(b, err);
		if (rc < 0)
			return rc;
		b->t0 = ev->ts;
	}
	b->events++;
	bool func = is_function_event(ev->type);
	if (!func) {
		if (ev->ts < b->last_ts) {
			int rc = bld_inconsistent(
			    b, err, ev,
			    "timestamps going backwards: %llu ns after %llu ns",
			    (unsigned long long)ev->ts, (unsigned long long)b->last_ts);
			if (rc < 0)
				return rc;
			ev->ts = b->last_ts; /* repaired: clamped */
		}
		b->last_ts = ev->ts;
	}
	if (ev->type == ECP_EV_THREAD_START)
		return bld_ev_thread_start(b, ev, err);

	uint64_t ti;
	if (!tid_cache_lookup(&b->thread_cache, &b->thread_by_tid, ev->tid, &ti)) {
		int rc = bld_inconsistent(
		    b, err, ev,
		    "event of a thread before its start (no thread_start for "
		    "tid %u)",
		    ev->tid);
		return rc > 0 ? ECP_OK : rc; /* skipped */
	}
	struct bthread *th = thread_at(b, (ecp_id)ti);
	if (th->exited) {
		b->warn[WARN_EVENTS_AFTER_EXIT]++;
		return ECP_OK;
	}
	uint64_t ts = ev->ts;
	if (ts < th->last_ts) {
		if (!func) {
			int rc = bld_inconsistent(
			    b, err, ev, "timestamps going backwards in the thread");
			if (rc < 0)
				return rc;
			ev->ts = th->last_ts; /* repaired: clamped */
		}
		/* A synchronization event's timestamp is taken inside its
		 * tracepoint, up to about one event cost after the instant it
		 * describes, so the next function `ts` may precede it by that
		 * much: measurement noise, clamped silently.  More is counted. */
		if (th->last_ts - ts > b->ts_tolerance)
			b->warn[WARN_FUNC_TS_BACKWARDS]++;
		ts = th->last_ts;
	}
	th->last_ts = ts;
	bld_count_samples(th, ts);
	if (th->samp_src &&
	    bld_apply_samples(b, th, ts, func && !b->opts.ignore_function_events) < 0)
		return bld_nomem(err);
	if (func && b->opts.ignore_function_events) {
		th->n_events++;
		th->n_func_events++;
		return ECP_OK;
	}
	return func ? push_function_event(b, th, ev, ts, err)
		    : push_sync_event(b, th, ev, ts, err);
}

void ecp_builder_sample_counts(const struct ecp_builder *b, uint64_t *pushed,
			       uint64_t *applied)
{
	*pushed = b->samples_pushed;
	*applied = b->samples_applied;
}
