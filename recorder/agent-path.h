/* SPDX-License-Identifier: MIT */
/* Where `ecp record` finds the libraries it needs (the agent and the
 * ecp_sched provider) without any environment variable. */
#ifndef ECP_RECORDER_AGENT_PATH_H
#define ECP_RECORDER_AGENT_PATH_H

#include <stddef.h>

#include "common/error.h"

/* First existing of: <dir of the running ecp>/../recorder/NAME (the build
 * tree) and ECP_AGENT_INSTALL_DIR/NAME (installed).  Writes the absolute
 * path into buf. */
int ecp_agent_path_find(const char *name, char *buf, size_t len, struct ecp_error *err);

#endif
