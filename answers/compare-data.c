/* SPDX-License-Identifier: MIT */
/* `ecp compare` for scripts: JSON and CSV (answers/compare.h).  Every
 * time is integer ns; the gap between measured and predicted is given in
 * CPU time, N (T_N - T^_N), whose three parts add up to it exactly. */
#include "answers/compare.h"

#include <math.h>
#include <stdio.h>

#include "answers/consistency-json.h"
#include "common/time-round.h"
#include "viz/csv.h"
#include "viz/json.h"

static size_t shown(const struct ecp_compare_view *v, size_t n)
{
	return v->rows < n ? v->rows : n;
}

static void json_side(struct ecp_json_writer *w, const char *key,
		      const struct ecp_compare_side *s)
{
	const struct ecp_model *m = s->model;
	ecp_json_key(w, key);
	ecp_json_begin_object(w);
	ecp_json_kv_string(w, "trace", s->dir);
	ecp_json_kv_string(w, "program", m->info.program ? m->info.program : "");
	ecp_json_kv_uint(w, "recorded_cpus",
			 m->info.recorded_cpus ? m->info.recorded_cpus : 1);
	ecp_json_kv_uint(w, "recorded_wall_ns", m->info.recorded_wall_ns);
	ecp_json_kv_uint(w, "work_ns", s->work_ns);
	ecp_json_kv_uint(w, "span_ns", s->span_ns);
	ecp_answer_warnings_json(w, m);
	ecp_answer_consistency_json(w, s->consistency);
	ecp_json_end_object(w);
}

static void json_head(struct ecp_json_writer *w, const struct ecp_compare_view *v)
{
	ecp_json_kv_string(w, "mode", ecp_compare_mode_name(v->r->mode));
	ecp_json_kv_bool(w, "swapped", v->r->swapped);
	ecp_json_kv_bool(w, "same_program", v->r->same_program);
	json_side(w, "base", &v->base);
	json_side(w, "other", &v->other);
}

/* An array of n values, one per P, taken by `get`. */
static void json_per_p(struct ecp_json_writer *w, const char *key, size_t n,
		       int64_t (*get)(const struct ecp_compare_point *),
		       const struct ecp_compare_point *points)
{
	ecp_json_key(w, key);
	ecp_json_begin_array(w);
	for (size_t i = 0; i < n; i++)
		ecp_json_int(w, get(&points[i]));
	ecp_json_end_array(w);
}

static int64_t point_p(const struct ecp_compare_point *p)
{
	return p->processors;
}
static int64_t point_base(const struct ecp_compare_point *p)
{
	return (int64_t)p->makespan_base_ns;
}
static int64_t point_other(const struct ecp_compare_point *p)
{
	return (int64_t)p->makespan_other_ns;
}
static int64_t point_diff(const struct ecp_compare_point *p)
{
	return p->diff_ns;
}

static void json_tet(struct ecp_json_writer *w, const char *key, size_t n,
		     const double *a, const double *b)
{
	ecp_json_key(w, key);
	ecp_json_begin_array(w);
	for (size_t i = 0; i < n; i++)
		ecp_json_int(w, b ? ecp_round_ns(a[i]) - ecp_round_ns(b[i])
				  : ecp_round_ns(a[i]));
	ecp_json_end_array(w);
}

