/* SPDX-License-Identifier: MIT */
/* A copy of the recorded executable kept in the trace directory
 * (DIR/objects/<name>), as perf keeps binaries in its build-id cache: the
 * trace then names its functions on another machine, from a clean clone,
 * or after the program was rebuilt (simulator/trace/trace.c prefers the copy). */
#ifndef ECP_RECORDER_OBJECTS_H
#define ECP_RECORDER_OBJECTS_H

#include "common/error.h"

/* Executables larger than this are not copied (names then come from the
 * file at its recorded path, as before). */
#define ECP_OBJECT_COPY_MAX (256ull << 20)

/* Resolves argv0 as execvp does (PATH search when it has no '/'), follows
 * symlinks (the statedump names the real file) and copies it.  Returns 0 or
 * fills err; a failure loses names on other machines only, so callers warn. */
int ecp_record_copy_program(const char *out_dir, const char *argv0,
			    struct ecp_error *err);
/* Copies the object at `path` (a shared library the samples touched) into
 * out_dir/objects/ under its base name, unless a file of that name is
 * already there. */
int ecp_record_copy_object(const char *out_dir, const char *path, struct ecp_error *err);
/* Writes this process's vDSO image as out_dir/objects/[vdso]: the kernel
 * maps the same image into every process (at another address), so the
 * recorded program's samples that ran there (clock_gettime, gettimeofday)
 * can be unwound and named from it, as perf does. */
int ecp_record_copy_vdso(const char *out_dir, struct ecp_error *err);

#endif
