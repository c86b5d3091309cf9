/* Builder: finish -- closes what is still open, takes steal out, renumbers
 * segments per thread and hands over the model with its warnings. */
#include "simulator/builder-internal.h"
#include "simulator/omp-names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const bld_warn_text[WARN_COUNT] = {
    [WARN_EXIT_WITHOUT_ENTRY] = "function exits without an entry were ignored",
    [WARN_ENTRY_WITHOUT_EXIT] =
	"function entries without an exit were closed (at the enclosing exit "
	"or at thread end)",
    [WARN_FUNC_TS_BACKWARDS] = "function timestamps went backwards within a thread "
			       "and were clamped (many: calls too short to time, such as "
			       "inlined C++ std:: helpers -- record with --min-duration, or "
			       "build with -finstrument-functions-exclude-file-list=/usr/"
			       "include)",
    [WARN_THREAD_NO_EXIT] = "threads had no thread_exit and end at their last event",
    [WARN_EVENTS_AFTER_EXIT] = "events of threads after their thread_exit were ignored",
    [WARN_NESTED_WAIT] = "waits began while the thread was already waiting (the first "
			 "was ended there)",
    [WARN_SEM_NO_TOKEN] = "semaphore waits took a token the trace never produced (no "
			  "sem_init or post seen): no dependency recorded",
    [WARN_JOIN_UNKNOWN] = "joins of a thread not seen to exit: no dependency recorded",
    [WARN_LOCK_CONFLICT] = "locks were acquired while the trace says another thread "
			   "held them",
    [WARN_UNMATCHED_CREATE] = "thread_create events had no matching thread_start",
    [WARN_NO_SWITCHES] = "threads had no context-switch record: their times are "
			 "wall-clock",
    [WARN_COND_UNWOKEN] = "condition waits returned without a recorded signal "
			  "(spurious wake-up): no dependency recorded",
    [WARN_FUTEX_UNWOKEN] = "futex waits returned without a recorded wake (woken by "
			   "a thread or process not recorded, or spuriously): no "
			   "dependency recorded",
    [WARN_CHAN_DROPPED] = "writes into a pipe, socketpair or eventfd, or signals sent, "
			  "that no thread of the program read or waited for were "
			  "forgotten (more than 65536 pending): reads of them have no "
			  "dependency",
    [WARN_SWITCH_INCONSISTENT] = "context-switch records were inconsistent (two ins or "
				 "two outs in a row) and were skipped",
    [WARN_INCONSISTENT] = "inconsistent events were skipped or repaired (the trace lost "
			  "events; --allow-loss)",
};

/* ------------------------------------------------------------------ finish */

static int cmp_edge(const void *a, const void *b)
{
	const struct ecp_edge *x = a, *y = b;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

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
		uint64_t out = l->out[l->n - 1];
		/* still on the CPU when the records end: its last switch-in is
		 * all that is known */
		end = out != UINT64_MAX ? out : l->in[l->n - 1];
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

static int finish_threads(struct ecp_builder *b, struct ecp_error *err)
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

static void count_unmatched_creates(struct ecp_builder *b)
{
	for (size_t i = 0; i < b->create_parent.cap; i++)
		if (b->create_parent.used[i] && b->create_parent.vals[i] != UINT64_MAX)
			b->warn[WARN_UNMATCHED_CREATE]++;
}

/* Switch records time a thread's stay on the CPU in wall time, which
 * includes what the hypervisor stole from the virtual CPU meanwhile (2-10%
 * of it with both host cores busy, and in bursts: one 30 ms stay of a
 * thread that used 9 ms was seen); the thread's own CPU clock excludes it.
 * Where a thread's first and last events carry its clock, its CPU times
 * (segment lengths and starts, function times, calls) are scaled by clock
 * over switch time between them: steal is spread in proportion to time
 * (where in the thread a burst fell is not known), and each thread's work
 * matches its own clock.  perf's task-clock would not help: it counts the
 * same wall time (perf_clock).  A ratio above 1.05 is not steal (a clock
 * read lost): no scaling.  Returns 0, or -1 when out of memory. */
static int scale_to_thread_clocks(struct ecp_builder *b)
{
	size_t n = b->threads.len;
	double *k = malloc((n ? n : 1) * sizeof(*k));
	bool any = false;
	if (!k)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct bthread *th = thread_at(b, (ecp_id)i);
		uint64_t clock = sat_sub(th->clock_last, th->clock_first);
		uint64_t sched = sat_sub(th->sched_last, th->sched_first);
		k[i] = 1.0;
		if (!th->clock_first || !th->clock_last || !clock || !sched)
			continue;
		double r = (double)clock / (double)sched;
		if (r > 1.05)
			continue;
		k[i] = r;
		any = true;
		for (size_t j = 0; j < th->segs.len; j++) {
			struct ecp_segment *seg =
			    &ECP_VEC_AT(&b->segments, struct ecp_segment,
					ECP_VEC_AT(&th->segs, uint32_t, j));
			seg->length = (uint64_t)((double)seg->length * r);
			seg->cpu_start = (uint64_t)((double)seg->cpu_start * r);
			for (uint32_t a = 0; a < seg->n_activity; a++) {
				struct ecp_activity *act =
				    &ECP_VEC_AT(&b->activities, struct ecp_activity,
						seg->first_activity + a);
				act->self_ns = (uint64_t)((double)act->self_ns * r);
				act->incl_ns = (uint64_t)((double)act->incl_ns * r);
			}
		}
	}
	for (size_t i = 0; any && i < b->calls.len; i++) {
		struct ecp_call *c = &ECP_VEC_AT(&b->calls, struct ecp_call, i);
		c->enter = (uint64_t)((double)c->enter * k[c->thread]);
		c->exit = (uint64_t)((double)c->exit * k[c->thread]);
	}
	free(k);
	return 0;
}

