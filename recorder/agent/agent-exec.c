/* SPDX-License-Identifier: MIT */
/* Programs the recorded process starts, kept free of the recorder.
 *
 * Every process the program starts inherits LD_PRELOAD, and with it the
 * agent, liblttng-ust-fork and -fd, and through them LTTng-UST, which sets
 * itself up in each one (its listener threads, its registration with the
 * session daemon, its state dump) although the agent records nothing
 * there: a child is followed by perf's switch records only.  That set-up
 * was the children's cost, not the program's: `sh -c 'for i in $(seq 40);
 * do /bin/true; done'` used 478 ms of CPU recorded against 30 ms
 * unrecorded (5.5 ms a /bin/true instead of about 1).  So the image a
 * process other than the recorded one execs gets LD_PRELOAD without what
 * `ecp record` put in it (ECP_PRELOAD names those entries; the program's
 * own entries stay) and with libecp-child.so first (ECP_CHILD_PRELOAD),
 * which shows it the CPUs of --as-cpus as the agent does (agent-cpus.c)
 * and links nothing of LTTng-UST.  An exec in the recorded process itself
 * keeps them: its new image goes on being recorded (`env X=1 prog`, a
 * shell's `exec`).
 *
 * posix_spawn and the exec functions that take no environment are wrapped
 * too, since glibc calls its own execve inside them, where no wrapper sees
 * it.  system() and popen() start /bin/sh through glibc's internal spawn:
 * that shell still carries the recorder, the programs it runs do not.
 *
 * The wrappers run after fork in a multithreaded program and in vfork
 * children, where only async-signal-safe work is allowed: the new
 * environment is built on the stack, with no allocation and no lock, and
 * the real functions are resolved in the recorded process before it can
 * fork (ecp_exec_resolve). */
#include "recorder/agent/agent.h"

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static __typeof__(&execve) real_execve;
static __typeof__(&execvpe) real_execvpe;
static __typeof__(&fexecve) real_fexecve;
static __typeof__(&posix_spawn) real_posix_spawn;
static __typeof__(&posix_spawnp) real_posix_spawnp;

#define EXEC_REAL(fn)                                                                    \
	(real_##fn ? real_##fn : (real_##fn = (__typeof__(&fn))ecp_real(#fn, 0)))

ECP_AGENT_FN void ecp_exec_resolve(void)
{
	(void)EXEC_REAL(execve);
	(void)EXEC_REAL(execvpe);
	(void)EXEC_REAL(fexecve);
	(void)EXEC_REAL(posix_spawn);
	(void)EXEC_REAL(posix_spawnp);
}

#define PRELOAD_VAR "LD_PRELOAD="
#define OURS_VAR    "ECP_PRELOAD="
#define CHILD_VAR   "ECP_CHILD_PRELOAD="
/* record.c puts the agent and two or three of LTTng-UST's libraries. */
#define MAX_OURS 8

/* ld.so separates LD_PRELOAD's entries by colons or spaces. */
ECP_AGENT_FN static bool is_separator(char c)
{
	return c == ':' || c == ' ';
}

ECP_AGENT_FN static const char *env_value(char *const envp[], const char *var)
{
	size_t n = strlen(var);
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], var, n) == 0)
			return envp[i] + n;
	return 0;
}

/* A variable of `ecp record`'s as the recorded process was told it
 * (environ) or, where the program replaced its environment, as the new
 * one says. */
ECP_AGENT_FN static const char *ecp_var(char *const envp[], const char *var)
{
	const char *v = env_value(environ, var);
	return v && *v ? v : env_value(envp, var);
}

struct entry {
	const char *s;
	size_t len;
};

/* The entry of a list at or after *s (false: none left); *s moves past it. */
ECP_AGENT_FN static bool next_entry(const char **s, struct entry *e)
{
	const char *p = *s;
	while (is_separator(*p))
		p++;
	if (!*p)
		return false;
	e->s = p;
	while (*p && !is_separator(*p))
		p++;
	e->len = (size_t)(p - e->s);
	*s = p;
	return true;
}

