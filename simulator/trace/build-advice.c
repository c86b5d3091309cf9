/* SPDX-License-Identifier: MIT */
#include "simulator/trace/build-advice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simulator/model/model-internal.h"

/* Below this much of the program's CPU per instrumented call, the hooks
 * (about 30 ns a folded call, 90 ns a recorded one) are a large part of
 * what was measured. */
#define CPU_PER_CALL_NS 200u

bool ecp_is_std_library_name(const char *name)
{
	static const char *const prefixes[] = {
	    "std::",      "__gnu_cxx::", "__cxxabiv1::",
	    "void std::", "bool std::",  "__gnu_debug::"};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

bool ecp_library_calls_advice(const struct ecp_model *m, char *buf, size_t len)
{
	if (!m->n_functions || !m->info.program_cpu_ns)
		return false;
	uint64_t *calls = calloc(m->n_functions, sizeof(*calls));
	if (!calls)
		return false;
	for (uint64_t i = 0; i < m->n_activities; i++)
		if (m->activities[i].function < m->n_functions)
			calls[m->activities[i].function] += m->activities[i].calls;
	uint64_t all = 0, library = 0;
	uint32_t top = 0;
	for (uint32_t f = 0; f < m->n_functions; f++) {
		uint64_t n = calls[f] + m->functions[f].folded_calls;
		all += n;
		if (m->functions[f].name &&
		    ecp_is_std_library_name(m->functions[f].name)) {
			library += n;
			if (n > calls[top] + m->functions[top].folded_calls ||
			    !ecp_is_std_library_name(m->functions[top].name))
				top = f;
		}
	}
	free(calls);
	if (!library || library * 2 < all ||
	    all * CPU_PER_CALL_NS < m->info.program_cpu_ns)
		return false;
	snprintf(
	    buf, len,
	    "%llu of the %llu instrumented calls (one every %.0f ns of the program's "
	    "CPU) "
	    "were to C++ library code the compiler inlined from headers (the most: %s): "
	    "the hooks cost more than that code and distort every time here; build with "
	    "-finstrument-functions-exclude-file-list=/usr/include (GCC) or "
	    "-finstrument-functions-after-inlining (clang), or record it sampled "
	    "(--functions sample)",
	    (unsigned long long)library, (unsigned long long)all,
	    (double)m->info.program_cpu_ns / (double)all, m->functions[top].name);
	return true;
}

int ecp_advise_library_calls(struct ecp_model *m)
{
	char text[1024];
	return ecp_library_calls_advice(m, text, sizeof(text))
		   ? ecp_model_add_warning(m, "%s", text)
		   : 0;
}