/* Every switch record of the trace, in time order, to bound the intervals
 * a tid's own records leave open. */
struct switch_times {
	uint64_t begin, end; /* the trace's first and last timestamp */
	uint64_t *ins, *outs;
	size_t n_ins, n_outs;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The first of the sorted times after t, or `none`. */
static uint64_t first_after(const uint64_t *v, size_t n, uint64_t t, uint64_t none)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n ? v[lo] : none;
}

/* The last of the sorted times before t, or `none`. */
static uint64_t last_before(const uint64_t *v, size_t n, uint64_t t, uint64_t none)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? v[lo - 1] : none;
}

static int collect_switch_times(struct ecp_builder *b, struct switch_times *st)
{
	size_t n = 0;
	st->begin = b->t0;
	st->end = b->last_ts;
	for (size_t i = 0; i < b->sched_lists.len; i++)
		n += ECP_VEC_AT(&b->sched_lists, struct sched_list *, i)->n;
	st->ins = malloc((n ? n : 1) * sizeof(uint64_t));
	st->outs = malloc((n ? n : 1) * sizeof(uint64_t));
	if (!st->ins || !st->outs)
		return -1;
	for (size_t i = 0; i < b->sched_lists.len; i++) {
		const struct sched_list *l =
		    ECP_VEC_AT(&b->sched_lists, struct sched_list *, i);
		for (size_t k = 0; k < l->n; k++) {
			if (l->in[k]) /* 0: on CPU since before the records */
				st->ins[st->n_ins++] = l->in[k];
			if (l->out[k] != UINT64_MAX) /* still on CPU at the end */
				st->outs[st->n_outs++] = l->out[k];
		}
	}
	qsort(st->ins, st->n_ins, sizeof(uint64_t), cmp_u64);
	qsort(st->outs, st->n_outs, sizeof(uint64_t), cmp_u64);
	if (st->n_ins && st->ins[0] < st->begin)
		st->begin = st->ins[0];
	if (st->n_outs && st->outs[0] < st->begin)
		st->begin = st->outs[0];
	if (st->n_ins && st->ins[st->n_ins - 1] > st->end)
		st->end = st->ins[st->n_ins - 1];
	if (st->n_outs && st->outs[st->n_outs - 1] > st->end)
		st->end = st->outs[st->n_outs - 1];
	return 0;
}

/* The CPU time of one tid's sealed switch list within [from, to).  Its
 * records may leave an interval open at either end: a first record that
 * is a switch-out (sealed as starting at 0) and a last that is a switch-in
 * (out UINT64_MAX) -- a thread that died on the CPU has no switch-out.
 * All threads ran on one CPU, so the open end is closed by the other tids'
 * records: the interval began no earlier than the switch-out before it and
 * ended no later than the next switch-in, and within the trace either way. */
