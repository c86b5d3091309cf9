/* SPDX-License-Identifier: MIT */
/* --as-cpus N: the recorded program sees N CPUs while it runs on one.
 *
 * `ecp record` pins the program to one CPU, and a program that asks how
 * many CPUs it has would size its thread pools (OpenMP's default team,
 * std::thread::hardware_concurrency, nproc) by that one: a different
 * program from the one the user asks about.  With ECP_AS_CPUS=N every way
 * glibc answers that question says N:
 * - sched_getaffinity / pthread_getaffinity_np: CPUs 0..N-1 (what libgomp's
 *   omp_get_num_procs and default team, and coreutils' nproc, count);
 * - sysconf(_SC_NPROCESSORS_ONLN / _CONF), get_nprocs, get_nprocs_conf (what
 *   libstdc++'s hardware_concurrency calls).
 * A program's own sched_setaffinity / pthread_setaffinity_np on one of its
 * threads is not applied (the thread would leave the recording CPU): the
 * mask is remembered and reported back by the get functions, and the call
 * succeeds.  Calls about other processes pass through.
 *
 * Active in every process that inherits ECP_AS_CPUS (children the program
 * starts see the same machine), whether or not it is recorded.  Nothing here
 * depends on the agent's constructor: libraries' constructors (libgomp's)
 * may ask before it runs. */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder/agent/agent.h"

/* -1: not read yet; 0: not set (pass through); else N. */
static atomic_int as_cpus = -1;

ECP_AGENT_FN static int cpus(void)
{
	int n = atomic_load_explicit(&as_cpus, memory_order_relaxed);
	if (n < 0) {
		const char *s = getenv("ECP_AS_CPUS");
		char *end;
		long v = s && *s ? strtol(s, &end, 10) : 0;
		n = s && *s && !*end && v > 0 && v <= CPU_SETSIZE ? (int)v : 0;
		atomic_store_explicit(&as_cpus, n, memory_order_relaxed);
	}
	return n;
}

/* Masks the program set on its own threads, keyed by pthread_t (pthread_*
 * calls and sched_* calls on the calling thread) or by tid with the top bit
 * set (sched_* calls naming another thread). */
#define MASK_SLOTS 256
static struct {
	atomic_uint_fast64_t key;
	size_t size;
	cpu_set_t mask;
} masks[MASK_SLOTS];

ECP_AGENT_FN static int slot_of(uint64_t key, bool create)
{
	for (int i = 0; i < MASK_SLOTS; i++) {
		uint_fast64_t k = atomic_load(&masks[i].key);
		if (k == key)
			return i;
		if (k == 0) {
			uint_fast64_t zero = 0;
			if (!create)
				return -1;
			if (atomic_compare_exchange_strong(&masks[i].key, &zero, key))
				return i;
			if (zero == key)
				return i;
		}
	}
	return -1; /* full: the mask is not remembered (reported as N CPUs) */
}

/* The program asked how many CPUs it has and was told --as-cpus: a pool it
 * sizes by that is the pool recorded, and predictions for more processors
 * are for that pool (the answers say so).  Told to the driver once. */
ECP_AGENT_FN static void told_cpu_count(const void *caller)
{
	static atomic_bool told;
	if (atomic_load_explicit(&told, memory_order_relaxed))
		return;
	/* LTTng-UST, liburcu and libnuma (which LTTng-UST loads) ask too, for
	 * their per-CPU buffers: only the program's own question counts (its
	 * runtimes' too: libgomp sizes a team, libstdc++ answers
	 * hardware_concurrency) */
	Dl_info where;
	const char *obj =
	    caller && dladdr(caller, &where) && where.dli_fname ? where.dli_fname : "";
	const char *base = strrchr(obj, '/') ? strrchr(obj, '/') + 1 : obj;
	if (!strncmp(base, "liblttng-", 9) || !strncmp(base, "liburcu", 7) ||
	    !strncmp(base, "libnuma.", 8) || !strncmp(base, "libecp-", 7))
		return;
	if (!atomic_exchange(&told, true))
		ecp_tell_driver("#cpu-count");
}

