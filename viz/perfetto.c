/* SPDX-License-Identifier: MIT */
#include "viz/perfetto.h"

#include <stdlib.h>

#include "viz/json.h"

/* The one process all tracks belong to. */
#define PID 1

static int by_thread_time(const void *a, const void *b, void *base)
{
	const struct ecp_perfetto_slice *slices = base;
	const struct ecp_perfetto_slice *x = &slices[*(const size_t *)a];
	const struct ecp_perfetto_slice *y = &slices[*(const size_t *)b];
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	/* Same start and depth: the longer first, then input order. */
	if (x->end_ns != y->end_ns)
		return x->end_ns > y->end_ns ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static void metadata(struct ecp_json_writer *w, const char *name, uint32_t tid,
		     const char *key, const char *str, int64_t num)
{
	ecp_json_begin_object(w);
	ecp_json_kv_string(w, "ph", "M");
	ecp_json_kv_string(w, "name", name);
	ecp_json_kv_int(w, "pid", PID);
	ecp_json_kv_uint(w, "tid", tid);
	ecp_json_key(w, "args");
	ecp_json_begin_object(w);
	if (str)
		ecp_json_kv_string(w, key, str);
	else
		ecp_json_kv_int(w, key, num);
	ecp_json_end_object(w);
	ecp_json_end_object(w);
}

static void flow_end(struct ecp_json_writer *w, const char *ph, const char *kind,
		     uint64_t id, uint32_t thread, int64_t ns)
{
	ecp_json_begin_object(w);
	ecp_json_kv_string(w, "ph", ph);
	ecp_json_kv_string(w, "name", kind);
	ecp_json_kv_string(w, "cat", "dependency");
	ecp_json_kv_uint(w, "id", id);
	ecp_json_kv_double(w, "ts", (double)ns / 1e3);
	ecp_json_kv_int(w, "pid", PID);
	ecp_json_kv_uint(w, "tid", (uint64_t)thread + 1);
	if (ph[0] == 'f')
		ecp_json_kv_string(w, "bp", "e");
	ecp_json_end_object(w);
}

static int check_input(const struct ecp_perfetto_input *in, struct ecp_error *err)
{
	for (size_t i = 0; i < in->slice_count; i++) {
		const struct ecp_perfetto_slice *s = &in->slices[i];
		if (s->thread >= in->thread_count || s->function >= in->function_count)
			return ecp_error_set(
			    err, ECP_ERR_USAGE,
			    "perfetto slice #%zu: thread %u or function %u out "
			    "of range (%zu threads, %zu functions)",
			    i, s->thread, s->function, in->thread_count,
			    in->function_count);
		if (s->end_ns < s->start_ns)
			return ecp_error_set(err, ECP_ERR_USAGE,
					     "perfetto slice #%zu ends before it starts",
					     i);
	}
	for (size_t i = 0; i < in->flow_count; i++)
		if (in->flows[i].from_thread >= in->thread_count ||
		    in->flows[i].to_thread >= in->thread_count)
			return ecp_error_set(err, ECP_ERR_USAGE,
					     "perfetto flow #%zu: thread out of range",
					     i);
	return ECP_OK;
}

int ecp_perfetto_write(FILE *out, const struct ecp_perfetto_input *in,
		       struct ecp_error *err)
{
	int rc = check_input(in, err);
	if (rc)
		return rc;
	size_t *order = NULL;
	if (in->slice_count) {
		order = malloc(in->slice_count * sizeof(*order));
		if (!order)
			return ecp_error_set(err, ECP_ERR_NOMEM,
					     "out of memory sorting %zu slices",
					     in->slice_count);
		for (size_t i = 0; i < in->slice_count; i++)
			order[i] = i;
		qsort_r(order, in->slice_count, sizeof(*order), by_thread_time,
			(void *)in->slices);
	}

	struct ecp_json_writer w;
	ecp_json_init(&w, out, ECP_JSON_COMPACT);
	ecp_json_begin_object(&w);
	ecp_json_kv_string(&w, "displayTimeUnit", "ns");
	ecp_json_key(&w, "otherData");
	ecp_json_begin_object(&w);
	ecp_json_kv_string(&w, "generator", "ecp");
	ecp_json_kv_uint(&w, "processors", in->processors);
	if (in->trace_path)
		ecp_json_kv_string(&w, "trace", in->trace_path);
	ecp_json_end_object(&w);
	ecp_json_key(&w, "traceEvents");
	ecp_json_begin_array(&w);
	/* One event per line keeps the file greppable and diffable. */
	ecp_json_newline(&w);
	metadata(&w, "process_name", 0, "name",
		 in->process_name ? in->process_name : "ecp simulation", 0);
	for (size_t t = 0; t < in->thread_count; t++) {
		ecp_json_newline(&w);
		const char *name = in->thread_names ? in->thread_names[t] : NULL;
		char fallback[32];
		if (!name) {
			snprintf(fallback, sizeof(fallback), "thread %zu", t);
			name = fallback;
		}
		metadata(&w, "thread_name", (uint32_t)t + 1, "name", name, 0);
		metadata(&w, "thread_sort_index", (uint32_t)t + 1, "sort_index", NULL,
			 (int64_t)t);
	}
	for (size_t k = 0; k < in->slice_count; k++) {
		const struct ecp_perfetto_slice *s = &in->slices[order[k]];
		ecp_json_newline(&w);
		ecp_json_begin_object(&w);
		ecp_json_kv_string(&w, "ph", "X");
		ecp_json_kv_string(&w, "name", in->function_names[s->function]);
		ecp_json_kv_string(&w, "cat", "function");
		ecp_json_kv_double(&w, "ts", (double)s->start_ns / 1e3);
		ecp_json_kv_double(&w, "dur", (double)(s->end_ns - s->start_ns) / 1e3);
		ecp_json_kv_int(&w, "pid", PID);
		ecp_json_kv_uint(&w, "tid", (uint64_t)s->thread + 1);
		ecp_json_key(&w, "args");
		ecp_json_begin_object(&w);
		ecp_json_kv_bool(&w, "ecp", s->on_ecp);
		ecp_json_kv_double(&w, "weight", s->weight);
		ecp_json_kv_uint(&w, "depth", s->depth);
		if (s->sampled)
			ecp_json_kv_bool(&w, "sampled", true);
		ecp_json_end_object(&w);
		ecp_json_end_object(&w);
	}
	for (size_t i = 0; i < in->flow_count; i++) {
		const struct ecp_perfetto_flow *f = &in->flows[i];
		const char *kind = f->kind ? f->kind : "dependency";
		ecp_json_newline(&w);
		flow_end(&w, "s", kind, i + 1, f->from_thread, f->from_ns);
		flow_end(&w, "f", kind, i + 1, f->to_thread, f->to_ns);
	}
	ecp_json_end_array(&w);
	ecp_json_end_object(&w);
	free(order);
	rc = ecp_json_finish(&w, err);
	if (rc)
		ecp_error_prefix(err, "failed to write the Perfetto trace");
	return rc;
}
