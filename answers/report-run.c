/* SPDX-License-Identifier: MIT */
/* What ecp report computes (answers/report.h). */
#include "answers/report.h"

#include <stdlib.h>
#include <string.h>

static const char *const sort_names[ECP_REPORT_SORTS] = {"tet",  "tetid", "calls",
							 "work", "span",  "idle"};

const char *ecp_report_sort_name(enum ecp_report_sort sort)
{
	return sort < ECP_REPORT_SORTS ? sort_names[sort] : "tet";
}

int ecp_report_sort_from_name(const char *name, enum ecp_report_sort *out)
{
	for (unsigned i = 0; i < ECP_REPORT_SORTS; i++)
		if (!strcmp(name, sort_names[i])) {
			*out = (enum ecp_report_sort)i;
			return 0;
		}
	return -1;
}

static double sort_key(const struct ecp_function_result *f, enum ecp_report_sort sort)
{
	switch (sort) {
	case ECP_REPORT_SORT_TETID:
		return f->tetid_ns;
	case ECP_REPORT_SORT_CALLS:
		return (double)f->calls;
	case ECP_REPORT_SORT_WORK:
		return f->work_ns;
	case ECP_REPORT_SORT_SPAN:
		return f->span_ns;
	case ECP_REPORT_SORT_IDLE:
		return f->idle_ns;
	case ECP_REPORT_SORT_TET:
	default:
		return f->tet_ns;
	}
}

struct row_order {
	enum ecp_report_sort sort;
	const struct ecp_model *model;
};

static int compare_rows(const void *pa, const void *pb, void *ctx)
{
	const struct row_order *o = ctx;
	const struct ecp_function_result *a = pa, *b = pb;
	double ka = sort_key(a, o->sort), kb = sort_key(b, o->sort);
	if (ka != kb)
		return ka > kb ? -1 : 1;
	if (a->tet_ns != b->tet_ns)
		return a->tet_ns > b->tet_ns ? -1 : 1;
	int c = strcmp(o->model->functions[a->function].name,
		       o->model->functions[b->function].name);
	if (c)
		return c;
	return (a->function > b->function) - (a->function < b->function);
}

const struct ecp_function_result *ecp_report_top(const struct ecp_analysis *a)
{
	const struct ecp_function_result *top = NULL;
	for (size_t i = 0; i < a->n_functions; i++)
		if (a->functions[i].tet_ns > 0 &&
		    (!top || a->functions[i].tet_ns > top->tet_ns))
			top = &a->functions[i];
	return top;
}

/* P = 1..max(16, P): where the answer changes, as `ecp scan` would say. */
static int reading_sweep(const struct ecp_model *m, const struct ecp_dag *dag,
			 const struct ecp_engine_options *opts, unsigned processors,
			 const struct ecp_answer_progress *progress,
			 struct ecp_answer_sweep *out, struct ecp_error *err)
{
	unsigned last = processors > 16 ? processors : 16;
	unsigned *list = malloc(last * sizeof(*list));
	if (!list)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory"), -1;
	for (unsigned p = 0; p < last; p++)
		list[p] = p + 1;
	int rc = ecp_answer_sweep_run(m, dag, opts, list, last, 0, progress, out, err);
	free(list);
	return rc;
}

int ecp_report_run_make(const struct ecp_model *m, const struct ecp_dag *dag,
			const struct ecp_engine_options *opts, unsigned processors,
			enum ecp_report_sort sort, bool with_reading,
			const struct ecp_answer_progress *progress,
			struct ecp_report_run *out, struct ecp_error *err)
{
	memset(out, 0, sizeof(*out));
	if (ecp_analyze(m, dag, processors, opts, &out->analysis, err) < 0)
		return -1;
	out->analysed = true;
	struct row_order order = {sort, m};
	qsort_r(out->analysis.functions, out->analysis.n_functions,
		sizeof(out->analysis.functions[0]), compare_rows, &order);
	if (with_reading && ecp_report_top(&out->analysis))
		return reading_sweep(m, dag, opts, processors, progress, &out->reading,
				     err);
	return 0;
}

void ecp_report_run_finish(struct ecp_report_run *run)
{
	if (run->analysed)
		ecp_analysis_finish(&run->analysis);
	ecp_answer_sweep_finish(&run->reading);
	memset(run, 0, sizeof(*run));
}
