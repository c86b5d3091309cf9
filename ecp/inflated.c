/* SPDX-License-Identifier: MIT */
#include "ecp/inflated.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/time-round.h"
#include "ecp/handoff.h"
#include "ecp/sweep.h"

/* A function's name, its work (exclusive time) and the samples that
 * measured it, summed over the functions of one model that share the name. */
struct named_work {
	const char *name;
	uint64_t work_ns;
	uint64_t samples;
};

static int cmp_named(const void *pa, const void *pb)
{
	const struct named_work *a = pa, *b = pb;
	return strcmp(a->name, b->name);
}

static const char *name_of(const struct ecp_model *m, ecp_id f)
{
	return m->functions[f].name ? m->functions[f].name : "";
}

/* Per name, sorted: the model's work by function. */
static struct named_work *work_by_name(const struct ecp_model *m, size_t *n)
{
	uint64_t *by_id = calloc(m->n_functions ? m->n_functions : 1, sizeof(*by_id));
	struct named_work *w = calloc(m->n_functions ? m->n_functions : 1, sizeof(*w));
	if (!by_id || !w) {
		free(by_id);
		free(w);
		return NULL;
	}
	for (uint32_t s = 0; s < m->n_segments; s++) {
		struct ecp_activity one;
		const struct ecp_activity *act;
		uint32_t k = ecp_segment_activities(m, &m->segments[s], &one, &act);
		for (uint32_t i = 0; i < k; i++)
			by_id[act[i].function] += act[i].self_ns;
	}
	for (ecp_id f = 0; f < m->n_functions; f++)
		w[f] =
		    (struct named_work){name_of(m, f), by_id[f], m->functions[f].samples};
	free(by_id);
	qsort(w, m->n_functions, sizeof(*w), cmp_named);
	size_t k = 0;
	for (size_t i = 0; i < m->n_functions; i++) {
		if (k && !strcmp(w[k - 1].name, w[i].name)) {
			w[k - 1].work_ns += w[i].work_ns;
			w[k - 1].samples += w[i].samples;
		} else {
			w[k++] = w[i];
		}
	}
	*n = k;
	return w;
}

static const struct named_work *named(const struct named_work *w, size_t n,
				      const char *name)
{
	struct named_work key = {name, 0, 0};
	return bsearch(&key, w, n, sizeof(*w), cmp_named);
}

static uint64_t work_of(const struct named_work *w, size_t n, const char *name)
{
	const struct named_work *hit = named(w, n, name);
	return hit ? hit->work_ns : 0;
}

/* A function's ratio r = at N / at 1, or 1 when the samples that measured
 * it on either side cannot tell r from 1: a sampled time is known to about
 * 1/sqrt(samples), so r to sqrt(1/s1 + 1/sN), and a ratio within two of
 * that of 1 is the sampling's noise, not the machine's (pigz's deflate
 * measured x1.07 on ~10^3 samples made its prediction worse, issue 36).
 * Instrumented times (no samples) are exact and always count. */
static double ratio_of(const struct named_work *at_1, const struct named_work *at_n,
		       struct ecp_inflated *out)
{
	double r = (double)at_n->work_ns / (double)at_1->work_ns;
	if (r == 1.0 || (!at_1->samples && !at_n->samples))
		return r;
	double s1 = at_1->samples ? (double)at_1->samples : 1.0;
	double sn = at_n->samples ? (double)at_n->samples : 1.0;
	if (fabs(r - 1.0) >= ECP_INFLATED_NOISE_SIGMAS * sqrt(1.0 / s1 + 1.0 / sn))
		return r;
	out->noise_functions++;
	out->noise_ns += at_1->work_ns;
	return 1.0;
}

/* ratios[f] for every function of base, r0 for the rest (struct
 * ecp_inflated's fields say what). */
