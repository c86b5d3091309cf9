/* SPDX-License-Identifier: MIT */
#include "recorder/cpu-idle.h"

#include "common/clock-ns.h"
#include "recorder/proc-stat.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The time CPU cpu spent in its cpuidle states, in ns (the states' `time`
 * files are in us); false where it has no cpuidle driver (a container, a
 * VM without haltpoll, idle=poll). */
static bool read_cpuidle_ns(int cpu, uint64_t *ns)
{
	unsigned states = 0;
	*ns = 0;
	for (unsigned k = 0; k < 64; k++) {
		char path[96];
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/cpuidle/state%u/time", cpu, k);
		FILE *f = fopen(path, "re");
		if (!f)
			break;
		unsigned long long us;
		bool ok = fscanf(f, "%llu", &us) == 1;
		fclose(f);
		if (!ok)
			return false;
		*ns += (uint64_t)us * 1000u;
		states++;
	}
	return states > 0;
}

/* Reads each CPU's cpuidle time from a thread running on it: a CPU that is
 * idle at the reading has not yet counted the period under way, which may
 * have begun long before the window.  False when a CPU has no cpuidle or
 * the thread may not run there. */
static bool read_cpuidle_on_cpus(const int *cpus, size_t n, uint64_t *sum)
{
	cpu_set_t old, one;
	bool ok = true;
	*sum = 0;
	if (sched_getaffinity(0, sizeof(old), &old) < 0)
		return false;
	for (size_t i = 0; i < n && ok; i++) {
		uint64_t ns;
		CPU_ZERO(&one);
		CPU_SET(cpus[i], &one);
		ok = sched_setaffinity(0, sizeof(one), &one) == 0 &&
		     sched_getcpu() == cpus[i] && read_cpuidle_ns(cpus[i], &ns);
		if (ok)
			*sum += ns;
	}
	sched_setaffinity(0, sizeof(old), &old);
	return ok;
}

static bool read_idle(struct ecp_cpu_idle *s, const int *cpus, size_t n, uint64_t *sum)
{
	if (s->cpuidle)
		return read_cpuidle_on_cpus(cpus, n, sum);
	/* the kernel counts the idle period under way too */
	uint64_t ticks;
	if (!ecp_proc_stat_sum(cpus, n,
			       (1u << ECP_PROC_STAT_IDLE) | (1u << ECP_PROC_STAT_IOWAIT),
			       &ticks))
		return false;
	*sum = ticks * s->resolution_ns;
	return true;
}

void ecp_cpu_idle_start(struct ecp_cpu_idle *s, const int *cpus, size_t n)
{
	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	s->cpuidle = true;
	s->resolution_ns = 1000; /* the states count whole us */
	if (!read_idle(s, cpus, n, &s->start_ns)) {
		long hz = sysconf(_SC_CLK_TCK);
		if (hz <= 0)
			return;
		s->cpuidle = false;
		s->resolution_ns = 1000000000u / (uint64_t)hz;
		if (!read_idle(s, cpus, n, &s->start_ns))
			return;
	}
	s->start_mono_ns = ecp_clock_ns(CLOCK_MONOTONIC);
	s->known = true;
}

void ecp_cpu_idle_end(struct ecp_cpu_idle *s, const int *cpus, size_t n)
{
	uint64_t idle;
	if (!s->known || !read_idle(s, cpus, n, &idle) || idle < s->start_ns) {
		s->known = false;
		return;
	}
	s->window_ns = ecp_clock_ns(CLOCK_MONOTONIC) - s->start_mono_ns;
	s->ns = idle - s->start_ns;
}

uint64_t ecp_cpu_idle_others(const struct ecp_cpu_idle *s, size_t n_cpus,
			     uint64_t program_cpu_ns, uint64_t steal_ns)
{
	if (!s->known)
		return 0;
	uint64_t all = s->window_ns * (uint64_t)n_cpus;
	uint64_t taken = s->ns + program_cpu_ns + steal_ns;
	return all > taken ? all - taken : 0;
}
