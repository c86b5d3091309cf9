/* SPDX-License-Identifier: MIT */
/* The `ecp` subcommands: one cmd-<name>.c per command, each parsing its own
 * options into its own options struct and returning an exit code
 * (0 success, 1 the analysis failed, 2 usage error; `record` returns the
 * program's own status). */
#ifndef ECP_CLI_COMMANDS_H
#define ECP_CLI_COMMANDS_H

#include <stdio.h>

enum ecp_exit { ECP_EXIT_OK = 0, ECP_EXIT_FAILED = 1, ECP_EXIT_USAGE = 2 };

struct ecp_command {
	const char *name;
	const char *summary;
	const char *usage; /* full --help text */
	int (*run)(int argc, char **argv);
};

extern const struct ecp_command ecp_commands[];
extern const size_t ecp_n_commands;

const struct ecp_command *ecp_cli_command_find(const char *name);
/* The command whose name is nearest to `name` (edit distance), or NULL when
 * nothing is close enough to be a plausible typo. */
const struct ecp_command *ecp_cli_command_suggest(const char *name);

/* Prints "ecp NAME: MESSAGE" and a hint to stderr; returns ECP_EXIT_USAGE. */
int ecp_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints the analysis error chain to stderr; returns ECP_EXIT_FAILED. */
int ecp_cli_fail(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* True if argv contains -h/--help before a "--"; prints the usage if so. */
int ecp_cli_wants_help(const struct ecp_command *cmd, int argc, char **argv);

int cmd_record(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_whatif(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_viz(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_help(int argc, char **argv);

#endif