static int measure_ratios(const struct ecp_model *base, const struct ecp_model *other,
			  double *ratios, struct ecp_inflated *out)
{
	size_t nb, no;
	struct named_work *wb = work_by_name(base, &nb), *wo = work_by_name(other, &no);
	if (!wb || !wo) {
		free(wb);
		free(wo);
		return -1;
	}
	uint64_t matched_base = 0, matched_other = 0;
	for (size_t i = 0; i < nb; i++) {
		uint64_t at_n = work_of(wo, no, wb[i].name);
		if (wb[i].work_ns && at_n) {
			matched_base += wb[i].work_ns;
			matched_other += at_n;
		}
	}
	/* one ratio per name, then each function takes its name's */
	double *by_name = malloc((nb ? nb : 1) * sizeof(*by_name));
	if (!by_name) {
		free(wb);
		free(wo);
		return -1;
	}
	out->noise_functions = 0;
	out->noise_ns = 0;
	for (size_t i = 0; i < nb; i++) {
		const struct named_work *at_n = named(wo, no, wb[i].name);
		by_name[i] = wb[i].work_ns && at_n && at_n->work_ns
				 ? ratio_of(&wb[i], at_n, out)
				 : 1.0;
	}
	for (ecp_id f = 0; f < base->n_functions; f++)
		ratios[f] = by_name[named(wb, nb, name_of(base, f)) - wb];
	free(by_name);
	uint64_t w1 = ecp_model_work(base), wn = ecp_model_work(other);
	uint64_t rest_1 = w1 > matched_base ? w1 - matched_base : 0;
	uint64_t rest_n = wn > matched_other ? wn - matched_other : 0;
	out->residual_ratio = rest_1 ? (double)rest_n / (double)rest_1 : 1.0;
	/* the work at N outside the matched functions, with no one-CPU time
	 * to lengthen */
	out->unplaced_ns = rest_1 ? 0 : rest_n;
	free(wb);
	free(wo);
	return 0;
}

int ecp_inflated_lengths(const struct ecp_model *base, const double *ratios, double r0,
			 double share, uint64_t **lengths, struct ecp_error *err)
{
	uint64_t *len = malloc((base->n_segments ? base->n_segments : 1) * sizeof(*len));
	if (!len)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (inflated lengths)");
	for (uint32_t s = 0; s < base->n_segments; s++) {
		const struct ecp_segment *seg = &base->segments[s];
		double extra = 0.0, held = 0.0;
		struct ecp_activity one;
		const struct ecp_activity *acts;
		uint32_t n = ecp_segment_activities(base, seg, &one, &acts);
		for (uint32_t i = 0; i < n; i++) {
			const struct ecp_activity *act = &acts[i];
			extra += (ratios[act->function] - 1.0) * (double)act->self_ns;
			held += (double)act->self_ns;
		}
		if ((double)seg->length > held)
			extra += (r0 - 1.0) * ((double)seg->length - held);
		double v = (double)seg->length + share * extra;
		len[s] = v <= 0.0 ? 0 : v >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(v);
	}
	*lengths = len;
	return ECP_OK;
}

/* T_P for the n processors of ps on one DAG, into ms. */
static int makespans(const struct ecp_model *m, const struct ecp_dag *dag,
		     const unsigned *ps, size_t n, const struct ecp_engine_options *opts,
		     uint64_t *ms, struct ecp_error *err)
{
	struct ecp_sweep *sweep = NULL;
	int rc = ecp_sweep_create(m, dag, opts, &sweep, err);
	for (size_t i0 = 0; i0 < n && rc == ECP_OK; i0 += ECP_SWEEP_BATCH) {
		size_t k = n - i0 < ECP_SWEEP_BATCH ? n - i0 : ECP_SWEEP_BATCH;
		struct ecp_analysis batch[ECP_SWEEP_BATCH];
		rc = ecp_sweep_analyze_many(sweep, ps + i0, k, false, batch, err);
		for (size_t j = 0; rc == ECP_OK && j < k; j++) {
			ms[i0 + j] = batch[j].makespan_ns;
			ecp_analysis_finish(&batch[j]);
		}
	}
	ecp_sweep_destroy(sweep);
	return rc;
}

struct handoff_count {
	const struct ecp_dag *dag;
	uint64_t count;
};

/* A cross-thread input counts when the segment's thread had ended its
 * previous segment before that input did (it was waiting). */
static void count_handoff(void *ctx, ecp_id s, ecp_id from, bool by_delay)
{
	struct handoff_count *c = ctx;
	ecp_id p = c->dag->pred[s];
	if (!by_delay && p != ECP_NO_ID && c->dag->end[p] < c->dag->end[from])
		c->count++;
}

/* The hand-offs on the ASAP critical path of dag (ecp_dag_walk_critical_path). */
static uint64_t handoffs_on_path(const struct ecp_dag *dag)
{
	struct handoff_count c = {dag, 0};
	ecp_dag_walk_critical_path(dag, count_handoff, &c);
	return c.count;
}

static double share_at(unsigned p, uint64_t cpus)
{
	if (p <= 1)
		return 0.0;
	if (p >= cpus)
		return 1.0;
	return (double)(p - 1) / (double)(cpus - 1);
}

