/* SPDX-License-Identifier: MIT */
/* ecp export: the simulated run on P processors for other tools — Chrome
 * trace-event JSON (Perfetto), ECP-weighted folded stacks, segment CSV. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/session.h"
#include "cli/ask.h"
#include "answers/export.h"
#include "common/time-round.h"

struct export_options {
	struct ecp_cli_common common;
	unsigned processors;
	enum ecp_export_format format; /* 0: not given */
	const char *output;
};

static int parse_options(int argc, char **argv, struct export_options *o)
{
	static const struct option longopts[] = {
	    {"processors", required_argument, NULL, 'P'},
	    {"output", required_argument, NULL, 'o'},
	    {"format", required_argument, NULL, 'f'},
	    {"allow-loss", no_argument, NULL, ECP_OPT_ALLOW_LOSS},
	    {"allow-inconsistent", no_argument, NULL, ECP_OPT_ALLOW_INCONSISTENT},
	    {"lock-order", required_argument, NULL, ECP_OPT_LOCK_ORDER},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	ecp_cli_common_init(&o->common);
	o->common.keep_calls = true;
	o->processors = ecp_cli_online_cpus();
	int opt, rc;
	optind = 1;
	while ((opt = ecp_cli_getopt("export", argc, argv, "P:o:h", longopts)) != -1) {
		switch (opt) {
		case -2:
			return ECP_EXIT_USAGE;
		case 'P':
			if ((rc = ecp_cli_parse_processors("export", optarg,
							   &o->processors)))
				return rc;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "perfetto"))
				o->format = ECP_EXPORT_PERFETTO;
			else if (!strcmp(optarg, "folded"))
				o->format = ECP_EXPORT_FOLDED;
			else if (!strcmp(optarg, "csv"))
				o->format = ECP_EXPORT_SEGMENTS;
			else
				return ecp_cli_usage_error(
				    "export",
				    "--format takes perfetto, folded or csv, not '%s'",
				    optarg);
			break;
		default:
			if ((rc = ecp_cli_common_option("export", &o->common, opt, optarg,
							0)))
				return rc;
		}
	}
	if ((rc = ecp_cli_trace_operand("export", &o->common, argc, argv)))
		return rc;
	if (o->format == 0)
		return ecp_cli_usage_error("export",
					   "choose --format perfetto, folded or csv");
	if (!o->output)
		return ecp_cli_usage_error(
		    "export", "say where to write: -o FILE ('-' for stdout)");
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct export_options o = {0};
	memset(&o, 0, sizeof(o));
	int rc = parse_options(argc, argv, &o);
	if (rc)
		return rc;
	struct ecp_cli_session s;
	if ((rc = ecp_cli_session_open("export", &o.common, &s)))
		return rc;
	struct ecp_simrun run;
	if ((rc = ecp_cli_ask_simrun("export", &s, o.processors, &run))) {
		ecp_answer_simrun_finish(&run, s.model);
		ecp_cli_session_close(&s);
		return rc;
	}
	if (o.format == ECP_EXPORT_FOLDED && s.model->n_calls == 0 &&
	    s.model->info.functions_recorded)
		fprintf(
		    stderr,
		    "ecp export: note: the trace has no function calls; stacks are the "
		    "threads' start routines only\n");
	struct ecp_output out;
	struct ecp_error err = {0};
	if (ecp_cli_output_open("export", o.output, &out) < 0) {
		rc = ECP_EXIT_FAILED;
		goto done;
	}
	struct ecp_export_answer answer = {o.common.trace_dir, s.model, &s.dag, &run};
	struct ecp_export_notes notes;
	rc = ecp_export_write(out.file, o.format, &answer, &notes, &err);
	if (rc == 0 && notes.negative_stacks)
		fprintf(
		    stderr,
		    "ecp export: note: %zu stacks have a negative ECP weight in total "
		    "(%" PRId64 " ns; optimizing them would lengthen the run) and are "
		    "left out\n",
		    notes.negative_stacks, ecp_round_ns(notes.negative_ns));
	if (notes.truncated_calls)
		fprintf(stderr,
			"ecp export: note: %zu calls deeper than %d frames were folded "
			"into their caller\n",
			notes.truncated_calls, ECP_FOLDED_MAX_DEPTH);
	if (rc < 0) {
		ecp_cli_output_abort(&out);
		rc = ecp_cli_fail("export", "%s", err.msg);
		goto done;
	}
	rc = ecp_cli_output_commit("export", &out) < 0 ? ECP_EXIT_FAILED : ECP_EXIT_OK;
done:
	ecp_answer_simrun_finish(&run, s.model);
	ecp_cli_session_close(&s);
	return rc;
}
