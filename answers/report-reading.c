/* SPDX-License-Identifier: MIT */
#include "answers/report-reading.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "answers/report.h"
#include "common/units.h"

void ecp_report_print_legend(FILE *out)
{
	fputs(
	    "Columns:\n"
	    "  TET    time on the extended critical path at P: weight x the function's "
	    "own\n"
	    "         (exclusive) time; what making its own code faster buys.  Choose by "
	    "it.\n"
	    "  TETID  the same with the time of its callees: look at it when a "
	    "function's\n"
	    "         work is in helpers it calls (whatif --faster F shortens F with "
	    "them).\n"
	    "  calls  calls made in segments on the critical path at P (weight not 0)\n"
	    "  %T_P   TET as a share of the predicted run time T_P\n"
	    "  work   own CPU time (the ordinary profile, TET at P=1); span: TET on\n"
	    "         unlimited processors (its time on the critical path)\n"
	    "  idle   processor time left idle at P while it ran: large idle says more\n"
	    "         parallelism would help there, not faster code\n",
	    out);
}

double ecp_report_sample_error(uint64_t n)
{
	return n ? 1.96 / sqrt((double)n) : 0.0;
}

void ecp_report_print_sample_legend(FILE *out, const struct ecp_model *m)
{
	fprintf(
	    out,
	    "  samples  perf samples that found the function running (%llu in all%s):\n"
	    "         the segments' lengths are exact, their split among sampled\n"
	    "         functions is statistical, ±E%% at 95%%; '~' marks fewer than %d\n"
	    "         samples, '-' a function timed by its instrumentation (exact)\n",
	    (unsigned long long)m->info.samples,
	    m->info.samples_lost        ? ", some lost: see the warnings"
	    : m->info.samples_throttled ? ", fewer than the rate: see the warnings"
					: "",
	    ECP_FEW_SAMPLES);
}

/* Functions with folded calls, by decreasing count (then name). */
static int compare_folded(const void *pa, const void *pb, void *ctx)
{
	const struct ecp_model *m = ctx;
	const struct ecp_function *a = &m->functions[*(const ecp_id *)pa];
	const struct ecp_function *b = &m->functions[*(const ecp_id *)pb];
	if (a->folded_calls != b->folded_calls)
		return a->folded_calls > b->folded_calls ? -1 : 1;
	return strcmp(a->name, b->name);
}

void ecp_report_print_folded(FILE *out, const struct ecp_model *m)
{
	uint64_t folded = 0;
	uint32_t n = 0;
	ecp_id *ids = malloc((m->n_functions ? m->n_functions : 1) * sizeof(*ids));
	for (uint32_t f = 0; f < m->n_functions; f++)
		if (m->functions[f].folded_calls) {
			folded += m->functions[f].folded_calls;
			if (ids)
				ids[n] = f;
			n++;
		}
	if (!folded) {
		free(ids);
		return;
	}
	fprintf(out, "\n%llu call%s of %u function%s", (unsigned long long)folded,
		folded == 1 ? "" : "s", n, n == 1 ? "" : "s");
	if (ids) {
		qsort_r(ids, n, sizeof(*ids), compare_folded, (void *)m);
		/* Name the few that matter; the rest by count. */
		uint32_t shown = n < 4 ? n : 3;
		fputs(" (", out);
		for (uint32_t i = 0; i < shown; i++)
			fprintf(out, "%s%s", i ? ", " : "", m->functions[ids[i]].name);
		if (shown < n)
			fprintf(out, " and %u more", n - shown);
		fputs(")", out);
	}
	fprintf(out, " were folded: shorter than the\nrecording's --min-duration, "
		     "they are counted and their time is their callers'.\nRecord with "
		     "--min-duration 0 to see them by name.\n");
	free(ids);
}

/* "matters most at P = 1-3" ranges of the sweep's top function. */
static void print_ranges(FILE *out, const struct ecp_model *m,
			 const struct ecp_answer_sweep *sw)
{
	size_t i = 0;
	while (i < sw->n_points) {
		const struct ecp_function_result *t =
		    ecp_answer_sweep_top(&sw->points[i]);
		size_t j = i;
		while (j + 1 < sw->n_points) {
			const struct ecp_function_result *u =
			    ecp_answer_sweep_top(&sw->points[j + 1]);
			if ((t == NULL) != (u == NULL) ||
			    (t && u && t->function != u->function))
				break;
			j++;
		}
		unsigned a = sw->points[i].processors, b = sw->points[j].processors;
		const char *name =
		    t ? m->functions[t->function].name : "(nothing on the ECP)";
		if (a == b)
			fprintf(out, "    at P = %u, optimise %s\n", a, name);
		else
			fprintf(out, "    at P = %u-%u, optimise %s\n", a, b, name);
		i = j + 1;
	}
}

void ecp_report_print_reading(FILE *out, const struct ecp_model *m,
			      const struct ecp_analysis *a, unsigned processors,
			      const struct ecp_answer_sweep *sweep)
{
	fprintf(out, "\nReading at P = %u:\n", processors);
	const struct ecp_function_result *top = ecp_report_top(a);
	if (!top || !sweep) {
		fputs("  No function has time on the extended critical path at this P.\n",
		      out);
		return;
	}
	const char *name = m->functions[top->function].name;
	char tet[32];
	ecp_format_ns(tet, sizeof(tet), top->tet_ns);
	fprintf(
	    out,
	    "  Optimise %s: the largest TET at %u processors\n  (%s, %.0f%% of T%u).\n",
	    name, processors, tet,
	    a->makespan_ns ? 100.0 * top->tet_ns / (double)a->makespan_ns : 0.0,
	    processors);
	/* TET / work is the function's average weight: the derivative of T_P
	 * with respect to its own time, shortened evenly where it runs. */
	if (top->work_ns > 0)
		fprintf(
		    out,
		    "  Its weight is %.2f: 1 ms saved in its own code saves %.2f ms of "
		    "run\n"
		    "  time at P = %u (at P = 1 every ms saved is a ms of run time).\n",
		    top->tet_ns / top->work_ns, top->tet_ns / top->work_ns, processors);

	/* Where the answer changes: the same crossovers `ecp scan` reports. */
	unsigned last =
	    sweep->n_points ? sweep->points[sweep->n_points - 1].processors : 0;
	if (sweep->n_crossovers == 0) {
		fprintf(out, "  The answer is the same for every P from 1 to %u.\n",
			last);
	} else {
		fprintf(out,
			"  The answer changes with P ('ecp scan -P 1-%u' shows how):\n",
			last);
		print_ranges(out, m, sweep);
	}
}
