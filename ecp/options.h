/* SPDX-License-Identifier: MIT */
/* The engine's knobs, passed by its caller to each engine, sweep or
 * analysis it makes (NULL: every default): the engine reads no environment
 * and keeps no knob of its own (the CLI reads ECP_EXACT_BUDGET and the
 * tests' knobs, and fills this).  A field left 0 keeps its default.  None changes a
 * result but exact_budget, which bounds the work spent proving weights exact (beyond it,
 * segments are flagged, never silently wrong). */
#ifndef ECP_ECP_OPTIONS_H
#define ECP_ECP_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

struct ecp_engine_options {
	/* events the exact re-simulations may process per P (ecp/engine.h) */
	uint64_t exact_budget;
	/* models of at least this many segments split their work over two
	 * threads (ecp/parallel.h); the tests lower it to run that path on
	 * models the oracle can check */
	uint32_t parallel_min_segments;
	/* the P-run's snapshots and the units' first instants (ecp/prun.c):
	 * the tests thin them on small models */
	size_t snapshot_items;
	size_t unit_instants;
};

/* The knobs in force: in's fields where set (in may be NULL), the
 * defaults elsewhere; no field of *out is 0. */
void ecp_engine_options_resolve(const struct ecp_engine_options *in,
				struct ecp_engine_options *out);

#endif