/* lo and hi: the inflation's range over several runs (NaN: one run). */
static void json_function(struct ecp_json_writer *w, const struct ecp_compare_result *r,
			  const struct ecp_compare_function *f, double lo, double hi)
{
	bool measured = r->mode == ECP_COMPARE_MEASURED;
	ecp_json_begin_object(w);
	ecp_json_kv_string(w, "name", f->name);
	ecp_json_kv_bool(w, "in_base", f->in_base);
	ecp_json_kv_bool(w, "in_other", f->in_other);
	ecp_json_kv_uint(w, measured ? "work_1_ns" : "work_base_ns", f->work_base_ns);
	ecp_json_kv_uint(w, measured ? "work_n_ns" : "work_other_ns", f->work_other_ns);
	ecp_json_kv_int(w, measured ? "extra_ns" : "diff_ns", f->diff_ns);
	ecp_json_kv_double(w, measured ? "inflation" : "ratio", f->ratio);
	if (measured) {
		ecp_json_kv_double(w, "inflation_min", isnan(lo) ? f->ratio : lo);
		ecp_json_kv_double(w, "inflation_max", isnan(hi) ? f->ratio : hi);
	}
	if (!measured) {
		json_tet(w, "tet_base_ns", r->n_points, f->tet_base_ns, NULL);
		json_tet(w, "tet_other_ns", r->n_points, f->tet_other_ns, NULL);
		json_tet(w, "tet_diff_ns", r->n_points, f->tet_other_ns, f->tet_base_ns);
	}
	ecp_json_end_object(w);
}

static void json_functions(struct ecp_json_writer *w, const struct ecp_compare_view *v)
{
	ecp_json_key(w, "functions");
	ecp_json_begin_array(w);
	for (size_t i = 0; i < shown(v, v->r->n_functions); i++)
		json_function(w, v->r, &v->r->functions[i],
			      v->spread ? v->spread->fn_min[i] : NAN,
			      v->spread ? v->spread->fn_max[i] : NAN);
	ecp_json_end_array(w);
}

static void json_before_after(struct ecp_json_writer *w, const struct ecp_compare_view *v)
{
	const struct ecp_compare_result *r = v->r;
	json_per_p(w, "processors", r->n_points, point_p, r->points);
	json_per_p(w, "makespan_base_ns", r->n_points, point_base, r->points);
	json_per_p(w, "makespan_other_ns", r->n_points, point_other, r->points);
	json_per_p(w, "makespan_diff_ns", r->n_points, point_diff, r->points);
	json_functions(w, v);
}

static void json_totals(struct ecp_json_writer *w, const struct ecp_inflation *x)
{
	ecp_json_key(w, "totals");
	ecp_json_begin_object(w);
	ecp_json_kv_int(w, "t1_ns", x->t1_ns);
	ecp_json_kv_int(w, "tn_ns", x->tn_ns);
	ecp_json_kv_int(w, "tn_predicted_ns", x->tn_predicted_ns);
	ecp_json_kv_int(w, "wn_ns", x->wn_ns);
	ecp_json_kv_int(w, "rn_ns", x->rn_ns);
	ecp_json_kv_bool(w, "rn_known", x->rn_known);
	ecp_json_kv_int(w, "fn_ns", x->fn_ns);
	ecp_json_kv_int(w, "in_ns", x->in_ns);
	ecp_json_kv_int(w, "in_predicted_ns", x->in_predicted_ns);
	ecp_json_end_object(w);
	/* N (T_N - T^_N) = F_N + (I_N - I^_N) + R_N, in CPU time */
	ecp_json_key(w, "gap");
	ecp_json_begin_object(w);
	ecp_json_kv_int(w, "gap_cpu_ns", x->gap_cpu_ns);
	ecp_json_kv_int(w, "inflation_cpu_ns", x->fn_ns);
	ecp_json_kv_int(w, "unforeseen_idle_cpu_ns", x->unforeseen_idle_ns);
	ecp_json_kv_int(w, "recorder_cpu_ns", x->rn_ns);
	ecp_json_end_object(w);
}

static void json_speedups(struct ecp_json_writer *w, const struct ecp_inflation *x)
{
	ecp_json_key(w, "speedups");
	ecp_json_begin_object(w);
	/* no separate sequential run: T_s is T_1, and maximal is N */
	ecp_json_kv_string(w, "sequential_baseline", "t1");
	ecp_json_kv_double(w, "linear", x->speedup_linear);
	ecp_json_kv_double(w, "maximal", x->speedup_maximal);
	ecp_json_kv_double(w, "idle_specific", x->speedup_idle);
	ecp_json_kv_double(w, "inflation_specific", x->speedup_inflation);
	ecp_json_kv_double(w, "actual", x->speedup_actual);
	ecp_json_kv_double(w, "predicted", x->speedup_predicted);
	ecp_json_end_object(w);
}

