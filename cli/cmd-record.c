#include "cli/commands.h"

/* Not built yet: says so and fails with the usage status, never 0. */
int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "ecp record: this command is not built yet in this version of ecp\n");
	return ECP_EXIT_USAGE;
}
