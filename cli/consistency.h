/* SPDX-License-Identifier: MIT */
/* The consistency check (simulator/model/consistency.h) as every command shows
 * it: a warning on stderr for people, a `consistency` object in JSON, and
 * for a fatal verdict a failure naming the trace and the figures.  One
 * place, so that record, info and every analysis say the same thing. */
#ifndef ECP_CLI_CONSISTENCY_H
#define ECP_CLI_CONSISTENCY_H

#include <stdbool.h>

#include "simulator/model/consistency.h"
#include "simulator/model/model.h"

/* What a fatal verdict does: fail the command (ECP_EXIT_FAILED after the
 * reason); be printed as an error (ecp record, whose exit status is the
 * program's); or be printed as a warning and answered anyway, on the
 * user's word (--allow-inconsistent). */
enum ecp_cli_check_mode {
	ECP_CHECK_REFUSE = 0,
	ECP_CHECK_RECORD,
	ECP_CHECK_OVERRIDE,
};

/* Checks m into *c and says what it found on stderr as "ecp CMD: ...":
 * with `quiet` (JSON output, which carries the object) only a fatal
 * verdict is printed, and `mode` says what it does.  Free *c with
 * ecp_consistency_free in every case. */
int ecp_cli_consistency(const char *cmd, const char *trace_dir, const struct ecp_model *m,
			bool quiet, enum ecp_cli_check_mode mode,
			struct ecp_consistency *c);

/* Once the DAG is built: its span against the recorded wall time into *c
 * (ecp_consistency_check_span), and a warning on stderr when it is over,
 * unless `quiet`. */
void ecp_cli_consistency_span(const char *cmd, const struct ecp_model *m,
			      uint64_t span_ns, bool quiet, struct ecp_consistency *c);

/* After `ecp record`: loads the new trace (which also writes its model
 * cache for the analyses to come, and gives the summary its counts), or
 * NULL with a warning naming the reason -- never a failure, since record
 * exits with the program's status. */
struct ecp_model *ecp_cli_record_model(const char *trace_dir);
/* Says what the check found in it, as "ecp record: ...". */
void ecp_cli_record_consistency(const char *trace_dir, const struct ecp_model *m);

#endif