static void json_thread_side(struct ecp_json_writer *w, const char *name_key,
			     const char *tid_key, const struct ecp_model *m,
			     const struct ecp_thread *t, uint32_t index)
{
	char label[96] = "";
	if (t)
		ecp_compare_thread_label(m, t, index, label, sizeof(label));
	ecp_json_kv_string(w, name_key, t ? label : NULL);
	ecp_json_key(w, tid_key);
	if (t)
		ecp_json_uint(w, t->tid);
	else
		ecp_json_null(w);
}

static void json_threads(struct ecp_json_writer *w, const struct ecp_compare_view *v)
{
	const struct ecp_compare_result *r = v->r;
	ecp_json_key(w, "threads");
	ecp_json_begin_array(w);
	for (size_t i = 0; i < shown(v, r->n_threads); i++) {
		const struct ecp_compare_thread *x = &r->threads[i];
		ecp_json_begin_object(w);
		ecp_json_kv_uint(w, "index", x->index);
		json_thread_side(w, "name", "tid_base", r->base, x->base, x->index);
		json_thread_side(w, "name_other", "tid_other", r->other, x->other,
				 x->index);
		ecp_json_kv_uint(w, "work_1_ns", x->work_base_ns);
		ecp_json_kv_uint(w, "work_n_ns", x->work_other_ns);
		ecp_json_kv_int(w, "extra_ns", x->diff_ns);
		ecp_json_kv_double(w, "inflation", x->ratio);
		ecp_json_kv_double(w, "inflation_min",
				   v->spread ? v->spread->th_min[i] : x->ratio);
		ecp_json_kv_double(w, "inflation_max",
				   v->spread ? v->spread->th_max[i] : x->ratio);
		ecp_json_end_object(w);
	}
	ecp_json_end_array(w);
}

/* The second model (ecp/inflated.h): T_P ideal and inflation-aware. */
static void json_inflated(struct ecp_json_writer *w, const struct ecp_compare_result *r)
{
	const struct ecp_inflated *m = &r->inflated;
	ecp_json_key(w, "inflation_aware");
	ecp_json_begin_object(w);
	ecp_json_kv_uint(w, "tn_ns", r->tn_inflated_ns);
	ecp_json_kv_uint(w, "work_ns", m->work_ns);
	ecp_json_kv_double(w, "residual_ratio", m->residual_ratio);
	ecp_json_kv_uint(w, "unplaced_ns", m->unplaced_ns);
	ecp_json_kv_uint(w, "noise_functions", m->noise_functions);
	ecp_json_kv_uint(w, "noise_ns", m->noise_ns);
	ecp_json_kv_uint(w, "handoff_mean_ns", m->handoff_mean_ns);
	ecp_json_key(w, "points");
	ecp_json_begin_array(w);
	for (size_t i = 0; i < m->n_points; i++) {
		const struct ecp_inflated_point *p = &m->points[i];
		ecp_json_begin_object(w);
		ecp_json_kv_uint(w, "processors", p->processors);
		ecp_json_kv_double(w, "share", p->share);
		ecp_json_kv_bool(w, "extrapolated", p->extrapolated);
		ecp_json_kv_uint(w, "ideal_ns", p->ideal_ns);
		ecp_json_kv_uint(w, "inflation_aware_ns", p->inflated_ns);
		ecp_json_kv_uint(w, "handoffs_on_path", p->handoffs);
		ecp_json_kv_uint(w, "handoff_ns", p->handoff_ns);
		ecp_json_end_object(w);
	}
	ecp_json_end_array(w);
	ecp_json_end_object(w);
}