/* The inflated T_P of the points from `from` on that share one share. */
static int predict_share(const struct ecp_model *base, enum ecp_lock_policy policy,
			 const double *ratios, struct ecp_inflated *out, size_t from,
			 size_t to, const struct ecp_engine_options *opts, uint64_t *ms,
			 unsigned *ps, struct ecp_error *err)
{
	uint64_t *lengths = NULL;
	struct ecp_dag dag;
	double share = out->points[from].share;
	int rc =
	    ecp_inflated_lengths(base, ratios, out->residual_ratio, share, &lengths, err);
	if (rc < 0)
		return rc;
	if ((rc = ecp_dag_build(base, lengths, policy, &dag, err)) < 0) {
		free(lengths);
		return rc;
	}
	if (share == 1.0)
		out->work_ns = dag.work;
	for (size_t i = from; i < to; i++)
		ps[i - from] = out->points[i].processors;
	rc = makespans(base, &dag, ps, to - from, opts, ms, err);
	uint64_t on_path = share > 0.0 ? handoffs_on_path(&dag) : 0;
	for (size_t i = from; rc == ECP_OK && i < to; i++) {
		struct ecp_inflated_point *p = &out->points[i];
		p->handoffs = on_path;
		p->handoff_ns = ecp_round_time_ns(share * (double)on_path *
						  (double)out->handoff_mean_ns);
		p->inflated_ns = ms[i - from] + p->handoff_ns;
	}
	ecp_dag_finish(&dag);
	free(lengths);
	return rc;
}

int ecp_inflated_predict(const struct ecp_model *base, const struct ecp_dag *base_dag,
			 const struct ecp_model *other, enum ecp_lock_policy policy,
			 const unsigned *processors, size_t n,
			 const struct ecp_engine_options *opts, struct ecp_inflated *out,
			 struct ecp_error *err)
{
	memset(out, 0, sizeof(*out));
	out->cpus = other->info.recorded_cpus > 1 ? other->info.recorded_cpus : 1;
	out->points = calloc(n ? n : 1, sizeof(*out->points));
	double *ratios =
	    calloc(base->n_functions ? base->n_functions : 1, sizeof(*ratios));
	uint64_t *ms = calloc(n ? n : 1, sizeof(*ms));
	unsigned *ps = calloc(n ? n : 1, sizeof(*ps));
	int rc = ECP_OK;
	struct ecp_handoffs h;
	if (!out->points || !ratios || !ms || !ps ||
	    measure_ratios(base, other, ratios, out) < 0 ||
	    ecp_handoffs_measure(other, &h) < 0) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (inflated model)");
		goto out;
	}
	out->n_points = n;
	/* a printed time: the nearest ns, halves up (common/time-round.h's
	 * rule, here on integers), not the quotient truncated */
	out->handoff_mean_ns =
	    h.count ? h.total_ns / h.count + (2 * (h.total_ns % h.count) >= h.count) : 0;
	for (size_t i = 0; i < n; i++)
		out->points[i] = (struct ecp_inflated_point){
		    .processors = processors[i],
		    .share = share_at(processors[i], out->cpus),
		    .extrapolated = processors[i] > out->cpus};
	if ((rc = makespans(base, base_dag, processors, n, opts, ms, err)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		out->points[i].ideal_ns = ms[i];
	/* processors are sorted, so the points that share a share are
	 * consecutive: one DAG each */
	for (size_t i = 0; i < n && rc == ECP_OK;) {
		size_t j = i + 1;
		while (j < n && out->points[j].share == out->points[i].share)
			j++;
		rc = predict_share(base, policy, ratios, out, i, j, opts, ms, ps, err);
		i = j;
	}
	if (!out->work_ns && rc == ECP_OK) {
		/* no P reached N: the work the lengthened model has at N */
		uint64_t *lengths = NULL;
		rc = ecp_inflated_lengths(base, ratios, out->residual_ratio, 1.0,
					  &lengths, err);
		for (uint32_t s = 0; rc == ECP_OK && s < base->n_segments; s++)
			out->work_ns += lengths[s];
		free(lengths);
	}
out:
	free(ratios);
	free(ms);
	free(ps);
	if (rc < 0)
		ecp_inflated_finish(out);
	return rc;
}

void ecp_inflated_finish(struct ecp_inflated *r)
{
	if (!r)
		return;
	free(r->points);
	memset(r, 0, sizeof(*r));
}
