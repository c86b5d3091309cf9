/* SPDX-License-Identifier: MIT */
#include "cli/ask.h"

#include "cli/commands.h"
#include "cli/progress.h"

int ecp_cli_ask_sweep(const char *cmd, struct ecp_cli_session *s,
		      const unsigned *processors, size_t n, size_t top, bool warn,
		      bool last, struct ecp_answer_sweep *out)
{
	struct ecp_progress line;
	ecp_cli_progress_init(&line, cmd);
	struct ecp_answer_progress hooks = ecp_cli_progress_hooks(&line);
	struct ecp_error err = {0};
	int rc = last
		     ? ecp_answer_sweep_run_freeing(s->model, &s->dag, &s->engine,
						    processors, n, top, &hooks, out, &err)
		     : ecp_answer_sweep_run(s->model, &s->dag, &s->engine, processors, n,
					    top, &hooks, out, &err);
	if (rc < 0)
		return ecp_cli_fail(cmd, "%s", err.msg);
	const struct ecp_answer_sweep_point *inexact =
	    warn ? ecp_answer_sweep_first_inexact(out) : NULL;
	if (inexact)
		ecp_cli_warn_inexact(cmd, s, &inexact->analysis);
	return 0;
}

int ecp_cli_ask_simrun(const char *cmd, const struct ecp_cli_session *s,
		       unsigned processors, struct ecp_simrun *run)
{
	struct ecp_error err = {0};
	int rc =
	    ecp_answer_simrun_init(s->model, &s->dag, &s->engine, processors, run, &err);
	/* said before a failure of the replay, as it is found first */
	if (run->analysed && !run->analysis.weights_exact)
		ecp_cli_warn_inexact(cmd, s, &run->analysis);
	if (rc < 0)
		return ecp_cli_fail(cmd, "%s", err.msg);
	return 0;
}
