/* SPDX-License-Identifier: MIT */
/* What the agent tells `ecp record` outside the trace: one line per fact
 * in ECP_UNMODELLED_FILE.  Also in the children's library
 * (libecp-child.so, which has no trace to write to): it links nothing of
 * LTTng-UST. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "recorder/agent/agent.h"

/* One line, appended with one write (O_APPEND: processes and threads do
 * not interleave lines); the program's errno is kept. */
ECP_AGENT_FN void ecp_tell_driver(const char *name)
{
	const char *path = getenv("ECP_UNMODELLED_FILE");
	char line[64];
	int saved = errno, fd, len;
	if (path && *path &&
	    (fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) >= 0) {
		len = snprintf(line, sizeof(line), "%s\n", name);
		if (len > 0 && len < (int)sizeof(line) &&
		    write(fd, line, (size_t)len) != len) {
			/* nothing to do: the trace still names it */
		}
		close(fd);
	}
	errno = saved;
}