static void json_handoffs(struct ecp_json_writer *w, const char *key,
			  const struct ecp_handoffs *h)
{
	ecp_json_key(w, key);
	ecp_json_begin_object(w);
	ecp_json_kv_uint(w, "count", h->count);
	ecp_json_kv_uint(w, "total_ns", h->total_ns);
	ecp_json_kv_uint(w, "median_ns", h->median_ns);
	ecp_json_end_object(w);
}

static void json_measured(struct ecp_json_writer *w, const struct ecp_compare_view *v)
{
	ecp_json_kv_uint(w, "processors", v->r->inflation.cpus);
	/* several recordings on N: the median run's answer, and the spread */
	ecp_json_kv_uint(w, "runs", v->spread ? v->spread->runs : 1);
	ecp_json_kv_int(w, "tn_min_ns",
			v->spread ? v->spread->tn_min_ns : v->r->inflation.tn_ns);
	ecp_json_kv_int(w, "tn_max_ns",
			v->spread ? v->spread->tn_max_ns : v->r->inflation.tn_ns);
	json_totals(w, &v->r->inflation);
	json_speedups(w, &v->r->inflation);
	json_inflated(w, v->r);
	json_handoffs(w, "handoffs_1", &v->r->handoffs_base);
	json_handoffs(w, "handoffs_n", &v->r->handoffs_other);
	json_functions(w, v);
	json_threads(w, v);
}

int ecp_compare_write_json(FILE *out, const struct ecp_compare_view *v,
			   struct ecp_error *err)
{
	struct ecp_json_writer w;
	ecp_json_init(&w, out, ECP_JSON_PRETTY);
	ecp_json_begin_object(&w);
	json_head(&w, v);
	if (v->r->mode == ECP_COMPARE_MEASURED)
		json_measured(&w, v);
	else
		json_before_after(&w, v);
	ecp_json_end_object(&w);
	return ecp_json_finish(&w, err) < 0 ? -1 : 0;
}

/* ---- CSV: one long table, a row per figure, `kind` saying which ---- */

static void csv_header(struct ecp_csv_writer *w, const char *const *hdr, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ecp_csv_string(w, hdr[i]);
	ecp_csv_end_row(w);
}

/* kind,name,processors,base,other,difference,ratio */
static void csv_row(struct ecp_csv_writer *w, const char *kind, const char *name,
		    unsigned p, int64_t base, int64_t other, double ratio)
{
	ecp_csv_string(w, kind);
	ecp_csv_string(w, name);
	if (p)
		ecp_csv_uint(w, p);
	else
		ecp_csv_string(w, NULL);
	ecp_csv_int(w, base);
	ecp_csv_int(w, other);
	ecp_csv_int(w, other - base);
	ecp_csv_double(w, ratio);
	ecp_csv_end_row(w);
}

static double ratio_of(int64_t other, int64_t base)
{
	return base > 0 ? (double)other / (double)base : NAN;
}

static void csv_before_after(struct ecp_csv_writer *w, const struct ecp_compare_view *v)
{
	static const char *const hdr[] = {"kind",  "name",       "processors", "base",
					  "other", "difference", "ratio"};
	const struct ecp_compare_result *r = v->r;
	csv_header(w, hdr, sizeof(hdr) / sizeof(hdr[0]));
	for (size_t i = 0; i < r->n_points; i++) {
		const struct ecp_compare_point *p = &r->points[i];
		csv_row(w, "makespan_ns", "", p->processors, (int64_t)p->makespan_base_ns,
			(int64_t)p->makespan_other_ns,
			ratio_of((int64_t)p->makespan_other_ns,
				 (int64_t)p->makespan_base_ns));
	}
	for (size_t k = 0; k < shown(v, r->n_functions); k++) {
		const struct ecp_compare_function *f = &r->functions[k];
		csv_row(w, "work_ns", f->name, 0, (int64_t)f->work_base_ns,
			(int64_t)f->work_other_ns, f->ratio);
		for (size_t i = 0; i < r->n_points; i++) {
			int64_t a = ecp_round_ns(f->tet_base_ns[i]),
				b = ecp_round_ns(f->tet_other_ns[i]);
			csv_row(w, "tet_ns", f->name, r->points[i].processors, a, b,
				ratio_of(b, a));
		}
	}
}

