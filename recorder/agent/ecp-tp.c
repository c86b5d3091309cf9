/* SPDX-License-Identifier: MIT */
/* The `ecp` provider's probes, compiled into the agent, and the agent's
 * constructor: defined after the probes in this file so that it runs after
 * their registration (constructors of one file run in definition order) and
 * the main thread's thread_start is not lost. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "recorder/agent/ecp-tp.h"

#include "recorder/agent/agent.h"

void ecp_agent_init(void);

static void __attribute__((constructor, no_instrument_function)) ecp_agent_ctor(void)
{
	ecp_agent_init();
}
