/* SPDX-License-Identifier: MIT */
/* ecp report: which functions matter on P processors. */
#include <stdlib.h>
#include <string.h>

#include "answers/report.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/session.h"
#include "common/parse.h"
#include "simulator/trace/trace.h"

struct report_options {
	struct ecp_cli_common common;
	unsigned processors;
	bool processors_given;
	size_t top;
	bool top_given;
	enum ecp_report_sort sort;
	bool by_spawnsite;
};

static int parse_options(int argc, char **argv, struct report_options *o)
{
	static const struct option longopts[] = {
	    {"processors", required_argument, NULL, 'P'},
	    {"top", required_argument, NULL, 't'},
	    {"sort", required_argument, NULL, 's'},
	    {"by", required_argument, NULL, 'b'},
	    {"functions-from", required_argument, NULL, 'F'},
	    {"own-code", no_argument, NULL, 'O'},
	    ECP_CLI_COMMON_LONGOPTS,
	    {NULL, 0, NULL, 0},
	};
	*o = (struct report_options){0}; /* processors_given, top_given */
	ecp_cli_common_init(&o->common);
	o->top = 20;
	o->sort = ECP_REPORT_SORT_TET;
	int opt, rc;
	optind = 1;
	while ((opt = ecp_cli_getopt("report", argc, argv, "P:h", longopts)) != -1) {
		uint64_t v;
		switch (opt) {
		case -2:
			return ECP_EXIT_USAGE;
		case 'P':
			if ((rc = ecp_cli_parse_processors("report", optarg,
							   &o->processors)))
				return rc;
			o->processors_given = true;
			break;
		case 't':
			if (ecp_parse_u64(optarg, &v) < 0 || v > 1000000)
				return ecp_cli_usage_error(
				    "report", "--top takes a row count, not '%s'",
				    optarg);
			o->top = (size_t)v;
			o->top_given = true;
			break;
		case 's': {
			if (ecp_report_sort_from_name(optarg, &o->sort) < 0)
				return ecp_cli_usage_error(
				    "report",
				    "--sort takes tet, tetid, calls, work, span "
				    "or idle, not '%s'",
				    optarg);
			break;
		}
		case 'b':
			if (!strcmp(optarg, "function"))
				break;
			if (!strcmp(optarg, "callsite")) {
				o->common.by_callsite = true;
				break;
			}
			if (!strcmp(optarg, "spawnsite")) {
				o->by_spawnsite = true;
				break;
			}
			return ecp_cli_usage_error("report",
						   "--by takes 'function', 'callsite' or "
						   "'spawnsite', not '%s'",
						   optarg);
		case 'O':
			o->common.own_code = true;
			break;
		case 'F':
			if (!strcmp(optarg, "instrument"))
				o->common.functions_from = ECP_FUNCTIONS_FROM_INSTRUMENT;
			else if (!strcmp(optarg, "samples"))
				o->common.functions_from = ECP_FUNCTIONS_FROM_SAMPLES;
			else if (!strcmp(optarg, "all"))
				o->common.functions_from = ECP_FUNCTIONS_FROM_ALL;
			else
				return ecp_cli_usage_error(
				    "report",
				    "--functions-from takes all, instrument or "
				    "samples, not '%s'",
				    optarg);
			break;
		default:
			if ((rc = ecp_cli_common_option("report", &o->common, opt, optarg,
							ECP_FORMATS_ALL)))
				return rc;
		}
	}
	if ((rc = ecp_cli_trace_operand("report", &o->common, argc, argv)))
		return rc;
	if (!o->processors_given)
		o->processors = ecp_cli_online_cpus();
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_options o = {0};
	int rc = parse_options(argc, argv, &o);
	if (rc)
		return rc;
	struct ecp_cli_session s;
	o.common.max_processors = o.processors;
	if ((rc = ecp_cli_session_open("report", &o.common, &s)))
		return rc;
	if (o.by_spawnsite) {
		struct ecp_error serr = {0};
		if (ecp_report_spawn_write(stdout, o.common.format, o.common.trace_dir,
					   s.model, &serr) < 0)
			rc = ecp_cli_fail("report", "%s", serr.msg);
		ecp_cli_session_close(&s);
		return rc;
	}
	struct ecp_progress line;
	ecp_cli_progress_init(&line, "report");
	struct ecp_answer_progress hooks = ecp_cli_progress_hooks(&line);
	struct ecp_report_run run;
	struct ecp_error err = {0};
	rc = ecp_report_run_make(s.model, &s.dag, &s.engine, o.processors, o.sort,
				 o.common.format == ECP_FORMAT_TABLE, &hooks, &run, &err);
	if (run.analysed && !run.analysis.weights_exact)
		ecp_cli_warn_inexact("report", &s, &run.analysis);
	if (rc < 0) {
		rc = ecp_cli_fail("report", "%s", err.msg);
		goto out;
	}
	/* Tables default to 20 rows; JSON and CSV hold every function unless
	 * --top was given, so scripts see the whole profile. */
	size_t rows = run.analysis.n_functions;
	if ((o.common.format == ECP_FORMAT_TABLE || o.top_given) && o.top && o.top < rows)
		rows = o.top;
	struct ecp_report_answer answer = {
	    .trace_dir = o.common.trace_dir,
	    .model = s.model,
	    .processors = o.processors,
	    .processors_given = o.processors_given,
	    .run = &run,
	    .rows = rows,
	    .sort = o.sort,
	    .lock_order = o.common.lock_order,
	    .consistency = &s.consistency,
	};
	if (ecp_report_write(stdout, o.common.format, &answer, &err) < 0)
		rc = ecp_cli_fail("report", "%s", err.msg);
out:
	ecp_report_run_finish(&run);
	ecp_cli_session_close(&s);
	return rc;
}
