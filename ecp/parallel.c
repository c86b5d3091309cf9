/* SPDX-License-Identifier: MIT */
#include "ecp/parallel.h"

#include "ecp/options.h"

uint32_t ecp_parallel_min_segments(void)
{
	return ecp_engine_options_get()->parallel_min_segments;
}
