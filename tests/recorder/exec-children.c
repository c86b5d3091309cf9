/* SPDX-License-Identifier: MIT */
/* Programs the recorded process starts, every way glibc offers, each a
 * probe that says whether the recorder was loaded into it and what
 * LD_PRELOAD it was given; then the process execs itself in place, which
 * must stay recorded (test_exec_children.py).
 *
 *   exec-children EXPECT              run the ways, then exec in place
 *   exec-children probe EXPECT REC    exit 0 clean, 1 recorder loaded,
 *                                     2 LD_PRELOAD, less the children's
 *                                     library, is not EXPECT ("-": unset),
 *                                     3 the children's library is loaded
 *                                     where REC is 0 or not where it is 1
 *   exec-children in-place            print whether the agent is loaded */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Whether a library whose path holds `name` is mapped into this process. */
static bool mapped(const char *name)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, name) != NULL;
	fclose(f);
	return found;
}

/* LD_PRELOAD less the entries naming the children's library, or NULL
 * where nothing is left. */
static const char *users_preload(char *buf, size_t len)
{
	const char *preload = getenv("LD_PRELOAD");
	char copy[4096], *save = NULL;
	buf[0] = 0;
	if (!preload || strlen(preload) >= sizeof(copy) || strlen(preload) >= len)
		return preload;
	strcpy(copy, preload);
	for (char *e = strtok_r(copy, ": ", &save); e; e = strtok_r(NULL, ": ", &save)) {
		if (strstr(e, "libecp-child"))
			continue;
		if (buf[0])
			strcat(buf, ":");
		strcat(buf, e);
	}
	return buf[0] ? buf : NULL;
}

static int probe(const char *expect, bool in_recording)
{
	char buf[4096];
	const char *preload = users_preload(buf, sizeof(buf));
	if (mapped("liblttng-ust") || mapped("libecp-record"))
		return 1;
	if (strcmp(expect, "-") == 0 ? preload != NULL
				     : !preload || strcmp(preload, expect))
		return 2;
	if (mapped("libecp-child") != in_recording)
		return 3;
	return 0;
}

static char self[4096];
static char *recorded = "0"; /* "1" where this process is recorded */

static int status_of(pid_t pid)
{
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Runs the probe in a child made by fork (or vfork) that execs it `way`. */
static int run_forked(const char *way, const char *expect, bool use_vfork)
{
	char *argv[] = {self, "probe", (char *)expect, recorded, NULL};
	pid_t pid = use_vfork ? vfork() : fork();
	if (pid == 0) {
		if (strcmp(way, "execve") == 0 || use_vfork)
			execve(self, argv, environ);
		else if (strcmp(way, "execv") == 0)
			execv(self, argv);
		else if (strcmp(way, "execvp") == 0)
			execvp(self, argv);
		else if (strcmp(way, "execvpe") == 0)
			execvpe(self, argv, environ);
		else if (strcmp(way, "execl") == 0)
			execl(self, self, "probe", expect, recorded, (char *)NULL);
		else if (strcmp(way, "execlp") == 0)
			execlp(self, self, "probe", expect, recorded, (char *)NULL);
		else if (strcmp(way, "execle") == 0)
			execle(self, self, "probe", expect, recorded, (char *)NULL,
			       environ);
		else if (strcmp(way, "fexecve") == 0) {
			int fd = open(self, O_RDONLY | O_CLOEXEC);
			if (fd >= 0)
				fexecve(fd, argv, environ);
		}
		_exit(127);
	}
	return status_of(pid);
}

static int run_spawned(bool search, const char *expect)
{
	char *argv[] = {self, "probe", (char *)expect, recorded, NULL};
	pid_t pid = -1;
	int rc = search ? posix_spawnp(&pid, self, NULL, NULL, argv, environ)
			: posix_spawn(&pid, self, NULL, NULL, argv, environ);
	return rc ? -1 : status_of(pid);
}

int main(int argc, char **argv)
{
	static const char *const ways[] = {"execve",  "execv",   "execvp",
					   "execvpe", "execl",   "execlp",
					   "execle",  "fexecve", "vfork"};
	ssize_t n;
	if (argc == 4 && strcmp(argv[1], "probe") == 0)
		return probe(argv[2], strcmp(argv[3], "1") == 0);
	if (argc == 2 && strcmp(argv[1], "in-place") == 0) {
		printf("in-place exec recorded: %s\n",
		       mapped("libecp-record") ? "yes" : "no");
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: exec-children EXPECTED_LD_PRELOAD|-\n");
		return 64;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 65;
	self[n] = 0;
	if (mapped("libecp-record"))
		recorded = "1";
	for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++)
		printf("%s %d\n", ways[i],
		       run_forked(ways[i], argv[1], strcmp(ways[i], "vfork") == 0));
	printf("posix_spawn %d\n", run_spawned(false, argv[1]));
	printf("posix_spawnp %d\n", run_spawned(true, argv[1]));
	fflush(stdout);
	execl(self, self, "in-place", (char *)NULL);
	return 66;
}
