/* SPDX-License-Identifier: MIT */
/* The CPU clocks of the threads still alive when the process exits.
 *
 * The switch records time a thread's stays on the CPU in wall time, which
 * holds what the hypervisor stole from the virtual CPU meanwhile; the
 * thread's own CPU clock does not.  The reader scales each thread's times
 * by its clock over the records' time between its first and last clock
 * readings (simulator/trace/builder-clock-scale.c), and a thread's last reading
 * was its thread_exit: a thread that the process's exit ends (an OpenMP
 * team's workers, a pool's threads) had none, and its work kept the steal
 * (omp_fib's workers in a CI run whose steal bursts took a third of the
 * CPU).  At the exit, main reads each other thread's clock, which Linux
 * lets any thread of the process read, and writes it as a thread_clock
 * event.  The reads' time is the recorder's: kept apart as a window that
 * wrote no event of the program's (agent-sync-cost.c). */
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A thread's CPU clock from its tid (the kernel's MAKE_THREAD_CPUCLOCK
 * with CPUCLOCK_SCHED: what glibc's pthread_getcpuclockid makes). */
ECP_AGENT_FN static clockid_t thread_clock_of(pid_t tid)
{
	return (clockid_t)((~(unsigned)tid) << 3) | 6;
}

/* getdents64's record (no libc header declares it). */
struct task_dirent {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

ECP_AGENT_FN static void write_clock(const char *name, pid_t self)
{
	char *end;
	long tid = strtol(name, &end, 10);
	struct timespec ts;
	if (*end || tid <= 0 || tid == self ||
	    clock_gettime(thread_clock_of((pid_t)tid), &ts) != 0)
		return;
	ECP_TP(thread_clock, (uint64_t)tid,
	       (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, 0);
}

/* The directory is read with raw system calls into a buffer on the stack:
 * no allocation, and none of the agent's own I/O wrappers, in the exit.
 * errno is the program's again after (an exit handler of its own may
 * read it). */
ECP_AGENT_FN void ecp_write_thread_clocks(struct ecp_thread *t)
{
	if (ecp_settings.cputime)
		return; /* every event carries its thread's clock already */
	uint64_t t0 = ecp_tsc();
	int saved = errno;
	pid_t self = (pid_t)syscall(SYS_gettid);
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/task",
			      O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		errno = saved;
		return;
	}
	char buf[4096] __attribute__((aligned(8)));
	long n;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long at = 0; at < n;) {
			const struct task_dirent *e = (const void *)(buf + at);
			write_clock(e->name, self);
			at += e->reclen;
		}
	syscall(SYS_close, fd);
	errno = saved;
	/* The block is the recorder's: its CPU time, not its wall time.  A
	 * block preempted (216 us of wall beside a busy loop, 55 us alone) is
	 * a slow window, whose CPU time the reader takes from the switch
	 * records; else a quiet one.  Either is written after the thread_clock
	 * events, which the reader does not take as this thread's clock. */
	uint64_t ticks = ecp_tsc() - t0;
	if (ticks >= ecp_settings.hook_outlier_tsc) {
		ecp_sync_slow(t, ticks);
		return;
	}
	t->quiet_ticks += ticks;
	t->quiet_windows++;
}
