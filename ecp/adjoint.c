#include "ecp/adjoint.h"

#include <math.h>
#include <stdlib.h>

/* F(n) = max(1, n/P): the real time one unit of the work clock takes. */
static long double slowdown(uint32_t n, unsigned processors)
{
	return n <= processors ? 1.0L : (long double)n / processors;
}

/* The first instant whose weights the pass takes (segments ending at or
 * before the last tie are not on its linear piece); past K: none. */
static uint32_t first_instant(const struct ecp_prun_tape *tape)
{
	return tape->last_tie == UINT32_MAX ? 1 : tape->last_tie + 1;
}

uint64_t ecp_adjoint_instants(const struct ecp_prun_tape *tape)
{
	uint32_t K = tape->n_instants ? tape->n_instants - 1 : 0;
	uint32_t first = first_instant(tape);
	return first > K ? 0 : (uint64_t)K - first + 1;
}

int ecp_adjoint_weights(const struct ecp_dag *dag, const struct ecp_prun_tape *tape,
			unsigned processors, double *weights, uint8_t *exact,
			struct ecp_error *err)
{
	uint32_t K = tape->n_instants ? tape->n_instants - 1 : 0;
	uint32_t first = first_instant(tape);
	if (!processors || K == 0 || first > K)
		return 0;
	/* Adjoints of t_k and w_k (d t_K / d t_k, d t_K / d w_k), kept from
	 * `first` on only: what the pass would add to earlier instants reaches
	 * no weight it takes. */
	size_t n = (size_t)K - first + 1;
	long double *lt = calloc(n, sizeof(long double));
	long double *lw = calloc(n, sizeof(long double));
	if (!lt || !lw) {
		free(lt);
		free(lw);
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (reverse pass over %zu instants)", n);
	}
#define AT(a, i) (*((i) >= first ? &(a)[(i) - first] : &sink))
	long double sink = 0.0L;
	AT(lt, K) = 1.0L;
	/* Backwards, each instant's two equations in the reverse of the order
	 * the run computed them; every later instant has added its share to
	 * lt[k] and lw[k] by then. */
	for (uint32_t k = K; k >= first; k--) {
		long double f = slowdown(tape->running[k], processors);
		uint32_t r = tape->root[k];
		long double t_k = AT(lt, k);
		if (!tape->by_delay[k]) {
			AT(lt, k - 1) += t_k;
			AT(lw, k) += f * t_k;
			AT(lw, k - 1) -= f * t_k;
			long double w_k = AT(lw, k);
			AT(lw, tape->start_instant[r]) += w_k;
			/* d T_P / d(-length of r): complete now */
			weights[r] = fabsl(w_k) < 1e-12L ? 0.0 : (double)w_k;
			exact[r] = 1;
		} else {
			long double w_k = AT(lw, k);
			AT(lw, k - 1) += w_k;
			AT(lt, k) += w_k / f;
			AT(lt, k - 1) -= w_k / f;
			AT(lt, tape->end_instant[dag->pred[r]]) += AT(lt, k);
		}
		sink = 0.0L;
	}
#undef AT
	free(lt);
	free(lw);
	return 0;
}
