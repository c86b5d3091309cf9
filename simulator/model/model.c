/* SPDX-License-Identifier: MIT */
#include "simulator/model/model-internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

struct ecp_model *ecp_model_create(void)
{
	struct ecp_model *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->strings = ecp_strings_create();
	if (!m->strings) {
		free(m);
		return NULL;
	}
	return m;
}

void ecp_model_destroy(struct ecp_model *model)
{
	if (!model)
		return;
	free(model->threads);
	free(model->segments);
	free(model->edges);
	free(model->locks);
	free(model->functions);
	free(model->activities);
	free(model->calls);
	free(model->spawn_sites);
	free(model->warnings);
	/* info strings and warning texts live in the arena */
	ecp_strings_destroy(model->strings);
	free(model);
}

void ecp_model_index_edges(struct ecp_model *m)
{
	uint32_t e = 0;
	for (uint32_t s = 0; s < m->n_segments; s++) {
		m->segments[s].first_in = e;
		while (e < m->n_edges && m->edges[e].to == s)
			e++;
	}
}

void ecp_model_free_segments(struct ecp_model *model)
{
	free(model->segments);
	free(model->edges);
	model->segments = NULL;
	model->edges = NULL;
}

int ecp_model_add_warning(struct ecp_model *m, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	char *s = ecp_strings_dup(ecp_model_strings(m), buf);
	if (!s)
		return -1;
	char **w = realloc(m->warnings, (m->n_warnings + 1) * sizeof(*w));
	if (!w)
		return -1;
	w[m->n_warnings++] = s;
	m->warnings = w;
	return 0;
}

uint64_t ecp_model_work(const struct ecp_model *model)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < model->n_segments; i++)
		sum += model->segments[i].length;
	return sum;
}

uint64_t ecp_model_thread_work(const struct ecp_model *model, uint32_t t)
{
	const struct ecp_thread *th = &model->threads[t];
	uint64_t sum = 0;
	for (uint32_t s = 0; s < th->n_segments; s++)
		sum += model->segments[th->first_segment + s].length;
	return sum;
}

ecp_id ecp_model_find_function(const struct ecp_model *model, const char *name)
{
	for (uint32_t i = 0; i < model->n_functions; i++)
		if (model->functions[i].name && !strcmp(model->functions[i].name, name))
			return i;
	return ECP_NO_ID;
}

/* Each thread's segments follow the previous thread's, and its start
 * function, parent and name are in range. */
static int validate_threads(const struct ecp_model *m, struct ecp_error *err)
{
	uint32_t next = 0;
	for (uint32_t t = 0; t < m->n_threads; t++) {
		const struct ecp_thread *th = &m->threads[t];
		if (th->first_segment != next || th->n_segments == 0 ||
		    (uint64_t)th->first_segment + th->n_segments > m->n_segments)
			return ecp_error_set(
			    err, ECP_ERR,
			    "invalid model: thread %u (tid %llu) segments "
			    "[%u, +%u) are not contiguous after %u",
			    t, (unsigned long long)th->tid, th->first_segment,
			    th->n_segments, next);
		next += th->n_segments;
		if (th->start_function != ECP_NO_ID &&
		    th->start_function >= m->n_functions)
			return ecp_error_set(err, ECP_ERR,
					     "invalid model: thread %u start function %u "
					     "out of range",
					     t, th->start_function);
		if (th->parent != ECP_NO_ID && th->parent >= m->n_threads)
			return ecp_error_set(
			    err, ECP_ERR, "invalid model: thread %u parent out of range",
			    t);
		if (memchr(th->name, '\0', sizeof(th->name)) == NULL)
			return ecp_error_set(
			    err, ECP_ERR, "invalid model: thread %u name not terminated",
			    t);
	}
	if (next != m->n_segments)
		return ecp_error_set(err, ECP_ERR,
				     "invalid model: %u segments but threads cover %u",
				     m->n_segments, next);
	return 0;
}

/* Segment s's activities name known functions, and their self times fit
 * in the segment. */
static int validate_activities(const struct ecp_model *m, uint32_t s,
			       struct ecp_error *err)
{
	const struct ecp_segment *seg = &m->segments[s];
	ecp_id start = m->threads[seg->thread].start_function;
	if (!seg->n_activity && start != ECP_NO_ID && start >= m->n_functions)
		return ecp_error_set(err, ECP_ERR,
				     "invalid model: segment %u is its thread's start "
				     "function's, out of range",
				     s);
	uint64_t self = 0;
	for (uint64_t a = seg->first_activity;
	     a < (uint64_t)seg->first_activity + seg->n_activity; a++) {
		const struct ecp_activity *act = &m->activities[a];
		if (act->function >= m->n_functions)
			return ecp_error_set(err, ECP_ERR,
					     "invalid model: activity %llu function out "
					     "of range",
					     (unsigned long long)a);
		if (act->self_ns > act->incl_ns)
			return ecp_error_set(err, ECP_ERR,
					     "invalid model: activity %llu self time "
					     "exceeds inclusive time",
					     (unsigned long long)a);
		self += act->self_ns;
	}
	/* Exclusive times partition the segment's CPU time; rounding in the
	 * thread-cputime scaling may lose a few ns per activity, never add. */
	if (self > seg->length)
		return ecp_error_set(
		    err, ECP_ERR,
		    "invalid model: segment %u self times (%llu ns) exceed "
		    "its length (%llu ns)",
		    s, (unsigned long long)self, (unsigned long long)seg->length);
	return 0;
}

/* Each segment lies in its thread, with locks, incoming edges (in order of
 * target) and activities in range. */
