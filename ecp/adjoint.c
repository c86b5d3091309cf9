/* SPDX-License-Identifier: MIT */
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

/* What a later instant's equation added to an earlier one's adjoints: the
 * start of the segment that ended (dw), or the end of the predecessor of
 * the segment whose delay expired (dt).  A pass keeps only these (the first
 * pass in a hash table by instant, a tie's pass in a max-heap by instant)
 * and carries the instant just below in locals: at any point they are about
 * one per running segment and pending delay, so a pass needs memory for the
 * run's width, not for its instants, and never reaches into an array of the
 * run's length. */
struct jump {
	uint32_t at;
	long double lt, lw;
};

struct jumps {
	struct jump *a;
	size_t n, cap;
};

/* Room for one more of n records of `size` bytes in *a (doubling). */
static int room_for_one(void **a, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? 2 * *cap : 64;
	void *b = realloc(*a, c * size);
	if (!b)
		return -1;
	*a = b;
	*cap = c;
	return 0;
}

static int jumps_push(struct jumps *h, uint32_t at, long double lt, long double lw)
{
	if (room_for_one((void **)&h->a, h->n, &h->cap, sizeof(*h->a)) < 0)
		return -1;
	size_t i = h->n++;
	while (i > 0 && h->a[(i - 1) / 2].at < at) {
		h->a[i] = h->a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->a[i] = (struct jump){.at = at, .lt = lt, .lw = lw};
	return 0;
}

static struct jump jumps_pop(struct jumps *h)
{
	struct jump top = h->a[0], last = h->a[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->a[c + 1].at > h->a[c].at)
			c++;
		if (h->a[c].at <= last.at)
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n)
		h->a[i] = last;
	return top;
}

/* Adds everything the heap holds for instant k to (*lt, *lw). */
static void jumps_take(struct jumps *h, uint32_t k, long double *lt, long double *lw)
{
	while (h->n && h->a[0].at == k) {
		struct jump j = jumps_pop(h);
		*lt += j.lt;
		*lw += j.lw;
	}
}

/* Below this an adjoint is rounding left over from a cancellation (the
 * derivatives are sums of products of shares, far above it when they are
 * not zero). */
#define NEGLIGIBLE 1e-15L

static bool is_zero(long double x)
{
	return fabsl(x) < NEGLIGIBLE;
}

/* The first pass visits every instant in turn, so it needs no order among
 * the pending jumps, only each instant's when it gets there: a hash table
 * (linear probing) by instant, which costs a probe or two per instant
 * where the heap costs a sift. */
#define EMPTY UINT32_MAX

struct jump_table {
	struct jump *slot; /* .at == EMPTY: free */
	uint32_t bits, n;
};

static uint32_t home(const struct jump_table *t, uint32_t at)
{
	return (uint32_t)(at * 2654435761u) >> (32 - t->bits);
}

static int table_init(struct jump_table *t, uint32_t bits)
{
	t->bits = bits;
	t->n = 0;
	t->slot = malloc(((size_t)1 << bits) * sizeof(*t->slot));
	if (!t->slot)
		return -1;
	for (size_t i = 0; i < (size_t)1 << bits; i++)
		t->slot[i].at = EMPTY;
	return 0;
}

static inline int table_add(struct jump_table *t, uint32_t at, long double lt,
			    long double lw);

/* Doubles the table when it is half full: probes stay short. */
static __attribute__((noinline)) int table_grow(struct jump_table *t)
{
	struct jump_table old = *t;
	if (table_init(t, old.bits + 1) < 0) {
		*t = old;
		return -1;
	}
	for (size_t i = 0; i < (size_t)1 << old.bits; i++)
		if (old.slot[i].at != EMPTY)
			table_add(t, old.slot[i].at, old.slot[i].lt, old.slot[i].lw);
	free(old.slot);
	return 0;
}

