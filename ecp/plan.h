/* SPDX-License-Identifier: MIT */
/* The closed form of segment weights on a warped schedule (DESIGN.md).
 *
 * Input: every segment's start node (2s) and end node (2s+1) placed on a
 * time axis in which the P-processor run is a pure time-warp: ASAP time when
 * the model has no delays, the P-run's "work clock" otherwise (plan users
 * decide).  Which incoming edges are tight (realise the start's time) is given
 * by the caller.
 *
 * Shortening segment s by eps moves earlier by eps exactly the nodes that s's
 * end node dominates in the DAG of tight edges: a node moves iff all of its
 * tight inputs move.  Each moved node shifts its +1 (start) or -1 (end) step
 * of the running count to just before its instant tau; with n(tau-) the count
 * before tau and Delta_s(tau) the moved steps at tau,
 *     weight_P(s) = sum_tau F(n(tau-)) - F(n(tau-) + Delta_s(tau)),
 * F(n) = max(n/P, 1) for n >= 1; F(0) = 1 inside the run (a gap where every
 * thread sleeps passes in real time); and when every node of the run's last
 * instant moves, the window lies after the run and its second term is 0.
 *
 * Build (once, O(E log E)): the dominator tree (idom = LCA of the tight
 * inputs, in topological order), its preorder, the nodes grouped by instant.
 * In one group, Delta_s(tau) = g(end_s) where g(x) sums the steps of the
 * group's nodes in x's subtree; g changes only at the group's nodes and their
 * LCAs (the group's virtual tree), so the group adds h(g(u)) on the tree path
 * from each virtual node u up to (not including) its virtual parent: +h at u
 * and -h at the parent, to be summed over subtrees.  The value h depends on P
 * only through the key (n(tau-), g, ends the run?), so entries store a key.
 *
 * Per P (O(E)): evaluate each key once, one sequential prefix pass over the
 * entries in preorder; weight(s) = the entries inside the end node's preorder
 * interval, a difference of two prefix values.  The intervals are stored as
 * entry indices, per segment id, so that the pass reads and writes in
 * segment order and no array of preorder positions is needed.  Everything is
 * scaled by P, which makes every term an integer:
 * weights are exact rationals k/P (no rounding, ties stay ties). */
#ifndef ECP_ECP_PLAN_H
#define ECP_ECP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "simulator/model/dag.h"

struct ecp_plan_input {
	const struct ecp_dag *dag;
	const double *node_time; /* 2 per segment: [2s] start, [2s+1] end */
	/* When set, node_time's own block: the build frees it as soon as the
	 * nodes are sorted by time (its last read; 16 bytes per segment off
	 * the build's peak, issue 35), failing or not; the caller must not. */
	double *node_time_release;
	const uint8_t *pred_tight; /* per segment: the thread edge realises the start */
	const uint8_t *in_tight;   /* per dag->in_from entry: that edge realises it */
	/* from this many segments on, two threads share the work (ecp/parallel.h) */
	uint32_t parallel_min_segments;
};

struct ecp_plan_key {
	uint32_t n;        /* running count just before the instant */
	int32_t delta;     /* moved steps */
	uint32_t ends_run; /* last instant, all its nodes moved: the run ends earlier */
};

struct ecp_plan {
	uint32_t n_segments;
	uint32_t n_nodes; /* 2 * n_segments + 1 (the virtual root) */
	/* Per segment id: its end node's subtree holds the entries
	 * [q_lo[s], q_hi[s]) (q_lo = q_hi for a zero-length segment, which
	 * weighs 0). */
	uint32_t *q_lo;
	uint32_t *q_hi;
	/* The entries in preorder of their positions: key index * 2 + (1 if
	 * subtracted).  Their positions are no longer needed once q_lo/q_hi
	 * count entries. */
	uint32_t *entry_key;
	size_t n_entries;
	struct ecp_plan_key *keys;
	uint32_t n_keys;
	/* The timeline: distinct instants, running count after each. */
	uint32_t n_instants;
	double *instant_time;
	uint32_t *count_after;
	/* reach[i]: the running count just before instant i plus the segments
	 * starting there, the most that can run around it once some of its
	 * nodes move (F(n) for any n a shortening can produce there is 1 when
	 * P >= reach[i]). */
	uint32_t *reach;
	uint32_t max_reach;
	uint32_t *by_start;    /* the segments in order of their start instant */
	uint32_t *seg_instant; /* 2 per by_start[k]: instant of its start and end */
	double *charge;        /* per instant, scratch of ecp_plan_idle */
	/* time_at_count[n]: total time (on this axis) with n segments running,
	 * from the first instant to the last: T_P and I_P in O(max n) per P. */
	long double *time_at_count;
	uint32_t max_count;
	/* per-P scratch */
	int64_t *prefix;    /* n_entries + 1: sums of the entries before each */
	int64_t *key_value; /* 2 per key: + and - */
};

int ecp_plan_build(const struct ecp_plan_input *in, struct ecp_plan *plan,
		   struct ecp_error *err);
void ecp_plan_finish(struct ecp_plan *plan);

/* The weights at P (0 for unlimited) in two steps, so that callers can
 * split the second over threads: the key values and the prefix over the
 * entries (plan scratch), then the weights of segments [from, to) (reads
 * the plan only; n_segments in all).  Zero-length segments get 0: a
 * segment that takes no time cannot be shortened. */
void ecp_plan_prefix(struct ecp_plan *plan, unsigned processors);
void ecp_plan_weights_range(const struct ecp_plan *plan, unsigned processors,
			    double *weights, uint32_t from, uint32_t to);

/* The warped run length: sum over instants of dt * F(count) (no delays only
 * is it the real T_P).  Long double: exact for integer ASAP times. */
long double ecp_plan_makespan(const struct ecp_plan *plan, unsigned processors);

/* Tallent's idleness on the warped timeline (valid when it is the real
 * timeline, i.e. no delays): while 0 < n < P segments run, each is charged
 * (P - n) / n of the interval; gaps with n = 0 are idle and charged to no
 * segment.  seg_idle (may be NULL): per segment; returns I_P. */
long double ecp_plan_idle(const struct ecp_plan *plan, unsigned processors,
			  double *seg_idle);

/* For P at or above every running count (n < P wherever n >= 1), a
 * segment's idle charge is linear in P: sum over its instants of
 * (P/n - 1) dt = P * per_p[s] - fixed[s].  Fills both (n_segments each). */
void ecp_plan_idle_linear(const struct ecp_plan *plan, double *per_p, double *fixed);

/* The instant (index into instant_time) of every segment's start and end
 * node: start_instant and end_instant, n_segments each. */
void ecp_plan_segment_instants(const struct ecp_plan *plan, uint32_t *start_instant,
			       uint32_t *end_instant);

#endif
