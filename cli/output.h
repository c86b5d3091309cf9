/* SPDX-License-Identifier: MIT */
/* Output files of `ecp viz` and `ecp export`.
 *
 * Written to a fresh temporary file beside the target (O_EXCL|O_NOFOLLOW, so
 * nothing planted in the output directory is followed) and renamed over the
 * target at the end: a symlink at the target path is replaced, never written
 * through, and an interrupted run never leaves half a file.  "-" (and
 * /dev/stdout) is stdout; a device, FIFO or socket is written in place, a
 * block device or a directory refused. */
#ifndef ECP_CLI_OUTPUT_H
#define ECP_CLI_OUTPUT_H

#include <stdio.h>

struct ecp_output {
	FILE *file;
	char *path;
	char *tmp_path; /* NULL for stdout, stderr and what is written in place */
};

/* Returns 0, or -1 with a message printed for `cmd`. */
int ecp_cli_output_open(const char *cmd, const char *path, struct ecp_output *out);
/* Flushes, closes and renames into place; on failure removes the temporary
 * file.  Returns 0 or -1 (message printed). */
int ecp_cli_output_commit(const char *cmd, struct ecp_output *out);
/* Discards the temporary file. */
void ecp_cli_output_abort(struct ecp_output *out);

#endif
