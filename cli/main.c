/* SPDX-License-Identifier: MIT */
/* ecp: record a multithreaded program once on one CPU, then ask how it would
 * run on P processors and which functions matter there. */
#include "cli/commands.h"
#include "ecp-config.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

static void print_main_usage(FILE *out)
{
	fputs("usage: ecp [--version] [--help] COMMAND [ARGS]\n\n"
	      "Record a pthreads program once on one CPU; predict how it runs on P\n"
	      "processors and which functions lie on its extended critical path.\n\n"
	      "Commands:\n",
	      out);
	for (size_t i = 0; i < ecp_n_commands; i++)
		fprintf(out, "  %-8s %s\n", ecp_commands[i].name,
			ecp_commands[i].summary);
	fputs("\nTypical use:\n"
	      "  cc -g -O2 -pthread -finstrument-functions app.c -o app\n"
	      "  ecp record -- ./app input.dat\n"
	      "  ecp report -P 6\n\n"
	      "'ecp COMMAND --help' or 'man ecp-COMMAND' describes a command.\n"
	      "Exit status: 0 success, 1 the analysis failed, 2 usage error;\n"
	      "'ecp record' exits with the recorded program's status.\n",
	      out);
}

/* An answer cut short by a full disk or a closed descriptor is an error,
 * not exit 0 (the commands that print an answer check their writes; this
 * is for the rest, such as --help).  The recorded program's status stays
 * ecp record's. */
static int check_stdout(const char *cmd, int rc)
{
	/* a command that failed has said why already */
	if ((fflush(stdout) == 0 && !ferror(stdout)) || rc != ECP_EXIT_OK)
		return rc;
	fprintf(stderr, "ecp %s: error: writing the output failed: %s\n", cmd,
		strerror(errno ? errno : EIO));
	return strcmp(cmd, "record") ? ECP_EXIT_FAILED : rc;
}

/* Arrays of 1 MiB and more straight from mmap, and back to the kernel when
 * freed.  glibc's threshold otherwise rises to the size of each such block
 * freed (up to 32 MiB), after which the next phase's arrays come from the
 * heap and the last phase's freed ones stay resident beside them: an
 * analysis is phases of large per-segment arrays (issue 35: `ecp scan -P
 * 1-64` on the 500,000-round ping-pong peaked at 0.596 GB with the rising
 * threshold, 0.560 GB without).  Setting it also turns the rising off. */
static void large_arrays_from_mmap(void)
{
	(void)mallopt(M_MMAP_THRESHOLD, 1 << 20);
}

int main(int argc, char **argv)
{
	large_arrays_from_mmap();
	if (argc < 2) {
		print_main_usage(stderr);
		return ECP_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		print_main_usage(stdout);
		return check_stdout("--help", ECP_EXIT_OK);
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
		printf("ecp %s\n", ECP_VERSION);
		return check_stdout("--version", ECP_EXIT_OK);
	}
	if (name[0] == '-') {
		fprintf(stderr, "ecp: unknown option '%s'\nTry 'ecp --help'.\n", name);
		return ECP_EXIT_USAGE;
	}
	const struct ecp_command *cmd = ecp_cli_command_find(name);
	if (!cmd) {
		const struct ecp_command *near = ecp_cli_command_suggest(name);
		fprintf(stderr, "ecp: '%s' is not an ecp command.", name);
		if (near)
			fprintf(stderr, " Did you mean '%s'?", near->name);
		fprintf(stderr, "\nTry 'ecp --help' for the list of commands.\n");
		return ECP_EXIT_USAGE;
	}
	if (ecp_cli_wants_help(cmd, argc - 1, argv + 1))
		return check_stdout(cmd->name, ECP_EXIT_OK);
	return check_stdout(cmd->name, cmd->run(argc - 1, argv + 1));
}
