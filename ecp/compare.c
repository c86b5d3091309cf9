/* SPDX-License-Identifier: MIT */
/* ecp_compare(): two recordings of one program side by side (ecp/compare.h).
 *
 * Functions are matched by name, since the two recordings number them in
 * the order each met them; a name two functions of one recording share
 * (two static helpers of different objects) is one row holding both.
 * Threads are matched by the order they were created, which for a program
 * that creates its threads in a fixed order is the same in every run,
 * where their tids are not. */
#include "ecp/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ecp/analysis.h"
#include "ecp/sweep.h"

const char *ecp_compare_mode_name(enum ecp_compare_mode mode)
{
	return mode == ECP_COMPARE_MEASURED ? "measured" : "before_after";
}

static uint64_t cpus_of(uint64_t recorded)
{
	return recorded ? recorded : 1;
}

int ecp_compare_mode_of(uint64_t base_cpus, uint64_t other_cpus,
			enum ecp_compare_mode *mode, bool *swapped, struct ecp_error *err)
{
	uint64_t b = cpus_of(base_cpus), o = cpus_of(other_cpus);
	*mode = ECP_COMPARE_BEFORE_AFTER;
	*swapped = false;
	if (b > 1 && o > 1)
		return ecp_error_set(
		    err, ECP_ERR,
		    "both recordings ran on more than one CPU (BASE on %llu, OTHER on "
		    "%llu): a comparison needs one of them recorded on one CPU, as the "
		    "model's single-CPU baseline",
		    (unsigned long long)b, (unsigned long long)o);
	uint64_t n = b > o ? b : o;
	if (n > ECP_COMPARE_MAX_CPUS)
		return ecp_error_set(err, ECP_ERR,
				     "%s was recorded on %llu CPUs, more than the %u "
				     "any prediction is made for",
				     b > o ? "BASE" : "OTHER", (unsigned long long)n,
				     ECP_COMPARE_MAX_CPUS);
	if (n > 1)
		*mode = ECP_COMPARE_MEASURED;
	*swapped = b > 1;
	return ECP_OK;
}

/* num / den, NaN where den is not positive (no speedup is defined there). */
static double ratio_or_nan(double num, double den)
{
	return den > 0 ? num / den : NAN;
}

static int too_large(struct ecp_error *err, const char *what)
{
	return ecp_error_set(err, ECP_ERR,
			     "work inflation: %s does not fit in signed 64-bit ns", what);
}

static void factored_speedups(struct ecp_inflation *r)
{
	double n = (double)r->cpus, t1 = (double)r->t1_ns;
	r->speedup_linear = n;
	/* N T_s / T_1 with T_s = T_1 */
	r->speedup_maximal = ratio_or_nan(n * t1, t1);
	r->speedup_idle = ratio_or_nan(n * t1, t1 + (double)r->in_ns);
	/* N T_N - I_N = W_N + R_N: what the N CPUs spent on the program */
	r->speedup_inflation = ratio_or_nan(n * t1, (double)r->wn_ns + (double)r->rn_ns);
	r->speedup_actual = ratio_or_nan(t1, (double)r->tn_ns);
	r->speedup_predicted = ratio_or_nan(t1, (double)r->tn_predicted_ns);
}

