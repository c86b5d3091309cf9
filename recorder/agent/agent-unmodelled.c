/* SPDX-License-Identifier: MIT */
/* Calls the recorder sees but ecp does not model, or models only in part
 * (recorder/README.md lists them with what each means for the analysis):
 * never a silent gap.  Each name is written once per process as an
 * `unmodelled` event; `ecp record` names them after the run and the model
 * carries a warning for each. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

#define MAX_NAMES 64

/* Names already written: string literals of the wrappers, compared by
 * content (the same name may come from two call sites). */
static const char *_Atomic seen[MAX_NAMES];

ECP_AGENT_FN void ecp_unmodelled(const char *name)
{
	for (int i = 0; i < MAX_NAMES; i++) {
		const char *s = atomic_load(&seen[i]);
		while (!s) {
			const char *expected = NULL;
			if (atomic_compare_exchange_strong(&seen[i], &expected, name)) {
				ECP_TP(unmodelled, name, ecp_cpu_ns());
				ecp_tell_driver(name);
				return;
			}
			s = expected;
		}
		if (s == name || !strcmp(s, name))
			return;
	}
	/* more than MAX_NAMES distinct names: the first ones were named */
}

/* A thread that yields is usually spinning until another thread stores
 * something: a dependency through memory that no event shows (libstdc++'s
 * C++20 waits also yield four times before they block in the kernel, and
 * are seen only when they block).  Named, not modelled: the yield itself
 * is plain CPU time.  LLVM's libomp's own yields are not named while its
 * OMPT tool records the constructs they wait in (agent-ompt.c); those
 * outside the waits it reports are a lock's back-off, timed as spinning
 * (agent-ompt-spin.c). */
ECP_AGENT_API int sched_yield(void)
{
	__typeof__(&sched_yield) real = ECP_REAL(sched_yield);
	struct ecp_thread *t = ecp_enter();
	if (!t)
		return real();
	bool runtime = ecp_ompt_runtime_call(__builtin_return_address(0));
	if (!runtime)
		ecp_unmodelled("sched_yield");
	uint64_t before = runtime ? ecp_thread_cpu_ns() : 0;
	ecp_leave(t);
	int rc = real();
	if (runtime) {
		int saved = errno;
		ecp_ompt_spun(before);
		errno = saved;
	}
	return rc;
}
