/* A 9-thread program for the end-to-end test of `ecp info`: main and 8
 * workers that compute in instrumented functions, add to a shared total
 * under a mutex, hand tokens through a semaphore and meet at a barrier. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#define WORKERS 8
#define ROUNDS  6

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t barrier;
static sem_t tokens;
static double total;

__attribute__((noinline)) static double leaf(long i)
{
	return (double)(i % 7) * 0.25 + (double)(i & 3);
}

__attribute__((noinline)) static double compute(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (i & 1023) ? (double)i * 1e-9 : leaf(i);
	return s;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	char name[16];
	snprintf(name, sizeof(name), "worker-%ld", id);
	pthread_setname_np(pthread_self(), name);
	for (int r = 0; r < ROUNDS; r++) {
		double s = compute(1800000 + 150000 * id);
		pthread_mutex_lock(&lock);
		total += s;
		pthread_mutex_unlock(&lock);
		if (id == 0)
			sem_post(&tokens);
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[WORKERS];
	pthread_barrier_init(&barrier, NULL, WORKERS);
	sem_init(&tokens, 0, 0);
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	double s = compute(6000000);
	for (int r = 0; r < ROUNDS; r++)
		sem_wait(&tokens);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	printf("%.3f\n", total + s);
	return 0;
}