static uint64_t sched_list_cpu(const struct sched_list *l, const struct switch_times *st,
			       uint64_t from, uint64_t to, uint64_t *guessed)
{
	uint64_t sum = 0;
	if (from < st->begin)
		from = st->begin;
	if (to > st->end)
		to = st->end;
	for (size_t i = 0; i < l->n; i++) {
		uint64_t in = l->in[i], out = l->out[i];
		bool open = !in || out == UINT64_MAX;
		if (!in)
			in = last_before(st->outs, st->n_outs, out, st->begin);
		if (out == UINT64_MAX)
			out = first_after(st->ins, st->n_ins, in, st->end);
		if (in < from)
			in = from;
		if (out > to)
			out = to;
		if (out > in) {
			sum += out - in;
			/* closed by another tid's record: an untraced process
			 * (or the exit) may have had the CPU meanwhile */
			if (open && guessed)
				*guessed += out - in;
		}
	}
	return sum;
}

/* The CPU time thread i used outside its first and last event, where no
 * segment can hold it: libc's set-up and tear-down of the thread, the
 * agent's and LTTng-UST's per-thread work, and for the main thread the
 * exec, the dynamic loader and the constructors.  Before the first event
 * its own clock says it exactly when the event carries it (the clock
 * starts with the thread); else the switch records, which for the main
 * thread begin only after its first stay on the CPU. */
static uint64_t untracked_cpu(const struct ecp_builder *b, const struct bthread *th,
			      const struct ecp_thread *mt, const struct switch_times *st,
			      uint64_t *guessed)
{
	if (!th->sched || !mt->n_segments)
		return th->clock_first;
	const struct ecp_segment *first =
	    &ECP_VEC_AT(&b->segments, struct ecp_segment, mt->first_segment);
	uint64_t first_ts = b->t0 + first->rec_start;
	uint64_t before = th->clock_first ? th->clock_first
					  : sched_list_cpu(th->sched, st, 0, first_ts, guessed);
	return before + sched_list_cpu(th->sched, st, th->last_ts, UINT64_MAX, guessed);
}

/* What the consistency check needs from the builder (simulator/consistency.h):
 * each thread's own clock between its first and last event and the
 * recorder's cost taken out of it, the CPU time the threads used outside
 * their first and last event, and the CPU time of the tids that only the
 * scheduler saw -- switch records of the program's process that never
 * became a model thread.  Returns 0, or -1 when out of memory. */
static int note_consistency(struct ecp_builder *b, struct ecp_model *m)
{
	for (size_t i = 0; i < b->threads.len; i++) {
		const struct bthread *th = thread_at(b, (ecp_id)i);
		struct ecp_thread *mt = &m->threads[i];
		if (th->clock_first && th->clock_last)
			mt->own_clock_ns = sat_sub(th->clock_last, th->clock_first);
		mt->overhead_ns = bld_overhead_ns(b, th);
		m->info.overhead_ns += mt->overhead_ns;
	}
	struct switch_times st = {0};
	if (collect_switch_times(b, &st) < 0) {
		free(st.ins);
		free(st.outs);
		return -1;
	}
	for (size_t i = 0; i < b->threads.len; i++)
		m->info.untracked_cpu_ns += untracked_cpu(b, thread_at(b, (ecp_id)i),
							   &m->threads[i], &st,
							   &m->info.guessed_cpu_ns);
	for (size_t i = 0; i < b->sched_by_tid.cap; i++) {
		if (!b->sched_by_tid.used[i] ||
		    ecp_hmap_get(&b->thread_by_tid, b->sched_by_tid.keys[i]))
			continue;
		const struct sched_list *l = ECP_VEC_AT(&b->sched_lists, struct sched_list *,
							b->sched_by_tid.vals[i]);
		m->info.outside_cpu_ns += sched_list_cpu(l, &st, 0, UINT64_MAX,
							 &m->info.guessed_cpu_ns);
		m->info.outside_threads++;
	}
	free(st.ins);
	free(st.outs);
	return 0;
}

/* "f <- caller (file.c:LINE)" for the function `*name` called from `site`
 * (a return address: the call is the instruction before it), or
 * "f <- caller+0xOFF" without line information. */