static int validate_segments(const struct ecp_model *m, struct ecp_error *err)
{
	uint32_t edge_pos = 0;
	for (uint32_t s = 0; s < m->n_segments; s++) {
		const struct ecp_segment *seg = &m->segments[s];
		if (seg->thread >= m->n_threads)
			return ecp_error_set(err, ECP_ERR,
					     "invalid model: segment %u thread out "
					     "of range",
					     s);
		const struct ecp_thread *th = &m->threads[seg->thread];
		if (s < th->first_segment || s >= th->first_segment + th->n_segments)
			return ecp_error_set(
			    err, ECP_ERR,
			    "invalid model: segment %u outside its thread %u", s,
			    seg->thread);
		if ((seg->lock_acquire != ECP_NO_ID && seg->lock_acquire >= m->n_locks) ||
		    (seg->lock_release != ECP_NO_ID && seg->lock_release >= m->n_locks))
			return ecp_error_set(
			    err, ECP_ERR, "invalid model: segment %u lock out of range",
			    s);
		if (seg->rec_end < seg->rec_start)
			return ecp_error_set(
			    err, ECP_ERR,
			    "invalid model: segment %u ends before it starts", s);
		uint32_t in_end = ecp_segment_in_end(m, s);
		if (seg->first_in != edge_pos || in_end < seg->first_in ||
		    in_end > m->n_edges)
			return ecp_error_set(
			    err, ECP_ERR,
			    "invalid model: segment %u incoming edges [%u, %u) "
			    "do not follow the edges sorted by target",
			    s, seg->first_in, in_end);
		edge_pos = in_end;
		/* within 32 bits too: the consumers index in them (model.h) */
		if ((uint64_t)seg->first_activity + seg->n_activity > m->n_activities ||
		    (uint64_t)seg->first_activity + seg->n_activity > UINT32_MAX)
			return ecp_error_set(
			    err, ECP_ERR,
			    "invalid model: segment %u activities out of range", s);
		int rc = validate_activities(m, s, err);
		if (rc)
			return rc;
	}
	if (edge_pos != m->n_edges)
		return ecp_error_set(err, ECP_ERR,
				     "invalid model: segments reference %u of %u edges",
				     edge_pos, m->n_edges);
	return 0;
}

/* Edges in range and sorted by target; functions named; calls in range. */
static int validate_edges_functions_calls(const struct ecp_model *m,
					  struct ecp_error *err)
{
	for (uint32_t e = 0; e < m->n_edges; e++) {
		const struct ecp_edge *ed = &m->edges[e];
		if (ed->from >= m->n_segments || ed->to >= m->n_segments ||
		    ed->kind >= ECP_EDGE_KIND_COUNT)
			return ecp_error_set(err, ECP_ERR,
					     "invalid model: edge %u out of range", e);
		if (e && m->edges[e - 1].to > ed->to)
			return ecp_error_set(
			    err, ECP_ERR,
			    "invalid model: edges not sorted by target at %u", e);
	}
	for (uint32_t f = 0; f < m->n_functions; f++)
		if (!m->functions[f].name || !m->functions[f].object)
			return ecp_error_set(err, ECP_ERR,
					     "invalid model: function %u has no name", f);
	for (uint64_t c = 0; c < m->n_calls; c++)
		if (m->calls[c].thread >= m->n_threads ||
		    m->calls[c].function >= m->n_functions ||
		    m->calls[c].exit < m->calls[c].enter)
			return ecp_error_set(err, ECP_ERR,
					     "invalid model: call %llu is invalid",
					     (unsigned long long)c);
	for (uint32_t i = 0; i < m->n_spawn_sites; i++)
		if (m->spawn_sites[i].function >= m->n_functions ||
		    m->spawn_sites[i].span_ns > m->spawn_sites[i].work_ns ||
		    (i && m->spawn_sites[i - 1].site >= m->spawn_sites[i].site))
			return ecp_error_set(
			    err, ECP_ERR, "invalid model: spawn site %u is invalid", i);
	return 0;
}

int ecp_model_validate(const struct ecp_model *m, struct ecp_error *err)
{
	int rc;
	if ((rc = validate_threads(m, err)) || (rc = validate_segments(m, err)) ||
	    (rc = validate_edges_functions_calls(m, err)))
		return rc;
	return ecp_model_check_acyclic(m, err);
}

const char *ecp_delay_kind_name(unsigned kind)
{
	/* recorder/EVENTS.md, delay_begin's kinds, in order */
	static const char *const calls[] = {
	    "nanosleep",   "clock_nanosleep",
	    "usleep",      "sleep",
	    "poll",        "select",
	    "epoll_wait",  "read",
	    "write",       "recv",
	    "send",        "accept",
	    "connect",     "thrd_sleep",
	    "ppoll",       "pselect",
	    "epoll_pwait", "recvfrom",
	    "recvmsg",     "sendto",
	    "sendmsg",     "readv",
	    "writev",      "pread",
	    "pwrite",      "wait for child processes",
	    "sigwait",     "file lock",
	    "mq_receive",  "mq_send",
	};
	if (kind >= ECP_DELAY_CALL_FIRST && kind <= ECP_DELAY_CALL_LAST &&
	    kind - ECP_DELAY_CALL_FIRST < sizeof(calls) / sizeof(calls[0]))
		return calls[kind - ECP_DELAY_CALL_FIRST];
	if (kind == ECP_DELAY_TIMED_OUT)
		return "timed waits that timed out";
	if (kind == ECP_DELAY_CHILD)
		return "child processes' sleeps";
	return "other waits";
}
