/* SPDX-License-Identifier: MIT */
/* The consistency check's delays against the span (consistency.h): the
 * model's T_inf against the wall time of the run it was recorded from. */
#include "simulator/model/consistency.h"

#include <stdio.h>

#include "common/units.h"

void ecp_consistency_check_span(struct ecp_consistency *c, const struct ecp_model *m,
				uint64_t span_ns)
{
	c->span_ns = span_ns;
	c->wall_ns = m->info.recorded_wall_ns;
	c->span_checked = c->wall_ns != 0;
	c->span_over = false;
	c->span_gap_ns = 0;
	if (!c->span_checked)
		return;
	c->span_gap_ns = span_ns >= c->wall_ns ? (int64_t)(span_ns - c->wall_ns)
					       : -(int64_t)(c->wall_ns - span_ns);
	double bound = (double)c->wall_ns * ECP_CONSISTENCY_BOUND_PCT / 100.0;
	if (bound < (double)ECP_CONSISTENCY_PROGRAM_FLOOR_NS)
		bound = (double)ECP_CONSISTENCY_PROGRAM_FLOOR_NS;
	c->span_over = (double)c->span_gap_ns > bound;
	if (c->span_over &&
	    (c->status == ECP_CONSISTENCY_OK || c->status == ECP_CONSISTENCY_UNKNOWN))
		c->status = ECP_CONSISTENCY_WARNING;
}

char *ecp_consistency_describe_span(const struct ecp_consistency *c, char *buf,
				    size_t len)
{
	if (!len)
		return buf;
	buf[0] = '\0';
	if (!c->span_over)
		return buf;
	char a[32], b[32], d[32];
	snprintf(buf, len,
		 "the model's Tinf %s is %s above the wall time of the run it was "
		 "recorded from, %s (the bound is %.0f%%): its critical path holds "
		 "delays or work the run did not spend, and every T_P that rests on "
		 "it is too long",
		 ecp_format_ns(a, sizeof(a), (double)c->span_ns),
		 ecp_format_ns(b, sizeof(b), (double)c->span_gap_ns),
		 ecp_format_ns(d, sizeof(d), (double)c->wall_ns),
		 ECP_CONSISTENCY_BOUND_PCT);
	return buf;
}
