/* SPDX-License-Identifier: MIT */
/* Other blocking calls: waiting for a child process, for a file lock.
 * Recorded as delays.  A child process is not a thread of the program, and
 * a process-associated lock (fcntl F_SETLKW) never blocks between threads
 * of one process: those delays are exact.  A flock or open-file-description
 * lock (F_OFD_SETLKW) held by another thread through its own open() of the
 * file is a dependency the recorder does not pair: those calls are also
 * named as unmodelled (agent-unmodelled.c).  Waits for a signal are in
 * agent-signal.c. */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "recorder/agent/agent-delay.h"
#include "recorder/agent/agent.h"
#include "recorder/agent/ecp-tp.h"

ECP_AGENT_API pid_t wait(int *status)
{
	__typeof__(&wait) real = ECP_REAL(wait);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(status);
	return DELAY(t, D_WAIT_CHILD, -1, 0, pid_t, real(status));
}

ECP_AGENT_API pid_t waitpid(pid_t pid, int *status, int options)
{
	__typeof__(&waitpid) real = ECP_REAL(waitpid);
	struct ecp_thread *t;
	if ((options & WNOHANG) || !(t = ecp_enter_timed()))
		return real(pid, status, options);
	return DELAY(t, D_WAIT_CHILD, -1, 0, pid_t, real(pid, status, options));
}

/* BSD's wait3/wait4: what shells (dash, bash) wait for their commands with */
ECP_AGENT_API pid_t wait4(pid_t pid, int *status, int options, struct rusage *usage)
{
	__typeof__(&wait4) real = ECP_REAL(wait4);
	struct ecp_thread *t;
	if ((options & WNOHANG) || !(t = ecp_enter_timed()))
		return real(pid, status, options, usage);
	return DELAY(t, D_WAIT_CHILD, -1, 0, pid_t, real(pid, status, options, usage));
}

ECP_AGENT_API pid_t wait3(int *status, int options, struct rusage *usage)
{
	__typeof__(&wait3) real = ECP_REAL(wait3);
	struct ecp_thread *t;
	if ((options & WNOHANG) || !(t = ecp_enter_timed()))
		return real(status, options, usage);
	return DELAY(t, D_WAIT_CHILD, -1, 0, pid_t, real(status, options, usage));
}

ECP_AGENT_API int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	__typeof__(&waitid) real = ECP_REAL(waitid);
	struct ecp_thread *t;
	if ((options & WNOHANG) || !(t = ecp_enter_timed()))
		return real(idtype, id, info, options);
	return DELAY(t, D_WAIT_CHILD, -1, 0, int, real(idtype, id, info, options));
}

/* system() and pclose() wait for their child inside libc (its own
 * waitpid, which no wrapper sees): the whole call is the wait.  The child
 * is followed by the recorder (perf's fork records), and the reader makes
 * the wait depend on it (simulator/trace/builder-processes.c). */
ECP_AGENT_API int system(const char *command)
{
	__typeof__(&system) real = ECP_REAL(system);
	struct ecp_thread *t;
	if (!command || !(t = ecp_enter_timed()))
		return real(command);
	return DELAY(t, D_WAIT_CHILD, -1, 0, int, real(command));
}

ECP_AGENT_API int pclose(FILE *stream)
{
	__typeof__(&pclose) real = ECP_REAL(pclose);
	struct ecp_thread *t = ecp_enter_timed();
	if (!t)
		return real(stream);
	return DELAY(t, D_WAIT_CHILD, -1, 0, int, real(stream));
}

ECP_AGENT_API int flock(int fd, int op)
{
	__typeof__(&flock) real = ECP_REAL(flock);
	struct ecp_thread *t;
	if ((op & LOCK_NB) || (op & LOCK_UN) || !(t = ecp_enter_timed()))
		return real(fd, op);
	ecp_unmodelled("flock");
	return DELAY(t, D_FILE_LOCK, fd, 0, int, real(fd, op));
}

/* fcntl's third argument is an int or a pointer: passed on as glibc's own
 * fcntl reads it.  Programs built with _FILE_OFFSET_BITS=64 call fcntl64. */
#define FCNTL_WRAPPER(name)                                                              \
	ECP_AGENT_API int name(int fd, int cmd, ...)                                     \
	{                                                                                \
		__typeof__(&name) real = ECP_REAL(name);                                 \
		struct ecp_thread *t;                                                    \
		va_list ap;                                                              \
		va_start(ap, cmd);                                                       \
		void *arg = va_arg(ap, void *);                                          \
		va_end(ap);                                                              \
		if ((cmd != F_SETLKW && cmd != F_OFD_SETLKW) ||                          \
		    !(t = ecp_enter_timed()))                                            \
			return real(fd, cmd, arg);                                       \
		if (cmd == F_OFD_SETLKW)                                                 \
			ecp_unmodelled("fcntl(F_OFD_SETLKW)");                           \
		return DELAY(t, D_FILE_LOCK, fd, 0, int, real(fd, cmd, arg));            \
	}

FCNTL_WRAPPER(fcntl)
FCNTL_WRAPPER(fcntl64)
