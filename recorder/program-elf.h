/* SPDX-License-Identifier: MIT */
/* What the driver learns from the program's executable before running it. */
#ifndef ECP_RECORDER_PROGRAM_ELF_H
#define ECP_RECORDER_PROGRAM_ELF_H

#include <stdbool.h>

/* Whether the program (found like execvp finds it) imports dlopen or
 * dlmopen, so that loading libraries at run time is possible.  False when
 * it cannot be read (the exec will then report the real problem). */
bool ecp_program_uses_dlopen(const char *program);

/* Whether it was built with -finstrument-functions (imports the
 * __cyg_profile_func_* hooks).  False when it cannot be read. */
bool ecp_program_is_instrumented(const char *program);

#endif
