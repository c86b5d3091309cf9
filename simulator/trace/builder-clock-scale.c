/* SPDX-License-Identifier: MIT */
/* Builder: the hypervisor's steal taken out of the switch records' time,
 * by each thread's own CPU clock.
 *
 * Switch records time a thread's stay on the CPU in wall time, which
 * includes what the hypervisor stole from the virtual CPU meanwhile (2-10%
 * of it with both host cores busy, and in bursts: one 30 ms stay of a
 * thread that used 9 ms was seen); the thread's own CPU clock excludes it.
 * perf's task-clock would not help: it counts the same wall time
 * (perf_clock).
 *
 * The thread's clock is read at its first and last event and, with
 * perf-switch, at a synchronization event at most every 100 us of wall
 * time (the agent's ECP_CLOCK_READ_EVERY_NS).  Between two readings the
 * thread's CPU times (segment lengths and starts, function times, calls)
 * are scaled by the clock's advance over the switch records': a burst of
 * steal is put where it fell, to within the readings, not spread over the
 * whole thread (a 2 ms burst inside one of the billing example's 3 ms
 * Reader calls, spread over its thread, left that call 2x long and the
 * Reader on the critical path).  A span between readings whose ratio is
 * above 1.05 is not steal (a clock read lost, a stay not recorded): its
 * readings are merged with the next.  Each scaled thread keeps its ratio
 * end to end (clock_scale), which its stays outside its events
 * (builder-consistency.c) are scaled by. */
#include "simulator/trace/builder-internal.h"

#include <stdlib.h>

/* Above this ratio of clock over switch time the span holds no steal but
 * an error. */
#define MAX_RATIO 1.05

void bld_clock_reading(struct ecp_builder *b, struct bthread *th, uint64_t ts,
		       uint64_t clock_ns)
{
	if (b->opts.clock != ECP_CLOCK_PERF_SWITCH || !th->sched || !clock_ns)
		return;
	struct clock_knot *k = ecp_vec_push(&th->clock_knots);
	if (!k)
		return; /* fewer readings: the steal spread wider, no error */
	uint64_t sched = bld_sched_cpu_at(th->sched, ts);
	*k = (struct clock_knot){
	    /* from the thread's start, as its segments' and calls' */
	    .v = sat_sub(sat_sub(sched, bld_overhead_ns(b, th)), th->v_start),
	    .sched = sched,
	    .clock = clock_ns,
	};
}

static bool fits(uint64_t s0, uint64_t c0, uint64_t s1, uint64_t c1)
{
	return s1 > s0 && c1 >= c0 && (double)(c1 - c0) <= MAX_RATIO * (double)(s1 - s0);
}

/* Keeps the readings between the first and last whose spans fit, and sets
 * each kept one's ratio (to the next reading) and mapped time. */
static void keep_readings(struct bthread *th)
{
	struct clock_knot *k = th->clock_knots.data;
	size_t n = 0;
	uint64_t s0 = th->sched_first, c0 = th->clock_first, v0 = 0;
	for (size_t i = 0; i < th->clock_knots.len; i++) {
		if (k[i].v < v0 || k[i].sched >= th->sched_last ||
		    k[i].clock > th->clock_last || !fits(s0, c0, k[i].sched, k[i].clock))
			continue;
		k[n++] = k[i];
		s0 = k[i].sched, c0 = k[i].clock, v0 = k[i].v;
	}
	while (n && !fits(k[n - 1].sched, k[n - 1].clock, th->sched_last, th->clock_last))
		n--;
	th->clock_knots.len = n;
	/* mapped[i]: the scaled time of reading i's v */
	double r0 = n ? (double)(k[0].clock - th->clock_first) /
			    (double)(k[0].sched - th->sched_first)
		      : th->clock_scale;
	th->clock_scale_first = r0;
	for (size_t i = 0; i < n; i++) {
		uint64_t s1 = i + 1 < n ? k[i + 1].sched : th->sched_last;
		uint64_t c1 = i + 1 < n ? k[i + 1].clock : th->clock_last;
		k[i].ratio = (double)(c1 - k[i].clock) / (double)(s1 - k[i].sched);
		k[i].mapped =
		    i ? k[i - 1].mapped + k[i - 1].ratio * (double)(k[i].v - k[i - 1].v)
		      : (double)k[i].v * r0;
	}
}

