/* SPDX-License-Identifier: MIT */
#include "cli/linux-t1.h"

#include <stdio.h>

#include "common/units.h"
#include "simulator/replay/linux-sched.h"

void ecp_cli_check_linux_t1(const char *cmd, uint64_t linux_t1, uint64_t ideal_t1)
{
	double lin = (double)linux_t1, ideal = (double)ideal_t1;
	if (!(lin > 1.10 * ideal))
		return;
	struct ecp_linux_params lp;
	ecp_linux_params_default(&lp);
	char a[32], b[32], c[32];
	fprintf(stderr,
		"ecp %s: warning: the Linux-like model's T_1 (%s) is %.2fx the ideal one "
		"(%s): it charges %s for each context switch it makes, which this "
		"program's recorded durations already hold; read its T_P as up to that "
		"much too long\n",
		cmd, ecp_format_ns(a, sizeof(a), lin), lin / ideal,
		ecp_format_ns(b, sizeof(b), ideal),
		ecp_format_ns(c, sizeof(c), (double)lp.context_switch_ns));
}