/* Splits a colon-separated list into at most `cap` entries. */
ECP_AGENT_FN static size_t split(const char *s, struct entry *out, size_t cap)
{
	size_t n = 0;
	while (n < cap && next_entry(&s, &out[n]))
		n++;
	return n;
}

/* `value` (an LD_PRELOAD's) less the first occurrence of each of ours,
 * with `child` first and nowhere else, written to `out` (room for
 * strlen(child) + 1 + strlen(value) + 1).  False: none of ours is in it. */
ECP_AGENT_FN static bool strip_ours(const char *value, const struct entry *ours,
				    size_t n_ours, const char *child, char *out)
{
	bool used[MAX_OURS] = {false}, stripped = false;
	size_t child_len = child ? strlen(child) : 0;
	char *w = out;
	const char *s = value;
	if (child_len)
		memcpy(w, child, child_len);
	w += child_len;
	struct entry e;
	while (next_entry(&s, &e)) {
		bool drop =
		    child_len && e.len == child_len && memcmp(e.s, child, e.len) == 0;
		for (size_t i = 0; i < n_ours && !drop; i++)
			if (!used[i] && ours[i].len == e.len &&
			    memcmp(ours[i].s, e.s, e.len) == 0)
				used[i] = drop = stripped = true;
		if (!drop) {
			if (w != out)
				*w++ = ':';
			memcpy(w, e.s, e.len);
			w += e.len;
		}
	}
	*w = 0;
	return stripped;
}

/* How much stack the child's environment needs: 0 vars when nothing is
 * to be taken out (an exec in the recorded process itself). */
struct child_env_size {
	size_t vars;  /* entries of envp */
	size_t bytes; /* the LD_PRELOAD entries' text */
	/* ECP_CHILD_PRELOAD's and ECP_PRELOAD's values, looked up once */
	const char *child, *ours;
};

/* An environment larger than this is passed on as it is (its copy would
 * not fit the stack of a vfork child). */
#define MAX_COPIED_VARS 65536

ECP_AGENT_FN static struct child_env_size child_env_size(char *const envp[], bool spawn)
{
	struct child_env_size z = {0, 0, 0, 0};
	size_t n = 0, bytes = 0;
	bool preload = false;
	if (!envp || (!spawn && ecp_in_recorded_process()))
		return z;
	const char *child = ecp_var(envp, CHILD_VAR);
	for (; envp[n]; n++)
		if (strncmp(envp[n], PRELOAD_VAR, strlen(PRELOAD_VAR)) == 0) {
			preload = true;
			bytes += strlen(envp[n]) + 1 + (child ? strlen(child) + 1 : 0);
		}
	const char *ours = ecp_var(envp, OURS_VAR);
	if (!preload || n > MAX_COPIED_VARS || !ours)
		return z;
	z.vars = n;
	z.bytes = bytes;
	z.child = child;
	z.ours = ours;
	return z;
}

/* envp with ours taken out of its LD_PRELOAD and the children's library
 * put first (an LD_PRELOAD that keeps nothing is left out), in `vec` and
 * `buf` as child_env_size sized them; envp itself where nothing is taken
 * out. */
ECP_AGENT_FN static char *const *child_env(char *const envp[], struct child_env_size z,
					   char **vec, char *buf)
{
	struct entry ours[MAX_OURS];
	size_t n_ours, k = 0;
	bool stripped = false;
	if (!z.vars)
		return envp;
	const char *child = z.child;
	n_ours = split(z.ours, ours, MAX_OURS);
	for (size_t i = 0; i < z.vars; i++) {
		const char *v = envp[i];
		if (strncmp(v, PRELOAD_VAR, strlen(PRELOAD_VAR)) != 0) {
			vec[k++] = envp[i];
			continue;
		}
		memcpy(buf, PRELOAD_VAR, strlen(PRELOAD_VAR));
		if (!strip_ours(v + strlen(PRELOAD_VAR), ours, n_ours, child,
				buf + strlen(PRELOAD_VAR))) {
			vec[k++] = envp[i];
			continue;
		}
		stripped = true;
		if (buf[strlen(PRELOAD_VAR)])
			vec[k++] = buf;
		buf += strlen(buf) + 1;
	}
	vec[k] = 0;
	return stripped ? vec : envp;
}

