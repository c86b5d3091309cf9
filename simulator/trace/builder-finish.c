/* SPDX-License-Identifier: MIT */
/* Builder: finish -- closes what is still open, takes steal out, renumbers
 * segments per thread and hands over the model with its warnings. */
#include "simulator/trace/builder-internal.h"
#include "simulator/symbols/omp-names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const char *const bld_warn_text[WARN_COUNT] = {
    [WARN_EXIT_WITHOUT_ENTRY] = "function exits without an entry were ignored",
    [WARN_ENTRY_WITHOUT_EXIT] =
	"function entries without an exit were closed (at the enclosing exit "
	"or at thread end)",
    [WARN_FUNC_TS_BACKWARDS] =
	"function timestamps went backwards within a thread "
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
			   "held them (a release written after it happened, as LLVM's "
			   "libomp reports one, or lost events): the holder's "
			   "release, when it came, ended its hold",
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
    [WARN_LOCK_HELD_AT_END] =
	"takings of a lock were never released (a thread still held it when the "
	"trace ended): each follows the releases recorded before it and holds the "
	"lock from no one at replay",
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

/* "f <- caller (file.c:LINE)" for the function `*name` called from `site`
 * (a return address: the call is the instruction before it), or
 * "f <- caller+0xOFF" without line information. */