static int name_call_site(struct ecp_model *m, struct ecp_symbols *syms, uint64_t site,
			  const char **name)
{
	const char *caller = NULL, *object = NULL, *file = NULL;
	uint64_t vaddr = 0, start = 0;
	char where[256] = "";
	if (syms && ecp_symbols_resolve(syms, site - 1, ecp_model_strings(m), &caller, &object) < 0)
		return -1;
	if (syms && ecp_symbols_locate(syms, site - 1, &file, &vaddr, &start) == 0 &&
	    ecp_source_line(file, vaddr, where, sizeof(where)) == 0)
		*name = ecp_strings_printf(ecp_model_strings(m), "%s <- %s (%s)", *name,
					   caller, where);
	else if (caller && start)
		*name = ecp_strings_printf(ecp_model_strings(m), "%s <- %s+0x%llx", *name,
					   caller, (unsigned long long)(site - start));
	else
		*name = ecp_strings_printf(ecp_model_strings(m), "%s <- %s", *name,
					   caller ? caller : "?");
	return *name ? 0 : -1;
}

/* Threads the process's exit cut, by name: a prediction that leaves out a
 * thread's wait at exit, or keeps work that was cut short, says so. */
static int add_cut_warnings(const struct ecp_builder *b, struct ecp_model *m)
{
	if (b->cut_running) {
		char tids[CUT_NAMED * 24] = "";
		size_t len = 0;
		for (uint64_t i = 0; i < b->cut_running && i < CUT_NAMED; i++)
			len += (size_t)snprintf(tids + len, sizeof(tids) - len, "%s%llu",
						i ? ", " : "",
						(unsigned long long)b->cut_tids[i]);
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
	uint64_t kept = b->timeouts - b->timeouts_taken_back;
	if (b->timeouts_taken_back &&
	    ecp_model_add_warning(
		m,
		"%llu timed waits timed out in loops that a wake-up on the same object "
		"ended (progress loops): their %.3f ms of timeouts are no delay, the "
		"wake-up is what the thread waited for",
		(unsigned long long)b->timeouts_taken_back,
		(double)b->timeouts_taken_back_ns / 1e6) < 0)
		return -1;
	if (kept && ecp_model_add_warning(
			m,
			"%llu timed waits timed out with no wake-up after them on the same "
			"object: kept as %.3f ms of fixed delays at every P (a thread that "
			"paces itself; if it polls for a state another thread sets, its "
			"real waits shrink on more CPUs and the prediction is too long)",
			(unsigned long long)kept,
			(double)sat_sub(b->timeouts_ns, b->timeouts_taken_back_ns) / 1e6) < 0)
		return -1;
	if (b->cut_blocked &&
	    ecp_model_add_warning(m,
				  "%llu threads were blocked in a wait when the process "
				  "exited: the wait is no part of the run",
				  (unsigned long long)b->cut_blocked) < 0)
		return -1;
	return 0;
}

int ecp_builder_finish(struct ecp_builder *b, struct ecp_symbols *syms,
		       struct ecp_model **out, struct ecp_error *err)
{
	*out = NULL;
	if (!b->sealed) {
		int rc = bld_seal(b, err);
		if (rc < 0)
			return rc;
	}
	/* the agent's threads first: the segments their forks end are what
	 * a child's threads depend on */
	int rc = finish_threads(b, err);
	if (rc < 0)
		return rc;
	rc = bld_add_unseen_threads(b, err);
	if (rc < 0)
		return rc;
	rc = finish_threads(b, err);
	if (rc < 0)
		return rc;
	rc = bld_join_children(b) < 0 ? bld_nomem(err) : ECP_OK;
	count_unmatched_creates(b);
	if (rc < 0)
		return rc;
	if (bld_omp_finish(b) < 0 || scale_to_thread_clocks(b) < 0)
		return bld_nomem(err);
	if (b->threads.len == 0)
		return ecp_error_set(err, ECP_ERR,
				     "trace=%s: no thread of the program was "
				     "recorded (no ecp:thread_start event)",
				     b->trace_path ? b->trace_path : "(events)");
	struct ecp_model *m = ecp_model_create();
	if (!m)
		return bld_nomem(err);
	size_t nseg = b->segments.len;
	uint32_t *new_id = malloc((nseg ? nseg : 1) * sizeof(*new_id));
	uint32_t *perm = malloc((nseg ? nseg : 1) * sizeof(*perm));
	m->threads = calloc(b->threads.len, sizeof(*m->threads));
	if (!new_id || !perm || !m->threads) {
		free(perm);
		goto oom;
	}
	m->n_threads = (uint32_t)b->threads.len;
	uint32_t next = 0;
	for (size_t i = 0; i < b->threads.len; i++) {
		struct bthread *th = thread_at(b, (ecp_id)i);
		struct ecp_thread *mt = &m->threads[i];
		mt->tid = th->tid;
		memcpy(mt->name, th->name, sizeof(mt->name));
		mt->name[sizeof(mt->name) - 1] = '\0';
		mt->first_segment = next;
		mt->n_segments = (uint32_t)th->segs.len;
		mt->start_function = th->start_fn;
		mt->parent = th->parent;
		/* the work whose waits were not seen (model.h), as the model
		 * holds it (steal-scaled, the recorder's cost out) */
		for (size_t k = 0; k < th->segs.len; k++) {
			uint32_t id = ECP_VEC_AT(&th->segs, uint32_t, k);
			uint64_t len = ECP_VEC_AT(&b->segments, struct ecp_segment, id).length;
			/* a one-thread child waits for nothing inside itself */
			bool alone = th->proc && ECP_VEC_AT(&b->procs, struct bproc,
							     th->proc - 1).n_threads == 1;
			if (th->unseen && !alone)
				m->info.unknown_deps_ns += len;
			else if (k + 1 == th->segs.len && th->ran_on_ns)
				m->info.unknown_deps_ns += len < th->ran_on_ns ? len : th->ran_on_ns;
		}
		for (size_t k = 0; k < th->segs.len; k++)
			new_id[ECP_VEC_AT(&th->segs, uint32_t, k)] = next++;
		ecp_vec_finish(&th->segs);
	}
	/* Renumber in place (the segments are most of the model: a copy would
	 * double the peak): follow the permutation's cycles, each swap putting
	 * one segment at its final place. */
	struct ecp_segment *segs = b->segments.data;
	if (nseg)
		memcpy(perm, new_id, nseg * sizeof(*perm));
	for (uint32_t i = 0; i < nseg; i++) {
		while (perm[i] != i) {
			uint32_t j = perm[i];
			struct ecp_segment t = segs[j];
			segs[j] = segs[i];
			segs[i] = t;
			perm[i] = perm[j];
			perm[j] = j;
		}
	}
	free(perm);
	if (note_consistency(b, m) < 0)
		goto oom;
	m->segments = ecp_vec_steal(&b->segments, NULL);
	m->n_segments = next;

	size_t nedge = b->edges.len;
	m->edges = malloc((nedge ? nedge : 1) * sizeof(*m->edges));
	if (!m->edges)
		goto oom;
	size_t ne = 0;
	for (size_t i = 0; i < nedge; i++) {
		const struct tmp_edge *e = &ECP_VEC_AT(&b->edges, struct tmp_edge, i);
		ecp_id from = new_id[e->from], to = new_id[e->to];
		if (m->segments[from].thread == m->segments[to].thread)
			continue; /* program order already says it */
		m->edges[ne].from = from;
		m->edges[ne].to = to;
		m->edges[ne].kind = e->kind;
		ne++;
	}
	qsort(m->edges, ne, sizeof(*m->edges), cmp_edge);
	/* The same dependency recorded twice (a broadcast and a lock hand-off
	 * from one segment) is one edge per kind. */
	size_t w = 0;
	for (size_t i = 0; i < ne; i++)
		if (!w || cmp_edge(&m->edges[w - 1], &m->edges[i]))
			m->edges[w++] = m->edges[i];
	m->n_edges = (uint32_t)w;
	ecp_vec_finish(&b->edges);
	free(new_id);
	new_id = NULL;
	uint32_t e = 0;
	for (uint32_t s = 0; s < m->n_segments; s++) {
		m->segments[s].first_in = e;
		while (e < m->n_edges && m->edges[e].to == s)
			e++;
		m->segments[s].n_in = e - m->segments[s].first_in;
	}

	m->locks = malloc((b->locks.len ? b->locks.len : 1) * sizeof(*m->locks));
	if (!m->locks)
		goto oom;
	m->n_locks = (uint32_t)b->locks.len;
	for (size_t i = 0; i < b->locks.len; i++) {
		m->locks[i].addr = ECP_VEC_AT(&b->locks, struct block, i).addr;
		m->locks[i].kind = ECP_VEC_AT(&b->locks, struct block, i).kind;
	}

	m->functions = calloc(b->fns.len ? b->fns.len : 1, sizeof(*m->functions));
	if (!m->functions)
		goto oom;
	m->n_functions = (uint32_t)b->fns.len;
	for (size_t i = 0; i < b->fns.len; i++) {
		const struct fn *f = &ECP_VEC_AT(&b->fns, struct fn, i);
		struct ecp_function *mf = &m->functions[i];
		mf->addr = f->addr;
		mf->folded_calls = f->folded;
		mf->samples = f->samples;
		if ((ecp_id)i == b->unseen_pseudo_fn) {
			mf->name = ecp_strings_dup(ecp_model_strings(m),
						   "(thread the agent did not see)");
			mf->object = ecp_strings_dup(ecp_model_strings(m), "");
		} else if ((ecp_id)i == b->main_pseudo_fn) {
			mf->name = ecp_strings_dup(ecp_model_strings(m), "main");
			mf->object = ecp_strings_dup(ecp_model_strings(m), "");
		} else if (syms) {
			if (ecp_symbols_resolve(syms, f->addr, ecp_model_strings(m),
						&mf->name, &mf->object) < 0)
				goto oom;
		} else {
			mf->name = ecp_strings_printf(ecp_model_strings(m), "0x%llx",
						      (unsigned long long)f->addr);
			mf->object = ecp_strings_dup(ecp_model_strings(m), "");
		}
		if (mf->name && f->site && name_call_site(m, syms, f->site, &mf->name) < 0)
			goto oom;
		mf->call_site = f->site;
		if (!mf->name || !mf->object)
			goto oom;
	}
	size_t n;
	m->activities = ecp_vec_steal(&b->activities, &n);
	m->n_activities = n;
	if (b->opts.keep_calls) {
		m->calls = ecp_vec_steal(&b->calls, &n);
		m->n_calls = n;
	}
	m->info.events = b->events;
	m->info.discarded_events = b->lost;
	m->info.event_cost_ns = (b->opts.event_cost_ps + 500u) / 1000u;
	m->info.event_cost_ps = b->opts.event_cost_ps;
	m->info.sample_cost_ns = b->opts.sample_cost_ns;
	m->info.clock = ecp_strings_dup(
	    ecp_model_strings(m),
	    b->opts.clock == ECP_CLOCK_THREAD_CPUTIME ? "thread-cputime" : "perf-switch");
	m->info.trace_path =
	    ecp_strings_dup(ecp_model_strings(m), b->trace_path ? b->trace_path : "");
	m->info.program = ecp_strings_dup(ecp_model_strings(m), "");
	if (!m->info.clock || !m->info.trace_path || !m->info.program)
		goto oom;
	if (b->warn[WARN_INCONSISTENT] &&
	    ecp_model_add_warning(m, "first inconsistency: %s", b->first_inconsistency) <
		0)
		goto oom;
	for (size_t i = 0; i < b->unmodelled.len; i++)
		if (ecp_model_add_warning(
			m,
			"the program called %s, which ecp does not model (or models "
			"only in part, see ecp-record(1)): dependencies through it "
			"are not seen",
			(char *)b->unmodelled.data + i * 48) < 0)
			goto oom;
	if (add_cut_warnings(b, m) < 0 || bld_unseen_warning(b, m) < 0 ||
	    bld_child_warning(b, m, b->child_cpu_ns) < 0)
		goto oom;
	for (int k = 0; k < WARN_COUNT; k++)
		if (b->warn[k] &&
		    ecp_model_add_warning(m, "%llu %s", (unsigned long long)b->warn[k],
					  bld_warn_text[k]) < 0)
			goto oom;
	/* Found by fuzzing (fuzz/README.md, tests/fuzz/crashes/builder): events
	 * that the lenient builder repairs one at a time -- e.g. a second
	 * thread_start of a tid that is still running -- can still add up to a
	 * dependency cycle.  Every consumer trusts the model's structure, so
	 * only a valid model is handed over; otherwise the trace is refused. */
	if (ecp_model_validate(m, err) < 0) {
		ecp_model_destroy(m);
		ecp_error_prefix(err, "trace=%s: inconsistent events",
				 b->trace_path ? b->trace_path : "(events)");
		return err->status < 0 ? err->status : ECP_ERR;
	}
	*out = m;
	return ECP_OK;
oom:
	free(new_id);
	ecp_model_destroy(m);
	return bld_nomem(err);
}
