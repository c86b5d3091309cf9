/* SPDX-License-Identifier: MIT */
/* ecp scan: predicted T_P per P, the TET of the top functions per P, and the
 * crossovers — the processor counts at which the function that matters most
 * changes. */
#include <stdlib.h>
#include <string.h>

#include "answers/scan.h"
#include "cli/ask.h"
#include "cli/commands.h"
#include "cli/linux-t1.h"
#include "cli/session.h"
#include "common/parse.h"

struct scan_options {
	struct ecp_cli_common common;
	unsigned *processors;
	size_t n_processors;
	size_t top;
	enum ecp_sched_model sched;
	uint64_t *linux_makespan; /* with --sched linux: T_P of that model per P */
};

static int parse_options(int argc, char **argv, struct scan_options *o)
{
	static const struct option longopts[] = {
	    {"processors", required_argument, NULL, 'P'},
	    {"top", required_argument, NULL, 't'},
	    {"sched", required_argument, NULL, ECP_OPT_SCHED},
	    ECP_CLI_COMMON_LONGOPTS,
	    {NULL, 0, NULL, 0},
	};
	ecp_cli_common_init(&o->common);
	o->top = 5;
	const char *list = "1-16";
	int opt, rc;
	optind = 1;
	while ((opt = ecp_cli_getopt("scan", argc, argv, "P:h", longopts)) != -1) {
		uint64_t v;
		switch (opt) {
		case -2:
			return ECP_EXIT_USAGE;
		case 'P':
			list = optarg;
			break;
		case ECP_OPT_SCHED:
			if ((rc = ecp_cli_parse_sched("scan", optarg, &o->sched)))
				return rc;
			break;
		case 't':
			if (ecp_parse_u64(optarg, &v) < 0 || v < 1 || v > 1000)
				return ecp_cli_usage_error(
				    "scan",
				    "--top takes a count from 1 to 1000, not '%s'",
				    optarg);
			o->top = (size_t)v;
			break;
		default:
			if ((rc = ecp_cli_common_option("scan", &o->common, opt, optarg,
							ECP_FORMATS_ALL)))
				return rc;
		}
	}
	if ((rc = ecp_cli_trace_operand("scan", &o->common, argc, argv)))
		return rc;
	struct ecp_error err = {0};
	if (ecp_parse_proc_list(list, ECP_CLI_MAX_PROCESSORS, &o->processors,
				&o->n_processors, &err) < 0)
		return ecp_cli_usage_error("scan", "%s", err.msg);
	return 0;
}

/* The Linux-like model's T_1 against the ideal one, where P = 1 was asked
 * for (cli/linux-t1.h). */
static void check_linux_t1(const struct scan_options *o, const struct ecp_answer_sweep *r)
{
	for (size_t i = 0; i < r->n_points; i++)
		if (r->points[i].processors == 1)
			ecp_cli_check_linux_t1("scan", o->linux_makespan[i],
					       r->points[i].analysis.makespan_ns);
}

int cmd_scan(int argc, char **argv)
{
	struct scan_options o = {0};
	memset(&o, 0, sizeof(o));
	int rc = parse_options(argc, argv, &o);
	if (rc) {
		free(o.processors);
		return rc;
	}
	struct ecp_cli_session s;
	o.common.max_processors = ecp_cli_max_of(o.processors, o.n_processors);
	if ((rc = ecp_cli_session_open("scan", &o.common, &s))) {
		free(o.processors);
		return rc;
	}
	struct ecp_answer_sweep r = {0};
	struct ecp_error err = {0};
	/* The Linux-like model first: it replays the DAG's ASAP schedule,
	 * which the sweep frees. */
	if (o.sched == ECP_SCHED_LINUX) {
		o.linux_makespan = calloc(o.n_processors, sizeof(*o.linux_makespan));
		if (!o.linux_makespan)
			rc = ecp_cli_fail("scan", "out of memory");
		else if (ecp_answer_sched_makespans(&s.dag, ECP_SCHED_LINUX, o.processors,
						    o.n_processors, o.linux_makespan,
						    &err) < 0)
			rc = ecp_cli_fail("scan", "%s", err.msg);
	}
	/* Nothing after the sweep reads the segment records or the DAG's
	 * schedule: freed before its peak (issue 35). */
	if (!rc)
		rc = ecp_cli_ask_sweep("scan", &s, o.processors, o.n_processors, o.top,
				       true, true, &r);
	if (!rc && o.linux_makespan)
		check_linux_t1(&o, &r);
	if (!rc) {
		struct ecp_scan_answer answer = {
		    .trace_dir = o.common.trace_dir,
		    .model = s.model,
		    .work_ns = s.dag.work,
		    .span_ns = s.dag.span,
		    .sweep = &r,
		    .linux_makespan = o.linux_makespan,
		    .consistency = &s.consistency,
		};
		if (ecp_scan_write(stdout, o.common.format, &answer, &err) < 0)
			rc = ecp_cli_fail("scan", "%s", err.msg);
	}
	ecp_answer_sweep_finish(&r);
	ecp_cli_session_close(&s);
	free(o.processors);
	free(o.linux_makespan);
	return rc;
}
