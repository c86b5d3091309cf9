/* SPDX-License-Identifier: MIT */
/* ecp viz: one self-contained HTML report of the simulated run on P
 * processors and of the sweep over a range of processor counts. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/session.h"
#include "answers/viz.h"
#include "cli/ask.h"
#include "common/parse.h"
#include "viz/html-report.h"

#define MAX_MEASURED 256

struct viz_options {
	struct ecp_cli_common common;
	unsigned processors;
	unsigned *range;
	size_t n_range;
	const char *output;
	struct ecp_html_measured measured[MAX_MEASURED];
	size_t n_measured;
};

/* "2=1.25,4=0.70": measured wall seconds per processor count. */
static int parse_measured(const char *arg, struct viz_options *o)
{
	char *copy = strdup(arg), *save = NULL;
	if (!copy)
		return ecp_cli_fail("viz", "out of memory");
	int rc = 0;
	for (char *item = strtok_r(copy, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		uint64_t p;
		char *end = NULL;
		double sec = 0;
		if (eq) {
			*eq = '\0';
			errno = 0;
			sec = strtod(eq + 1, &end);
		}
		if (!eq || ecp_parse_u64(item, &p) < 0 || p < 1 ||
		    p > ECP_CLI_MAX_PROCESSORS || errno || end == eq + 1 || *end ||
		    !(sec > 0) || o->n_measured == MAX_MEASURED) {
			rc = ecp_cli_usage_error(
			    "viz",
			    "--measured takes P=SECONDS,... (e.g. 1=2.0,2=1.1), "
			    "not '%s'",
			    arg);
			break;
		}
		o->measured[o->n_measured].processors = (uint32_t)p;
		o->measured[o->n_measured].seconds = sec;
		o->n_measured++;
	}
	free(copy);
	return rc;
}

static int parse_options(int argc, char **argv, struct viz_options *o)
{
	static const struct option longopts[] = {
	    {"processors", required_argument, NULL, 'P'},
	    {"output", required_argument, NULL, 'o'},
	    {"range", required_argument, NULL, 'r'},
	    {"measured", required_argument, NULL, 'm'},
	    {"allow-loss", no_argument, NULL, ECP_OPT_ALLOW_LOSS},
	    {"allow-inconsistent", no_argument, NULL, ECP_OPT_ALLOW_INCONSISTENT},
	    {"lock-order", required_argument, NULL, ECP_OPT_LOCK_ORDER},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	ecp_cli_common_init(&o->common);
	o->processors = ecp_cli_online_cpus();
	const char *range = "1-16";
	int opt, rc;
	optind = 1;
	while ((opt = ecp_cli_getopt("viz", argc, argv, "P:o:h", longopts)) != -1) {
		switch (opt) {
		case -2:
			return ECP_EXIT_USAGE;
		case 'P':
			if ((rc =
				 ecp_cli_parse_processors("viz", optarg, &o->processors)))
				return rc;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'r':
			range = optarg;
			break;
		case 'm':
			if ((rc = parse_measured(optarg, o)))
				return rc;
			break;
		default:
			if ((rc = ecp_cli_common_option("viz", &o->common, opt, optarg,
							0)))
				return rc;
		}
	}
	if ((rc = ecp_cli_trace_operand("viz", &o->common, argc, argv)))
		return rc;
	if (!o->output)
		return ecp_cli_usage_error("viz",
					   "say where to write the report: -o FILE.html");
	struct ecp_error err = {0};
	if (ecp_parse_proc_list(range, ECP_CLI_MAX_PROCESSORS, &o->range, &o->n_range,
				&err) < 0)
		return ecp_cli_usage_error("viz", "--range: %s", err.msg);
	return 0;
}

int cmd_viz(int argc, char **argv)
{
	struct viz_options o = {0};
	memset(&o, 0, sizeof(o));
	int rc = parse_options(argc, argv, &o);
	if (rc) {
		free(o.range);
		return rc;
	}
	struct ecp_cli_session s;
	o.common.max_processors = ecp_cli_max_of(o.range, o.n_range);
	if (o.processors > o.common.max_processors)
		o.common.max_processors = o.processors;
	if ((rc = ecp_cli_session_open("viz", &o.common, &s))) {
		free(o.range);
		return rc;
	}
	struct ecp_simrun run;
	struct ecp_answer_sweep sw;
	memset(&sw, 0, sizeof(sw));
	struct ecp_output out = {0};
	struct ecp_error err = {0};
	if ((rc = ecp_cli_ask_simrun("viz", &s, o.processors, &run)) ||
	    (rc = ecp_cli_ask_sweep("viz", &s, o.range, o.n_range, ECP_VIZ_PLOT_FUNCTIONS,
				    true, false, &sw)))
		goto done;
	if (ecp_cli_output_open("viz", o.output, &out) < 0) {
		rc = ECP_EXIT_FAILED;
		goto done;
	}
	struct ecp_viz_answer answer = {
	    .trace_dir = o.common.trace_dir,
	    .model = s.model,
	    .dag = &s.dag,
	    .run = &run,
	    .sweep = &sw,
	    .measured = o.measured,
	    .n_measured = o.n_measured,
	    .consistency = &s.consistency,
	};
	if (ecp_viz_write(out.file, &answer, &err) < 0) {
		ecp_cli_output_abort(&out);
		rc = ecp_cli_fail("viz", "%s", err.msg);
		goto done;
	}
	rc = ecp_cli_output_commit("viz", &out) < 0 ? ECP_EXIT_FAILED : ECP_EXIT_OK;
	if (rc == ECP_EXIT_OK && strcmp(o.output, "-"))
		fprintf(stderr,
			"ecp viz: wrote %s (P=%u, range of %zu processor counts)\n",
			o.output, o.processors, o.n_range);
done:
	ecp_answer_sweep_finish(&sw);
	ecp_answer_simrun_finish(&run, s.model);
	ecp_cli_session_close(&s);
	free(o.range);
	return rc;
}
