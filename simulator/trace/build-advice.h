/* SPDX-License-Identifier: MIT */
/* Advice on how the recorded program was built, from what its recording
 * shows.  A C++ program compiled whole with -finstrument-functions hooks
 * every std:: helper the compiler inlined (issue 34: 1.7 billion calls,
 * 98 s to record 0.9 s of CPU, the wrong function named): when most calls
 * were to such code and they came every few tens of nanoseconds of the
 * program's CPU, the hooks outweigh the code, and the model says so, naming
 * the compiler flags that keep the hooks out of library headers. */
#ifndef ECP_SIMULATOR_BUILD_ADVICE_H
#define ECP_SIMULATOR_BUILD_ADVICE_H

#include "simulator/model/model.h"

/* The warning's text when it applies (the model's names, calls and the
 * program's CPU time set). */
bool ecp_library_calls_advice(const struct ecp_model *m, char *buf, size_t len);
/* Adds it to the model's warnings; returns 0, or a negative status. */
int ecp_advise_library_calls(struct ecp_model *m);

/* Whether `name` (demangled) is C++ standard library code that headers
 * inline into the program: std::, __gnu_cxx::, std::__cxx11::, __cxxabiv1. */
bool ecp_is_std_library_name(const char *name);

#endif
