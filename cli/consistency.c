/* SPDX-License-Identifier: MIT */
/* Shows the consistency check (cli/consistency.h). */
#include "cli/consistency.h"

#include <stdio.h>
#include <unistd.h>

#include "cli/commands.h"
#include "common/units.h"
#include "simulator/trace/trace.h"

/* Room for the sentence with three threads named in full. */
#define SENTENCE 1536

int ecp_cli_consistency(const char *cmd, const char *trace_dir, const struct ecp_model *m,
			bool quiet, enum ecp_cli_check_mode mode,
			struct ecp_consistency *c)
{
	struct ecp_error err = {0};
	if (ecp_consistency_check(m, c, &err) < 0)
		return ecp_cli_fail(cmd, "%s", err.msg);
	/* work held as independent because its waits were not seen: the
	 * predictions are bounds, said with the share of the work (issue 32) */
	uint64_t work = ecp_model_work(m);
	if (!quiet && work && c->unknown_deps_ns * 100 >= work) {
		char a[32];
		ecp_format_ns(a, sizeof(a), (double)c->unknown_deps_ns);
		fprintf(
		    stderr,
		    "ecp %s: warning: %s of the work (%.0f%%) is in threads whose waits "
		    "were not seen (named above): held as independent work, so T_P is a "
		    "lower bound and the speedup an upper bound\n",
		    cmd, a, 100.0 * (double)c->unknown_deps_ns / (double)work);
	}
	char what[SENTENCE];
	switch (c->status) {
	case ECP_CONSISTENCY_FATAL:
		ecp_consistency_describe(c, what, sizeof(what));
		if (mode == ECP_CHECK_REFUSE)
			return ecp_cli_fail(
			    cmd,
			    "trace=%s: the model does not hold the program's time, "
			    "so no answer from it would mean anything: %s. Record "
			    "again; if this repeats, report it with the trace (or pass "
			    "--allow-inconsistent to see the answer anyway)",
			    trace_dir, what);
		if (mode == ECP_CHECK_OVERRIDE) {
			fprintf(
			    stderr,
			    "ecp %s: warning: trace=%s: the model does not hold the "
			    "program's time (%s); answered anyway as asked "
			    "(--allow-inconsistent): do not trust the figures below\n",
			    cmd, trace_dir, what);
			return 0;
		}
		fprintf(stderr,
			"ecp %s: error: trace=%s: the model does not hold the program's "
			"time, and every analysis will refuse it: %s\n",
			cmd, trace_dir, what);
		return 0;
	case ECP_CONSISTENCY_WARNING:
		if (!quiet)
			fprintf(stderr, "ecp %s: warning: the answers may be off: %s\n",
				cmd, ecp_consistency_describe(c, what, sizeof(what)));
		return 0;
	case ECP_CONSISTENCY_UNKNOWN:
		if (!quiet)
			fprintf(stderr, "ecp %s: note: %s\n", cmd,
				ecp_consistency_describe(c, what, sizeof(what)));
		return 0;
	case ECP_CONSISTENCY_OK:
	default:
		return 0;
	}
}

void ecp_cli_consistency_span(const char *cmd, const struct ecp_model *m,
			      uint64_t span_ns, bool quiet, struct ecp_consistency *c)
{
	ecp_consistency_check_span(c, m, span_ns);
	char what[SENTENCE];
	if (c->span_over && !quiet)
		fprintf(stderr, "ecp %s: warning: the answers may be off: %s\n", cmd,
			ecp_consistency_describe_span(c, what, sizeof(what)));
}

struct ecp_model *ecp_cli_record_model(const char *trace_dir)
{
	struct ecp_load_options lo = ECP_LOAD_OPTIONS_DEFAULT;
	lo.allow_loss = true; /* the loss is named already; check what is there */
	lo.progress = isatty(STDERR_FILENO);
	struct ecp_error err = {0};
	struct ecp_model *m = NULL;
	if (ecp_trace_load(trace_dir, &lo, &m, &err) < 0) {
		fprintf(stderr,
			"ecp record: warning: the model could not be built to check it "
			"against the program's CPU time: %s\n",
			err.msg);
		return NULL;
	}
	return m;
}

void ecp_cli_record_consistency(const char *trace_dir, const struct ecp_model *m)
{
	struct ecp_consistency c;
	ecp_cli_consistency("record", trace_dir, m, false, ECP_CHECK_RECORD, &c);
	ecp_consistency_free(&c);
}
