#include "ecp/adjoint.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* F(n) = max(1, n/P): the real time one unit of the work clock takes. */
static long double slowdown(uint32_t n, unsigned processors)
{
	return n <= processors ? 1.0L : (long double)n / processors;
}

/* The first instant whose weights the pass takes (segments ending at or
 * before the barrier are not on the tape's linear piece); past K: none. */
static uint32_t first_instant(const struct ecp_prun_tape *tape)
{
	return tape->barrier == UINT32_MAX ? 1 : tape->barrier + 1;
}

uint64_t ecp_adjoint_instants(const struct ecp_prun_tape *tape)
{
	uint32_t K = tape->n_instants ? tape->n_instants - 1 : 0;
	uint32_t first = first_instant(tape);
	return first > K ? 0 : (uint64_t)K - first + 1;
}

/* Adjoints of t_k and w_k, kept from `first` on only: what a sweep would
 * add to earlier instants reaches no segment it reports. */
struct sweep {
	const struct ecp_dag *dag;
	const struct ecp_prun_tape *tape;
	unsigned processors;
	uint32_t first;
	long double *lt, *lw;
};

/* The first pass, backwards from instant `top` (its seed already in lt),
 * each instant's two equations in the reverse of the order the run computed
 * them; every later instant has added its share to lt[k] and lw[k] by then.
 * For every segment ending in [first, top], lw at its end is then the
 * derivative of T_P with respect to its length: its weight on the tape's
 * linear piece. */
static void sweep(const struct sweep *sw, uint32_t top, double *weights, uint8_t *exact)
{
	const struct ecp_prun_tape *tape = sw->tape;
	uint32_t first = sw->first;
	long double *lt = sw->lt, *lw = sw->lw;
	long double sink = 0.0L;
#define AT(a, i) (*((i) >= first ? &(a)[(i)-first] : &sink))
	for (uint32_t k = top; k >= first; k--) {
		long double f = slowdown(tape->running[k], sw->processors);
		uint32_t r = tape->root[k];
		long double t_k = AT(lt, k);
		if (!(tape->flags[k] & ECP_TAPE_DELAY)) {
			AT(lt, k - 1) += t_k;
			AT(lw, k) += f * t_k;
			AT(lw, k - 1) -= f * t_k;
			long double w_k = AT(lw, k);
			AT(lw, tape->start_instant[r]) += w_k;
			weights[r] = fabsl(w_k) < 1e-12L ? 0.0 : (double)w_k;
			exact[r] = 1;
		} else {
			long double w_k = AT(lw, k);
			AT(lw, k - 1) += w_k;
			AT(lt, k) += w_k / f;
			AT(lt, k - 1) -= w_k / f;
			AT(lt, tape->end_instant[sw->dag->pred[r]]) += AT(lt, k);
		}
		sink = 0.0L;
	}
#undef AT
}

/* The instants a tie's sweep still has to visit below the one it is at:
 * a max-heap, grown as needed (a tie's sensitivity reaches a few dozen
 * instants, not the run). */
struct pending {
	uint32_t *a;
	size_t n, cap;
};

static int pending_push(struct pending *h, uint32_t k)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 256;
		uint32_t *a = realloc(h->a, cap * sizeof(*a));
		if (!a)
			return -1;
		h->a = a;
		h->cap = cap;
	}
	size_t i = h->n++;
	while (i > 0 && h->a[(i - 1) / 2] < k) {
		h->a[i] = h->a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->a[i] = k;
	return 0;
}

static uint32_t pending_pop(struct pending *h)
{
	uint32_t top = h->a[0], last = h->a[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->a[c + 1] > h->a[c])
			c++;
		if (h->a[c] <= last)
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n)
		h->a[i] = last;
	return top;
}

/* Below this an adjoint is rounding left over from a cancellation (the
 * derivatives are sums of products of shares, far above it when they are
 * not zero). */
#define NEGLIGIBLE 1e-15L

static bool is_zero(long double x)
{
	return fabsl(x) < NEGLIGIBLE;
}

/* The sweep of a tie's gap: the same equations as sweep(), visiting only
 * the instants its derivative reaches (the seeds cancel along the real-time
 * chain, so it follows the two events' segments back, and the real-time
 * chain only across delays), each once, in decreasing order, and leaving lt
 * and lw zero again.  Clears exact[] of every segment whose shortening would
 * shrink the gap; gives up after `limit` instants (returns -1 on that, -2
 * out of memory, else the instants visited). */
