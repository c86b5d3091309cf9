/* SPDX-License-Identifier: MIT */
#include "recorder/time-slice.h"

#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* glibc 2.36 has no wrapper and no struct: the kernel's layout
 * (include/uapi/linux/sched/types.h, SCHED_ATTR_SIZE_VER1). */
struct kernel_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

/* The one flag of those sched_getattr returns that the set passes back: the
 * others (the utilization clamps, kept unless asked for; the deadline
 * class's) must not be asked for again. */
#define FLAGS_KEPT 0x1u /* SCHED_FLAG_RESET_ON_FORK */

static int get_attr(struct kernel_sched_attr *a)
{
	memset(a, 0, sizeof(*a));
	return (int)syscall(SYS_sched_getattr, 0, a, (unsigned)sizeof(*a), 0u);
}

uint64_t ecp_time_slice_set(uint64_t ns)
{
	struct kernel_sched_attr a;
	if (get_attr(&a) != 0)
		return 0;
	if (a.sched_policy != SCHED_OTHER && a.sched_policy != SCHED_BATCH)
		return 0;
	a.size = sizeof(a);
	a.sched_flags &= FLAGS_KEPT;
	a.sched_priority = 0;
	a.sched_runtime = ns;
	a.sched_deadline = a.sched_period = 0;
	if (syscall(SYS_sched_setattr, 0, &a, 0u) != 0)
		return 0;
	if (get_attr(&a) != 0)
		return 0;
	/* a kernel without custom slices reports 0 (or its default): only the
	 * slice asked for counts as set */
	return a.sched_runtime == ns ? ns : 0;
}