static inline __attribute__((always_inline)) int
table_add(struct jump_table *t, uint32_t at, long double lt, long double lw)
{
	uint32_t mask = (1u << t->bits) - 1, i = home(t, at);
	while (t->slot[i].at != EMPTY && t->slot[i].at != at)
		i = (i + 1) & mask;
	if (t->slot[i].at == at) {
		t->slot[i].lt += lt;
		t->slot[i].lw += lw;
		return 0;
	}
	t->slot[i] = (struct jump){.at = at, .lt = lt, .lw = lw};
	if (++t->n * 2 > mask + 1)
		return table_grow(t);
	return 0;
}

/* Adds what the table holds for instant k to (*lt, *lw) and removes it,
 * shifting back the entries its slot kept from their home. */
static inline __attribute__((always_inline)) void
table_take(struct jump_table *t, uint32_t k, long double *lt, long double *lw)
{
	uint32_t mask = (1u << t->bits) - 1, i = home(t, k);
	while (t->slot[i].at != k) {
		if (t->slot[i].at == EMPTY)
			return;
		i = (i + 1) & mask;
	}
	*lt += t->slot[i].lt;
	*lw += t->slot[i].lw;
	t->n--;
	for (uint32_t j = i;;) {
		j = (j + 1) & mask;
		if (t->slot[j].at == EMPTY)
			break;
		uint32_t h = home(t, t->slot[j].at);
		/* it stays when its home lies cyclically in (i, j] */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		t->slot[i] = t->slot[j];
		i = j;
	}
	t->slot[i].at = EMPTY;
}

/* A delay whose wake the first pass has passed (going down) and whose
 * predecessor's end it has not: pending at every snapshot in between. */
struct open_wake {
	uint32_t seg, from; /* from: the tape instant its predecessor ended */
	long double adjoint;
};

#define SLOW_TABLE 256

struct sweep {
	const struct ecp_dag *dag;
	const struct ecp_prun_tape *tape;
	unsigned processors;
	uint32_t first;          /* adjoints below it reach no segment the pass reports */
	struct jump_table table; /* the first pass's pending jumps */
	struct jumps jumps;      /* a tie's pass's, in the order it visits them */
	/* with snapshots to annotate (else snaps is NULL) */
	const struct ecp_prun_snapshots *snaps;
	struct ecp_adjoint_sync *sync;
	size_t next_snap; /* snapshots at or above it are done */
	struct open_wake *wakes;
	size_t n_wakes, wakes_cap;
	/* slowdown(n) for n below SLOW_TABLE: the same values, computed once
	 * instead of a long double division at every instant */
	long double slow[SLOW_TABLE];
};

/* At the top of the first pass's step for instant k, (lt, lw) is what the
 * instants above sent to k's clocks other than by jumps: the adjoints of
 * the state after k that the snapshot at k keeps, together with its running
 * segments' ends (their weights) and its delays' wakes (the open ones). */
/* A snapshot not yet passed lies at or above instant k (sw->snaps given). */
static inline bool snapshot_due(const struct sweep *sw, uint32_t k)
{
	return sw->next_snap > 0 && sw->snaps->snap[sw->next_snap - 1].sub >= k;
}

/* Out of line: the sweep calls it only where snapshot_due() says, so that
 * its loop keeps the adjoints in registers the rest of the time. */
static __attribute__((noinline)) void annotate_snapshot(struct sweep *sw, uint32_t k,
							long double lt, long double lw)
{
	const struct ecp_prun_snapshots *x = sw->snaps;
	while (snapshot_due(sw, k)) {
		size_t i = --sw->next_snap;
		const struct ecp_prun_snapshot *p = &x->snap[i];
		if (p->sub != k)
			continue;
		size_t kept = 0;
		for (size_t o = 0; o < sw->n_wakes; o++)
			if (sw->wakes[o].from <= k)
				sw->wakes[kept++] = sw->wakes[o];
		sw->n_wakes = kept;
		sw->sync->carry[2 * i] = (double)lt;
		sw->sync->carry[2 * i + 1] = (double)lw;
		size_t q0 = p->at + p->n_active;
		for (size_t q = q0; q < q0 + p->n_delayed; q++) {
			/* not found (NAN): the state is not the tape's */
			sw->sync->wake[q] = NAN;
			for (size_t o = 0; o < sw->n_wakes; o++)
				if (sw->wakes[o].seg == x->pool[q].seg)
					sw->sync->wake[q] = (double)sw->wakes[o].adjoint;
		}
	}
}

