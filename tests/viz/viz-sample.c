/* SPDX-License-Identifier: MIT */
/* Writes the viz outputs for a synthetic program, for the browser and
 * structure tests:
 *
 *   viz-sample html OUT.html [SEGMENTS]   the HTML report
 *   viz-sample perfetto OUT.json          the Perfetto export
 *
 * The synthetic run has a main thread and four workers whose segments
 * carry synchronization marks, function names that need escaping (C++
 * templates, a "</script>" injection attempt, quotes and ampersands), a
 * processor sweep with a crossover and measured runs.  With SEGMENTS, the
 * workers get that many short segments in total (the size-bound check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz/html-report.h"
#include "viz/perfetto.h"
#include "tests/support/xorshift.h"

static const char *const functions[] = {
    "main",
    "worker_loop",
    "std::vector<int, std::allocator<int> >::push_back(int const&)",
    "</script><script>alert(1)</script>",
    "parse_input",
    "compute_kernel",
    "merge<\"a&b\">",
};
enum { F_MAIN, F_WORKER, F_PUSH, F_EVIL, F_PARSE, F_KERNEL, F_MERGE, F_COUNT };

static const char *const threads[] = {"main", "worker-1", "worker-2", "worker-3",
				      "<b>worker-4</b>"};
enum { T_COUNT = 5 };

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
	return ecp_test_xorshift(&rng);
}

struct sample {
	struct ecp_html_segment *seg;
	size_t nseg;
	struct ecp_html_step *steps;
	size_t nsteps;
	int64_t makespan;
};

static void add(struct sample *s, size_t *cap, uint32_t t, uint32_t f, int64_t a,
		int64_t b, double w, uint8_t m0, uint8_t m1)
{
	if (s->nseg == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		s->seg = realloc(s->seg, *cap * sizeof(*s->seg));
		if (!s->seg)
			exit(1);
	}
	s->seg[s->nseg++] =
	    (struct ecp_html_segment){t, f, a, b, (b - a) * 2 / 3, w, m0, m1};
	if (b > s->makespan)
		s->makespan = b;
}

/* Four workers on P=2: the main thread parses, creates them, joins them. */
static void build(struct sample *s, size_t extra)
{
	size_t cap = 0;
	memset(s, 0, sizeof(*s));
	const int64_t ms = 1000000;
	add(s, &cap, 0, F_PARSE, 0, 20 * ms, 1.0, ECP_HTML_MARK_NONE,
	    ECP_HTML_MARK_CREATE);
	for (uint32_t t = 1; t < T_COUNT; t++) {
		int64_t at = 20 * ms;
		for (int k = 0; k < 6; k++) {
			int64_t len = (int64_t)(3 + next_rand() % 9) * ms;
			uint32_t f = (uint32_t[]){F_KERNEL, F_PUSH, F_EVIL, F_MERGE,
						  F_WORKER}[next_rand() % 5];
			double w = t == 2 ? 1.0 : (k % 3 == 0 ? 0.5 : 0.0);
			uint8_t m0 = k == 0 ? ECP_HTML_MARK_NONE : ECP_HTML_MARK_LOCK;
			uint8_t m1 = k == 5 ? ECP_HTML_MARK_EXIT
					    : (uint8_t[]){ECP_HTML_MARK_UNLOCK,
							  ECP_HTML_MARK_SIGNAL,
							  ECP_HTML_MARK_SEM_POST,
							  ECP_HTML_MARK_BARRIER}[k % 4];
			add(s, &cap, t, f, at, at + len, w, m0, m1);
			at += len + (int64_t)(next_rand() % 3) * ms;
		}
	}
	/* Many short segments: a tight loop of tiny critical sections. */
	for (size_t i = 0; i < extra; i++) {
		uint32_t t = 1 + (uint32_t)(i % (T_COUNT - 1));
		int64_t at = 20 * ms + (int64_t)(i / (T_COUNT - 1)) * 50;
		add(s, &cap, t, F_PUSH + (uint32_t)(i % 3), at, at + 30,
		    i % 7 == 0 ? 1.0 : 0.0, ECP_HTML_MARK_LOCK, ECP_HTML_MARK_UNLOCK);
	}
	int64_t join_at = s->makespan;
	add(s, &cap, 0, F_MAIN, join_at, join_at + 5 * ms, 1.0, ECP_HTML_MARK_JOIN,
	    ECP_HTML_MARK_EXIT);
	/* The profile the segments imply at P = 2. */
	if (ecp_html_profile_from_segments(s->seg, s->nseg, 2, &s->steps, &s->nsteps,
					   NULL))
		exit(1);
}

