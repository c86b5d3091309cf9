/* Runs a program pinned to CPU 0 (as `ecp record` does) and prints the CPU
 * time (user + system, ns) it used, for the end-to-end test of `ecp info`.
 * usage: cpu-time PROGRAM [ARGS...] */
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		perror("sched_setaffinity");
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	long long ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
	printf("%lld\n", ns);
	return 0;
}