int ecp_inflation_account(const struct ecp_inflation_input *in, struct ecp_inflation *out,
			  struct ecp_error *err)
{
	memset(out, 0, sizeof(*out));
	if (in->cpus < 1 || in->cpus > ECP_COMPARE_MAX_CPUS)
		return ecp_error_set(err, ECP_ERR_USAGE,
				     "work inflation: N = %llu CPUs is not in 1..%u",
				     (unsigned long long)in->cpus, ECP_COMPARE_MAX_CPUS);
	if (in->t1_ns > INT64_MAX || in->tn_ns > INT64_MAX ||
	    in->tn_predicted_ns > INT64_MAX || in->wn_ns > INT64_MAX ||
	    in->program_cpu_ns > INT64_MAX)
		return too_large(err, "an input");
	out->cpus = in->cpus;
	out->t1_ns = (int64_t)in->t1_ns;
	out->tn_ns = (int64_t)in->tn_ns;
	out->tn_predicted_ns = (int64_t)in->tn_predicted_ns;
	out->wn_ns = (int64_t)in->wn_ns;
	int64_t n = (int64_t)in->cpus, ntn, ntn_hat;
	if (__builtin_mul_overflow(n, out->tn_ns, &ntn) ||
	    __builtin_mul_overflow(n, out->tn_predicted_ns, &ntn_hat))
		return too_large(err, "N x T_N");
	out->rn_known = in->program_cpu_ns != 0;
	/* differences of two values in [0, INT64_MAX] always fit */
	out->rn_ns = out->rn_known ? (int64_t)in->program_cpu_ns - out->wn_ns : 0;
	out->fn_ns = out->wn_ns - out->t1_ns;
	out->in_predicted_ns = ntn_hat - out->t1_ns;
	out->gap_cpu_ns = ntn - ntn_hat;
	/* I_N from the identity itself, so that it holds to the ns */
	if (__builtin_sub_overflow(ntn - out->wn_ns, out->rn_ns, &out->in_ns))
		return too_large(err, "I_N");
	if (__builtin_sub_overflow(out->in_ns, out->in_predicted_ns,
				   &out->unforeseen_idle_ns))
		return too_large(err, "I_N - I^_N");
	factored_speedups(out);
	return ECP_OK;
}

/* ---- rows by name ---- */

struct name_ref {
	const char *name;
	uint8_t side; /* 0 base, 1 other */
	ecp_id id;
};

static const char *fn_name(const struct ecp_model *m, ecp_id f)
{
	return m->functions[f].name ? m->functions[f].name : "";
}

static int cmp_name_ref(const void *pa, const void *pb)
{
	const struct name_ref *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);
	if (c)
		return c;
	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/* One row per distinct name; row_of[side][f] is the row of function f. */
static int match_functions(const struct ecp_model *const side[2], ecp_id *row_of[2],
			   struct ecp_compare_result *r)
{
	size_t n = (size_t)side[0]->n_functions + side[1]->n_functions;
	struct name_ref *refs = malloc((n ? n : 1) * sizeof(*refs));
	r->functions = calloc(n ? n : 1, sizeof(*r->functions));
	if (!refs || !r->functions) {
		free(refs);
		return -1;
	}
	size_t k = 0;
	for (uint8_t s = 0; s < 2; s++)
		for (ecp_id f = 0; f < side[s]->n_functions; f++)
			refs[k++] = (struct name_ref){fn_name(side[s], f), s, f};
	qsort(refs, n, sizeof(*refs), cmp_name_ref);
	size_t rows = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(refs[i].name, refs[i - 1].name))
			r->functions[rows++].name = refs[i].name;
		row_of[refs[i].side][refs[i].id] = (ecp_id)(rows - 1);
	}
	r->n_functions = rows;
	free(refs);
	return 0;
}

static void add_work(const struct ecp_model *m, const ecp_id *row_of, bool other,
		     struct ecp_compare_function *rows)
{
	for (uint32_t s = 0; s < m->n_segments; s++) {
		struct ecp_activity one;
		const struct ecp_activity *acts;
		uint32_t n = ecp_segment_activities(m, &m->segments[s], &one, &acts);
		for (uint32_t i = 0; i < n; i++) {
			const struct ecp_activity *act = &acts[i];
			struct ecp_compare_function *row = &rows[row_of[act->function]];
			/* ran there: a symbol table lists functions that never did */
			if (other) {
				row->in_other = true;
				row->work_other_ns += act->self_ns;
			} else {
				row->in_base = true;
				row->work_base_ns += act->self_ns;
			}
		}
	}
}

/* Rows with no work on either side say nothing; the rest move up and
 * row_of follows them (ECP_NO_ID for a row dropped). */