static int write_html(const char *path, size_t extra)
{
	struct sample s;
	build(&s, extra);
	uint32_t procs[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	int64_t makespan[8];
	double tet[8 * 3];
	uint32_t top[3] = {F_KERNEL, F_PARSE, F_EVIL};
	for (int i = 0; i < 8; i++) {
		double p = procs[i];
		makespan[i] = (int64_t)(200e6 / p + 25e6);
		tet[i * 3 + 0] = 120e6 / p;  /* parallel: shrinks with P */
		tet[i * 3 + 1] = 20e6 + 2e6; /* serial: stays */
		tet[i * 3 + 2] = 60e6 / p + 5e6;
	}
	struct ecp_html_crossover cross[] = {{6, F_KERNEL, F_PARSE}};
	struct ecp_html_scan scan = {8, procs, makespan, 3, top, tet, 1, cross};
	struct ecp_html_measured measured[] = {
	    {1, 0.230}, {2, 0.128}, {4, 0.082}, {8, 0.061}};
	struct ecp_html_function_row rows[F_COUNT];
	for (uint32_t f = 0; f < F_COUNT; f++)
		rows[f] = (struct ecp_html_function_row){(F_KERNEL + f) % F_COUNT,
							 10 + f * 7,
							 50e6 / (f + 1),
							 80e6 / (f + 1),
							 90e6 / (f + 1),
							 12e6 / (f + 2),
							 3e6 * f};
	struct ecp_html_report r = {
	    .title = "ecp report: synthetic <demo> & \"friends\"",
	    .trace_path = "/tmp/ecp.data",
	    .program = "./demo --input=a<b>.dat",
	    .processors = 2,
	    .makespan_ns = s.makespan,
	    .work_ns = 225000000,
	    .span_ns = 45000000,
	    .thread_count = T_COUNT,
	    .thread_names = threads,
	    .function_count = F_COUNT,
	    .function_names = functions,
	    .segment_count = s.nseg,
	    .segments = s.seg,
	    .step_count = s.nsteps,
	    .steps = s.steps,
	    .scan = &scan,
	    .measured_count = 4,
	    .measured = measured,
	    .row_count = F_COUNT,
	    .rows = rows,
	};
	FILE *out = fopen(path, "w");
	if (!out) {
		perror(path);
		return 1;
	}
	struct ecp_error err = {0};
	int rc = ecp_html_report_write(out, &r, &err);
	if (fclose(out) != 0 && rc == 0)
		rc = -1;
	if (rc)
		fprintf(stderr, "viz-sample: %s\n", err.msg);
	free(s.seg);
	free(s.steps);
	return rc ? 1 : 0;
}

static int write_perfetto(const char *path)
{
	struct sample s;
	build(&s, 0);
	/* Per segment, the outer function (the thread's routine) and the
	 * segment's function nested inside it. */
	struct ecp_perfetto_slice *sl = calloc(2 * s.nseg, sizeof(*sl));
	struct ecp_perfetto_flow flows[T_COUNT * 2];
	size_t n = 0, nf = 0;
	if (!sl)
		return 1;
	for (size_t i = 0; i < s.nseg; i++) {
		const struct ecp_html_segment *g = &s.seg[i];
		uint32_t outer = g->thread == 0 ? F_MAIN : F_WORKER;
		sl[n++] = (struct ecp_perfetto_slice){g->thread, outer, g->start_ns,
						      g->end_ns, 0,     g->weight != 0,
						      g->weight, false};
		if (g->function != outer)
			sl[n++] = (struct ecp_perfetto_slice){
			    g->thread, g->function,    g->start_ns, g->end_ns,
			    1,         g->weight != 0, g->weight,   false};
	}
	/* create -> worker start, worker end -> join. */
	for (uint32_t t = 1; t < T_COUNT; t++) {
		int64_t first = -1, last = -1;
		for (size_t i = 0; i < s.nseg; i++)
			if (s.seg[i].thread == t) {
				if (first < 0)
					first = s.seg[i].start_ns;
				last = s.seg[i].end_ns;
			}
		flows[nf++] =
		    (struct ecp_perfetto_flow){0, 20000000 - 1, t, first, "create"};
		flows[nf++] = (struct ecp_perfetto_flow){t, last - 1, 0,
							 s.makespan - 5000000, "join"};
	}
	struct ecp_perfetto_input in = {
	    "/tmp/ecp.data", "demo", 2,  T_COUNT, threads, F_COUNT,
	    functions,       n,      sl, nf,      flows};
	FILE *out = fopen(path, "w");
	if (!out) {
		perror(path);
		return 1;
	}
	struct ecp_error err = {0};
	int rc = ecp_perfetto_write(out, &in, &err);
	if (fclose(out) != 0 && rc == 0)
		rc = -1;
	if (rc)
		fprintf(stderr, "viz-sample: %s\n", err.msg);
	free(sl);
	free(s.seg);
	free(s.steps);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "html") == 0)
		return write_html(argv[2], argc > 3 ? strtoul(argv[3], NULL, 10) : 0);
	if (argc == 3 && strcmp(argv[1], "perfetto") == 0)
		return write_perfetto(argv[2]);
	fprintf(stderr, "usage: viz-sample html OUT [SEGMENTS] | perfetto OUT\n");
	return 2;
}