static int open_wake_add(struct sweep *sw, uint32_t seg, uint32_t from,
			 long double adjoint)
{
	if (room_for_one((void **)&sw->wakes, sw->n_wakes, &sw->wakes_cap,
			 sizeof(*sw->wakes)) < 0)
		return -1;
	sw->wakes[sw->n_wakes++] = (struct open_wake){seg, from, adjoint};
	return 0;
}

/* One instant's two equations in the reverse of the order the run computed
 * them.  In: (lt, lw), instant k's adjoints, everything later having added
 * its share.  Out: what goes to instant k - 1 (the carry), the jump to an
 * earlier instant (*j; j->at is EMPTY when it is below `first`), and the
 * ended segment's adjoint in *w_end (the derivative of T_P with respect to
 * its length) or NAN for a delay. */
static inline __attribute__((always_inline)) void step(const struct sweep *sw, uint32_t k,
						       long double *lt, long double *lw,
						       long double *w_end, struct jump *j)
{
	const struct ecp_prun_tape *tape = sw->tape;
	uint32_t n = tape->running[k];
	long double f = n < SLOW_TABLE ? sw->slow[n] : slowdown(n, sw->processors);
	uint32_t r = tape->root[k];
	uint32_t to;
	long double jt = 0.0L, jw = 0.0L;
	if (!(tape->flags[k] & ECP_TAPE_DELAY)) {
		long double t_k = *lt, w_k = *lw + f * t_k;
		*lt = t_k;
		*lw = -f * t_k;
		*w_end = w_k;
		to = tape->start_instant[r];
		jw = w_k;
	} else {
		long double w_k = *lw, t_k = *lt + w_k / f;
		*lt = -w_k / f;
		*lw = w_k;
		*w_end = NAN;
		to = tape->end_instant[sw->dag->pred[r]];
		jt = t_k;
	}
	*j = (struct jump){.at = to < sw->first ? EMPTY : to, .lt = jt, .lw = jw};
}

/* The first pass, backwards from instant `top` (seeded with T_P = t_top):
 * for every segment ending in [first, top], the adjoint at its end is the
 * derivative of T_P with respect to its length: its weight on the tape's
 * linear piece.  -1: out of memory. */
static int sweep(struct sweep *sw, uint32_t top, double *weights, uint8_t *exact)
{
	const struct ecp_prun_tape *tape = sw->tape;
	long double lt = 1.0L, lw = 0.0L;
	for (uint32_t k = top; k >= sw->first; k--) {
		if (sw->snaps && snapshot_due(sw, k))
			annotate_snapshot(sw, k, lt, lw);
		table_take(&sw->table, k, &lt, &lw);
		long double w_end;
		struct jump j;
		step(sw, k, &lt, &lw, &w_end, &j);
		/* a delay's wake: its adjoint is the jump's (to its
		 * predecessor's end) */
		if (sw->snaps && isnan(w_end) &&
		    open_wake_add(sw, tape->root[k],
				  tape->end_instant[sw->dag->pred[tape->root[k]]],
				  j.lt) < 0)
			return -1;
		/* a jump of exactly zero adds nothing */
		if (j.at != EMPTY && (j.lt != 0.0L || j.lw != 0.0L) &&
		    table_add(&sw->table, j.at, j.lt, j.lw) < 0)
			return -1;
		if (!isnan(w_end)) {
			uint32_t r = tape->root[k];
			weights[r] = fabsl(w_end) < 1e-12L ? 0.0 : (double)w_end;
			exact[r] = 1;
		}
	}
	return 0;
}