static int64_t sparse_sweep(const struct sweep *sw, uint32_t top, uint64_t limit,
			    struct pending *todo, uint8_t *exact)
{
	const struct ecp_prun_tape *tape = sw->tape;
	uint32_t first = sw->first;
	/* the adjoints of instant i (>= first) */
#define LT(i) sw->lt[(i)-first]
#define LW(i) sw->lw[(i)-first]
	int64_t visited = 0;
	todo->n = 0;
	uint32_t k = top;
	for (;;) {
		if ((uint64_t)visited == limit)
			return -1;
		visited++;
		long double f = slowdown(tape->running[k], sw->processors);
		uint32_t r = tape->root[k];
		long double t_k = LT(k), w_k;
		uint32_t to; /* the instant this one's equation reaches back to */
		if (!(tape->flags[k] & ECP_TAPE_DELAY)) {
			w_k = LW(k) + f * t_k;
			if (k - 1 >= first) {
				LT(k - 1) += t_k;
				LW(k - 1) -= f * t_k;
			}
			if (w_k > 1e-12L)
				exact[r] = 0;
			to = tape->start_instant[r];
			if (to >= first) {
				if (is_zero(LT(to)) && is_zero(LW(to)) && !is_zero(w_k) &&
				    to + 1 < k && pending_push(todo, to) < 0)
					return -2;
				LW(to) += w_k;
			}
		} else {
			w_k = LW(k);
			t_k += w_k / f;
			if (k - 1 >= first) {
				LW(k - 1) += w_k;
				LT(k - 1) -= w_k / f;
			}
			to = tape->end_instant[sw->dag->pred[r]];
			if (to >= first) {
				if (is_zero(LT(to)) && is_zero(LW(to)) && !is_zero(t_k) &&
				    to + 1 < k && pending_push(todo, to) < 0)
					return -2;
				LT(to) += t_k;
			}
		}
		LT(k) = LW(k) = 0.0L;
		/* next: the instant below if something reached it, else the
		 * highest one still pending */
		if (k - 1 >= first && (!is_zero(LT(k - 1)) || !is_zero(LW(k - 1)))) {
			k--;
			continue;
		}
		if (k - 1 >= first)
			LT(k - 1) = LW(k - 1) = 0.0L;
		uint32_t next = UINT32_MAX;
		while (todo->n) {
			uint32_t j = pending_pop(todo);
			if (j < k && (!is_zero(LT(j)) || !is_zero(LW(j)))) {
				next = j;
				break;
			}
			if (j < k)
				LT(j) = LW(j) = 0.0L;
		}
		if (next == UINT32_MAX)
			return visited;
		k = next;
	}
#undef LT
#undef LW
}

/* A tie is harmless when every order of its events gives the same linear
 * map: while at most P segments run the work clock keeps pace with real
 * time (F = 1), so each event happens when its own segment or delay says,
 * whatever came first, and the run after them is the same.  That holds
 * when the segments running before the events plus every segment they
 * start stay within P (no order can make more run at once), no segment
 * waited for two of them (its start is the later one's), and they do not
 * end the run (T_P is the later one). */
static bool harmless(const struct ecp_prun_tape *tape, uint32_t g0, uint32_t g1,
		     uint32_t K, unsigned processors)
{
	if (g1 == K)
		return false;
	int64_t starts = 0;
	for (uint32_t k = g0; k <= g1; k++) {
		if (tape->flags[k] & ECP_TAPE_JOIN)
			return false;
		/* the running count after event k, less the one before it,
		 * plus the segment it ended */
		starts += (int64_t)tape->running[k + 1] - tape->running[k] +
			  !(tape->flags[k] & ECP_TAPE_DELAY);
	}
	return (int64_t)tape->running[g0] + starts <= (int64_t)processors;
}

int ecp_adjoint_weights(const struct ecp_dag *dag, const struct ecp_prun_tape *tape,
			unsigned processors, uint64_t budget, uint64_t *spent,
			double *weights, uint8_t *exact, struct ecp_error *err)
{
	*spent = 0;
	uint32_t K = tape->n_instants ? tape->n_instants - 1 : 0;
	uint32_t first = first_instant(tape);
	uint64_t cost = ecp_adjoint_instants(tape);
	if (!processors || K == 0 || first > K || cost > budget)
		return 0;
	size_t n = (size_t)K - first + 1;
	struct sweep sw = {.dag = dag,
			   .tape = tape,
			   .processors = processors,
			   .first = first,
			   .lt = calloc(n, sizeof(long double)),
			   .lw = calloc(n, sizeof(long double))};
	if (!sw.lt || !sw.lw) {
		free(sw.lt);
		free(sw.lw);
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (reverse pass over %zu instants)", n);
	}
	sw.lt[K - first] = 1.0L; /* T_P = t_K */
	sweep(&sw, K, weights, exact);
	*spent = cost;
	/* Each tie, latest first: a segment whose shortening would move the
	 * later event of the pair before the earlier one leaves the tape's
	 * linear piece there (the gap t_j - t_(j-1) would turn negative).  A
	 * segment that keeps every order after its end stays on it, so its
	 * weight is exact.  Ties the budget cannot check cut the rest off. */
	memset(sw.lt, 0, n * sizeof(long double));
	memset(sw.lw, 0, n * sizeof(long double));
	struct pending todo = {0};
	uint32_t unchecked = 0;
	int rc = 0;
	for (uint32_t g1 = K; g1 > first && !unchecked && rc == 0;) {
		/* the events of one simulated instant: g0..g1 */
		uint32_t g0 = g1;
		while (g0 > first && (tape->flags[g0] & ECP_TAPE_TIED))
			g0--;
		if (g0 < g1 && (tape->flags[g0] & ECP_TAPE_TIED)) {
			unchecked = g1; /* it began before the barrier */
			break;
		}
		if (g0 < g1 && !harmless(tape, g0, g1, K, processors)) {
			for (uint32_t j = g1; j > g0; j--) {
				sw.lt[j - first] = 1.0L;
				sw.lt[j - 1 - first] = -1.0L;
				int64_t visited =
				    sparse_sweep(&sw, j, budget - *spent, &todo, exact);
				if (visited == -2) {
					rc = ecp_error_set(err, ECP_ERR_NOMEM,
							   "out of memory (reverse pass "
							   "over %zu instants)",
							   n);
					break;
				}
				if (visited < 0) {
					unchecked = j;
					break;
				}
				*spent += (uint64_t)visited;
			}
		}
		g1 = g0 - 1;
	}
	for (uint32_t k = first; k <= unchecked; k++)
		if (!(tape->flags[k] & ECP_TAPE_DELAY))
			exact[tape->root[k]] = 0;
	free(todo.a);
	free(sw.lt);
	free(sw.lw);
	return rc;
}
