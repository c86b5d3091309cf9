/* SPDX-License-Identifier: MIT */
#include "cli/commands.h"
#include "cli/usage.h"
#include "common/strdist.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const struct ecp_command ecp_commands[] = {
    {"record", "run a program on one CPU and record it", ECP_USAGE_RECORD, cmd_record},
    {"info", "summarise a recorded trace: threads, work, span", ECP_USAGE_INFO, cmd_info},
    {"report", "which functions matter on P processors", ECP_USAGE_REPORT, cmd_report},
    {"scan", "how the top functions change with P; crossovers", ECP_USAGE_SCAN, cmd_scan},
    {"whatif", "predicted run time if some functions were faster", ECP_USAGE_WHATIF,
     cmd_whatif},
    {"compare", "two recordings side by side: before/after, or measured on N CPUs",
     ECP_USAGE_COMPARE, cmd_compare},
    {"viz", "write a self-contained HTML report", ECP_USAGE_VIZ, cmd_viz},
    {"export", "export the simulated run (Perfetto, folded stacks, CSV)",
     ECP_USAGE_EXPORT, cmd_export},
    {"help", "show help for a command", ECP_USAGE_HELP, cmd_help},
};
const size_t ecp_n_commands = sizeof(ecp_commands) / sizeof(ecp_commands[0]);

const struct ecp_command *ecp_cli_command_find(const char *name)
{
	for (size_t i = 0; i < ecp_n_commands; i++)
		if (!strcmp(ecp_commands[i].name, name))
			return &ecp_commands[i];
	return NULL;
}

const struct ecp_command *ecp_cli_command_suggest(const char *name)
{
	const struct ecp_command *best = NULL;
	size_t best_d = SIZE_MAX;
	for (size_t i = 0; i < ecp_n_commands; i++) {
		size_t d =
		    ecp_edit_distance(name, ecp_commands[i].name, ECP_EDIT_TRANSPOSE);
		if (d < best_d) {
			best_d = d;
			best = &ecp_commands[i];
		}
	}
	/* A plausible typo: at most two edits, and fewer than half the letters. */
	size_t len = strlen(name);
	if (best && best_d <= 2 && best_d * 2 < (len > 2 ? len : 2) + 1)
		return best;
	return NULL;
}

int ecp_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "ecp %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'ecp %s --help' for more information.\n", cmd);
	return ECP_EXIT_USAGE;
}

int ecp_cli_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "ecp %s: error: ", cmd);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return ECP_EXIT_FAILED;
}

int ecp_cli_wants_help(const struct ecp_command *cmd, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(cmd->usage, stdout);
			return 1;
		}
	}
	return 0;
}