static int drop_idle_rows(struct ecp_compare_result *r, ecp_id *row_of[2],
			  const uint32_t n_functions[2])
{
	ecp_id *moved = malloc((r->n_functions ? r->n_functions : 1) * sizeof(*moved));
	if (!moved)
		return -1;
	size_t kept = 0;
	for (size_t i = 0; i < r->n_functions; i++) {
		const struct ecp_compare_function *row = &r->functions[i];
		moved[i] = ECP_NO_ID;
		if (!row->work_base_ns && !row->work_other_ns)
			continue;
		moved[i] = (ecp_id)kept;
		r->functions[kept++] = *row;
	}
	r->n_functions = kept;
	for (int s = 0; s < 2; s++)
		for (ecp_id f = 0; f < n_functions[s]; f++)
			row_of[s][f] = moved[row_of[s][f]];
	free(moved);
	return 0;
}

static void finish_rows(struct ecp_compare_result *r)
{
	for (size_t i = 0; i < r->n_functions; i++) {
		struct ecp_compare_function *row = &r->functions[i];
		row->diff_ns = (int64_t)row->work_other_ns - (int64_t)row->work_base_ns;
		row->ratio =
		    ratio_or_nan((double)row->work_other_ns, (double)row->work_base_ns);
	}
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* Equal changes (none, between two copies of a recording): the larger
 * function first, as a profile would show them. */
static int cmp_by_size(const struct ecp_compare_function *a,
		       const struct ecp_compare_function *b)
{
	uint64_t ka =
	    a->work_base_ns > a->work_other_ns ? a->work_base_ns : a->work_other_ns;
	uint64_t kb =
	    b->work_base_ns > b->work_other_ns ? b->work_base_ns : b->work_other_ns;
	if (ka != kb)
		return ka > kb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int cmp_by_change(const void *pa, const void *pb)
{
	const struct ecp_compare_function *a = pa, *b = pb;
	int64_t ka = abs64(a->diff_ns), kb = abs64(b->diff_ns);
	if (ka != kb)
		return ka > kb ? -1 : 1;
	return cmp_by_size(a, b);
}

static int cmp_by_extra(const void *pa, const void *pb)
{
	const struct ecp_compare_function *a = pa, *b = pb;
	if (a->diff_ns != b->diff_ns)
		return a->diff_ns > b->diff_ns ? -1 : 1;
	return cmp_by_size(a, b);
}

/* ---- the engine on one side ---- */

struct side_out {
	uint64_t *makespan;   /* per P */
	uint32_t *inexact;    /* per P */
	const ecp_id *row_of; /* NULL: no TET wanted */
	double *tet;          /* row * n + i */
};

static void take_analysis(const struct ecp_analysis *a, size_t i, size_t n,
			  struct side_out *o)
{
	o->makespan[i] = a->makespan_ns;
	o->inexact[i] = a->inexact_segments;
	for (size_t k = 0; o->row_of && k < a->n_functions; k++) {
		ecp_id row = o->row_of[a->functions[k].function];
		/* functions that share a name add up in their row */
		if (row != ECP_NO_ID)
			o->tet[(size_t)row * n + i] += a->functions[k].tet_ns;
	}
}

static int sweep_side(const struct ecp_model *m, const struct ecp_dag *dag,
		      const unsigned *ps, size_t n, const struct ecp_engine_options *opts,
		      struct side_out *o, struct ecp_error *err)
{
	struct ecp_sweep *sweep = NULL;
	int rc = ecp_sweep_create(m, dag, opts, &sweep, err);
	for (size_t i0 = 0; i0 < n && rc == ECP_OK; i0 += ECP_SWEEP_BATCH) {
		size_t k = n - i0 < ECP_SWEEP_BATCH ? n - i0 : ECP_SWEEP_BATCH;
		struct ecp_analysis batch[ECP_SWEEP_BATCH];
		rc = ecp_sweep_analyze_many(sweep, ps + i0, k, false, batch, err);
		for (size_t j = 0; rc == ECP_OK && j < k; j++)
			take_analysis(&batch[j], i0 + j, n, o);
		for (size_t j = 0; rc == ECP_OK && j < k; j++)
			ecp_analysis_finish(&batch[j]);
	}
	ecp_sweep_destroy(sweep);
	if (rc < 0 && m->info.trace_path)
		return ecp_error_prefix(err, "trace=%s", m->info.trace_path);
	return rc;
}

/* ---- before/after ---- */

static int check_processors(const struct ecp_compare_input *in, struct ecp_error *err)
{
	if (!in->n_processors)
		return ecp_error_set(err, ECP_ERR_USAGE, "compare: no processor count");
	for (size_t i = 0; i < in->n_processors; i++)
		if (in->processors[i] < 1)
			return ecp_error_set(err, ECP_ERR_USAGE,
					     "compare: P = 0 (P counts from 1)");
	return ECP_OK;
}

static int predict_points(const struct ecp_compare_input *in,
			  struct ecp_compare_result *r, ecp_id *row_of[2],
			  struct ecp_error *err)
{
	size_t n = in->n_processors;
	uint64_t *ms = calloc(2 * n, sizeof(*ms));
	uint32_t *inexact = calloc(2 * n, sizeof(*inexact));
	r->points = calloc(n, sizeof(*r->points));
	r->tet = calloc(2 * n * (r->n_functions ? r->n_functions : 1), sizeof(*r->tet));
	int rc = ECP_OK;
	if (!ms || !inexact || !r->points || !r->tet) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (compare)");
		goto out;
	}
	double *tet_other = r->tet + n * r->n_functions;
	struct side_out base = {ms, inexact, row_of[0], r->tet};
	struct side_out other = {ms + n, inexact + n, row_of[1], tet_other};
	if ((rc = sweep_side(r->base, in->base_dag, in->processors, n, in->engine_options,
			     &base, err)) < 0 ||
	    (rc = sweep_side(r->other, in->other_dag, in->processors, n,
			     in->engine_options, &other, err)) < 0)
		goto out;
	r->n_points = n;
	for (size_t i = 0; i < n; i++)
		r->points[i] = (struct ecp_compare_point){
		    .processors = in->processors[i],
		    .makespan_base_ns = ms[i],
		    .makespan_other_ns = ms[n + i],
		    .diff_ns = (int64_t)ms[n + i] - (int64_t)ms[i],
		    .inexact_base = inexact[i],
		    .inexact_other = inexact[n + i],
		};
	for (size_t k = 0; k < r->n_functions; k++) {
		r->functions[k].tet_base_ns = r->tet + k * n;
		r->functions[k].tet_other_ns = tet_other + k * n;
	}
out:
	free(ms);
	free(inexact);
	return rc;
}

/* ---- measured at N ---- */

/* When a thread was created: the end of the parent's segment that ended
 * at pthread_create (its CREATE edge), else its own start (main, threads
 * no create was seen for); ties by the creating segment, which keeps one
 * parent's creates in program order. */
struct created {
	uint64_t at;
	ecp_id by;
	uint32_t thread;
};

static struct created creation_of(const struct ecp_model *m, uint32_t t)
{
	const struct ecp_thread *th = &m->threads[t];
	struct created c = {UINT64_MAX, ECP_NO_ID, t};
	if (!th->n_segments)
		return c;
	const struct ecp_segment *first = &m->segments[th->first_segment];
	c.at = first->rec_start;
	for (uint32_t e = first->first_in; e < ecp_segment_in_end(m, th->first_segment);
	     e++)
		if (m->edges[e].kind == ECP_EDGE_CREATE) {
			c.at = m->segments[m->edges[e].from].rec_end;
			c.by = m->edges[e].from;
			break;
		}
	return c;
}

static int cmp_created(const void *pa, const void *pb)
{
	const struct created *a = pa, *b = pb;
	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	if (a->by != b->by)
		return a->by < b->by ? -1 : 1;
	return (a->thread > b->thread) - (a->thread < b->thread);
}

/* The model numbers threads as the recorder first saw them, which on N
 * CPUs is the order they started, not the order they were created. */
static uint32_t *creation_order(const struct ecp_model *m)
{
	struct created *c = malloc((m->n_threads ? m->n_threads : 1) * sizeof(*c));
	uint32_t *order = malloc((m->n_threads ? m->n_threads : 1) * sizeof(*order));
	if (!c || !order) {
		free(c);
		free(order);
		return NULL;
	}
	for (uint32_t t = 0; t < m->n_threads; t++)
		c[t] = creation_of(m, t);
	qsort(c, m->n_threads, sizeof(*c), cmp_created);
	for (uint32_t t = 0; t < m->n_threads; t++)
		order[t] = c[t].thread;
	free(c);
	return order;
}

static void match_thread(struct ecp_compare_result *r, uint32_t k, const uint32_t *ob,
			 const uint32_t *oo)
{
	uint32_t nb = r->base->n_threads, no = r->other->n_threads;
	struct ecp_compare_thread *x = &r->threads[k];
	x->index = k;
	x->base = k < nb ? &r->base->threads[ob[k]] : NULL;
	x->other = k < no ? &r->other->threads[oo[k]] : NULL;
	x->work_base_ns = x->base ? ecp_model_thread_work(r->base, ob[k]) : 0;
	x->work_other_ns = x->other ? ecp_model_thread_work(r->other, oo[k]) : 0;
	x->diff_ns = (int64_t)x->work_other_ns - (int64_t)x->work_base_ns;
	x->ratio = ratio_or_nan((double)x->work_other_ns, (double)x->work_base_ns);
}

static int match_threads(struct ecp_compare_result *r)
{
	uint32_t nb = r->base->n_threads, no = r->other->n_threads;
	size_t n = nb > no ? nb : no;
	uint32_t *ob = creation_order(r->base), *oo = creation_order(r->other);
	r->threads = calloc(n ? n : 1, sizeof(*r->threads));
	int rc = ob && oo && r->threads ? 0 : -1;
	for (uint32_t k = 0; !rc && k < n; k++)
		match_thread(r, k, ob, oo);
	r->n_threads = rc ? 0 : n;
	free(ob);
	free(oo);
	return rc;
}

/* By extra work, then in the order they were created. */
static int cmp_thread(const void *pa, const void *pb)
{
	const struct ecp_compare_thread *a = pa, *b = pb;
	if (a->diff_ns != b->diff_ns)
		return a->diff_ns > b->diff_ns ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

/* The inflation-aware T_P at the P asked and at N (added when missing). */
static int predict_inflated(const struct ecp_compare_input *in,
			    struct ecp_compare_result *r, unsigned n,
			    struct ecp_error *err)
{
	unsigned *ps = malloc((in->n_processors + 1) * sizeof(*ps));
	if (!ps)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (compare)");
	size_t k = 0;
	bool have_n = false;
	for (size_t i = 0; i < in->n_processors; i++) {
		if (!have_n && in->processors[i] > n) {
			ps[k++] = n;
			have_n = true;
		}
		have_n |= in->processors[i] == n;
		ps[k++] = in->processors[i];
	}
	if (!have_n)
		ps[k++] = n;
	int rc = ecp_inflated_predict(r->base, in->base_dag, r->other, in->lock_policy,
				      ps, k, in->engine_options, &r->inflated, err);
	free(ps);
	for (size_t i = 0; rc == ECP_OK && i < r->inflated.n_points; i++)
		if (r->inflated.points[i].processors == n)
			r->tn_inflated_ns = r->inflated.points[i].inflated_ns;
	return rc;
}

static int account_measured(const struct ecp_compare_input *in,
			    struct ecp_compare_result *r, struct ecp_error *err)
{
	const struct ecp_model *other = r->other;
	const char *where = other->info.trace_path ? other->info.trace_path : "OTHER";
	uint64_t n = cpus_of(other->info.recorded_cpus);
	if (!other->info.recorded_wall_ns)
		return ecp_error_set(err, ECP_ERR,
				     "trace=%s: recorded on %llu CPUs, but its wall time "
				     "(the measured T_%llu) is not in ecp-record.meta",
				     where, (unsigned long long)n, (unsigned long long)n);
	/* T_1 and T^_N: the engine on BASE, at P = 1 and at P = N */
	const unsigned ps[2] = {1, (unsigned)n};
	uint64_t ms[2];
	uint32_t inexact[2];
	struct side_out o = {ms, inexact, NULL, NULL};
	int rc = sweep_side(r->base, in->base_dag, ps, 2, in->engine_options, &o, err);
	if (rc < 0)
		return rc;
	struct ecp_inflation_input acc = {
	    .cpus = n,
	    .t1_ns = ms[0],
	    .tn_ns = other->info.recorded_wall_ns,
	    .tn_predicted_ns = ms[1],
	    .wn_ns = ecp_model_work(other),
	    .program_cpu_ns = other->info.program_cpu_ns,
	};
	if (ecp_inflation_account(&acc, &r->inflation, err) < 0)
		return ecp_error_prefix(err, "trace=%s", where);
	if (in->inflation_aware && (rc = predict_inflated(in, r, (unsigned)n, err)) < 0)
		return rc;
	if (ecp_handoffs_measure(r->base, &r->handoffs_base) < 0 ||
	    ecp_handoffs_measure(r->other, &r->handoffs_other) < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (compare)");
	if (match_threads(r) < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (compare)");
	qsort(r->threads, r->n_threads, sizeof(*r->threads), cmp_thread);
	return ECP_OK;
}

/* ---- the whole ---- */

static bool same_program(const struct ecp_model *a, const struct ecp_model *b)
{
	const char *pa = a->info.program ? a->info.program : "";
	const char *pb = b->info.program ? b->info.program : "";
	return !strcmp(pa, pb);
}

static ecp_id *new_row_map(uint32_t n)
{
	ecp_id *map = malloc((n ? n : 1) * sizeof(*map));
	for (uint32_t i = 0; map && i < n; i++)
		map[i] = ECP_NO_ID;
	return map;
}

static int compare_functions(const struct ecp_compare_input *in,
			     struct ecp_compare_result *r, struct ecp_error *err)
{
	const struct ecp_model *side[2] = {r->base, r->other};
	const uint32_t nf[2] = {r->base->n_functions, r->other->n_functions};
	ecp_id *row_of[2] = {new_row_map(nf[0]), new_row_map(nf[1])};
	int rc = ECP_OK;
	if (!row_of[0] || !row_of[1] || match_functions(side, row_of, r) < 0) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (compare)");
		goto out;
	}
	add_work(r->base, row_of[0], false, r->functions);
	add_work(r->other, row_of[1], true, r->functions);
	if (drop_idle_rows(r, row_of, nf) < 0) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (compare)");
		goto out;
	}
	finish_rows(r);
	if (r->mode == ECP_COMPARE_BEFORE_AFTER &&
	    (rc = predict_points(in, r, row_of, err)) < 0)
		goto out;
	qsort(r->functions, r->n_functions, sizeof(*r->functions),
	      r->mode == ECP_COMPARE_MEASURED ? cmp_by_extra : cmp_by_change);
out:
	free(row_of[0]);
	free(row_of[1]);
	return rc;
}

int ecp_compare(const struct ecp_compare_input *in, struct ecp_compare_result *out,
		struct ecp_error *err)
{
	memset(out, 0, sizeof(*out));
	int rc = ecp_compare_mode_of(in->base->info.recorded_cpus,
				     in->other->info.recorded_cpus, &out->mode,
				     &out->swapped, err);
	if (rc < 0)
		return rc;
	if (out->mode == ECP_COMPARE_BEFORE_AFTER && (rc = check_processors(in, err)) < 0)
		return rc;
	out->base = out->swapped ? in->other : in->base;
	out->other = out->swapped ? in->base : in->other;
	out->same_program = same_program(in->base, in->other);
	struct ecp_compare_input sides = *in;
	if (out->swapped) {
		sides.base_dag = in->other_dag;
		sides.other_dag = in->base_dag;
	}
	if ((rc = compare_functions(&sides, out, err)) < 0 ||
	    (out->mode == ECP_COMPARE_MEASURED &&
	     (rc = account_measured(&sides, out, err)) < 0)) {
		ecp_compare_finish(out);
		return rc;
	}
	return ECP_OK;
}

void ecp_compare_finish(struct ecp_compare_result *r)
{
	if (!r)
		return;
	free(r->points);
	free(r->functions);
	free(r->threads);
	free(r->tet);
	ecp_inflated_finish(&r->inflated);
	memset(r, 0, sizeof(*r));
}
