/* A program that closes every descriptor it did not open, as daemons and
 * some shells do, then starts a thread: recorded, it must run as it does
 * unrecorded (issue 33: it aborted inside LTTng-UST, exit 134). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *worker(void *arg)
{
	(void)arg;
	return NULL;
}

int main(void)
{
	pthread_t t;
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 1;
	printf("done\n");
	return 0;
}
