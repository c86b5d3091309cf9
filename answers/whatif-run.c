/* SPDX-License-Identifier: MIT */
/* The simulated runs of ecp whatif (answers/whatif.h). */
#include "answers/whatif.h"

#include <stdbool.h>
#include <stdlib.h>

/* One DAG at every P: the ideal model's sweep shares its work across P; the
 * other models run once per P. */
static int simulate(const char *what, const struct ecp_dag *dag,
		    enum ecp_sched_model sched, const unsigned *processors, size_t n,
		    const struct ecp_answer_progress *progress, struct ecp_replay *out,
		    struct ecp_error *err)
{
	if (sched == ECP_SCHED_IDEAL) {
		if (ecp_replay_sweep(dag, processors, n, 0, out, err) < 0)
			return ecp_error_prefix(err, "simulating the %s run", what), -1;
		return 0;
	}
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		ecp_answer_progress_update(progress,
					   "simulating the %s run at P=%u (%zu of %zu)",
					   what, processors[i], i + 1, n);
		if (ecp_replay_model_run(dag, sched, processors[i], 0, &out[i], err) < 0)
			rc = ecp_error_prefix(err, "simulating the %s run at P=%u", what,
					      processors[i]);
	}
	ecp_answer_progress_done(progress);
	return rc < 0 ? -1 : 0;
}

int ecp_whatif_runs_make(const struct ecp_model *m, const struct ecp_dag *dag,
			 const struct ecp_whatif_change *changes, size_t n_changes,
			 enum ecp_lock_policy lock_order, enum ecp_sched_model sched,
			 const unsigned *processors, size_t n,
			 const struct ecp_answer_progress *progress,
			 struct ecp_whatif_runs *out, struct ecp_error *err)
{
	out->n = n;
	out->base = calloc(n ? n : 1, sizeof(*out->base));
	out->what = calloc(n ? n : 1, sizeof(*out->what));
	if (!out->base || !out->what)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory"), -1;
	uint64_t *lengths = NULL;
	if (ecp_whatif_lengths(m, changes, n_changes, &lengths, err) < 0)
		return -1;
	struct ecp_dag faster;
	int rc = ecp_dag_build(m, lengths, lock_order, &faster, err);
	free(lengths);
	if (rc < 0)
		return ecp_error_prefix(err, "cannot simulate the faster program"), -1;
	rc = simulate("baseline", dag, sched, processors, n, progress, out->base, err);
	if (rc == 0)
		rc = simulate("what-if", &faster, sched, processors, n, progress,
			      out->what, err);
	ecp_dag_finish(&faster);
	return rc;
}

void ecp_whatif_runs_finish(struct ecp_whatif_runs *runs)
{
	for (size_t i = 0; runs->base && runs->what && i < runs->n; i++) {
		ecp_replay_finish(&runs->base[i]);
		ecp_replay_finish(&runs->what[i]);
	}
	free(runs->base);
	free(runs->what);
	runs->base = runs->what = NULL;
	runs->n = 0;
}
