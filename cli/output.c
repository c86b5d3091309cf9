/* SPDX-License-Identifier: MIT */
#include "cli/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ecp_cli_output_open(const char *cmd, const char *path, struct ecp_output *out)
{
	memset(out, 0, sizeof(*out));
	if (!strcmp(path, "-")) {
		out->file = stdout;
		return 0;
	}
	out->path = strdup(path);
	size_t len = strlen(path) + 32;
	out->tmp_path = malloc(len);
	if (!out->path || !out->tmp_path) {
		fprintf(stderr, "ecp %s: error: out of memory\n", cmd);
		ecp_cli_output_abort(out);
		return -1;
	}
	int fd = -1;
	for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
		snprintf(out->tmp_path, len, "%s.tmp.%ld.%d", path, (long)getpid(),
			 attempt);
		fd = open(out->tmp_path,
			  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		fprintf(stderr, "ecp %s: error: cannot create %s: %s\n", cmd,
			out->tmp_path, strerror(errno));
		free(out->tmp_path);
		out->tmp_path = NULL;
		ecp_cli_output_abort(out);
		return -1;
	}
	out->file = fdopen(fd, "w");
	if (!out->file) {
		close(fd);
		fprintf(stderr, "ecp %s: error: cannot write %s: %s\n", cmd, path,
			strerror(errno));
		ecp_cli_output_abort(out);
		return -1;
	}
	return 0;
}

int ecp_cli_output_commit(const char *cmd, struct ecp_output *out)
{
	if (out->file == stdout) {
		if (fflush(stdout) != 0) {
			fprintf(stderr, "ecp %s: error: writing stdout: %s\n", cmd,
				strerror(errno));
			return -1;
		}
		return 0;
	}
	int failed = ferror(out->file);
	if (fclose(out->file) != 0)
		failed = 1;
	out->file = NULL;
	if (failed) {
		fprintf(stderr, "ecp %s: error: writing %s failed: %s\n", cmd, out->path,
			strerror(errno));
		ecp_cli_output_abort(out);
		return -1;
	}
	if (rename(out->tmp_path, out->path) != 0) {
		fprintf(stderr, "ecp %s: error: cannot rename %s to %s: %s\n", cmd,
			out->tmp_path, out->path, strerror(errno));
		ecp_cli_output_abort(out);
		return -1;
	}
	free(out->tmp_path);
	free(out->path);
	memset(out, 0, sizeof(*out));
	return 0;
}

void ecp_cli_output_abort(struct ecp_output *out)
{
	if (out->file && out->file != stdout)
		fclose(out->file);
	if (out->tmp_path)
		unlink(out->tmp_path);
	free(out->tmp_path);
	free(out->path);
	memset(out, 0, sizeof(*out));
}
