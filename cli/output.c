/* SPDX-License-Identifier: MIT */
#include "cli/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The names of ecp's own standard output and error: written through the
 * stream, never replaced (as root, renaming over /dev/stdout replaced the
 * system's link with a file). */
static FILE *own_stream(const char *path)
{
	static const char *const out[] = {"-", "/dev/stdout", "/dev/fd/1",
					  "/proc/self/fd/1"};
	static const char *const err[] = {"/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"};
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++)
		if (!strcmp(path, out[i]))
			return stdout;
	for (size_t i = 0; i < sizeof(err) / sizeof(err[0]); i++)
		if (!strcmp(path, err[i]))
			return stderr;
	return NULL;
}

/* A device, FIFO or socket named as the output is written where it is: the
 * temporary file and rename would replace the node with a regular file (as
 * root, `-o /dev/null` replaced /dev/null).  A block device is refused: an
 * answer written over a disk is never what was meant.  Returns 1 (opened
 * in place), 0 (a regular file or nothing yet: the temporary file's way)
 * or -1 (message printed). */
static int open_in_place(const char *cmd, const char *path, struct ecp_output *out)
{
	struct stat st;
	if (lstat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return 0;
	const char *what = S_ISDIR(st.st_mode)   ? "a directory"
			   : S_ISBLK(st.st_mode) ? "a block device"
						 : NULL;
	if (what) {
		fprintf(stderr, "ecp %s: error: cannot write %s: it is %s\n", cmd, path,
			what);
		return -1;
	}
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || !(out->file = fdopen(fd, "w"))) {
		fprintf(stderr, "ecp %s: error: cannot write %s: %s\n", cmd, path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!(out->path = strdup(path))) {
		fclose(out->file);
		out->file = NULL;
		fprintf(stderr, "ecp %s: error: out of memory\n", cmd);
		return -1;
	}
	return 1;
}

int ecp_cli_output_open(const char *cmd, const char *path, struct ecp_output *out)
{
	memset(out, 0, sizeof(*out));
	if ((out->file = own_stream(path)))
		return 0;
	int in_place = open_in_place(cmd, path, out);
	if (in_place)
		return in_place > 0 ? 0 : -1;
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
	if (out->file == stdout || out->file == stderr) {
		if (fflush(out->file) != 0 || ferror(out->file)) {
			fprintf(stderr, "ecp %s: error: writing %s: %s\n", cmd,
				out->file == stdout ? "stdout" : "stderr",
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
			strerror(errno ? errno : EIO));
		ecp_cli_output_abort(out);
		return -1;
	}
	if (!out->tmp_path) { /* written in place */
		free(out->path);
		memset(out, 0, sizeof(*out));
		return 0;
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
	if (out->file && out->file != stdout && out->file != stderr)
		fclose(out->file);
	if (out->tmp_path)
		unlink(out->tmp_path);
	free(out->tmp_path);
	free(out->path);
	memset(out, 0, sizeof(*out));
}
