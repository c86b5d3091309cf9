/* SPDX-License-Identifier: MIT */
#include "tests/support/event-seq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ecp_test_seq_init(struct ecp_test_seq *s)
{
	memset(s, 0, sizeof(*s));
}

void ecp_test_seq_finish(struct ecp_test_seq *s)
{
	free(s->ev);
	memset(s, 0, sizeof(*s));
}

struct ecp_event *ecp_test_ev(struct ecp_test_seq *s, uint32_t tid, uint64_t ts,
			      enum ecp_event_type type, uint64_t a, uint64_t b,
			      uint64_t c)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct ecp_event *ev = realloc(s->ev, cap * sizeof(*ev));
		if (!ev)
			abort(); /* tests only */
		s->ev = ev;
		s->cap = cap;
	}
	struct ecp_event *e = &s->ev[s->n];
	memset(e, 0, sizeof(*e));
	e->tid = tid;
	e->ts = ts;
	e->type = (uint16_t)type;
	e->a = a;
	e->b = b;
	e->c = c;
	e->index = s->n;
	s->n++;
	return e;
}

void ecp_test_switch(struct ecp_test_seq *s, uint32_t tid, uint64_t ts, int out,
		     int preempt)
{
	ecp_test_ev(s, tid, ts, ECP_EV_SCHED_SWITCH, (uint64_t)out, (uint64_t)preempt, 0);
}

void ecp_test_comm(struct ecp_test_seq *s, uint32_t tid, const char *name)
{
	if (s->n_comms >= sizeof(s->comms) / sizeof(s->comms[0]))
		return;
	s->comms[s->n_comms].tid = tid;
	snprintf(s->comms[s->n_comms].name, sizeof(s->comms[0].name), "%s", name);
	s->n_comms++;
}

void ecp_test_task(struct ecp_test_seq *s, uint64_t ts, uint32_t tid, uint32_t pid,
		   uint32_t ppid, uint32_t ptid, int exit)
{
	if (s->n_tasks >= sizeof(s->tasks) / sizeof(s->tasks[0]))
		return;
	s->tasks[s->n_tasks++] = (struct ecp_task){.ts = ts,
						   .tid = tid,
						   .pid = pid,
						   .ppid = ppid,
						   .ptid = ptid,
						   .exit = exit != 0};
}

void ecp_test_registered(struct ecp_test_seq *s, uint32_t tid, uint64_t ts)
{
	if (s->n_registered >= sizeof(s->registered) / sizeof(s->registered[0]))
		return;
	s->registered[s->n_registered][0] = tid;
	s->registered[s->n_registered][1] = ts;
	s->n_registered++;
}

struct ecp_model *ecp_test_seq_build(const struct ecp_test_seq *s,
				     const struct ecp_builder_options *opts,
				     struct ecp_error *err)
{
	struct ecp_builder_options def = {.clock = ECP_CLOCK_PERF_SWITCH,
					  .keep_calls = true,
					  .trace_path = "synthetic"};
	struct ecp_builder *b = NULL;
	struct ecp_model *m = NULL;
	if (ecp_builder_create(opts ? opts : &def, &b, err) < 0)
		return NULL;
	for (size_t i = 0; i < s->n_tasks; i++)
		if (ecp_builder_push_task(b, &s->tasks[i]) < 0)
			goto out;
	/* as the sched trace's names come, while it is read */
	for (size_t i = 0; i < s->n_comms; i++)
		if (ecp_builder_note_comm(b, s->comms[i].tid, s->comms[i].name) < 0)
			goto out;
	/* read with the program's events, in time; before the waits they
	 * end in every test */
	for (size_t i = 0; i < s->n_registered; i++)
		if (ecp_builder_note_registered(b, s->registered[i][0],
						s->registered[i][1]) < 0)
			goto out;
	for (size_t i = 0; i < s->n; i++)
		if (ecp_builder_push(b, &s->ev[i], err) < 0)
			goto out;
	for (size_t i = 0; i < s->n_comms; i++)
		ecp_builder_set_comm(b, s->comms[i].tid, s->comms[i].name);
	ecp_builder_finish(b, NULL, &m, err);
out:
	ecp_builder_destroy(b);
	return m;
}

/* Function f's activity in segment seg (its implicit one too: model.h),
 * or all zero. */
static struct ecp_activity find_act(const struct ecp_model *m, ecp_id seg, ecp_id f)
{
	struct ecp_activity one;
	const struct ecp_activity *acts;
	uint32_t n = ecp_segment_activities(m, &m->segments[seg], &one, &acts);
	for (uint32_t i = 0; i < n; i++)
		if (acts[i].function == f)
			return acts[i];
	return (struct ecp_activity){0};
}

uint64_t ecp_test_self(const struct ecp_model *m, ecp_id seg, ecp_id f)
{
	return find_act(m, seg, f).self_ns;
}

uint64_t ecp_test_incl(const struct ecp_model *m, ecp_id seg, ecp_id f)
{
	return find_act(m, seg, f).incl_ns;
}

uint64_t ecp_test_calls(const struct ecp_model *m, ecp_id seg, ecp_id f)
{
	return find_act(m, seg, f).calls;
}

ecp_id ecp_test_fn(const struct ecp_model *m, uint64_t addr)
{
	for (uint32_t i = 0; i < m->n_functions; i++)
		if (m->functions[i].addr == addr)
			return i;
	return ECP_NO_ID;
}

int ecp_test_has_edge(const struct ecp_model *m, ecp_id from, ecp_id to, uint32_t kind)
{
	for (uint32_t e = 0; e < m->n_edges; e++)
		if (m->edges[e].from == from && m->edges[e].to == to &&
		    m->edges[e].kind == kind)
			return 1;
	return 0;
}

ecp_id ecp_test_seg(const struct ecp_model *m, ecp_id thread, uint32_t k)
{
	if (thread >= m->n_threads || k >= m->threads[thread].n_segments)
		return ECP_NO_ID;
	return m->threads[thread].first_segment + k;
}

int ecp_test_has_warning(const struct ecp_model *m, const char *text)
{
	for (size_t i = 0; i < m->n_warnings; i++)
		if (strstr(m->warnings[i], text))
			return 1;
	return 0;
}
