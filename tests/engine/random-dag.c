/* SPDX-License-Identifier: MIT */
#include "tests/engine/random-dag.h"
#include "tests/support/xorshift.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64

uint32_t random_dag_next(uint64_t *state, uint32_t n)
{
	return (uint32_t)(ecp_test_xorshift(state) % n);
}

static uint64_t draw_length(uint64_t *st, const struct random_dag_opts *o)
{
	static const uint64_t tiny[] = {0, 1, 1, 2, 2, 2, 3, 4};
	if (o->wide_lengths)
		return 1 + random_dag_next(st, 1000000);
	return tiny[random_dag_next(st, 8)];
}

void random_dag(struct fx *f, uint64_t *st, const struct random_dag_opts *o)
{
	static const uint64_t delay_set[] = {0, 0, 1, 2, 3};
	fx_init(f);
	uint32_t lo = o->min_threads ? o->min_threads : 1;
	uint32_t hi = o->max_threads < MAX_THREADS ? o->max_threads : MAX_THREADS;
	uint32_t threads = lo + random_dag_next(st, hi - lo + 1);
	uint32_t target =
	    o->min_segments + random_dag_next(st, o->spread ? o->spread : 1);
	uint32_t n_fn = o->functions ? o->functions : 4;
	ecp_id last[MAX_THREADS];
	for (uint32_t t = 0; t < MAX_THREADS; t++)
		last[t] = ECP_NO_ID;
	while (f->n_seg < target) {
		uint32_t kind = random_dag_next(st, 10);
		if (kind == 0 && threads >= 2) {
			/* barrier: every participant's next segment waits for all */
			uint32_t k = 2 + random_dag_next(st, threads - 1);
			ecp_id arrived[MAX_THREADS], n_arr = 0;
			for (uint32_t t = 0; t < k; t++)
				if (last[t] != ECP_NO_ID)
					arrived[n_arr++] = last[t];
			for (uint32_t t = 0; t < k; t++) {
				uint64_t len = draw_length(st, o);
				ecp_id s = fx_seg(f, t, len, 0);
				fx_act(f, s, random_dag_next(st, n_fn), 1, len, len);
				for (uint32_t i = 0; i < n_arr; i++)
					if (arrived[i] != last[t])
						fx_edge(f, arrived[i], s);
				last[t] = s;
			}
			continue;
		}
		uint32_t t = o->bursts && f->n_seg && random_dag_next(st, 2)
				 ? f->thread[f->n_seg - 1]
				 : random_dag_next(st, threads);
		uint64_t delay = o->delays && last[t] != ECP_NO_ID
				     ? delay_set[random_dag_next(st, 5)] *
					   (o->wide_lengths ? 300000u : 1u)
				     : 0;
		uint64_t len = draw_length(st, o);
		ecp_id s = fx_seg(f, t, len, delay);
		/* Two functions share some segments: attribution must split. */
		if (len >= 2 && random_dag_next(st, 3) == 0) {
			fx_act(f, s, random_dag_next(st, n_fn), 1, len / 2, len);
			fx_act(f, s, random_dag_next(st, n_fn), 2, len - len / 2,
			       len - len / 2);
		} else {
			fx_act(f, s, random_dag_next(st, n_fn), 1, len, len);
		}
		uint32_t n_in =
		    random_dag_next(st, 4) == 0 ? 1 + random_dag_next(st, 2) : 0;
		if (last[t] == ECP_NO_ID && s > 0 && random_dag_next(st, 2))
			n_in++; /* a created thread: its start waits for the creator */
		for (uint32_t i = 0; i < n_in && s > 0; i++) {
			ecp_id from = random_dag_next(st, s);
			if (from != last[t])
				fx_edge(f, from, s);
		}
		last[t] = s;
	}
	/* Each thread's start routine; a segment that ran it alone, all of
	 * it, holds no activity (model.h's implicit one, no call), as the
	 * builder leaves it: about one in six with four functions.  No
	 * draw, so the models' shapes are the ones the seeds always gave. */
	for (uint32_t t = 0; t < f->n_thread_last; t++)
		fx_start(f, t, t % n_fn);
	for (uint32_t s = 0; s < f->n_seg; s++) {
		const struct fx_act *a = &f->act[s][0];
		if (f->n_act[s] == 1 && a->function == f->start_fn[f->thread[s]] &&
		    a->self_ns == f->length[s] && a->incl_ns == f->length[s])
			f->n_act[s] = 0;
	}
	if (fx_build(f) < 0) {
		fprintf(stderr, "random_dag: the generator made a cyclic DAG\n");
		abort();
	}
}
