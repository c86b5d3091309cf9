/* SPDX-License-Identifier: MIT */
/* Mutex ping-pong: two threads hand a turn back and forth N times (default
 * 100 000) through one mutex and a condition variable, so nearly all their
 * time is synchronization: the worst case for the recorder's sync events. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int turn;
static long rounds;

static void *player(void *arg)
{
	int me = (int)(long)arg;
	for (long i = 0; i < rounds; i++) {
		pthread_mutex_lock(&lock);
		while (turn != me)
			pthread_cond_wait(&changed, &lock);
		turn = !me;
		pthread_cond_signal(&changed);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	rounds = argc > 1 ? atol(argv[1]) : 100000;
	pthread_create(&a, NULL, player, (void *)0L);
	pthread_create(&b, NULL, player, (void *)1L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("rounds=%ld\n", rounds);
	return 0;
}
