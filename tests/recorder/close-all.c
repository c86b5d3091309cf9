/* SPDX-License-Identifier: MIT */
/* A program that closes every descriptor it did not open, as daemons and
 * some shells do, then starts a thread: recorded, it must run as it does
 * unrecorded (issue 33: it aborted inside LTTng-UST, exit 134).  The mode
 * says how: a loop of close() (default), close_range(3, ~0U, 0), or
 * closefrom(3) (both straight to the kernel in glibc). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
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
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 1;
	printf("done\n");
	return 0;
}
