/* SPDX-License-Identifier: MIT */
#include "ecp/options.h"

#include "ecp/engine.h"
#include "ecp/parallel.h"
#include "ecp/prun.h"

static struct ecp_engine_options in_force = {
    .exact_budget = ECP_ENGINE_DEFAULT_EXACT_BUDGET,
    .parallel_min_segments = ECP_PARALLEL_MIN_SEGMENTS_DEFAULT,
    .snapshot_items = ECP_PRUN_SNAPSHOT_ITEMS_DEFAULT,
    .unit_instants = ECP_PRUN_UNIT_INSTANTS_DEFAULT,
};

void ecp_engine_options_set(const struct ecp_engine_options *o)
{
	in_force.exact_budget =
	    o->exact_budget ? o->exact_budget : ECP_ENGINE_DEFAULT_EXACT_BUDGET;
	in_force.parallel_min_segments = o->parallel_min_segments
					     ? o->parallel_min_segments
					     : ECP_PARALLEL_MIN_SEGMENTS_DEFAULT;
	in_force.snapshot_items =
	    o->snapshot_items ? o->snapshot_items : ECP_PRUN_SNAPSHOT_ITEMS_DEFAULT;
	/* a unit's instants need room for two at least */
	in_force.unit_instants =
	    o->unit_instants >= 2 ? o->unit_instants : ECP_PRUN_UNIT_INSTANTS_DEFAULT;
}

const struct ecp_engine_options *ecp_engine_options_get(void)
{
	return &in_force;
}
