/* SPDX-License-Identifier: MIT */
#include "ecp/compare-spread.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct by_tn {
	int64_t tn;
	size_t run;
};

static int cmp_tn(const void *pa, const void *pb)
{
	const struct by_tn *a = pa, *b = pb;
	if (a->tn != b->tn)
		return a->tn < b->tn ? -1 : 1;
	return (a->run > b->run) - (a->run < b->run);
}

/* The run with the median T_N (the lower of the two middles); 0 when out
 * of memory. */
static size_t median_run(const struct ecp_compare_result *runs, size_t n)
{
	struct by_tn *v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return 0;
	for (size_t i = 0; i < n; i++)
		v[i] = (struct by_tn){runs[i].inflation.tn_ns, i};
	qsort(v, n, sizeof(*v), cmp_tn);
	size_t m = v[(n - 1) / 2].run;
	free(v);
	return m;
}

static void widen(double *lo, double *hi, double v)
{
	if (isnan(v))
		return;
	if (isnan(*lo) || v < *lo)
		*lo = v;
	if (isnan(*hi) || v > *hi)
		*hi = v;
}

static double function_ratio(const struct ecp_compare_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_functions; i++)
		if (!strcmp(r->functions[i].name, name))
			return r->functions[i].ratio;
	return NAN;
}

static double thread_ratio(const struct ecp_compare_result *r, uint32_t index)
{
	for (size_t i = 0; i < r->n_threads; i++)
		if (r->threads[i].index == index)
			return r->threads[i].ratio;
	return NAN;
}

int ecp_compare_spread_of(const struct ecp_compare_result *runs, size_t n,
			  struct ecp_compare_spread *out, struct ecp_error *err)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		if (runs[i].mode != ECP_COMPARE_MEASURED || runs[i].swapped ||
		    runs[i].inflation.cpus != runs[0].inflation.cpus)
			return ecp_error_set(
			    err, ECP_ERR,
			    "OTHER #%zu: with several OTHER recordings, each must be "
			    "recorded on the same N CPUs (ecp record --cpus) and BASE on "
			    "one "
			    "(here it is %s)",
			    i + 1,
			    runs[i].mode != ECP_COMPARE_MEASURED ? "on one CPU"
			    : runs[i].swapped ? "BASE that is on several CPUs"
					      : "on another count of CPUs");
	out->runs = n;
	out->median = median_run(runs, n);
	const struct ecp_compare_result *m = &runs[out->median];
	size_t nf = m->n_functions ? m->n_functions : 1;
	size_t nt = m->n_threads ? m->n_threads : 1;
	out->fn_min = malloc(nf * sizeof(double));
	out->fn_max = malloc(nf * sizeof(double));
	out->th_min = malloc(nt * sizeof(double));
	out->th_max = malloc(nt * sizeof(double));
	if (!out->fn_min || !out->fn_max || !out->th_min || !out->th_max) {
		ecp_compare_spread_finish(out);
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (spread)");
	}
	out->tn_min_ns = out->tn_max_ns = m->inflation.tn_ns;
	for (size_t i = 0; i < n; i++) {
		if (runs[i].inflation.tn_ns < out->tn_min_ns)
			out->tn_min_ns = runs[i].inflation.tn_ns;
		if (runs[i].inflation.tn_ns > out->tn_max_ns)
			out->tn_max_ns = runs[i].inflation.tn_ns;
	}
	for (size_t f = 0; f < m->n_functions; f++) {
		out->fn_min[f] = out->fn_max[f] = NAN;
		for (size_t i = 0; i < n; i++)
			widen(&out->fn_min[f], &out->fn_max[f],
			      function_ratio(&runs[i], m->functions[f].name));
	}
	for (size_t t = 0; t < m->n_threads; t++) {
		out->th_min[t] = out->th_max[t] = NAN;
		for (size_t i = 0; i < n; i++)
			widen(&out->th_min[t], &out->th_max[t],
			      thread_ratio(&runs[i], m->threads[t].index));
	}
	return ECP_OK;
}

void ecp_compare_spread_finish(struct ecp_compare_spread *s)
{
	if (!s)
		return;
	free(s->fn_min);
	free(s->fn_max);
	free(s->th_min);
	free(s->th_max);
	memset(s, 0, sizeof(*s));
}
