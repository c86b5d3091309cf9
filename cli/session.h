/* SPDX-License-Identifier: MIT */
/* What every analysis command shares: the trace directory, output format,
 * loss policy and lock order, and the loaded model with its ASAP DAG. */
#ifndef ECP_CLI_SESSION_H
#define ECP_CLI_SESSION_H

#include <getopt.h>
#include <stdbool.h>

#include "answers/format.h"
#include "ecp/analysis.h"
#include "simulator/model/consistency.h"
#include "simulator/model/dag.h"
#include "simulator/model/model.h"
#include "simulator/replay/replay.h"

struct ecp_cli_common {
	const char *trace_dir;
	enum ecp_format format;
	bool allow_loss;
	bool allow_inconsistent; /* answer though the consistency check refuses */
	enum ecp_lock_policy lock_order;
	bool keep_calls;         /* set by commands that draw calls (export, viz) */
	bool by_callsite;        /* a function per call site (report --by callsite) */
	int functions_from;      /* enum ecp_functions_from (report --functions-from) */
	bool own_code;           /* report --own-code */
	unsigned max_processors; /* the largest P the command answers for (0: none) */
};

/* Long options shared by the analysis commands; append to a command's table
 * with ECP_CLI_COMMON_LONGOPTS and hand unknown codes to
 * ecp_cli_common_option(). */
enum {
	ECP_OPT_FORMAT = 1000,
	ECP_OPT_ALLOW_LOSS,
	ECP_OPT_ALLOW_INCONSISTENT,
	ECP_OPT_LOCK_ORDER,
	ECP_OPT_SCHED,
	ECP_OPT_FIRST_COMMAND_OPTION = 1100,
};
#define ECP_CLI_COMMON_LONGOPTS                                                          \
	{"format", required_argument, NULL, ECP_OPT_FORMAT},                             \
	    {"allow-loss", no_argument, NULL, ECP_OPT_ALLOW_LOSS},                       \
	    {"allow-inconsistent", no_argument, NULL, ECP_OPT_ALLOW_INCONSISTENT},       \
	    {"lock-order", required_argument, NULL, ECP_OPT_LOCK_ORDER},                 \
	{                                                                                \
		"help", no_argument, NULL, 'h'                                           \
	}

void ecp_cli_common_init(struct ecp_cli_common *c);
/* Handles one shared option; returns 0, or an exit code (usage error). */
int ecp_cli_common_option(const char *cmd, struct ecp_cli_common *c, int opt,
			  const char *arg, unsigned allowed_formats);
#define ECP_FORMATS_ALL                                                                  \
	((1u << ECP_FORMAT_TABLE) | (1u << ECP_FORMAT_CSV) | (1u << ECP_FORMAT_JSON))

/* After getopt: at most one positional TRACE_DIR.  Returns 0 or an exit code. */
int ecp_cli_trace_operand(const char *cmd, struct ecp_cli_common *c, int argc,
			  char **argv);

/* getopt_long with the error reporting ecp uses ("ecp CMD: ...", exit 2). */
int ecp_cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
		   const struct option *longopts);

struct ecp_cli_session {
	const struct ecp_cli_common *common;
	struct ecp_model *model;
	struct ecp_dag dag;
	bool dag_ready;
	/* the model against the program's CPU time (cli/consistency.h): a
	 * warning is printed, a fatal verdict fails the open */
	struct ecp_consistency consistency;
	/* the engine's knobs, from the environment (ECP_EXACT_BUDGET and the
	 * tests' tuning knobs; the engine reads none), resolved */
	struct ecp_engine_options engine;
};

/* The largest of n processor counts (for ecp_cli_common.max_processors). */
unsigned ecp_cli_max_of(const unsigned *p, size_t n);

/* Loads the model, checks its consistency and builds the ASAP DAG; prints
 * errors itself.  Returns 0 or an exit code (1). */
int ecp_cli_session_open(const char *cmd, const struct ecp_cli_common *c,
			 struct ecp_cli_session *s);
void ecp_cli_session_close(struct ecp_cli_session *s);

/* Warns, on stderr and in m's warnings, when other processes' time on the
 * program's CPUs while it ran (ecp record's idle readings) could be part
 * of the delays on the critical path, span_delay_ns of its span_ns.
 * Returns 0, or -1 when out of memory. */
int ecp_cli_warn_other_processes(const char *cmd, struct ecp_model *m, uint64_t span_ns,
				 uint64_t span_delay_ns);

/* --sched ideal|linux: the scheduler model for predicted run times.  The
 * paper's ideal processor sharing is the default and the only model of the
 * weights; the Linux-like one (simulator/replay/linux-sched.h) is labelled wherever
 * it is used.  Returns 0 or an exit code. */
int ecp_cli_parse_sched(const char *cmd, const char *arg, enum ecp_sched_model *out);

/* Says on stderr which functions' weights at P could not be verified exact
 * (a sleeping program whose exact re-simulations exceed the budget),
 * naming up to a few of them and how to verify them all. */
void ecp_cli_warn_inexact(const char *cmd, const struct ecp_cli_session *s,
			  const struct ecp_analysis *analysis);

/* Processor count default for -P: the online CPUs. */
unsigned ecp_cli_online_cpus(void);
/* Upper bound accepted for -P values. */
#define ECP_CLI_MAX_PROCESSORS 4096u

int ecp_cli_parse_processors(const char *cmd, const char *arg, unsigned *out);

/* Nearest function names to `name` for "did you mean" hints; writes up to
 * `max` names into out (borrowed from the model), returns how many. */
size_t ecp_cli_near_functions(const struct ecp_model *m, const char *name,
			      const char **out, size_t max);

#endif