/* Whether `pid` (sched_* argument) is a thread of this process. */
ECP_AGENT_FN static bool ours(pid_t pid)
{
	return pid == 0 || pid == getpid() || pid == gettid() ||
	       syscall(SYS_tgkill, getpid(), pid, 0) == 0;
}

ECP_AGENT_FN static uint64_t key_of_pid(pid_t pid)
{
	if (pid == 0 || pid == gettid())
		return (uint64_t)pthread_self();
	return (uint64_t)pid | (1ull << 63);
}

/* The mask a thread sees: the one it set, else CPUs 0..N-1.  Returns an
 * errno value (EINVAL when `size` cannot hold N CPUs, as the kernel). */
ECP_AGENT_FN static int fill(uint64_t key, size_t size, cpu_set_t *set,
			     const void *caller)
{
	int n = cpus(), i = slot_of(key, false);
	told_cpu_count(caller);
	memset(set, 0, size);
	if (i >= 0 && masks[i].size) {
		memcpy(set, &masks[i].mask, size < masks[i].size ? size : masks[i].size);
		return 0;
	}
	if ((size_t)n > size * 8)
		return EINVAL;
	for (int c = 0; c < n; c++)
		CPU_SET_S((size_t)c, size, set);
	return 0;
}

/* Remembers a mask the program set; EINVAL when it names none of the N
 * CPUs (the kernel refuses a mask with no usable CPU). */
ECP_AGENT_FN static int remember(uint64_t key, size_t size, const cpu_set_t *set)
{
	int n = cpus(), i;
	bool any = false;
	for (int c = 0; c < n && (size_t)c < size * 8; c++)
		any = any || CPU_ISSET_S((size_t)c, size, set);
	if (!any)
		return EINVAL;
	i = slot_of(key, true);
	if (i >= 0) {
		size_t keep = size < sizeof(cpu_set_t) ? size : sizeof(cpu_set_t);
		memset(&masks[i].mask, 0, sizeof(masks[i].mask));
		memcpy(&masks[i].mask, set, keep);
		masks[i].size = keep;
	}
	return 0;
}

ECP_AGENT_API int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
	int err;
	if (!cpus() || !set || !size || !ours(pid))
		return ECP_REAL(sched_getaffinity)(pid, size, set);
	err = fill(key_of_pid(pid), size, set, __builtin_return_address(0));
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

ECP_AGENT_API int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
	int err;
	if (!cpus() || !set || !size || !ours(pid))
		return ECP_REAL(sched_setaffinity)(pid, size, set);
	err = remember(key_of_pid(pid), size, set);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

ECP_AGENT_API int pthread_getaffinity_np(pthread_t thread, size_t size, cpu_set_t *set)
{
	if (!cpus() || !size)
		return ECP_REAL(pthread_getaffinity_np)(thread, size, set);
	return fill((uint64_t)thread, size, set, __builtin_return_address(0));
}

ECP_AGENT_API int pthread_setaffinity_np(pthread_t thread, size_t size,
					 const cpu_set_t *set)
{
	if (!cpus() || !size)
		return ECP_REAL(pthread_setaffinity_np)(thread, size, set);
	return remember((uint64_t)thread, size, set);
}

ECP_AGENT_API long sysconf(int name)
{
	if ((name == _SC_NPROCESSORS_ONLN || name == _SC_NPROCESSORS_CONF) && cpus()) {
		told_cpu_count(__builtin_return_address(0));
		return cpus();
	}
	return ECP_REAL(sysconf)(name);
}

ECP_AGENT_API int get_nprocs(void)
{
	if (!cpus())
		return ECP_REAL(get_nprocs)();
	told_cpu_count(__builtin_return_address(0));
	return cpus();
}

ECP_AGENT_API int get_nprocs_conf(void)
{
	if (!cpus())
		return ECP_REAL(get_nprocs_conf)();
	told_cpu_count(__builtin_return_address(0));
	return cpus();
}
