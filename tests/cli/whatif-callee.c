/* SPDX-License-Identifier: MIT */
/* A program whose hot function does none of the work itself: heavy_work()
 * only calls burn(), where the loop is.  `ecp whatif --faster heavy_work=20%`
 * must predict a gain (inclusive scope), and nearly none with --self. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static volatile uint64_t sink;

__attribute__((noinline)) static void burn(uint64_t n)
{
	uint64_t x = 1;
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	sink = x;
}

__attribute__((noinline)) static void heavy_work(uint64_t n)
{
	burn(n);
}

static void *worker(void *arg)
{
	heavy_work((uint64_t)(uintptr_t)arg);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)20000000u)) {
			fprintf(stderr, "whatif-callee: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
