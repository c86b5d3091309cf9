/* SPDX-License-Identifier: MIT */
#include "answers/consistency-json.h"

void ecp_answer_consistency_json(struct ecp_json_writer *w,
				 const struct ecp_consistency *c)
{
	ecp_json_key(w, "consistency");
	ecp_json_begin_object(w);
	ecp_json_kv_bool(w, "checked", c->checked);
	ecp_json_kv_string(w, "status", ecp_consistency_status_name(c->status));
	ecp_json_kv_uint(w, "work_ns", c->work_ns);
	ecp_json_kv_uint(w, "program_cpu_ns", c->program_cpu_ns);
	ecp_json_kv_uint(w, "overhead_ns", c->overhead_ns);
	ecp_json_kv_uint(w, "outside_cpu_ns", c->outside_cpu_ns);
	ecp_json_kv_uint(w, "outside_threads", c->outside_threads);
	ecp_json_kv_uint(w, "untracked_cpu_ns", c->untracked_cpu_ns);
	/* work held as independent because its waits were not seen: T_P is
	 * a lower bound (the speedup an upper one) by up to this much */
	ecp_json_kv_uint(w, "unknown_dependencies_ns", c->unknown_deps_ns);
	ecp_json_kv_uint(w, "guessed_cpu_ns", c->guessed_ns);
	ecp_json_kv_uint(w, "steal_ns", c->steal_ns);
	/* the work no thread clock scaled, which keeps the steal, and
	 * whether the steal, up to it, is over the bound (a warning) */
	ecp_json_kv_uint(w, "unclocked_work_ns", c->unclocked_work_ns);
	ecp_json_kv_uint(w, "unclocked_threads", c->unclocked_threads);
	ecp_json_kv_bool(w, "steal_over", c->steal_over);
	ecp_json_kv_uint(w, "expected_ns", c->expected_ns);
	ecp_json_kv_int(w, "gap_ns", c->gap_ns);
	ecp_json_kv_double(w, "gap_pct", c->gap_pct);
	ecp_json_kv_double(w, "bound_pct", ECP_CONSISTENCY_BOUND_PCT);
	/* the model's T_inf against the recorded run's wall time */
	ecp_json_kv_bool(w, "span_checked", c->span_checked);
	ecp_json_kv_bool(w, "span_over", c->span_over);
	ecp_json_kv_uint(w, "span_ns", c->span_ns);
	ecp_json_kv_uint(w, "recorded_wall_ns", c->wall_ns);
	ecp_json_kv_int(w, "span_gap_ns", c->span_gap_ns);
	ecp_json_key(w, "threads");
	ecp_json_begin_array(w);
	for (size_t i = 0; i < c->n_threads; i++) {
		const struct ecp_consistency_thread *t = &c->threads[i];
		ecp_json_begin_object(w);
		ecp_json_kv_uint(w, "tid", t->tid);
		ecp_json_kv_string(w, "name", t->name);
		ecp_json_kv_uint(w, "work_ns", t->work_ns);
		ecp_json_kv_uint(w, "own_clock_ns", t->own_clock_ns);
		ecp_json_kv_uint(w, "overhead_ns", t->overhead_ns);
		ecp_json_kv_int(w, "gap_ns", t->gap_ns);
		ecp_json_end_object(w);
	}
	ecp_json_end_array(w);
	ecp_json_end_object(w);
}

void ecp_answer_warnings_json(struct ecp_json_writer *w, const struct ecp_model *m)
{
	ecp_json_key(w, "warnings");
	ecp_json_begin_array(w);
	for (size_t i = 0; i < m->n_warnings; i++)
		ecp_json_string(w, m->warnings[i]);
	ecp_json_end_array(w);
}
