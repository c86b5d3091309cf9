/* SPDX-License-Identifier: MIT */
#include "simulator/ctf/event.h"

static const char *const type_names[ECP_EV_COUNT] = {
#define ECP_EVENT_NAME(id, provider, name, a, b, c) [ECP_EV_##id] = name,
    ECP_EVENT_CATALOG(ECP_EVENT_NAME)
#undef ECP_EVENT_NAME
};

const char *ecp_event_type_name(enum ecp_event_type type)
{
	if ((unsigned)type >= ECP_EV_COUNT || !type_names[type])
		return "unknown";
	return type_names[type];
}