static int name_call_site(struct ecp_model *m, struct ecp_symbols *syms, uint64_t site,
			  const char **name)
{
	const char *caller = NULL, *object = NULL, *file = NULL;
	uint64_t vaddr = 0, start = 0;
	char where[256] = "";
	if (syms && ecp_symbols_resolve(syms, site - 1, ecp_model_strings(m), &caller,
					&object) < 0)
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

/* The threads settled: every one's segments closed, the threads the agent
 * did not see and the child processes' added, OpenMP's chunks dealt, the
 * CPU clocks scaled.  An error when no thread of the program was seen. */
static int settle_threads(struct ecp_builder *b, struct ecp_error *err)
{
	if (!b->sealed) {
		int rc = bld_seal(b, err);
		if (rc < 0)
			return rc;
	}
	/* the agent's threads first: the segments their forks end are what
	 * a child's threads depend on */
	int rc = bld_finish_threads(b, err);
	if (rc < 0)
		return rc;
	rc = bld_add_unseen_threads(b, err);
	if (rc < 0)
		return rc;
	if (bld_child_delays(b) < 0)
		return bld_nomem(err);
	rc = bld_finish_threads(b, err);
	if (rc < 0)
		return rc;
	rc = bld_join_children(b) < 0 ? bld_nomem(err) : ECP_OK;
	bld_count_unmatched_creates(b);
	if (rc < 0)
		return rc;
	/* loops' chunks and tasks dealt after the scaling: the deals use the
	 * lengths the model keeps, and the scaling maps each segment through
	 * the readings of where it was recorded */
	bld_scale_to_thread_clocks(b);
	if (bld_omp_finish(b) < 0)
		return bld_nomem(err);
	if (bld_tasks_finish(b) < 0 || bld_locks_held_at_end(b) < 0 ||
	    bld_free_paced_threads(b) < 0)
		return bld_nomem(err);
	if (b->threads.len == 0)
		return ecp_error_set(err, ECP_ERR,
				     "trace=%s: no thread of the program was "
				     "recorded (no ecp:thread_start event)",
				     b->trace_path ? b->trace_path : "(events)");
	return ECP_OK;
}

/* The model's threads, and new_id[s]: segment s's place once each
 * thread's segments are contiguous.  Returns the segments' count, or -1
 * when out of memory. */
static int64_t take_threads(struct ecp_builder *b, struct ecp_model *m, uint32_t *new_id)
{
	m->threads = calloc(b->threads.len, sizeof(*m->threads));
	if (!m->threads)
		return -1;
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
		 * holds it (steal-scaled, the recorder's cost out): a
		 * one-thread child waits for nothing inside itself, unless
		 * for processes of its own (ld for lto-wrapper, a shell for
		 * its commands); and a child's child starts after nothing the
		 * model knows, nor does its parent wait for it there (xargs
		 * -P2's gzips all overlap).  Only such threads' segments are
		 * read here: they lie apart, a cache miss each. */
		const struct bproc *p =
		    th->proc ? &ECP_VEC_AT(&b->procs, struct bproc, th->proc - 1) : NULL;
		bool alone = p && p->n_threads == 1 && !p->has_children &&
			     p->ppid == thread_at(b, 0)->tid;
		size_t nk = th->segs.len;
		if (th->unseen && !alone) {
			for (size_t k = 0; k < nk; k++)
				m->info.unknown_deps_ns +=
				    ECP_VEC_AT(&b->segments, struct ecp_segment_record,
					       ECP_VEC_AT(&th->segs, uint32_t, k))
					.length;
		} else if (nk && th->ran_on_ns) {
			uint64_t len = ECP_VEC_AT(&b->segments, struct ecp_segment_record,
						  ECP_VEC_AT(&th->segs, uint32_t, nk - 1))
					   .length;
			m->info.unknown_deps_ns +=
			    len < th->ran_on_ns ? len : th->ran_on_ns;
		}
		/* the consistency check reads it before the segments move */
		th->first_seg = nk ? ECP_VEC_AT(&th->segs, uint32_t, 0) : ECP_NO_ID;
		for (size_t k = 0; k < th->segs.len; k++)
			new_id[ECP_VEC_AT(&th->segs, uint32_t, k)] = next++;
		ecp_vec_finish(&th->segs);
	}
	return next;
}

/* The cross-thread edges, renumbered in place (segment ids as the model
 * numbers them) before the segments are: their threads are still where
 * the temporary ids say.  An edge inside a thread goes: program order
 * already says it. */
static void renumber_edges(struct ecp_builder *b, const uint32_t *new_id)
{
	const struct ecp_segment_record *segs = b->segments.data;
	struct ecp_edge *edges = b->edges.data;
	size_t ne = 0;
	for (size_t i = 0; i < b->edges.len; i++) {
		struct ecp_edge e = edges[i];
		if (segs[e.from].thread == segs[e.to].thread)
			continue;
		edges[ne].from = new_id[e.from];
		edges[ne].to = new_id[e.to];
		edges[ne].kind = e.kind;
		ne++;
	}
	b->edges.len = ne;
}

/* The segments moved to their new places in a new array, read in the
 * order they lie in: each thread's segments are in its order there
 * already (the task deal aside), so the writes are one sequential stream
 * per thread and the reads one, where following the permutation's cycles
 * in place was a cache miss a segment.  Each becomes the model's segment
 * there, with its first activity (its edges' place is the edges' sort's).
 * The old array's pages, and new_id's, are given back as they are read, so
 * the peak stays about one array (they are most of the model). */
#define RELEASE_STEP ((size_t)4 << 20)

/* Gives back the whole pages of [*released, end) once they are
 * RELEASE_STEP or more: nothing reads them again, and free() takes the
 * block whole (its header lies before the first page). */
static void release_read(uintptr_t *released, const void *end, size_t page)
{
	uintptr_t read_to = (uintptr_t)end & ~(uintptr_t)(page - 1);
	if (read_to >= *released + RELEASE_STEP) {
		madvise((void *)*released, read_to - *released, MADV_DONTNEED);
		*released = read_to;
	}
}

static struct ecp_segment *move_segments(struct ecp_builder *b, uint32_t *new_id)
{
	size_t nseg = b->segments.len;
	struct ecp_segment_record *old = b->segments.data;
	struct ecp_segment *segs = malloc((nseg ? nseg : 1) * sizeof(*segs));
	if (!segs)
		return NULL;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t old_released = ((uintptr_t)old + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t id_released = ((uintptr_t)new_id + page - 1) & ~(uintptr_t)(page - 1);
	for (size_t i = 0; i < nseg; i++) {
		struct ecp_segment *to = &segs[new_id[i]];
		to->record = old[i];
		to->first_in = 0;
		to->first_activity = bld_first_activity(b, (ecp_id)i);
		release_read(&old_released, &old[i + 1], page);
		release_read(&id_released, &new_id[i + 1], page);
	}
	ecp_vec_finish(&b->segments);
	ecp_vec_finish(&b->first_activity);
	return segs;
}

/* The edges sorted by (target, source, kind): counted by target, which
 * keeps the edges' order within a target, then each target's few edges in
 * order by insertion.  A comparison sort took a third of the build's end on
 * a sync-heavy trace.  NULL when out of memory; edges out of range (none
 * from the builder) are left to the comparison sort and to validation. */
static struct ecp_edge *sort_edges(const struct ecp_edge *in, size_t ne, uint32_t nseg)
{
	uint32_t *start = calloc((size_t)nseg + 1, sizeof(*start));
	struct ecp_edge *out = malloc((ne ? ne : 1) * sizeof(*out));
	if (!start || !out) {
		free(start);
		free(out);
		return NULL;
	}
	for (size_t i = 0; i < ne; i++)
		start[in[i].to + 1]++;
	for (uint32_t s = 0; s < nseg; s++)
		start[s + 1] += start[s];
	for (size_t i = 0; i < ne; i++)
		out[start[in[i].to]++] = in[i];
	/* start[s] is now where target s's edges end */
	for (uint32_t s = 0, begin = 0; s < nseg; begin = start[s++])
		for (uint32_t i = begin + 1; i < start[s]; i++) {
			struct ecp_edge e = out[i];
			uint32_t j = i;
			for (; j > begin && cmp_edge(&out[j - 1], &e) > 0; j--)
				out[j] = out[j - 1];
			out[j] = e;
		}
	free(start);
	return out;
}

/* The edges (renumbered) into the model, sorted by target, one per kind
 * and pair (each segment's range of them is indexed once the segments are
 * the model's).  Returns 0, or -1 when out of memory. */
static int take_edges(struct ecp_builder *b, struct ecp_model *m)
{
	size_t ne;
	m->edges = ecp_vec_steal(&b->edges, &ne);
	if (!ne) { /* the model's arrays are never NULL */
		free(m->edges);
		m->edges = malloc(sizeof(*m->edges));
		if (!m->edges)
			return -1;
	}
	bool in_range = true;
	for (size_t i = 0; i < ne && in_range; i++)
		in_range = m->edges[i].to < m->n_segments;
	if (in_range) {
		struct ecp_edge *sorted = sort_edges(m->edges, ne, m->n_segments);
		if (!sorted)
			return -1;
		free(m->edges);
		m->edges = sorted;
	} else {
		qsort(m->edges, ne, sizeof(*m->edges), cmp_edge);
	}
	/* The same dependency recorded twice (a broadcast and a lock hand-off
	 * from one segment) is one edge per kind. */
	size_t w = 0;
	for (size_t i = 0; i < ne; i++)
		if (!w || cmp_edge(&m->edges[w - 1], &m->edges[i]))
			m->edges[w++] = m->edges[i];
	m->n_edges = (uint32_t)w;
	return 0;
}

static int take_locks(struct ecp_builder *b, struct ecp_model *m)
{
	m->locks = malloc((b->locks.len ? b->locks.len : 1) * sizeof(*m->locks));
	if (!m->locks)
		return -1;
	m->n_locks = (uint32_t)b->locks.len;
	for (size_t i = 0; i < b->locks.len; i++) {
		m->locks[i].addr = ECP_VEC_AT(&b->locks, struct block, i).addr;
		m->locks[i].kind = ECP_VEC_AT(&b->locks, struct block, i).kind;
	}
	return 0;
}

/* The functions, named: the pseudo-functions by what they stand for,
 * the rest through the symbols (an address without them). */
static int take_functions(struct ecp_builder *b, struct ecp_model *m,
			  struct ecp_symbols *syms)
{
	m->functions = calloc(b->fns.len ? b->fns.len : 1, sizeof(*m->functions));
	if (!m->functions)
		return -1;
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
				return -1;
		} else {
			mf->name = ecp_strings_printf(ecp_model_strings(m), "0x%llx",
						      (unsigned long long)f->addr);
			mf->object = ecp_strings_dup(ecp_model_strings(m), "");
		}
		if (mf->name && f->site &&
		    name_call_site(m, syms, f->site, &mf->name) < 0)
			return -1;
		mf->call_site = f->site;
		if (!mf->name || !mf->object)
			return -1;
	}
	return 0;
}

/* The activities and calls, and what the model says of the recording. */
static int take_info(struct ecp_builder *b, struct ecp_model *m)
{
	size_t n;
	m->activities = ecp_vec_steal(&b->activities, &n);
	m->n_activities = n;
	if (b->opts.keep_calls) {
		m->calls = ecp_vec_steal(&b->calls, &n);
		m->n_calls = n;
	}
	m->info.events = b->events;
	m->info.switches_lost = b->lost;
	m->info.event_cost_ns = (b->opts.event_cost_ps + 500u) / 1000u;
	m->info.event_cost_ps = b->opts.event_cost_ps;
	m->info.sample_cost_ns = b->opts.sample_cost_ns;
	m->info.clock = ecp_strings_dup(
	    ecp_model_strings(m),
	    b->opts.clock == ECP_CLOCK_THREAD_CPUTIME ? "thread-cputime" : "perf-switch");
	m->info.trace_path =
	    ecp_strings_dup(ecp_model_strings(m), b->trace_path ? b->trace_path : "");
	m->info.program = ecp_strings_dup(ecp_model_strings(m), "");
	return m->info.clock && m->info.trace_path && m->info.program ? 0 : -1;
}

/* Every repair and oddity the builder counted, said in words. */
static int add_warnings(struct ecp_builder *b, struct ecp_model *m)
{
	if (b->warn[WARN_INCONSISTENT] &&
	    ecp_model_add_warning(m, "first inconsistency: %s", b->first_inconsistency) <
		0)
		return -1;
	for (size_t i = 0; i < b->unmodelled.len; i++)
		if (ecp_model_add_warning(
			m,
			"the program called %s, which ecp does not model (or models "
			"only in part, see ecp-record(1)): dependencies through it "
			"are not seen",
			(char *)b->unmodelled.data + i * 48) < 0)
			return -1;
	if (bld_exit_warnings(b, m) < 0 || bld_timeout_warnings(b, m) < 0 ||
	    bld_tasks_tell(b, m) < 0 || bld_unseen_warning(b, m) < 0 ||
	    bld_child_warning(b, m, b->child_cpu_ns) < 0 ||
	    bld_child_cpu_warning(b, m) < 0 || bld_registration_warning(b, m) < 0)
		return -1;
	for (int k = 0; k < WARN_COUNT; k++)
		if (b->warn[k] &&
		    ecp_model_add_warning(m, "%llu %s", (unsigned long long)b->warn[k],
					  bld_warn_text[k]) < 0)
			return -1;
	return 0;
}

/* The model assembled from the builder, in place where it can be: the
 * edges renumbered where they lie, and what only the builder reads (the
 * switch records) freed before the segments become the model's 64 bytes
 * from the builder's 56 and before the edges are sorted, so the peak stays
 * that of the decoding. */
static int assemble(struct ecp_builder *b, struct ecp_symbols *syms, struct ecp_model *m)
{
	size_t nseg = b->segments.len;
	uint32_t *new_id = malloc((nseg ? nseg : 1) * sizeof(*new_id));
	int64_t n_segments = new_id ? take_threads(b, m, new_id) : -1;
	if (n_segments < 0 || bld_note_consistency(b, m) < 0) {
		free(new_id);
		return -1;
	}
	bld_sched_free(b);
	renumber_edges(b, new_id);
	m->n_segments = (uint32_t)n_segments;
	/* sorted before the segments grow to the model's: the sort's own
	 * arrays then lie beside the smaller ones */
	if (take_edges(b, m) < 0) {
		free(new_id);
		return -1;
	}
	m->segments = move_segments(b, new_id);
	free(new_id);
	if (!m->segments)
		return -1;
	ecp_model_index_edges(m);
	if (take_locks(b, m) < 0 || take_functions(b, m, syms) < 0 ||
	    bld_tasks_take_sites(b, m) < 0 || take_info(b, m) < 0 ||
	    add_warnings(b, m) < 0)
		return -1;
	return 0;
}

int ecp_builder_finish(struct ecp_builder *b, struct ecp_symbols *syms,
		       struct ecp_model **out, struct ecp_error *err)
{
	*out = NULL;
	int rc = settle_threads(b, err);
	if (rc < 0)
		return rc;
	struct ecp_model *m = ecp_model_create();
	if (!m || assemble(b, syms, m) < 0) {
		ecp_model_destroy(m);
		return bld_nomem(err);
	}
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
}
