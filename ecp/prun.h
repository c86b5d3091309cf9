/* SPDX-License-Identifier: MIT */
/* The P-processor run of a fixed DAG, simulated event by event.
 *
 * Ideal processor sharing (the paper's model): while n segments are runnable
 * each progresses at min(1, P/n); delays elapse in real time and use no
 * processor.  Without delays this run is a time-warp of the ASAP schedule and
 * the engine never needs it; with delays it does not warp, so the engine
 * simulates it to get T_P, and to place every node on the run's *work clock*
 * W (dW/dt = min(1, P/n), and 1 while nothing runs), on which the run is again
 * a warp (see ecp/plan.h and ecp/engine.c for what that approximates).
 *
 * Floating point (long double); events closer than the rounding allowance
 * (ecp/tie.h: 512 ulps, 5.6e-5 ns at 1e12 ns) are one instant.
 * O(E log E). */
#ifndef ECP_ECP_PRUN_H
#define ECP_ECP_PRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "ecp/options.h"
#include "ecp/scratch.h"
#include "simulator/model/dag-succ.h"
#include "simulator/model/dag.h"

/* The run as the reverse pass (ecp/adjoint.h) reads it: one tape instant
 * per event, in the order the run processed them.  Instant k >= 1 is made by
 * its root: a segment's end, or the expiry of the delay before a segment
 * (ECP_TAPE_DELAY); running[k] segments ran just before it.  Events of one
 * simulated instant follow each other a zero gap apart, the later ones marked
 * ECP_TAPE_TIED: a shortening may reorder them (a tie).  A segment starts at
 * the tape instant of the event that released it; ECP_TAPE_JOIN marks an
 * instant that released a segment two events of its simulated instant
 * waited for.  barrier is the last tape instant before a step the tape does
 * not describe (UINT32_MAX: none). */
enum { ECP_TAPE_DELAY = 1, ECP_TAPE_TIED = 2, ECP_TAPE_JOIN = 4 };

struct ecp_prun_tape {
	uint32_t n_instants;
	uint32_t *root;          /* per instant (0 for instant 0) */
	uint8_t *flags;          /* per instant: ECP_TAPE_* */
	uint32_t *running;       /* per instant */
	uint32_t *start_instant; /* per segment */
	uint32_t *end_instant;   /* per segment */
	uint32_t barrier;
};

/* The run's state after the starts of one instant, where a re-simulation
 * (ecp/tangent.h) of a segment that starts later can begin: every running
 * segment with the work clock at which it ends, then every pending delay
 * with the real time at which it expires, in the run's heap order. */
struct ecp_prun_queued {
	long double key;
	uint32_t seg;
};

/* Snapshots may take 16 MB: a few hundred instants apart on a 10 M-event
 * run, which bounds what a re-simulation replays before its segment
 * starts.  The units' instants start with room for 4096 and drop those no
 * running unit needs whenever they fill half of it.  Both are the
 * defaults of ecp/options.h (the tests thin them on small models); no
 * result depends on them. */
#define ECP_PRUN_SNAPSHOT_ITEMS_DEFAULT                                                  \
	(((size_t)16 << 20) / sizeof(struct ecp_prun_queued))
#define ECP_PRUN_UNIT_INSTANTS_DEFAULT ((size_t)4096)

struct ecp_prun_snapshot {
	uint32_t sub; /* the tape instant of the instant's last event */
	uint32_t n_active, n_delayed;
	size_t at; /* into the pool */
	long double t, w;
};

/* Every `every` instants of the run; when the pool outgrows its budget
 * every other one is dropped and `every` doubles, so they stay evenly
 * spread whatever the run's length. */
struct ecp_prun_snapshots {
	struct ecp_prun_snapshot *snap;
	size_t n, cap;
	struct ecp_prun_queued *pool;
	size_t pool_n, pool_cap, pool_budget;
	uint64_t every;
	bool stopped; /* out of memory: fewer snapshots, same results */
};

struct ecp_prun {
	double *node_time; /* real time, 2 per segment ([2s] start, [2s+1] end) */
	double *node_work; /* work clock W of the same nodes */
	uint8_t
	    *pred_tight;   /* per segment: the thread edge (with its delay) released it */
	uint8_t *in_tight; /* per in-edge: that edge released it */
	long double makespan;
	long double idle;          /* processor time idle until makespan (P finite) */
	struct ecp_prun_tape tape; /* only when asked for (else zeroed) */
	struct ecp_prun_snapshots snaps; /* only when asked for (else zeroed) */
	/* where the tape and the snapshot pool go back (NULL: freed), and
	 * their sizes */
	struct ecp_scratch *scratch;
	size_t tape_cap, n_seg;
};

/* What to fill besides makespan and idle: the tape, the plan's input
 * (node_time, node_work, pred_tight, in_tight; else NULL), and snapshots
 * (with the tape only). */
enum { ECP_PRUN_TAPE = 1, ECP_PRUN_PLAN_INPUT = 2, ECP_PRUN_SNAPSHOTS = 4 };

/* When `dag` is a DAG of units (ecp/merged-units.h): unit u stands for segments
 * first[u] .. end[u] - 1 of the given lengths, run back to back. */
struct ecp_prun_units {
	const uint32_t *first, *end;
	const uint64_t *length; /* per segment */
};

/* processors: P, or 0 for unlimited; succ: the DAG's successors
 * (simulator/model/dag-succ.h); what: ECP_PRUN_* bits; seg_idle (may be NULL):
 * per segment, the idle time charged to it (each of the n < P segments
 * running in an interval is charged (P - n) / n of it).  units (may be
 * NULL: the DAG's segments are the segments): seg_idle is then per segment
 * of the units, a unit's charge split at the work-clock instants where one
 * of its segments hands over to the next.  scratch (may be NULL): where the
 * run's large arrays come from and go back to (ecp/scratch.h).  opts: the
 * engine's knobs, resolved (ecp_engine_options_resolve): how many snapshots
 * to keep and the units' first instants. */
int ecp_prun_simulate(const struct ecp_dag *dag, const struct ecp_dag_succ *succ,
		      unsigned processors, unsigned what, double *seg_idle,
		      const struct ecp_prun_units *units, struct ecp_scratch *scratch,
		      const struct ecp_engine_options *opts, struct ecp_prun *run,
		      struct ecp_error *err);
/* The most instants a tape of a run of `dag` can have. */
uint64_t ecp_prun_max_instants(const struct ecp_dag *dag);
/* The first snapshot at or after tape instant k (x->n: none). */
size_t ecp_prun_snapshot_at_or_after(const struct ecp_prun_snapshots *x, uint32_t k);
/* Frees the tape's per-instant arrays (root, flags, running) once the
 * reverse pass has read them; its per-segment instants stay for the
 * re-simulations. */
void ecp_prun_free_tape_instants(struct ecp_prun *run);
void ecp_prun_finish(struct ecp_prun *run);

#endif
