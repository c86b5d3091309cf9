/* SPDX-License-Identifier: MIT */
/* Two threads hand a turn to each other through a mutex and a condition
 * variable, 20,000 times each: on one CPU every hand-off is a context
 * switch, and each switch-in costs the thread CPU time its switch-in record
 * does not cover (recorder/calibrate-switch.h).  Prints each thread's own
 * CPU clock. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TURNS 20000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int turn;

static void *player(void *arg)
{
	int me = (int)(intptr_t)arg;
	for (int i = 0; i < TURNS; i++) {
		pthread_mutex_lock(&lock);
		while (turn != me)
			pthread_cond_wait(&cond, &lock);
		turn = 1 - me;
		pthread_cond_signal(&cond);
		pthread_mutex_unlock(&lock);
	}
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	printf("tid=%ld cpu_ns=%lld\n", (long)syscall(SYS_gettid),
	       (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, player, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
