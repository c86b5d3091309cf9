/* SPDX-License-Identifier: MIT */
/* The parallelism profile derived from the Gantt segments. */
#include <stdlib.h>

#include "viz/html-report.h"

struct change {
	int64_t time;
	int delta; /* +1 a segment starts, -1 one ends */
};

static int by_time(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->delta - y->delta; /* ends first: counts never overshoot */
}

int ecp_html_profile_from_segments(const struct ecp_html_segment *segments, size_t count,
				   uint32_t processors, struct ecp_html_step **steps,
				   size_t *step_count, struct ecp_error *err)
{
	*steps = NULL;
	*step_count = 0;
	if (processors == 0)
		return ecp_error_set(err, ECP_ERR_USAGE,
				     "parallelism profile: P must be >= 1");
	if (count > SIZE_MAX / 2 / sizeof(struct change))
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "parallelism profile: too many segments");
	struct change *ch = malloc((2 * count + 1) * sizeof(*ch));
	struct ecp_html_step *out = malloc((2 * count + 1) * sizeof(*out));
	if (!ch || !out) {
		free(ch);
		free(out);
		return ecp_error_set(
		    err, ECP_ERR_NOMEM,
		    "out of memory building the parallelism profile of %zu "
		    "segments",
		    count);
	}
	size_t n = 0;
	for (size_t i = 0; i < count; i++) {
		if (segments[i].end_ns < segments[i].start_ns) {
			free(ch);
			free(out);
			return ecp_error_set(
			    err, ECP_ERR_USAGE,
			    "parallelism profile: segment #%zu ends before it "
			    "starts",
			    i);
		}
		if (segments[i].end_ns == segments[i].start_ns)
			continue; /* occupies no time */
		ch[n++] = (struct change){segments[i].start_ns, +1};
		ch[n++] = (struct change){segments[i].end_ns, -1};
	}
	qsort(ch, n, sizeof(*ch), by_time);
	size_t m = 0;
	uint32_t runnable = 0;
	out[m++] = (struct ecp_html_step){0, 0, 0};
	for (size_t i = 0; i < n;) {
		int64_t t = ch[i].time;
		for (; i < n && ch[i].time == t; i++)
			runnable = (uint32_t)((int64_t)runnable + ch[i].delta);
		struct ecp_html_step s = {
		    t, runnable < processors ? runnable : processors, runnable};
		struct ecp_html_step *last = &out[m - 1];
		if (last->running == s.running && last->runnable == s.runnable)
			continue;
		if (last->time_ns == t)
			*last = s; /* a step at time 0 replaces the initial one */
		else
			out[m++] = s;
	}
	free(ch);
	*steps = out;
	*step_count = m;
	return ECP_OK;
}