/* kind,name,work_1_ns,work_n_ns,extra_ns,inflation,value: a total or a
 * speedup has only the last */
static void csv_value_start(struct ecp_csv_writer *w, const char *kind, const char *name)
{
	ecp_csv_string(w, kind);
	ecp_csv_string(w, name);
	for (int i = 0; i < 4; i++)
		ecp_csv_string(w, NULL);
}

static void csv_total(struct ecp_csv_writer *w, const char *name, int64_t ns)
{
	csv_value_start(w, "total", name);
	ecp_csv_int(w, ns);
	ecp_csv_end_row(w);
}

static void csv_speedup(struct ecp_csv_writer *w, const char *name, double v)
{
	csv_value_start(w, "speedup", name);
	ecp_csv_double(w, v);
	ecp_csv_end_row(w);
}

static void csv_work(struct ecp_csv_writer *w, const char *kind, const char *name,
		     uint64_t at1, uint64_t atn, int64_t extra, double ratio)
{
	ecp_csv_string(w, kind);
	ecp_csv_string(w, name);
	ecp_csv_uint(w, at1);
	ecp_csv_uint(w, atn);
	ecp_csv_int(w, extra);
	ecp_csv_double(w, ratio);
	ecp_csv_string(w, NULL);
	ecp_csv_end_row(w);
}

/* Several runs: the lowest inflation (inflation) and the highest (value). */
static void csv_spread(struct ecp_csv_writer *w, const char *kind, const char *name,
		       double lo, double hi)
{
	ecp_csv_string(w, kind);
	ecp_csv_string(w, name);
	for (int i = 0; i < 3; i++)
		ecp_csv_string(w, NULL);
	ecp_csv_double(w, lo);
	ecp_csv_double(w, hi);
	ecp_csv_end_row(w);
}

static void csv_totals(struct ecp_csv_writer *w, const struct ecp_inflation *x)
{
	const struct {
		const char *name;
		int64_t v;
	} totals[] = {
	    {"processors", (int64_t)x->cpus},
	    {"t1_ns", x->t1_ns},
	    {"tn_ns", x->tn_ns},
	    {"tn_predicted_ns", x->tn_predicted_ns},
	    {"wn_ns", x->wn_ns},
	    {"rn_ns", x->rn_ns},
	    {"fn_ns", x->fn_ns},
	    {"in_ns", x->in_ns},
	    {"in_predicted_ns", x->in_predicted_ns},
	};
	for (size_t i = 0; i < sizeof(totals) / sizeof(totals[0]); i++)
		csv_total(w, totals[i].name, totals[i].v);
	const struct {
		const char *name;
		double v;
	} speedups[] = {
	    {"linear", x->speedup_linear},
	    {"maximal", x->speedup_maximal},
	    {"idle_specific", x->speedup_idle},
	    {"inflation_specific", x->speedup_inflation},
	    {"actual", x->speedup_actual},
	    {"predicted", x->speedup_predicted},
	};
	for (size_t i = 0; i < sizeof(speedups) / sizeof(speedups[0]); i++)
		csv_speedup(w, speedups[i].name, speedups[i].v);
}

