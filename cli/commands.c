#include "cli/commands.h"
#include "cli/usage.h"

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
	{"viz", "write a self-contained HTML report", ECP_USAGE_VIZ, cmd_viz},
	{"export", "export the simulated run (Perfetto, folded stacks, CSV)", ECP_USAGE_EXPORT,
	 cmd_export},
	{"help", "show help for a command", ECP_USAGE_HELP, cmd_help},
};
const size_t ecp_n_commands = sizeof(ecp_commands) / sizeof(ecp_commands[0]);

const struct ecp_command *ecp_command_find(const char *name)
{
	for (size_t i = 0; i < ecp_n_commands; i++)
		if (!strcmp(ecp_commands[i].name, name))
			return &ecp_commands[i];
	return NULL;
}

/* Damerau-Levenshtein (optimal string alignment) distance, so that swapped
 * letters ("reprot") count as one edit, as git's and perf's suggestions do. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 32 || lb > 32)
		return SIZE_MAX;
	size_t d[33][33];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < best)
				best = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

const struct ecp_command *ecp_command_suggest(const char *name)
{
	const struct ecp_command *best = NULL;
	size_t best_d = SIZE_MAX;
	for (size_t i = 0; i < ecp_n_commands; i++) {
		size_t d = edit_distance(name, ecp_commands[i].name);
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

int ecp_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "ecp %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'ecp %s --help' for more information.\n", cmd);
	return ECP_EXIT_USAGE;
}

int ecp_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "ecp %s: error: ", cmd);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return ECP_EXIT_FAILED;
}

int ecp_wants_help(const struct ecp_command *cmd, int argc, char **argv)
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
