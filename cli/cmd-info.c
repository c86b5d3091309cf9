/* SPDX-License-Identifier: MIT */
/* ecp info: summarise a recorded trace -- program, threads, events, losses,
 * clock source, work T1, span T_inf (the critical path on unlimited
 * processors, from the ASAP DAG), parallelism and the top functions by work
 * (exclusive CPU time, i.e. an ordinary profile). */
#include "cli/commands.h"
#include "answers/info.h"
#include "cli/consistency.h"
#include "cli/session.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/units.h"
#include "simulator/model/dag.h"
#include "simulator/trace/trace.h"

enum info_format { INFO_TABLE, INFO_JSON };

struct info_options {
	const char *dir;
	enum info_format format;
	bool allow_loss;
	bool allow_inconsistent; /* answer though the check refuses */
};

static int parse(int argc, char **argv, struct info_options *o)
{
	o->dir = NULL;
	o->format = INFO_TABLE;
	o->allow_loss = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *fmt = NULL;
		if (!strcmp(a, "--format")) {
			if (++i >= argc)
				return ecp_cli_usage_error("info",
							   "--format needs a value");
			fmt = argv[i];
		} else if (!strncmp(a, "--format=", 9)) {
			fmt = a + 9;
		} else if (!strcmp(a, "--allow-loss")) {
			o->allow_loss = true;
			continue;
		} else if (!strcmp(a, "--allow-inconsistent")) {
			o->allow_inconsistent = true;
			continue;
		} else if (a[0] == '-' && a[1]) {
			return ecp_cli_usage_error("info", "unknown option '%s'", a);
		} else if (o->dir) {
			return ecp_cli_usage_error("info",
						   "only one TRACE_DIR may be given");
		} else {
			o->dir = a;
			continue;
		}
		if (!strcmp(fmt, "table"))
			o->format = INFO_TABLE;
		else if (!strcmp(fmt, "json"))
			o->format = INFO_JSON;
		else
			return ecp_cli_usage_error(
			    "info", "unknown format '%s' (table or json)", fmt);
	}
	if (!o->dir)
		o->dir = "ecp.data";
	return ECP_EXIT_OK;
}

int cmd_info(int argc, char **argv)
{
	struct info_options o = {0};
	int rc = parse(argc, argv, &o);
	if (rc != ECP_EXIT_OK)
		return rc;
	struct ecp_load_options lo = ECP_LOAD_OPTIONS_DEFAULT;
	lo.allow_loss = o.allow_loss;
	lo.progress = isatty(STDERR_FILENO);
	struct ecp_error err = {0};
	struct ecp_model *m = NULL;
	struct ecp_dag dag;
	memset(&dag, 0, sizeof(dag));
	struct ecp_info_function *top = NULL;
	size_t n_top = 0;
	struct ecp_consistency cons = {0};
	if (ecp_trace_load(o.dir, &lo, &m, &err) < 0)
		return ecp_cli_fail("info", "%s", err.msg);
	for (size_t i = 0; i < m->n_warnings; i++)
		fprintf(stderr, "ecp info: warning: %s\n", m->warnings[i]);
	if ((rc = ecp_cli_consistency(
		 "info", o.dir, m, o.format == INFO_JSON,
		 o.allow_inconsistent ? ECP_CHECK_OVERRIDE : ECP_CHECK_REFUSE, &cons)))
		goto out;
	if (ecp_dag_build(m, NULL, ECP_LOCK_ORDER_ARRIVAL, &dag, &err) < 0) {
		rc = ecp_cli_fail("info", "trace=%s: %s", o.dir, err.msg);
		goto out;
	}
	ecp_cli_consistency_span("info", m, dag.span, o.format == INFO_JSON, &cons);
	uint64_t by_kind[ECP_DELAY_KINDS];
	if (ecp_cli_warn_other_processes(
		"info", m, dag.span, ecp_dag_span_delay_by_kind(&dag, m, by_kind)) < 0) {
		rc = ecp_cli_fail("info", "out of memory");
		goto out;
	}
	if (ecp_info_top_functions(m, &top, &n_top, &err) < 0) {
		rc = ecp_cli_fail("info", "%s", err.msg);
		goto out;
	}
	struct ecp_info_answer answer = {m, &dag, top, n_top, &cons};
	if (ecp_info_write(stdout,
			   o.format == INFO_JSON ? ECP_FORMAT_JSON : ECP_FORMAT_TABLE,
			   &answer, &err) < 0) {
		rc = ecp_cli_fail("info", "%s", err.msg);
		goto out;
	}
	rc = ECP_EXIT_OK;
out:
	ecp_consistency_free(&cons);
	free(top);
	ecp_dag_finish(&dag);
	ecp_model_destroy(m);
	return rc;
}