static void csv_measured(struct ecp_csv_writer *w, const struct ecp_compare_view *v)
{
	static const char *const hdr[] = {
	    "kind", "name", "work_1_ns", "work_n_ns", "extra_ns", "inflation", "value"};
	const struct ecp_compare_result *r = v->r;
	csv_header(w, hdr, sizeof(hdr) / sizeof(hdr[0]));
	csv_totals(w, &r->inflation);
	csv_total(w, "tn_inflation_aware_ns", (int64_t)r->tn_inflated_ns);
	csv_total(w, "handoff_mean_ns", (int64_t)r->inflated.handoff_mean_ns);
	csv_total(w, "noise_functions", (int64_t)r->inflated.noise_functions);
	csv_total(w, "noise_ns", (int64_t)r->inflated.noise_ns);
	csv_total(w, "runs", v->spread ? (int64_t)v->spread->runs : 1);
	csv_total(w, "tn_min_ns", v->spread ? v->spread->tn_min_ns : r->inflation.tn_ns);
	csv_total(w, "tn_max_ns", v->spread ? v->spread->tn_max_ns : r->inflation.tn_ns);
	const struct {
		const char *name;
		uint64_t v;
	} handoffs[] = {
	    {"handoffs_1_count", r->handoffs_base.count},
	    {"handoffs_1_total_ns", r->handoffs_base.total_ns},
	    {"handoffs_1_median_ns", r->handoffs_base.median_ns},
	    {"handoffs_n_count", r->handoffs_other.count},
	    {"handoffs_n_total_ns", r->handoffs_other.total_ns},
	    {"handoffs_n_median_ns", r->handoffs_other.median_ns},
	};
	for (size_t k = 0; k < sizeof(handoffs) / sizeof(handoffs[0]); k++)
		csv_total(w, handoffs[k].name, (int64_t)handoffs[k].v);
	/* the second model per P: ideal and inflation-aware T_P, their
	 * difference, the share of N's inflation, 1 where extrapolated */
	for (size_t k = 0; k < r->inflated.n_points; k++) {
		const struct ecp_inflated_point *p = &r->inflated.points[k];
		char name[24];
		snprintf(name, sizeof(name), "P=%u", p->processors);
		ecp_csv_string(w, "inflation_aware");
		ecp_csv_string(w, name);
		ecp_csv_uint(w, p->ideal_ns);
		ecp_csv_uint(w, p->inflated_ns);
		ecp_csv_int(w, (int64_t)p->inflated_ns - (int64_t)p->ideal_ns);
		ecp_csv_double(w, p->share);
		ecp_csv_int(w, p->extrapolated);
		ecp_csv_end_row(w);
	}
	for (size_t k = 0; k < shown(v, r->n_functions); k++) {
		const struct ecp_compare_function *f = &r->functions[k];
		csv_work(w, "function", f->name, f->work_base_ns, f->work_other_ns,
			 f->diff_ns, f->ratio);
		if (v->spread)
			csv_spread(w, "function_spread", f->name, v->spread->fn_min[k],
				   v->spread->fn_max[k]);
	}
	for (size_t k = 0; k < shown(v, r->n_threads); k++) {
		const struct ecp_compare_thread *x = &r->threads[k];
		char label[96];
		const struct ecp_model *m = x->base ? r->base : r->other;
		ecp_compare_thread_label(m, x->base ? x->base : x->other, x->index, label,
					 sizeof(label));
		csv_work(w, "thread", label, x->work_base_ns, x->work_other_ns,
			 x->diff_ns, x->ratio);
		if (v->spread)
			csv_spread(w, "thread_spread", label, v->spread->th_min[k],
				   v->spread->th_max[k]);
	}
}

int ecp_compare_write_csv(FILE *out, const struct ecp_compare_view *v,
			  struct ecp_error *err)
{
	struct ecp_csv_writer w;
	ecp_csv_init(&w, out);
	if (v->r->mode == ECP_COMPARE_MEASURED)
		csv_measured(&w, v);
	else
		csv_before_after(&w, v);
	return ecp_csv_finish(&w, err) < 0 ? -1 : 0;
}

int ecp_compare_write(FILE *out, enum ecp_format format, const struct ecp_compare_view *v,
		      struct ecp_error *err)
{
	if (format == ECP_FORMAT_JSON)
		return ecp_compare_write_json(out, v, err);
	if (format == ECP_FORMAT_CSV)
		return ecp_compare_write_csv(out, v, err);
	return ecp_compare_write_table(out, v, err);
}
