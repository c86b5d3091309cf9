/* SPDX-License-Identifier: MIT */
/* A program that closes every descriptor it did not open, as daemons and
 * some shells do, then starts a thread: recorded, it must run as it does
 * unrecorded (issue 33: it aborted inside LTTng-UST, exit 134).  The mode
 * says how: a loop of close() (default), close_range(3, ~0U, 0), or
 * closefrom(3) (both straight to the kernel in glibc).  Descriptors the
 * program opened far apart (the agent finds the open ones 1024 at a time)
 * must all be closed. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void *worker(void *arg)
{
	(void)arg;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "loop";
	pthread_t t;
	struct rlimit rl;
	/* the loop closes below 1024 only */
	int top = strcmp(mode, "range") && strcmp(mode, "from") ? 1023 : 5000;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)top >= rl.rlim_cur)
		top = (int)rl.rlim_cur - 1;
	int mine[] = {10, 700, 1023, 1024, 2047, 2048, top};
	const size_t n_mine = sizeof(mine) / sizeof(mine[0]);
	for (size_t i = 0; i < n_mine; i++) {
		/* a free number at or past it: the low ones may be the
		 * recorder's (LTTng-UST's sockets and shared memory) */
		while (mine[i] <= top && fcntl(mine[i], F_GETFD) >= 0)
			mine[i]++;
		if (mine[i] <= top && dup2(1, mine[i]) < 0) {
			printf("dup2 %d: %s\n", mine[i], strerror(errno));
			return 1;
		}
	}
	if (!strcmp(mode, "range")) {
		if (close_range(3, ~0U, 0) != 0) {
			printf("close_range: %s\n", strerror(errno));
			return 1;
		}
	} else if (!strcmp(mode, "from")) {
		closefrom(3);
	} else {
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	}
	for (size_t i = 0; i < n_mine; i++)
		if (mine[i] <= top && fcntl(mine[i], F_GETFD) >= 0) {
			printf("descriptor %d left open\n", mine[i]);
			return 1;
		}
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 1;
	printf("done\n");
	return 0;
}
