/* SPDX-License-Identifier: MIT */
#include "recorder/objects.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elf.h>
#include <link.h>
#include <sys/auxv.h>

static int copy_file(const char *out_dir, const char *real, bool keep_existing,
		     struct ecp_error *err);

static int resolve_program(const char *argv0, char *out, size_t len)
{
	if (strchr(argv0, '/'))
		return realpath(argv0, out) ? 0 : -1;
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		char cand[PATH_MAX];
		if (snprintf(cand, sizeof(cand), "%.*s/%s", (int)n, n ? path : ".",
			     argv0) < (int)sizeof(cand) &&
		    access(cand, X_OK) == 0 && realpath(cand, out))
			return 0;
		path += n + (colon ? 1 : 0);
		if (!colon)
			break;
	}
	(void)len;
	return -1;
}

int ecp_record_copy_program(const char *out_dir, const char *argv0, struct ecp_error *err)
{
	char real[PATH_MAX];
	if (resolve_program(argv0, real, sizeof(real)) < 0)
		return ecp_error_set(err, ECP_ERR_IO, "cannot find the program '%s'",
				     argv0);
	return copy_file(out_dir, real, false, err);
}

int ecp_record_copy_object(const char *out_dir, const char *path, struct ecp_error *err)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		return ecp_error_set(err, ECP_ERR_IO, "the trace keeps no copy of %s: %s",
				     path, strerror(errno));
	return copy_file(out_dir, real, true, err);
}

static int copy_file(const char *out_dir, const char *real, bool keep_existing,
		     struct ecp_error *err)
{
	char dir[PATH_MAX], dst[2 * PATH_MAX + 2];
	const char *base = strrchr(real, '/');
	base = base ? base + 1 : real;
	if (snprintf(dir, sizeof(dir), "%s/objects", out_dir) >= (int)sizeof(dir))
		return ecp_error_set(err, ECP_ERR_IO, "output path too long");
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return ecp_error_set(err, ECP_ERR_IO, "cannot create %s: %s", dir,
				     strerror(errno));
	snprintf(dst, sizeof(dst), "%s/%s", dir, base);
	/* objects are found by their base name (simulator/trace/trace.c): the first
	 * one copied keeps it (the program, before any library) */
	if (keep_existing && access(dst, F_OK) == 0)
		return 0;

	int in = open(real, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return ecp_error_set(err, ECP_ERR_IO, "cannot read %s: %s", real,
				     strerror(errno));
	struct stat st;
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (unsigned long long)st.st_size > ECP_OBJECT_COPY_MAX) {
		close(in);
		return ecp_error_set(err, ECP_ERR_IO,
				     "%s is not a regular file of at most %llu MiB", real,
				     ECP_OBJECT_COPY_MAX >> 20);
	}
	/* O_EXCL|O_NOFOLLOW: never write through something planted there. */
	unlink(dst);
	/* never readable by more than the original: a root-only (0700)
	 * program's copy stays private */
	int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		       st.st_mode & 0644);
	if (out < 0) {
		close(in);
		return ecp_error_set(err, ECP_ERR_IO, "cannot create %s: %s", dst,
				     strerror(errno));
	}
	char buf[1 << 16];
	ssize_t n;
	int rc = 0;
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -1;
			break;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				rc = -1;
				break;
			}
			off += w;
		}
		if (rc)
			break;
	}
	int saved = errno;
	close(in);
	if (close(out) < 0 && !rc) {
		rc = -1;
		saved = errno;
	}
	if (rc) {
		unlink(dst);
		return ecp_error_set(err, ECP_ERR_IO, "copying %s to %s: %s", real, dst,
				     strerror(saved));
	}
	return 0;
}

int ecp_record_copy_vdso(const char *out_dir, struct ecp_error *err)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	char dst[PATH_MAX + 32];
	if (!eh)
		return 0; /* no vDSO on this system: nothing runs there */
	/* the image ends with its section headers (or its last segment) */
	size_t size = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	const ElfW(Phdr) *ph = (const void *)((const char *)eh + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > size)
			size = ph[i].p_offset + ph[i].p_filesz;
	if (size > (1u << 20))
		return ecp_error_set(err, ECP_ERR_IO,
				     "the vDSO image is implausibly large");
	snprintf(dst, sizeof(dst), "%s/objects/[vdso]", out_dir);
	unlink(dst);
	int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return ecp_error_set(err, ECP_ERR_IO, "cannot create %s: %s", dst,
				     strerror(errno));
	ssize_t w = write(fd, eh, size);
	int saved = errno;
	if (close(fd) < 0 || w != (ssize_t)size) {
		unlink(dst);
		return ecp_error_set(err, ECP_ERR_IO, "cannot write %s: %s", dst,
				     strerror(w < 0 ? saved : EIO));
	}
	return 0;
}
