/* SPDX-License-Identifier: MIT */
#include "cli/commands.h"

int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		fputs(ecp_cli_command_find("help")->usage, stdout);
		return ECP_EXIT_OK;
	}
	if (argc > 2)
		return ecp_cli_usage_error("help", "too many arguments");
	const struct ecp_command *cmd = ecp_cli_command_find(argv[1]);
	if (!cmd) {
		const struct ecp_command *near = ecp_cli_command_suggest(argv[1]);
		if (near)
			return ecp_cli_usage_error("help",
						   "no command '%s'; did you mean '%s'?",
						   argv[1], near->name);
		return ecp_cli_usage_error("help", "no command '%s'", argv[1]);
	}
	fputs(cmd->usage, stdout);
	return ECP_EXIT_OK;
}
