/* SPDX-License-Identifier: MIT */
/* The consistency check (consistency.h): the model's work against the
 * program's CPU time and each thread's work against its own clock. */
#include "simulator/model/consistency.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"

/* Threads named in the sentence; the JSON has them all. */
#define NAMED_THREADS 3

const char *ecp_consistency_status_name(enum ecp_consistency_status s)
{
	switch (s) {
	case ECP_CONSISTENCY_OK:
		return "ok";
	case ECP_CONSISTENCY_WARNING:
		return "warning";
	case ECP_CONSISTENCY_FATAL:
		return "fatal";
	case ECP_CONSISTENCY_UNKNOWN:
	default:
		return "unknown";
	}
}

static uint64_t abs_gap(int64_t g)
{
	return g < 0 ? (uint64_t)0 - (uint64_t)g : (uint64_t)g;
}

static int64_t signed_diff(uint64_t a, uint64_t b)
{
	return a >= b ? (int64_t)(a - b) : -(int64_t)(b - a);
}

static int cmp_gap(const void *a, const void *b)
{
	const struct ecp_consistency_thread *x = a, *y = b;
	uint64_t gx = abs_gap(x->gap_ns), gy = abs_gap(y->gap_ns);
	if (gx != gy)
		return gx > gy ? -1 : 1;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

/* Whether |gap| exceeds the bound of `whole` (percent), and the floor. */
static bool over_bound(int64_t gap, uint64_t whole, uint64_t floor_ns)
{
	double bound = (double)whole * ECP_CONSISTENCY_BOUND_PCT / 100.0;
	if (bound < (double)floor_ns)
		bound = (double)floor_ns;
	return (double)abs_gap(gap) > bound;
}

static int check_threads(const struct ecp_model *m, struct ecp_consistency *c,
			 struct ecp_error *err)
{
	c->threads = calloc(m->n_threads ? m->n_threads : 1, sizeof(*c->threads));
	if (!c->threads)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory checking the model's consistency");
	for (uint32_t t = 0; t < m->n_threads; t++) {
		const struct ecp_thread *th = &m->threads[t];
		if (!th->own_clock_ns)
			continue; /* unknown: nothing to hold it to */
		uint64_t work = ecp_model_thread_work(m, t);
		uint64_t expected = th->own_clock_ns > th->overhead_ns
					? th->own_clock_ns - th->overhead_ns
					: 0;
		int64_t gap = signed_diff(work, expected);
		if (!over_bound(gap, th->own_clock_ns, ECP_CONSISTENCY_THREAD_FLOOR_NS))
			continue;
		c->threads[c->n_threads++] = (struct ecp_consistency_thread){
		    .thread = t,
		    .tid = th->tid,
		    .name = th->name,
		    .work_ns = work,
		    .own_clock_ns = th->own_clock_ns,
		    .overhead_ns = th->overhead_ns,
		    .gap_ns = gap,
		};
	}
	qsort(c->threads, c->n_threads, sizeof(*c->threads), cmp_gap);
	return ECP_OK;
}

/* The steal that may lie in the threads with no clock of their own: all
 * of it, up to their work. */
static uint64_t steal_unclocked(const struct ecp_consistency *c)
{
	return c->steal_ns < c->unclocked_work_ns ? c->steal_ns : c->unclocked_work_ns;
}

/* The threads no clock of their own scaled (steal_over, consistency.h). */
static void check_unclocked(const struct ecp_model *m, struct ecp_consistency *c)
{
	if (!m->info.clock || strcmp(m->info.clock, "perf-switch") != 0)
		return; /* thread-cputime: every time is a clock's */
	for (uint32_t t = 0; t < m->n_threads; t++) {
		const struct ecp_thread *th = &m->threads[t];
		if (th->own_clock_ns || !th->n_segments)
			continue;
		c->unclocked_work_ns += ecp_model_thread_work(m, t);
		c->unclocked_threads++;
	}
	c->steal_over = over_bound((int64_t)steal_unclocked(c), c->program_cpu_ns,
				   ECP_CONSISTENCY_PROGRAM_FLOOR_NS);
}

int ecp_consistency_check(const struct ecp_model *m, struct ecp_consistency *c,
			  struct ecp_error *err)
{
	memset(c, 0, sizeof(*c));
	c->work_ns = ecp_model_work(m);
	c->program_cpu_ns = m->info.program_cpu_ns;
	c->overhead_ns = m->info.overhead_ns;
	c->outside_cpu_ns = m->info.outside_cpu_ns;
	c->outside_threads = m->info.outside_threads;
	c->untracked_cpu_ns = m->info.untracked_cpu_ns;
	c->unknown_deps_ns = m->info.unknown_deps_ns;
	c->guessed_ns = m->info.guessed_cpu_ns;
	c->steal_ns = m->info.steal_ns;
	if (!c->program_cpu_ns) {
		c->status = ECP_CONSISTENCY_UNKNOWN;
		return ECP_OK;
	}
	c->checked = true;
	uint64_t taken = c->overhead_ns + c->outside_cpu_ns + c->untracked_cpu_ns;
	c->expected_ns = c->program_cpu_ns > taken ? c->program_cpu_ns - taken : 0;
	c->gap_ns = signed_diff(c->work_ns, c->expected_ns);
	/* What was taken may be more than the CPU time it stands for, so the
	 * expected work may be up to that much more, and a work above it by
	 * no more is not a gap: the guessed stays (an untraced process had
	 * the CPU part of the time: seen with both CPUs busy, 4 ms more than
	 * usual at main's exit), and the hypervisor's steal, which stays the
	 * records time in wall time hold and the program's CPU time does not
	 * (stays no thread clock scaled: 20-60 ms of a 50-200 ms OpenMP
	 * program in a CI run, a refusal). */
	uint64_t explained = c->guessed_ns + c->steal_ns;
	if (c->gap_ns > 0)
		c->gap_ns =
		    (uint64_t)c->gap_ns > explained ? c->gap_ns - (int64_t)explained : 0;
	c->gap_pct = 100.0 * (double)c->gap_ns / (double)c->program_cpu_ns;
	int rc = check_threads(m, c, err);
	if (rc < 0)
		return rc;
	check_unclocked(m, c);
	c->status = ecp_consistency_work_status(c);
	return ECP_OK;
}

enum ecp_consistency_status ecp_consistency_work_status(const struct ecp_consistency *c)
{
	if (!c->checked)
		return ECP_CONSISTENCY_UNKNOWN;
	double share = ECP_CONSISTENCY_FATAL_PCT / 100.0;
	/* the gap must also be more than the bound of the program's time: a
	 * program that did almost nothing between its first and last event
	 * (a Ctrl-C at start) is within the bound, however small its work */
	bool over =
	    over_bound(c->gap_ns, c->program_cpu_ns, ECP_CONSISTENCY_PROGRAM_FLOOR_NS);
	bool refused =
	    over_bound(c->gap_ns, c->program_cpu_ns, ECP_CONSISTENCY_FATAL_FLOOR_NS);
	if (refused && ((double)c->work_ns < share * (double)c->expected_ns ||
			(double)c->expected_ns < share * (double)c->work_ns))
		return ECP_CONSISTENCY_FATAL;
	if (over || c->n_threads || c->steal_over)
		return ECP_CONSISTENCY_WARNING;
	return ECP_CONSISTENCY_OK;
}

void ecp_consistency_free(struct ecp_consistency *c)
{
	if (!c)
		return;
	free(c->threads);
	c->threads = NULL;
	c->n_threads = 0;
}

/* Appends to buf at *at, truncating (the sentence is for people). */
static void add(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	if (*at >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at += (size_t)n < len - *at ? (size_t)n : len - *at - 1;
}

static const char *ns(char *b, size_t n, uint64_t v)
{
	return ecp_format_ns(b, n, (double)v);
}

char *ecp_consistency_describe(const struct ecp_consistency *c, char *buf, size_t len)
{
	char a[32], b[32], d[32], e[32];
	size_t at = 0;
	if (!len)
		return buf;
	buf[0] = '\0';
	if (!c->checked) {
		add(buf, len, &at,
		    "the trace does not hold the program's CPU time (recorded by an "
		    "older "
		    "ecp): the model's work was not checked against it");
		return buf;
	}
	bool outside = c->outside_threads != 0, untracked = c->untracked_cpu_ns != 0;
	add(buf, len, &at,
	    "the model's work %s is %s %s the program's CPU time %s less the "
	    "recorder's %s",
	    ns(a, sizeof(a), c->work_ns), ns(b, sizeof(b), abs_gap(c->gap_ns)),
	    c->gap_ns < 0 ? "below" : "above", ns(d, sizeof(d), c->program_cpu_ns),
	    ns(e, sizeof(e), c->overhead_ns));
	if (outside)
		add(buf, len, &at, "%s the %s of %u thread%s that only the scheduler saw",
		    untracked ? "," : " and", ns(a, sizeof(a), c->outside_cpu_ns),
		    c->outside_threads, c->outside_threads == 1 ? "" : "s");
	if (untracked)
		add(buf, len, &at,
		    " and the %s the model's threads used before their first "
		    "and after their last event",
		    ns(a, sizeof(a), c->untracked_cpu_ns));
	add(buf, len, &at, " (%.1f%% of the program's CPU time; the bound is %.0f%%)",
	    c->gap_pct < 0 ? -c->gap_pct : c->gap_pct, ECP_CONSISTENCY_BOUND_PCT);
	if (c->steal_ns)
		add(buf, len, &at,
		    ", after up to %s the hypervisor took from the program's CPUs "
		    "meanwhile (steal: in the switch records' times, not in CPU time)",
		    ns(a, sizeof(a), c->steal_ns));
	if (c->steal_over)
		add(buf, len, &at,
		    "; up to %s of that steal may be in the %s of work of %u "
		    "thread%s with no CPU clock of its own (raw clone threads, child "
		    "processes' threads), which the switch records time in wall time: "
		    "their times, and the answers that rest on them, may be that "
		    "much long (record again when the machine is quieter)",
		    ns(a, sizeof(a), steal_unclocked(c)),
		    ns(b, sizeof(b), c->unclocked_work_ns), c->unclocked_threads,
		    c->unclocked_threads == 1 ? "" : "s");
	for (size_t i = 0; i < c->n_threads && i < NAMED_THREADS; i++) {
		const struct ecp_consistency_thread *t = &c->threads[i];
		add(buf, len, &at,
		    "%s thread %s%s(tid %llu) %s %s its own clock %s less "
		    "the recorder's %s",
		    i ? ";" : ":", t->name, t->name[0] ? " " : "",
		    (unsigned long long)t->tid, ns(a, sizeof(a), abs_gap(t->gap_ns)),
		    t->gap_ns < 0 ? "below" : "above", ns(b, sizeof(b), t->own_clock_ns),
		    ns(d, sizeof(d), t->overhead_ns));
	}
	if (c->n_threads > NAMED_THREADS)
		add(buf, len, &at, "; %zu more threads off their own clocks",
		    c->n_threads - NAMED_THREADS);
	return buf;
}