/* A time v on the thread's CPU line (switch records' time less the
 * recorder's cost) on its own clock's line.  *hint: the reading the last
 * lookup found, tried first with the one after it -- a thread's segments
 * and calls are mapped in time order, and a binary search per time was
 * 6% of a sync-heavy trace's model build (issue 35).  The reading found
 * is the same either way: the last at or before v. */
static uint64_t map_time_from(const struct bthread *th, uint64_t v, size_t *hint)
{
	const struct clock_knot *k = th->clock_knots.data;
	size_t n = th->clock_knots.len;
	if (!n || v < k[0].v)
		return (uint64_t)((double)v * th->clock_scale_first);
	size_t lo = *hint < n ? *hint : 0;
	if (k[lo].v <= v && lo + 1 < n && k[lo + 1].v <= v)
		lo++;
	if (k[lo].v > v || (lo + 1 < n && k[lo + 1].v <= v)) {
		size_t hi = n; /* the last reading at or before v */
		lo = 0;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (k[mid].v <= v)
				lo = mid;
			else
				hi = mid;
		}
	}
	*hint = lo;
	return (uint64_t)(k[lo].mapped + k[lo].ratio * (double)(v - k[lo].v));
}

/* The length ns from start, scaled; *mapped (unless NULL) the start mapped
 * (map_time_from), from the same lookup where there is one. */
static uint64_t scaled_length_from(const struct bthread *th, uint64_t start, uint64_t ns,
				   size_t *hint, uint64_t *mapped)
{
	if (th->clock_scale <= 0 || !th->clock_knots.len) {
		if (mapped)
			*mapped = map_time_from(th, start, hint);
		/* one ratio: each length scaled as it was before the
		 * readings between (the same figures to the ns) */
		return th->clock_scale <= 0 ? ns
					    : (uint64_t)((double)ns * th->clock_scale);
	}
	uint64_t a = map_time_from(th, start, hint),
		 e = map_time_from(th, start + ns, hint);
	if (mapped)
		*mapped = a;
	return e > a ? e - a : 0;
}

uint64_t bld_scaled_length(const struct bthread *th, uint64_t start, uint64_t ns)
{
	size_t hint = 0;
	return scaled_length_from(th, start, ns, &hint, NULL);
}

static void scale_thread(struct ecp_builder *b, struct bthread *th)
{
	size_t hint = 0;
	for (size_t j = 0; j < th->segs.len; j++) {
		ecp_id s = ECP_VEC_AT(&th->segs, uint32_t, j);
		struct ecp_segment_record *seg =
		    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, s);
		uint64_t old = seg->length, start;
		seg->length = scaled_length_from(th, seg->cpu_start, old, &hint, &start);
		seg->cpu_start = start;
		/* the segment's functions by its own ratio: their times lie
		 * inside it, where no finer reading is */
		bld_rescale_activities(b, s, old, th->start_fn);
	}
}

double bld_clock_ratio_last(const struct bthread *th)
{
	size_t n = th->clock_knots.len;
	return n ? ECP_VEC_AT(&th->clock_knots, struct clock_knot, n - 1).ratio
		 : th->clock_scale_first;
}

void bld_scale_to_thread_clocks(struct ecp_builder *b)
{
	bool any = false;
	for (size_t i = 0; i < b->threads.len; i++) {
		struct bthread *th = thread_at(b, (ecp_id)i);
		uint64_t clock = sat_sub(th->clock_last, th->clock_first);
		uint64_t sched = sat_sub(th->sched_last, th->sched_first);
		if (!th->clock_first || !th->clock_last || !clock || !sched)
			continue;
		double r = (double)clock / (double)sched;
		if (r > MAX_RATIO)
			continue;
		th->clock_scale = r;
		any = true;
		keep_readings(th);
		scale_thread(b, th);
	}
	size_t hint = 0; /* a miss (another thread's call) is a binary search */
	for (size_t i = 0; any && i < b->calls.len; i++) {
		struct ecp_call *c = &ECP_VEC_AT(&b->calls, struct ecp_call, i);
		const struct bthread *th = thread_at(b, c->thread);
		if (th->clock_scale > 0) {
			c->enter = map_time_from(th, c->enter, &hint);
			c->exit = map_time_from(th, c->exit, &hint);
		}
	}
}