/* The sweep of the gap t_j - t_(j-1) of a tie: the same equations,
 * visiting only the instants its derivative reaches (the seeds cancel along
 * the real-time chain, so it follows the two events' segments back, and the
 * real-time chain only across delays), each once, in decreasing order.
 * Clears exact[] of every segment whose shortening would shrink the gap;
 * gives up after `limit` instants (returns -1 on that, -2 out of memory,
 * else the instants visited). */
static int64_t sparse_sweep(struct sweep *sw, uint32_t j, uint64_t limit, uint8_t *exact,
			    uint32_t *lowest)
{
	const struct ecp_prun_tape *tape = sw->tape;
	struct jumps *h = &sw->jumps;
	h->n = 0;
	if (j - 1 >= sw->first && jumps_push(h, j - 1, -1.0L, 0.0L) < 0)
		return -2;
	int64_t visited = 0;
	uint32_t k = j;
	long double lt = 1.0L, lw = 0.0L;
	for (;;) {
		jumps_take(h, k, &lt, &lw);
		if (!is_zero(lt) || !is_zero(lw)) {
			if ((uint64_t)visited == limit)
				return -1;
			visited++;
			if (k < *lowest)
				*lowest = k;
			long double w_end;
			struct jump jp;
			step(sw, k, &lt, &lw, &w_end, &jp);
			/* The gap depends on the state of every instant from
			 * the jump's target on (a segment running, a delay
			 * pending), even where jumps later cancel: those are
			 * still state a perturbation can move separately.
			 * Below `first`: reaches past every snapshot the pass
			 * annotates. */
			if (!is_zero(jp.lt) || !is_zero(jp.lw)) {
				uint32_t to = jp.at == EMPTY ? 0 : jp.at;
				if (to < *lowest)
					*lowest = to;
				if (jp.at != EMPTY &&
				    jumps_push(h, jp.at, jp.lt, jp.lw) < 0)
					return -2;
			}
			if (k - 1 < sw->first && (!is_zero(lt) || !is_zero(lw)))
				*lowest = 0;
			if (w_end > 1e-12L)
				exact[tape->root[k]] = 0;
		}
		/* next: the instant below if something reached it, else the
		 * highest one still pending */
		if (k - 1 >= sw->first && (!is_zero(lt) || !is_zero(lw))) {
			k--;
			continue;
		}
		if (!h->n)
			return visited;
		k = h->a[0].at;
		lt = lw = 0.0L;
	}
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

/* The instants [lo, hi] whose state a tie's gap depends on. */
struct reach {
	uint32_t lo, hi;
};

struct reaches {
	struct reach *a;
	size_t n, cap;
};

static int reach_add(struct reaches *r, uint32_t lo, uint32_t hi)
{
	if (room_for_one((void **)&r->a, r->n, &r->cap, sizeof(*r->a)) < 0)
		return -1;
	r->a[r->n++] = (struct reach){lo, hi};
	return 0;
}

/* A snapshot is safe when the pass covered it (at or above `first`), no
 * tie after it went unchecked, and no tie's pass reached its state: then a
 * perturbation of that state keeps every later tie's order (a harmless tie
 * in any order gives the same linear map), and the tape's linear piece
 * holds from it to the end. */
static int mark_safe(const struct ecp_prun_snapshots *x, struct ecp_adjoint_sync *sync,
		     const struct reaches *r, uint32_t first, uint32_t unchecked)
{
	size_t n = x->n;
	/* +1 at the first snapshot a reach covers, -1 past its last */
	int32_t *diff = calloc(n + 1, sizeof(int32_t));
	if (!diff)
		return -1;
	for (size_t e = 0; e < r->n; e++) {
		size_t a = ecp_prun_snapshot_at_or_after(x, r->a[e].lo);
		size_t b = ecp_prun_snapshot_at_or_after(x, r->a[e].hi + 1);
		if (a < b) {
			diff[a]++;
			diff[b]--;
		}
	}
	int64_t depth = 0;
	for (size_t i = 0; i < n; i++) {
		depth += diff[i];
		uint32_t sub = x->snap[i].sub;
		sync->safe[i] = depth == 0 && sub >= first && sub >= unchecked;
	}
	free(diff);
	return 0;
}

void ecp_adjoint_sync_finish(struct ecp_adjoint_sync *sync)
{
	if (!sync)
		return;
	free(sync->carry);
	free(sync->wake);
	free(sync->safe);
	memset(sync, 0, sizeof(*sync));
}

int ecp_adjoint_weights(const struct ecp_dag *dag, const struct ecp_prun_tape *tape,
			const struct ecp_prun_snapshots *snaps, unsigned processors,
			uint64_t budget, uint64_t *spent, double *weights, uint8_t *exact,
			struct ecp_adjoint_sync *sync, struct ecp_error *err)
{
	*spent = 0;
	if (sync)
		memset(sync, 0, sizeof(*sync));
	uint32_t K = tape->n_instants ? tape->n_instants - 1 : 0;
	uint32_t first = first_instant(tape);
	uint64_t cost = ecp_adjoint_instants(tape);
	if (!processors || K == 0 || first > K || cost > budget)
		return 0;
	struct sweep sw = {
	    .dag = dag, .tape = tape, .processors = processors, .first = first};
	for (uint32_t n = 0; n < SLOW_TABLE; n++)
		sw.slow[n] = slowdown(n, processors);
	struct reaches reaches = {0};
	int rc = 0;
	if (snaps && sync && snaps->n) {
		sync->carry = malloc(2 * snaps->n * sizeof(double));
		sync->wake = malloc((snaps->pool_n ? snaps->pool_n : 1) * sizeof(double));
		sync->safe = malloc(snaps->n);
		if (!sync->carry || !sync->wake || !sync->safe) {
			rc = -1;
			goto out;
		}
		sw.snaps = snaps;
		sw.sync = sync;
		sw.next_snap = snaps->n;
	}
	if (table_init(&sw.table, 4) < 0 || sweep(&sw, K, weights, exact) < 0) {
		rc = -1;
		goto out;
	}
	*spent = cost;
	/* Each tie, latest first: a segment whose shortening would move the
	 * later event of the pair before the earlier one leaves the tape's
	 * linear piece there (the gap t_j - t_(j-1) would turn negative).  A
	 * segment that keeps every order after its end stays on it, so its
	 * weight is exact.  Ties the budget cannot check cut the rest off. */
	uint32_t unchecked = 0;
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
				uint32_t lowest = j;
				int64_t visited =
				    sparse_sweep(&sw, j, budget - *spent, exact, &lowest);
				if (visited == -2) {
					rc = -1;
					break;
				}
				if (visited < 0) {
					unchecked = j;
					break;
				}
				*spent += (uint64_t)visited;
				if (sw.snaps && visited &&
				    reach_add(&reaches, lowest, j - 1) < 0) {
					rc = -1;
					break;
				}
			}
		}
		g1 = g0 - 1;
	}
	for (uint32_t k = first; k <= unchecked; k++)
		if (!(tape->flags[k] & ECP_TAPE_DELAY))
			exact[tape->root[k]] = 0;
	if (rc == 0 && sw.snaps && mark_safe(snaps, sync, &reaches, first, unchecked) < 0)
		rc = -1;
out:
	if (rc < 0)
		ecp_adjoint_sync_finish(sync);
	free(reaches.a);
	free(sw.wakes);
	free(sw.table.slot);
	free(sw.jumps.a);
	if (rc < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (reverse pass over %u instants)", K);
	return 0;
}
