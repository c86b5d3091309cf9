/* SPDX-License-Identifier: MIT */
#include "recorder/agent-path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ecp-config.h"

int ecp_agent_path_find(const char *name, char *buf, size_t len, struct ecp_error *err)
{
	char exe[PATH_MAX], tried[2 * PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	tried[0] = 0;
	if (n > 0) {
		char *slash;
		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			/* the build tree: the sched provider in recorder/, the agent in
			 * recorder/agent/ */
			static const char *const built[] = {"../recorder",
							    "../recorder/agent"};
			for (size_t i = 0; i < sizeof(built) / sizeof(built[0]); i++) {
				if ((size_t)snprintf(buf, len, "%s/%s/%s", exe, built[i],
						     name) >= len)
					continue;
				if (access(buf, R_OK) == 0) {
					char real[PATH_MAX];
					if (realpath(buf, real) && strlen(real) < len)
						strcpy(buf, real);
					return ECP_OK;
				}
				size_t at = strlen(tried);
				snprintf(tried + at, sizeof(tried) - at, "%s, ", buf);
			}
			if ((size_t)snprintf(buf, len, "%s/%s/%s", exe,
					     ECP_AGENT_RELATIVE_DIR, name) < len &&
			    access(buf, R_OK) == 0) {
				char real[PATH_MAX];
				if (realpath(buf, real) && strlen(real) < len)
					strcpy(buf, real);
				return ECP_OK;
			}
		}
	}
	if ((size_t)snprintf(buf, len, "%s/%s", ECP_AGENT_INSTALL_DIR, name) < len &&
	    access(buf, R_OK) == 0)
		return ECP_OK;
	return ecp_error_set(err, ECP_ERR_IO, "cannot find %s: tried %s%s/%s", name,
			     tried, ECP_AGENT_INSTALL_DIR, name);
}
