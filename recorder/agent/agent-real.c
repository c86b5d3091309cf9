/* SPDX-License-Identifier: MIT */
/* Resolution of the real functions behind the interposed ones. */
#include <dlfcn.h>
#include <string.h>

#include "recorder/agent/agent.h"

/* dlsym(RTLD_NEXT) finds the next definition after the agent (libc's).
 * A version is given for symbols glibc keeps in two versions, where plain
 * dlsym would return the old one (pthread_cond_* of GLIBC_2.2.5 use a
 * different condition-variable layout). */
ECP_AGENT_FN ecp_fn ecp_real(const char *name, const char *version)
{
	void *p = version ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
	ecp_fn f;
	/* ISO C has no object-to-function pointer conversion; POSIX guarantees
	 * the representations match. */
	memcpy(&f, &p, sizeof(f));
	return f;
}
