/* SPDX-License-Identifier: MIT */
#include "ecp/options.h"

#include "ecp/engine.h"
#include "ecp/parallel.h"
#include "ecp/prun.h"

void ecp_engine_options_resolve(const struct ecp_engine_options *in,
				struct ecp_engine_options *out)
{
	const struct ecp_engine_options none = {0};
	const struct ecp_engine_options *o = in ? in : &none;
	out->exact_budget =
	    o->exact_budget ? o->exact_budget : ECP_ENGINE_DEFAULT_EXACT_BUDGET;
	out->parallel_min_segments = o->parallel_min_segments
					 ? o->parallel_min_segments
					 : ECP_PARALLEL_MIN_SEGMENTS_DEFAULT;
	out->snapshot_items =
	    o->snapshot_items ? o->snapshot_items : ECP_PRUN_SNAPSHOT_ITEMS_DEFAULT;
	/* a unit's instants need room for two at least */
	out->unit_instants =
	    o->unit_instants >= 2 ? o->unit_instants : ECP_PRUN_UNIT_INSTANTS_DEFAULT;
}