/* Declares `name`, envp as the new image is to get it, on the caller's
 * stack; `spawn`: a new process, not this one's next image. */
#define CHILD_ENV(name, envp, spawn)                                                     \
	struct child_env_size name##_size = child_env_size(envp, spawn);                 \
	char *name##_vec[name##_size.vars + 1];                                          \
	char name##_buf[name##_size.bytes + 1];                                          \
	char *const *name = child_env(envp, name##_size, name##_vec, name##_buf)

/* An exec function that takes an environment, run with the new image's:
 * `first` names what it runs (a path, a file searched in PATH, a
 * descriptor). */
#define ENV_EXEC(fn, first_type, first)                                                  \
	ECP_AGENT_API int fn(first_type first, char *const argv[], char *const envp[])   \
	{                                                                                \
		__typeof__(&fn) real = EXEC_REAL(fn);                                    \
		ecp_flush_before_end();                                                  \
		CHILD_ENV(env, envp, false);                                             \
		return real(first, argv, env);                                           \
	}
ENV_EXEC(execve, const char *, path)
ENV_EXEC(execvpe, const char *, file)
ENV_EXEC(fexecve, int, fd)

ECP_AGENT_API int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

ECP_AGENT_API int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* execl's arguments from `arg` on, up to the null pointer: how many. */
ECP_AGENT_FN static size_t count_args(va_list ap)
{
	size_t n = 1;
	while (va_arg(ap, const char *))
		n++;
	return n;
}

/* In a variadic exec function, as glibc writes them: `argv`, the arguments
 * from `arg` on and the list's null pointer, on the stack, `ap` left past
 * that pointer (execle's environment comes next).  Too many arguments for
 * any exec (E2BIG) fail as they would. */
#define VA_ARGV(argv, arg, ap)                                                           \
	va_list ap, ap##_count;                                                          \
	va_start(ap, arg);                                                               \
	va_copy(ap##_count, ap);                                                         \
	size_t argv##_n = count_args(ap##_count);                                        \
	va_end(ap##_count);                                                              \
	if (argv##_n > (size_t)INT_MAX / sizeof(char *)) {                               \
		va_end(ap);                                                              \
		errno = E2BIG;                                                           \
		return -1;                                                               \
	}                                                                                \
	char *argv[argv##_n + 1];                                                        \
	argv[0] = (char *)(arg);                                                         \
	for (size_t i_ = 1; i_ <= argv##_n; i_++)                                        \
	argv[i_] = va_arg(ap, char *)

ECP_AGENT_API int execl(const char *path, const char *arg, ...)
{
	VA_ARGV(argv, arg, ap);
	va_end(ap);
	return execve(path, argv, environ);
}

ECP_AGENT_API int execlp(const char *file, const char *arg, ...)
{
	VA_ARGV(argv, arg, ap);
	va_end(ap);
	return execvpe(file, argv, environ);
}

ECP_AGENT_API int execle(const char *path, const char *arg, ...)
{
	VA_ARGV(argv, arg, ap);
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}

/* The spawned process is never the recorded one, wherever it is spawned. */
#define SPAWN(fn, what)                                                                  \
	ECP_AGENT_API int fn(pid_t *restrict pid, const char *restrict what,             \
			     const posix_spawn_file_actions_t *file_actions,             \
			     const posix_spawnattr_t *restrict attrp,                    \
			     char *const argv[restrict], char *const envp[restrict])     \
	{                                                                                \
		__typeof__(&fn) real = EXEC_REAL(fn);                                    \
		CHILD_ENV(env, envp, true);                                              \
		return real(pid, what, file_actions, attrp, argv, env);                  \
	}
SPAWN(posix_spawn, path)
SPAWN(posix_spawnp, file)
